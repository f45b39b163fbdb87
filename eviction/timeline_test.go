package eviction

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// simNode is one node of the scripted cluster.
type simNode struct {
	name, zone string
	node       conditions.NodeObservation
	rec        conditions.HealthRecord
	taints     []taints.Taint
	pods       []core.Pod
}

// A 3-zone, 150-node cluster; zone b loses connectivity at 60s (its last
// lease renewal is at 50s) and comes back at 455s. Everything runs on an
// explicit clock in 100ms ticks: kubelets renew leases every 10s, the
// monitor runs every 5s, the tainting pass every tick, and the NoExecute
// controller reacts to taint changes and due evictions in the same tick.
//
// Expected, from the reference (§1.2, §1.5-§1.7, §1.9) with the defaults
// (grace 50s, rate 0.1/s, tolerationSeconds 300 from admission):
//   - zone b's nodes time out at the first pass strictly after 50s + 50s,
//     105s: Ready Unknown and the unreachable NoSchedule taint;
//   - zone b is FullDisruption at 105s while a and c are Normal, so it is
//     tainted at the normal rate, 0.1/s;
//   - the NoExecute decision uses the Ready observed at the start of a pass,
//     so nodes are queued at 110s; b-00 is tainted at 110s and b-k at
//     110s + 10s*k, until the pass at 455s sees Ready again: b-00..b-34;
//   - each pod is scheduled for deletion 300s after its node's taint: the
//     pods of b-00..b-04 go at 410s..450s, the 30 others are cancelled at
//     455s when the taints come off;
//   - zones a and c see nothing.
func TestTimelineZoneOutage(t *testing.T) {
	const perZone = 50
	outage, recovery := at(60), at(455)
	monitorCfg := conditions.DefaultMonitorConfig()
	cfg := DefaultConfig()
	tainter, err := NewNoExecuteTainter(cfg, FixedQueueOptions())
	if err != nil {
		t.Fatal(err)
	}
	var nes NoExecuteConfig

	var nodes []*simNode
	byName := map[string]*simNode{}
	for _, z := range []string{"a", "b", "c"} {
		for i := 0; i < perZone; i++ {
			name := fmt.Sprintf("%s-%02d", z, i)
			n := &simNode{name: name, zone: ZoneKey(map[string]string{LabelTopologyRegion: "r", LabelTopologyZone: z})}
			n.node = conditions.NodeObservation{Name: name, CreationTimestamp: at(-3600), HasLease: true, LeaseRenewTime: at(0),
				Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, Reason: "KubeletReady", LastHeartbeatTime: at(0), LastTransitionTime: at(-3600)}}}
			n.pods = []core.Pod{{Namespace: "default", Name: "pod-" + name, UID: "uid-" + name, Tolerations: taints.DefaultNoExecuteTolerations()}}
			nodes = append(nodes, n)
			byName[name] = n
		}
	}
	alive := func(n *simNode, now time.Time) bool {
		return n.zone != ZoneKey(map[string]string{LabelTopologyRegion: "r", LabelTopologyZone: "b"}) || now.Before(outage) || !now.Before(recovery)
	}

	type event struct {
		At   time.Duration
		What string
	}
	var zoneEvents, noSchedule, tainted, evicted []event
	cancelled := 0
	scheduled := map[string]Scheduled{}
	var prev map[string]ZoneStatus

	// planNoExecute runs the NoExecute controller for one node's pods.
	planNoExecute := func(n *simNode, now time.Time) {
		for _, d := range nes.PlanNode(now, n.taints, n.pods, scheduled) {
			key := d.Pod.Key()
			switch d.Action {
			case NoExecuteSchedule:
				scheduled[key] = d.Scheduled
			case NoExecuteCancel:
				delete(scheduled, key)
				cancelled++
			case NoExecuteEvictNow:
				delete(scheduled, key)
				evicted = append(evicted, event{now.Sub(t0), key})
				n.pods = nil
			}
		}
	}
	applyTaints := func(n *simNode, add, remove []taints.Taint) {
		n.taints = taints.Apply(n.taints, add, remove)
	}

	for now := at(0); !now.After(at(600)); now = now.Add(NodeTaintPassPeriod) {
		dirty := map[*simNode]bool{}
		// Kubelets.
		for _, n := range nodes {
			if alive(n, now) && now.Sub(t0)%(10*time.Second) == 0 {
				n.node.LeaseRenewTime = now
			}
		}
		if now.Equal(recovery) { // the kubelets post status as they come back
			for _, n := range nodes {
				if r, _ := conditions.Find(n.node.Conditions, conditions.Ready); r.Status != conditions.True {
					n.node.Conditions, _ = conditions.Set(now, n.node.Conditions, conditions.Condition{Type: conditions.Ready, Status: conditions.True, Reason: "KubeletReady"})
				}
			}
		}
		// Monitor pass every 5s.
		if now.Sub(t0)%(5*time.Second) == 0 {
			var zn []ZoneNode
			var tn []TaintNode
			for _, n := range nodes {
				h := monitorCfg.Observe(now, n.rec, n.node)
				n.rec = h.Record
				if h.Write {
					n.node.Conditions, n.rec = h.Conditions, h.RecordAfterWrite
				}
				add, remove := taints.ReconcileConditionTaints(now, n.taints, n.node.Conditions, false)
				for _, a := range add {
					noSchedule = append(noSchedule, event{now.Sub(t0), "+" + n.name + " " + a.Key})
				}
				for _, r := range remove {
					noSchedule = append(noSchedule, event{now.Sub(t0), "-" + n.name + " " + r.Key})
				}
				applyTaints(n, add, remove)
				a := tainter.Observe(now, TaintNode{Name: n.name, Zone: n.zone, Taints: n.taints}, h.ObservedReady.Status)
				if len(a.Add)+len(a.Remove) > 0 {
					applyTaints(n, a.Add, a.Remove)
					dirty[n] = true
				}
				status := conditions.Status("")
				if h.HasCurrentReady {
					status = h.CurrentReady.Status
				}
				zn = append(zn, ZoneNode{Name: n.name, Zone: n.zone, Ready: status})
				tn = append(tn, TaintNode{Name: n.name, Zone: n.zone, Taints: n.taints})
			}
			plan, err := cfg.PlanDisruption(prev, zn)
			if err != nil {
				t.Fatal(err)
			}
			prev = plan.Next
			for _, z := range plan.Zones {
				if z.SetRate {
					zoneEvents = append(zoneEvents, event{now.Sub(t0), fmt.Sprintf("%s %s->%s rate %g", ZoneName(z.Zone), z.Previous, z.State, z.Rate)})
				}
			}
			if plan.Transition != TransitionNone {
				t.Fatalf("cluster-wide transition %s at %v", plan.Transition, now.Sub(t0))
			}
			for _, a := range tainter.ApplyPlan(now, plan, tn) {
				applyTaints(byName[a.Node], a.Add, a.Remove)
				dirty[byName[a.Node]] = true
			}
		}
		// Tainting pass.
		ups := tainter.Step(now, func(name string) (conditions.Status, bool) {
			r, ok := conditions.Find(byName[name].node.Conditions, conditions.Ready)
			if !ok {
				return "", true
			}
			return r.Status, true
		})
		for _, u := range ups {
			n := byName[u.Node]
			applyTaints(n, []taints.Taint{u.Add}, []taints.Taint{u.Remove})
			tainted = append(tainted, event{now.Sub(t0), u.Node + " " + u.Add.Key})
			dirty[n] = true
		}
		// NoExecute controller: nodes whose taints changed, then due timers.
		for _, n := range nodes {
			if dirty[n] {
				planNoExecute(n, now)
			}
		}
		for _, n := range nodes {
			for _, p := range n.pods {
				if s, ok := scheduled[p.Key()]; ok && !s.At.After(now) {
					planNoExecute(n, now)
					break
				}
			}
		}
	}

	sec := func(s int) time.Duration { return time.Duration(s) * time.Second }
	wantZones := []event{
		{0, "r/a Initial->Normal rate 0.1"}, {0, "r/b Initial->Normal rate 0.1"}, {0, "r/c Initial->Normal rate 0.1"},
		{sec(105), "r/b Normal->FullDisruption rate 0.1"},
		{sec(455), "r/b FullDisruption->Normal rate 0.1"},
	}
	if d := cmp.Diff(wantZones, zoneEvents); d != "" {
		t.Errorf("zone states (-want +got):\n%s", d)
	}
	var wantNoSchedule, wantTainted, wantEvicted []event
	for k := 0; k < perZone; k++ {
		wantNoSchedule = append(wantNoSchedule, event{sec(105), fmt.Sprintf("+b-%02d %s", k, taints.TaintNodeUnreachable)})
	}
	for k := 0; k < perZone; k++ {
		wantNoSchedule = append(wantNoSchedule, event{sec(455), fmt.Sprintf("-b-%02d %s", k, taints.TaintNodeUnreachable)})
	}
	for k := 0; 110+10*k < 455; k++ {
		wantTainted = append(wantTainted, event{sec(110 + 10*k), fmt.Sprintf("b-%02d %s", k, taints.TaintNodeUnreachable)})
	}
	for k := 0; 410+10*k < 455; k++ {
		wantEvicted = append(wantEvicted, event{sec(410 + 10*k), fmt.Sprintf("default/pod-b-%02d", k)})
	}
	if d := cmp.Diff(wantNoSchedule, noSchedule); d != "" {
		t.Errorf("NoSchedule taints (-want +got):\n%s", d)
	}
	if len(wantTainted) != 35 || len(wantEvicted) != 5 {
		t.Fatalf("hand count: %d tainted, %d evicted", len(wantTainted), len(wantEvicted))
	}
	if d := cmp.Diff(wantTainted, tainted); d != "" {
		t.Errorf("NoExecute taints (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantEvicted, evicted); d != "" {
		t.Errorf("evictions (-want +got):\n%s", d)
	}
	if cancelled != 30 {
		t.Errorf("cancelled %d scheduled evictions at recovery, want 30 (b-05..b-34)", cancelled)
	}
	for _, n := range nodes {
		if len(n.taints) != 0 {
			t.Errorf("%s still tainted at the end: %v", n.name, n.taints)
		}
	}
}
