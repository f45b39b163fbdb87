package nodelifecycle

import (
	"cmp"
	"slices"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/internal/minheap"
	"github.com/nodelife/nodelife/taints"
)

// Controller is the node lifecycle controller and the taint eviction
// controller of kube-controller-manager composed into one synchronous state
// machine. It holds a view of the cluster (nodes, node leases, bound pods),
// which the caller keeps current with the Upsert and Delete methods, and the
// controllers' own memory (health records, zone states, tainting queues,
// scheduled evictions). Step decides, at the time it is given, what the
// controllers would do, and returns the actions in order and when it next
// needs to run.
//
// The Controller expects its own writes to succeed and updates its view
// as if they did (a written Ready=Unknown, an added taint, a deleted pod)
// unless the caller reports with Failed that one did not; it then retries
// as upstream retries. The caller's later upserts of the same objects, as
// an informer delivers them, change nothing.
//
// There is no zero value: use New. A Controller is not safe for concurrent
// use; it reads no clock and starts no goroutine.
type Controller struct {
	cfg     Config
	mon     conditions.MonitorConfig
	ev      eviction.Config
	tainter *eviction.NoExecuteTainter

	nodes      map[string]*nodeState
	order      []*nodeState // nodes sorted by name; rebuilt when membership changes
	orderStale bool
	dirty      []*nodeState         // nodes with a pending NoSchedule reconcile or NoExecute plan
	leases     map[string]Lease     // leases of nodes not in the view; the others' are in their nodeState
	pods       map[string]*podState // by namespace/name
	bound      []string             // keys of pods bound since the last Step (new, or moved to another node)
	byNode     map[string]map[string]*podState
	gone       map[string]conditions.HealthRecord // records of deleted nodes, kept as upstream keeps them
	// deleted holds the deleted nodes that still have pending evictions:
	// upstream's taint eviction controller keeps them (they fire, or are
	// cancelled when the pod goes), and a node created again under the name
	// takes them over.
	deleted map[string]*nodeState

	prevZones  map[string]eviction.ZoneStatus
	zoneStates map[string]eviction.ZoneState
	due        dueHeap

	// leaseView answers the lease circuit breaker (nil: the cache is live);
	// tripRV is the live lease resource version the breaker waits for the
	// cache to reach ("" when it is not tripped).
	leaseView LiveLeases
	tripRV    string

	inPass  bool         // a monitor pass is running
	touched []*nodeState // nodes whose taints the running pass wrote

	started     bool
	start, last time.Time
	nextMonitor time.Time
	nextPass    time.Time
	passes      int
	visits      int
	unseen      int // nodes no monitor pass has seen yet
	taintPasses int

	zoneIdx  map[string]int // zone keys interned, so that a pass counts by index
	zoneKeys []string
	// zoneNodes counts the nodes in the view of each interned zone;
	// zoneGen counts the zone's fresh queues (resetForgottenZones), so
	// that a node's cached tainter answers are dropped when its zone's
	// queue is replaced.
	zoneNodes []int
	zoneGen   []uint32
	// zoneQueues caches the tainter's queue of each interned zone (the
	// tainter never forgets a zone).
	zoneQueues []*eviction.RateLimitedQueue

	// Event-driven passes (renewals.go): the nodes to visit at the next
	// pass (every node that is not idle), the idle nodes' counts by zone
	// index, the heap of their deadlines, and the times of the recent
	// passes.
	visit      []*nodeState
	idleCounts []eviction.ZoneCount
	idleHeap   []idleKey
	history    []time.Time

	// The Step under way: its stage (stageIdle between Steps), its
	// instant, its actions so far, whether something must be retried
	// RetryDelay later, the monitor pass, and the writes of the last Ready
	// whose outcomes the next call takes in.
	stage   int
	now     time.Time
	actions []Action
	retry   bool
	pass    pass
	pending []pendingWrite
	// expecting are the nodes with a taint write in pending.
	expecting []*nodeState
	seq       uint64 // the last action's number
}

type nodeState struct {
	// The fields a quiet monitor pass reads come first, on one cache line.

	// quiet is set when the last pass found the node's posted Ready
	// standing (not rewritten), with nothing to write or mark, and nothing
	// about the node object has changed since: the next pass can take the
	// fast path (quietPass).
	quiet bool
	// leaseNew is set by a lease upsert or delete since the node's last
	// pass (a quiet pass need not look at the lease otherwise).
	leaseNew bool
	hasLease bool
	excluded bool
	// recLease mirrors rec.HasLease for the quiet pass.
	recLease bool
	// passTouched is set while passTaints holds the taints the running
	// pass listed.
	passTouched bool
	ready       conditions.Status // the posted Ready status, while quiet
	// settled caches the last status for which the tainter had nothing to
	// do on this node; any change to its taints or to its queue
	// membership clears it.
	settled conditions.Status
	zi      int    // index of zone in Controller.zoneKeys
	gen     uint32 // Controller.zoneGen[zi] when settled and queuedMaybe were last valid
	// deadline is the record's probe timestamp plus the grace period, in
	// Unix nanoseconds, while quiet.
	deadline int64

	node    core.Node
	zone    string
	renew   time.Time
	leaseRV string
	rec     conditions.HealthRecord
	seen    bool // a monitor pass has seen it (upstream's knownNodeSet)
	left    bool // DeleteNode took it out of the view (LeaseRef); while false, c.nodes[node.Name] is this state
	// held is set, with heldMsg, when the node's quiet pass asked the
	// lease circuit breaker and was told to hold: the full path that
	// follows takes that answer instead of asking again.
	held    bool
	heldMsg string
	// queuedMaybe is false when the node is surely out of its zone's tainting
	// queue and dedupe set (the tainter last took it out), so that a
	// pass can skip asking the queue.
	queuedMaybe bool

	scheduled map[string]eviction.Scheduled // pending evictions by pod key
	// goneUIDs are the UIDs of pods with a pending eviction that left the
	// node (deleted or moved) since its last plan, for their KindCancel.
	goneUIDs map[string]string

	// passTaints are the node's taints as the running monitor pass listed
	// them, kept when the pass writes its taints (passTouched): upstream's
	// pass decides from that list, not from its own writes.
	passTaints []taints.Taint

	// expect is, while expecting, the node's taints once the taint writes
	// of the last Ready succeed.
	expect    []taints.Taint
	expecting bool

	// Event-driven passes (renewals.go): idle nodes are left alone by
	// passes (counted in their zone as counted says) until woken; visit
	// is set while the node is in Controller.visit; inHeap and heapAt say
	// where the node waits in Controller.idleHeap; passItem is set while
	// the pass under way lists it. renewals is the node's lease schedule
	// (SetRenewals), nil when the caller reports each renewal.
	idle     bool
	visit    bool
	inHeap   bool
	passItem bool
	counted  int8
	heapAt   int64
	renewals Renewals

	// rules are the NodePolicy's for the node as last upserted.
	rules NodeRules

	reconcile bool // condition NoSchedule taints to reconcile
	plan      bool // NoExecute plan to redo
	queued    bool // in Controller.dirty
}

type podState struct {
	pod PodState
	// bindPending is set while the pod is in Controller.bound.
	bindPending bool
	// refused is set when the caller refused the pod's eviction
	// (Refused): it is not planned until it or its node's NoExecute
	// taints or rules change.
	refused bool
}

// New returns a Controller for cfg, or cfg's validation error.
func New(cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t, err := eviction.NewNoExecuteTainter(cfg.eviction(), cfg.Queue)
	if err != nil {
		return nil, err
	}
	return &Controller{
		cfg: cfg, mon: cfg.monitor(), ev: cfg.eviction(), tainter: t,
		nodes: map[string]*nodeState{}, leases: map[string]Lease{}, pods: map[string]*podState{},
		byNode: map[string]map[string]*podState{}, gone: map[string]conditions.HealthRecord{}, deleted: map[string]*nodeState{},
		zoneStates: map[string]eviction.ZoneState{}, zoneIdx: map[string]int{},
	}, nil
}

// Config returns the Controller's configuration.
func (c *Controller) Config() Config { return c.cfg }

// Passes returns how many monitor passes have run.
func (c *Controller) Passes() int { return c.passes }

// Visits returns how many times the monitor passes have looked at a
// node: each pass counts the nodes it checked. With EveryNodePass that is
// every node of every pass; otherwise only the nodes where something
// could change.
func (c *Controller) Visits() int { return c.visits }

// TaintPasses returns how many tainting passes have run.
func (c *Controller) TaintPasses() int { return c.taintPasses }

// UpsertNode adds node to the view or replaces the node of the same name.
// The controller reads its Name, UID, CreationTimestamp (the probe time of
// a node that never posted a Ready condition), Labels (the zone labels of
// eviction.ZoneKey and node.kubernetes.io/exclude-disruption), Conditions,
// Taints and Unschedulable (the unschedulable:NoSchedule taint follows it).
// The slices and map of node are not modified and must not be modified by
// the caller afterwards. A node whose taints, conditions or
// unschedulability changed has its condition taints reconciled at the next
// Step; one whose NoExecute taints changed has its pods planned again.
func (c *Controller) UpsertNode(node core.Node) {
	ns := c.nodes[node.Name]
	if ns == nil {
		ns = &nodeState{rec: c.gone[node.Name], queuedMaybe: true}
		c.unseen++
		delete(c.gone, node.Name)
		if old := c.deleted[node.Name]; old != nil {
			ns.scheduled, ns.goneUIDs = old.scheduled, old.goneUIDs
			delete(c.deleted, node.Name)
		}
		if l, ok := c.leases[node.Name]; ok {
			ns.renew, ns.leaseRV, ns.hasLease = l.RenewTime, l.ResourceVersion, true
			delete(c.leases, node.Name)
		}
		c.nodes[node.Name] = ns
		c.orderStale = true
		ns.node = node
		ns.rules = c.rulesOf(ns)
		c.setZone(ns)
		c.zoneNodes[ns.zi]++
		ns.gen = c.zoneGen[ns.zi]
		for _, ps := range c.byNode[node.Name] {
			ps.refused = false
		}
		c.markDirty(ns, true, true)
		c.viewChanged()
		c.wake(ns)
		return
	}
	c.viewChanged()
	c.wake(ns) // before its zone changes: an idle node is counted in its old one
	old, oldRules := ns.node, ns.rules
	ns.node = node
	ns.rules = c.rulesOf(ns)
	ns.quiet, ns.settled = false, ""
	oldZone := ns.zi
	c.setZone(ns)
	if ns.zi != oldZone {
		c.zoneNodes[oldZone]--
		c.zoneNodes[ns.zi]++
		ns.gen = c.zoneGen[ns.zi]
	}
	reconcile := old.Unschedulable != node.Unschedulable || !slices.Equal(old.Conditions, node.Conditions) || !taintsEqual(old.Taints, node.Taints)
	replan := !noExecuteEqual(old.Taints, node.Taints) || !sameRules(oldRules, ns.rules)
	if replan {
		for _, ps := range c.byNode[node.Name] {
			ps.refused = false
		}
	}
	c.markDirty(ns, reconcile, replan)
}

// setZone reads the node's zone key and exclusion label, and interns the
// key.
func (c *Controller) setZone(ns *nodeState) {
	ns.zone, ns.excluded = ns.rules.Zone, eviction.IsExcludedFromDisruption(ns.node.Labels) || ns.rules.ExcludeFromDisruption
	if ns.zone == "" {
		ns.zone = eviction.ZoneKey(ns.node.Labels)
	}
	zi, ok := c.zoneIdx[ns.zone]
	if !ok {
		zi = len(c.zoneKeys)
		c.zoneIdx[ns.zone] = zi
		c.zoneKeys = append(c.zoneKeys, ns.zone)
		c.zoneNodes = append(c.zoneNodes, 0)
		c.zoneGen = append(c.zoneGen, 0)
		c.idleCounts = append(c.idleCounts, eviction.ZoneCount{Zone: ns.zone})
	}
	if zi != ns.zi {
		// The node may still be in its old zone's queue, which the
		// tainter, working on the new zone, does not look at: nothing is
		// known any more.
		ns.queuedMaybe, ns.settled = true, ""
	}
	ns.zi = zi
}

// DeleteNode removes the named node from the view. Its health record is
// kept, as upstream keeps it, for a node of the same name created later;
// so are its pending evictions, as upstream's taint eviction controller
// keeps them: each fires at its time if its pod is still bound to the
// name, is cancelled when the pod is deleted first, and is planned again
// with the pods of a node created under the same name.
func (c *Controller) DeleteNode(name string) {
	ns := c.nodes[name]
	if ns == nil {
		return
	}
	c.viewChanged()
	if ns.idle {
		if ns.renewals != nil && len(c.history) > 0 {
			c.catchUp(ns, c.history[len(c.history)-1])
		}
		ns.idle = false
		c.uncount(ns)
	}
	if ns.renewals != nil && c.started {
		c.feed(ns, c.last) // the lease it leaves behind is the last Step's
	}
	ns.renewals = nil
	delete(c.nodes, name)
	ns.left = true
	c.zoneNodes[ns.zi]--
	c.orderStale = true
	if !ns.seen {
		c.unseen--
	}
	c.gone[name] = ns.rec
	if ns.hasLease {
		c.leases[name] = Lease{Node: name, RenewTime: ns.renew, ResourceVersion: ns.leaseRV}
	}
	if len(ns.scheduled) > 0 {
		c.deleted[name] = ns
	}
	ns.reconcile, ns.plan = false, false
}

// holder returns the node, in the view or deleted, that holds the pending
// evictions of pods bound to name.
func (c *Controller) holder(name string) *nodeState {
	if ns := c.nodes[name]; ns != nil {
		return ns
	}
	return c.deleted[name]
}

// UpsertLease records the node lease of l.Node. A lease alone changes
// nothing until the next monitor pass reads it. A lease that
// Config.HeartbeatLease says is not a heartbeat is ignored.
func (c *Controller) UpsertLease(l Lease) {
	if c.cfg.HeartbeatLease != nil && !c.cfg.HeartbeatLease(l) {
		return
	}
	if ns := c.nodes[l.Node]; ns != nil {
		c.leaseChanged(ns)
		ns.hasLease, ns.renew, ns.leaseRV, ns.leaseNew = true, l.RenewTime, l.ResourceVersion, true
		return
	}
	c.leases[l.Node] = l
}

// LeaseRef refers to a node of the controller's view for RenewLease: a
// caller that renews many nodes' leases at a high rate (a simulator of
// 100,000 kubelets renewing every 10 s) looks each node up by name once
// instead of at every renewal. The zero LeaseRef refers to no node.
type LeaseRef struct {
	ns *nodeState
}

// LeaseRef returns a reference to the named node of the view, for
// RenewLease; false when the view has no node of that name.
func (c *Controller) LeaseRef(node string) (LeaseRef, bool) {
	ns := c.nodes[node]
	return LeaseRef{ns: ns}, ns != nil
}

// RenewLease records a renewal of the lease of the node ref refers to,
// with its new renew time and resource version: what UpsertLease records
// for a lease of that node, without looking the node up. Once the node has
// left the view (DeleteNode), the renewal is recorded by name, as
// UpsertLease records a lease of a node not in the view; a zero ref
// records nothing.
func (c *Controller) RenewLease(ref LeaseRef, renewTime time.Time, resourceVersion string) {
	ns := ref.ns
	switch {
	case ns == nil:
	case ns.left:
		c.UpsertLease(Lease{Node: ns.node.Name, RenewTime: renewTime, ResourceVersion: resourceVersion})
	default:
		c.leaseChanged(ns)
		ns.hasLease, ns.renew, ns.leaseRV, ns.leaseNew = true, renewTime, resourceVersion, true
	}
}

// DeleteLease forgets the lease of the named node.
func (c *Controller) DeleteLease(node string) {
	delete(c.leases, node)
	if ns := c.nodes[node]; ns != nil {
		c.leaseChanged(ns)
		ns.hasLease, ns.renew, ns.leaseRV, ns.leaseNew = false, time.Time{}, "", true
	}
}

// UpsertPod adds pod to the view or replaces the pod of the same
// namespace and name; a pod without NodeName is deleted from it. Its
// node's pods are planned again at the next Step when the pod is new,
// moved, started terminating or changed its tolerations. The controller
// reads the pod's Namespace, Name, UID, NodeName, Tolerations (in order),
// DeletionTimestamp (a terminating pod is left alone) and its Ready
// condition (a pod whose Ready condition exists and is not False is the
// kind MarkPodsNotReady changes); it keeps none of the pod's slices but
// the tolerations, which must not be modified afterwards.
func (c *Controller) UpsertPod(p core.Pod) {
	pod := stateOf(&p)
	if pod.NodeName == "" {
		c.DeletePod(pod.Namespace, pod.Name)
		return
	}
	key := pod.Key()
	ps := c.pods[key]
	if ps == nil {
		ps = &podState{pod: pod}
		c.pods[key] = ps
		c.bind(key, ps)
		c.bindSeen(key, ps)
		c.touch(pod.NodeName)
		return
	}
	old := ps.pod
	ps.pod = pod
	if old.NodeName != pod.NodeName {
		ps.refused = false
		c.unbind(key, old.NodeName, old.UID)
		c.bind(key, ps)
		c.bindSeen(key, ps)
		c.touch(old.NodeName)
		c.touch(pod.NodeName)
		return
	}
	if old.UID != pod.UID || old.Terminating != pod.Terminating || !slices.EqualFunc(old.Tolerations, pod.Tolerations, taints.Toleration.Equal) {
		ps.refused = false
		c.touch(pod.NodeName)
	}
}

// DeletePod removes the pod from the view; a pending eviction of it is
// dropped at the next Step.
func (c *Controller) DeletePod(namespace, name string) {
	key := namespace + "/" + name
	ps := c.pods[key]
	if ps == nil {
		return
	}
	delete(c.pods, key)
	c.unbind(key, ps.pod.NodeName, ps.pod.UID)
	c.touch(ps.pod.NodeName)
}

func (c *Controller) bind(key string, ps *podState) {
	m := c.byNode[ps.pod.NodeName]
	if m == nil {
		m = map[string]*podState{}
		c.byNode[ps.pod.NodeName] = m
	}
	m[key] = ps
}

// bindSeen remembers that the pod was bound to its node since the last
// Step, for the NotReady marking of pods bound to a node that is not Ready.
func (c *Controller) bindSeen(key string, ps *podState) {
	if !ps.bindPending {
		ps.bindPending = true
		c.bound = append(c.bound, key)
	}
}

// unbind takes the pod key (of UID uid) off node's pods.
func (c *Controller) unbind(key, node, uid string) {
	if ns := c.holder(node); ns != nil {
		if _, ok := ns.scheduled[key]; ok {
			if ns.goneUIDs == nil {
				ns.goneUIDs = map[string]string{}
			}
			ns.goneUIDs[key] = uid
		}
	}
	if m := c.byNode[node]; m != nil {
		delete(m, key)
		if len(m) == 0 {
			delete(c.byNode, node)
		}
	}
}

// leaseChanged wakes ns for a lease the caller gives, which ends its
// Renewals.
func (c *Controller) leaseChanged(ns *nodeState) {
	c.viewChanged()
	c.wake(ns)
	ns.renewals = nil
}

// viewChanged notes a change of a node or lease while a monitor pass is
// under way (between the parts of a paused Step): the pass then lists
// every node, as the every-node pass does.
func (c *Controller) viewChanged() {
	if c.pass.active {
		c.pass.changed = true
	}
}

// touch asks for the NoExecute plan of the named node's pods.
func (c *Controller) touch(node string) {
	if ns := c.nodes[node]; ns != nil {
		c.markDirty(ns, false, true)
	}
}

func (c *Controller) markDirty(ns *nodeState, reconcile, plan bool) {
	ns.reconcile = ns.reconcile || reconcile
	ns.plan = ns.plan || plan
	if (ns.reconcile || ns.plan) && !ns.queued {
		ns.queued = true
		c.dirty = append(c.dirty, ns)
	}
}

// Node returns the named node as the Controller sees it, with its own
// writes applied, and whether it is in the view.
func (c *Controller) Node(name string) (core.Node, bool) {
	if ns := c.nodes[name]; ns != nil {
		return ns.node, true
	}
	return core.Node{}, false
}

// Pod returns the pod as the Controller sees it and whether it is in the
// view.
func (c *Controller) Pod(namespace, name string) (PodState, bool) {
	if ps := c.pods[namespace+"/"+name]; ps != nil {
		return ps.pod, true
	}
	return PodState{}, false
}

// Scheduled returns the pending eviction of the pod and whether there is
// one.
func (c *Controller) Scheduled(namespace, name string) (eviction.Scheduled, bool) {
	ps := c.pods[namespace+"/"+name]
	if ps == nil {
		return eviction.Scheduled{}, false
	}
	ns := c.holder(ps.pod.NodeName)
	if ns == nil {
		return eviction.Scheduled{}, false
	}
	s, ok := ns.scheduled[ps.pod.Key()]
	return s, ok
}

// ZoneState returns the state of the zone with key zone (eviction.ZoneKey)
// after the last monitor pass, and whether the pass counted nodes in it.
func (c *Controller) ZoneState(zone string) (eviction.ZoneState, bool) {
	s, ok := c.zoneStates[zone]
	return s, ok
}

// sortedNodes returns the nodes sorted by name.
func (c *Controller) sortedNodes() []*nodeState {
	if c.orderStale {
		c.order = c.order[:0]
		for _, ns := range c.nodes {
			c.order = append(c.order, ns)
		}
		slices.SortFunc(c.order, func(a, b *nodeState) int { return cmp.Compare(a.node.Name, b.node.Name) })
		c.orderStale = false
	}
	return c.order
}

// taintsEqual compares two taint lists entry by entry, TimeAdded included.
func taintsEqual(a, b []taints.Taint) bool {
	return slices.EqualFunc(a, b, func(x, y taints.Taint) bool {
		return x.Key == y.Key && x.Value == y.Value && x.Effect == y.Effect && x.TimeAdded.Equal(y.TimeAdded)
	})
}

// noExecuteEqual compares the NoExecute taints of two lists, in order,
// TimeAdded included (it anchors tolerationSeconds under
// eviction.AnchorTaintAdded).
func noExecuteEqual(a, b []taints.Taint) bool {
	i, j := 0, 0
	for {
		for i < len(a) && a[i].Effect != taints.TaintEffectNoExecute {
			i++
		}
		for j < len(b) && b[j].Effect != taints.TaintEffectNoExecute {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		x, y := a[i], b[j]
		if x.Key != y.Key || x.Value != y.Value || !x.TimeAdded.Equal(y.TimeAdded) {
			return false
		}
		i++
		j++
	}
}

// dueItem is a scheduled eviction in the heap; it is stale when the node's
// schedule for the pod no longer has this time.
type dueItem struct {
	at   time.Time
	node string
	pod  string
}

type dueHeap []dueItem

func dueBefore(a, b *dueItem) bool { return a.at.Before(b.at) }

func (h *dueHeap) push(it dueItem) { *h = minheap.Push(*h, it, dueBefore) }

func (h *dueHeap) pop() dueItem {
	it, rest := minheap.Pop(*h, dueBefore)
	*h = rest
	return it
}

// SetLiveLeases gives the lease circuit breaker (Config.LeaseCircuitBreaker)
// its view of the live leases; nil takes the cache for the live view, so
// that the breaker never trips (the default).
func (c *Controller) SetLiveLeases(l LiveLeases) {
	c.leaseView = l
	c.wakeAll() // the breaker asks about other nodes
}

// ViewRestored tells the controller that its view of the cluster was
// interrupted (its watches or lists failed, so it saw no heartbeat) and
// is whole again at now: the heartbeats it could not see are not counted
// against the nodes. Every node it knows is timed again from now, as a
// freshly started controller times a node from its first sight (its
// health record's probe timestamp becomes now, so a node turns Unknown
// only if it stays silent for the grace period from now); the posted
// conditions, taints, zone states, tainting queues and scheduled evictions
// are kept, so a node that was already Unknown stays Unknown and its pods'
// evictions keep their times.
//
// Upstream has no such step: kube-controller-manager keeps judging nodes
// on the view it has, so after its own outage it can find healthy nodes
// silent and mark them Unknown (what a caller gets by not calling this).
// A now earlier than the last Step is taken as that Step's time.
func (c *Controller) ViewRestored(now time.Time) {
	if now.Before(c.last) {
		now = c.last
	}
	c.wakeAll()
	for _, ns := range c.nodes {
		if ns.rec.Known && ns.rec.ProbeTimestamp.Before(now) {
			ns.rec.ProbeTimestamp = now
			ns.deadline = now.Add(c.cfg.NodeMonitorGracePeriod).UnixNano()
		}
	}
}
