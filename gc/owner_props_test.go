package gc_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/nodelifetest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// ---- generators ----

// ---- properties ----

func genOwnerOptions(t *rapid.T) gc.OwnerOptions {
	return gc.OwnerOptions{ForegroundBlockingOnly: rapid.Bool().Draw(t, "blockingOnly")}
}

// drawOwnerGraph draws a snapshot and options and builds the graph.
func drawOwnerGraph(t *rapid.T) ([]gc.Object, gc.OwnerOptions, *gc.OwnerGraph) {
	objs := nodelifetest.OwnerGraphs(nodelifetest.Options{}).Draw(t, "objects")
	opts := genOwnerOptions(t)
	g, err := gc.NewOwnerGraph(objs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return objs, opts, g
}

func TestPropertyOwnerPlanMatchesNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		objs, opts, g := drawOwnerGraph(t)
		want := gc.NewNaiveOwners(objs, opts).Plan()
		if diff := cmp.Diff(want, gc.Summary(g.Plan())); diff != "" {
			t.Fatalf("plan differs from the naive reference (-naive +plan):\n%s", diff)
		}
	})
}

// TestPropertyOwnerNeverDeletesVerifiedOwned: a planned delete never hits
// an object with an owner that a GET at the reference's coordinates finds
// with the reference's UID and that is not deleting in the foreground.
func TestPropertyOwnerNeverDeletesVerifiedOwned(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		objs, opts, g := drawOwnerGraph(t)
		w := gc.NewNaiveOwners(objs, opts)
		byUID := map[types.UID]*gc.Object{}
		for i := range objs {
			byUID[objs[i].UID] = &objs[i]
		}
		for _, d := range g.Plan().Deletions {
			o := byUID[d.Object.UID]
			for _, r := range o.OwnerReferences {
				if w.Classify(o, r) == gc.RefSolid {
					t.Fatalf("%s deleted while its owner %s/%s %s (uid %s) is verified", d.Object, r.APIVersion, r.Kind, r.Name, r.UID)
				}
			}
		}
	})
}

func TestPropertyOwnerPlanInvariantUnderInputOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		objs := nodelifetest.OwnerGraphs(nodelifetest.Options{}).Draw(t, "objects")
		opts := genOwnerOptions(t)
		perm := rapid.Permutation(objs).Draw(t, "perm")
		g1, err1 := gc.NewOwnerGraph(objs, opts)
		g2, err2 := gc.NewOwnerGraph(perm, opts)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if diff := cmp.Diff(g1.Plan(), g2.Plan()); diff != "" {
			t.Fatalf("plan depends on input order (-original +permuted):\n%s", diff)
		}
		target := objs[rapid.IntRange(0, len(objs)-1).Draw(t, "target")].UID
		policy := rapid.SampledFrom([]metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan}).Draw(t, "policy")
		c1, err1 := gc.PlanCascade(objs, target, policy, opts)
		c2, err2 := gc.PlanCascade(perm, target, policy, opts)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if diff := cmp.Diff(c1, c2); diff != "" {
			t.Fatalf("cascade depends on input order (-original +permuted):\n%s", diff)
		}
	})
}

// TestPropertyCascadeForegroundBackgroundSameSet: on live, finalizer-free
// graphs (cycles and ghosts allowed), a background and a foreground delete
// of the same object remove the same objects; an object deleted in the
// foreground is never removed while another holding a blocking reference
// to it exists; an orphan delete of a settled graph removes the target
// alone.
func TestPropertyCascadeForegroundBackgroundSameSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		objs := nodelifetest.OwnerGraphs(nodelifetest.Options{Valid: true}).Draw(t, "objects")
		target := objs[rapid.IntRange(0, len(objs)-1).Draw(t, "target")].UID
		bg, err := gc.PlanCascade(objs, target, metav1.DeletePropagationBackground, gc.OwnerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fg, err := gc.PlanCascade(objs, target, metav1.DeletePropagationForeground, gc.OwnerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		removedSet := func(c gc.CascadeResult) []string {
			var out []string
			for _, r := range c.Removed {
				out = append(out, string(r.UID))
			}
			sort.Strings(out)
			return out
		}
		if diff := cmp.Diff(removedSet(bg), removedSet(fg)); diff != "" {
			t.Fatalf("background and foreground remove different sets (-background +foreground):\n%s\nbackground: %v\nforeground: %v", diff, gc.Steps(bg), gc.Steps(fg))
		}
		for _, o := range fg.Remaining {
			if o.DeletionTimestamp != nil {
				t.Fatalf("%s left being deleted: %v", o.Ref(), gc.Steps(fg))
			}
		}
		// Replay the foreground steps and check each removal.
		refs := map[types.UID][]metav1.OwnerReference{}
		exists := map[types.UID]bool{}
		for i := range objs {
			refs[objs[i].UID] = objs[i].OwnerReferences
			exists[objs[i].UID] = true
		}
		foreground := map[types.UID]bool{}
		for _, s := range fg.Steps {
			u := s.Object.UID
			switch s.Op {
			case gc.OpDelete:
				foreground[u] = s.Policy == metav1.DeletePropagationForeground
			case gc.OpRemoveRefs:
				var kept []metav1.OwnerReference
				for _, r := range refs[u] {
					if !slices.Contains(s.Owners, r.UID) {
						kept = append(kept, r)
					}
				}
				refs[u] = kept
			case gc.OpUnblockRefs:
				var unblocked []metav1.OwnerReference
				for _, r := range refs[u] {
					r.BlockOwnerDeletion = nil
					unblocked = append(unblocked, r)
				}
				refs[u] = unblocked
			case gc.OpRemoved:
				delete(exists, u)
				if !foreground[u] {
					break // deleted with its own background policy: nothing waits
				}
				for other := range exists {
					for _, r := range refs[other] {
						if r.UID == u && gc.IsBlocking(r) {
							t.Fatalf("%s removed while %s still blocks it: %v", s.Object, other, gc.Steps(fg))
						}
					}
				}
			}
		}
		or, err := gc.PlanCascade(objs, target, metav1.DeletePropagationOrphan, gc.OwnerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := gc.NewOwnerGraph(objs, gc.OwnerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p := g.Plan(); len(p.Deletions)+len(p.Patches) > 0 {
			return // the collector has work of its own (ghost owners)
		}
		if len(or.Removed) != 1 || or.Removed[0].UID != target {
			t.Fatalf("orphan removed %v, want only %s", or.Removed, target)
		}
	})
}

// TestPropertyCascadeSettles: on any snapshot and any policy the cascade
// settles without error, and its final snapshot plans nothing to do.
func TestPropertyCascadeSettles(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		objs := nodelifetest.OwnerGraphs(nodelifetest.Options{}).Draw(t, "objects")
		opts := genOwnerOptions(t)
		target := objs[rapid.IntRange(0, len(objs)-1).Draw(t, "target")].UID
		policy := rapid.SampledFrom([]metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan}).Draw(t, "policy")
		res, err := gc.PlanCascade(objs, target, policy, opts)
		if err != nil {
			t.Fatal(err)
		}
		g, err := gc.NewOwnerGraph(res.Remaining, opts)
		if err != nil {
			t.Fatal(err)
		}
		p := g.Plan()
		if n := len(p.Patches) + len(p.FinalizerRemovals) + len(p.Deletions); n != 0 {
			t.Fatalf("final snapshot still plans %v", gc.Summary(p))
		}
	})
}

// naiveComponents returns the cycles of edges (vertex -> successors) as
// sorted UID lists: vertices that reach themselves, grouped by mutual
// reachability, found by a search from every vertex.
func naiveComponents(n int, edges func(v int) []int, uid func(int) string) []string {
	reach := make([][]bool, n)
	for s := 0; s < n; s++ {
		reach[s] = make([]bool, n)
		stack := edges(s)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !reach[s][v] {
				reach[s][v] = true
				stack = append(stack, edges(v)...)
			}
		}
	}
	seen := map[string]bool{}
	var out []string
	for v := 0; v < n; v++ {
		if !reach[v][v] {
			continue
		}
		var members []string
		for w := 0; w < n; w++ {
			if reach[v][w] && reach[w][v] {
				members = append(members, uid(w))
			}
		}
		sort.Strings(members)
		k := strings.Join(members, ",")
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func componentUIDs(cs [][]gc.ObjectRef) []string {
	var out []string
	for _, c := range cs {
		var u []string
		for _, r := range c {
			u = append(u, string(r.UID))
		}
		sort.Strings(u)
		out = append(out, strings.Join(u, ","))
	}
	sort.Strings(out)
	return out
}

// TestPropertyOwnerCyclesMatchNaive: Cycles are the groups of mutually
// reachable objects along solid references, Deadlocks those along
// "deleting in the foreground, waits for a blocking dependent deleting in
// the foreground" (objects that orphan first excluded).
func TestPropertyOwnerCyclesMatchNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		objs, opts, g := drawOwnerGraph(t)
		w := gc.NewNaiveOwners(objs, opts)
		index := map[types.UID]int{}
		for i := range objs {
			index[objs[i].UID] = i
		}
		uid := func(i int) string { return string(objs[i].UID) }
		solid := func(v int) []int {
			var out []int
			for _, r := range objs[v].OwnerReferences {
				if w.Classify(&objs[v], r) == gc.RefSolid {
					out = append(out, index[r.UID])
				}
			}
			return out
		}
		fgOnly := func(o *gc.Object) bool {
			return o.DeletionTimestamp != nil && gc.HasString(o.Finalizers, gc.FinalizerForeground) && !gc.HasString(o.Finalizers, gc.FinalizerOrphan)
		}
		waits := func(v int) []int {
			if !fgOnly(&objs[v]) {
				return nil
			}
			var out []int
			for d := range objs {
				for _, r := range objs[d].OwnerReferences {
					if r.UID == objs[v].UID && gc.IsBlocking(r) && fgOnly(&objs[d]) {
						out = append(out, d)
					}
				}
			}
			return out
		}
		if diff := cmp.Diff(naiveComponents(len(objs), solid, uid), componentUIDs(g.Cycles())); diff != "" {
			t.Fatalf("cycles (-naive +got):\n%s", diff)
		}
		if diff := cmp.Diff(naiveComponents(len(objs), waits, uid), componentUIDs(g.Deadlocks())); diff != "" {
			t.Fatalf("deadlocks (-naive +got):\n%s", diff)
		}
	})
}
