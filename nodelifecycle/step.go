package nodelifecycle

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/taints"
)

// The stages of one Step. A Step that emitted writes pauses before the
// next stage (and before it finishes), so that the caller can report the
// writes that failed before anything that depends on them is decided.
const (
	stageIdle            = iota // no Step under way
	stageBound                  // pods bound to a node that is not Ready
	stageReach                  // the monitor pass's first sightings
	stageHealth                 // the monitor pass's health checks and status writes
	stageDecide                 // the monitor pass's taint decisions and pod marking
	stageZones                  // the monitor pass's zone states
	stageConditionTaints        // condition NoSchedule taints
	stageTaintPass              // the tainting pass
	stagePlan                   // NoExecute plans
	stageEvict                  // due evictions
	stageFinish                 // when next
)

// pendingWrite is a write of the last Ready whose outcome is not yet
// known: its effect on the view is made when the next Step starts, ok
// when the caller did not report it with Failed, fail when it did.
type pendingWrite struct {
	seq      uint64
	failed   bool
	refused  bool
	ok, fail func()
	refuse   func()
}

// passItem is one node of a monitor pass, between its health check and
// its decisions.
type passItem struct {
	ns    *nodeState
	quiet bool // the posted Ready stands (status ns.ready)
	skip  bool // its status write failed: not counted, not tainted, pods not marked
	h     int  // its health check in pass.healths, when not quiet
}

// pass is the state of a monitor pass across the stages of a Step.
type pass struct {
	active   bool
	nodes    []*nodeState
	items    []passItem
	healths  []conditions.Health // the full health checks, apart: most nodes are quiet
	counts   []eviction.ZoneCount
	breaking bool
	// changed is set when a node or lease changed while the pass was under
	// way; full when the pass visits every node it listed.
	changed   bool
	full      bool
	looked    []*nodeState // the nodes the health checks looked at
	heldNodes int
	heldFor   string
}

// ErrNotPending is returned by Failed for an action that is not a write
// of the last Step's Ready (an action of an earlier Ready, one that writes
// nothing, or one the Controller did not return).
var ErrNotPending = errors.New("nodelifecycle: not a pending write of the last Step")

// Step runs, at now, whatever the two controllers have due, in this order:
//
//  0. the pods bound since the last Step (new, or moved to another node) to
//     a node whose Ready, as the last monitor pass saved it, is not True
//     are marked NotReady (KindPodsNotReady, Reason
//     ReasonBoundToNotReadyNode), node by node;
//  1. a monitor pass, when one is due: every NodeMonitorPeriod from the
//     first Step (upstream's monitorNodeHealth). Nodes seen for the first
//     time lose their NoExecute taints and leave their zone's queue
//     (markNodeAsReachable: a restarted controller counts from its own
//     first sight). Then the health monitor of every node in name order
//     (Ready=Unknown after the grace period, KindNodeStatus); then, node
//     by node in name order, the NoExecute tainting decision from the
//     Ready condition after that rewrite (swap at once, queue at the
//     zone's rate, or untaint) and the pods marked NotReady
//     (KindPodsNotReady). Then the zone states and rates from the nodes
//     counted (KindZone), full disruption's untainting of every node, and
//     the probe reset when the cluster leaves it. (Upstream runs each
//     node's health check, decision and marking in one of several
//     workers; every status write before the first decision is one order
//     its workers can take.)
//  2. the condition NoSchedule taints of every node whose conditions,
//     taints or unschedulability changed (doNoScheduleTaintingPass);
//  3. a tainting pass, on the 100ms grid counted from the first Step, when
//     the zone queues have a node due (doNoExecuteTaintingPass), nodes the
//     monitor pass of 1 queued included: the grid's ticks fall on every
//     monitor pass;
//  4. the NoExecute plan of every node whose NoExecute taints or pods
//     changed, by node name (the taint eviction controller's handlers):
//     KindEvict for a pod that does not tolerate a taint (after a
//     KindCancel of its pending eviction, as upstream cancels before it
//     evicts at once), KindSchedule and KindCancel as tolerationSeconds
//     say, KindCancel for a deleted pod's pending eviction (Reason
//     PodDeleted); an eviction already due is left to 5. The pending
//     evictions of deleted nodes' pods that were deleted are cancelled
//     after these, by node name;
//  5. the scheduled evictions that are due, by node and pod
//     (KindEvict with reason TaintManagerEviction), deleted nodes'
//     included. A taint removed earlier in the same Step has cancelled them
//     first.
//
// # Writes and their outcomes
//
// The actions of kinds KindNodeStatus, KindPodsNotReady, KindTaints and
// KindEvict are writes; the others record a decision. The Controller
// counts on its writes succeeding: the caller reports each one that
// failed with Failed before the next Step. A Step that wrote pauses after
// the part that wrote, so that what follows is decided knowing the
// outcome, as upstream's error paths do: its Ready then has Next equal
// to now. The caller performs the actions, reports the failures, and calls
// Step again at once; that Step carries on where the first stopped, at the
// same instant (whatever now it is given), and may pause again. A
// Step whose Next is after now is complete. A failed write changes what
// follows: a node whose status write failed is left out of its zone's
// counts and its pass ends there; pods not marked NotReady are marked at
// the next pass; a failed taint of the tainting pass is queued again; a
// failed taint of a monitor pass is decided again at the next pass; a
// failed condition taint or eviction is tried again RetryDelay later.
//
// The view can change between a paused Step and its continuation (an
// informer's upserts); the continuation reads it as it then is.
//
// A now earlier than an earlier Step's is taken as that Step's (and a
// paused Step's Next is that instant). Step allocates only for what it
// returns, the writes it waits to hear about, and the nodes and pods it
// plans.
func (c *Controller) Step(now time.Time) Ready {
	if c.stage == stageIdle {
		if !c.started {
			c.started, c.start, c.last, c.nextMonitor = true, now, now, now
		}
		if now.Before(c.last) {
			now = c.last
		}
		c.last, c.now, c.retry, c.stage = now, now, false, stageBound
	}
	c.actions = nil
	c.commit()
	for c.stage != stageFinish {
		if len(c.pending) > 0 {
			return c.pause()
		}
		c.runStage(c.now)
		c.stage++
	}
	if len(c.pending) > 0 {
		return c.pause()
	}
	return c.finish(c.now)
}

// pause returns the actions of a Step that stops so that the caller can
// report their outcomes.
func (c *Controller) pause() Ready {
	out := Ready{Actions: c.actions, Next: c.now}
	c.actions = nil
	return out
}

// Failed reports that a write of the last Step's Ready failed; the
// Controller takes the failure into account when the next Step starts
// (see Step). It returns ErrNotPending, wrapped with the action, for an
// action that is not a write of that Ready.
func (c *Controller) Failed(a Action) error {
	i, ok := slices.BinarySearchFunc(c.pending, a.seq, func(p pendingWrite, seq uint64) int { return cmp.Compare(p.seq, seq) })
	if !ok || a.seq == 0 {
		return fmt.Errorf("%w: %s", ErrNotPending, a.String())
	}
	c.pending[i].failed = true
	return nil
}

// ErrNotRefusable is returned by Refused for an action that cannot be
// refused: only a KindEvict or a KindPodsNotReady can; bend a node's
// tainting or status with a NodePolicy instead.
var ErrNotRefusable = errors.New("nodelifecycle: only an eviction or a pods-not-ready write can be refused")

// Refused reports that the caller chose not to do a write of the last
// Step's Ready (a policy of its own vetoed it); unlike Failed, it is not
// tried again. A refused KindEvict leaves the pod in the view, running;
// it is not planned against its node's NoExecute taints again until the
// pod changes (UID, tolerations, termination, node) or its node's
// NoExecute taints or NodeRules do. A refused KindPodsNotReady leaves the
// pods Ready in the view, not marked again until their node's Ready
// leaves True anew. It returns ErrNotPending for an action that is not a
// write of that Ready, ErrNotRefusable (both wrapped with the action) for
// one of another kind.
func (c *Controller) Refused(a Action) error {
	i, ok := slices.BinarySearchFunc(c.pending, a.seq, func(p pendingWrite, seq uint64) int { return cmp.Compare(p.seq, seq) })
	if !ok || a.seq == 0 {
		return fmt.Errorf("%w: %s", ErrNotPending, a.String())
	}
	if a.Kind != KindEvict && a.Kind != KindPodsNotReady {
		return fmt.Errorf("%w: %s", ErrNotRefusable, a.String())
	}
	c.pending[i].refused = true
	return nil
}

// commit makes the effect of the last Ready's writes on the view, in the
// order they were decided.
func (c *Controller) commit() {
	for _, ns := range c.expecting {
		ns.expect, ns.expecting = nil, false
	}
	clear(c.expecting)
	c.expecting = c.expecting[:0]
	for i := range c.pending {
		p := &c.pending[i]
		if p.refused {
			if p.refuse != nil {
				p.refuse()
			}
		} else if p.failed {
			if p.fail != nil {
				p.fail()
			}
		} else if p.ok != nil {
			p.ok()
		}
	}
	clear(c.pending)
	c.pending = c.pending[:0]
}

// runStage runs one stage of a Step at now.
func (c *Controller) runStage(now time.Time) {
	switch c.stage {
	case stageBound:
		c.markBound()
	case stageReach:
		c.pass.active = false
		if !now.Before(c.nextMonitor) {
			c.beginPass(now)
		}
	case stageHealth:
		if c.pass.active {
			c.healthPass(now)
		}
	case stageDecide:
		if c.pass.active {
			c.decidePass(now)
		}
	case stageZones:
		if c.pass.active {
			c.pass.active = false
			c.zonePass(now)
			for !c.nextMonitor.After(now) {
				c.nextMonitor = c.nextMonitor.Add(c.cfg.NodeMonitorPeriod)
			}
		}
	case stageConditionTaints:
		slices.SortFunc(c.dirty, func(a, b *nodeState) int { return cmp.Compare(a.node.Name, b.node.Name) })
		for _, ns := range c.dirty {
			if ns.reconcile && c.nodes[ns.node.Name] == ns {
				add, remove := taints.ReconcileConditionTaints(now, ns.node.Taints, ns.node.Conditions, ns.node.Unschedulable)
				ns.reconcile = false
				c.writeTaints(ns, add, remove, "ConditionTaint", "condition taints follow the node's conditions", func() {
					ns.reconcile, c.retry = true, true
				})
			}
		}
	case stageTaintPass:
		// The tainting pass after the monitor pass: a node the monitor
		// pass queued is tainted at once when now is on the pass's grid
		// and its zone has a token.
		c.schedulePass(now)
		if !c.nextPass.IsZero() && !now.Before(c.nextPass) {
			c.taintPass(now)
		}
	case stagePlan:
		slices.SortFunc(c.dirty, func(a, b *nodeState) int { return cmp.Compare(a.node.Name, b.node.Name) })
		for _, ns := range c.dirty {
			if ns.plan && c.nodes[ns.node.Name] == ns {
				ns.plan = false
				c.planNode(now, ns)
			}
		}
		// Deleted nodes whose pods went: their evictions are cancelled
		// (the rest wait for their time).
		if len(c.deleted) > 0 {
			var gone []*nodeState
			for _, ns := range c.deleted {
				if len(ns.goneUIDs) > 0 {
					gone = append(gone, ns)
				}
			}
			slices.SortFunc(gone, func(a, b *nodeState) int { return cmp.Compare(a.node.Name, b.node.Name) })
			for _, ns := range gone {
				c.cancelGone(ns, c.byNode[ns.node.Name])
				if len(ns.scheduled) == 0 {
					delete(c.deleted, ns.node.Name)
				}
			}
		}
	case stageEvict:
		c.evictDue(now)
	}
}

// finish ends a Step: it keeps the nodes that still have work and says
// when the next Step is due.
func (c *Controller) finish(now time.Time) Ready {
	// Keep the nodes that still have work (a failed condition taint, or a
	// plan asked for by a write failure during this Step).
	keep := c.dirty[:0]
	for _, ns := range c.dirty {
		if (ns.reconcile || ns.plan) && c.nodes[ns.node.Name] == ns {
			keep = append(keep, ns)
		} else {
			ns.queued = false
		}
	}
	clear(c.dirty[len(keep):])
	c.dirty = keep
	retry := c.retry || len(keep) > 0

	c.schedulePass(now)
	next := c.nextMonitor
	if !c.nextPass.IsZero() && c.nextPass.Before(next) {
		next = c.nextPass
	}
	if at, ok := c.nextDue(); ok && at.Before(next) {
		next = at
	}
	if retry && now.Add(RetryDelay).Before(next) {
		next = now.Add(RetryDelay)
	}
	out := Ready{Actions: c.actions, Next: next}
	c.actions, c.stage = nil, stageIdle
	return out
}

// emit records a, which writes nothing.
func (c *Controller) emit(a Action) {
	c.seq++
	a.At, a.seq = c.now, c.seq
	c.actions = append(c.actions, a)
}

// emitWrite records the write a; ok or fail (either may be nil) makes its
// outcome's effect on the view when the next Step starts.
func (c *Controller) emitWrite(a Action, ok, fail func()) {
	c.emit(a)
	c.pending = append(c.pending, pendingWrite{seq: c.seq, ok: ok, fail: fail})
}

// writeTaints removes and adds taints on ns, only those that change its
// taints as the view has them; the view follows when the write succeeds,
// and fail (when not nil) runs when it failed.
//
// A write is decided against the taints the node has once the writes
// before it in the same part of the Step succeed (as the tainting pass
// finds a node it has just tainted from one zone's queue in another's).
func (c *Controller) writeTaints(ns *nodeState, add, remove []taints.Taint, reason, message string, fail func()) {
	base := ns.node.Taints
	if ns.expecting {
		base = ns.expect
	}
	var effAdd, effRemove []taints.Taint
	for _, t := range remove {
		if taints.Exists(base, t) {
			effRemove = append(effRemove, t)
		}
	}
	for _, t := range add {
		if !taints.Exists(base, t) || slices.ContainsFunc(effRemove, func(r taints.Taint) bool { return r.MatchTaint(t) }) {
			effAdd = append(effAdd, t)
		}
	}
	if len(effAdd) == 0 && len(effRemove) == 0 {
		return
	}
	if !ns.expecting {
		c.expecting = append(c.expecting, ns)
	}
	ns.expect, ns.expecting = taints.Apply(base, effAdd, effRemove), true
	c.emitWrite(Action{Kind: KindTaints, Node: ns.node.Name, Add: effAdd, Remove: effRemove, Reason: reason, Message: message}, func() {
		before := ns.node.Taints
		if c.inPass && !ns.passTouched && !c.cfg.FreshTaintsInPass {
			ns.passTaints, ns.passTouched = before, true
			c.touched = append(c.touched, ns)
		}
		ns.node.Taints = taints.Apply(before, effAdd, effRemove)
		ns.settled = ""
		c.wake(ns)
		// The controller's own taints never call for a condition-taint
		// reconcile: it writes NoExecute taints, or the reconcile's own
		// result.
		c.markDirty(ns, false, !noExecuteEqual(before, ns.node.Taints))
	}, fail)
}

// applyTaintAction carries out a tainter decision of a monitor pass; a
// failed write is decided again at the next pass, as upstream's.
func (c *Controller) applyTaintAction(ns *nodeState, a eviction.TaintAction) {
	if len(a.Add) == 0 && len(a.Remove) == 0 {
		return
	}
	c.writeTaints(ns, a.Add, a.Remove, a.Reason, a.Message, nil)
}

// taintNode is the node as the tainter sees it: during a monitor pass that
// wrote its taints, with the taints the pass listed (see passTaints).
func (ns *nodeState) taintNode() eviction.TaintNode {
	ts := ns.node.Taints
	if ns.passTouched {
		ts = ns.passTaints
	}
	return eviction.TaintNode{Name: ns.node.Name, UID: ns.node.UID, Zone: ns.zone, Taints: ts}
}

func (ns *nodeState) healthNode() conditions.NodeObservation {
	return conditions.NodeObservation{Name: ns.node.Name, CreationTimestamp: ns.node.CreationTimestamp, Conditions: ns.node.Conditions,
		HasLease: ns.hasLease, LeaseRenewTime: ns.renew, LeaseResourceVersion: ns.leaseRV}
}

// quietPass is the monitor pass of a quiet node: what
// conditions.MonitorConfig.Observe does to the record of a node whose
// posted Ready is unchanged and was not rewritten (a newer lease is a
// probe), without the rest. It reports false when a True or False Ready
// times out: the pass must then take the full path, which finds the
// record as Observe would have left it. (An Unknown Ready stays as it is,
// timed out or not; breaking, the lease circuit breaker is asked about a
// timed-out one, and a hold takes the full path.)
// nowNs is now in Unix nanoseconds.
func (c *Controller) quietPass(ns *nodeState, now time.Time, nowNs int64, breaking bool) bool {
	rec := &ns.rec
	// A lease is a probe when the record has none (a fresh record drops the
	// saved lease, so the pass after one probes again) or when an upsert
	// since the node's last pass brought a newer renew time.
	newer := ns.hasLease && (!ns.recLease ||
		(ns.leaseNew && !rec.LeaseRenewTime.IsZero() && !ns.renew.IsZero() && rec.LeaseRenewTime.Before(ns.renew)))
	if newer {
		rec.HasLease, rec.LeaseRenewTime, rec.LeaseResourceVersion, rec.ProbeTimestamp = true, ns.renew, ns.leaseRV, now
		ns.recLease = true
		ns.deadline = now.Add(c.cfg.NodeMonitorGracePeriod).UnixNano()
	}
	ns.leaseNew = false
	if nowNs > ns.deadline {
		switch {
		case ns.ready != conditions.Unknown:
			// A True or False Ready times out: the full path rewrites it.
			return false
		case breaking:
			// With the lease circuit breaker, upstream reads the live lease
			// of every node past its grace period, each pass. Its record
			// is as the full path would find it (no newer lease, or it
			// would not be past its deadline): the breaker is asked here,
			// and only a hold takes the full path, with this answer.
			if hold, msg := c.checkLease(ns.node.Name, rec.LeaseResourceVersion); hold {
				ns.held, ns.heldMsg = true, msg
				return false
			}
		}
	}
	// LastObserved is left behind: it only clamps a now earlier than one
	// already seen, and Step never passes one.
	return true
}

// decideTaint takes the NoExecute tainting decision for ns at Ready status
// decide, as tainter.Observe would, skipping what would change nothing
// (cached in ns.settled until the node's taints or queue change) and
// requeueing a node still waiting in its queue in place.
func (c *Controller) decideTaint(ns *nodeState, decide conditions.Status, now time.Time) {
	if ns.passTouched {
		// The pass already wrote this node's taints (a first sight's
		// untaint): decide from the listed taints, without the shortcuts,
		// which read the current ones.
		ns.settled = ""
		c.applyTaintAction(ns, c.tainter.Observe(now, ns.taintNode(), decide))
		ns.queuedMaybe = decide != conditions.True
		return
	}
	if decide != "" && ns.settled == decide {
		return
	}
	if c.taintSettled(ns, decide) {
		ns.settled = decide
		return
	}
	ns.settled = ""
	if decide == conditions.False || decide == conditions.Unknown {
		want, other := eviction.UnreachableTaint(), eviction.NotReadyTaint()
		if decide == conditions.False {
			want, other = other, want
		}
		// Observe's own answer for a node with neither taint: out of the
		// dedupe set and in again, in place when it is queued.
		if !taints.Exists(ns.node.Taints, want) && !taints.Exists(ns.node.Taints, other) &&
			c.queueOf(ns).Requeue(now, ns.node.Name, ns.node.UID) {
			ns.queuedMaybe = true
			return
		}
	}
	c.applyTaintAction(ns, c.tainter.Observe(now, ns.taintNode(), decide))
	ns.queuedMaybe = decide != conditions.True
}

// taintSettled reports whether the tainter's Observe would change nothing
// for ns at Ready status decide, so that the pass can skip it: a Ready
// node without the NoExecute taints and out of its queue, or a node that
// already carries the taint its status calls for (and not the other) and
// is in its queue's dedupe set. These are most nodes on most passes.
func (c *Controller) taintSettled(ns *nodeState, decide conditions.Status) bool {
	var want, other taints.Taint
	switch decide {
	case conditions.True:
		return !hasControllerTaint(ns.node.Taints) && (!ns.queuedMaybe || !c.queueOf(ns).Contains(ns.node.Name))
	case conditions.False:
		want, other = eviction.NotReadyTaint(), eviction.UnreachableTaint()
	case conditions.Unknown:
		want, other = eviction.UnreachableTaint(), eviction.NotReadyTaint()
	default:
		return true
	}
	return taints.Exists(ns.node.Taints, want) && !taints.Exists(ns.node.Taints, other) && c.queueOf(ns).Contains(ns.node.Name)
}

// queueOf returns the tainting queue of the node's zone (creating it, as
// the tainter does for a zone it has not seen).
func (c *Controller) queueOf(ns *nodeState) *eviction.RateLimitedQueue {
	for len(c.zoneQueues) <= ns.zi {
		c.zoneQueues = append(c.zoneQueues, nil)
	}
	if q := c.zoneQueues[ns.zi]; q != nil {
		return q
	}
	q := c.tainter.Queue(ns.zone)
	c.zoneQueues[ns.zi] = q
	return q
}

// hasControllerTaint reports whether ts holds the not-ready or the
// unreachable NoExecute taint.
func hasControllerTaint(ts []taints.Taint) bool {
	return taints.Exists(ts, eviction.UnreachableTaint()) || taints.Exists(ts, eviction.NotReadyTaint())
}

// readyStatus is the status of the Ready condition, "" when there is none.
func readyStatus(conds []conditions.Condition) conditions.Status {
	if r, ok := conditions.Find(conds, conditions.Ready); ok {
		return r.Status
	}
	return ""
}

// beginPass starts a monitor pass: nodes seen for the first time lose
// their NoExecute taints and leave their zone's queue.
func (c *Controller) beginPass(now time.Time) {
	c.passes++
	c.inPass = true
	c.remember(now)
	nodes := c.sortedNodes()
	c.resetForgottenZones()
	for i := 0; c.unseen > 0 && i < len(nodes); i++ {
		if ns := nodes[i]; !ns.seen {
			c.unseen--
			ns.seen = true
			c.tainter.Queue(ns.zone)
			c.applyTaintAction(ns, c.tainter.MarkReachable(ns.taintNode()))
			ns.queuedMaybe, ns.settled = false, ""
		}
	}
	counts := c.pass.counts[:0]
	for _, key := range c.zoneKeys {
		counts = append(counts, eviction.ZoneCount{Zone: key})
	}
	clear(c.pass.items)
	clear(c.pass.healths)
	clear(c.pass.looked)
	c.pass = pass{active: true, nodes: nodes, items: c.pass.items[:0], healths: c.pass.healths[:0], counts: counts, breaking: c.breaking(),
		full: !c.eventDriven(), looked: c.pass.looked[:0]}
}

// healthPass runs the health monitor of every node of the pass, in name
// order, writing the rewritten statuses.
func (c *Controller) healthPass(now time.Time) {
	p := &c.pass
	nowNs := now.UnixNano()
	nodes := p.nodes
	if !p.full {
		if p.changed || c.tripRV != "" {
			// A tripped lease circuit breaker holds nodes in order, and
			// held nodes are not counted; a view changed since the pass
			// began is read as it now is: every node.
			p.full = true
			for _, ns := range nodes {
				c.wake(ns)
			}
		} else {
			c.dueIdle(now)
			nodes = c.visitList()
		}
	}
	if cap(p.healths) < len(nodes) {
		// sized for the pass's nodes at once (at the first pass, every
		// node): not doubled 17 times over for 100,000 nodes
		p.healths = slices.Grow(p.healths, len(nodes))
	}
	var last *nodeState
	for k := 0; ; k++ {
		if !p.full && c.tripRV != "" {
			// The lease circuit breaker tripped at the last node: every
			// node after it is looked at, as the every-node pass does
			// (they are held).
			p.full = true
			i := 0
			if last != nil {
				i, _ = slices.BinarySearchFunc(p.nodes, last, compareNames)
				i++
			}
			nodes, k = p.nodes[i:], 0
			for _, ns := range nodes {
				c.wake(ns)
			}
		}
		if k >= len(nodes) {
			break
		}
		ns := nodes[k]
		last = ns
		c.visits++
		ns.passItem = true
		p.looked = append(p.looked, ns)
		c.feed(ns, now)
		if ns.gen != c.zoneGen[ns.zi] {
			ns.gen, ns.queuedMaybe, ns.settled = c.zoneGen[ns.zi], false, ""
		}
		if c.tripRV != "" {
			if want := c.tripRV; c.held() {
				// Held as it is: record untouched, not counted, not tainted.
				p.heldNodes, p.heldFor = p.heldNodes+1, want
				continue
			}
		}
		ns.quiet = ns.quiet && c.quietPass(ns, now, nowNs, p.breaking)
		if ns.quiet {
			// The posted Ready stands (status ns.ready): the decision
			// stage counts it and takes the tainting decision from it.
			p.items = append(p.items, passItem{ns: ns, quiet: true})
			continue
		}
		ns.leaseNew = false
		held, heldMsg := ns.held, ns.heldMsg
		ns.held, ns.heldMsg = false, ""
		h := c.mon.Observe(now, ns.rec, ns.healthNode())
		if h.TimedOut && p.breaking {
			hold, msg := held, heldMsg
			if !held {
				hold, msg = c.checkLease(ns.node.Name, h.Record.LeaseResourceVersion)
			}
			if hold {
				// Upstream keeps the pass's probes, not the rewrite, and
				// skips the rest; a pending retry of the pods' marking
				// stays pending.
				retry := ns.rec.RetryMarkPods
				ns.rec, ns.quiet = h.RecordWithoutTimeout, false
				ns.rec.RetryMarkPods = retry
				c.emit(Action{Kind: KindHold, Node: ns.node.Name, Reason: ReasonLeaseNotExpired, Message: msg})
				continue
			}
		}
		i := len(p.items)
		p.items = append(p.items, passItem{ns: ns, h: len(p.healths)})
		p.healths = append(p.healths, h)
		if !h.Write {
			ns.rec = h.Record
			continue
		}
		c.emitWrite(nodeStatusAction(ns.node.Name, h), func() {
			ns.rec = h.RecordAfterWrite
			ns.node.Conditions = h.Conditions
			c.markDirty(ns, true, false)
			c.wake(ns)
		}, func() {
			// Upstream skips the node for the rest of the pass: not
			// counted in its zone, not tainted, pods not marked.
			ns.rec = h.Record
			c.pass.items[i].skip = true
			c.wake(ns)
		})
	}
}

// decidePass counts the nodes of the pass in their zones and takes each
// one's tainting decision and pod marking, in name order.
func (c *Controller) decidePass(now time.Time) {
	p := &c.pass
	if !p.full {
		if p.changed {
			// A node or lease changed after the health checks: the nodes
			// the pass left alone are listed as the every-node pass
			// lists them, quiet.
			p.full = true
			for _, ns := range p.nodes {
				if !ns.passItem {
					c.wake(ns)
					ns.passItem = true
					p.items = append(p.items, passItem{ns: ns, quiet: true})
				}
			}
			slices.SortFunc(p.items, func(a, b passItem) int { return compareNames(a.ns, b.ns) })
		}
	}
	// The idle nodes the pass left alone count as they did (none when
	// every node was looked at).
	for zi := range p.counts {
		p.counts[zi].Ready += c.idleCounts[zi].Ready
		p.counts[zi].NotReady += c.idleCounts[zi].NotReady
	}
	defer c.restPass(now)
	for i := range p.items {
		it := &p.items[i]
		ns := it.ns
		if it.skip {
			continue
		}
		if it.quiet {
			if !ns.excluded {
				if ns.ready == conditions.True {
					p.counts[ns.zi].Ready++
				} else {
					p.counts[ns.zi].NotReady++
				}
			}
			c.decideTaint(ns, c.taintStatus(ns, ns.ready), now)
			continue
		}
		h := &p.healths[it.h]
		if !ns.excluded {
			if h.HasCurrentReady && h.CurrentReady.Status == conditions.True {
				p.counts[ns.zi].Ready++
			} else {
				p.counts[ns.zi].NotReady++
			}
		}
		if !h.HasCurrentReady {
			continue
		}
		decide := h.CurrentReady.Status
		if c.cfg.TaintOnObservedReady {
			decide = h.ObservedReady.Status
		}
		c.decideTaint(ns, c.taintStatus(ns, decide), now)
		if h.MarkPodsNotReady && !ns.rules.KeepPodsReady {
			c.markPodsNotReady(ns)
		}
		// Quiet from now on while nothing changes: Ready posted and not
		// rewritten (a timed-out Unknown is not rewritten again), nothing
		// written or marked, no retry pending.
		posted := h.ObservedReady.Status
		ns.quiet = !h.Write && !h.MarkPodsNotReady && ns.rec.Known && ns.rec.HasSavedReady && !ns.rec.RetryMarkPods &&
			h.CurrentReady.Status == posted && (posted == conditions.True || posted == conditions.False || posted == conditions.Unknown) &&
			ns.rec.SavedReady.Status == posted
		ns.ready = posted
		ns.recLease = ns.rec.HasLease
		ns.deadline = ns.rec.ProbeTimestamp.Add(c.cfg.NodeMonitorGracePeriod).UnixNano()
	}
}

// zonePass ends a monitor pass: the zone states and rates from the nodes
// counted, full disruption's untainting, and the probe reset.
func (c *Controller) zonePass(now time.Time) {
	p := &c.pass
	defer c.endPass()
	if p.heldNodes > 0 {
		cache := ""
		if c.leaseView != nil {
			cache = c.leaseView.CacheResourceVersion()
		}
		c.emit(Action{Kind: KindHold, Reason: ReasonLeaseCacheStale, Message: heldMessage(p.heldNodes, p.heldFor, cache)})
	}
	plan, err := c.ev.PlanZones(c.prevZones, p.counts)
	if err != nil {
		return // only an invalid config fails, and New validated it
	}
	c.prevZones = plan.Next
	for _, zp := range plan.Zones {
		if prev, ok := c.zoneStates[zp.Zone]; zp.SetRate || !ok || zp.State != prev {
			c.emit(zoneAction(zp))
		}
		c.zoneStates[zp.Zone] = zp.State
	}
	for _, z := range plan.Removed {
		delete(c.zoneStates, z)
	}
	var all []eviction.TaintNode
	if c.eventDriven() && (plan.StripNoExecuteTaints || plan.ResetProbes) {
		c.wakeAll()
	}
	if plan.StripNoExecuteTaints {
		all = make([]eviction.TaintNode, 0, len(p.nodes))
		for _, ns := range p.nodes {
			all = append(all, ns.taintNode())
			ns.queuedMaybe, ns.settled = false, "" // ApplyPlan takes every node out of its queue
		}
	}
	for _, a := range c.tainter.ApplyPlan(now, plan, all) {
		if ns := c.nodes[a.Node]; ns != nil {
			c.applyTaintAction(ns, a)
		}
	}
	if plan.ResetProbes {
		for _, ns := range p.nodes {
			if ns.rec.Known {
				ns.rec.ProbeTimestamp, ns.rec.ReadyTransitionTimestamp = now, now
				ns.deadline = now.Add(c.cfg.NodeMonitorGracePeriod).UnixNano()
			}
		}
	}
}

// ReasonBoundToNotReadyNode is the Reason of a KindPodsNotReady action
// for pods bound to a node whose Ready condition, as the last monitor pass
// saved it, is not True (upstream's processPod); the marking of a node's
// pods when its Ready turns from True has Reason "NodeNotReady".
const ReasonBoundToNotReadyNode = "BoundToNotReadyNode"

// markBound marks NotReady the ready pods bound since the last Step to a
// node in the view whose saved Ready is not True, as upstream's pod
// handler does on an add or a change of spec.nodeName; one action per
// node, by node name. A node no monitor pass has seen, or whose saved
// status has no Ready condition, has its pods left alone (the next
// transition marks them). When a write fails, its pods are tried again at
// the next Step, RetryDelay later.
func (c *Controller) markBound() {
	if len(c.bound) == 0 {
		return
	}
	keys := c.bound
	c.bound = nil
	slices.Sort(keys)
	type mark struct {
		ns   *nodeState
		pods []*podState
	}
	var marks []mark
	byNode := map[string]int{}
	for _, key := range keys {
		ps := c.pods[key]
		if ps == nil || !ps.bindPending {
			continue
		}
		ps.bindPending = false
		ns := c.nodes[ps.pod.NodeName]
		if ns == nil || ns.rules.KeepPodsReady || !ps.pod.Ready || !ns.rec.Known || !ns.rec.HasSavedReady || ns.rec.SavedReady.Status == conditions.True {
			continue
		}
		i, ok := byNode[ns.node.Name]
		if !ok {
			i = len(marks)
			byNode[ns.node.Name] = i
			marks = append(marks, mark{ns: ns})
		}
		marks[i].pods = append(marks[i].pods, ps)
	}
	slices.SortFunc(marks, func(a, b mark) int { return cmp.Compare(a.ns.node.Name, b.ns.node.Name) })
	for _, m := range marks {
		refs := make([]core.PodRef, len(m.pods))
		for i, ps := range m.pods {
			refs[i] = core.PodRef{Namespace: ps.pod.Namespace, Name: ps.pod.Name, UID: ps.pod.UID}
		}
		slices.SortFunc(refs, comparePodRefs)
		msg := fmt.Sprintf("bound to node %s, whose Ready is %s", m.ns.node.Name, m.ns.rec.SavedReady.Status)
		pods := m.pods
		c.emitWrite(Action{Kind: KindPodsNotReady, Node: m.ns.node.Name, Pods: refs, Reason: ReasonBoundToNotReadyNode, Message: msg}, func() {
			for _, ps := range pods {
				ps.pod.Ready = false
			}
		}, func() {
			for _, ps := range pods {
				c.bindSeen(ps.pod.Key(), ps)
			}
			c.retry = true
		})
	}
}

// resetForgottenZones gives a fresh tainting queue (empty, at
// NodeEvictionRate, its bucket full) to each zone with nodes that the last
// pass counted none of (or that no pass has seen), as upstream's pass
// builds one for a zone it holds no state for: its queued nodes and spent
// tokens are gone. The zone's nodes drop their cached tainter answers at
// the pass (zoneGen).
func (c *Controller) resetForgottenZones() {
	for zi, zone := range c.zoneKeys {
		if c.zoneNodes[zi] == 0 {
			continue
		}
		if _, ok := c.zoneStates[zone]; ok {
			continue
		}
		for len(c.zoneQueues) <= zi {
			c.zoneQueues = append(c.zoneQueues, nil)
		}
		c.zoneQueues[zi] = c.tainter.ResetZone(zone)
		c.zoneGen[zi]++
		if c.eventDriven() {
			for _, ns := range c.nodes {
				if ns.zi == zi {
					c.wake(ns)
				}
			}
		}
	}
}

// endPass forgets the taints the pass listed.
func (c *Controller) endPass() {
	for _, ns := range c.touched {
		ns.passTaints, ns.passTouched = nil, false
	}
	clear(c.touched)
	c.touched = c.touched[:0]
	c.inPass = false
}

// markPodsNotReady sets the Ready condition of the node's ready pods to
// False, as upstream's MarkPodsNotReady; on failure the next pass asks
// again.
func (c *Controller) markPodsNotReady(ns *nodeState) {
	var refs []core.PodRef
	var marked []*podState
	for _, ps := range c.byNode[ns.node.Name] {
		if ps.pod.Ready {
			refs = append(refs, core.PodRef{Namespace: ps.pod.Namespace, Name: ps.pod.Name, UID: ps.pod.UID})
			marked = append(marked, ps)
		}
	}
	slices.SortFunc(refs, comparePodRefs)
	c.emitWrite(Action{Kind: KindPodsNotReady, Node: ns.node.Name, Pods: refs, Reason: "NodeNotReady", Message: "Node is not ready"}, func() {
		for _, ps := range marked {
			ps.pod.Ready = false
		}
	}, func() {
		ns.rec.RetryMarkPods, ns.quiet = true, false
		c.wake(ns)
	})
}

func comparePodRefs(a, b core.PodRef) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.UID, b.UID))
}

func (c *Controller) taintPass(now time.Time) {
	c.taintPasses++
	c.nextPass = time.Time{}
	ups := c.tainter.Step(now, func(name string) (conditions.Status, bool) {
		ns := c.nodes[name]
		if ns == nil {
			return "", false
		}
		return readyStatus(ns.node.Conditions), true
	})
	for _, u := range ups {
		ns := c.nodes[u.Node]
		if ns == nil {
			continue
		}
		c.writeTaints(ns, []taints.Taint{u.Add}, []taints.Taint{u.Remove}, u.Reason, u.Message, func() {
			c.tainter.TaintFailed(now, u)
			ns.queuedMaybe, ns.settled = true, ""
			c.wake(ns)
		})
	}
}

// schedulePass sets the next tainting pass on the 100ms grid counted from
// the first Step, as upstream's ticker.
func (c *Controller) schedulePass(now time.Time) {
	c.nextPass = nextTaintPass(c.tainter, c.start, now)
}

// nextTaintPass returns the first tick of the tainting pass's grid (every
// eviction.NodeTaintPassPeriod from start) at which t has a node due, or
// the zero time when it has none.
func nextTaintPass(t *eviction.NoExecuteTainter, start, now time.Time) time.Time {
	next, ok := t.Next(now)
	if !ok {
		return time.Time{}
	}
	grid := next.Sub(start)
	if rem := grid % eviction.NodeTaintPassPeriod; rem != 0 {
		grid += eviction.NodeTaintPassPeriod - rem
	}
	return start.Add(grid)
}

// nextDue returns the earliest pending eviction, dropping stale entries.
func (c *Controller) nextDue() (time.Time, bool) {
	for len(c.due) > 0 {
		top := c.due[0]
		if c.live(top) {
			return top.at, true
		}
		c.due.pop()
	}
	return time.Time{}, false
}

// live reports whether a heap entry is still the pod's pending eviction.
func (c *Controller) live(it dueItem) bool {
	ns := c.holder(it.node)
	if ns == nil {
		return false
	}
	s, ok := ns.scheduled[it.pod]
	return ok && s.At.Equal(it.at)
}

// evictDue evicts the pods whose scheduled eviction has come, by node and
// pod key; a failed one is retried RetryDelay later.
func (c *Controller) evictDue(now time.Time) {
	var due []dueItem
	for len(c.due) > 0 && !c.due[0].at.After(now) {
		it := c.due.pop()
		if c.live(it) {
			due = append(due, it)
		}
	}
	slices.SortFunc(due, func(a, b dueItem) int { return cmp.Or(cmp.Compare(a.node, b.node), cmp.Compare(a.pod, b.pod)) })
	for _, it := range due {
		ns := c.holder(it.node)
		s := ns.scheduled[it.pod]
		delete(ns.scheduled, it.pod)
		ps := c.pods[it.pod]
		if ps != nil && ps.pod.NodeName == it.node && !ps.pod.Terminating {
			key := it.pod
			c.evict(ns, ps, eviction.TaintManagerEvictionReason, taints.Taint{}, dueMessage(s), func() {
				c.schedule(ns, key, eviction.Scheduled{CreatedAt: s.CreatedAt, At: now.Add(RetryDelay)})
				if c.deleted[ns.node.Name] != ns && c.nodes[ns.node.Name] != ns {
					c.deleted[ns.node.Name] = ns // a deleted node keeps its retried eviction
				}
				c.markDirty(ns, false, true) // as a node update would: the plan sees the retry
				c.retry = true
			})
		}
		if len(ns.scheduled) == 0 && c.deleted[it.node] == ns {
			delete(c.deleted, it.node)
		}
	}
}

func (c *Controller) schedule(ns *nodeState, key string, s eviction.Scheduled) {
	if ns.scheduled == nil {
		ns.scheduled = map[string]eviction.Scheduled{}
	}
	ns.scheduled[key] = s
	c.due.push(dueItem{at: s.At, node: ns.node.Name, pod: key})
}

// evict deletes a pod for its node's NoExecute taints; fail runs when the
// write failed.
func (c *Controller) evict(ns *nodeState, ps *podState, reason string, taint taints.Taint, message string, fail func()) {
	c.emitWrite(Action{Kind: KindEvict, Node: ns.node.Name, Pod: core.PodRef{Namespace: ps.pod.Namespace, Name: ps.pod.Name, UID: ps.pod.UID},
		Taint: taint, Condition: eviction.TaintEvictionCondition(), Reason: reason, Message: message}, func() {
		ps.pod.Terminating = true
	}, fail)
	c.pending[len(c.pending)-1].refuse = func() { ps.refused = true }
}

// cancelGone drops the pending evictions of pods no longer bound to ns
// (deleted, moved or terminating); a deleted or moved pod's is cancelled
// with a KindCancel, as upstream's pod handler cancels it with its event,
// a terminating pod's only dropped.
func (c *Controller) cancelGone(ns *nodeState, bound map[string]*podState) {
	var gone []string
	for key := range ns.scheduled {
		if ps := bound[key]; ps == nil || ps.pod.Terminating {
			delete(ns.scheduled, key) // the pod is gone, moved or terminating
			if ps == nil {
				gone = append(gone, key+"\x00"+ns.goneUIDs[key])
			}
		}
	}
	clear(ns.goneUIDs)
	slices.Sort(gone)
	for _, k := range gone {
		key, uid, _ := strings.Cut(k, "\x00")
		namespace, name, _ := strings.Cut(key, "/")
		c.emit(Action{Kind: KindCancel, Node: ns.node.Name, Pod: core.PodRef{Namespace: namespace, Name: name, UID: uid},
			Reason: "PodDeleted", Message: "pod " + key + " is gone from the node: its eviction is cancelled"})
	}
}

// planNode plans the node's live pods against its NoExecute taints.
func (c *Controller) planNode(now time.Time, ns *nodeState) {
	if c.cfg.NoTaintEviction {
		return
	}
	bound := c.byNode[ns.node.Name]
	live := make([]core.Pod, 0, len(bound))
	for _, ps := range bound {
		if !ps.pod.Terminating && !ps.refused {
			live = append(live, core.Pod{Namespace: ps.pod.Namespace, Name: ps.pod.Name, UID: ps.pod.UID, Tolerations: ns.rules.bound(ps.pod.Tolerations)})
		}
	}
	c.cancelGone(ns, bound)
	for _, d := range c.cfg.NoExecute.PlanNode(now, ns.node.Taints, live, ns.scheduled) {
		key := d.Pod.Key()
		switch d.Action {
		case eviction.NoExecuteEvictNow:
			if old, ok := ns.scheduled[key]; ok && !old.At.After(now) {
				continue // due: evictDue takes it, after every plan of this Step
			}
			if _, ok := ns.scheduled[key]; ok {
				// Upstream cancels the pending eviction (with its event)
				// before it evicts at once.
				delete(ns.scheduled, key)
				c.emit(Action{Kind: KindCancel, Node: ns.node.Name, Pod: core.PodRef{Namespace: d.Pod.Namespace, Name: d.Pod.Name, UID: d.Pod.UID},
					Reason: "EvictNow", Message: "evicted at once instead"})
			}
			c.evict(ns, bound[key], d.Reason, d.Taint, d.Why(), func() {
				c.markDirty(ns, false, true) // planned again, and so evicted again, at the next Step
			})
		case eviction.NoExecuteSchedule, eviction.NoExecuteKeep:
			if old, ok := ns.scheduled[key]; ok && old.At.Equal(d.Scheduled.At) && old.CreatedAt.Equal(d.Scheduled.CreatedAt) {
				continue
			}
			c.schedule(ns, key, d.Scheduled)
			c.emit(Action{Kind: KindSchedule, Node: ns.node.Name, Pod: core.PodRef{Namespace: d.Pod.Namespace, Name: d.Pod.Name, UID: d.Pod.UID},
				Taint: d.Taint, Due: d.At, Reason: d.Reason, Message: d.Why()})
		case eviction.NoExecuteCancel:
			if _, ok := ns.scheduled[key]; ok {
				delete(ns.scheduled, key)
				c.emit(Action{Kind: KindCancel, Node: ns.node.Name, Pod: core.PodRef{Namespace: d.Pod.Namespace, Name: d.Pod.Name, UID: d.Pod.UID},
					Reason: d.Reason, Message: d.Why()})
			}
		}
	}
}

// The actions whose wording the reference implementation of the tests
// shares.

// nodeStatusAction is the write of a monitor pass's rewrite of a node's
// conditions.
func nodeStatusAction(node string, h conditions.Health) Action {
	msg := "Ready=" + string(h.CurrentReady.Status) + " (" + h.CurrentReady.Reason + ")"
	if h.TimedOut {
		msg = fmt.Sprintf("no heartbeat for %v: Ready=%s", h.GracePeriod, h.CurrentReady.Status)
	}
	return Action{Kind: KindNodeStatus, Node: node, Conditions: h.Conditions, Reason: h.CurrentReady.Reason, Message: msg}
}

// zoneAction reports a zone's new state or rate.
func zoneAction(zp eviction.ZonePlan) Action {
	return Action{Kind: KindZone, Zone: eviction.ZoneName(zp.Zone), ZoneState: zp.State, Rate: zp.Rate, Reason: zp.Reason,
		Message: fmt.Sprintf("%s -> %s, %d of %d not ready, tainting rate %g/s", zp.Previous, zp.State, zp.NotReady, zp.Size, zp.Rate)}
}

// dueMessage says why a scheduled eviction fires.
func dueMessage(s eviction.Scheduled) string {
	return fmt.Sprintf("tolerated the node's NoExecute taints for %v", s.At.Sub(s.CreatedAt))
}

// StepAll runs a whole Step at now, counting every write as done: it
// calls Step until the Step is complete and returns all its actions, in
// order, and its Next. It is for callers whose writes cannot fail, a
// simulation or a dry run; a caller whose writes can fail calls Step and
// reports them with Failed.
func (c *Controller) StepAll(now time.Time) Ready {
	r := c.Step(now)
	for r.Next.Equal(c.now) && c.stage != stageIdle {
		more := c.Step(now)
		r.Actions, r.Next = append(r.Actions, more.Actions...), more.Next
	}
	return r
}
