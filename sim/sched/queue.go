package sched

import (
	"container/heap"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"time"

	"github.com/nodelife/nodelife/taints"
)

// Kube-scheduler's queue settings (its KubeSchedulerConfiguration's
// podInitialBackoffSeconds and podMaxBackoffSeconds, and the queue's
// podMaxInUnschedulablePodsDuration), and the periods of its two
// flushes.
const (
	DefaultPodInitialBackoff     = 1 * time.Second
	DefaultPodMaxBackoff         = 10 * time.Second
	DefaultPodMaxInUnschedulable = 5 * time.Minute
	// UnschedulableFlushPeriod is how often the queue moves the pods that
	// have waited in its unschedulable pool longer than
	// PodMaxInUnschedulable back to be tried, counted from the
	// scheduler's start.
	UnschedulableFlushPeriod = 30 * time.Second
	// BackoffWindow is the width of the windows backoff expirations are
	// truncated to (kube-scheduler's backoffQOrderingWindowDuration, with
	// SchedulerPopFromBackoffQ on, as it is by default since v1.33).
	BackoffWindow = time.Second
)

// Errors of the Scheduler, wrapped by the errors its methods return.
var (
	ErrInvalidConfig = errors.New("sched: invalid config")
	ErrDuplicatePod  = errors.New("sched: pod already queued or bound")
	ErrUnknownPod    = errors.New("sched: no such pod")
	ErrInvalidPod    = errors.New("sched: invalid pod")
	ErrUnknownNode   = errors.New("sched: no such node")
)

// Config configures a Scheduler. The zero value is not usable: it has no
// Policy. Zero durations take kube-scheduler's defaults.
type Config struct {
	// Policy scores the nodes.
	Policy Policy
	// Seed seeds the randomness the policy draws (Random's).
	Seed int64
	// PodInitialBackoff and PodMaxBackoff bound the backoff of a pod
	// after a failed attempt: the initial one doubled per failure, at most
	// the max (defaults DefaultPodInitialBackoff, DefaultPodMaxBackoff).
	PodInitialBackoff, PodMaxBackoff time.Duration
	// PodMaxInUnschedulable is how long a pod waits in the unschedulable
	// pool before a periodic flush tries it again without any event that
	// could help it (default DefaultPodMaxInUnschedulable).
	PodMaxInUnschedulable time.Duration
}

func (c Config) withDefaults() Config {
	if c.PodInitialBackoff == 0 {
		c.PodInitialBackoff = DefaultPodInitialBackoff
	}
	if c.PodMaxBackoff == 0 {
		c.PodMaxBackoff = DefaultPodMaxBackoff
	}
	if c.PodMaxInUnschedulable == 0 {
		c.PodMaxInUnschedulable = DefaultPodMaxInUnschedulable
	}
	return c
}

// Validate reports what makes c unusable: no Policy, a negative duration,
// or an initial backoff above the max.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: %s", ErrInvalidConfig, fmt.Sprintf(format, args...)))
	}
	if c.Policy == nil {
		bad("no Policy")
	}
	if c.PodInitialBackoff < 0 {
		bad("PodInitialBackoff %v is negative", c.PodInitialBackoff)
	}
	if c.PodMaxBackoff < 0 {
		bad("PodMaxBackoff %v is negative", c.PodMaxBackoff)
	}
	if c.PodMaxInUnschedulable < 0 {
		bad("PodMaxInUnschedulable %v is negative", c.PodMaxInUnschedulable)
	}
	d := c.withDefaults()
	if c.PodInitialBackoff >= 0 && c.PodMaxBackoff >= 0 && d.PodInitialBackoff > d.PodMaxBackoff {
		bad("PodInitialBackoff %v is above PodMaxBackoff %v", d.PodInitialBackoff, d.PodMaxBackoff)
	}
	return errors.Join(errs...)
}

// Where a pod is in the Scheduler.
const (
	inActive = iota
	inBackoff
	inUnschedulable
	inBound
)

// entry is one pod in the Scheduler.
type entry struct {
	pod     PodInfo
	seq     uint64    // arrival order: the last tie-break
	arrived time.Time // when Add saw it
	ts      time.Time // kube-scheduler's QueuedPodInfo.Timestamp
	fails   int       // UnschedulableCount
	where   int
	index   int // in its heap
	reason  string
	node    int
	devs    []int
	// Which filters rejected it last: NodeResourcesFit (with the GPU
	// filter) and TaintToleration, each with its own queueing hints.
	byFit, byTaint bool
}

// queue is one of the Scheduler's three heaps, with its entries' indexes
// kept for removal.
type queue struct {
	es   []*entry
	less func(a, b *entry) bool
}

func (q *queue) Len() int           { return len(q.es) }
func (q *queue) Less(i, j int) bool { return q.less(q.es[i], q.es[j]) }
func (q *queue) Swap(i, j int) {
	q.es[i], q.es[j] = q.es[j], q.es[i]
	q.es[i].index, q.es[j].index = i, j
}
func (q *queue) Push(x any) {
	e := x.(*entry)
	e.index = len(q.es)
	q.es = append(q.es, e)
}
func (q *queue) Pop() any {
	e := q.es[len(q.es)-1]
	q.es[len(q.es)-1] = nil
	q.es = q.es[:len(q.es)-1]
	return e
}

// activeLess is kube-scheduler's PrioritySort (all pods here have the same
// priority: the earlier Timestamp first), then arrival order.
func activeLess(a, b *entry) bool {
	if !a.ts.Equal(b.ts) {
		return a.ts.Before(b.ts)
	}
	return a.seq < b.seq
}

// Scheduler is kube-scheduler's loop over its scheduling queue as a
// synchronous machine, scheduling with a Policy over NodeInfos: pods are
// added as they arrive (Add), leave (Delete), and each Step schedules
// every pod that is due, one by one, taking no time.
//
// The queue is kube-scheduler's (v1.37, its defaults): an active queue in
// order of Timestamp (the time the pod was added or last failed; all pods
// have one priority here), a backoff queue, and an unschedulable pool. A
// pod that fits no node goes to the pool with the reason, its failures
// counted, and the filters that rejected it noted: TaintToleration (a
// node's NoSchedule or NoExecute taint it does not tolerate) or
// NodeResourcesFit (CPU, memory, and the GPUs, whose filter is counted
// with it). Events move pods of the pool back to be tried by the queueing
// hints of the filters that rejected them: the deletion of a bound pod
// moves those NodeResourcesFit rejected (any deletion of an assigned pod
// may make room); SetTaints those TaintToleration rejected that now
// tolerate the node and did not before; AddNode those either filter would
// pass on the new node. A pod moved back goes to the backoff queue while
// its backoff lasts (the
// initial backoff doubled per failure, at most the max, from its last
// failure, truncated to BackoffWindow) and to the active queue after. A
// Step takes the active queue's pods first, then, as kube-scheduler does
// when its active queue is empty, the backoff queue's in order of backoff
// expiry. Every UnschedulableFlushPeriod from the start, pods that have
// waited in the pool longer than PodMaxInUnschedulable are moved back the
// same way. Since scheduling takes no time here, no event falls within a
// scheduling attempt, so every failed pod goes to the pool (upstream's
// queueSkip), and ties between equal Timestamps go to the pod added
// first.
//
// A Scheduler is made by NewScheduler; its zero value is not usable.
type Scheduler struct {
	cfg     Config
	policy  *scheduler
	start   time.Time
	now     time.Time
	seq     uint64
	active  queue
	backoff queue
	pool    queue // the unschedulable pool, by Timestamp
	pods    map[string]*entry
	byName  map[string]int // node name to index
}

// NewScheduler returns a Scheduler of a copy of nodes, started at now.
// Node names must be distinct and what is left of a node within 0 and
// its allocatable.
func NewScheduler(now time.Time, cfg Config, nodes []NodeInfo) (*Scheduler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	nodes = slices.Clone(nodes)
	for i := range nodes {
		nodes[i].GPUMilliLeft = slices.Clone(nodes[i].GPUMilliLeft)
	}
	s := &Scheduler{cfg: cfg, start: now, now: now, pods: map[string]*entry{}}
	s.byName = make(map[string]int, len(nodes))
	for i := range nodes {
		nodes[i].Taints = slices.Clone(nodes[i].Taints)
		if _, dup := s.byName[nodes[i].Name]; dup {
			return nil, fmt.Errorf("%w: node %q appears twice", ErrInvalidConfig, nodes[i].Name)
		}
		if err := validNode(&nodes[i]); err != nil {
			return nil, err
		}
		s.byName[nodes[i].Name] = i
	}
	s.policy = newScheduler(cfg.Policy, nodes, rand.New(rand.NewSource(cfg.Seed)))
	s.active.less = activeLess
	s.backoff.less = func(a, b *entry) bool {
		ea, eb := s.expiry(a), s.expiry(b)
		if !ea.Equal(eb) {
			return ea.Before(eb)
		}
		return activeLess(a, b)
	}
	s.pool.less = activeLess
	return s, nil
}

// Nodes returns the nodes with what is allocated on them, in the order
// given to NewScheduler. They are the Scheduler's: read, do not modify.
func (s *Scheduler) Nodes() []NodeInfo { return s.policy.nodes }

// Pending is the number of pods waiting to be bound.
func (s *Scheduler) Pending() int { return s.active.Len() + s.backoff.Len() + s.pool.Len() }

// clamp returns now, or the latest now seen when now is earlier.
func (s *Scheduler) clamp(now time.Time) time.Time {
	if now.Before(s.now) {
		return s.now
	}
	s.now = now
	return now
}

// backoffFor is the backoff after fails failures.
func (s *Scheduler) backoffFor(fails int) time.Duration {
	if fails <= 0 {
		return 0
	}
	shift := fails - 1
	if shift >= 62 || s.cfg.PodInitialBackoff > s.cfg.PodMaxBackoff>>shift {
		return s.cfg.PodMaxBackoff
	}
	return s.cfg.PodInitialBackoff << shift
}

// expiry is when e's backoff ends; the zero time when it never failed.
func (s *Scheduler) expiry(e *entry) time.Time {
	if e.fails == 0 {
		return time.Time{}
	}
	return e.ts.Add(s.backoffFor(e.fails)).Truncate(BackoffWindow)
}

// backingOff is kube-scheduler's isPodBackingoff at now.
func (s *Scheduler) backingOff(e *entry, now time.Time) bool {
	return !s.expiry(e).Before(now.Truncate(BackoffWindow))
}

// Add queues a pod that arrived at now. Its name must not be queued or
// bound already, its requests not negative, its GPU thousandths at most
// MilliGPU, and a pod of more than one GPU must want them whole.
func (s *Scheduler) Add(now time.Time, p PodInfo) error {
	now = s.clamp(now)
	if _, ok := s.pods[p.Name]; ok {
		return fmt.Errorf("%w: %q", ErrDuplicatePod, p.Name)
	}
	switch {
	case p.MilliCPU < 0 || p.MemoryMiB < 0 || p.GPUs < 0 || p.GPUMilli < 0 || p.GPUMilli > MilliGPU:
		return fmt.Errorf("%w: %q: cpu %dm, memory %d MiB, %d GPUs of %d thousandths: none may be negative, nor the thousandths above %d",
			ErrInvalidPod, p.Name, p.MilliCPU, p.MemoryMiB, p.GPUs, p.GPUMilli, MilliGPU)
	case p.GPUs > 1 && p.GPUMilli < MilliGPU:
		return fmt.Errorf("%w: %q: a share of a GPU (%d) for %d GPUs", ErrInvalidPod, p.Name, p.GPUMilli, p.GPUs)
	}
	s.seq++
	e := &entry{pod: p, seq: s.seq, arrived: now, ts: now, where: inActive, node: -1}
	s.pods[p.Name] = e
	heap.Push(&s.active, e)
	return nil
}

// Departure is a pod that left the Scheduler.
type Departure struct {
	// Pod is the pod's name.
	Pod string
	// Node is the index of the node it was bound to, -1 when it was still
	// pending.
	Node int
	// Arrived is when it was added.
	Arrived time.Time
}

// Delete removes the pod called name at now: a pending pod leaves the
// queue; a bound one frees its node, which moves the pods of the
// unschedulable pool that NodeResourcesFit rejected back to be tried.
func (s *Scheduler) Delete(now time.Time, name string) (Departure, error) {
	now = s.clamp(now)
	e, ok := s.pods[name]
	if !ok {
		return Departure{}, fmt.Errorf("%w: %q", ErrUnknownPod, name)
	}
	delete(s.pods, name)
	d := Departure{Pod: name, Node: -1, Arrived: e.arrived}
	switch e.where {
	case inActive:
		heap.Remove(&s.active, e.index)
	case inBackoff:
		heap.Remove(&s.backoff, e.index)
	case inUnschedulable:
		heap.Remove(&s.pool, e.index)
	case inBound:
		d.Node = e.node
		s.policy.nodes[e.node].unbind(&e.pod, e.devs)
		s.requeueIf(now, func(e *entry) bool { return e.byFit })
	}
	return d, nil
}

// requeueIf moves the pods of the pool for which worth says so to the
// backoff queue while their backoff lasts at now, else to the active
// queue.
func (s *Scheduler) requeueIf(now time.Time, worth func(*entry) bool) {
	kept := s.pool.es[:0]
	var moved []*entry
	for _, e := range s.pool.es {
		if worth(e) {
			moved = append(moved, e)
		} else {
			kept = append(kept, e)
		}
	}
	if len(moved) == 0 {
		return
	}
	clear(s.pool.es[len(kept):])
	s.pool.es = kept
	for i, e := range kept {
		e.index = i
	}
	heap.Init(&s.pool)
	for _, e := range moved {
		s.requeue(e, now)
	}
}

// AddNode adds a node at now, after the others in the run's node order.
// Pods waiting in the pool are moved back to be tried when a filter that
// rejected them says the node may take them, as kube-scheduler's queueing
// hints for a node's addition: NodeResourcesFit when the pod fits the
// node's allocatable (FitsEmpty), TaintToleration when the pod tolerates
// its taints.
func (s *Scheduler) AddNode(now time.Time, n NodeInfo) error {
	now = s.clamp(now)
	if _, ok := s.nodeIndex(n.Name); ok || n.Name == "" {
		return fmt.Errorf("%w: node %q: want a name not taken", ErrInvalidConfig, n.Name)
	}
	if err := validNode(&n); err != nil {
		return err
	}
	n.GPUMilliLeft = slices.Clone(n.GPUMilliLeft)
	n.Taints = slices.Clone(n.Taints)
	s.policy.nodes = append(s.policy.nodes, n)
	s.byName[n.Name] = len(s.policy.nodes) - 1
	added := &s.policy.nodes[len(s.policy.nodes)-1]
	s.requeueIf(now, func(e *entry) bool {
		return e.byFit && added.FitsEmpty(&e.pod) || e.byTaint && added.Tolerates(&e.pod)
	})
	return nil
}

// SetTaints replaces the taints of the node called name at now (the node
// lifecycle controller tainting or untainting it). Pods rejected by
// TaintToleration that did not tolerate the node's taints before and do
// now are moved back to be tried (its queueing hint); pods bound to the
// node stay: evicting them is the caller's (Delete).
func (s *Scheduler) SetTaints(now time.Time, name string, ts []taints.Taint) error {
	now = s.clamp(now)
	i, ok := s.nodeIndex(name)
	if !ok {
		return fmt.Errorf("%w: node %q", ErrUnknownNode, name)
	}
	n := &s.policy.nodes[i]
	before := NodeInfo{Taints: n.Taints}
	n.Taints = slices.Clone(ts)
	s.requeueIf(now, func(e *entry) bool {
		return e.byTaint && !before.Tolerates(&e.pod) && n.Tolerates(&e.pod)
	})
	return nil
}

// validNode reports a node whose resources left are out of range.
func validNode(n *NodeInfo) error {
	if n.MilliCPULeft < 0 || n.MemoryMiBLeft < 0 || n.MilliCPULeft > n.MilliCPU || n.MemoryMiBLeft > n.MemoryMiB ||
		slices.ContainsFunc(n.GPUMilliLeft, func(l int64) bool { return l < 0 || l > MilliGPU }) {
		return fmt.Errorf("%w: node %q: cpu %dm of %dm left, memory %d of %d MiB left, GPUs left %v: want what is left within 0 and the node's",
			ErrInvalidConfig, n.Name, n.MilliCPULeft, n.MilliCPU, n.MemoryMiBLeft, n.MemoryMiB, n.GPUMilliLeft)
	}
	return nil
}

// nodeIndex is the index of the node called name.
func (s *Scheduler) nodeIndex(name string) (int, bool) {
	i, ok := s.byName[name]
	return i, ok
}

func (s *Scheduler) requeue(e *entry, now time.Time) {
	if s.backingOff(e, now) {
		e.where = inBackoff
		heap.Push(&s.backoff, e)
		return
	}
	e.where = inActive
	heap.Push(&s.active, e)
}

// Placement is a pod a Step bound.
type Placement struct {
	// Pod is the pod's name; Node the index of its node in Nodes and
	// Devices the GPUs it got there.
	Pod     string
	Node    int
	Devices []int
	// Arrived is when it was added; Attempts the attempts before this
	// one, each of which found no node.
	Arrived  time.Time
	Attempts int
}

// Attempt is a pod a Step found no node for.
type Attempt struct {
	// Pod is the pod's name and Reason why it fits nowhere, as
	// kube-scheduler says it ("0/3 nodes are available: 2 Insufficient
	// GPU, 1 Insufficient cpu").
	Pod, Reason string
	// Failures counts this pod's failed attempts, this one included.
	Failures int
}

// Round is what a Step did: the pods it bound and those it tried and
// could not place, each in the order tried.
type Round struct {
	Bound  []Placement
	Failed []Attempt
	// Next is when Step has work again without any Add or Delete (an
	// unschedulable flush); the zero time when it has none.
	Next time.Time
}

// Step schedules at now every pod that is due: first the periodic
// flushes of the unschedulable pool up to now, then the backoff queue's
// pods whose backoff is over, then the active queue in order, then the
// backoff queue's others. A now earlier than one seen is taken as that
// one.
func (s *Scheduler) Step(now time.Time) Round {
	now = s.clamp(now)
	s.flushPool(now)
	for s.backoff.Len() > 0 && !s.backingOff(s.backoff.es[0], now) {
		e := heap.Pop(&s.backoff).(*entry)
		e.where = inActive
		heap.Push(&s.active, e)
	}
	var r Round
	for {
		var e *entry
		switch {
		case s.active.Len() > 0:
			e = heap.Pop(&s.active).(*entry)
		case s.backoff.Len() > 0:
			e = heap.Pop(&s.backoff).(*entry)
		default:
			r.Next = s.next()
			return r
		}
		n, devs, why := s.policy.schedule(&e.pod)
		if n >= 0 {
			e.where, e.node, e.devs = inBound, n, devs
			r.Bound = append(r.Bound, Placement{Pod: e.pod.Name, Node: n, Devices: slices.Clone(devs), Arrived: e.arrived, Attempts: e.fails})
			continue
		}
		e.fails++
		e.ts = now
		e.reason = why
		_, e.byTaint = s.policy.why[ReasonTaint]
		e.byFit = len(s.policy.why) > 1 || !e.byTaint
		e.where = inUnschedulable
		heap.Push(&s.pool, e)
		r.Failed = append(r.Failed, Attempt{Pod: e.pod.Name, Reason: why, Failures: e.fails})
	}
}

// flushPool runs the unschedulable flushes due at the periods from start
// up to now, each at its own time.
func (s *Scheduler) flushPool(now time.Time) {
	for s.pool.Len() > 0 {
		t := s.flushDue(s.pool.es[0])
		if t.After(now) {
			break
		}
		for s.pool.Len() > 0 && !s.flushDue(s.pool.es[0]).After(t) {
			e := heap.Pop(&s.pool).(*entry)
			s.requeue(e, t)
		}
	}
}

// flushDue is the first flush at which e has waited in the pool longer
// than PodMaxInUnschedulable: the first period from start strictly later
// than its Timestamp plus that.
func (s *Scheduler) flushDue(e *entry) time.Time {
	limit := e.ts.Add(s.cfg.PodMaxInUnschedulable)
	k := limit.Sub(s.start)/UnschedulableFlushPeriod + 1
	if k < 1 {
		k = 1
	}
	return s.start.Add(k * UnschedulableFlushPeriod)
}

// next is when the pool's first flush is due; zero when the pool is empty.
func (s *Scheduler) next() time.Time {
	if s.pool.Len() == 0 {
		return time.Time{}
	}
	return s.flushDue(s.pool.es[0])
}

// Next is when Step has work: now when a pod is queued to be tried, the
// pool's next flush when only the pool holds pods, and the zero time when
// nothing is pending.
func (s *Scheduler) Next() time.Time {
	if s.active.Len() > 0 || s.backoff.Len() > 0 {
		return s.now
	}
	return s.next()
}

// Reason is why the pending pod called name last failed ("" when it has
// not been tried or is bound), and whether the Scheduler holds it.
func (s *Scheduler) Reason(name string) (string, bool) {
	e, ok := s.pods[name]
	if !ok {
		return "", false
	}
	if e.where == inBound {
		return "", true
	}
	return e.reason, true
}
