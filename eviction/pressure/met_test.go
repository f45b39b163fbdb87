package pressure

import (
	"strings"
	"testing"
)

// TestMet pins thresholdsMet: strict q > available, percentages of
// capacity truncated, min-reclaim added only when enforced, no
// observation = not met, an empty operator never met.
func TestMet(t *testing.T) {
	mem := func(v string) Threshold {
		return Threshold{Signal: SignalMemoryAvailable, Operator: OpLessThan, Value: ThresholdValue{Quantity: q(v)}}
	}
	pct := func(sig Signal, p float32) Threshold {
		return Threshold{Signal: sig, Operator: OpLessThan, Value: ThresholdValue{Percentage: p}}
	}
	withReclaim := func(t Threshold, v ThresholdValue) Threshold { t.MinReclaim = &v; return t }
	for _, tc := range []struct {
		name    string
		th      Threshold
		obs     Observation
		enforce bool
		want    bool
	}{
		{"below", mem("100Mi"), Observation{Available: 100*mi - 1, Capacity: gi}, false, true},
		{"equal is not met", mem("100Mi"), Observation{Available: 100 * mi, Capacity: gi}, false, false},
		{"above", mem("100Mi"), Observation{Available: 100*mi + 1, Capacity: gi}, false, false},
		// 10% of 1001 bytes = int64(1001 * 0.1000000015) = 100.
		{"percent truncated, equal", pct(SignalNodeFsAvailable, 0.1), Observation{Available: 100, Capacity: 1001}, false, false},
		{"percent truncated, below", pct(SignalNodeFsAvailable, 0.1), Observation{Available: 99, Capacity: 1001}, false, true},
		{"0.0% never met", pct(SignalNodeFsAvailable, 0), Observation{Available: 0, Capacity: 1000}, false, false},
		{"min-reclaim ignored unless enforced", withReclaim(mem("100Mi"), ThresholdValue{Quantity: q("50Mi")}), Observation{Available: 120 * mi, Capacity: gi}, false, false},
		{"min-reclaim enforced", withReclaim(mem("100Mi"), ThresholdValue{Quantity: q("50Mi")}), Observation{Available: 120 * mi, Capacity: gi}, true, true},
		{"min-reclaim enforced, freed", withReclaim(mem("100Mi"), ThresholdValue{Quantity: q("50Mi")}), Observation{Available: 150 * mi, Capacity: gi}, true, false},
		// 100Mi + 5% of 1000Mi (int64(1048576000 * 0.0500000007) = 52428800)
		// = 157286400 = 150Mi: met one byte below, not at 150Mi.
		{"percent min-reclaim", withReclaim(mem("100Mi"), ThresholdValue{Percentage: 0.05}), Observation{Available: 150*mi - 1, Capacity: 1000 * mi}, true, true},
		{"percent min-reclaim, equal", withReclaim(mem("100Mi"), ThresholdValue{Percentage: 0.05}), Observation{Available: 150 * mi, Capacity: 1000 * mi}, true, false},
		{"no operator never met", Threshold{Signal: SignalContainerFsAvailable}, Observation{Available: -5, Capacity: 10}, false, false},
		{"negative pid available", Threshold{Signal: SignalPIDAvailable, Operator: OpLessThan, Value: ThresholdValue{Quantity: q("1")}}, Observation{Available: -3, Capacity: 100}, false, true},
	} {
		got := Met([]Threshold{tc.th}, Observations{tc.th.Signal: tc.obs}, tc.enforce)
		if (len(got) == 1) != tc.want {
			t.Errorf("%s: met = %v, want %v", tc.name, len(got) == 1, tc.want)
		}
	}
	if got := Met([]Threshold{mem("1Gi")}, Observations{SignalNodeFsAvailable: {}}, false); len(got) != 0 {
		t.Error("met without an observation")
	}
}

// TestObserve pins makeSignalObservations: capacity = available + working
// set for memory, pid available = max - running, incomplete readings
// skipped.
func TestObserve(t *testing.T) {
	obs := Observe(NodeStats{
		Memory:            &MemoryStats{Time: t0, AvailableBytes: u64(300), WorkingSetBytes: u64(700)},
		AllocatableMemory: &MemoryStats{AvailableBytes: u64(10)},                                                  // no working set: skipped
		NodeFs:            &FsStats{Time: t0, AvailableBytes: u64(5), CapacityBytes: u64(50), InodesFree: u64(7)}, // no inodes
		ImageFs:           &FsStats{AvailableBytes: u64(1), CapacityBytes: u64(2), InodesFree: u64(3), Inodes: u64(4)},
		Rlimit:            &RlimitStats{MaxPID: i64(100), NumOfRunningProcesses: i64(120)},
	})
	want := map[Signal]Observation{
		SignalMemoryAvailable:   {Available: 300, Capacity: 1000, Time: t0},
		SignalNodeFsAvailable:   {Available: 5, Capacity: 50, Time: t0},
		SignalImageFsAvailable:  {Available: 1, Capacity: 2},
		SignalImageFsInodesFree: {Available: 3, Capacity: 4},
		SignalPIDAvailable:      {Available: -20, Capacity: 100},
	}
	if len(obs) != len(want) {
		t.Fatalf("got %v", obs)
	}
	for s, w := range want {
		if obs[s] != w {
			t.Errorf("%s: got %+v, want %+v", s, obs[s], w)
		}
	}
}

func TestSignals(t *testing.T) {
	for _, tc := range []struct {
		s    Signal
		res  Resource
		cond string
	}{
		{SignalMemoryAvailable, ResourceMemory, "MemoryPressure"},
		{SignalAllocatableMemoryAvailable, ResourceMemory, "MemoryPressure"},
		{SignalNodeFsAvailable, ResourceEphemeralStorage, "DiskPressure"},
		{SignalNodeFsInodesFree, ResourceInodes, "DiskPressure"},
		{SignalImageFsAvailable, ResourceEphemeralStorage, "DiskPressure"},
		{SignalImageFsInodesFree, ResourceInodes, "DiskPressure"},
		{SignalContainerFsAvailable, ResourceEphemeralStorage, "DiskPressure"},
		{SignalContainerFsInodesFree, ResourceInodes, "DiskPressure"},
		{SignalPIDAvailable, ResourcePIDs, "PIDPressure"},
		{"swap.available", "", ""},
	} {
		if tc.s.Resource() != tc.res || string(tc.s.Condition()) != tc.cond || tc.s.Valid() != (tc.res != "") {
			t.Errorf("%s: %s %s %v", tc.s, tc.s.Resource(), tc.s.Condition(), tc.s.Valid())
		}
	}
	if len(Signals()) != 9 {
		t.Fatal(Signals())
	}
}

func TestDefaults(t *testing.T) {
	for _, tc := range []struct {
		goos string
		want string
	}{
		{"linux", "imagefs.available<15%,imagefs.inodesFree<5%,memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%"},
		{"windows", "memory.available<500Mi,nodefs.available<10%"},
		{"darwin", "imagefs.available<15%,memory.available<100Mi,nodefs.available<10%"},
	} {
		if got := FormatThresholdFlag(DefaultEvictionHard(tc.goos)); got != tc.want {
			t.Errorf("%s: %s", tc.goos, got)
		}
	}
	// kubernetes#119985: one user key drops every other default.
	user := map[string]string{"memory.available": "1Gi"}
	if got := FormatThresholdFlag(EvictionHardWithDefaults(user, "linux", false)); got != "memory.available<1Gi" {
		t.Error(got)
	}
	if got := FormatThresholdFlag(EvictionHardWithDefaults(user, "linux", true)); got != "imagefs.available<15%,imagefs.inodesFree<5%,memory.available<1Gi,nodefs.available<10%,nodefs.inodesFree<5%" {
		t.Error(got)
	}
	if got := EvictionHardWithDefaults(nil, "windows", false); len(got) != 2 {
		t.Error(got)
	}
	if got := EvictionHardWithDefaults(map[string]string{}, "linux", false); len(got) != 0 {
		t.Error("an empty map set by the user keeps no threshold:", got)
	}
	// Merging keeps a user's "0%", which then disables the default.
	ths, err := ParseThresholdConfig(nil, EvictionHardWithDefaults(map[string]string{"imagefs.available": "0%"}, "linux", true), nil, nil, nil)
	if err != nil || strings.Contains(thresholdStrings(ths), "imagefs.available<") {
		t.Error(thresholdStrings(ths), err)
	}
	cfg := DefaultConfig()
	if got := thresholdStrings(cfg.Thresholds); got != "imagefs.available<15%; imagefs.inodesFree<5%; memory.available<100Mi; nodefs.available<10%; nodefs.inodesFree<5%; allocatableMemory.available<100Mi" {
		t.Error(got)
	}
	if cfg.PressureTransitionPeriod != DefaultPressureTransitionPeriod || !cfg.LocalStorageCapacityIsolation || cfg.MaxPodGracePeriodSeconds != 0 || cfg.Validate() != nil {
		t.Errorf("%+v", cfg)
	}
}

// TestUpdateContainerFsThresholds pins the derivation per layout.
func TestUpdateContainerFsThresholds(t *testing.T) {
	ths, err := Settings{
		EvictionHard:            map[string]string{"nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%", "imagefs.inodesFree": "4%"},
		EvictionSoft:            map[string]string{"nodefs.available": "20%", "imagefs.available": "25%"},
		EvictionSoftGracePeriod: map[string]string{"nodefs.available": "1m", "imagefs.available": "2m"},
		EvictionMinimumReclaim:  map[string]string{"nodefs.available": "1Gi"},
	}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	base := thresholdStrings(ths) + "; "
	for _, tc := range []struct {
		layout Layout
		want   string
		zero   int
	}{
		{LayoutSingle, "containerfs.available<10% minReclaim=1Gi; containerfs.available<20% grace=1m0s minReclaim=1Gi; containerfs.inodesFree<5%; containerfs.inodesFree<0.0% operator=\"\"", 1},
		{LayoutSplit, "containerfs.available<10% minReclaim=1Gi; containerfs.available<20% grace=1m0s minReclaim=1Gi; containerfs.inodesFree<5%; containerfs.inodesFree<0.0% operator=\"\"", 1},
		{LayoutImageFs, "containerfs.available<15%; containerfs.available<25% grace=2m0s; containerfs.inodesFree<4%; containerfs.inodesFree<0.0% operator=\"\"", 1},
	} {
		got, warnings := UpdateContainerFsThresholds(ths, tc.layout)
		if s := thresholdStrings(got); s != base+tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.layout, s, base+tc.want)
		}
		if len(warnings) != tc.zero || warnings[0].Reason != ReasonZeroValuedCopy {
			t.Errorf("%s: %v", tc.layout, warnings)
		}
	}
	// A configured containerfs threshold is overwritten in place.
	user := []Threshold{{Signal: SignalContainerFsAvailable, Operator: OpLessThan, Value: ThresholdValue{Quantity: q("1Gi")}},
		{Signal: SignalNodeFsAvailable, Operator: OpLessThan, Value: ThresholdValue{Percentage: 0.1}}}
	got, warnings := UpdateContainerFsThresholds(user, LayoutSingle)
	if s := thresholdStrings(got); !strings.HasPrefix(s, "containerfs.available<10%; nodefs.available<10%; containerfs.available<0.0% operator=") {
		t.Error(s)
	}
	if warnings[0].Reason != ReasonContainerFsOverwritten || !strings.Contains(warnings[0].Message, "found containerfs.available for hard eviction. ignoring") {
		t.Error(warnings)
	}
	if user[0].Value.Quantity == nil {
		t.Error("input modified")
	}
}

// TestReclaimFor pins buildSignalToNodeReclaimFuncs per layout.
func TestReclaimFor(t *testing.T) {
	str := func(ks []ReclaimKind) string {
		s := make([]string, len(ks))
		for i, k := range ks {
			s[i] = k.String()
		}
		return strings.Join(s, ",")
	}
	const both = "DeleteAllUnusedContainers,DeleteUnusedImages"
	for _, tc := range []struct {
		s                    Signal
		single, image, split string
	}{
		{SignalNodeFsAvailable, both, "", "DeleteAllUnusedContainers"},
		{SignalNodeFsInodesFree, both, "", "DeleteAllUnusedContainers"},
		{SignalImageFsAvailable, both, both, "DeleteUnusedImages"},
		{SignalImageFsInodesFree, both, both, "DeleteUnusedImages"},
		{SignalContainerFsAvailable, both, both, "DeleteAllUnusedContainers"},
		{SignalContainerFsInodesFree, both, both, "DeleteAllUnusedContainers"},
		{SignalMemoryAvailable, "", "", ""},
		{SignalAllocatableMemoryAvailable, "", "", ""},
		{SignalPIDAvailable, "", "", ""},
	} {
		got := [3]string{str(ReclaimFor(tc.s, LayoutSingle)), str(ReclaimFor(tc.s, LayoutImageFs)), str(ReclaimFor(tc.s, LayoutSplit))}
		if got != [3]string{tc.single, tc.image, tc.split} {
			t.Errorf("%s: %q", tc.s, got)
		}
	}
}
