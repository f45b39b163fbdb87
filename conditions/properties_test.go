package conditions_test

import (
	"testing"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/nodelifetest"
	"pgregory.net/rapid"
)

// t0 is the start of every drawn history.
var t0 = nodelifetest.Epoch()

var statuses = nodelifetest.Statuses()

// Setting a condition twice with the same status never changes its
// LastTransitionTime, whatever the reason, message or clock.
func TestPropertySetSameStatusKeepsTransition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		old := nodelifetest.Conditions(nodelifetest.Options{Valid: true}).Draw(t, "old")
		ty := old.Type
		st := rapid.SampledFrom(statuses).Draw(t, "status")
		n1 := t0.Add(time.Duration(rapid.Int64Range(-1e12, 1e12).Draw(t, "n1")))
		n2 := t0.Add(time.Duration(rapid.Int64Range(-1e12, 1e12).Draw(t, "n2")))
		var start []conditions.Condition
		if rapid.Bool().Draw(t, "existing") {
			start = []conditions.Condition{old}
		}
		once, _ := conditions.Set(n1, start, conditions.Condition{Type: ty, Status: st, Reason: rapid.String().Draw(t, "r1")})
		twice, transitioned := conditions.Set(n2, once, conditions.Condition{Type: ty, Status: st, Reason: rapid.String().Draw(t, "r2")})
		a, _ := conditions.Find(once, ty)
		b, _ := conditions.Find(twice, ty)
		if transitioned || !a.LastTransitionTime.Equal(b.LastTransitionTime) || !b.LastHeartbeatTime.Equal(n2) {
			t.Fatalf("once %+v, twice %+v, transitioned %v", a, b, transitioned)
		}
		// The pressure setter obeys the same rule.
		if ty != conditions.Ready && ty != conditions.NetworkUnavailable {
			p := rapid.Bool().Draw(t, "pressure")
			x, _, _ := conditions.SetPressure(n1, start, ty, p)
			y, ev, _ := conditions.SetPressure(n2, x, ty, p)
			cx, _ := conditions.Find(x, ty)
			cy, _ := conditions.Find(y, ty)
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
		cfg := conditions.DefaultMonitorConfig()
		if rapid.Bool().Draw(t, "legacy") {
			cfg.GracePeriod = conditions.LegacyNodeMonitorGracePeriod
		}
		node := conditions.NodeObservation{CreationTimestamp: t0}
		var rec conditions.HealthRecord
		now := t0
		lastHeard := time.Time{} // oracle
		hasReady := false
		steps := rapid.IntRange(1, 40).Draw(t, "steps")
		for i := 0; i < steps; i++ {
			now = now.Add(time.Duration(rapid.IntRange(0, 40).Draw(t, "dt")) * time.Second)
			heard := false
			if rapid.Bool().Draw(t, "post") { // kubelet posts a fresh Ready
				c := nodelifetest.Conditions(nodelifetest.Options{Valid: true, Now: now}).Draw(t, "posted")
				c.Type, c.LastHeartbeatTime, c.LastTransitionTime = conditions.Ready, now, now
				node.Conditions = []conditions.Condition{c}
				hasReady, heard = true, true
			}
			if rapid.Bool().Draw(t, "renew") { // lease renewed
				node.HasLease, node.LeaseRenewTime = true, now
				heard = true
			}
			h := cfg.Observe(now, rec, node)
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
					hasReady = hasReady || c.Type == conditions.Ready
				}
			} else {
				rec = h.Record
			}
		}
	})
}
