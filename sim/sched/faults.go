package sched

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/sim/trace"
	"github.com/nodelife/nodelife/taints"
)

// A Replay with Faults runs the node lifecycle beside the scheduler: each
// node's kubelet renews its Lease every LeaseRenewInterval from the start
// while its node is up, and nodelifecycle.Controller (Replay.Lifecycle,
// v1.37's defaults when nil) sees the cluster as an informer would and is
// stepped at every instant something changed and whenever it asks. A
// fault window silences a node's kubelet: no renewal from its start on.
// What follows is the controller's: the node turns Unknown once its grace
// period has passed, is tainted (unreachable:NoSchedule at once,
// unreachable:NoExecute at its zone's rate; the nodes carry no zone
// label, so they are one zone), its pods are marked NotReady and evicted
// when their tolerations run out (every pod has the DefaultTolerationSeconds
// admission's tolerations, 300s, beside its own). The scheduler sees the
// taints: no pod is placed on a tainted node it does not tolerate, and the
// pods waiting for it are tried again when the taints come off.
//
// An evicted pod is replaced at once, as its controller (a ReplicaSet, a
// Job) re-creates a pod whose deletion has begun: the replacement,
// "<name>~<n>", queues from the eviction's instant and leaves when the pod
// would have (its deletion time; with Durations, after its whole running
// time from its own binding: the work is done again). The evicted pod
// holds what it was allocated until its node is back, when its kubelet
// finishes the deletion; so does a pod that leaves while its node is
// down. When a fault ends, the kubelet renews its lease and posts Ready
// at once.
//
// At one instant, the faults' starts and ends come first, then the
// trace's departures and arrivals as without faults; after each, the
// controller steps and its actions are carried out, then the scheduler
// steps, and again while either has something to do at that instant.
// The run ends at the later of the last event of the trace and the last
// fault's end.

// LeaseRenewInterval is how often a kubelet renews its node's Lease (a
// quarter of its 40s duration).
const LeaseRenewInterval = 10 * time.Second

// replayStart is the instant a Replay's time 0 is.
var replayStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Eviction is a pod the node lifecycle evicted during a Replay with
// Faults. Times are from the trace's start.
type Eviction struct {
	// Pod is the evicted pod's name ("<name>~<n>" for a replacement) and
	// Of the trace's pod it stands for.
	Pod, Of string
	// Node is where it ran; At when it was evicted, and Ran how long it had
	// been bound there by then.
	Node    string
	At, Ran time.Duration
	// GPUMilli is its GPU request in thousandths (GPUs × thousandths).
	GPUMilli int64
	// Drained is set for a pod evicted by a maintenance's drain, not by
	// the node lifecycle.
	Drained bool
	// Rebound is when its replacement was bound (HasRebound); a
	// replacement that left or was still waiting at the end has none.
	Rebound    time.Duration
	HasRebound bool
}

// GPUHoursLost is the GPU time of the evicted pods' runs, each counted as
// lost: GPUs × the time it had run, summed, in GPU-hours.
func (r ReplayResult) GPUHoursLost() float64 {
	var h float64
	for _, e := range r.Evictions {
		h += float64(e.GPUMilli) / MilliGPU * e.Ran.Hours()
	}
	return h
}

// Recoveries returns, for each eviction whose replacement was bound, the
// time from the eviction to that binding, in the order of Evictions.
func (r ReplayResult) Recoveries() []time.Duration {
	var d []time.Duration
	for _, e := range r.Evictions {
		if e.HasRebound {
			d = append(d, e.Rebound-e.At)
		}
	}
	return d
}

// faultEvent is the start or end of a fault window of node.
type faultEvent struct {
	at    time.Duration
	end   bool
	node  int
	drain bool // a maintenance (trace.MaintenanceFault()): cordon and drain
}

// incarnation is one pod of the run: a trace pod or a replacement.
type incarnation struct {
	of          int // the trace pod
	name        string
	info        PodInfo
	node        int // -1 while pending
	boundAt     time.Duration
	terminating bool
	evictions   []int // indexes into Evictions awaiting this pod's binding
}

// faultRun is a Replay with Faults in progress.
type faultRun struct {
	r       Replay
	s       *Scheduler
	c       *nodelifecycle.Controller
	res     *ReplayResult
	cur     TimedSample
	evs     events
	faults  []faultEvent
	names   []string
	index   map[string]int
	down    []int                    // open fault windows per node
	cordons []int                    // open maintenances per node
	sched   []nodelifecycle.Periodic // each node's lease schedule of the moment
	refs    []nodelifecycle.LeaseRef
	taints  [][]taints.Taint
	dying   [][]*incarnation // pods on a down node whose deletion waits for it
	inc     map[string]*incarnation
	current []*incarnation // per trace pod, its pod of the moment
	rv      int
	ctlNext time.Time
}

func (f *faultRun) now(at time.Duration) time.Time { return replayStart.Add(at) }

// runFaults runs r, prepared as Run prepares it, with its faults.
func (r Replay) runFaults(ordered []NodeInfo, res *ReplayResult, infos []PodInfo, evs events) (ReplayResult, error) {
	cfg := nodelifecycle.DefaultConfig()
	if r.Lifecycle != nil {
		cfg = *r.Lifecycle
	}
	c, err := nodelifecycle.New(cfg)
	if err != nil {
		return ReplayResult{}, err
	}
	s, err := NewScheduler(replayStart, r.Config, ordered)
	if err != nil {
		return ReplayResult{}, err
	}
	f := &faultRun{r: r, s: s, c: c, res: res, evs: evs, index: map[string]int{}, inc: map[string]*incarnation{},
		current: make([]*incarnation, len(r.Pods))}
	n := len(ordered)
	f.cordons, f.sched = make([]int, n), make([]nodelifecycle.Periodic, n)
	f.names, f.down, f.refs, f.taints, f.dying = make([]string, n), make([]int, n),
		make([]nodelifecycle.LeaseRef, n), make([][]taints.Taint, n), make([][]*incarnation, n)
	for i, nd := range ordered {
		f.names[i] = nd.Name
		f.index[nd.Name] = i
		c.UpsertNode(core.Node{Name: nd.Name, UID: "uid-" + nd.Name, CreationTimestamp: replayStart.Add(-time.Hour), Conditions: ready(replayStart)})
		f.refs[i], _ = c.LeaseRef(nd.Name)
		f.sched[i] = f.kubelet(0)
		c.SetRenewals(f.refs[i], f.sched[i])
	}
	for _, w := range r.Faults {
		i, ok := f.index[w.Node]
		if !ok {
			return ReplayResult{}, fmt.Errorf("%w: a fault of node %q, which the cluster does not have", ErrInvalidConfig, w.Node)
		}
		if !w.Ongoing && w.End == w.Start {
			continue // down for no time
		}
		drain := w.Type == trace.MaintenanceFault()
		f.faults = append(f.faults, faultEvent{at: w.Start, node: i, drain: drain})
		if !w.Ongoing {
			f.faults = append(f.faults, faultEvent{at: w.End, end: true, node: i, drain: drain})
		}
	}
	// Starts before ends at one instant, so that back-to-back windows
	// leave the node down.
	slices.SortStableFunc(f.faults, func(a, b faultEvent) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(boolInt(a.end), boolInt(b.end)))
	})
	for i := range infos {
		infos[i].Tolerations = taints.WithDefaultTolerationSeconds(infos[i].Tolerations, taints.DefaultTolerationSeconds, taints.DefaultTolerationSeconds)
	}

	for {
		var at time.Duration
		haveTrace, haveFault := len(f.evs) > 0, len(f.faults) > 0
		if !haveTrace && !haveFault {
			if len(res.Samples) > 0 {
				res.End = res.Samples[len(res.Samples)-1].At
			}
			res.Nodes = s.Nodes()
			return *res, nil
		}
		at = -1
		if haveTrace {
			at = f.evs[0].at
		}
		if haveFault && (at < 0 || f.faults[0].at <= at) {
			at = f.faults[0].at
		}
		machines := f.nextMachine()
		switch {
		case machines >= 0 && machines < at:
			at = machines
		case haveFault && f.faults[0].at == at:
			for len(f.faults) > 0 && f.faults[0].at == at {
				e := f.faults[0]
				f.faults = f.faults[1:]
				switch {
				case e.end:
					f.up(at, e.node)
					if e.drain {
						f.cordon(at, e.node, -1)
					}
				case e.drain:
					f.cordon(at, e.node, 1)
					f.drain(at, e.node)
					f.goDown(at, e.node)
				default:
					f.goDown(at, e.node)
				}
			}
		default:
			phase := f.evs[0].phase
			for len(f.evs) > 0 && f.evs[0].at == at && f.evs[0].phase == phase {
				e := heap.Pop(&f.evs).(event)
				if e.phase == phaseArrive {
					f.arrive(at, e.pod, infos[e.pod], r.Pods[e.pod].Name)
					continue
				}
				if p := f.current[e.pod]; p != nil && (e.inc == 0 || e.inc == f.incNumber(p)) {
					f.leave(at, p)
				}
			}
		}
		f.settle(at)
		f.sample(at)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nextMachine is the earliest instant the controller or the scheduler
// asks for; -1 for none.
func (f *faultRun) nextMachine() time.Duration {
	at := time.Duration(-1)
	for _, t := range []time.Time{f.ctlNext, f.s.Next()} {
		if !t.IsZero() && (at < 0 || t.Sub(replayStart) < at) {
			at = t.Sub(replayStart)
		}
	}
	return at
}

func (f *faultRun) version() string {
	f.rv++
	return strconv.Itoa(f.rv)
}

// ready is a kubelet's Ready condition posted at t.
func ready(t time.Time) []conditions.Condition {
	return []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, Reason: conditions.ReasonKubeletReady,
		LastHeartbeatTime: t, LastTransitionTime: t}}
}

// kubelet is the lease schedule of a kubelet up from from: a renewal at
// every tick of LeaseRenewInterval from from on (from the run's start),
// for ever until it goes down. The controller reads it when it needs the
// lease (nodelifecycle.Controller.SetRenewals), so a node that is up costs
// nothing between its deadlines.
func (f *faultRun) kubelet(from time.Duration) nodelifecycle.Periodic {
	first := (from + LeaseRenewInterval - 1) / LeaseRenewInterval * LeaseRenewInterval
	p := nodelifecycle.Periodic{First: f.now(first), Every: LeaseRenewInterval, Version: uint64(f.rv) + 1}
	f.rv += 1 << 20 // each schedule's resource versions apart
	return p
}

// goDown silences node i's kubelet at at: its schedule, the same
// renewals and resource versions, ends there, its last renewal the tick
// before at.
func (f *faultRun) goDown(at time.Duration, i int) {
	if f.down[i] == 0 {
		f.sched[i].Until = f.now(at)
		f.c.SetRenewals(f.refs[i], f.sched[i])
	}
	f.down[i]++
}

// up brings node i's kubelet back at at, when its last fault ends: it
// renews its lease, posts Ready, and finishes its pods' deletions.
func (f *faultRun) up(at time.Duration, i int) {
	if f.down[i] == 0 {
		return
	}
	f.down[i]--
	if f.down[i] > 0 {
		return
	}
	f.c.RenewLease(f.refs[i], f.now(at), f.version())
	f.sched[i] = f.kubelet(at + 1)
	f.c.SetRenewals(f.refs[i], f.sched[i])
	if n, ok := f.c.Node(f.names[i]); ok {
		n.Conditions = ready(f.now(at))
		f.c.UpsertNode(n)
	}
	for _, p := range f.dying[i] {
		f.remove(at, p)
	}
	f.dying[i] = nil
}

// arrive queues a pod of the trace, or a replacement.
func (f *faultRun) arrive(at time.Duration, of int, info PodInfo, name string) {
	p := &incarnation{of: of, name: name, info: info, node: -1}
	p.info.Name = name
	f.inc[name] = p
	f.current[of] = p
	if err := f.s.Add(f.now(at), p.info); err == nil {
		f.cur.Pending++
	}
}

// leave is the trace's deletion of pod p.
func (f *faultRun) leave(at time.Duration, p *incarnation) {
	o := &f.res.Pods[p.of]
	o.Left, o.HasLeft = at, true
	f.current[p.of] = nil
	if p.node >= 0 && f.down[p.node] > 0 {
		p.terminating = true
		f.c.UpsertPod(f.podOf(at, p))
		f.dying[p.node] = append(f.dying[p.node], p)
		return
	}
	f.remove(at, p)
}

// remove takes pod p out of the scheduler and the controller.
func (f *faultRun) remove(at time.Duration, p *incarnation) {
	d, err := f.s.Delete(f.now(at), p.name)
	delete(f.inc, p.name)
	if err != nil {
		return
	}
	if d.Node < 0 {
		f.cur.Pending--
		return
	}
	f.c.DeletePod("trace", p.name)
	f.cur.Running--
	f.cur.UsedGPUMilli -= p.info.TotalGPUMilli()
	f.cur.UsedMilliCPU -= p.info.MilliCPU
	f.cur.UsedMemoryMiB -= p.info.MemoryMiB
}

// podOf is pod p as the controller sees it at at.
func (f *faultRun) podOf(at time.Duration, p *incarnation) core.Pod {
	cp := core.Pod{Namespace: "trace", Name: p.name, UID: p.name, NodeName: f.names[p.node], Tolerations: p.info.Tolerations,
		Conditions: []core.PodCondition{{Type: core.PodReady, Status: conditions.True}}}
	if f.down[p.node] > 0 {
		cp.Conditions[0].Status = conditions.False
	}
	if p.terminating {
		t := f.now(at)
		cp.DeletionTimestamp = &t
	}
	return cp
}

// incNumber is the number of p among its trace pod's pods: 1 for the
// trace's own, n+1 for the n-th replacement.
func (f *faultRun) incNumber(p *incarnation) int {
	return f.res.Pods[p.of].Evictions + 1
}

// settle steps the controller and the scheduler at at until neither has
// anything more to do there.
func (f *faultRun) settle(at time.Duration) {
	for range 1000 {
		r := f.c.StepAll(f.now(at))
		f.ctlNext = r.Next
		changed := f.handle(at, r.Actions)
		round := f.s.Step(f.now(at))
		for _, b := range round.Bound {
			p := f.inc[b.Pod]
			p.node, p.boundAt = b.Node, at
			o := &f.res.Pods[p.of]
			if !o.Bound {
				o.Bound, o.BoundAt, o.Node = true, at, f.names[b.Node]
			}
			for _, k := range p.evictions {
				f.res.Evictions[k].Rebound, f.res.Evictions[k].HasRebound = at, true
			}
			p.evictions = nil
			f.cur.Pending--
			f.cur.Running++
			f.cur.UsedGPUMilli += p.info.TotalGPUMilli()
			f.cur.UsedMilliCPU += p.info.MilliCPU
			f.cur.UsedMemoryMiB += p.info.MemoryMiB
			f.c.UpsertPod(f.podOf(at, p))
			if tp := f.r.Pods[p.of]; f.r.Durations && tp.HasScheduled && tp.HasDeleted {
				e := leaving(at, at+max(tp.Deleted-tp.Scheduled, 0), p.of)
				e.inc = f.incNumber(p)
				heap.Push(&f.evs, e)
			}
			changed = true
		}
		for _, fl := range round.Failed {
			if p := f.inc[fl.Pod]; p != nil {
				o := &f.res.Pods[p.of]
				o.Failures++
				o.Reason = fl.Reason
			}
		}
		if !changed {
			return
		}
	}
}

// handle carries out the controller's actions at at; it reports whether
// any changed what the scheduler or the controller sees.
func (f *faultRun) handle(at time.Duration, acts []nodelifecycle.Action) bool {
	changed := false
	for _, a := range acts {
		switch a.Kind {
		case nodelifecycle.KindTaints:
			i, ok := f.index[a.Node]
			if !ok {
				continue
			}
			f.taints[i] = taints.Apply(f.taints[i], a.Add, a.Remove)
			_ = f.s.SetTaints(f.now(at), a.Node, f.taints[i])
		case nodelifecycle.KindEvict:
			p := f.inc[a.Pod.Name]
			if p == nil || p.terminating || p.node < 0 {
				continue
			}
			f.evict(at, p)
			changed = true
		}
	}
	return changed
}

// cordon marks node i unschedulable at at when its first maintenance
// begins (by +1), and schedulable again when its last one ends (by -1):
// the controller's condition taint (node.kubernetes.io/unschedulable)
// reaches the scheduler.
func (f *faultRun) cordon(at time.Duration, i, by int) {
	was := f.cordons[i] > 0
	f.cordons[i] += by
	if now := f.cordons[i] > 0; now != was {
		if n, ok := f.c.Node(f.names[i]); ok {
			n.Unschedulable = now
			f.c.UpsertNode(n)
		}
	}
}

// drain evicts node i's pods at at, as kubectl drain does before a
// maintenance, in name order; their controllers re-create them at once.
func (f *faultRun) drain(at time.Duration, i int) {
	var on []*incarnation
	for _, p := range f.inc {
		if p.node == i && !p.terminating {
			on = append(on, p)
		}
	}
	slices.SortFunc(on, func(a, b *incarnation) int { return strings.Compare(a.name, b.name) })
	for _, p := range on {
		f.evictAs(at, p, true)
	}
}

// evict evicts pod p at at for the node lifecycle and queues its
// replacement.
func (f *faultRun) evict(at time.Duration, p *incarnation) { f.evictAs(at, p, false) }

// evictAs evicts pod p at at (drained: by a maintenance) and queues its
// replacement.
func (f *faultRun) evictAs(at time.Duration, p *incarnation, drained bool) {
	o := &f.res.Pods[p.of]
	o.Evictions++
	f.res.Evictions = append(f.res.Evictions, Eviction{Pod: p.name, Of: f.r.Pods[p.of].Name, Node: f.names[p.node],
		At: at, Ran: at - p.boundAt, GPUMilli: p.info.TotalGPUMilli(), Drained: drained})
	k := len(f.res.Evictions) - 1
	if f.down[p.node] > 0 {
		p.terminating = true
		f.c.UpsertPod(f.podOf(at, p))
		f.dying[p.node] = append(f.dying[p.node], p)
	} else {
		f.remove(at, p)
	}
	if f.current[p.of] != p {
		return // the trace's pod had left
	}
	info := f.r.Pods[p.of]
	rep := p.info
	f.arrive(at, p.of, rep, info.Name+"~"+strconv.Itoa(o.Evictions))
	f.current[p.of].evictions = append(f.current[p.of].evictions, k)
}

// sample records the cluster after at.
func (f *faultRun) sample(at time.Duration) {
	f.cur.At = at
	if len(f.res.Samples) == 0 && f.cur == (TimedSample{At: at}) {
		return // a fault before any pod: nothing to record yet
	}
	switch last := len(f.res.Samples) - 1; {
	case last >= 0 && f.res.Samples[last].At == at:
		f.res.Samples[last] = f.cur
	case last < 0 || !sameUse(f.res.Samples[last], f.cur):
		f.res.Samples = append(f.res.Samples, f.cur)
	}
}

// faultWindowsValid reports windows that cannot be replayed.
func faultWindowsValid(ws []trace.FaultWindow) error {
	for _, w := range ws {
		if w.Start < 0 || !w.Ongoing && w.End < w.Start {
			return fmt.Errorf("%w: a fault of node %q from %v to %v: times out of order", ErrInvalidConfig, w.Node, w.Start, w.End)
		}
	}
	return nil
}
