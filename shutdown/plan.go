package shutdown

import (
	"math"
	"sort"
	"time"

	"github.com/nodelife/nodelife/core"
)

// PodPriority returns the priority that places p in a phase: spec.priority,
// or 0 when it is nil. Under ResolvePriorityClass a nil priority is
// replaced by the value of the pod's priorityClassName when that is known;
// fromClass reports that.
func (c Config) PodPriority(p core.Pod) (priority int32, fromClass bool) {
	if p.Priority != nil {
		return *p.Priority, false
	}
	if c.ResolvePriorityClass && p.PriorityClassName != "" {
		switch p.PriorityClassName {
		case SystemNodeCritical:
			return SystemNodeCriticalPriority, true
		case SystemClusterCritical:
			return core.SystemCriticalPriority, true
		}
		if v, ok := c.PriorityClasses[p.PriorityClassName]; ok {
			return v, true
		}
	}
	return DefaultPriority, false
}

// PhaseIndex returns the index of the phase that takes pods of priority in
// phases, which must be sorted by ascending priority (Config.Phases): the
// phase with the largest priority <= priority, or the first phase when
// priority is below them all; -1 when phases is empty. Among equal
// priorities an exact match takes the first entry and a larger value the
// last, as upstream's search does.
func PhaseIndex(phases []PhaseConfig, priority int32) int {
	n := len(phases)
	if n == 0 {
		return -1
	}
	i := sort.Search(n, func(i int) bool { return phases[i].Priority >= priority })
	switch {
	case i == n:
		return n - 1
	case phases[i].Priority > priority && i > 0:
		return i - 1
	}
	return i
}

// PodGracePeriod returns the grace period, in seconds, a pod gets in a
// phase of phaseSeconds: its own terminationGracePeriodSeconds when set and
// not longer, else the phase's.
func PodGracePeriod(p core.Pod, phaseSeconds int64) int64 {
	if t := p.TerminationGracePeriodSeconds; t != nil && *t <= phaseSeconds {
		return *t
	}
	return phaseSeconds
}

// MinKillTimeout is the least time the kubelet's pod workers give a kill
// call (pod_workers minTimeout); a kill with grace period g may block for
// max(1.5 x g, 10s), so a kill can outlive a short phase.
const MinKillTimeout = 10 * time.Second

// KillTimeout returns how long a kill with the given grace period may block
// in the kubelet: max(1.5 x grace, MinKillTimeout).
func KillTimeout(gracePeriodSeconds int64) time.Duration {
	d := seconds(gracePeriodSeconds)
	switch {
	case d <= 0:
		return MinKillTimeout
	case d > math.MaxInt64/3*2:
		return math.MaxInt64
	}
	return max(d+d/2, MinKillTimeout)
}

// PlannedPod is one pod of a phase.
type PlannedPod struct {
	// Pod is the pod.
	Pod core.Pod
	// Priority is the priority that placed it (Config.PodPriority).
	Priority int32
	// PriorityFromClass reports that Priority came from the pod's
	// priorityClassName (Config.ResolvePriorityClass).
	PriorityFromClass bool
	// GracePeriodSeconds is the grace period of its kill (PodGracePeriod).
	GracePeriodSeconds int64
	// Overruns reports that the kill may outlive the phase: KillTimeout of
	// the grace period exceeds the phase's period, so the next phase can
	// start while this pod is still being killed.
	Overruns bool
}

// Phase is one phase of a Plan.
type Phase struct {
	PhaseConfig
	// Pods are the phase's pods, in input order (upstream kills them in
	// parallel, in the order it lists them).
	Pods []PlannedPod
	// Start and Deadline are the latest times, after the shutdown began,
	// at which the phase starts and ends: phases run back to back, each
	// for at most its period, and a phase without pods takes no time
	// (Start == Deadline).
	Start, Deadline time.Duration
}

// Skipped reports that the phase has no pods: upstream moves straight on to
// the next one.
func (p Phase) Skipped() bool { return len(p.Pods) == 0 }

// Plan is a graceful shutdown worked out in advance: which pods die in
// which phase, with what grace period, by when.
type Plan struct {
	// Phases are all configured phases in the order they run (ascending
	// priority), skipped ones included.
	Phases []Phase
	// Total is the longest the phases can take: the sum of the periods of
	// the phases that have pods (negative periods count as 0).
	Total time.Duration
	// InhibitDelay is the delay the inhibitor lock must be allowed
	// (RequiredInhibitDelay): the sum of every configured period, which is
	// what upstream asks logind for.
	InhibitDelay time.Duration
}

// Enabled reports whether graceful shutdown is on: whether any phase is
// configured.
func (p Plan) Enabled() bool { return len(p.Phases) > 0 }

// Plan validates c and divides pods into its phases: each pod goes to the
// phase PhaseIndex picks for its Config.PodPriority, with the grace period
// PodGracePeriod gives. With graceful shutdown off (no phases) the plan is
// empty. pods is not modified.
func (c Config) Plan(pods []core.Pod) (Plan, error) {
	if err := c.Validate(); err != nil {
		return Plan{}, err
	}
	return c.plan(c.Phases(), pods), nil
}

// plan does Plan's work for phases already validated and sorted.
func (c Config) plan(phases []PhaseConfig, pods []core.Pod) Plan {
	p := Plan{InhibitDelay: RequiredInhibitDelay(phases)}
	if len(phases) == 0 {
		return p
	}
	// Two passes: count, then fill one backing array, so that the whole
	// plan costs two allocations however many pods there are.
	type placed struct {
		phase     int32
		prio      int32
		fromClass bool
	}
	place := make([]placed, len(pods))
	counts := make([]int, len(phases))
	for i := range pods {
		prio, fromClass := c.PodPriority(pods[i])
		j := PhaseIndex(phases, prio)
		place[i] = placed{int32(j), prio, fromClass}
		counts[j]++
	}
	all := make([]PlannedPod, len(pods))
	p.Phases = make([]Phase, len(phases))
	off := 0
	for j := range phases {
		p.Phases[j].PhaseConfig = phases[j]
		p.Phases[j].Pods = all[off : off : off+counts[j]]
		off += counts[j]
	}
	for i := range pods {
		ph := &p.Phases[place[i].phase]
		grace := PodGracePeriod(pods[i], ph.ShutdownGracePeriodSeconds)
		ph.Pods = append(ph.Pods, PlannedPod{
			Pod:                pods[i],
			Priority:           place[i].prio,
			PriorityFromClass:  place[i].fromClass,
			GracePeriodSeconds: grace,
			Overruns:           KillTimeout(grace) > ph.Period(),
		})
	}
	var at time.Duration
	for j := range p.Phases {
		ph := &p.Phases[j]
		ph.Start = at
		if !ph.Skipped() {
			at = addSat(at, max(ph.Period(), 0))
		}
		ph.Deadline = at
	}
	p.Total = at
	return p
}
