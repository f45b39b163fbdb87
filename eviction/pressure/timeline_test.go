package pressure

import (
	"github.com/nodelife/nodelife/core"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/conditions"
)

// stepView is what the timeline compares at each step.
type stepView struct {
	Conditions []conditions.Type
	Met        []string
	Actionable []string
	Kind       DecisionKind
	Evict      string
	Grace      int64
	Message    string
}

func view(r Result) stepView {
	v := stepView{Conditions: r.Conditions, Kind: r.Decision.Kind}
	for _, t := range r.Met {
		v.Met = append(v.Met, t.String())
	}
	for _, t := range r.Actionable {
		v.Actionable = append(v.Actionable, t.String())
	}
	if e := r.Decision.Evict; e != nil {
		v.Evict, v.Grace, v.Message = e.Pod.Name, e.GracePeriodSeconds, e.Status.Message
	}
	return v
}

// TestMemoryPressureTimeline scripts a memory-pressure episode with an
// explicit clock: soft pressure, a grace period restarted by one good
// reading, a soft eviction after the grace period, the minimum reclaim
// keeping the threshold active, recovery, a hard eviction, and the
// condition held for the transition period.
func TestMemoryPressureTimeline(t *testing.T) {
	ths, err := Settings{
		EvictionHard:            map[string]string{"memory.available": "100Mi"},
		EvictionSoft:            map[string]string{"memory.available": "500Mi"},
		EvictionSoftGracePeriod: map[string]string{"memory.available": "1m"},
		EvictionMinimumReclaim:  map[string]string{"memory.available": "100Mi"},
	}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Thresholds, cfg.MaxPodGracePeriodSeconds, cfg.LocalStorageCapacityIsolation = ths, 30, false
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	crit := memPod("crit", 0, "", 2*gi)
	crit.Annotations = map[string]string{core.ConfigSourceAnnotation: core.SourceFile}
	a := memPod("a", 0, "100Mi", gi)
	b := memPod("b", 0, "1Gi", 512*mi)
	d := memPod("d", 10, "", 300*mi)

	const (
		hard = "memory.available<100Mi minReclaim=100Mi"
		soft = "memory.available<500Mi grace=1m0s minReclaim=100Mi"
	)
	mp := []conditions.Type{conditions.MemoryPressure}
	for _, s := range []struct {
		at    time.Duration
		avail int64
		pods  []tp
		want  stepView
	}{
		{0, gi, []tp{crit, a, b}, stepView{}},
		// Soft threshold met: condition at once, no action during grace.
		{10 * time.Second, 400 * mi, []tp{crit, a, b}, stepView{Conditions: mp, Met: []string{soft}}},
		{20 * time.Second, 450 * mi, []tp{crit, a, b}, stepView{Conditions: mp, Met: []string{soft}}},
		// One reading above the threshold restarts the grace period; the
		// condition stays for the transition period.
		{30 * time.Second, 600 * mi, []tp{crit, a, b}, stepView{Conditions: mp}},
		{40 * time.Second, 400 * mi, []tp{crit, a, b}, stepView{Conditions: mp, Met: []string{soft}}},
		{90 * time.Second, 400 * mi, []tp{crit, a, b}, stepView{Conditions: mp, Met: []string{soft}}},
		// 60 s after 40 s: soft eviction. crit ranks first but is critical;
		// a exceeds its request; grace = MaxPodGracePeriodSeconds.
		{100 * time.Second, 400 * mi, []tp{crit, a, b}, stepView{Conditions: mp, Met: []string{soft}, Actionable: []string{soft}, Kind: DecideEvict,
			Evict: "a", Grace: 30, Message: "The node was low on resource: memory. Threshold quantity: 500Mi, available: 400Mi. Container c was using 1Gi, request is 100Mi, has larger consumption of memory. "}},
		// 550Mi is above 500Mi but below 500Mi + 100Mi: still active, so b goes.
		{110 * time.Second, 550 * mi, []tp{crit, b}, stepView{Conditions: mp, Met: []string{soft}, Actionable: []string{soft}, Kind: DecideEvict,
			Evict: "b", Grace: 30, Message: "The node was low on resource: memory. Threshold quantity: 500Mi, available: 550Mi. "}},
		// 650Mi clears threshold + min-reclaim.
		{120 * time.Second, 650 * mi, []tp{crit}, stepView{Conditions: mp}},
		// Hard threshold: both met, the hard one acts at once with grace 1.
		{130 * time.Second, 80 * mi, []tp{crit, d}, stepView{Conditions: mp, Met: []string{hard, soft}, Actionable: []string{hard}, Kind: DecideEvict,
			Evict: "d", Grace: 1, Message: "The node was low on resource: memory. Threshold quantity: 100Mi, available: 80Mi. Container c was using 300Mi, request is 0, has larger consumption of memory. "}},
		{140 * time.Second, 2 * gi, []tp{crit}, stepView{Conditions: mp}},
		// Last met at 130 s: reported while now - 130 s < 5m.
		{130*time.Second + 5*time.Minute - time.Nanosecond, 2 * gi, []tp{crit}, stepView{Conditions: mp}},
		{130*time.Second + 5*time.Minute, 2 * gi, []tp{crit}, stepView{}},
	} {
		now := t0.Add(s.at)
		obs := Observations{SignalMemoryAvailable: {Available: s.avail, Capacity: 4 * gi, Time: now}}
		got := view(step(m, obs, s.pods, now))
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Fatalf("at %v (-want +got):\n%s", s.at, diff)
		}
	}
}

// TestStepSkipsStaleObservations: an actionable threshold whose reading is
// no newer than the last step's is not acted on (thresholdsUpdatedStats),
// but its condition is reported.
func TestStepSkipsStaleObservations(t *testing.T) {
	cfg := DefaultConfig()
	cfg.LocalStorageCapacityIsolation = false
	m, _ := NewManager(cfg)
	pods := []tp{memPod("a", 0, "", gi)}
	obs := Observations{SignalMemoryAvailable: {Available: mi, Capacity: 4 * gi, Time: t0}}
	if r := step(m, obs, pods, t0); r.Decision.Kind != DecideEvict {
		t.Fatalf("first: %+v", r.Decision)
	}
	r := step(m, obs, pods, t0.Add(10*time.Second))
	if r.Decision.Kind != DecideNothing || len(r.Actionable) != 1 || len(r.Conditions) != 1 {
		t.Fatalf("stale: %+v", r)
	}
	// A zero timestamp is always fresh.
	obs[SignalMemoryAvailable] = Observation{Available: mi, Capacity: 4 * gi}
	if r := step(m, obs, pods, t0.Add(20*time.Second)); r.Decision.Kind != DecideEvict {
		t.Fatalf("zero time: %+v", r.Decision)
	}
}

// TestStepClampsTime: a time earlier than one already seen counts as that
// time, so a soft grace period cannot be shortened by a clock stepped back.
func TestStepClampsTime(t *testing.T) {
	ths, _ := Settings{EvictionSoft: map[string]string{"memory.available": "1Gi"}, EvictionSoftGracePeriod: map[string]string{"memory.available": "30s"}}.Parse()
	m, _ := NewManager(Config{Thresholds: ths, PressureTransitionPeriod: time.Minute})
	obs := Observations{SignalMemoryAvailable: {Available: mi, Capacity: 4 * gi}}
	m.Step(t0.Add(time.Minute), obs, nil, nil)
	r := m.Step(t0, obs, nil, nil)
	if len(r.Actionable) != 0 || r.Next != t0.Add(time.Minute+MonitoringPeriod) {
		t.Fatalf("%+v", r)
	}
	if st := m.State(); !st.Last.Equal(t0.Add(time.Minute)) || !st.FirstObserved[0].Equal(t0.Add(time.Minute)) {
		t.Fatalf("%+v", st)
	}
}

// TestStepActingOrder: with memory and disk thresholds actionable, memory
// is acted on; with nodefs under a dedicated imagefs no reclaim runs
// (kubernetes#129616), with a single disk containers then images are
// deleted first, and Reclaimed re-checks every threshold with min-reclaim.
func TestStepActingOrder(t *testing.T) {
	ths, _ := Settings{EvictionHard: map[string]string{"memory.available": "100Mi", "nodefs.available": "10%"},
		EvictionMinimumReclaim: map[string]string{"nodefs.available": "1Gi"}}.Parse()
	pods := []tp{memPod("a", 0, "", gi)}
	low := Observations{
		SignalMemoryAvailable: {Available: mi, Capacity: 4 * gi},
		SignalNodeFsAvailable: {Available: gi, Capacity: 100 * gi},
	}
	for _, tc := range []struct {
		layout  Layout
		obs     Observations
		kind    DecisionKind
		signal  Signal
		reclaim int
	}{
		{LayoutSingle, low, DecideEvict, SignalMemoryAvailable, 0},
		{LayoutSingle, Observations{SignalNodeFsAvailable: low[SignalNodeFsAvailable]}, DecideReclaim, SignalNodeFsAvailable, 2},
		{LayoutImageFs, Observations{SignalNodeFsAvailable: low[SignalNodeFsAvailable]}, DecideEvict, SignalNodeFsAvailable, 0},
		{LayoutSplit, Observations{SignalNodeFsAvailable: low[SignalNodeFsAvailable]}, DecideReclaim, SignalNodeFsAvailable, 1},
	} {
		m, err := NewManager(Config{Thresholds: ths, Layout: tc.layout, PressureTransitionPeriod: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		r := step(m, tc.obs, pods, t0)
		d := r.Decision
		wantReason := DecisionEvictPod
		if tc.kind == DecideReclaim {
			wantReason = DecisionReclaimFirst
		}
		if d.Kind != tc.kind || d.Reason != wantReason || d.Threshold.Signal != tc.signal || len(d.Reclaim) != tc.reclaim || d.Evict == nil || d.Evict.Pod.Name != "a" {
			t.Errorf("%s: %+v", tc.layout, d)
		}
		if r.NodeEvent == nil || r.NodeEvent.Message != "Attempting to reclaim "+string(tc.signal.Resource()) {
			t.Errorf("%s: event %+v", tc.layout, r.NodeEvent)
		}
	}
	m, _ := NewManager(Config{Thresholds: ths, PressureTransitionPeriod: time.Minute})
	// nodefs 10% of 100Gi is int64(107374182400 * float64(float32(0.1))) =
	// 10Gi + 160 bytes; with the 1Gi min-reclaim 11Gi + 160 must be free.
	if m.Reclaimed(Observations{SignalNodeFsAvailable: {Available: 11*gi + 159, Capacity: 100 * gi}}) {
		t.Error("reclaimed below threshold + min-reclaim")
	}
	if !m.Reclaimed(Observations{SignalNodeFsAvailable: {Available: 11*gi + 160, Capacity: 100 * gi}}) {
		t.Error("not reclaimed at threshold + min-reclaim")
	}
}

// TestStepNoEvictablePod: all pods critical, or none at all.
func TestStepNoEvictablePod(t *testing.T) {
	m, _ := NewManager(DefaultConfig())
	obs := Observations{SignalMemoryAvailable: {Available: mi, Capacity: 4 * gi}}
	crit := memPod("c", core.SystemCriticalPriority, "", gi)
	r := step(m, obs, []tp{crit}, t0)
	if r.Decision.Kind != DecideNothing || r.Decision.Evict != nil || r.Decision.Reason != DecisionAllPodsCritical || r.Decision.Message != "unable to evict any pods from the node: every active pod is critical" {
		t.Fatalf("%+v", r.Decision)
	}
	r = m.Step(t0.Add(time.Second), obs, nil, nil)
	if r.Decision.Kind != DecideNothing || r.Decision.Reason != DecisionNoActivePods || r.Decision.Message != "eviction thresholds have been met, but no pods are active to evict" {
		t.Fatalf("%+v", r.Decision)
	}
}

// TestSoftGrace pins the soft eviction grace period: upstream passes
// MaxPodGracePeriodSeconds as is (even negative, kubernetes#118172);
// SoftGracePodAware takes min(max, pod's) and defers to the pod when
// negative.
func TestSoftGrace(t *testing.T) {
	ths, _ := Settings{EvictionSoft: map[string]string{"memory.available": "1Gi"}, EvictionSoftGracePeriod: map[string]string{"memory.available": "10s"}}.Parse()
	pod := memPod("a", 0, "", gi)
	pod.TerminationGracePeriodSeconds = i64(20)
	noGrace := memPod("a", 0, "", gi) // API default 30
	for _, tc := range []struct {
		max   int64
		aware bool
		pod   tp
		want  int64
	}{
		{0, false, pod, 0},
		{-1, false, pod, -1},
		{60, false, pod, 60},
		{60, true, pod, 20},
		{10, true, pod, 10},
		{-1, true, pod, 20},
		{-1, true, noGrace, 30},
	} {
		m, _ := NewManager(Config{Thresholds: ths, MaxPodGracePeriodSeconds: tc.max, SoftGracePodAware: tc.aware, PressureTransitionPeriod: time.Minute})
		obs := Observations{SignalMemoryAvailable: {Available: mi, Capacity: 4 * gi}}
		step(m, obs, []tp{tc.pod}, t0)
		r := step(m, obs, []tp{tc.pod}, t0.Add(10*time.Second))
		if r.Decision.Evict == nil || r.Decision.Evict.GracePeriodSeconds != tc.want || r.Decision.Evict.Hard {
			t.Errorf("max %d aware %v: %+v", tc.max, tc.aware, r.Decision.Evict)
		}
	}
}

// TestSetStateOutOfRange: a restored state with indexes the manager does
// not have is ignored, not a panic.
func TestSetStateOutOfRange(t *testing.T) {
	m, _ := NewManager(DefaultConfig())
	m.SetState(State{Actionable: []int{-1, 99}, FirstObserved: map[int]time.Time{-5: t0}})
	r := step(m, Observations{SignalMemoryAvailable: {Available: gi, Capacity: 4 * gi}}, nil, t0)
	if len(r.Met) != 0 || r.Decision.Kind != DecideNothing {
		t.Fatalf("%+v", r)
	}
}
