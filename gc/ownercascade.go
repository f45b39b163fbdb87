package gc

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/internal/enum"
)

// OwnerReasonDeleteRequested is the reason of a cascade's first step: the
// caller's delete of the target.
const OwnerReasonDeleteRequested OwnerReason = "DeleteRequested"

// CascadeOp is the kind of a cascade step.
type CascadeOp int

// The cascade operations.
const (
	// OpDelete is a delete request with a propagation policy (the
	// caller's, then the collector's).
	OpDelete CascadeOp = iota
	// OpRemoved: the object left the store (deleted with no finalizer
	// left, or its last finalizer was removed).
	OpRemoved
	// OpRemoveRefs: owner references were removed from the object.
	OpRemoveRefs
	// OpUnblockRefs: the object's blocking references were made
	// non-blocking.
	OpUnblockRefs
	// OpRemoveFinalizer: a finalizer was removed.
	OpRemoveFinalizer
)

// String returns the operation's name, e.g. "Delete".
func (op CascadeOp) String() string {
	return enum.Name(op, "CascadeOp", "Delete", "Removed", "RemoveRefs", "UnblockRefs", "RemoveFinalizer")
}

// CascadeStep is one change of a cascade.
type CascadeStep struct {
	// Round is 0 for the caller's delete and counts the collector's
	// passes after it.
	Round int
	Op    CascadeOp
	// Object is the object changed.
	Object ObjectRef
	// Policy is the propagation policy of an OpDelete.
	Policy metav1.DeletionPropagation
	// Owners are the owner UIDs of an OpRemoveRefs.
	Owners []types.UID
	// Finalizer is the finalizer of an OpRemoveFinalizer.
	Finalizer string
	Reason    OwnerReason
	Message   string
}

// String prints the step on one line, e.g.
// "round 1: Delete ReplicaSet default/web-5d8f (Background): all 1 owner reference(s) dangling: delete with Background propagation".
func (s CascadeStep) String() string {
	head := fmt.Sprintf("round %d: %s %s", s.Round, s.Op, s.Object)
	switch s.Op {
	case OpDelete:
		head += fmt.Sprintf(" (%s)", s.Policy)
	case OpRemoveRefs:
		head += fmt.Sprintf(" %v", s.Owners)
	case OpRemoveFinalizer:
		head += " " + s.Finalizer
	}
	if s.Message == "" {
		return head
	}
	return head + ": " + s.Message
}

// CascadeResult is a cascade run until nothing changes.
type CascadeResult struct {
	// Steps are the changes in order: the caller's delete, then for each
	// collector round its patches, finalizer removals and deletes, each
	// group ordered by object, with OpRemoved right after the change that
	// removed an object.
	Steps []CascadeStep
	// Rounds is the number of collector rounds that changed something.
	Rounds int
	// Removed lists the objects that left the store, in order.
	Removed []ObjectRef
	// Remaining are the objects still in the store, ordered by object;
	// some may still be being deleted (see Held and Deadlocks).
	Remaining []Object
	// Held and Deadlocks are those of the final snapshot's plan.
	Held      []OwnerHold
	Deadlocks [][]ObjectRef
}

// PlanCascade simulates "delete target with propagation policy" and the
// collector until nothing changes, as steps a caller can print or execute.
//
// The API server's part: a delete sets the deletion timestamp and puts
// the policy's finalizer (orphan for Orphan, foregroundDeletion for
// Foreground; Background removes both); an object with no finalizer left
// is removed at once. Graceful deletion (a pod on a node waiting for its
// kubelet) is treated as immediate, and finalizers other than the two
// above are never removed: such an object stays, being deleted.
//
// The collector's part: each round plans on the current snapshot (as
// Plan) and applies the plan; a delete of an object whose owner
// references changed in the same round is dropped and planned again, as
// upstream's resourceVersion precondition makes it conflict. Upstream
// runs 20 workers on events; rounds are one deterministic schedule of the
// same decisions. An empty policy is Background.
func PlanCascade(objects []Object, target types.UID, policy metav1.DeletionPropagation, opts OwnerOptions) (CascadeResult, error) {
	var res CascadeResult
	switch policy {
	case "":
		policy = metav1.DeletePropagationBackground
	case metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan:
	default:
		return res, wrap(ErrInvalidInput, fmt.Sprintf("propagation policy %q is not Orphan, Background or Foreground", policy))
	}
	g, err := NewOwnerGraph(objects, opts)
	if err != nil {
		return res, err
	}
	ti, ok := g.lookup(target)
	if !ok {
		return res, wrap(ErrInvalidInput, fmt.Sprintf("no object has UID %q", target))
	}
	c := cascade{state: slices.Clone(objects), res: &res}
	c.reset(g)
	c.delete(0, ti, policy, OwnerReasonDeleteRequested, fmt.Sprintf("delete requested with %s propagation", policy))
	c.compact()

	totalRefs := 0
	for i := range objects {
		totalRefs += len(objects[i].OwnerReferences)
	}
	limit := totalRefs + 4*len(objects) + 4
	for round := 1; ; round++ {
		if g, err = NewOwnerGraph(c.state, opts); err != nil {
			return res, err
		}
		p := g.plan(false)
		if len(p.Patches)+len(p.FinalizerRemovals)+len(p.Deletions) == 0 {
			res.Held = p.Held
			res.Deadlocks = g.Deadlocks()
			break
		}
		if round > limit {
			return res, wrap(ErrInvalidInput, fmt.Sprintf("cascade did not settle after %d rounds", limit))
		}
		res.Rounds = round
		c.reset(g)
		c.apply(round, &p)
		c.compact()
	}
	res.Remaining = c.state
	slices.SortFunc(res.Remaining, func(a, b Object) int {
		ra, rb := a.Ref(), b.Ref()
		return compareRefs(&ra, &rb)
	})
	return res, nil
}

// deletionMarker is the deletion timestamp a simulated delete sets; only
// its presence matters and it is never modified.
var deletionMarker = &metav1.Time{}

type cascade struct {
	state []Object
	// g is the round's graph, over a snapshot with the order of state:
	// its lookup gives indices into state.
	g           *OwnerGraph
	removed     []bool
	refsChanged []bool
	res         *CascadeResult
}

func (c *cascade) reset(g *OwnerGraph) {
	c.g = g
	c.removed = make([]bool, len(c.state))
	c.refsChanged = make([]bool, len(c.state))
}

// at returns the index in state of an object the round's plan names.
func (c *cascade) at(u types.UID) int32 {
	i, _ := c.g.lookup(u)
	return i
}

func (c *cascade) step(s CascadeStep) { c.res.Steps = append(c.res.Steps, s) }

// delete is the API server's delete with a propagation policy.
func (c *cascade) delete(round int, i int32, policy metav1.DeletionPropagation, reason OwnerReason, msg string) {
	o := &c.state[i]
	c.step(CascadeStep{Round: round, Op: OpDelete, Object: o.Ref(), Policy: policy, Reason: reason, Message: msg})
	fins := make([]string, 0, len(o.Finalizers)+1)
	for _, f := range o.Finalizers {
		if f != FinalizerOrphan && f != FinalizerForeground {
			fins = append(fins, f)
		}
	}
	switch policy {
	case metav1.DeletePropagationOrphan:
		fins = append(fins, FinalizerOrphan)
	case metav1.DeletePropagationForeground:
		fins = append(fins, FinalizerForeground)
	}
	o.Finalizers = fins
	if o.DeletionTimestamp == nil {
		o.DeletionTimestamp = deletionMarker
	}
	c.removeIfDone(round, i)
}

func (c *cascade) removeIfDone(round int, i int32) {
	o := &c.state[i]
	if o.DeletionTimestamp != nil && len(o.Finalizers) == 0 && !c.removed[i] {
		c.removed[i] = true
		c.step(CascadeStep{Round: round, Op: OpRemoved, Object: o.Ref()})
		c.res.Removed = append(c.res.Removed, o.Ref())
	}
}

func (c *cascade) apply(round int, p *OwnerPlan) {
	for k := range p.Patches {
		pt := &p.Patches[k]
		i := c.at(pt.Object.UID)
		o := &c.state[i]
		refs := make([]metav1.OwnerReference, 0, len(o.OwnerReferences))
		changed := false
		for _, r := range o.OwnerReferences {
			if slices.Contains(pt.RemoveOwners, r.UID) {
				changed = true
				continue
			}
			if pt.Unblock && blocks(&r) {
				f := false
				r.BlockOwnerDeletion = &f
				changed = true
			}
			refs = append(refs, r)
		}
		if !changed {
			continue
		}
		o.OwnerReferences = refs
		c.refsChanged[i] = true
		op := OpRemoveRefs
		if pt.Unblock {
			op = OpUnblockRefs
		}
		c.step(CascadeStep{Round: round, Op: op, Object: pt.Object, Owners: pt.RemoveOwners, Reason: pt.Reason, Message: pt.Message})
	}
	for k := range p.FinalizerRemovals {
		fr := &p.FinalizerRemovals[k]
		i := c.at(fr.Object.UID)
		o := &c.state[i]
		fins := make([]string, 0, len(o.Finalizers))
		for _, f := range o.Finalizers {
			if f != fr.Finalizer {
				fins = append(fins, f)
			}
		}
		o.Finalizers = fins
		c.step(CascadeStep{Round: round, Op: OpRemoveFinalizer, Object: fr.Object, Finalizer: fr.Finalizer, Reason: fr.Reason, Message: fr.Message})
		c.removeIfDone(round, i)
	}
	for k := range p.Deletions {
		d := &p.Deletions[k]
		i := c.at(d.Object.UID)
		if c.refsChanged[i] || c.removed[i] {
			continue
		}
		c.delete(round, i, d.Policy, d.Reason, d.Message)
	}
}

func (c *cascade) compact() {
	kept := c.state[:0:0]
	for i := range c.state {
		if !c.removed[i] {
			kept = append(kept, c.state[i])
		}
	}
	c.state = kept
}
