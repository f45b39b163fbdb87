package cpu

import (
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// take picks n CPUs of free as the policy's options say (upstream's
// takeByTopology); size is the caller's set size for the error text.
func (p *Static) take(free set, size, n int) (cpuset.CPUSet, error) {
	o := TakeOptions{PreferUncoreCache: p.opts.PreferAlignByUncoreCache, ExactFreeCores: p.opts.ExactFreeCores, KeepBestCombination: p.opts.KeepBestCombination}
	if p.opts.DistributeCPUsAcrossCores {
		o.Sorting = Spread
	}
	var r set
	var err error
	if p.opts.DistributeCPUsAcrossNUMA {
		o.AlignBySocket = p.opts.AlignBySocket && !p.noSocketSpread
		group := 1
		if p.opts.FullPCPUsOnly {
			group = p.groupSize
		}
		r, err = p.m.takeDistributed(free, size, n, group, o, nil)
	} else {
		r, err = p.m.takePacked(free, size, n, o)
	}
	if err != nil {
		return cpuset.CPUSet{}, allocationError{err}
	}
	return p.m.toCPUSet(r), nil
}

// takeFrom is take on a CPU set.
func (p *Static) takeFrom(from cpuset.CPUSet, n int) (cpuset.CPUSet, error) {
	return p.take(p.m.fromCPUSet(from), from.Size(), n)
}

// Allocate gives container of pod its exclusive CPUs (upstream's
// Allocate), hint being the topology manager's choice for it (a hint with
// Any, or none under the topology manager's none policy, has no
// affinity). It returns the container's exclusive CPUs, empty when it
// runs in the shared pool: a container of a pod that is not Guaranteed,
// with a fractional cpu request, or of a pod with pod-level resources. A
// container that already has CPUs keeps them, since 1.37 even when they
// break a full-pcpus-only policy turned on since (Config.SMTCheckBeforeState
// refuses it, as before). Otherwise the CPUs of the
// hint's NUMA nodes (its sockets', with align-by-socket) are taken first,
// from the free CPUs and those the pod's finished init containers left,
// then the rest from anywhere; they leave the shared pool. A regular init
// container's CPUs become reusable by the pod's next containers; a
// sidecar's and an app container's are not. full-pcpus-only refuses a
// request that is not a multiple of the CPUs per core or exceeds the free
// whole cores (SMTAlignmentError). A failed allocation changes nothing and
// returns an error wrapping ErrAllocation with upstream's text.
func (p *Static) Allocate(pod core.Pod, container string, hint topology.Hint) (cpuset.CPUSet, error) {
	if !p.started {
		return cpuset.CPUSet{}, errNotStarted
	}
	c, _, err := findContainer(pod, container)
	if err != nil {
		return cpuset.CPUSet{}, err
	}
	n := p.GuaranteedCPUs(pod, c)
	if n == 0 || pod.PodLevelResourcesSet() {
		return cpuset.CPUSet{}, nil
	}
	if p.smtFirst {
		if err := p.checkSMT(n); err != nil {
			return cpuset.CPUSet{}, err
		}
	}
	if cs, ok := p.entries[pod.UID][container]; ok {
		// Since 1.37 a checkpointed container keeps its CPUs even when they
		// break the current full-pcpus-only policy.
		p.updateReuse(pod, container, cs)
		return cs, nil
	}
	if !p.smtFirst {
		if err := p.checkSMT(n); err != nil {
			return cpuset.CPUSet{}, err
		}
	}
	reusable := p.reuse[pod.UID]
	allocatable := p.Available().Union(reusable)
	var result cpuset.CPUSet
	if !hint.Any {
		aligned := p.alignedCPUs(hint.Affinity, allocatable)
		got, err := p.takeFrom(aligned, min(n, aligned.Size()))
		if err != nil {
			return cpuset.CPUSet{}, err
		}
		result = got
	}
	if left := n - result.Size(); left > 0 {
		// What the hint's nodes lacked, from anywhere (upstream also asks
		// for zero CPUs, which takes none).
		rest, err := p.takeFrom(allocatable.Difference(result), left)
		if err != nil {
			return cpuset.CPUSet{}, err
		}
		result = result.Union(rest)
	}
	p.def = p.def.Difference(result)
	if p.entries[pod.UID] == nil {
		p.entries[pod.UID] = map[string]cpuset.CPUSet{}
	}
	p.entries[pod.UID][container] = result
	p.updateReuse(pod, container, result)
	return result, nil
}

// checkSMT is upstream's enforceSMTAlignment.
func (p *Static) checkSMT(n int) error {
	if !p.opts.FullPCPUsOnly {
		return nil
	}
	if n%p.groupSize != 0 {
		return SMTAlignmentError{RequestedCPUs: n, CPUsPerCore: p.groupSize}
	}
	if free := p.def.Difference(p.reservedPhysical).Size(); n > free {
		return SMTAlignmentError{RequestedCPUs: n, CPUsPerCore: p.groupSize, AvailablePhysicalCPUs: free, CausedByPhysicalCPUs: true}
	}
	return nil
}

// alignedCPUs returns the CPUs of allocatable on the NUMA nodes of mask,
// or with align-by-socket on their sockets (upstream's getAlignedCPUs).
func (p *Static) alignedCPUs(mask topology.BitMask, allocatable cpuset.CPUSet) cpuset.CPUSet {
	m := p.m
	on := m.newSet()
	for _, id := range mask.Nodes() {
		g := p.numaGroup(id)
		if g < 0 {
			continue
		}
		for i, w := range m.numa.groups[g].cpus {
			on[i] |= w
		}
	}
	if p.opts.AlignBySocket {
		sockets := m.newSet()
		m.all.eachAnd(on, func(c int) {
			for i, w := range m.socket.groups[m.socket.of[c]].cpus {
				sockets[i] |= w
			}
		})
		on = sockets
	}
	return m.toCPUSet(on).Intersection(allocatable)
}

// updateReuse is upstream's updateCPUsToReuse: only the current pod keeps
// reusable CPUs; a regular init container adds its CPUs, any other
// container takes its CPUs out.
func (p *Static) updateReuse(pod core.Pod, container string, cs cpuset.CPUSet) {
	for uid := range p.reuse {
		if uid != pod.UID {
			delete(p.reuse, uid)
		}
	}
	for _, c := range pod.InitContainers {
		if c.Name != container {
			continue
		}
		if c.RestartPolicy != core.ContainerRestartPolicyAlways {
			p.reuse[pod.UID] = p.reuse[pod.UID].Union(cs)
			return
		}
		break
	}
	p.reuse[pod.UID] = p.reuse[pod.UID].Difference(cs)
}

// Reusable returns the CPUs the pod's finished init containers left for
// its next containers.
func (p *Static) Reusable(podUID string) cpuset.CPUSet { return p.reuse[podUID] }

// RemoveContainer releases container's exclusive CPUs to the shared pool
// (upstream's RemoveContainer), except those another container of the pod
// also holds (an init container's CPUs reused by an app container). It
// returns the CPUs released.
func (p *Static) RemoveContainer(podUID, container string) cpuset.CPUSet {
	cs, ok := p.entries[podUID][container]
	if !ok {
		return cpuset.CPUSet{}
	}
	delete(p.entries[podUID], container)
	if len(p.entries[podUID]) == 0 {
		delete(p.entries, podUID)
	}
	var inUse []cpuset.CPUSet
	for _, other := range p.entries[podUID] {
		inUse = append(inUse, other)
	}
	release := cs.Difference(cpuset.CPUSet{}.Union(inUse...))
	p.def = p.def.Union(release)
	return release
}

// Provider returns p as a hint provider of a topology.Manager, named
// ResourceName ("cpu"): its Hints, PodHints and Allocate (the CPUs
// allocated are p's to report, through Assigned or State).
func (p *Static) Provider() topology.Provider {
	return topology.Provider{
		Name:     ResourceName,
		Hints:    p.Hints,
		PodHints: p.PodHints,
		Allocate: func(pod core.Pod, container string, hint topology.Hint) error {
			_, err := p.Allocate(pod, container, hint)
			return err
		},
		Demands: p.Demands,
	}
}

// Demands returns what the container (the whole pod when container is
// "") asks of exclusive CPUs and, per NUMA node, the CPUs free for it (the
// shared pool without the reserved CPUs, plus the CPUs the pod's init
// containers leave to reuse) and the node's CPUs: for the topology
// manager's explanation of a refusal. Nil when it asks no exclusive CPU,
// for a pod with pod-level resources, or before Start.
func (p *Static) Demands(pod core.Pod, container string) []topology.Demand {
	if !p.started || pod.PodLevelResourcesSet() {
		return nil
	}
	var requested int
	if container == "" {
		requested = p.PodGuaranteedCPUs(pod)
	} else if c, _, err := findContainer(pod, container); err == nil {
		requested = p.GuaranteedCPUs(pod, c)
	}
	if requested == 0 {
		return nil
	}
	d := topology.Demand{Resource: ResourceName, Asked: int64(requested), Free: map[int]int64{}, Capacity: map[int]int64{}}
	free := p.Available().Union(p.reuse[pod.UID])
	for c := free.Next(0); c >= 0; c = free.Next(c + 1) {
		d.Free[p.m.numaOf(c)]++
		if c == cpuset.MaxCPU {
			break
		}
	}
	for _, g := range p.m.numa.groups {
		d.Capacity[g.id] = int64(g.size)
	}
	return []topology.Demand{d}
}
