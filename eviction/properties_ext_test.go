package eviction_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/taints"
)

// t0 is when every drawn history starts.
var t0 = nodelifetest.Epoch()

// neKeys and neValues are the small pools the NoExecute property draws
// taints and tolerations from, so that they match often.
var (
	neKeys   = []string{taints.TaintNodeUnreachable, taints.TaintNodeNotReady, "k"}
	neValues = []string{"", "v"}
)

// naiveZoneState is ComputeZoneState written from the reference's words.
func naiveZoneState(ready []conditions.Status, th float32) eviction.ZoneState {
	total, bad := len(ready), 0
	for _, s := range ready {
		if s != conditions.True {
			bad++
		}
	}
	if bad > 0 && bad == total {
		return eviction.StateFullDisruption
	}
	if bad > 2 && float32(bad)/float32(total) >= th {
		return eviction.StatePartialDisruption
	}
	return eviction.StateNormal
}

// Zone state does not depend on node order and agrees with the naive
// version; the disruption plan does not depend on node order either.
func TestPropertyZoneStateOrderInvariant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := nodelifetest.ZoneNodes(nodelifetest.Options{MaxNodes: 12}).Draw(t, "nodes")
		var ready []conditions.Status
		for _, n := range nodes {
			ready = append(ready, n.Ready)
		}
		th := rapid.Float32Range(0, 1).Draw(t, "threshold")
		perm := rapid.Permutation(ready).Draw(t, "perm")
		n1, s1 := eviction.ComputeZoneState(ready, th)
		n2, s2 := eviction.ComputeZoneState(perm, th)
		if n1 != n2 || s1 != s2 {
			t.Fatalf("order changed the state: %d %s vs %d %s", n1, s1, n2, s2)
		}
		if want := naiveZoneState(ready, th); s1 != want {
			t.Fatalf("state %s, naive %s", s1, want)
		}

		prev := map[string]eviction.ZoneStatus{}
		for _, z := range []string{"a", "b", "d"} {
			if rapid.Bool().Draw(t, "has "+z) {
				prev[z] = eviction.ZoneStatus{State: rapid.SampledFrom([]eviction.ZoneState{eviction.StateNormal, eviction.StatePartialDisruption, eviction.StateFullDisruption}).Draw(t, "state"), Rate: 0.1}
			}
		}
		c := eviction.DefaultConfig()
		p1, err := c.PlanDisruption(prev, nodes)
		if err != nil {
			t.Fatal(err)
		}
		p2, _ := c.PlanDisruption(prev, rapid.Permutation(nodes).Draw(t, "nodes perm"))
		if !slices.Equal(p1.Zones, p2.Zones) || p1.Transition != p2.Transition || !slices.Equal(p1.Removed, p2.Removed) {
			t.Fatalf("node order changed the plan:\n%+v\n%+v", p1, p2)
		}

		// PlanZones on counts kept one node at a time (a zone listed once
		// per node, in any order, excluded nodes left out) plans the same.
		var counts []eviction.ZoneCount
		for _, n := range rapid.Permutation(nodes).Draw(t, "count order") {
			if n.Excluded {
				continue
			}
			zc := eviction.ZoneCount{Zone: n.Zone, NotReady: 1}
			if n.Ready == conditions.True {
				zc = eviction.ZoneCount{Zone: n.Zone, Ready: 1}
			}
			counts = append(counts, zc)
		}
		p3, err := c.PlanZones(prev, counts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p1, p3) {
			t.Fatalf("PlanZones differs from PlanDisruption:\n%+v\n%+v", p1, p3)
		}
	})
}

// An untolerated NoExecute taint always means immediate eviction; removing
// every NoExecute taint always cancels (or does nothing without a
// schedule); and the planner agrees with a naive one when nothing is
// scheduled.
func TestPropertyNoExecute(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := nodelifetest.NoExecuteConfigs().Draw(t, "cfg")
		nodeTaints := rapid.SliceOfN(nodelifetest.Taints(nodelifetest.Options{Keys: neKeys, Values: neValues, Now: t0.Add(100 * time.Second)}), 0, 4).Draw(t, "taints")
		tols := rapid.SliceOfN(nodelifetest.Tolerations(nodelifetest.Options{Keys: neKeys, Values: neValues}), 0, 4).Draw(t, "tols")
		existing := nodelifetest.Schedules(nodelifetest.Options{Now: t0}).Draw(t, "existing")
		now := t0.Add(time.Duration(rapid.IntRange(0, 400).Draw(t, "now")) * time.Second)
		pod := core.Pod{Namespace: "ns", Name: "p", Tolerations: tols}
		d := cfg.Plan(now, nodeTaints, pod, existing)

		isNE := func(tt taints.Taint) bool { return tt.Effect == taints.TaintEffectNoExecute }
		if _, untolerated := taints.FindMatchingUntoleratedTaint(nodeTaints, tols, isNE); untolerated {
			if d.Action != eviction.NoExecuteEvictNow || d.Reason != eviction.ReasonUntoleratedTaint {
				t.Fatalf("untolerated NoExecute taint: %+v", d)
			}
		}
		stripped := taints.Filter(nodeTaints, func(tt taints.Taint) bool { return !isNE(tt) })
		c := cfg.Plan(now, stripped, pod, existing)
		if want := map[bool]eviction.NoExecuteAction{true: eviction.NoExecuteCancel, false: eviction.NoExecuteNone}[existing != nil]; c.Action != want {
			t.Fatalf("all NoExecute taints removed: %+v, want %s", c, want)
		}
		if existing == nil && cfg.Anchor == eviction.AnchorObserved {
			if want := naiveNoExecute(nodeTaints, tols, now); d.Action != want.action || !d.At.Equal(want.at) {
				t.Fatalf("got %s at %v, naive %s at %v (%s)", d.Action, d.At, want.action, want.at, d.Message())
			}
		}
		if d.Action == eviction.NoExecuteSchedule && !d.At.After(maxTime(now, existingCreated(existing))) {
			t.Fatalf("scheduled in the past: %+v", d)
		}
	})
}

func existingCreated(s *eviction.Scheduled) time.Time {
	if s == nil {
		return time.Time{}
	}
	return s.CreatedAt
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// naiveOutcome is what naiveNoExecute decides.
type naiveOutcome struct {
	action eviction.NoExecuteAction
	at     time.Time
	reason string
}

// naiveNoExecute is the reference §1.9 rule set with nothing scheduled.
func naiveNoExecute(nodeTaints []taints.Taint, tols []taints.Toleration, now time.Time) naiveOutcome {
	var used []taints.Toleration
	for _, tt := range nodeTaints {
		if tt.Effect != taints.TaintEffectNoExecute {
			continue
		}
		found := false
		for _, tol := range tols {
			if tol.ToleratesTaint(&tt) {
				used, found = append(used, tol), true
				break
			}
		}
		if !found {
			return naiveOutcome{eviction.NoExecuteEvictNow, now, ""}
		}
	}
	if len(used) == 0 && !slices.ContainsFunc(nodeTaints, func(tt taints.Taint) bool { return tt.Effect == taints.TaintEffectNoExecute }) {
		return naiveOutcome{eviction.NoExecuteNone, time.Time{}, ""}
	}
	least := int64(-1)
	for _, tol := range used {
		if tol.TolerationSeconds == nil {
			continue
		}
		if s := max(*tol.TolerationSeconds, 0); least < 0 || s < least {
			least = s
		}
	}
	switch {
	case least < 0:
		return naiveOutcome{eviction.NoExecuteNone, time.Time{}, ""}
	case least == 0:
		return naiveOutcome{eviction.NoExecuteEvictNow, now, ""}
	}
	return naiveOutcome{eviction.NoExecuteSchedule, now.Add(time.Duration(least) * time.Second), ""}
}
