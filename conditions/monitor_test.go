package conditions

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var created = time.Date(2026, 3, 1, 11, 59, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func readyCond(s Status, heartbeat, transition time.Time) Condition {
	return Condition{Type: Ready, Status: s, Reason: "KubeletReady", Message: "kubelet is posting ready status", LastHeartbeatTime: heartbeat, LastTransitionTime: transition}
}

// Startup grace: a node that never posts Ready is Unknown 60s after its
// creation, not before; every managed condition is added as
// NodeStatusNeverUpdated with the creation time as heartbeat.
func TestMonitorStartupGrace(t *testing.T) {
	cfg := DefaultMonitorConfig()
	node := NodeObservation{Name: "n1", CreationTimestamp: t0}
	h := cfg.Observe(at(5), HealthRecord{}, node)
	if h.TimedOut || h.Write || h.HasCurrentReady || h.GracePeriod != 60*time.Second || !h.Deadline.Equal(at(60)) {
		t.Fatalf("at 5s: %+v", h)
	}
	if want := (Condition{Type: Ready, Status: Unknown, LastHeartbeatTime: t0, LastTransitionTime: t0}); h.ObservedReady != want {
		t.Fatalf("observed %+v, want %+v", h.ObservedReady, want)
	}
	h = cfg.Observe(at(60), h.Record, node)
	if h.TimedOut {
		t.Fatal("timed out at exactly probe + grace; upstream needs now strictly after")
	}
	h = cfg.Observe(at(65), h.Record, node)
	never := func(ty Type) Condition {
		return Condition{Type: ty, Status: Unknown, Reason: "NodeStatusNeverUpdated", Message: "Kubelet never posted node status.", LastHeartbeatTime: t0, LastTransitionTime: at(65)}
	}
	want := []Condition{never(Ready), never(MemoryPressure), never(DiskPressure), never(PIDPressure)}
	if !h.TimedOut || !h.Write || h.MarkPodsNotReady || h.Event != nil {
		t.Fatalf("at 65s: %+v", h)
	}
	if d := cmp.Diff(want, h.Conditions); d != "" {
		t.Fatalf("conditions (-want +got):\n%s", d)
	}
}

// A renewing lease alone keeps a node healthy, however old its status.
func TestMonitorLeaseKeepsNodeHealthy(t *testing.T) {
	cfg := DefaultMonitorConfig()
	node := NodeObservation{Name: "n1", CreationTimestamp: created, Conditions: []Condition{readyCond(True, t0, t0)}, HasLease: true, LeaseRenewTime: t0}
	rec := HealthRecord{}
	for s := 0; s <= 600; s += 5 {
		node.LeaseRenewTime = at(s - s%10) // renewed every 10s
		h := cfg.Observe(at(s), rec, node)
		if h.TimedOut || h.Write || h.MarkPodsNotReady {
			t.Fatalf("at %ds: %+v", s, h)
		}
		if s%10 == 0 && !h.Deadline.Equal(at(s+50)) {
			t.Fatalf("at %ds: deadline %v", s, h.Deadline)
		}
		rec = h.Record
	}
	// A lease without renewTime counts once (first seen), then never again.
	node = NodeObservation{Name: "n2", CreationTimestamp: created, Conditions: []Condition{readyCond(True, t0, t0)}, HasLease: true}
	h := cfg.Observe(at(0), HealthRecord{}, node)
	h = cfg.Observe(at(30), h.Record, node)
	if !h.Record.ProbeTimestamp.Equal(at(0)) {
		t.Fatalf("probe moved to %v on an unset renewTime", h.Record.ProbeTimestamp)
	}
	if h = cfg.Observe(at(51), h.Record, node); !h.TimedOut {
		t.Fatal("not timed out 51s after the last probe")
	}
}

// Status and lease both stale: Unknown after the 50s grace (40s before
// v1.32), pods marked NotReady, NodeNotReady; then recovery.
func TestMonitorTimelineStaleThenRecovery(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grace time.Duration
	}{{"grace 50s (v1.32+)", DefaultNodeMonitorGracePeriod}, {"grace 40s (legacy)", LegacyNodeMonitorGracePeriod}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultMonitorConfig()
			cfg.GracePeriod = tc.grace
			g := int(tc.grace / time.Second)
			network := Condition{Type: NetworkUnavailable, Status: False, Reason: "RouteCreated", LastHeartbeatTime: t0, LastTransitionTime: t0}
			memory := Condition{Type: MemoryPressure, Status: False, Reason: "KubeletHasSufficientMemory", LastHeartbeatTime: t0, LastTransitionTime: t0}
			ready := readyCond(True, t0, t0)
			node := NodeObservation{Name: "n1", CreationTimestamp: created, Conditions: []Condition{network, memory, ready}, HasLease: true, LeaseRenewTime: t0}

			h := cfg.Observe(at(0), HealthRecord{}, node)
			if !h.Record.ProbeTimestamp.Equal(at(0)) || !h.Deadline.Equal(at(g)) {
				t.Fatalf("first pass: %+v", h.Record)
			}
			h = cfg.Observe(at(g), h.Record, node)
			if h.TimedOut {
				t.Fatal("timed out at probe + grace")
			}
			h = cfg.Observe(at(g+5), h.Record, node)
			wantConds := []Condition{
				network, // never touched
				{Type: MemoryPressure, Status: Unknown, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.", LastHeartbeatTime: t0, LastTransitionTime: at(g + 5)},
				{Type: Ready, Status: Unknown, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.", LastHeartbeatTime: t0, LastTransitionTime: at(g + 5)},
				{Type: DiskPressure, Status: Unknown, Reason: "NodeStatusNeverUpdated", Message: "Kubelet never posted node status.", LastHeartbeatTime: created, LastTransitionTime: at(g + 5)},
				{Type: PIDPressure, Status: Unknown, Reason: "NodeStatusNeverUpdated", Message: "Kubelet never posted node status.", LastHeartbeatTime: created, LastTransitionTime: at(g + 5)},
			}
			if !h.TimedOut || !h.Write || !h.MarkPodsNotReady || h.Event == nil || h.Event.Reason != "NodeNotReady" {
				t.Fatalf("timeout pass: %+v", h)
			}
			if d := cmp.Diff(wantConds, h.Conditions); d != "" {
				t.Fatalf("written conditions (-want +got):\n%s", d)
			}
			if h.ObservedReady != ready || h.CurrentReady != wantConds[2] {
				t.Fatalf("observed %+v current %+v", h.ObservedReady, h.CurrentReady)
			}
			if r := h.RecordAfterWrite; !r.ProbeTimestamp.Equal(at(0)) || !r.ReadyTransitionTimestamp.Equal(at(g+5)) || r.SavedReady != wantConds[2] {
				t.Fatalf("record after write: %+v", r)
			}
			if node.Conditions[2] != ready {
				t.Fatal("input conditions modified")
			}

			// Next pass sees the written status: already Unknown, nothing to write.
			node.Conditions = h.Conditions
			h = cfg.Observe(at(g+10), h.RecordAfterWrite, node)
			if !h.TimedOut || h.Write || h.MarkPodsNotReady || h.Event != nil {
				t.Fatalf("steady Unknown: %+v", h)
			}

			// The kubelet comes back.
			node.Conditions = []Condition{network, memory, readyCond(True, at(g+20), at(g+20))}
			node.LeaseRenewTime = at(g + 20)
			h = cfg.Observe(at(g+25), h.Record, node)
			if h.TimedOut || h.Write || h.CurrentReady.Status != True || !h.Record.ProbeTimestamp.Equal(at(g+25)) || !h.Record.ReadyTransitionTimestamp.Equal(at(g+25)) {
				t.Fatalf("recovery: %+v", h)
			}
		})
	}
}

// A heartbeat with an unchanged LastTransitionTime moves the probe but not
// the transition timestamp.
func TestMonitorHeartbeatKeepsTransition(t *testing.T) {
	cfg := DefaultMonitorConfig()
	node := NodeObservation{CreationTimestamp: created, Conditions: []Condition{readyCond(True, t0, t0)}}
	h := cfg.Observe(at(0), HealthRecord{}, node)
	node.Conditions = []Condition{readyCond(True, at(10), t0)}
	h = cfg.Observe(at(12), h.Record, node)
	if !h.Record.ProbeTimestamp.Equal(at(12)) || !h.Record.ReadyTransitionTimestamp.Equal(at(0)) {
		t.Fatalf("%+v", h.Record)
	}
}

// The Ready condition disappears: upstream's "removed" branch is dead code,
// so the startup grace applies from the last probe.
func TestMonitorReadyRemoved(t *testing.T) {
	cfg := DefaultMonitorConfig()
	node := NodeObservation{CreationTimestamp: created, Conditions: []Condition{readyCond(True, t0, t0)}}
	h := cfg.Observe(at(0), HealthRecord{}, node)
	node.Conditions = nil
	h = cfg.Observe(at(30), h.Record, node)
	if h.GracePeriod != 60*time.Second || !h.Record.ProbeTimestamp.Equal(at(0)) || h.Record.HasSavedReady || h.HasCurrentReady {
		t.Fatalf("%+v", h)
	}
	if h = cfg.Observe(at(60), h.Record, node); h.TimedOut {
		t.Fatal("timed out at probe + startup grace")
	}
	if h = cfg.Observe(at(61), h.Record, node); !h.TimedOut || !h.Write || h.Conditions[0].Reason != "NodeStatusNeverUpdated" {
		t.Fatalf("%+v", h)
	}
}

func TestMonitorRetryAndKubeletNotReadyOption(t *testing.T) {
	cfg := DefaultMonitorConfig()
	node := NodeObservation{CreationTimestamp: created, Conditions: []Condition{readyCond(True, t0, t0)}, HasLease: true, LeaseRenewTime: t0}
	h := cfg.Observe(at(0), HealthRecord{}, node)
	// The kubelet posts False while the lease stays fresh (kubernetes#125618).
	node.Conditions = []Condition{{Type: Ready, Status: False, Reason: "KubeletNotReady", LastHeartbeatTime: at(10), LastTransitionTime: at(10)}}
	node.LeaseRenewTime = at(10)
	if h2 := cfg.Observe(at(10), h.Record, node); h2.MarkPodsNotReady {
		t.Fatal("upstream default marks pods on a kubelet-posted False")
	}
	opt := cfg
	opt.MarkPodsOnKubeletNotReady = true
	if h2 := opt.Observe(at(10), h.Record, node); !h2.MarkPodsNotReady || h2.Event != nil {
		t.Fatalf("option: %+v", h2)
	}
	// A failed pod marking is retried while Ready is not True, then cleared.
	rec := cfg.Observe(at(10), h.Record, node).Record
	rec.RetryMarkPods = true
	h = cfg.Observe(at(15), rec, node)
	if !h.MarkPodsNotReady || h.Record.RetryMarkPods {
		t.Fatalf("retry: %+v", h)
	}
}

func TestMonitorClampsBackwardsClock(t *testing.T) {
	cfg := DefaultMonitorConfig()
	node := NodeObservation{CreationTimestamp: created, Conditions: []Condition{readyCond(True, t0, t0)}}
	h := cfg.Observe(at(100), HealthRecord{}, node)
	h = cfg.Observe(at(0), h.Record, node) // clock jumped back
	if !h.Record.LastObserved.Equal(at(100)) || h.TimedOut {
		t.Fatalf("%+v", h.Record)
	}
	if h = cfg.Observe(at(151), h.Record, node); !h.TimedOut {
		t.Fatal("no timeout 51s after the clamped probe")
	}
}

func TestMonitorConfigValidate(t *testing.T) {
	if err := DefaultMonitorConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	err := MonitorConfig{GracePeriod: -time.Second}.Validate()
	if err == nil || !containsAll(err.Error(), "GracePeriod -1s", "StartupGracePeriod 0s") {
		t.Fatalf("got %v", err)
	}
	if _, err := NewMonitor(MonitorConfig{}); err == nil {
		t.Fatal("NewMonitor accepted a zero config")
	}
}

func TestMonitorPass(t *testing.T) {
	m, _ := NewMonitor(DefaultMonitorConfig())
	healthy := NodeObservation{Name: "a", CreationTimestamp: created, Conditions: []Condition{readyCond(True, t0, t0)}, HasLease: true, LeaseRenewTime: t0}
	silent := NodeObservation{Name: "b", CreationTimestamp: created, Conditions: []Condition{readyCond(True, t0, t0)}}
	if ups := m.Step(at(0), []NodeObservation{healthy, silent}); len(ups) != 0 || m.Len() != 2 {
		t.Fatalf("first pass: %v", ups)
	}
	healthy.LeaseRenewTime = at(55)
	ups := m.Step(at(55), []NodeObservation{healthy, silent})
	if len(ups) != 1 || ups[0].Name != "b" || !ups[0].Health.Write || !ups[0].Health.MarkPodsNotReady {
		t.Fatalf("timeout pass: %+v", ups)
	}
	m.WriteFailed(ups[0])
	m.MarkPodsFailed("b")
	r, _ := m.Record("b")
	if !r.RetryMarkPods || r.SavedReady.Status != True {
		t.Fatalf("after failures: %+v", r)
	}
	// The write failed, so the next pass writes again.
	if ups := m.Step(at(60), []NodeObservation{silent}); len(ups) != 1 || !ups[0].Health.Write {
		t.Fatalf("retry pass: %+v", ups)
	}
	m.Forget("b")
	if _, ok := m.Record("b"); ok || m.Len() != 1 {
		t.Fatal("Forget kept the record")
	}
	m.MarkPodsFailed("gone") // no record: no effect, no panic
}

// Bad input: an unknown Ready status counts as not True and is rewritten on
// timeout; conditions of unknown types are carried through untouched; a zero
// creation time is just an early instant.
func TestMonitorUnknownStatusAndType(t *testing.T) {
	cfg := DefaultMonitorConfig()
	odd := Condition{Type: "KernelDeadlock", Status: "Maybe", LastHeartbeatTime: t0}
	node := NodeObservation{Conditions: []Condition{{Type: Ready, Status: "Maybe", LastHeartbeatTime: t0, LastTransitionTime: t0}, odd}}
	h := cfg.Observe(at(0), HealthRecord{}, node)
	if h.MarkPodsNotReady || h.TimedOut {
		t.Fatalf("%+v", h)
	}
	h = cfg.Observe(at(51), h.Record, node)
	if !h.Write || h.MarkPodsNotReady || h.Conditions[0].Status != Unknown || h.Conditions[1] != odd {
		t.Fatalf("%+v", h)
	}
	if h.Conditions[2].LastHeartbeatTime != (time.Time{}) {
		t.Fatalf("never-updated heartbeat should be the (zero) creation time: %+v", h.Conditions[2])
	}
}

// Leaving full disruption resets every node's probe: a node silent since
// 0s that would time out at 51s gets a fresh 50s from the reset.
func TestMonitorResetProbes(t *testing.T) {
	m, err := NewMonitor(DefaultMonitorConfig())
	if err != nil {
		t.Fatal(err)
	}
	node := NodeObservation{Name: "n1", CreationTimestamp: created, Conditions: []Condition{readyCond(True, t0, t0)}}
	m.Step(at(0), []NodeObservation{node})
	m.ResetProbes(at(40))
	if r, _ := m.Record("n1"); !r.ProbeTimestamp.Equal(at(40)) || !r.ReadyTransitionTimestamp.Equal(at(40)) {
		t.Fatalf("record after reset: %+v", r)
	}
	if u := m.Step(at(55), []NodeObservation{node}); len(u) != 0 {
		t.Fatalf("timed out at 55s despite the reset at 40s: %+v", u)
	}
	if u := m.Step(at(95), []NodeObservation{node}); len(u) != 1 || !u[0].Health.TimedOut {
		t.Fatalf("not timed out at 95s (reset 40s + grace 50s): %+v", u)
	}
}

// Regression example of the property TestPropertyMonitorNeverUnknownBeforeGrace,
// whose oracle once kept the startup grace after the monitor had written
// Ready=Unknown itself (nodelife issue 38). A node that never posts: the
// monitor writes Unknown at +61s (startup grace 60s); its lease is renewed
// at +61s and a second pass at +61s sees it (the probe is the controller's
// clock, +61s); the node now has a Ready condition, so upstream's
// tryUpdateNodeHealth takes the monitor grace (40s, legacy): Unknown again
// at the first pass after +101s, here +102s, not after +121s.
func TestMonitorGraceAfterOwnUnknown(t *testing.T) {
	cfg := DefaultMonitorConfig()
	cfg.GracePeriod = LegacyNodeMonitorGracePeriod
	node := NodeObservation{Name: "n1", CreationTimestamp: t0}
	h := cfg.Observe(at(61), HealthRecord{}, node)
	if !h.TimedOut || !h.Write {
		t.Fatalf("at 61s: %+v", h)
	}
	rec := h.RecordAfterWrite
	node.Conditions = h.Conditions
	node.HasLease, node.LeaseRenewTime = true, at(61)
	h = cfg.Observe(at(61), rec, node)
	if h.TimedOut || h.GracePeriod != 40*time.Second || !h.Deadline.Equal(at(101)) {
		t.Fatalf("at 61s, after the renewal: %+v", h)
	}
	if h = cfg.Observe(at(102), h.Record, node); !h.TimedOut {
		t.Fatalf("at 102s: not timed out (%+v)", h)
	}
}

// A node that never posted Ready times out after its startup grace: the
// rewrite's Unknown is in Record's saved status (upstream's saved status
// aliases the rewritten node) but not in RecordWithoutTimeout, the record
// of a pass that returns before the rewrite (the lease circuit breaker);
// a node that did not time out has the two equal.
func TestRecordWithoutTimeout(t *testing.T) {
	cfg := DefaultMonitorConfig()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := NodeObservation{Name: "n", CreationTimestamp: created}
	h := cfg.Observe(created.Add(61*time.Second), HealthRecord{}, n)
	if !h.TimedOut || !h.Record.HasSavedReady || h.Record.SavedReady.Status != Unknown {
		t.Fatalf("timed out %v, record %+v", h.TimedOut, h.Record)
	}
	if h.RecordWithoutTimeout.HasSavedReady || !h.RecordWithoutTimeout.Known || !h.RecordWithoutTimeout.ProbeTimestamp.Equal(created) {
		t.Errorf("record without the timeout %+v", h.RecordWithoutTimeout)
	}
	h = cfg.Observe(created.Add(30*time.Second), HealthRecord{}, n)
	if h.TimedOut || h.Record != h.RecordWithoutTimeout {
		t.Errorf("no timeout: %+v and %+v", h.Record, h.RecordWithoutTimeout)
	}
}

// Karmada's clusters post conditions without heartbeat times: under
// ChangeIsHeartbeat a change of the Ready condition is a heartbeat. Grace
// 40 s. First sight at 0 s (probe 0). At 30 s the message changes: a
// heartbeat (probe 30 s), so at 41 s the node is not timed out (deadline
// 70 s); without the mode it is (deadline 40 s). At 71 s it times out and
// Ready is rewritten Unknown; the rewrite read back at 72 s is no
// heartbeat: still timed out, nothing to write again.
func TestMonitorChangeIsHeartbeat(t *testing.T) {
	posted := Condition{Type: Ready, Status: True, Reason: "ClusterReady", Message: "cluster is healthy", LastTransitionTime: at(-100)}
	changed := posted
	changed.Message = "cluster is healthy and ready"
	for _, mode := range []bool{false, true} {
		cfg := MonitorConfig{GracePeriod: 40 * time.Second, StartupGracePeriod: 60 * time.Second, ChangeIsHeartbeat: mode}
		node := NodeObservation{Name: "member1", CreationTimestamp: created, Conditions: []Condition{posted}}
		h := cfg.Observe(at(0), HealthRecord{}, node)
		node.Conditions = []Condition{changed}
		h = cfg.Observe(at(30), h.Record, node)
		h = cfg.Observe(at(41), h.Record, node)
		if h.TimedOut != !mode {
			t.Fatalf("mode %v: timed out at 41s: %v", mode, h.TimedOut)
		}
		if !mode {
			continue
		}
		h = cfg.Observe(at(71), h.Record, node)
		if !h.TimedOut || !h.Write {
			t.Fatalf("at 71s: %+v", h)
		}
		rec := h.Record
		node.Conditions = h.Conditions[:1] // the rewrite, read back
		h = cfg.Observe(at(72), rec, node)
		if !h.TimedOut || h.Write {
			t.Fatalf("the rewrite read back at 72s was taken as a heartbeat: %+v", h)
		}
	}
}
