package gc

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// OwnerRefStatus is one owner reference of an explained object.
type OwnerRefStatus struct {
	// Ref is the reference as the object holds it.
	Ref metav1.OwnerReference
	// State is its classification.
	State RefState
	// Owner is the observed object with the reference's UID, wherever it
	// is (nil if none): for a dangling reference it shows what the UID
	// really belongs to.
	Owner *ObjectRef
	// Detail says why the reference has its state.
	Detail string
}

// DependentStatus is one dependent of an explained object.
type DependentStatus struct {
	Object ObjectRef
	// Blocking: the dependent's reference has blockOwnerDeletion=true, so
	// it holds back a foreground deletion of the object.
	Blocking bool
}

// Explanation says why the collector keeps, waits on or deletes one
// object, and who blocks whom. Upstream can only dump its graph as DOT.
type Explanation struct {
	// Object is the object; for an unobserved (virtual) owner, the
	// coordinates of its first reference.
	Object ObjectRef
	// Observed is false for a UID that is only referenced.
	Observed bool
	// Action, Policy, Reason and Message are the collector's decision now.
	Action  OwnerAction
	Policy  metav1.DeletionPropagation
	Reason  OwnerReason
	Message string
	// Owners classifies each owner reference, in the object's order.
	Owners []OwnerRefStatus
	// Dependents are the observed objects referring to the UID, ordered.
	Dependents []DependentStatus
	// BlockedBy lists the dependents holding back the object's foreground
	// deletion (when it is deleting in the foreground).
	BlockedBy []ObjectRef
	// Blocks lists the owners deleting in the foreground that this object
	// holds back with a blocking reference.
	Blocks []ObjectRef
	// Cycle lists the members of the owner cycle the object is in (see
	// OwnerGraph.Cycles), Deadlock those of its foreground deadlock.
	Cycle, Deadlock []ObjectRef
}

// Explain explains the collector's decision for the object with uid. It
// reports false if no object has the UID and none refers to it.
func (g *OwnerGraph) Explain(uid types.UID) (Explanation, bool) {
	i, ok := g.lookup(uid)
	if !ok {
		return g.explainVirtual(uid)
	}
	o := &g.objs[i]
	d := g.decide(i)
	e := Explanation{
		Object: o.Ref(), Observed: true,
		Action: d.action, Policy: d.policy, Reason: d.reason, Message: g.message(i, d),
	}
	for k := range o.OwnerReferences {
		j := g.refStart[i] + int32(k)
		st := OwnerRefStatus{Ref: o.OwnerReferences[k], State: g.state(j)}
		if owner := g.refOwner[j]; owner >= 0 {
			r := g.objs[owner].Ref()
			st.Owner = &r
			if st.State == RefWaiting && g.blocking(j) {
				e.Blocks = append(e.Blocks, r)
			}
		}
		st.Detail = g.refDetail(o, &o.OwnerReferences[k], j, st.State)
		e.Owners = append(e.Owners, st)
	}
	slices.SortFunc(e.Blocks, func(a, b ObjectRef) int { return compareRefs(&a, &b) })
	e.Blocks = slices.CompactFunc(e.Blocks, func(a, b ObjectRef) bool { return a.UID == b.UID })
	seen := map[int32]int{}
	for _, j := range g.depRef[g.depStart[i]:g.depStart[i+1]] {
		dep := g.refObject(j)
		if k, ok := seen[dep]; ok {
			e.Dependents[k].Blocking = e.Dependents[k].Blocking || g.blocking(j)
			continue
		}
		seen[dep] = len(e.Dependents)
		e.Dependents = append(e.Dependents, DependentStatus{Object: g.objs[dep].Ref(), Blocking: g.blocking(j)})
	}
	slices.SortFunc(e.Dependents, func(a, b DependentStatus) int { return compareRefs(&a.Object, &b.Object) })
	if o.deletingDependents() {
		e.BlockedBy = g.refsOf(g.blockingDependents(i))
	}
	e.Cycle = g.refsOf(g.solidCycleOf(i))
	for _, c := range g.Deadlocks() {
		if slices.ContainsFunc(c, func(r ObjectRef) bool { return r.UID == uid }) {
			e.Deadlock = c
		}
	}
	return e, true
}

func (g *OwnerGraph) explainVirtual(uid types.UID) (Explanation, bool) {
	var e Explanation
	found := false
	for i := range g.objs {
		d := &g.objs[i]
		blocking := false
		refers := false
		for k := range d.OwnerReferences {
			r := &d.OwnerReferences[k]
			if r.UID != uid {
				continue
			}
			refers = true
			blocking = blocking || blocks(r)
			v := ObjectRef{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: d.Namespace, Name: r.Name, UID: uid}
			if !found || compareRefs(&v, &e.Object) < 0 {
				e.Object = v
			}
			found = true
		}
		if refers {
			e.Dependents = append(e.Dependents, DependentStatus{Object: d.Ref(), Blocking: blocking})
		}
	}
	if !found {
		return Explanation{}, false
	}
	slices.SortFunc(e.Dependents, func(a, b DependentStatus) int { return compareRefs(&a.Object, &b.Object) })
	e.Message = fmt.Sprintf("not observed: %d object(s) refer to this UID, and their references to it are dangling", len(e.Dependents))
	return e, true
}

// refDetail explains the state of reference r (index j) of object d.
func (g *OwnerGraph) refDetail(d *Object, r *metav1.OwnerReference, j int32, st RefState) string {
	owner := g.refOwner[j]
	switch st {
	case RefSolid:
		o := &g.objs[owner]
		switch {
		case o.deletingDependents():
			return fmt.Sprintf("%s is deleting in the foreground, but this reference does not block it (ForegroundBlockingOnly)", o.Ref())
		case o.beingDeleted():
			return fmt.Sprintf("%s exists (being deleted, not in the foreground)", o.Ref())
		}
		return fmt.Sprintf("%s exists", o.Ref())
	case RefWaiting:
		return fmt.Sprintf("%s is deleting its dependents in the foreground", g.objs[owner].Ref())
	case RefDangling:
		if owner < 0 {
			return "no object has this UID"
		}
		o := &g.objs[owner]
		if o.Namespace != "" && o.Namespace != d.Namespace {
			return fmt.Sprintf("the UID belongs to %s, in another namespace; cross-namespace owner references count as absent", o.Ref())
		}
		return fmt.Sprintf("the UID belongs to %s, which is not at the reference's coordinates (%s %s)", o.Ref(), r.Kind, r.Name)
	case RefUnresolvable:
		return "cluster-scoped objects cannot refer to namespaced owners"
	case RefUnknownKind:
		return fmt.Sprintf("%s/%s is not served", r.APIVersion, r.Kind)
	}
	return "invalid reference: " + refProblem(r)
}

// solidCycleOf returns the members of the solid-reference cycle through
// i (nil if none): the objects reachable from i along solid references
// that also reach i.
func (g *OwnerGraph) solidCycleOf(i int32) []int32 {
	fwd := map[int32]bool{}
	queue := []int32{i}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for j := g.refStart[v]; j < g.refStart[v+1]; j++ {
			if w := g.refOwner[j]; g.state(j) == RefSolid && !fwd[w] {
				fwd[w] = true
				queue = append(queue, w)
			}
		}
	}
	if !fwd[i] {
		return nil
	}
	members := []int32{i}
	back := map[int32]bool{i: true}
	queue = []int32{i}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, j := range g.depRef[g.depStart[v]:g.depStart[v+1]] {
			if g.state(j) != RefSolid {
				continue
			}
			if w := g.refObject(j); fwd[w] && !back[w] {
				back[w] = true
				members = append(members, w)
				queue = append(queue, w)
			}
		}
	}
	return members
}

// String prints the explanation over several lines.
func (e Explanation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (uid %s): %s", e.Object, e.Object.UID, e.Action)
	if e.Policy != "" {
		fmt.Fprintf(&b, " (%s)", e.Policy)
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, " %s", e.Reason)
	}
	fmt.Fprintf(&b, ": %s\n", e.Message)
	for _, o := range e.Owners {
		blocking := ""
		if blocks(&o.Ref) {
			blocking = ", blocking"
		}
		fmt.Fprintf(&b, "  owner %s/%s %s (uid %s%s): %s: %s\n", o.Ref.APIVersion, o.Ref.Kind, o.Ref.Name, o.Ref.UID, blocking, o.State, o.Detail)
	}
	for _, d := range e.Dependents {
		blocking := ""
		if d.Blocking {
			blocking = " (blocks owner deletion)"
		}
		fmt.Fprintf(&b, "  dependent %s%s\n", d.Object, blocking)
	}
	if len(e.BlockedBy) > 0 {
		fmt.Fprintf(&b, "  blocked by: %s\n", joinRefs(e.BlockedBy))
	}
	if len(e.Blocks) > 0 {
		fmt.Fprintf(&b, "  blocks: %s\n", joinRefs(e.Blocks))
	}
	if len(e.Cycle) > 0 {
		fmt.Fprintf(&b, "  owner cycle, never collected: %s\n", joinRefs(e.Cycle))
	}
	if len(e.Deadlock) > 0 {
		fmt.Fprintf(&b, "  foreground deadlock: %s\n", joinRefs(e.Deadlock))
	}
	return b.String()
}
