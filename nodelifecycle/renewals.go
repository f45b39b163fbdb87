package nodelifecycle

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/internal/minheap"
)

// Renewals is a node lease's renewals known in advance: a kubelet that
// renews on its own schedule until something changes it. A caller that
// simulates many kubelets gives each node's schedule once (SetRenewals)
// instead of a RenewLease per renewal, and the Controller reads the
// schedule only when it needs the lease: a node whose renewals keep it
// healthy then costs nothing between the passes that could find it timed
// out.
//
// Last must be a pure function of t, non-decreasing in t, and must not
// call the Controller. The Controller asks for times that never go back
// (the passes' times, and the last Step's), so that an implementation may
// generate the renewals as it is asked, and forget the older ones.
type Renewals interface {
	// Last returns the last renewal at or before t (its renew time and
	// the lease's resource version after it); ok is false when there is
	// none at or before t.
	Last(t time.Time) (renewed time.Time, resourceVersion string, ok bool)
}

// SteadyRenewals is a Renewals that can say where it renews steadily: at
// every time t from From on and before End (the zero time: for ever),
// Last(t) has a renewal less than MaxGap before t. With a MaxGap shorter
// than the grace period, such a node cannot time out while it renews, and
// the Controller does not look at its lease in the meantime unless
// something else wakes the node.
type SteadyRenewals interface {
	Renewals
	// Steady returns From, MaxGap and End (see above); a MaxGap of zero or
	// less promises nothing.
	Steady() (from time.Time, maxGap time.Duration, end time.Time)
}

// Periodic is a kubelet that renews its lease every Every from First on,
// until (not at) Until: the renewals are at First, First+Every,
// First+2*Every, ..., each before Until, or for ever when Until is zero.
// The k-th renewal (from 0) writes resource version Version+k, in
// decimal. An Every of zero or less renews once, at First.
type Periodic struct {
	First   time.Time
	Every   time.Duration
	Until   time.Time
	Version uint64
}

// Last returns p's last renewal at or before t.
func (p Periodic) Last(t time.Time) (time.Time, string, bool) {
	if !p.Until.IsZero() && !t.Before(p.Until) {
		t = p.Until.Add(-time.Nanosecond)
	}
	if t.Before(p.First) {
		return time.Time{}, "", false
	}
	k := int64(0)
	if p.Every > 0 {
		k = int64(t.Sub(p.First) / p.Every)
	}
	return p.First.Add(time.Duration(k) * p.Every), strconv.FormatUint(p.Version+uint64(k), 10), true
}

// Steady returns First, Every and Until: every time from First on and
// before Until has a renewal less than Every before it.
func (p Periodic) Steady() (time.Time, time.Duration, time.Time) { return p.First, p.Every, p.Until }

// SetRenewals gives the node ref refers to the lease renewals r, in
// place of the renewals the caller reports one by one: at each monitor
// pass the Controller takes r.Last(now) as the node's lease, as if it had
// been upserted, when it is newer than the lease the view has. A
// RenewLease, UpsertLease or DeleteLease of the node, or SetRenewals
// again, ends r; nil ends it without another. r must agree with the
// leases the Controller has been given: its renewals at or before the
// last Step count as seen, so a changed schedule may change only what
// comes after the last Step (a kubelet that stops gets a schedule that
// ends at its stop; one that comes back, a schedule that starts after
// it). A node that leaves the view (DeleteNode) keeps its lease as of the
// last Step and loses its schedule. A zero ref does nothing.
func (c *Controller) SetRenewals(ref LeaseRef, r Renewals) {
	ns := ref.ns
	if ns == nil || ns.left {
		return
	}
	c.wake(ns)
	ns.renewals = r
}

// feed takes the schedule's lease at t into the view when it is newer,
// as an upsert of it would.
func (c *Controller) feed(ns *nodeState, t time.Time) {
	if ns.renewals == nil {
		return
	}
	at, rv, ok := ns.renewals.Last(t)
	if !ok || (ns.hasLease && !at.After(ns.renew)) {
		return
	}
	ns.hasLease, ns.renew, ns.leaseRV, ns.leaseNew = true, at, rv, true
}

// Event-driven passes (Config.EveryNodePass off).
//
// A node is idle when the last pass that looked at it found nothing to do
// and nothing can change for it before a deadline: it is quiet (its posted
// Ready stands), its tainting decision is settled at that status, no lease
// news wait for it, and no write of it is pending. A pass leaves idle
// nodes alone: their counts in their zones are kept in idleCounts, and a
// heap keeps the first pass time at which each might time out (for a node
// with Renewals, also when its lease must be caught up with, so that the
// passes it missed are still in the history). Everything that could change
// a node's pass (an upsert, a lease, a write of the Controller's, a zone's
// fresh queue, a probe reset) wakes it first: it is visited at the next
// pass like any other. What a pass does is then the every-node pass's,
// action for action.

// idleKey is a node in the heap of idle nodes' deadlines: at in Unix
// nanoseconds; stale when the node's heapAt is no longer at.
type idleKey struct {
	at int64
	ns *nodeState
}

func idleBefore(a, b *idleKey) bool { return a.at < b.at }

// eventDriven reports whether passes skip idle nodes.
func (c *Controller) eventDriven() bool { return !c.cfg.EveryNodePass }

// wake makes ns visited at the next pass: an idle node is first caught up
// with the passes it missed and taken out of its zone's idle count.
func (c *Controller) wake(ns *nodeState) {
	if !c.eventDriven() {
		return
	}
	if ns.idle {
		if ns.renewals != nil && len(c.history) > 0 {
			c.catchUp(ns, c.history[len(c.history)-1])
		}
		ns.idle = false
		c.uncount(ns)
	}
	if !ns.visit && !ns.left {
		ns.visit = true
		c.visit = append(c.visit, ns)
	}
}

// wakeAll wakes every node of the view.
func (c *Controller) wakeAll() {
	for _, ns := range c.nodes {
		c.wake(ns)
	}
}

func (c *Controller) uncount(ns *nodeState) {
	switch ns.counted {
	case countReady:
		c.idleCounts[ns.zi].Ready--
	case countNotReady:
		c.idleCounts[ns.zi].NotReady--
	}
	ns.counted = countNone
}

// How an idle node is counted in its zone.
const (
	countNone     = iota // excluded from disruption
	countReady           // Ready
	countNotReady        // not Ready
)

// countOf is how a quiet node of posted Ready status ready is counted.
func countOf(ns *nodeState) int8 {
	switch {
	case ns.excluded:
		return countNone
	case ns.ready == conditions.True:
		return countReady
	}
	return countNotReady
}

// rest makes ns idle after a pass at now when nothing can change for it
// before its deadline (see above); otherwise it stays to be visited.
func (c *Controller) rest(ns *nodeState, now time.Time) {
	if !c.eventDriven() || ns.left || ns.idle {
		return
	}
	if !ns.quiet || ns.settled != c.taintStatus(ns, ns.ready) || ns.leaseNew || (ns.hasLease && !ns.recLease) || ns.passTouched || ns.held || ns.expecting ||
		ns.gen != c.zoneGen[ns.zi] {
		return
	}
	if ns.ready == conditions.Unknown && c.breaking() {
		// The lease circuit breaker asks about a timed-out Unknown node
		// at every pass.
		return
	}
	if ns.renewals != nil && (!ns.hasLease || !ns.rec.HasLease || ns.rec.LeaseRenewTime.IsZero() || !ns.rec.LeaseRenewTime.Equal(ns.renew)) {
		return
	}
	ns.idle, ns.visit = true, false
	ns.counted = countOf(ns)
	switch ns.counted {
	case countReady:
		c.idleCounts[ns.zi].Ready++
	case countNotReady:
		c.idleCounts[ns.zi].NotReady++
	}
	c.pushIdle(ns, now.UnixNano())
}

// pushIdle puts idle ns in the heap at the first time a pass must look at
// it: its deadline, unless it has timed out already (an Unknown node,
// which stays as it is) or has Renewals (then at most a grace period after
// now, so that its catching up finds the passes it missed in the
// history). A SteadyRenewals kubelet renewing more often than the grace
// period waits until its renewals have ended a grace period ago, or for
// ever: it cannot time out before, and its last renewal at any pass is
// never older than the history.
func (c *Controller) pushIdle(ns *nodeState, nowNs int64) {
	if sr, ok := ns.renewals.(SteadyRenewals); ok {
		// A kubelet renewing more often than the grace period cannot
		// time out while it renews: its lease is read when it is woken,
		// or once its renewals have ended a grace period ago.
		from, gap, end := sr.Steady()
		if grace := c.cfg.NodeMonitorGracePeriod; gap > 0 && gap < grace && nowNs >= from.UnixNano() && (end.IsZero() || end.After(from)) {
			if end.IsZero() {
				return
			}
			if at := end.Add(grace - gap).UnixNano(); at >= nowNs {
				c.pushAt(ns, at)
				return
			}
		}
	}
	at := ns.deadline
	if at < nowNs {
		if ns.renewals == nil {
			return
		}
		at = nowNs + int64(c.cfg.NodeMonitorGracePeriod)
	}
	if ns.renewals == nil && ns.ready == conditions.Unknown {
		return // nothing but a wake changes a quiet Unknown node
	}
	c.pushAt(ns, at)
}

// pushAt puts ns in the heap at at (Unix nanoseconds), once.
func (c *Controller) pushAt(ns *nodeState, at int64) {
	if ns.inHeap && ns.heapAt == at {
		return
	}
	ns.inHeap, ns.heapAt = true, at
	c.idleHeap = minheap.Push(c.idleHeap, idleKey{at: at, ns: ns}, idleBefore)
}

// dueIdle wakes, at the pass at now, the idle nodes that may time out at
// it; an idle node with Renewals is caught up first, and rests again when
// its lease keeps it in time.
func (c *Controller) dueIdle(now time.Time) {
	nowNs := now.UnixNano()
	for len(c.idleHeap) > 0 && c.idleHeap[0].at < nowNs {
		var k idleKey
		k, c.idleHeap = minheap.Pop(c.idleHeap, idleBefore)
		ns := k.ns
		if !ns.inHeap || ns.heapAt != k.at {
			continue
		}
		ns.inHeap = false
		if !ns.idle {
			continue
		}
		if ns.renewals != nil {
			c.catchUp(ns, now)
		}
		if nowNs > ns.deadline && ns.ready != conditions.Unknown {
			c.wake(ns)
			continue
		}
		c.pushIdle(ns, nowNs)
	}
}

// catchUp brings idle ns, which has Renewals, to where the passes up to
// and including the one at t would have left it: the schedule's last
// renewal at t, when newer, is the lease, and the first pass at or after
// it took it as a probe.
func (c *Controller) catchUp(ns *nodeState, t time.Time) {
	at, rv, ok := ns.renewals.Last(t)
	if !ok || !at.After(ns.renew) {
		return
	}
	ns.renew, ns.leaseRV = at, rv
	rec := &ns.rec
	if !rec.LeaseRenewTime.Before(at) {
		return
	}
	i, _ := slices.BinarySearchFunc(c.history, at, func(p, x time.Time) int { return p.Compare(x) })
	if i == len(c.history) {
		i-- // not reached: at is at or before t, the last pass
	}
	probe := c.history[i]
	rec.HasLease, rec.LeaseRenewTime, rec.LeaseResourceVersion, rec.ProbeTimestamp = true, at, rv, probe
	ns.deadline = probe.Add(c.cfg.NodeMonitorGracePeriod).UnixNano()
}

// remember adds the pass at now to the history of passes, dropping those
// more than a grace period older than the pass before it: an idle node is
// caught up at least that often.
func (c *Controller) remember(now time.Time) {
	if n := len(c.history); n > 0 {
		floor := c.history[n-1].Add(-c.cfg.NodeMonitorGracePeriod)
		drop := 0
		for drop < n && c.history[drop].Before(floor) {
			drop++
		}
		c.history = append(c.history[:0], c.history[drop:]...)
	}
	c.history = append(c.history, now)
}

// visitList returns the nodes the pass visits, in name order: the nodes
// that are not idle (a change of the view while the pass is under way
// makes it visit every node instead, so none of these joined after it
// began).
func (c *Controller) visitList() []*nodeState {
	c.compactVisits()
	slices.SortFunc(c.visit, compareNames)
	return c.visit
}

// compactVisits drops from the visit list the nodes that rest or left the
// view.
func (c *Controller) compactVisits() {
	keep := c.visit[:0]
	for _, ns := range c.visit {
		if ns.visit && !ns.left {
			keep = append(keep, ns)
		} else if !ns.idle {
			ns.visit = false
		}
	}
	clear(c.visit[len(keep):])
	c.visit = keep
}

// restPass ends the decisions of a pass at now: the nodes it listed rest
// when they can.
func (c *Controller) restPass(now time.Time) {
	for _, ns := range c.pass.looked {
		ns.passItem = false
	}
	for i := range c.pass.items {
		ns := c.pass.items[i].ns
		ns.passItem = false
		c.rest(ns, now)
	}
	if c.eventDriven() {
		c.compactVisits()
	}
}

func compareNames(a, b *nodeState) int { return strings.Compare(a.node.Name, b.node.Name) }
