package gc

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// ---- generators ----

type genKind struct{ apiVersion, kind string }

var ownerGenKinds = []genKind{
	{"v1", "ConfigMap"}, {"v1", "Pod"}, {"apps/v1", "ReplicaSet"}, {"v1", "Node"},
}

// genOwnerObjects draws a random snapshot: unique coordinates and UIDs,
// references to existing objects (at their coordinates or slightly off),
// to ghosts, to unknown kinds and invalid ones, any deletion state.
// With plain set, everything is live, finalizer-free, in one namespace,
// and references are valid (existing owners or ghosts).
func genOwnerObjects(t *rapid.T, plain bool) []Object {
	n := rapid.IntRange(1, 10).Draw(t, "n")
	objs := make([]Object, n)
	for i := range objs {
		k := ownerGenKinds[rapid.IntRange(0, len(ownerGenKinds)-1).Draw(t, "kind")]
		if plain && k.kind == "Node" {
			k = ownerGenKinds[0]
		}
		ns := ""
		if k.kind != "Node" {
			ns = "a"
			if !plain && rapid.IntRange(0, 3).Draw(t, "otherNS") == 0 {
				ns = "b"
			}
		}
		objs[i] = Object{APIVersion: k.apiVersion, Kind: k.kind, Namespace: ns, Name: fmt.Sprintf("o%d", i), UID: types.UID(fmt.Sprintf("u%d", i))}
		if !plain && rapid.Bool().Draw(t, "rv") {
			objs[i].ResourceVersion = fmt.Sprint(rapid.IntRange(1, 99).Draw(t, "rvValue"))
		}
	}
	for i := range objs {
		nrefs := rapid.IntRange(0, 3).Draw(t, "nrefs")
		for k := 0; k < nrefs; k++ {
			o := &objs[rapid.IntRange(0, n-1).Draw(t, "target")]
			r := metav1.OwnerReference{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: o.UID}
			variant := 0
			if plain {
				variant = rapid.SampledFrom([]int{0, 0, 0, 0, 1}).Draw(t, "plainVariant")
			} else {
				variant = rapid.IntRange(0, 12).Draw(t, "variant")
			}
			switch variant {
			case 1:
				r.UID = types.UID(fmt.Sprintf("ghost%d", rapid.IntRange(0, 3).Draw(t, "ghost")))
			case 2:
				r.Name += "x"
			case 3:
				r.Kind = strings.ToLower(r.Kind)
			case 4:
				r.APIVersion, r.Kind = "example.com/v1", "Widget"
			case 5:
				r.UID = ""
			case 6:
				r.APIVersion, r.Kind = "v1", "Secret"
			}
			if plain && r.UID == objs[i].UID {
				// A self-owner deleted in the foreground waits on itself
				// forever (a deadlock, tested on its own).
				r.UID = "ghost-self"
			}
			if rapid.Bool().Draw(t, "blocking") {
				r.BlockOwnerDeletion = ptr(true)
			} else if rapid.Bool().Draw(t, "explicitFalse") {
				r.BlockOwnerDeletion = ptr(false)
			}
			if !plain && rapid.IntRange(0, 3).Draw(t, "controller") == 0 {
				r.Controller = ptr(true)
			}
			objs[i].OwnerReferences = append(objs[i].OwnerReferences, r)
		}
		if plain {
			continue
		}
		var fins []string
		for _, f := range []string{FinalizerOrphan, FinalizerForeground, "example.com/x"} {
			if rapid.IntRange(0, 3).Draw(t, "fin") == 0 {
				fins = append(fins, f)
			}
		}
		objs[i].Finalizers = fins
		if rapid.IntRange(0, 2).Draw(t, "deleting") == 0 {
			objs[i].DeletionTimestamp = &metav1.Time{}
		}
	}
	return objs
}

// ---- the naive reference: upstream's attemptToDelete read literally ----

// naiveOwners answers the collector's questions the way upstream does:
// a GET at a reference's coordinates (linear scan), then a UID compare.
type naiveOwners struct {
	objs []Object
	opts OwnerOptions
}

func (w naiveOwners) scope(apiVersion, kind string) Scope {
	if w.opts.Scopes != nil {
		return w.opts.Scopes(apiVersion, kind)
	}
	return DefaultKindScopes().Lookup(apiVersion, kind)
}

// get returns the object at (group, kind, namespace, name), matching the
// kind exactly or as its lowercase form.
func (w naiveOwners) get(apiVersion, kind, ns, name string) *Object {
	group := ""
	if parts := strings.Split(apiVersion, "/"); len(parts) == 2 {
		group = parts[0]
	}
	for i := range w.objs {
		o := &w.objs[i]
		oGroup := ""
		if parts := strings.Split(o.APIVersion, "/"); len(parts) == 2 {
			oGroup = parts[0]
		}
		if oGroup == group && (o.Kind == kind || strings.ToLower(o.Kind) == kind) && o.Namespace == ns && o.Name == name {
			return o
		}
	}
	return nil
}

func naiveValid(r metav1.OwnerReference) bool {
	parts := strings.Split(r.APIVersion, "/")
	okVersion := (len(parts) == 1 && parts[0] != "") || (len(parts) == 2 && parts[0] != "" && parts[1] != "")
	return okVersion && r.Kind != "" && r.Name != "" && r.UID != ""
}

func isBlocking(r metav1.OwnerReference) bool {
	return r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion
}

func (w naiveOwners) classify(d *Object, r metav1.OwnerReference) RefState {
	if !naiveValid(r) {
		return RefInvalid
	}
	s := w.scope(r.APIVersion, r.Kind)
	if s == ScopeUnknown {
		return RefUnknownKind
	}
	ns := ""
	if s == ScopeNamespaced {
		if d.Namespace == "" {
			return RefUnresolvable
		}
		ns = d.Namespace
	}
	o := w.get(r.APIVersion, r.Kind, ns, r.Name)
	if o == nil || o.UID != r.UID {
		return RefDangling
	}
	if o.DeletionTimestamp != nil && hasString(o.Finalizers, FinalizerForeground) {
		if w.opts.ForegroundBlockingOnly && !isBlocking(r) {
			return RefSolid
		}
		return RefWaiting
	}
	return RefSolid
}

// dependents returns the objects with a reference to uid, and whether any
// of those references blocks.
func (w naiveOwners) dependents(uid types.UID) (deps []*Object, blocking bool) {
	for i := range w.objs {
		refers := false
		for _, r := range w.objs[i].OwnerReferences {
			if r.UID == uid {
				refers = true
				blocking = blocking || isBlocking(r)
			}
		}
		if refers {
			deps = append(deps, &w.objs[i])
		}
	}
	return deps, blocking
}

type naiveEntry struct{ key, reason, text string }

func objKey(o *Object) string {
	return strings.Join([]string{o.Namespace, o.Name, o.Kind, o.APIVersion, string(o.UID)}, "\x00")
}

// plan returns the plan in summary form, ordered like Plan.
func (w naiveOwners) plan() []string {
	var patches, fins, dels, holds []naiveEntry
	for i := range w.objs {
		o := &w.objs[i]
		k := objKey(o)
		if o.DeletionTimestamp != nil {
			deps, blocking := w.dependents(o.UID)
			switch {
			case hasString(o.Finalizers, FinalizerOrphan):
				for _, d := range deps {
					patches = append(patches, naiveEntry{objKey(d), "OrphanDependent" + string(o.UID), "patch " + d.Name + " -" + string(o.UID)})
				}
				fins = append(fins, naiveEntry{k, "", "finalizer " + o.Name + " orphan"})
			case !hasString(o.Finalizers, FinalizerForeground):
			case blocking:
				holds = append(holds, naiveEntry{k, "", "hold " + o.Name + " AwaitDependents"})
			default:
				fins = append(fins, naiveEntry{k, "", "finalizer " + o.Name + " foregroundDeletion"})
			}
			continue
		}
		if len(o.OwnerReferences) == 0 {
			continue
		}
		var solid, waiting int
		var stale []string
		held := ""
		for _, r := range o.OwnerReferences {
			switch w.classify(o, r) {
			case RefSolid:
				solid++
			case RefWaiting:
				waiting++
				stale = appendNew(stale, string(r.UID))
			case RefDangling:
				stale = appendNew(stale, string(r.UID))
			case RefUnresolvable:
				held = "Unresolvable"
			default:
				held = "Pinned"
			}
			if held != "" {
				break
			}
		}
		deps, _ := w.dependents(o.UID)
		switch {
		case held != "":
			holds = append(holds, naiveEntry{k, "", "hold " + o.Name + " " + held})
		case solid > 0:
			if len(stale) > 0 {
				patches = append(patches, naiveEntry{k, "StaleOwnerReferences", "patch " + o.Name + " -" + strings.Join(stale, ",")})
			}
		case waiting > 0 && len(deps) > 0:
			depDeleting, ownBlocking := false, false
			for _, d := range deps {
				depDeleting = depDeleting || (d.DeletionTimestamp != nil && hasString(d.Finalizers, FinalizerForeground))
			}
			for _, r := range o.OwnerReferences {
				ownBlocking = ownBlocking || isBlocking(r)
			}
			if depDeleting && ownBlocking {
				patches = append(patches, naiveEntry{k, "UnblockPossibleCycle", "patch " + o.Name + " unblock"})
			} else {
				dels = append(dels, naiveEntry{k, "", "delete " + o.Name + " Foreground"})
			}
		default:
			policy := "Background"
			if hasString(o.Finalizers, FinalizerOrphan) {
				policy = "Orphan"
			} else if hasString(o.Finalizers, FinalizerForeground) {
				policy = "Foreground"
			}
			dels = append(dels, naiveEntry{k, "", "delete " + o.Name + " " + policy})
		}
	}
	var out []string
	for _, list := range [][]naiveEntry{patches, fins, dels, holds} {
		sort.Slice(list, func(a, b int) bool {
			if list[a].key != list[b].key {
				return list[a].key < list[b].key
			}
			return list[a].reason < list[b].reason
		})
		for _, e := range list {
			out = append(out, e.text)
		}
	}
	return out
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// ---- properties ----

func genOwnerOptions(t *rapid.T) OwnerOptions {
	return OwnerOptions{ForegroundBlockingOnly: rapid.Bool().Draw(t, "blockingOnly")}
}

// drawOwnerGraph draws a snapshot and options and builds the graph.
func drawOwnerGraph(t *rapid.T) ([]Object, OwnerOptions, *OwnerGraph) {
	objs := genOwnerObjects(t, false)
	opts := genOwnerOptions(t)
	g, err := NewOwnerGraph(objs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return objs, opts, g
}

func TestPropertyOwnerPlanMatchesNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		objs, opts, g := drawOwnerGraph(t)
		want := naiveOwners{objs, opts}.plan()
		if diff := cmp.Diff(want, summary(g.Plan())); diff != "" {
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
		w := naiveOwners{objs, opts}
		byUID := map[types.UID]*Object{}
		for i := range objs {
			byUID[objs[i].UID] = &objs[i]
		}
		for _, d := range g.Plan().Deletions {
			o := byUID[d.Object.UID]
			for _, r := range o.OwnerReferences {
				if w.classify(o, r) == RefSolid {
					t.Fatalf("%s deleted while its owner %s/%s %s (uid %s) is verified", d.Object, r.APIVersion, r.Kind, r.Name, r.UID)
				}
			}
		}
	})
}

func TestPropertyOwnerPlanInvariantUnderInputOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		objs := genOwnerObjects(t, false)
		opts := genOwnerOptions(t)
		perm := rapid.Permutation(objs).Draw(t, "perm")
		g1, err1 := NewOwnerGraph(objs, opts)
		g2, err2 := NewOwnerGraph(perm, opts)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if diff := cmp.Diff(g1.Plan(), g2.Plan()); diff != "" {
			t.Fatalf("plan depends on input order (-original +permuted):\n%s", diff)
		}
		target := objs[rapid.IntRange(0, len(objs)-1).Draw(t, "target")].UID
		policy := rapid.SampledFrom([]metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan}).Draw(t, "policy")
		c1, err1 := PlanCascade(objs, target, policy, opts)
		c2, err2 := PlanCascade(perm, target, policy, opts)
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
		objs := genOwnerObjects(t, true)
		target := objs[rapid.IntRange(0, len(objs)-1).Draw(t, "target")].UID
		bg, err := PlanCascade(objs, target, metav1.DeletePropagationBackground, OwnerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fg, err := PlanCascade(objs, target, metav1.DeletePropagationForeground, OwnerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		removedSet := func(c CascadeResult) []string {
			var out []string
			for _, r := range c.Removed {
				out = append(out, string(r.UID))
			}
			sort.Strings(out)
			return out
		}
		if diff := cmp.Diff(removedSet(bg), removedSet(fg)); diff != "" {
			t.Fatalf("background and foreground remove different sets (-background +foreground):\n%s\nbackground: %v\nforeground: %v", diff, steps(bg), steps(fg))
		}
		for _, o := range fg.Remaining {
			if o.DeletionTimestamp != nil {
				t.Fatalf("%s left being deleted: %v", o.Ref(), steps(fg))
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
			case OpDelete:
				foreground[u] = s.Policy == metav1.DeletePropagationForeground
			case OpRemoveRefs:
				var kept []metav1.OwnerReference
				for _, r := range refs[u] {
					if !slices.Contains(s.Owners, r.UID) {
						kept = append(kept, r)
					}
				}
				refs[u] = kept
			case OpUnblockRefs:
				var unblocked []metav1.OwnerReference
				for _, r := range refs[u] {
					r.BlockOwnerDeletion = nil
					unblocked = append(unblocked, r)
				}
				refs[u] = unblocked
			case OpRemoved:
				delete(exists, u)
				if !foreground[u] {
					break // deleted with its own background policy: nothing waits
				}
				for other := range exists {
					for _, r := range refs[other] {
						if r.UID == u && isBlocking(r) {
							t.Fatalf("%s removed while %s still blocks it: %v", s.Object, other, steps(fg))
						}
					}
				}
			}
		}
		or, err := PlanCascade(objs, target, metav1.DeletePropagationOrphan, OwnerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewOwnerGraph(objs, OwnerOptions{})
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
		objs := genOwnerObjects(t, false)
		opts := genOwnerOptions(t)
		target := objs[rapid.IntRange(0, len(objs)-1).Draw(t, "target")].UID
		policy := rapid.SampledFrom([]metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan}).Draw(t, "policy")
		res, err := PlanCascade(objs, target, policy, opts)
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewOwnerGraph(res.Remaining, opts)
		if err != nil {
			t.Fatal(err)
		}
		p := g.Plan()
		if n := len(p.Patches) + len(p.FinalizerRemovals) + len(p.Deletions); n != 0 {
			t.Fatalf("final snapshot still plans %v", summary(p))
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

func componentUIDs(cs [][]ObjectRef) []string {
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
		w := naiveOwners{objs, opts}
		index := map[types.UID]int{}
		for i := range objs {
			index[objs[i].UID] = i
		}
		uid := func(i int) string { return string(objs[i].UID) }
		solid := func(v int) []int {
			var out []int
			for _, r := range objs[v].OwnerReferences {
				if w.classify(&objs[v], r) == RefSolid {
					out = append(out, index[r.UID])
				}
			}
			return out
		}
		fgOnly := func(o *Object) bool {
			return o.DeletionTimestamp != nil && hasString(o.Finalizers, FinalizerForeground) && !hasString(o.Finalizers, FinalizerOrphan)
		}
		waits := func(v int) []int {
			if !fgOnly(&objs[v]) {
				return nil
			}
			var out []int
			for d := range objs {
				for _, r := range objs[d].OwnerReferences {
					if r.UID == objs[v].UID && isBlocking(r) && fgOnly(&objs[d]) {
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
