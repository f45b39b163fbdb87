package eviction

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/taints"
)

// NotReadyTaint returns the NoExecute taint the node lifecycle controller
// puts on a node whose Ready condition is False. It and UnreachableTaint
// are kept mutually exclusive, mirroring the node's Ready condition.
func NotReadyTaint() taints.Taint {
	return taints.Taint{Key: taints.TaintNodeNotReady, Effect: taints.TaintEffectNoExecute}
}

// UnreachableTaint returns the NoExecute taint the node lifecycle
// controller puts on a node whose Ready condition is Unknown.
func UnreachableTaint() taints.Taint {
	return taints.Taint{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute}
}

// NodeTaintRetryDelay is how long the tainting pass waits before retrying a
// node it could not read or that has no Ready condition (upstream: 50ms).
const NodeTaintRetryDelay = 50 * time.Millisecond

// NodeTaintPassPeriod is how often upstream runs the tainting pass over the
// zone queues (scheduler.NodeEvictionPeriod, 100ms).
const NodeTaintPassPeriod = 100 * time.Millisecond

// TaintNode is what the tainter needs to know about a node.
type TaintNode struct {
	// Name and UID identify the node.
	Name, UID string
	// Zone is the node's zone key (ZoneKey of its labels).
	Zone string
	// Taints are the node's current taints.
	Taints []taints.Taint
}

// TaintActionKind says what a TaintAction asks for.
type TaintActionKind string

// Kinds of TaintAction.
const (
	// TaintActionNone: nothing to write.
	TaintActionNone TaintActionKind = "None"
	// TaintActionSwap: swap one NoExecute taint for the other now, without
	// waiting for the zone's rate limit.
	TaintActionSwap TaintActionKind = "Swap"
	// TaintActionQueued: the node was added to its zone's tainting queue;
	// the tainting pass will taint it at the zone's rate.
	TaintActionQueued TaintActionKind = "Queued"
	// TaintActionUntaint: remove the node's NoExecute taints listed in
	// Remove (possibly none) and, if Dequeued, the node left its queue.
	TaintActionUntaint TaintActionKind = "Untaint"
)

// TaintAction is the tainter's decision for one node in a monitor pass.
type TaintAction struct {
	// Node and Zone name the node and its zone key.
	Node, Zone string
	// Kind is what to do.
	Kind TaintActionKind
	// Add and Remove are the taints to add (with TimeAdded set) and remove.
	Add, Remove []taints.Taint
	// Dequeued is true when the node was taken out of its zone's queue and
	// dedupe set.
	Dequeued bool
	// Reason is machine-readable; Message says the same for people,
	// without naming the node (Node does).
	Reason, Message string
}

// TaintUpdate is a taint write the tainting pass decided.
type TaintUpdate struct {
	// Node, UID and Zone identify the node and its zone queue.
	Node, UID, Zone string
	// Add is the taint to add, TimeAdded set to the pass's now; Remove the
	// opposite taint, to remove if present.
	Add, Remove taints.Taint
	// Reason is "NodeNotReady" or "NodeUnreachable"; Message says the same
	// for people ("Ready is Unknown"), without naming the node or the
	// taints (the fields do).
	Reason, Message string
}

// NoExecuteTainter keeps the per-zone tainting queues of the node lifecycle
// controller and decides, from each node's observed Ready status, which
// NoExecute taints to add, swap and remove. It is a synchronous state
// machine: call Observe for each node in every monitor pass, ApplyPlan with
// the pass's DisruptionPlan, and Step every NodeTaintPassPeriod (or at the
// time Next gives). It never writes anything; callers apply the returned
// actions and updates. Not safe for concurrent use.
//
// There is no zero value: use NewNoExecuteTainter.
type NoExecuteTainter struct {
	cfg   Config
	rate  float64
	opts  QueueOptions
	zones map[string]*RateLimitedQueue
	keys  []string // sorted zone keys
}

// NewNoExecuteTainter returns a tainter whose new zone queues start at
// cfg.NodeEvictionRate (a zone's own, Config.Zones), or an error if cfg is
// invalid.
func NewNoExecuteTainter(cfg Config, opts QueueOptions) (*NoExecuteTainter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &NoExecuteTainter{cfg: cfg, rate: cfg.NodeEvictionRate, opts: opts, zones: make(map[string]*RateLimitedQueue)}, nil
}

// Queue returns the tainting queue of zone, creating it at the normal rate
// if the zone is new (upstream's addPodEvictorForNewZone). Zones are never
// forgotten, as upstream.
func (t *NoExecuteTainter) Queue(zone string) *RateLimitedQueue {
	q, ok := t.zones[zone]
	if !ok {
		q, _ = NewRateLimitedQueue(t.zoneRate(zone), t.opts) // the rates were validated
		t.zones[zone] = q
		i, _ := slices.BinarySearch(t.keys, zone)
		t.keys = slices.Insert(t.keys, i, zone)
	}
	return q
}

// ResetZone gives the zone a new, empty queue at the tainter's rate, its
// bucket full, in place of the one it had, and returns it: what upstream's
// node lifecycle controller builds when a pass finds a node in a zone it
// holds no state for (addPodEvictorForNewZone), which is also the case of
// a zone an earlier pass forgot because it counted none of its nodes
// (DisruptionPlan.Removed; a zone whose nodes are all excluded from
// disruption checks is forgotten at every pass).
func (t *NoExecuteTainter) ResetZone(zone string) *RateLimitedQueue {
	if _, ok := t.zones[zone]; !ok {
		return t.Queue(zone)
	}
	q, _ := NewRateLimitedQueue(t.zoneRate(zone), t.opts) // the rates were validated
	t.zones[zone] = q
	return q
}

// zoneRate is the rate a new queue of zone starts at: its
// NodeEvictionRate (Config.Zones).
func (t *NoExecuteTainter) zoneRate(zone string) float64 {
	if len(t.cfg.Zones) == 0 {
		return t.rate
	}
	return t.cfg.ForZone(zone).NodeEvictionRate
}

// Zones returns the keys of the zones that have a queue, sorted.
func (t *NoExecuteTainter) Zones() []string { return slices.Clone(t.keys) }

// Observe decides, in a monitor pass, what the node's Ready status means for
// its NoExecute taints, as upstream's processTaintBaseEviction. Upstream
// passes the status after the pass's own rewrite
// (conditions.Health.CurrentReady) since v1.29, and the status as posted
// (Health.ObservedReady, a one-pass lag) before (kubernetes#120815):
//
//   - False: if the node has the unreachable taint, swap it for not-ready at
//     once; otherwise queue the node (first dropping it from the dedupe set
//     if it lacks the not-ready taint, so that a node tainted before and
//     untainted since can be queued again; a queued node still waiting is
//     thus re-added at every pass, due at that pass, as upstream);
//   - Unknown: the mirror image, with the taints exchanged;
//   - True: remove both taints and take the node out of its queue
//     (MarkReachable);
//   - anything else: nothing.
func (t *NoExecuteTainter) Observe(now time.Time, n TaintNode, observedReady conditions.Status) TaintAction {
	var want, other taints.Taint
	switch observedReady {
	case conditions.False:
		want, other = NotReadyTaint(), UnreachableTaint()
	case conditions.Unknown:
		want, other = UnreachableTaint(), NotReadyTaint()
	case conditions.True:
		return t.MarkReachable(n)
	default:
		return TaintAction{Node: n.Name, Zone: n.Zone, Kind: TaintActionNone, Reason: "UnknownReadyStatus",
			Message: fmt.Sprintf("Ready status %q is not True, False or Unknown; nothing to do", observedReady)}
	}
	if taints.Exists(n.Taints, other) {
		add := want
		add.TimeAdded = now
		return TaintAction{Node: n.Name, Zone: n.Zone, Kind: TaintActionSwap, Add: []taints.Taint{add}, Remove: []taints.Taint{other},
			Reason: "SwapTaint", Message: "Ready is " + string(observedReady) + ": the other NoExecute taint is swapped at once"}
	}
	q := t.Queue(n.Zone)
	added := false
	if !taints.Exists(n.Taints, want) {
		// Out of the dedupe set and in again: a node still waiting goes to
		// the back, due now (in place when it is queued).
		if added = q.Requeue(now, n.Name, n.UID); !added {
			q.Remove(n.Name)
		}
	}
	if added || q.Add(now, n.Name, n.UID) {
		// Concatenated, not formatted: a node waiting for its turn is
		// queued again at every pass, as upstream.
		return TaintAction{Node: n.Name, Zone: n.Zone, Kind: TaintActionQueued, Reason: "Queued",
			Message: "Ready is " + string(observedReady) + ", queued for the " + want.Key + ":" + string(want.Effect) +
				" taint in zone " + strconv.Quote(ZoneName(n.Zone))}
	}
	return TaintAction{Node: n.Name, Zone: n.Zone, Kind: TaintActionNone, Reason: "AlreadyQueued",
		// Concatenated, not formatted: this is the answer for every node
		// of an outage on every pass.
		Message: "Ready is " + string(observedReady) + ", already queued or tainted"}
}

// MarkReachable removes the node's NoExecute taints and takes it out of its
// zone's queue and dedupe set, as upstream's markNodeAsReachable. Upstream
// does this when a node is Ready, when the controller first sees a node
// (so a controller restart clears these taints), and for every node when
// the cluster enters full disruption.
func (t *NoExecuteTainter) MarkReachable(n TaintNode) TaintAction {
	a := TaintAction{Node: n.Name, Zone: n.Zone, Kind: TaintActionUntaint}
	for _, tt := range [...]taints.Taint{UnreachableTaint(), NotReadyTaint()} {
		if taints.Exists(n.Taints, tt) {
			a.Remove = append(a.Remove, tt)
		}
	}
	if q, ok := t.zones[n.Zone]; ok {
		a.Dequeued = q.Remove(n.Name)
	}
	if len(a.Remove) == 0 && !a.Dequeued {
		a.Kind, a.Reason = TaintActionNone, "NotTainted"
		// Concatenated, not formatted: this is the answer for every Ready
		// node on every pass.
		a.Message = "no NoExecute taint to remove"
		return a
	}
	a.Reason = "NodeReachable"
	a.Message = "marked reachable: its NoExecute taints come off"
	return a
}

// ApplyPlan sets the zone queues' rates as plan says, and when the plan
// enters full disruption returns the MarkReachable action of every node in
// nodes that has something to undo. Call it after the pass's Observe calls,
// as upstream runs handleDisruption after the per-node work.
func (t *NoExecuteTainter) ApplyPlan(now time.Time, plan DisruptionPlan, nodes []TaintNode) []TaintAction {
	var out []TaintAction
	if plan.StripNoExecuteTaints {
		for i := range nodes {
			if a := t.MarkReachable(nodes[i]); a.Kind != TaintActionNone {
				out = append(out, a)
			}
		}
	}
	for _, zp := range plan.Zones {
		if zp.SetRate {
			_ = t.Queue(zp.Zone).SetRate(now, zp.Rate) // plan rates come from a validated Config
		}
	}
	return out
}

// Step runs one tainting pass at now over every zone queue, in zone key
// order, as upstream's doNoExecuteTaintingPass. For each item Try hands
// out, ready reports the node's current Ready status and whether the node
// still exists:
//
//   - a node that is gone is dropped;
//   - a node without a Ready condition (status "") is retried after
//     NodeTaintRetryDelay;
//   - False yields a not-ready taint update, Unknown an unreachable one;
//   - True (or any other status) drops the item: the node is healthy again.
//
// Updates are counted as written; call TaintFailed for one that fails.
//
// ready may call any method of t: the pass covers the zones there were when
// it started (a zone Observe adds from inside ready waits for the next
// pass), what ready does to a zone's queue follows RateLimitedQueue.Try,
// and a Step called from inside ready skips the zone whose queue is being
// processed.
func (t *NoExecuteTainter) Step(now time.Time, ready func(node string) (status conditions.Status, found bool)) []TaintUpdate {
	var out []TaintUpdate
	for _, zone := range slices.Clone(t.keys) {
		t.zones[zone].Try(now, func(it Item) (bool, time.Duration) {
			status, found := ready(it.Name)
			if !found {
				return true, 0
			}
			u := TaintUpdate{Node: it.Name, UID: it.UID, Zone: zone}
			switch status {
			case "":
				return false, NodeTaintRetryDelay
			case conditions.False:
				u.Add, u.Remove, u.Reason = NotReadyTaint(), UnreachableTaint(), "NodeNotReady"
			case conditions.Unknown:
				u.Add, u.Remove, u.Reason = UnreachableTaint(), NotReadyTaint(), "NodeUnreachable"
			default:
				return true, 0
			}
			u.Add.TimeAdded = now
			u.Message = "Ready is " + string(status)
			out = append(out, u)
			return true, 0
		})
	}
	return out
}

// TaintFailed puts the node of a failed TaintUpdate back in its zone queue,
// due 1ns after now, as upstream retries a failed swap.
func (t *NoExecuteTainter) TaintFailed(now time.Time, u TaintUpdate) {
	t.Queue(u.Zone).Retry(u.Node, u.UID, now.Add(1))
}

// Next returns the earliest time, not before now, at which Step could
// taint a node, and false when no zone queue has work it can do.
func (t *NoExecuteTainter) Next(now time.Time) (time.Time, bool) {
	var best time.Time
	found := false
	for _, zone := range t.keys {
		if at, ok := t.zones[zone].Next(now); ok && (!found || at.Before(best)) {
			best, found = at, true
		}
	}
	return best, found
}
