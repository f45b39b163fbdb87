package gc

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/internal/enum"
)

// OwnerAction is what the collector does with one object now: upstream's
// attemptToDelete (and attemptToOrphan) outcome.
type OwnerAction int

// The owner actions.
const (
	// ActionNone: nothing to do (no owner references, or only solid ones).
	ActionNone OwnerAction = iota
	// ActionAwaitDeletion: the object is being deleted without
	// foregroundDeletion; the collector waits for it to go.
	ActionAwaitDeletion
	// ActionOrphan: the object is being deleted with the orphan finalizer:
	// remove its UID from every dependent's owner references, then the
	// finalizer.
	ActionOrphan
	// ActionRemoveForegroundFinalizer: the object is deleting its
	// dependents in the foreground and none that blocks it is left.
	ActionRemoveForegroundFinalizer
	// ActionAwaitDependents: the object is deleting its dependents in the
	// foreground and some that block it remain.
	ActionAwaitDependents
	// ActionRemoveRefs: a solid owner keeps the object; its dangling and
	// waiting references are removed with one patch.
	ActionRemoveRefs
	// ActionUnblock: upstream's cycle heuristic. Owners wait, the object
	// has dependents and one of them is deleting in the foreground too:
	// patch every blocking reference of the object to non-blocking. The
	// foreground delete that follows in the same upstream call conflicts
	// with the patch (its resourceVersion changed the owner references) and
	// happens when the object is planned again.
	ActionUnblock
	// ActionDelete: delete the object with a propagation policy.
	ActionDelete
	// ActionPinned: a reference names a kind that is not served, or is
	// invalid; upstream retries forever and never deletes the object.
	ActionPinned
	// ActionUnresolvable: a cluster-scoped object refers to a namespaced
	// kind; upstream forgets it: never deleted, never retried.
	ActionUnresolvable
)

// String returns the action's name, e.g. "Delete".
func (a OwnerAction) String() string {
	return enum.Name(a, "OwnerAction", "None", "AwaitDeletion", "Orphan", "RemoveForegroundFinalizer",
		"AwaitDependents", "RemoveRefs", "Unblock", "Delete", "Pinned", "Unresolvable")
}

// OwnerReason is the machine-readable reason of an owner-collector plan
// entry or warning.
type OwnerReason string

// The owner reasons.
const (
	// OwnerReasonAllOwnersGone: every owner reference is dangling; the
	// object is deleted with the policy its own finalizers imply.
	OwnerReasonAllOwnersGone OwnerReason = "AllOwnersGone"
	// OwnerReasonOwnersDeletingDependents: no owner is solid and some are
	// deleting their dependents in the foreground.
	OwnerReasonOwnersDeletingDependents OwnerReason = "OwnersDeletingDependents"
	// OwnerReasonStaleOwnerRefs: a solid owner keeps the object; the
	// dangling and waiting references go.
	OwnerReasonStaleOwnerRefs OwnerReason = "StaleOwnerReferences"
	// OwnerReasonUnblockPossibleCycle: the cycle heuristic's patch.
	OwnerReasonUnblockPossibleCycle OwnerReason = "UnblockPossibleCycle"
	// OwnerReasonOrphanDependent: an owner being deleted with the orphan
	// finalizer drops its reference from this dependent.
	OwnerReasonOrphanDependent OwnerReason = "OrphanDependent"
	// OwnerReasonDependentsOrphaned: the orphan finalizer goes once the
	// dependents are patched.
	OwnerReasonDependentsOrphaned OwnerReason = "DependentsOrphaned"
	// OwnerReasonBlockingDependentsGone: the foregroundDeletion finalizer
	// goes: no dependent blocks owner deletion any more.
	OwnerReasonBlockingDependentsGone OwnerReason = "BlockingDependentsGone"
	// OwnerReasonAwaitingDependents: a foreground deletion waits for the
	// dependents that block it.
	OwnerReasonAwaitingDependents OwnerReason = "AwaitingBlockingDependents"
	// OwnerReasonUnknownOwnerKind: a reference names a kind that is not
	// served (upstream's REST mapping error).
	OwnerReasonUnknownOwnerKind OwnerReason = "UnknownOwnerKind"
	// OwnerReasonInvalidOwnerRef: a reference the API server would reject.
	OwnerReasonInvalidOwnerRef OwnerReason = "InvalidOwnerReference"
	// OwnerReasonNamespacedOwnerOfClusterScoped: a cluster-scoped object
	// refers to a namespaced kind.
	OwnerReasonNamespacedOwnerOfClusterScoped OwnerReason = "NamespacedOwnerOfClusterScoped"
	// OwnerReasonSelfOwner: a warning; an object that owns itself is its
	// own solid owner and is never collected.
	OwnerReasonSelfOwner OwnerReason = "SelfOwnerReference"
	// OwnerReasonMultipleControllers: a warning; more than one reference
	// has controller=true.
	OwnerReasonMultipleControllers OwnerReason = "MultipleControllerReferences"
)

// Preconditions are the preconditions of the collector's delete: the UID,
// and the resourceVersion that was inspected when it is non-empty.
type Preconditions struct {
	// UID is metadata.uid: the delete never hits a new object of the same
	// name.
	UID types.UID
	// ResourceVersion is the inspected metadata.resourceVersion; empty
	// when the object had none, and then only the UID is checked.
	ResourceVersion string
}

// OwnerDeletion is one delete the collector issues.
type OwnerDeletion struct {
	// Object is the object to delete.
	Object ObjectRef
	// Policy is the propagation policy of the delete.
	Policy metav1.DeletionPropagation
	// Preconditions guard the delete. Upstream, on a conflict, re-reads
	// the object and retries with the UID alone when only the
	// resourceVersion changed (owner references equal), and re-plans
	// otherwise.
	Preconditions Preconditions
	Reason        OwnerReason
	Message       string
}

// RefPatch is one patch of an object's owner references.
type RefPatch struct {
	// Object is the object patched (its UID is the patch's precondition).
	Object ObjectRef
	// RemoveOwners lists the owner UIDs whose references are removed.
	RemoveOwners []types.UID
	// Unblock sets blockOwnerDeletion=false on every reference that has it
	// true (the cycle heuristic).
	Unblock bool
	Reason  OwnerReason
	Message string
}

// FinalizerRemoval removes one finalizer from an object (read, modify,
// write; a missing object or finalizer counts as done).
type FinalizerRemoval struct {
	Object    ObjectRef
	Finalizer string
	Reason    OwnerReason
	Message   string
}

// OwnerHold is an object the collector leaves as it is for a reason worth
// reporting.
type OwnerHold struct {
	Object ObjectRef
	// Action is ActionAwaitDependents, ActionPinned or ActionUnresolvable.
	Action  OwnerAction
	Reason  OwnerReason
	Message string
	// BlockedBy lists, for ActionAwaitDependents, the dependents that
	// still block the owner.
	BlockedBy []ObjectRef
}

// OwnerPlan is everything the collector would do on a snapshot. Execute
// Patches first (an orphaning owner's finalizer goes only after its
// dependents are patched), then FinalizerRemovals, then Deletions.
type OwnerPlan struct {
	Patches           []RefPatch
	FinalizerRemovals []FinalizerRemoval
	Deletions         []OwnerDeletion
	// Held lists objects waiting for blocking dependents, pinned by an
	// unknown kind or an invalid reference, or unresolvable.
	Held []OwnerHold
	// Events are the OwnerRefInvalidNamespace events.
	Events []ObjectEvent
	// Warnings are the graph's warnings.
	Warnings []OwnerWarning
	// Cycles are the owner cycles that are never collected (see
	// OwnerGraph.Cycles); Deadlocks the foreground deletions that wait on
	// each other forever (see OwnerGraph.Deadlocks).
	Cycles, Deadlocks [][]ObjectRef
}

// decision is the outcome of decide for one object.
type decision struct {
	action                   OwnerAction
	policy                   metav1.DeletionPropagation
	reason                   OwnerReason
	bad                      int32 // the reference that pinned the object
	solid, dangling, waiting int32
}

// decide is upstream's attemptToDelete for one observed object, with the
// orphaning of attemptToOrphan folded in (an object being deleted with the
// orphan finalizer orphans first, whatever other finalizer it has).
func (g *OwnerGraph) decide(i int32) decision {
	o := &g.objs[i]
	if o.beingDeleted() {
		switch {
		case hasString(o.Finalizers, FinalizerOrphan):
			return decision{action: ActionOrphan, reason: OwnerReasonDependentsOrphaned}
		case !hasString(o.Finalizers, FinalizerForeground):
			return decision{action: ActionAwaitDeletion}
		case g.hasBlockingDependents(i):
			return decision{action: ActionAwaitDependents, reason: OwnerReasonAwaitingDependents}
		default:
			return decision{action: ActionRemoveForegroundFinalizer, reason: OwnerReasonBlockingDependentsGone}
		}
	}
	d := decision{bad: -1}
	lo, hi := g.refStart[i], g.refStart[i+1]
	if lo == hi {
		return d
	}
	for j := lo; j < hi; j++ {
		switch g.state(j) {
		case RefSolid:
			d.solid++
		case RefDangling:
			d.dangling++
		case RefWaiting:
			d.waiting++
		case RefUnresolvable:
			return decision{action: ActionUnresolvable, reason: OwnerReasonNamespacedOwnerOfClusterScoped, bad: j}
		case RefUnknownKind:
			return decision{action: ActionPinned, reason: OwnerReasonUnknownOwnerKind, bad: j}
		default:
			return decision{action: ActionPinned, reason: OwnerReasonInvalidOwnerRef, bad: j}
		}
	}
	switch {
	case d.solid > 0:
		if d.dangling+d.waiting > 0 {
			d.action, d.reason = ActionRemoveRefs, OwnerReasonStaleOwnerRefs
		}
	case d.waiting > 0 && g.hasDependents(i):
		d.reason = OwnerReasonOwnersDeletingDependents
		if g.hasBlockingRefs(i) && g.anyDependentDeletingDependents(i) {
			d.action = ActionUnblock
		} else {
			d.action, d.policy = ActionDelete, metav1.DeletePropagationForeground
		}
	default:
		d.action, d.policy, d.reason = ActionDelete, ownPolicy(o), OwnerReasonAllOwnersGone
		if d.waiting > 0 {
			d.reason = OwnerReasonOwnersDeletingDependents
		}
	}
	return d
}

// ownPolicy is the propagation an object's finalizers imply: orphan, else
// foregroundDeletion, else background.
func ownPolicy(o *Object) metav1.DeletionPropagation {
	switch {
	case hasString(o.Finalizers, FinalizerOrphan):
		return metav1.DeletePropagationOrphan
	case hasString(o.Finalizers, FinalizerForeground):
		return metav1.DeletePropagationForeground
	}
	return metav1.DeletePropagationBackground
}

func (g *OwnerGraph) hasBlockingRefs(i int32) bool {
	for j := g.refStart[i]; j < g.refStart[i+1]; j++ {
		if g.blocking(j) {
			return true
		}
	}
	return false
}

func (g *OwnerGraph) anyDependentDeletingDependents(i int32) bool {
	for _, j := range g.depRef[g.depStart[i]:g.depStart[i+1]] {
		if g.objs[g.refObject(j)].deletingDependents() {
			return true
		}
	}
	return false
}

// Plan runs the collector's decision on every object of the snapshot and
// returns the resulting actions, each list ordered by object (namespace,
// name, kind, apiVersion, UID), so the plan does not depend on the order
// of the input.
func (g *OwnerGraph) Plan() OwnerPlan { return g.plan(true) }

// plan builds the plan; the cycle and deadlock reports, events and
// warnings only when full.
func (g *OwnerGraph) plan(full bool) OwnerPlan {
	var p OwnerPlan
	for i := range g.objs {
		d := g.decide(int32(i))
		if d.action == ActionNone || d.action == ActionAwaitDeletion {
			continue
		}
		g.addToPlan(&p, int32(i), d)
	}
	slices.SortStableFunc(p.Patches, func(a, b RefPatch) int {
		if c := compareRefs(&a.Object, &b.Object); c != 0 {
			return c
		}
		if c := strings.Compare(string(a.Reason), string(b.Reason)); c != 0 {
			return c
		}
		// Two owners orphaning the same dependent: by owner UID.
		return slices.Compare(a.RemoveOwners, b.RemoveOwners)
	})
	slices.SortStableFunc(p.FinalizerRemovals, func(a, b FinalizerRemoval) int { return compareRefs(&a.Object, &b.Object) })
	slices.SortStableFunc(p.Deletions, func(a, b OwnerDeletion) int { return compareRefs(&a.Object, &b.Object) })
	slices.SortStableFunc(p.Held, func(a, b OwnerHold) int { return compareRefs(&a.Object, &b.Object) })
	if full {
		p.Events = g.Events()
		p.Warnings = g.Warnings()
		p.Cycles = g.Cycles()
		p.Deadlocks = g.Deadlocks()
	}
	return p
}

func (g *OwnerGraph) addToPlan(p *OwnerPlan, i int32, d decision) {
	o := &g.objs[i]
	ref := o.Ref()
	msg := g.message(i, d)
	switch d.action {
	case ActionOrphan:
		for _, dep := range g.dependents(i) {
			p.Patches = append(p.Patches, RefPatch{
				Object: g.objs[dep].Ref(), RemoveOwners: []types.UID{o.UID},
				Reason:  OwnerReasonOrphanDependent,
				Message: fmt.Sprintf("owner %s is being deleted with the orphan finalizer: remove its owner reference", ref),
			})
		}
		p.FinalizerRemovals = append(p.FinalizerRemovals, FinalizerRemoval{Object: ref, Finalizer: FinalizerOrphan, Reason: d.reason, Message: msg})
	case ActionRemoveForegroundFinalizer:
		p.FinalizerRemovals = append(p.FinalizerRemovals, FinalizerRemoval{Object: ref, Finalizer: FinalizerForeground, Reason: d.reason, Message: msg})
	case ActionRemoveRefs:
		p.Patches = append(p.Patches, RefPatch{Object: ref, RemoveOwners: g.staleOwners(i), Reason: d.reason, Message: msg})
	case ActionUnblock:
		p.Patches = append(p.Patches, RefPatch{Object: ref, Unblock: true, Reason: OwnerReasonUnblockPossibleCycle, Message: msg})
	case ActionDelete:
		p.Deletions = append(p.Deletions, OwnerDeletion{
			Object: ref, Policy: d.policy,
			Preconditions: Preconditions{UID: o.UID, ResourceVersion: o.ResourceVersion},
			Reason:        d.reason, Message: msg,
		})
	case ActionAwaitDependents:
		p.Held = append(p.Held, OwnerHold{Object: ref, Action: d.action, Reason: d.reason, Message: msg, BlockedBy: g.refsOf(g.blockingDependents(i))})
	case ActionPinned, ActionUnresolvable:
		p.Held = append(p.Held, OwnerHold{Object: ref, Action: d.action, Reason: d.reason, Message: msg})
	}
}

// staleOwners lists the UIDs of i's dangling and waiting references, each
// once, in reference order.
func (g *OwnerGraph) staleOwners(i int32) []types.UID {
	var out []types.UID
	refs := g.objs[i].OwnerReferences
	for j := g.refStart[i]; j < g.refStart[i+1]; j++ {
		if s := g.state(j); s == RefDangling || s == RefWaiting {
			u := refs[j-g.refStart[i]].UID
			if !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	return out
}

// refsOf returns the identities of objects, sorted.
func (g *OwnerGraph) refsOf(idx []int32) []ObjectRef {
	out := make([]ObjectRef, len(idx))
	for k, i := range idx {
		out[k] = g.objs[i].Ref()
	}
	slices.SortFunc(out, func(a, b ObjectRef) int { return compareRefs(&a, &b) })
	return out
}

// message is the human sentence of a decision.
func (g *OwnerGraph) message(i int32, d decision) string {
	o := &g.objs[i]
	switch d.action {
	case ActionNone:
		if g.refStart[i] == g.refStart[i+1] {
			return "no owner references: not the collector's to delete"
		}
		return fmt.Sprintf("kept by %d solid owner reference(s)", d.solid)
	case ActionAwaitDeletion:
		return "being deleted without foregroundDeletion: waiting for the object to go"
	case ActionOrphan:
		return fmt.Sprintf("being deleted with the orphan finalizer: remove its owner reference from %d dependent(s), then the finalizer", len(g.dependents(i)))
	case ActionRemoveForegroundFinalizer:
		return "deleting in the foreground and no dependent blocks owner deletion: remove the foregroundDeletion finalizer"
	case ActionAwaitDependents:
		return fmt.Sprintf("deleting in the foreground: waiting for %s", joinRefs(g.refsOf(g.blockingDependents(i))))
	case ActionRemoveRefs:
		return fmt.Sprintf("kept by %d solid owner(s); remove %d dangling and %d waiting owner reference(s)", d.solid, d.dangling, d.waiting)
	case ActionUnblock:
		return fmt.Sprintf("%d owner(s) deleting in the foreground and a dependent deleting in the foreground too (possible cycle): make its owner references non-blocking, then delete it in the foreground", d.waiting)
	case ActionDelete:
		if d.waiting > 0 && d.policy == metav1.DeletePropagationForeground && g.hasDependents(i) {
			return fmt.Sprintf("no solid owner, %d owner(s) deleting in the foreground and the object has dependents: delete in the foreground", d.waiting)
		}
		if d.waiting > 0 {
			return fmt.Sprintf("no solid owner and %d owner(s) deleting in the foreground: delete with %s propagation", d.waiting, d.policy)
		}
		return fmt.Sprintf("all %d owner reference(s) dangling: delete with %s propagation", d.dangling, d.policy)
	case ActionPinned:
		r := &o.OwnerReferences[d.bad-g.refStart[i]]
		if d.reason == OwnerReasonInvalidOwnerRef {
			return fmt.Sprintf("owner reference %s is invalid (%s): retried forever, never deleted", describeRef(r), refProblem(r))
		}
		return fmt.Sprintf("owner reference %s names a kind that is not served: retried forever, never deleted", describeRef(r))
	case ActionUnresolvable:
		r := &o.OwnerReferences[d.bad-g.refStart[i]]
		return fmt.Sprintf("cluster-scoped objects cannot refer to namespaced owners (%s): never deleted", describeRef(r))
	}
	return ""
}

// joinRefs prints up to three references and how many more there are.
func joinRefs(refs []ObjectRef) string {
	var b strings.Builder
	for k, r := range refs {
		if k == 3 {
			fmt.Fprintf(&b, " and %d more", len(refs)-3)
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.String())
	}
	return b.String()
}
