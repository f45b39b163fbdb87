package eviction

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/taints"
)

func newTainter(t *testing.T) *NoExecuteTainter {
	t.Helper()
	tn, err := NewNoExecuteTainter(DefaultConfig(), FixedQueueOptions())
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

func stamped(tt taints.Taint, when time.Time) taints.Taint { tt.TimeAdded = when; return tt }

// processTaintBaseEviction, case by case (reference §1.6).
func TestTainterObserve(t *testing.T) {
	tn := newTainter(t)
	n := TaintNode{Name: "n1", UID: "u1", Zone: "z"}

	// False, untainted: queued. Again while still untainted: upstream
	// drops and re-adds it, so its ProcessAt moves to the new pass.
	if a := tn.Observe(at(0), n, conditions.False); a.Kind != TaintActionQueued || !tn.Queue("z").Queued("n1") {
		t.Fatalf("False: %+v", a)
	}
	if a := tn.Observe(at(5), n, conditions.False); a.Kind != TaintActionQueued {
		t.Fatalf("False again: %+v", a)
	}
	if h, _ := tn.Queue("z").Head(); !h.ProcessAt.Equal(at(5)) || !h.AddedAt.Equal(at(5)) {
		t.Fatalf("re-queued item %+v, want added and due at 5s", h)
	}

	// False with the unreachable taint: swap at once, not rate-limited.
	n.Taints = []taints.Taint{{Key: "other", Effect: taints.TaintEffectNoSchedule}, stamped(UnreachableTaint(), at(0))}
	a := tn.Observe(at(10), n, conditions.False)
	want := TaintAction{Node: "n1", Zone: "z", Kind: TaintActionSwap, Add: []taints.Taint{stamped(NotReadyTaint(), at(10))}, Remove: []taints.Taint{UnreachableTaint()}}
	if d := cmp.Diff(want, a, cmpIgnoreText); d != "" {
		t.Fatalf("False with unreachable (-want +got):\n%s", d)
	}

	// Unknown with the not-ready taint: the mirror swap.
	n.Taints = []taints.Taint{NotReadyTaint()}
	if a := tn.Observe(at(15), n, conditions.Unknown); a.Kind != TaintActionSwap || a.Add[0].Key != taints.TaintNodeUnreachable || a.Remove[0] != NotReadyTaint() {
		t.Fatalf("Unknown with not-ready: %+v", a)
	}

	// True: both taints come off and the node leaves the queue.
	n.Taints = []taints.Taint{NotReadyTaint(), {Key: "keep", Effect: taints.TaintEffectNoExecute}}
	a = tn.Observe(at(20), n, conditions.True)
	if a.Kind != TaintActionUntaint || !a.Dequeued || !cmp.Equal(a.Remove, []taints.Taint{NotReadyTaint()}) || tn.Queue("z").Contains("n1") {
		t.Fatalf("True: %+v", a)
	}
	n.Taints = nil
	if a := tn.Observe(at(25), n, conditions.True); a.Kind != TaintActionNone {
		t.Fatalf("True on a clean node: %+v", a)
	}
	if a := tn.Observe(at(25), n, ""); a.Kind != TaintActionNone || a.Reason != "UnknownReadyStatus" {
		t.Fatalf("empty status: %+v", a)
	}
}

// A processed node stays deduplicated while it keeps its taint
// (TestApplyNoExecuteTaintsToNodesEnqueueTwice); if the taint is gone, the
// node is first dropped from the set so it can be queued again.
func TestTainterDedupe(t *testing.T) {
	tn := newTainter(t)
	n := TaintNode{Name: "n1", Zone: "z"}
	tn.Observe(at(0), n, conditions.Unknown)
	ups := tn.Step(at(0), func(string) (conditions.Status, bool) { return conditions.Unknown, true })
	if len(ups) != 1 || ups[0].Add != stamped(UnreachableTaint(), at(0)) || ups[0].Remove != NotReadyTaint() || ups[0].Reason != "NodeUnreachable" {
		t.Fatalf("pass: %+v", ups)
	}
	n.Taints = []taints.Taint{ups[0].Add}
	if a := tn.Observe(at(30), n, conditions.Unknown); a.Reason != "AlreadyQueued" {
		t.Fatalf("tainted node queued again: %+v", a)
	}
	n.Taints = nil // someone removed the taint
	if a := tn.Observe(at(35), n, conditions.Unknown); a.Kind != TaintActionQueued {
		t.Fatalf("untainted node not queued again: %+v", a)
	}
}

// doNoExecuteTaintingPass: gone nodes are dropped, nodes without Ready retry
// after 50ms, Ready nodes are dropped, one node per 10s per zone.
func TestTainterPass(t *testing.T) {
	tn := newTainter(t)
	status := map[string]conditions.Status{"a1": conditions.False, "a2": "", "a3": conditions.True, "a4": conditions.Unknown, "b1": conditions.Unknown}
	lookup := func(name string) (conditions.Status, bool) { s, ok := status[name]; return s, ok }
	for _, n := range []string{"gone", "a1", "a2", "a3", "a4"} {
		tn.Observe(at(0), TaintNode{Name: n, Zone: "a"}, conditions.False)
	}
	tn.Observe(at(0), TaintNode{Name: "b1", Zone: "b"}, conditions.Unknown)

	type ev struct {
		Node, Key string
		At        time.Duration
	}
	var got []ev
	for now := t0; !now.After(at(40)); now = now.Add(NodeTaintPassPeriod) {
		for _, u := range tn.Step(now, lookup) {
			got = append(got, ev{u.Node, u.Add.Key, now.Sub(t0)})
			if !u.Add.TimeAdded.Equal(now) {
				t.Fatalf("TimeAdded %v at %v", u.Add.TimeAdded, now)
			}
		}
	}
	// Zone a: "gone" takes the 0s token and is dropped; a1 is tainted at
	// 10s; a2 has no Ready condition at 20s and goes back to 20.05s+1ns,
	// behind a3 and a4 (due since 0s); a3 is Ready at 30s and dropped; a4
	// is tainted at 40s from its current status, Unknown. Zone b has its
	// own bucket.
	want := []ev{
		{"b1", taints.TaintNodeUnreachable, 0},
		{"a1", taints.TaintNodeNotReady, 10 * time.Second},
		{"a4", taints.TaintNodeUnreachable, 40 * time.Second},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if h, _ := tn.Queue("a").Head(); h.Name != "a2" {
		t.Fatalf("head of zone a = %+v, want a2 retrying", h)
	}
	status["a2"] = conditions.False // a2 posts Ready False: tainted at the next token
	got = nil
	for now := at(40.1); !now.After(at(80)); now = now.Add(NodeTaintPassPeriod) {
		for _, u := range tn.Step(now, lookup) {
			got = append(got, ev{u.Node, u.Add.Key, now.Sub(t0)})
		}
	}
	if d := cmp.Diff([]ev{{"a2", taints.TaintNodeNotReady, 50 * time.Second}}, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if _, ok := tn.Next(at(80)); ok {
		t.Fatal("NextPass with empty queues")
	}
	if d := cmp.Diff([]string{"a", "b"}, tn.Zones()); d != "" {
		t.Fatal(d)
	}
}

// A failed taint write is retried 1ns later, at the zone's next token.
func TestTainterTaintFailed(t *testing.T) {
	tn := newTainter(t)
	tn.Observe(at(0), TaintNode{Name: "n1", UID: "u", Zone: "z"}, conditions.False)
	lookup := func(string) (conditions.Status, bool) { return conditions.False, true }
	ups := tn.Step(at(0), lookup)
	tn.TaintFailed(at(0), ups[0])
	// float32(0.1) grants a token every 9,999,999,851ns (see
	// TestQueueSetRateDrain).
	if next, ok := tn.Next(at(0)); !ok || !next.Equal(at(10).Add(-149*time.Nanosecond)) {
		t.Fatalf("NextPass = %v %v, want 10s less 149ns (next token)", next, ok)
	}
	if ups := tn.Step(at(10), lookup); len(ups) != 1 || ups[0].UID != "u" {
		t.Fatalf("retry: %+v", ups)
	}
}

// Entering full disruption stops every zone and untaints every node.
func TestTainterApplyPlan(t *testing.T) {
	tn := newTainter(t)
	nodes := []TaintNode{
		{Name: "a1", Zone: "a", Taints: []taints.Taint{stamped(UnreachableTaint(), at(0))}},
		{Name: "a2", Zone: "a"},
		{Name: "b1", Zone: "b"},
	}
	tn.Observe(at(0), nodes[1], conditions.Unknown)
	plan := mustPlan(t, DefaultConfig(), map[string]ZoneStatus{"a": {StateNormal, 0.1}, "b": {StateFullDisruption, 0.1}},
		[]ZoneNode{{Name: "a1", Zone: "a", Ready: conditions.Unknown}, {Name: "a2", Zone: "a", Ready: conditions.Unknown}, {Name: "b1", Zone: "b", Ready: conditions.Unknown}})
	acts := tn.ApplyPlan(at(5), plan, nodes)
	if len(acts) != 2 || acts[0].Node != "a1" || acts[0].Remove[0] != UnreachableTaint() || acts[1].Node != "a2" || !acts[1].Dequeued {
		t.Fatalf("actions: %+v", acts)
	}
	for _, z := range []string{"a", "b"} {
		if !tn.Queue(z).Stopped() {
			t.Fatalf("zone %s not stopped", z)
		}
	}
}
