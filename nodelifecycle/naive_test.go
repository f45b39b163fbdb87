package nodelifecycle

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/taints"
)

// naive is a deliberately simple reference for Controller: it keeps the
// controllers' memory (health records, queues, zone memory, schedules)
// but recomputes everything else from the whole view at every Step: every
// node's condition taints, every node's NoExecute plan, every pending
// eviction by scanning. The incremental Controller must take the same
// actions.
type naive struct {
	cfg     Config
	tainter *eviction.NoExecuteTainter

	nodes  map[string]core.Node
	leases map[string]Lease
	pods   map[string]PodState

	live   LiveLeases
	tripRV string

	records   map[string]conditions.HealthRecord // never forgotten, as upstream
	seen      map[string]bool
	scheduled map[string]map[string]eviction.Scheduled // by node name, kept when the node is deleted
	goneUID   map[string]map[string]string             // UIDs of pods that left a node, by node and pod key
	bound     map[string]bool                          // pods bound since the last Step
	prev      map[string]eviction.ZoneStatus
	states    map[string]eviction.ZoneState

	started                        bool
	start, last, nextMon, nextPass time.Time

	out   []Action
	apply Apply
	now   time.Time
}

func newNaive(cfg Config) *naive {
	t, err := eviction.NewNoExecuteTainter(cfg.eviction(), cfg.Queue)
	if err != nil {
		panic(err)
	}
	return &naive{cfg: cfg, tainter: t, nodes: map[string]core.Node{}, leases: map[string]Lease{}, pods: map[string]PodState{},
		records: map[string]conditions.HealthRecord{}, seen: map[string]bool{}, scheduled: map[string]map[string]eviction.Scheduled{},
		goneUID: map[string]map[string]string{}, bound: map[string]bool{},
		states: map[string]eviction.ZoneState{}}
}

func (n *naive) UpsertNode(node core.Node) { n.nodes[node.Name] = node }
func (n *naive) DeleteNode(name string) {
	delete(n.nodes, name)
	delete(n.seen, name)
}
func (n *naive) UpsertLease(l Lease)        { n.leases[l.Node] = l }
func (n *naive) SetLiveLeases(l LiveLeases) { n.live = l }
func (n *naive) DeleteLease(node string)    { delete(n.leases, node) }
func (n *naive) UpsertPod(cp core.Pod) {
	p := stateOf(&cp)
	if p.NodeName == "" {
		n.DeletePod(p.Namespace, p.Name)
		return
	}
	if old, ok := n.pods[p.Key()]; !ok || old.NodeName != p.NodeName {
		n.bound[p.Key()] = true
		if ok {
			n.left(old)
		}
	}
	n.pods[p.Key()] = p
}
func (n *naive) DeletePod(ns, name string) {
	if p, ok := n.pods[ns+"/"+name]; ok {
		n.left(p)
	}
	delete(n.pods, ns+"/"+name)
}

// left notes the UID of a pod that leaves its node, for the cancel of its
// pending eviction.
func (n *naive) left(p PodState) {
	if n.goneUID[p.NodeName] == nil {
		n.goneUID[p.NodeName] = map[string]string{}
	}
	n.goneUID[p.NodeName][p.Key()] = p.UID
}

// cancelGone drops the schedules of pods no longer on the node, with a
// cancel for those that left it.
func (n *naive) cancelGone(name string) {
	sched := n.scheduled[name]
	for _, key := range sortedKeys(sched) {
		if p, ok := n.pods[key]; !ok || p.NodeName != name || p.Terminating {
			delete(sched, key)
			if !ok || p.NodeName != name {
				ns, pn, _ := strings.Cut(key, "/")
				_ = n.emit(Action{Kind: KindCancel, Node: name, Pod: core.PodRef{Namespace: ns, Name: pn, UID: n.goneUID[name][key]},
					Reason: "PodDeleted", Message: "pod " + key + " is gone from the node: its eviction is cancelled"})
			}
		}
	}
	delete(n.goneUID, name)
}

// emit records a and applies it at once, as the reference takes every
// outcome before its next decision; the error is the apply function's
// for a write (the other kinds write nothing, so cannot fail).
func (n *naive) emit(a Action) error {
	a.At = n.now
	n.out = append(n.out, a)
	if n.apply != nil && isWrite(a.Kind) {
		return n.apply(a)
	}
	return nil
}

func (n *naive) names() []string { return sortedKeys(n.nodes) }

func (n *naive) podsOn(node string) []PodState {
	var out []PodState
	for _, p := range n.pods {
		if p.NodeName == node {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b PodState) int { return cmp.Compare(a.Key(), b.Key()) })
	return out
}

func (n *naive) taintNode(node core.Node) eviction.TaintNode {
	return eviction.TaintNode{Name: node.Name, UID: node.UID, Zone: eviction.ZoneKey(node.Labels), Taints: node.Taints}
}

// setTaints writes the effective part of a taint change.
func (n *naive) setTaints(name string, add, remove []taints.Taint, reason, msg string) error {
	_, err := n.setTaintsOn(name, n.nodes[name].Taints, add, remove, reason, msg)
	return err
}

// setTaintsOn writes the part of a taint change that changes base, and
// returns the taints base has after it.
func (n *naive) setTaintsOn(name string, base, add, remove []taints.Taint, reason, msg string) ([]taints.Taint, error) {
	node := n.nodes[name]
	var ea, er []taints.Taint
	for _, t := range remove {
		if taints.Exists(base, t) {
			er = append(er, t)
		}
	}
	for _, t := range add {
		removed := false
		for _, r := range er {
			removed = removed || r.MatchTaint(t)
		}
		if !taints.Exists(base, t) || removed {
			ea = append(ea, t)
		}
	}
	if len(ea) == 0 && len(er) == 0 {
		return base, nil
	}
	after := taints.Apply(base, ea, er)
	if err := n.emit(Action{Kind: KindTaints, Node: name, Add: ea, Remove: er, Reason: reason, Message: msg}); err != nil {
		return after, err
	}
	node.Taints = taints.Apply(node.Taints, ea, er)
	n.nodes[name] = node
	return after, nil
}

func (n *naive) Step(now time.Time, apply Apply) Ready {
	if !n.started {
		n.started, n.start, n.last, n.nextMon = true, now, now, now
	}
	if now.Before(n.last) {
		now = n.last
	}
	n.last, n.now, n.apply, n.out = now, now, apply, nil
	retry := false
	mon := n.cfg.monitor()

	// Pods bound since the last Step to a node whose saved Ready is not
	// True are marked NotReady, node by node.
	byNode := map[string][]core.PodRef{}
	for _, key := range sortedKeys(n.bound) {
		p, ok := n.pods[key]
		if !ok || !p.Ready {
			continue
		}
		r := n.records[p.NodeName]
		if _, exists := n.nodes[p.NodeName]; !exists || !r.Known || !r.HasSavedReady || r.SavedReady.Status == conditions.True {
			continue
		}
		byNode[p.NodeName] = append(byNode[p.NodeName], core.PodRef{Namespace: p.Namespace, Name: p.Name, UID: p.UID})
	}
	n.bound = map[string]bool{}
	for _, name := range sortedKeys(byNode) {
		refs := byNode[name]
		msg := "bound to node " + name + ", whose Ready is " + string(n.records[name].SavedReady.Status)
		if n.emit(Action{Kind: KindPodsNotReady, Node: name, Pods: refs, Reason: ReasonBoundToNotReadyNode, Message: msg}) != nil {
			for _, ref := range refs {
				n.bound[ref.Key()] = true
			}
			retry = true
			continue
		}
		for _, ref := range refs {
			p := n.pods[ref.Key()]
			p.Ready = false
			n.pods[ref.Key()] = p
		}
	}

	if !now.Before(n.nextMon) {
		names := n.names()
		// Zones the last pass did not count get a fresh queue.
		reset := map[string]bool{}
		for _, name := range names {
			zone := eviction.ZoneKey(n.nodes[name].Labels)
			if _, ok := n.states[zone]; !ok && !reset[zone] {
				reset[zone] = true
				n.tainter.ResetZone(zone)
			}
		}
		// The pass decides from the taints as listed when it began.
		listed := map[string][]taints.Taint{}
		for _, name := range names {
			listed[name] = n.nodes[name].Taints
		}
		passNode := func(name string) eviction.TaintNode {
			tn := n.taintNode(n.nodes[name])
			if !n.cfg.FreshTaintsInPass {
				tn.Taints = listed[name]
			}
			return tn
		}
		for _, name := range names {
			if !n.seen[name] {
				n.seen[name] = true
				node := n.nodes[name]
				n.tainter.Queue(eviction.ZoneKey(node.Labels))
				a := n.tainter.MarkReachable(n.taintNode(node))
				_ = n.setTaints(name, a.Add, a.Remove, a.Reason, a.Message)
			}
		}
		var zn []eviction.ZoneNode
		held, heldFor := 0, ""
		// Every node's health first, in name order, with its status
		// write; then the decisions of the nodes whose write went
		// through.
		type checked struct {
			name string
			h    conditions.Health
		}
		var health []checked
		for _, name := range names {
			node := n.nodes[name]
			// The breaker, tripped, holds every node while the cache is
			// behind the version it waits for.
			if n.tripRV != "" {
				order, ok := compareResourceVersions(n.tripRV, n.live.CacheResourceVersion())
				if ok && order > 0 {
					held, heldFor = held+1, n.tripRV
					continue
				}
				n.tripRV = ""
			}
			l, hasLease := n.leases[name]
			h := mon.Observe(now, n.records[name], conditions.NodeObservation{Name: name, CreationTimestamp: node.CreationTimestamp, Conditions: node.Conditions,
				HasLease: hasLease, LeaseRenewTime: l.RenewTime, LeaseResourceVersion: l.ResourceVersion})
			if h.TimedOut && n.cfg.LeaseCircuitBreaker && n.live != nil {
				rv, found, err := n.live.LiveLease(name)
				if err != nil || (found && rv != h.Record.LeaseResourceVersion) {
					var msg string
					if err != nil {
						msg = "cannot read the live lease to confirm the expiry: " + err.Error()
					} else {
						if order, ok := compareResourceVersions(n.tripRV, rv); n.tripRV == "" || !ok || order < 0 {
							n.tripRV = rv
						}
						cached := h.Record.LeaseResourceVersion
						if cached == "" {
							cached = "none"
						}
						msg = "the live lease (resource version " + rv + ") is not the cached one (" + cached +
							"): node health waits until the lease cache reaches " + n.tripRV
					}
					// Upstream returns before the Unknown rewrite: the
					// saved status stays as the node posted it.
					r := h.RecordWithoutTimeout
					r.RetryMarkPods = n.records[name].RetryMarkPods
					n.records[name] = r
					_ = n.emit(Action{Kind: KindHold, Node: name, Reason: ReasonLeaseNotExpired, Message: msg})
					continue
				}
			}
			if h.Write {
				if n.emit(nodeStatusAction(name, h)) != nil {
					n.records[name] = h.Record
					zn = append(zn, eviction.ZoneNode{Name: name, Zone: eviction.ZoneKey(node.Labels), Excluded: true})
					continue
				}
				n.records[name] = h.RecordAfterWrite
				node.Conditions = h.Conditions
				n.nodes[name] = node
			} else {
				n.records[name] = h.Record
			}
			health = append(health, checked{name, h})
		}
		for _, ch := range health {
			name, h, node := ch.name, ch.h, n.nodes[ch.name]
			zone := eviction.ZoneKey(node.Labels)
			var ready conditions.Status
			if h.HasCurrentReady {
				ready = h.CurrentReady.Status
			}
			zn = append(zn, eviction.ZoneNode{Name: name, Zone: zone, Ready: ready, Excluded: eviction.IsExcludedFromDisruption(node.Labels)})
			if !h.HasCurrentReady {
				continue
			}
			decide := h.CurrentReady.Status
			if n.cfg.TaintOnObservedReady {
				decide = h.ObservedReady.Status
			}
			a := n.tainter.Observe(now, passNode(name), decide)
			_ = n.setTaints(name, a.Add, a.Remove, a.Reason, a.Message)
			if h.MarkPodsNotReady {
				var refs []core.PodRef
				for _, p := range n.podsOn(name) {
					if p.Ready {
						refs = append(refs, core.PodRef{Namespace: p.Namespace, Name: p.Name, UID: p.UID})
					}
				}
				if n.emit(Action{Kind: KindPodsNotReady, Node: name, Pods: refs, Reason: "NodeNotReady", Message: "Node is not ready"}) != nil {
					r := n.records[name]
					r.RetryMarkPods = true
					n.records[name] = r
				} else {
					for _, ref := range refs {
						p := n.pods[ref.Key()]
						p.Ready = false
						n.pods[ref.Key()] = p
					}
				}
			}
		}
		if held > 0 {
			_ = n.emit(Action{Kind: KindHold, Reason: ReasonLeaseCacheStale, Message: heldMessage(held, heldFor, n.live.CacheResourceVersion())})
		}
		plan, err := n.cfg.eviction().PlanDisruption(n.prev, zn)
		if err != nil {
			panic(err)
		}
		n.prev = plan.Next
		for _, zp := range plan.Zones {
			if prev, ok := n.states[zp.Zone]; zp.SetRate || !ok || zp.State != prev {
				_ = n.emit(zoneAction(zp))
			}
			n.states[zp.Zone] = zp.State
		}
		for _, z := range plan.Removed {
			delete(n.states, z)
		}
		var all []eviction.TaintNode
		if plan.StripNoExecuteTaints {
			for _, name := range names {
				all = append(all, passNode(name))
			}
		}
		for _, a := range n.tainter.ApplyPlan(now, plan, all) {
			if _, ok := n.nodes[a.Node]; ok {
				_ = n.setTaints(a.Node, a.Add, a.Remove, a.Reason, a.Message)
			}
		}
		if plan.ResetProbes {
			for _, name := range names {
				if r := n.records[name]; r.Known {
					r.ProbeTimestamp, r.ReadyTransitionTimestamp = now, now
					n.records[name] = r
				}
			}
		}
		for !n.nextMon.After(now) {
			n.nextMon = n.nextMon.Add(n.cfg.NodeMonitorPeriod)
		}
	}

	for _, name := range n.names() {
		node := n.nodes[name]
		add, remove := taints.ReconcileConditionTaints(now, node.Taints, node.Conditions, node.Unschedulable)
		if n.setTaints(name, add, remove, "ConditionTaint", "condition taints follow the node's conditions") != nil {
			retry = true
		}
	}

	n.schedulePass(now)
	if !n.nextPass.IsZero() && !now.Before(n.nextPass) {
		n.nextPass = time.Time{}
		expect := map[string][]taints.Taint{}
		for _, u := range n.tainter.Step(now, func(name string) (conditions.Status, bool) {
			node, ok := n.nodes[name]
			if !ok {
				return "", false
			}
			return readyStatus(node.Conditions), true
		}) {
			if _, ok := n.nodes[u.Node]; !ok {
				continue
			}
			// A node the pass wrote is seen as its writes would leave it,
			// whether they went through or not (a node queued in two
			// zones).
			base, ok := expect[u.Node]
			if !ok {
				base = n.nodes[u.Node].Taints
			}
			after, err := n.setTaintsOn(u.Node, base, []taints.Taint{u.Add}, []taints.Taint{u.Remove}, u.Reason, u.Message)
			expect[u.Node] = after
			failed := err != nil
			if failed {
				n.tainter.TaintFailed(now, u)
			}
		}
	}

	// Every node's NoExecute plan.
	for _, name := range n.names() {
		node := n.nodes[name]
		sched := n.scheduled[name]
		if sched == nil {
			sched = map[string]eviction.Scheduled{}
			n.scheduled[name] = sched
		}
		var live []core.Pod
		for _, p := range n.podsOn(name) {
			if !p.Terminating {
				live = append(live, core.Pod{Namespace: p.Namespace, Name: p.Name, UID: p.UID, Tolerations: p.Tolerations})
			}
		}
		n.cancelGone(name)
		for _, d := range n.cfg.NoExecute.PlanNode(now, node.Taints, live, sched) {
			key := d.Pod.Key()
			ref := core.PodRef{Namespace: d.Pod.Namespace, Name: d.Pod.Name, UID: d.Pod.UID}
			switch d.Action {
			case eviction.NoExecuteEvictNow:
				if old, ok := sched[key]; ok && !old.At.After(now) {
					continue
				}
				if _, ok := sched[key]; ok {
					delete(sched, key)
					_ = n.emit(Action{Kind: KindCancel, Node: name, Pod: ref, Reason: "EvictNow", Message: "evicted at once instead"})
				}
				if n.evict(name, n.pods[key], d.Reason, d.Taint, d.Why()) != nil {
					retry = true
				}
			case eviction.NoExecuteSchedule, eviction.NoExecuteKeep:
				if old, ok := sched[key]; ok && old == d.Scheduled {
					continue
				}
				sched[key] = d.Scheduled
				_ = n.emit(Action{Kind: KindSchedule, Node: name, Pod: ref, Taint: d.Taint, Due: d.At, Reason: d.Reason, Message: d.Why()})
			case eviction.NoExecuteCancel:
				if _, ok := sched[key]; ok {
					delete(sched, key)
					_ = n.emit(Action{Kind: KindCancel, Node: name, Pod: ref, Reason: d.Reason, Message: d.Why()})
				}
			}
		}
	}

	// Deleted nodes keep their schedules; those of pods that left are
	// cancelled.
	for _, name := range sortedKeys(n.scheduled) {
		if _, ok := n.nodes[name]; !ok {
			n.cancelGone(name)
		}
	}

	// Scheduled evictions that are due, by node and pod (deleted nodes'
	// included).
	for _, name := range sortedKeys(n.scheduled) {
		sched := n.scheduled[name]
		for _, key := range sortedKeys(sched) {
			s := sched[key]
			if s.At.After(now) {
				continue
			}
			delete(sched, key)
			p, ok := n.pods[key]
			if !ok || p.NodeName != name || p.Terminating {
				continue
			}
			if n.evict(name, p, eviction.TaintManagerEvictionReason, taints.Taint{}, dueMessage(s)) != nil {
				sched[key] = eviction.Scheduled{CreatedAt: s.CreatedAt, At: now.Add(RetryDelay)}
				retry = true
			}
		}
	}

	n.schedulePass(now)
	next := n.nextMon
	if !n.nextPass.IsZero() && n.nextPass.Before(next) {
		next = n.nextPass
	}
	for _, sched := range n.scheduled {
		for _, s := range sched {
			if s.At.Before(next) {
				next = s.At
			}
		}
	}
	if retry && now.Add(RetryDelay).Before(next) {
		next = now.Add(RetryDelay)
	}
	out := n.out
	n.out, n.apply = nil, nil
	return Ready{Actions: out, Next: next}
}

// schedulePass sets the next tainting pass on the 100ms grid.
func (n *naive) schedulePass(now time.Time) { n.nextPass = nextTaintPass(n.tainter, n.start, now) }

func (n *naive) evict(node string, p PodState, reason string, taint taints.Taint, msg string) error {
	err := n.emit(Action{Kind: KindEvict, Node: node, Pod: core.PodRef{Namespace: p.Namespace, Name: p.Name, UID: p.UID},
		Taint: taint, Condition: eviction.TaintEvictionCondition(), Reason: reason, Message: msg})
	if err == nil {
		p.Terminating = true
		n.pods[p.Key()] = p
	}
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
