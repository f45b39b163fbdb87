package sched

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"time"

	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/sim/trace"
	"github.com/nodelife/nodelife/taints"
)

// Replay runs a trace over time: each pod arrives at its creation time,
// waits in the Scheduler's queue until a node has room (retried as
// kube-scheduler's queue retries it), runs, and leaves at its deletion
// time, freeing its node; a pod deleted while it waits leaves the queue.
// Pods without a deletion time never leave. This is the replay mode with
// departures, beside Experiment's arrival-only protocol.
//
// With Durations, a pod the trace's cluster scheduled runs for as long as
// it ran there (deletion minus scheduled time) from when it is bound
// here, so a pod that waits longer here also leaves later; a pod the
// trace never scheduled still leaves at its deletion time.
//
// At one instant, pods leave first, then pods arrive, then the Scheduler
// steps; a pod that arrives and leaves at the same instant leaves after
// that step. The nodes, sorted by name, are put in the order of a random
// permutation drawn from Seed, the run's node order by which equal
// scores are decided, as in Experiment. The run ends with the last
// departure or, when pods remain that never leave, once no pod is left
// to try: pods still waiting then had their last try against the cluster
// as it stays, so a periodic retry could not place them.
//
// The zero value is not usable: it has no nodes and no Policy.
type Replay struct {
	// Config is the Scheduler's: the policy, its seed, the queue's
	// settings.
	Config
	// Nodes and Pods are the cluster and the trace.
	Nodes []trace.NodeRecord
	Pods  []trace.PodRecord
	// Durations keeps each pod's running time instead of its deletion
	// time (see Replay).
	Durations bool
	// Load, when above 0, divides the pods' creation times by it, each pod
	// staying as long as in the trace (its deletion and scheduled times
	// move with its creation): Load 10 brings ten times the pods at once.
	// 0 and 1 replay the trace's times.
	Load float64
	// Faults are windows in which a node's kubelet is silent (their Node
	// the cluster's names: trace.AssignFaults maps a fault trace's). With
	// any, the node lifecycle runs beside the scheduler (see
	// LeaseRenewInterval's file, faults.go, and Eviction).
	Faults []trace.FaultWindow
	// Lifecycle configures the node lifecycle controller of a Replay with
	// Faults; nil is nodelifecycle.DefaultConfig(), v1.37's.
	Lifecycle *nodelifecycle.Config
	// Tolerations, when set, gives each pod its own tolerations (the
	// trace formats have none); a Replay with Faults adds the
	// DefaultTolerationSeconds admission's to them.
	Tolerations func(trace.PodRecord) []taints.Toleration
}

// TimedSample is the cluster at one instant of a Replay, after it.
type TimedSample struct {
	// At is the instant, from the trace's start.
	At time.Duration
	// Pending and Running are the pods waiting and bound.
	Pending, Running int
	// UsedGPUMilli, UsedMilliCPU and UsedMemoryMiB are what the bound
	// pods request.
	UsedGPUMilli, UsedMilliCPU, UsedMemoryMiB int64
}

// PodOutcome is what became of one pod of a Replay. Times are from the
// trace's start.
type PodOutcome struct {
	// Name is the pod's name.
	Name string
	// Arrived is when it arrived; Bound whether it was bound, at BoundAt
	// to the node Node.
	Arrived, BoundAt time.Duration
	Bound            bool
	Node             string
	// Left is when it left (HasLeft); a pod that has not left by the end
	// is still there.
	Left    time.Duration
	HasLeft bool
	// Failures counts its attempts that found no node, and Reason is the
	// last one's reason (for a pod bound after failing, the reason it
	// waited).
	Failures int
	Reason   string
	// Evictions counts its pods the node lifecycle evicted (a Replay with
	// Faults); Bound and BoundAt are its first binding's.
	Evictions int
}

// ReplayResult is what a Replay gives.
type ReplayResult struct {
	// GPUs, MilliCPU and MemoryMiB are the cluster's.
	GPUs                int
	MilliCPU, MemoryMiB int64
	// Samples has one entry per instant at which a pod arrived, left or
	// was bound, in time order.
	Samples []TimedSample
	// Pods has one entry per pod, in the trace's order.
	Pods []PodOutcome
	// End is the run's last instant.
	End time.Duration
	// Evictions are the pods the node lifecycle evicted, in order (a
	// Replay with Faults).
	Evictions []Eviction
	// Nodes are the nodes at the end, in the run's node order.
	Nodes []NodeInfo
}

// event is an arrival or departure of pod (its index in Replay.Pods).
type event struct {
	at    time.Duration
	phase int // departures, arrivals, departures of pods that arrived at at
	pod   int
	inc   int // with faults: the pod's replacement it is the departure of (0: whichever)
}

const (
	phaseLeave = iota
	phaseArrive
	phaseLeaveSame
)

type events []event

func (h events) Len() int { return len(h) }
func (h events) Less(i, j int) bool {
	a, b := h[i], h[j]
	return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.phase, b.phase), cmp.Compare(a.pod, b.pod)) < 0
}
func (h events) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *events) Push(x any)   { *h = append(*h, x.(event)) }
func (h *events) Pop() any {
	e := (*h)[len(*h)-1]
	*h = (*h)[:len(*h)-1]
	return e
}

// Validate reports what makes r unusable: no nodes, a pod name twice, a
// pod the harness cannot take, or the Config's errors.
func (r Replay) Validate() error {
	var errs []error
	if len(r.Nodes) == 0 {
		errs = append(errs, fmt.Errorf("%w: no nodes", ErrInvalidConfig))
	}
	seen := make(map[string]bool, len(r.Pods))
	for _, p := range r.Pods {
		if seen[p.Name] {
			errs = append(errs, fmt.Errorf("%w: pod %q appears twice", ErrInvalidConfig, p.Name))
		}
		seen[p.Name] = true
		if p.GPUs > 1 && p.GPUMilli < MilliGPU {
			errs = append(errs, fmt.Errorf("%w: pod %q: a share of a GPU (%d) for %d GPUs", ErrInvalidConfig, p.Name, p.GPUMilli, p.GPUs))
		}
		if p.Created < 0 || p.HasDeleted && p.Deleted < p.Created || p.HasScheduled && p.Scheduled < p.Created {
			errs = append(errs, fmt.Errorf("%w: pod %q created at %v, deleted at %v, scheduled at %v: times out of order", ErrInvalidConfig, p.Name, p.Created, p.Deleted, p.Scheduled))
		}
	}
	if err := faultWindowsValid(r.Faults); err != nil {
		errs = append(errs, err)
	}
	if r.Lifecycle != nil {
		if err := r.Lifecycle.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if r.Load < 0 || math.IsNaN(r.Load) || math.IsInf(r.Load, 0) {
		errs = append(errs, fmt.Errorf("%w: Load %v must be a finite number >= 0", ErrInvalidConfig, r.Load))
	}
	return errors.Join(append([]error{r.Config.Validate()}, errs...)...)
}

// Run runs the replay.
func (r Replay) Run() (ReplayResult, error) {
	if err := r.Validate(); err != nil {
		return ReplayResult{}, err
	}
	nodes := slices.Clone(r.Nodes)
	slices.SortStableFunc(nodes, func(a, b trace.NodeRecord) int { return strings.Compare(a.Name, b.Name) })
	perm := rand.New(rand.NewSource(r.Seed)).Perm(len(nodes))
	ordered := make([]NodeInfo, len(nodes))
	res := ReplayResult{Pods: make([]PodOutcome, len(r.Pods))}
	for i, n := range nodes {
		ordered[perm[i]] = NodeInfoOf(n)
		res.GPUs += n.GPUs
		res.MilliCPU += n.MilliCPU
		res.MemoryMiB += n.MemoryMiB
	}
	start := replayStart
	if r.Load > 0 && r.Load != 1 {
		r.Pods = slices.Clone(r.Pods)
		for i := range r.Pods {
			p := &r.Pods[i]
			f := float64(p.Created) / r.Load
			if f >= 1<<62 || p.Deleted-p.Created >= 1<<62-time.Duration(f) {
				return ReplayResult{}, fmt.Errorf("%w: Load %v puts pod %q beyond the times this can count", ErrInvalidConfig, r.Load, p.Name)
			}
			c := time.Duration(f)
			p.Deleted += c - p.Created
			p.Scheduled += c - p.Created
			p.Created = c
		}
	}
	byName := make(map[string]int, len(r.Pods))
	infos := make([]PodInfo, len(r.Pods))
	evs := make(events, 0, 2*len(r.Pods))
	for i, p := range r.Pods {
		byName[p.Name] = i
		infos[i] = PodInfoOf(p)
		if r.Tolerations != nil {
			infos[i].Tolerations = slices.Clone(r.Tolerations(p))
		}
		res.Pods[i] = PodOutcome{Name: p.Name, Arrived: p.Created}
		evs = append(evs, event{at: p.Created, phase: phaseArrive, pod: i})
		if p.HasDeleted && (!r.Durations || !p.HasScheduled) {
			evs = append(evs, leaving(p.Created, p.Deleted, i))
		}
	}
	heap.Init(&evs)
	if len(r.Faults) > 0 {
		return r.runFaults(ordered, &res, infos, evs)
	}
	s, err := NewScheduler(start, r.Config, ordered)
	if err != nil {
		return ReplayResult{}, err
	}

	var cur TimedSample
	for {
		var at time.Duration
		next := s.Next()
		switch {
		case len(evs) > 0 && (next.IsZero() || evs[0].at <= next.Sub(start)):
			at = evs[0].at
			phase := evs[0].phase
			for len(evs) > 0 && evs[0].at == at && evs[0].phase == phase {
				e := heap.Pop(&evs).(event)
				o := &res.Pods[e.pod]
				if e.phase == phaseArrive {
					if err := s.Add(start.Add(at), infos[e.pod]); err != nil {
						return ReplayResult{}, err
					}
					cur.Pending++
					continue
				}
				if o.HasLeft {
					continue
				}
				d, err := s.Delete(start.Add(at), o.Name)
				if err != nil {
					return ReplayResult{}, err
				}
				o.Left, o.HasLeft = at, true
				if d.Node < 0 {
					cur.Pending--
					continue
				}
				p := &infos[e.pod]
				cur.Running--
				cur.UsedGPUMilli -= p.TotalGPUMilli()
				cur.UsedMilliCPU -= p.MilliCPU
				cur.UsedMemoryMiB -= p.MemoryMiB
			}
		case !next.IsZero() && len(evs) > 0:
			at = next.Sub(start)
		default:
			// No event is left: pods still pending cannot be placed
			// (see Replay).
			if len(res.Samples) > 0 {
				res.End = res.Samples[len(res.Samples)-1].At
			}
			res.Nodes = s.Nodes()
			return res, nil
		}
		round := s.Step(start.Add(at))
		for _, b := range round.Bound {
			i := byName[b.Pod]
			o, p := &res.Pods[i], &infos[i]
			o.Bound, o.BoundAt, o.Node = true, at, s.Nodes()[b.Node].Name
			cur.Pending--
			cur.Running++
			cur.UsedGPUMilli += p.TotalGPUMilli()
			cur.UsedMilliCPU += p.MilliCPU
			cur.UsedMemoryMiB += p.MemoryMiB
			if tp := r.Pods[i]; r.Durations && tp.HasScheduled && tp.HasDeleted {
				heap.Push(&evs, leaving(at, at+max(tp.Deleted-tp.Scheduled, 0), i))
			}
		}
		for _, f := range round.Failed {
			o := &res.Pods[byName[f.Pod]]
			o.Failures, o.Reason = f.Failures, f.Reason
		}
		cur.At = at
		switch last := len(res.Samples) - 1; {
		case last >= 0 && res.Samples[last].At == at:
			res.Samples[last] = cur
		case last < 0 || !sameUse(res.Samples[last], cur):
			res.Samples = append(res.Samples, cur)
		}
	}
}

// sameUse reports whether a and b have the same pods and allocation.
func sameUse(a, b TimedSample) bool {
	a.At = b.At
	return a == b
}

// Waits returns how long each bound pod waited from its arrival to its
// binding, in the order of Pods.
func (r ReplayResult) Waits() []time.Duration {
	var w []time.Duration
	for _, o := range r.Pods {
		if o.Bound {
			w = append(w, o.BoundAt-o.Arrived)
		}
	}
	return w
}

// Quantile returns the q-quantile (0 to 1) of ds by the nearest rank: the
// smallest value with at least q of them at or below it; 0 for none.
// ds need not be sorted.
func Quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	k := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// Use is a share of the cluster's resources allocated, from 0 to 1.
type Use struct {
	GPU, CPU, Memory float64
}

// MeanUse returns the allocation averaged over time, from the first
// sample to End, each sample weighted by how long it held; zero when the
// run has no time span or the cluster none of a resource.
func (r ReplayResult) MeanUse() Use {
	if len(r.Samples) == 0 || r.End <= r.Samples[0].At {
		return Use{}
	}
	var gpu, cpu, mem float64
	for i, s := range r.Samples {
		until := r.End
		if i+1 < len(r.Samples) {
			until = r.Samples[i+1].At
		}
		w := float64(until - s.At)
		gpu += w * float64(s.UsedGPUMilli)
		cpu += w * float64(s.UsedMilliCPU)
		mem += w * float64(s.UsedMemoryMiB)
	}
	span := float64(r.End - r.Samples[0].At)
	var u Use
	if r.GPUs > 0 {
		u.GPU = gpu / span / float64(int64(r.GPUs)*MilliGPU)
	}
	if r.MilliCPU > 0 {
		u.CPU = cpu / span / float64(r.MilliCPU)
	}
	if r.MemoryMiB > 0 {
		u.Memory = mem / span / float64(r.MemoryMiB)
	}
	return u
}

// leaving is the departure at left of pod i, which arrived or was bound
// at from.
func leaving(from, left time.Duration, i int) event {
	if left <= from {
		return event{at: from, phase: phaseLeaveSame, pod: i}
	}
	return event{at: left, phase: phaseLeave, pod: i}
}
