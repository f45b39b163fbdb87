package conditions

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

var statuses = []Status{True, False, Unknown}

// Setting a condition twice with the same status never changes its
// LastTransitionTime, whatever the reason, message or clock.
func TestPropertySetSameStatusKeepsTransition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ty := rapid.SampledFrom([]Type{Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable}).Draw(t, "type")
		st := rapid.SampledFrom(statuses).Draw(t, "status")
		n1 := t0.Add(time.Duration(rapid.Int64Range(-1e12, 1e12).Draw(t, "n1")))
		n2 := t0.Add(time.Duration(rapid.Int64Range(-1e12, 1e12).Draw(t, "n2")))
		var start []Condition
		if rapid.Bool().Draw(t, "existing") {
			start = []Condition{{Type: ty, Status: rapid.SampledFrom(statuses).Draw(t, "old"), LastTransitionTime: t0}}
		}
		once, _ := Set(start, Condition{Type: ty, Status: st, Reason: rapid.String().Draw(t, "r1")}, n1)
		twice, transitioned := Set(once, Condition{Type: ty, Status: st, Reason: rapid.String().Draw(t, "r2")}, n2)
		a, _ := Find(once, ty)
		b, _ := Find(twice, ty)
		if transitioned || !a.LastTransitionTime.Equal(b.LastTransitionTime) || !b.LastHeartbeatTime.Equal(n2) {
			t.Fatalf("once %+v, twice %+v, transitioned %v", a, b, transitioned)
		}
		// The pressure setter obeys the same rule.
		if ty != Ready && ty != NetworkUnavailable {
			p := rapid.Bool().Draw(t, "pressure")
			x, _, _ := SetPressure(start, ty, p, n1)
			y, ev, _ := SetPressure(x, ty, p, n2)
			cx, _ := Find(x, ty)
			cy, _ := Find(y, ty)
			if ev != nil || !cx.LastTransitionTime.Equal(cy.LastTransitionTime) {
				t.Fatalf("SetPressure twice: %+v then %+v, event %v", cx, cy, ev)
			}
		}
	})
}

// The monitor never rewrites a node to Unknown before it has been silent
// (no new Ready heartbeat, no newer lease) for longer than the grace period
// that applies. The oracle tracks "last heard" independently.
func TestPropertyMonitorNeverUnknownBeforeGrace(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultMonitorConfig()
		if rapid.Bool().Draw(t, "legacy") {
			cfg.GracePeriod = LegacyNodeMonitorGracePeriod
		}
		node := Node{CreationTimestamp: t0}
		var rec HealthRecord
		now := t0
		lastHeard := time.Time{} // oracle
		hasReady := false
		steps := rapid.IntRange(1, 40).Draw(t, "steps")
		for i := 0; i < steps; i++ {
			now = now.Add(time.Duration(rapid.IntRange(0, 40).Draw(t, "dt")) * time.Second)
			heard := false
			if rapid.Bool().Draw(t, "post") { // kubelet posts a fresh Ready
				st := rapid.SampledFrom(statuses).Draw(t, "st")
				node.Conditions = []Condition{{Type: Ready, Status: st, LastHeartbeatTime: now, LastTransitionTime: now}}
				hasReady, heard = true, true
			}
			if rapid.Bool().Draw(t, "renew") { // lease renewed
				node.HasLease, node.LeaseRenewTime = true, now
				heard = true
			}
			h := cfg.Observe(rec, node, now)
			if heard || lastHeard.IsZero() {
				lastHeard = now
				if !hasReady && !heard {
					lastHeard = t0 // first sight of a node that never posted: its creation
				}
			}
			grace := cfg.GracePeriod
			if !hasReady {
				grace = cfg.StartupGracePeriod
			}
			if h.TimedOut && !now.After(lastHeard.Add(grace)) {
				t.Fatalf("step %d: Unknown at %v, last heard %v, grace %v", i, now.Sub(t0), lastHeard.Sub(t0), grace)
			}
			if h.TimedOut != now.After(h.Deadline) {
				t.Fatalf("step %d: TimedOut %v but deadline %v, now %v", i, h.TimedOut, h.Deadline.Sub(t0), now.Sub(t0))
			}
			if h.Write {
				rec = h.RecordAfterWrite
				node.Conditions = h.Conditions
				// Once the monitor itself has written a Ready condition
				// (Unknown), the node has one: upstream's tryUpdateNodeHealth
				// takes the monitor grace from then on, not the startup grace.
				for _, c := range h.Conditions {
					hasReady = hasReady || c.Type == Ready
				}
			} else {
				rec = h.Record
			}
		}
	})
}
