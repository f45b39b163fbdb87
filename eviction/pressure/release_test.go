package pressure

import (
	"github.com/nodelife/nodelife/core"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nodelife/nodelife/release"
)

// Sidecars' ephemeral-storage limits (upstream v1.37's
// containerEphemeralStorageLimitEviction adds restartable init containers
// to the limits by name): "log" is a sidecar limited to 1Gi whose rootfs
// holds 2Gi, so v1.37 evicts the pod; v1.36 checks "app" alone (1Gi of
// 10Gi) and evicts nothing. "setup", a plain init container over its
// limit, is checked by neither. The pod's own limit (10Gi + 1Gi, the
// sidecar counted as a regular container) is not exceeded by its 4Gi.
func TestSidecarEphemeralStorageLimit(t *testing.T) {
	limited := func(name, limit, restart string) core.Container {
		return core.Container{Name: name, RestartPolicy: restart, Resources: core.ResourceRequirements{Limits: rl("", limit)}}
	}
	pod := tp{core.Pod{Name: "sidecar", UID: "sidecar",
		InitContainers: []core.Container{limited("log", "1Gi", core.ContainerRestartPolicyAlways), limited("setup", "1Gi", "")},
		Containers:     []core.Container{limited("app", "10Gi", "")}},
		&PodStats{EphemeralStorageUsedBytes: u64(4 * gi), Containers: []ContainerStats{
			{Name: "app", Rootfs: &FsUsage{UsedBytes: u64(gi)}},
			{Name: "log", Rootfs: &FsUsage{UsedBytes: u64(2 * gi)}},
			{Name: "setup", Rootfs: &FsUsage{UsedBytes: u64(2 * gi)}}}}}
	for _, c := range []struct {
		v    release.Version
		want []string
	}{
		{release.V1_37, []string{`Container log exceeded its local ephemeral storage limit "1Gi". `}},
		{release.V1_36, nil},
	} {
		cfg := ConfigFor(c.v)
		cfg.PressureTransitionPeriod = time.Minute
		m, err := NewManager(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range step(m, nil, []tp{pod}, t0).Decision.LocalStorage {
			got = append(got, e.Status.Message)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%v: local storage evictions (-want +got):\n%s", c.v, diff)
		}
	}
}

// HugepageAwareEviction (v1.37): the summary's node memory available is
// reduced by the node's huge page capacity, floored at 0, and the capacity
// (available + working set) with it; v1.36 reads it as is. 4Gi available
// and 1Gi working set on a node with 3Gi of huge pages: memory.available
// is 1Gi of 2Gi, and a 1.5Gi hard threshold is met only on v1.37.
func TestHugepageAwareMemoryAvailable(t *testing.T) {
	stats := func(avail, huge uint64) NodeStats {
		return NodeStats{Memory: &MemoryStats{Time: t0, AvailableBytes: u64(avail), WorkingSetBytes: u64(gi)},
			AllocatableMemory:      &MemoryStats{Time: t0, AvailableBytes: u64(avail), WorkingSetBytes: u64(gi)},
			HugePagesCapacityBytes: huge}
	}
	for _, c := range []struct {
		name                string
		stats               NodeStats
		v                   release.Version
		available, capacity int64
	}{
		{"v1.37, 3Gi of huge pages", stats(4*gi, 3*gi), release.V1_37, gi, 2 * gi},
		{"v1.36, 3Gi of huge pages", stats(4*gi, 3*gi), release.V1_36, 4 * gi, 5 * gi},
		{"v1.37, huge pages above available", stats(2*gi, 3*gi), release.V1_37, 0, gi},
		{"v1.37, huge pages equal to available", stats(3*gi, 3*gi), release.V1_37, 0, gi},
		{"v1.37, no huge pages", stats(4*gi, 0), release.V1_37, 4 * gi, 5 * gi},
	} {
		before := *c.stats.Memory.AvailableBytes
		obs := ConfigFor(c.v).Observe(c.stats)
		m := obs[SignalMemoryAvailable]
		if m.Available != c.available || m.Capacity != c.capacity {
			t.Errorf("%s: memory.available = %d of %d, want %d of %d", c.name, m.Available, m.Capacity, c.available, c.capacity)
		}
		if a := obs[SignalAllocatableMemoryAvailable]; a.Available != int64(*c.stats.AllocatableMemory.AvailableBytes) {
			t.Errorf("%s: allocatableMemory.available = %d changed", c.name, a.Available)
		}
		if *c.stats.Memory.AvailableBytes != before {
			t.Errorf("%s: the input stats were modified", c.name)
		}
	}
	if got := Observe(stats(4*gi, 3*gi))[SignalMemoryAvailable].Available; got != gi {
		t.Errorf("Observe (v1.37 default): memory.available = %d, want 1Gi", got)
	}
	ths, err := ParseThresholdConfig(nil, map[string]string{"memory.available": "1536Mi"}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v   release.Version
		met int
	}{{release.V1_37, 1}, {release.V1_36, 0}} {
		if got := len(Met(ths, ConfigFor(c.v).Observe(stats(4*gi, 3*gi)), false)); got != c.met {
			t.Errorf("%v: %d thresholds met, want %d", c.v, got, c.met)
		}
	}
}

func TestPressureConfigFor(t *testing.T) {
	for _, c := range []struct {
		v                                  release.Version
		separateDiskGCOff, rawMem, regular bool
	}{
		{release.V1_30, true, true, true},
		{release.V1_31, false, true, true},
		{release.V1_36, false, true, true},
		{release.V1_37, false, false, false},
	} {
		got := ConfigFor(c.v)
		if got.DisableSeparateDiskGC != c.separateDiskGCOff || got.DisableHugepageAwareEviction != c.rawMem || got.RegularContainersEphemeralLimitsOnly != c.regular {
			t.Errorf("ConfigFor(%v) = %+v", c.v, got)
		}
	}
	if d := DefaultConfig(); d.DisableHugepageAwareEviction || d.RegularContainersEphemeralLimitsOnly {
		t.Errorf("DefaultConfig is not v1.37: %+v", d)
	}
}
