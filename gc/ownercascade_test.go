package gc

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// deploymentChain is Deployment web -> ReplicaSet web-1 -> Pods web-1-a
// and web-1-b, each reference a blocking controller reference as the
// workload controllers write them.
func deploymentChain() []Object {
	return []Object{
		mk("apps/v1", "Deployment", "default", "web", "d1"),
		mk("apps/v1", "ReplicaSet", "default", "web-1", "rs1", blockedBy("apps/v1", "Deployment", "web", "d1")),
		mk("v1", "Pod", "default", "web-1-a", "pa", blockedBy("apps/v1", "ReplicaSet", "web-1", "rs1")),
		mk("v1", "Pod", "default", "web-1-b", "pb", blockedBy("apps/v1", "ReplicaSet", "web-1", "rs1")),
	}
}

// steps reduces a cascade to "round op name detail" lines.
func steps(res CascadeResult) []string {
	var out []string
	for _, s := range res.Steps {
		line := fmt.Sprintf("%d %s %s", s.Round, s.Op, s.Object.Name)
		switch s.Op {
		case OpDelete:
			line += " " + string(s.Policy)
		case OpRemoveFinalizer:
			line += " " + s.Finalizer
		case OpRemoveRefs:
			line += fmt.Sprint(" ", s.Owners)
		}
		out = append(out, line)
	}
	return out
}

func TestPlanCascadePolicies(t *testing.T) {
	tests := []struct {
		name      string
		objs      []Object
		target    string
		policy    metav1.DeletionPropagation
		want      []string
		rounds    int
		removed   []string
		remaining []string
	}{{
		// The API server removes the Deployment at once; each level's
		// references dangle in turn.
		name: "background", objs: deploymentChain(), target: "d1", policy: metav1.DeletePropagationBackground,
		want: []string{
			"0 Delete web Background", "0 Removed web",
			"1 Delete web-1 Background", "1 Removed web-1",
			"2 Delete web-1-a Background", "2 Removed web-1-a",
			"2 Delete web-1-b Background", "2 Removed web-1-b",
		},
		rounds: 2, removed: []string{"web", "web-1", "web-1-a", "web-1-b"},
	}, {
		// The Deployment waits for its blocking ReplicaSet, which is
		// deleted in the foreground and waits for its pods; the pods have
		// no dependents and go with their own (background) policy; then
		// the finalizers come off bottom-up.
		name: "foreground", objs: deploymentChain(), target: "d1", policy: metav1.DeletePropagationForeground,
		want: []string{
			"0 Delete web Foreground",
			"1 Delete web-1 Foreground",
			"2 Delete web-1-a Background", "2 Removed web-1-a",
			"2 Delete web-1-b Background", "2 Removed web-1-b",
			"3 RemoveFinalizer web-1 foregroundDeletion", "3 Removed web-1",
			"4 RemoveFinalizer web foregroundDeletion", "4 Removed web",
		},
		rounds: 4, removed: []string{"web-1-a", "web-1-b", "web-1", "web"},
	}, {
		// The ReplicaSet loses its reference to the Deployment, then the
		// orphan finalizer comes off and the Deployment goes alone.
		name: "orphan", objs: deploymentChain(), target: "d1", policy: metav1.DeletePropagationOrphan,
		want: []string{
			"0 Delete web Orphan",
			"1 RemoveRefs web-1 [d1]",
			"1 RemoveFinalizer web orphan", "1 Removed web",
		},
		rounds: 1, removed: []string{"web"}, remaining: []string{"web-1", "web-1-a", "web-1-b"},
	}, {
		name: "empty policy is background", objs: deploymentChain()[:1], target: "d1",
		want: []string{"0 Delete web Background", "0 Removed web"}, removed: []string{"web"},
	}, {
		// A <-> B, both blocking. Foreground delete of A: B's owner waits
		// and B's dependent A deletes in the foreground, so B's references
		// are unblocked first; A then has no blocking dependent and goes;
		// B is deleted in the foreground and goes the round after.
		name: "foreground on mutual owners: the cycle heuristic resolves it",
		objs: []Object{
			mk("v1", "ConfigMap", "ns", "a", "a", blockedBy("v1", "ConfigMap", "b", "b")),
			mk("v1", "ConfigMap", "ns", "b", "b", blockedBy("v1", "ConfigMap", "a", "a")),
		},
		target: "a", policy: metav1.DeletePropagationForeground,
		want: []string{
			"0 Delete a Foreground",
			"1 UnblockRefs b",
			"2 RemoveFinalizer a foregroundDeletion", "2 Removed a",
			"2 Delete b Foreground",
			"3 RemoveFinalizer b foregroundDeletion", "3 Removed b",
		},
		rounds: 3, removed: []string{"a", "b"},
	}, {
		// A custom finalizer nobody removes keeps the pod, and with it
		// (blocking) the ReplicaSet's foreground deletion.
		name: "foreground stuck behind a custom finalizer",
		objs: []Object{
			mk("apps/v1", "ReplicaSet", "default", "web-1", "rs1"),
			withFinalizers(mk("v1", "Pod", "default", "web-1-a", "pa", blockedBy("apps/v1", "ReplicaSet", "web-1", "rs1")), "example.com/drain"),
		},
		target: "rs1", policy: metav1.DeletePropagationForeground,
		want:      []string{"0 Delete web-1 Foreground", "1 Delete web-1-a Background"},
		rounds:    1,
		remaining: []string{"web-1", "web-1-a"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.objs
			before := fmt.Sprint(in)
			res, err := PlanCascade(in, types.UID(tt.target), tt.policy, OwnerOptions{})
			mustNil(t, err)
			if diff := cmp.Diff(tt.want, steps(res)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if res.Rounds != tt.rounds {
				t.Errorf("rounds %d, want %d", res.Rounds, tt.rounds)
			}
			if diff := cmp.Diff(tt.removed, names(res.Removed)); diff != "" {
				t.Errorf("removed (-want +got):\n%s", diff)
			}
			var remaining []string
			for _, o := range res.Remaining {
				remaining = append(remaining, o.Name)
			}
			if diff := cmp.Diff(tt.remaining, remaining); diff != "" {
				t.Errorf("remaining (-want +got):\n%s", diff)
			}
			if fmt.Sprint(in) != before {
				t.Errorf("input modified")
			}
		})
	}
}

func TestPlanCascadeOrphanLeavesNoReference(t *testing.T) {
	res, err := PlanCascade(deploymentChain(), "d1", metav1.DeletePropagationOrphan, OwnerOptions{})
	mustNil(t, err)
	for _, o := range res.Remaining {
		if o.Name == "web-1" && len(o.OwnerReferences) != 0 {
			t.Errorf("web-1 keeps %v", o.OwnerReferences)
		}
	}
}

func TestPlanCascadeStuckReportsHold(t *testing.T) {
	objs := []Object{
		mk("apps/v1", "ReplicaSet", "default", "web-1", "rs1"),
		withFinalizers(mk("v1", "Pod", "default", "web-1-a", "pa", blockedBy("apps/v1", "ReplicaSet", "web-1", "rs1")), "example.com/drain"),
	}
	res, err := PlanCascade(objs, "rs1", metav1.DeletePropagationForeground, OwnerOptions{})
	mustNil(t, err)
	if len(res.Held) != 1 || res.Held[0].Object.Name != "web-1" || !cmp.Equal(names(res.Held[0].BlockedBy), []string{"web-1-a"}) {
		t.Errorf("held %+v, want web-1 blocked by web-1-a", res.Held)
	}
}

func TestPlanCascadeErrors(t *testing.T) {
	if _, err := PlanCascade(deploymentChain(), "nope", "", OwnerOptions{}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("missing target: %v", err)
	}
	_, err := PlanCascade(deploymentChain(), "d1", "Sideways", OwnerOptions{})
	if !errors.Is(err, ErrInvalidInput) || err.Error() != `gc: invalid input: propagation policy "Sideways" is not Orphan, Background or Foreground` {
		t.Errorf("bad policy: %v", err)
	}
	if _, err := PlanCascade([]Object{mk("v1", "Pod", "", "a", "x"), mk("v1", "Pod", "", "b", "x")}, "x", "", OwnerOptions{}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("duplicate UIDs: %v", err)
	}
}

func TestOwnerCyclesAndDeadlocks(t *testing.T) {
	cm := func(name string, refs ...string) Object {
		o := mk("v1", "ConfigMap", "ns", name, name)
		for _, r := range refs {
			o.OwnerReferences = append(o.OwnerReferences, blockedBy("v1", "ConfigMap", r, r))
		}
		return o
	}
	tests := []struct {
		name      string
		objs      []Object
		cycles    [][]string
		deadlocks [][]string
	}{
		{name: "chain: no cycle", objs: []Object{cm("a"), cm("b", "a"), cm("c", "b")}},
		{name: "two-cycle", objs: []Object{cm("a", "b"), cm("b", "a")}, cycles: [][]string{{"a", "b"}}},
		{
			name:   "three-cycle with a tail and a separate two-cycle",
			objs:   []Object{cm("a", "c"), cm("b", "a"), cm("c", "b"), cm("t", "a"), cm("x", "y"), cm("y", "x")},
			cycles: [][]string{{"a", "b", "c"}, {"x", "y"}},
		},
		{
			name: "a dangling reference breaks the cycle",
			objs: []Object{cm("a", "b"), {APIVersion: "v1", Kind: "ConfigMap", Namespace: "other", Name: "b", UID: "b", OwnerReferences: []metav1.OwnerReference{blockedBy("v1", "ConfigMap", "a", "a")}}},
		},
		{
			name:      "two foreground deletions waiting on each other",
			objs:      []Object{deletingWith(cm("a", "b"), FinalizerForeground), deletingWith(cm("b", "a"), FinalizerForeground)},
			deadlocks: [][]string{{"a", "b"}},
		},
		{
			name:      "foreground deletion of a self-owner",
			objs:      []Object{deletingWith(cm("a", "a"), FinalizerForeground)},
			deadlocks: [][]string{{"a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := mustGraph(t, tt.objs, OwnerOptions{})
			var cycles, deadlocks [][]string
			for _, c := range g.Cycles() {
				cycles = append(cycles, names(c))
			}
			for _, c := range g.Deadlocks() {
				deadlocks = append(deadlocks, names(c))
			}
			if diff := cmp.Diff(tt.cycles, cycles); diff != "" {
				t.Errorf("cycles (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.deadlocks, deadlocks); diff != "" {
				t.Errorf("deadlocks (-want +got):\n%s", diff)
			}
			for _, d := range g.Plan().Deletions {
				for _, c := range cycles {
					for _, m := range c {
						if d.Object.Name == m {
							t.Errorf("cycle member %s planned for deletion", m)
						}
					}
				}
			}
		})
	}
}

func TestOwnerDeadlockIsHeldForever(t *testing.T) {
	objs := []Object{
		deletingWith(mk("v1", "ConfigMap", "ns", "a", "a", blockedBy("v1", "ConfigMap", "b", "b")), FinalizerForeground),
		deletingWith(mk("v1", "ConfigMap", "ns", "b", "b", blockedBy("v1", "ConfigMap", "a", "a")), FinalizerForeground),
	}
	if got := summary(mustGraph(t, objs, OwnerOptions{}).Plan()); !cmp.Equal(got, []string{"hold a AwaitDependents", "hold b AwaitDependents"}) {
		t.Errorf("plan %v", got)
	}
	res, err := PlanCascade(objs, "a", metav1.DeletePropagationForeground, OwnerOptions{})
	mustNil(t, err)
	if res.Rounds != 0 || len(res.Deadlocks) != 1 || len(res.Removed) != 0 {
		t.Errorf("rounds %d, deadlocks %v, removed %v; want 0, one, none", res.Rounds, res.Deadlocks, res.Removed)
	}
}

func TestOwnerExplain(t *testing.T) {
	objs := []Object{
		mk("apps/v1", "ReplicaSet", "default", "web-1", "rs1", blockedBy("apps/v1", "Deployment", "web", "d1")),
		mk("v1", "Pod", "default", "web-1-a", "pa", blockedBy("apps/v1", "ReplicaSet", "web-1", "rs1")),
		mk("v1", "Pod", "other", "web-1-x", "px", ownedBy("apps/v1", "ReplicaSet", "web-1", "rs1")),
	}
	g := mustGraph(t, objs, OwnerOptions{})

	e, ok := g.Explain("rs1")
	if !ok || !e.Observed || e.Action != ActionDelete || e.Policy != metav1.DeletePropagationBackground || e.Reason != OwnerReasonAllOwnersGone {
		t.Fatalf("rs1: %+v", e)
	}
	if len(e.Owners) != 1 || e.Owners[0].State != RefDangling || e.Owners[0].Owner != nil || e.Owners[0].Detail != "no object has this UID" {
		t.Errorf("rs1 owners %+v", e.Owners)
	}
	wantDeps := []DependentStatus{
		{Object: objs[1].Ref(), Blocking: true},
		{Object: objs[2].Ref(), Blocking: false},
	}
	if diff := cmp.Diff(wantDeps, e.Dependents); diff != "" {
		t.Errorf("rs1 dependents (-want +got):\n%s", diff)
	}

	e, _ = g.Explain("px")
	if e.Action != ActionDelete || e.Owners[0].State != RefDangling || e.Owners[0].Owner == nil || e.Owners[0].Owner.UID != "rs1" {
		t.Errorf("px: %+v", e)
	}
	if want := "the UID belongs to ReplicaSet default/web-1, in another namespace; cross-namespace owner references count as absent"; e.Owners[0].Detail != want {
		t.Errorf("px detail %q, want %q", e.Owners[0].Detail, want)
	}

	e, ok = g.Explain("d1")
	if !ok || e.Observed || e.Object.Kind != "Deployment" || e.Object.Namespace != "default" || len(e.Dependents) != 1 || !e.Dependents[0].Blocking {
		t.Errorf("virtual d1: %+v", e)
	}
	if _, ok := g.Explain("nobody"); ok {
		t.Errorf("unknown UID explained")
	}
	if got := g.Virtual(); len(got) != 1 || got[0].UID != "d1" {
		t.Errorf("virtual owners %v", got)
	}
}

func TestOwnerExplainBlockingAndCycles(t *testing.T) {
	objs := []Object{
		deletingWith(mk("apps/v1", "ReplicaSet", "ns", "rs", "rs"), FinalizerForeground),
		mk("v1", "Pod", "ns", "p", "p", blockedBy("apps/v1", "ReplicaSet", "rs", "rs")),
		mk("v1", "ConfigMap", "ns", "a", "a", ownedBy("v1", "ConfigMap", "b", "b")),
		mk("v1", "ConfigMap", "ns", "b", "b", ownedBy("v1", "ConfigMap", "a", "a")),
	}
	g := mustGraph(t, objs, OwnerOptions{})
	e, _ := g.Explain("rs")
	if e.Action != ActionAwaitDependents || !cmp.Equal(names(e.BlockedBy), []string{"p"}) {
		t.Errorf("rs: %+v", e)
	}
	e, _ = g.Explain("p")
	if e.Action != ActionDelete || !cmp.Equal(names(e.Blocks), []string{"rs"}) || e.Owners[0].State != RefWaiting {
		t.Errorf("p: %+v", e)
	}
	e, _ = g.Explain("a")
	if e.Action != ActionNone || !cmp.Equal(names(e.Cycle), []string{"a", "b"}) {
		t.Errorf("a: %+v", e)
	}
}
