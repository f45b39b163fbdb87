package memory

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/keys"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
)

// ErrAllocation is wrapped by the errors of allocations that cannot be
// made; their text is upstream's.
var ErrAllocation = errors.New("memory: allocation failed")

// allocationError carries upstream's text ("[memorymanager] ...") and
// matches ErrAllocation.
type allocationError string

func (e allocationError) Error() string        { return "[memorymanager] " + string(e) }
func (e allocationError) Is(target error) bool { return target == ErrAllocation }

// guaranteed reports whether pod gets NUMA memory: Guaranteed and without
// pod-level resources (the PodLevelResourceManagers gate is off).
func (p *Static) guaranteed(pod core.Pod) bool {
	return cgroup.PodQOS(pod, p.qos) == core.PodQOSGuaranteed && !pod.PodLevelResourcesSet()
}

// Hints returns the policy's topology hints for one container (upstream's
// GetTopologyHints): nil (no preference) unless the pod is Guaranteed
// without pod-level resources; for a container that already has blocks,
// their affinities, preferred, per resource (nil when they no longer match
// the requests); otherwise, per requested resource, a hint for every set
// of NUMA nodes whose allocatable memory covers every request, that may
// form a group (a node of a multi-node group serves only that group, a
// node serving single-node allocations no group) and whose free memory
// with the pod's reusable memory covers every request, preferred when it
// has as few nodes as the smallest set whose allocatable memory covers
// the requests. When no set qualifies the map is empty, which the
// topology manager reads as no preference. A request that is not a whole
// number of bytes is an error; upstream then gives no hints (nil), as
// Hints does with the error.
func (p *Static) Hints(pod core.Pod, container string) (topology.ProviderHints, error) {
	if !p.started {
		return nil, errNotStarted
	}
	c, err := findContainer(pod, container)
	if err != nil {
		return nil, err
	}
	if cgroup.PodQOS(pod, p.qos) != core.PodQOSGuaranteed {
		return nil, nil
	}
	req, err := ContainerRequests(c)
	if err != nil {
		return nil, err
	}
	if pod.PodLevelResourcesSet() {
		return nil, nil
	}
	if blocks, ok := p.entries[pod.UID][container]; ok {
		return regenerate(blocks, req), nil
	}
	return p.hints(pod.UID, req), nil
}

// PodHints returns the policy's topology hints for a whole pod (the
// topology manager's pod scope; upstream's GetPodTopologyHints): as Hints
// for PodRequests. If one of its containers already has blocks, the hints
// are regenerated from that container's blocks against the pod's requests,
// as upstream does.
func (p *Static) PodHints(pod core.Pod) (topology.ProviderHints, error) {
	if !p.started {
		return nil, errNotStarted
	}
	if cgroup.PodQOS(pod, p.qos) != core.PodQOSGuaranteed {
		return nil, nil
	}
	req, err := PodRequests(pod)
	if err != nil {
		return nil, err
	}
	if pod.PodLevelResourcesSet() || len(req) == 0 {
		return nil, nil
	}
	for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
		if blocks, ok := p.entries[pod.UID][c.Name]; ok {
			return regenerate(blocks, req), nil
		}
	}
	return p.hints(pod.UID, req), nil
}

// regenerate is upstream's regenerateHints.
func regenerate(blocks []checkpoint.MemoryBlock, req map[string]uint64) topology.ProviderHints {
	out := topology.ProviderHints{}
	for name := range req {
		out[name] = []topology.Hint{}
	}
	if len(blocks) != len(req) {
		return nil
	}
	for _, b := range blocks {
		want, ok := req[b.Type]
		if !ok || b.Size != want {
			return nil
		}
		mask, err := topology.NewBitMask(b.NUMAAffinity...)
		if err != nil {
			return nil
		}
		out[b.Type] = append(out[b.Type], topology.Hint{Affinity: mask, Preferred: true})
	}
	return out
}

// hints is upstream's calculateHints on the current machine state.
func (p *Static) hints(uid string, req map[string]uint64) topology.ProviderHints {
	ms := p.machine
	ids := keys.Sorted(ms)
	names := keys.Sorted(req)
	// free and allocatable bytes per node (by position in ids) and
	// requested resource (a missing table counts as none).
	free := make([][]uint64, len(ids))
	alloc := make([][]uint64, len(ids))
	var pos [64]int
	for i, id := range ids {
		if id >= 0 && id < 64 {
			pos[id] = i
		}
		free[i], alloc[i] = make([]uint64, len(names)), make([]uint64, len(names))
		for r, name := range names {
			if t := table(ms, id, name); t != nil {
				free[i][r], alloc[i][r] = t.Free, t.Allocatable
			}
		}
	}
	// Each node's group as a mask (exact: no duplicate or outside
	// node), whether it serves allocations, and whether its group is
	// itself alone, for the group rules of every mask.
	var used, alone topology.BitMask
	var group [64]topology.BitMask
	var exact [64]bool
	for _, id := range ids {
		n := ms[id]
		if id < 0 || id > 63 || n == nil {
			continue
		}
		g, err := topology.NewBitMask(n.Cells...)
		group[id], exact[id] = g, err == nil && g.Count() == len(n.Cells)
		if n.NumberOfAssignments > 0 {
			used |= 1 << uint(id)
		}
		if len(n.Cells) <= 1 {
			alone |= 1 << uint(id)
		}
	}
	reuse := p.reuse[uid]
	minSize := len(ids)
	out := topology.ProviderHints{}
	totalFree, totalAlloc := make([]uint64, len(names)), make([]uint64, len(names))
	topology.EachMask(ids, func(mask topology.BitMask) {
		clear(totalFree)
		clear(totalAlloc)
		for v := uint64(mask); v != 0; v &= v - 1 {
			i := pos[bits.TrailingZeros64(v)]
			for r := range names {
				totalFree[r] += free[i][r]
				totalAlloc[r] += alloc[i][r]
			}
		}
		for r, name := range names {
			if totalAlloc[r] < req[name] {
				return
			}
		}
		if mask.Count() < minSize {
			minSize = mask.Count()
		}
		if mask.Count() == 1 {
			if mask&alone == 0 {
				return // a node of a multi-node group
			}
		} else {
			for v := uint64(mask & used); v != 0; v &= v - 1 {
				id := bits.TrailingZeros64(v)
				if !exact[id] || group[id] != mask {
					return // serves single-node allocations, or another group
				}
			}
		}
		for r, name := range names {
			if totalFree[r]+reuse[mask][name] < req[name] {
				return
			}
		}
		for _, name := range names {
			out[name] = append(out[name], topology.Hint{Affinity: mask})
		}
	})
	for _, name := range names {
		for i := range out[name] {
			out[name][i].Preferred = out[name][i].Affinity.Count() == minSize
		}
	}
	return out
}

// violates is upstream's isAffinityViolatingNUMAAllocations: a node of a
// multi-node mask already serves single-node allocations or another group.
func (p *Static) violates(mask topology.BitMask) bool {
	nodes := mask.Nodes()
	if len(nodes) == 1 {
		return false
	}
	for _, id := range nodes {
		n := p.machine[id]
		if n == nil || n.NumberOfAssignments == 0 {
			continue
		}
		if len(n.Cells) == 1 || !slices.Equal(sortedInts(n.Cells), nodes) {
			return true
		}
	}
	return false
}

// reusable is upstream's getPodReusableMemory.
func (p *Static) reusable(uid string, mask topology.BitMask, name string) uint64 {
	return p.reuse[uid][mask][name]
}

// satisfies is upstream's isAffinitySatisfyRequest: the free memory of
// mask's nodes covers every request.
func (p *Static) satisfies(mask topology.BitMask, req map[string]uint64) bool {
	for name, want := range req {
		var total uint64
		for _, id := range mask.Nodes() {
			if t := table(p.machine, id, name); t != nil {
				total += t.Free
			}
		}
		if total < want {
			return false
		}
	}
	return true
}

// bestHint is upstream's findBestHint: preferred first, then the narrowest
// mask; the first of equals. An empty list gives a hint without affinity.
func bestHint(hs []topology.Hint) topology.Hint {
	best, found := topology.Hint{Any: true}, false
	for _, h := range hs {
		switch {
		case !found:
			best, found = h, true
		case h.Preferred && !best.Preferred:
			best = h
		case h.Preferred == best.Preferred && h.Affinity.IsNarrowerThan(best.Affinity):
			best = h
		}
	}
	return best
}

// Allocate places container's memory and huge pages on NUMA nodes
// (upstream's Allocate), hint being the topology manager's choice for it.
// It returns the container's blocks: none for a pod that is not
// Guaranteed or has pod-level resources, the existing ones for a
// container that has them. A hint without affinity (Any, or the zero Hint
// the none policy merges to) is replaced by the best hint the policy
// would give (preferred, narrowest); a hint whose free memory falls short
// is widened to the best of the policy's hints that contain it. The nodes
// chosen must not mix single- and multi-node allocations. The requests
// are taken from the nodes in order, less the memory the pod's finished
// init containers left on the same nodes; an init container's blocks
// become reusable by the pod's next containers, whose blocks are then
// counted against the init containers' (upstream's bookkeeping). A failed
// allocation changes nothing and returns an error wrapping ErrAllocation
// with upstream's text; a hint naming a NUMA node the machine state lacks
// is refused (ErrInvalid), where upstream panics.
func (p *Static) Allocate(pod core.Pod, container string, hint topology.Hint) ([]checkpoint.MemoryBlock, error) {
	if !p.started {
		return nil, errNotStarted
	}
	c, err := findContainer(pod, container)
	if err != nil {
		return nil, err
	}
	if !p.guaranteed(pod) {
		return nil, nil
	}
	if blocks, ok := p.entries[pod.UID][container]; ok {
		p.updateReuse(pod, container, blocks)
		return cloneBlocks(blocks), nil
	}
	req, err := ContainerRequests(c)
	if err != nil {
		return nil, err
	}
	if !hint.Any {
		for _, id := range hint.Affinity.Nodes() {
			if p.machine[id] == nil {
				// Upstream dereferences the missing node and panics.
				return nil, fmt.Errorf("%w: hint %v names NUMA node %d, which the machine state does not have", ErrInvalid, hint, id)
			}
		}
	}
	// The policy's own hints, computed once: the state does not change
	// before the allocation (upstream computes them for each use).
	var own topology.ProviderHints
	ownHints := func() topology.ProviderHints {
		if own == nil {
			own = p.hints(pod.UID, req)
		}
		return own
	}
	best := hint
	if hint.Any || hint.Affinity == 0 {
		hs := ownHints()
		if len(hs) == 0 {
			return nil, allocationError("failed to get the default NUMA affinity, no NUMA nodes with enough memory is available")
		}
		def := bestHint(hs[ResourceMemory])
		if !def.Preferred && hint.Preferred {
			return nil, allocationError("failed to find the default preferred hint")
		}
		best = def
	}
	if best.Any || !p.satisfies(best.Affinity, req) {
		var within []topology.Hint
		for _, h := range ownHints()[ResourceMemory] {
			if best.Any || h.Affinity&best.Affinity == best.Affinity {
				within = append(within, h)
			}
		}
		if len(within) == 0 {
			return nil, allocationError("failed to find NUMA nodes to extend the current topology hint")
		}
		ext := bestHint(within)
		if !ext.Preferred && best.Preferred {
			return nil, allocationError("failed to find the extended preferred hint")
		}
		best = ext
	}
	if p.violates(best.Affinity) {
		return nil, allocationError("preferred hint violates NUMA node allocation")
	}
	nodes := best.Affinity.Nodes()
	var blocks []checkpoint.MemoryBlock
	for _, name := range keys.Sorted(req) {
		size := req[name]
		blocks = append(blocks, checkpoint.MemoryBlock{NUMAAffinity: slices.Clone(nodes), Type: name, Size: size})
		if r := p.reusable(pod.UID, best.Affinity, name); r >= size {
			size = 0
		} else {
			size -= r
		}
		p.place(nodes, name, size)
	}
	p.updateReuse(pod, container, blocks)
	if p.entries[pod.UID] == nil {
		p.entries[pod.UID] = map[string][]checkpoint.MemoryBlock{}
	}
	stored := cloneBlocks(blocks)
	if stored == nil {
		stored = []checkpoint.MemoryBlock{}
	}
	p.entries[pod.UID][container] = stored
	p.countAgainstInit(pod, container, blocks)
	return cloneBlocks(blocks), nil
}

// place is upstream's updateMachineState: every node of the affinity
// counts one more assignment and joins the group; size bytes are taken
// from the nodes in order.
func (p *Static) place(nodes []int, name string, size uint64) {
	for _, id := range nodes {
		n := p.machine[id]
		if n == nil {
			continue
		}
		n.NumberOfAssignments++
		n.Cells = slices.Clone(nodes)
		if size == 0 {
			continue
		}
		if t := n.MemoryMap[name]; t != nil {
			size = take(t, size)
		}
	}
}

// updateReuse is upstream's updatePodReusableMemory: only the current pod
// keeps reusable memory; a regular init container's blocks make up to
// their size reusable on their nodes, any other container uses it up.
func (p *Static) updateReuse(pod core.Pod, container string, blocks []checkpoint.MemoryBlock) {
	for uid := range p.reuse {
		if uid != pod.UID {
			delete(p.reuse, uid)
		}
	}
	if regularInit(pod, container) {
		if p.reuse[pod.UID] == nil {
			p.reuse[pod.UID] = map[topology.BitMask]map[string]uint64{}
		}
		for _, b := range blocks {
			mask, _ := topology.NewBitMask(b.NUMAAffinity...)
			if p.reuse[pod.UID][mask] == nil {
				p.reuse[pod.UID][mask] = map[string]uint64{}
			}
			if b.Size > p.reuse[pod.UID][mask][b.Type] {
				p.reuse[pod.UID][mask][b.Type] = b.Size
			}
		}
		return
	}
	for _, b := range blocks {
		mask, _ := topology.NewBitMask(b.NUMAAffinity...)
		if r := p.reusable(pod.UID, mask, b.Type); r != 0 {
			if b.Size >= r {
				p.reuse[pod.UID][mask][b.Type] = 0
			} else {
				p.reuse[pod.UID][mask][b.Type] -= b.Size
			}
		}
	}
}

func regularInit(pod core.Pod, container string) bool {
	for _, c := range pod.InitContainers {
		if c.Name == container {
			return c.RestartPolicy != core.ContainerRestartPolicyAlways
		}
	}
	return false
}

// countAgainstInit is upstream's updateInitContainersMemoryBlocks: the
// blocks of the regular init containers before container shrink by what
// container takes of the same type on the same nodes, so that the pod's
// blocks add up to what it holds.
func (p *Static) countAgainstInit(pod core.Pod, container string, blocks []checkpoint.MemoryBlock) {
	for _, cb := range blocks {
		size := cb.Size
		for _, ic := range pod.InitContainers {
			if ic.Name == container || size == 0 {
				break
			}
			if ic.RestartPolicy == core.ContainerRestartPolicyAlways {
				continue
			}
			ibs := p.entries[pod.UID][ic.Name]
			if len(ibs) == 0 {
				continue
			}
			for i := range ibs {
				b := &ibs[i]
				if b.Size == 0 || b.Type != cb.Type || !sameMask(b.NUMAAffinity, cb.NUMAAffinity) {
					continue
				}
				if b.Size > size {
					b.Size -= size
					size = 0
				} else {
					size -= b.Size
					b.Size = 0
				}
			}
		}
	}
}

// sameMask compares two affinities as NUMA masks (false when either has a
// node outside 0-63, as upstream's bitmask refuses it).
func sameMask(a, b []int) bool {
	ma, err1 := topology.NewBitMask(a...)
	mb, err2 := topology.NewBitMask(b...)
	return err1 == nil && err2 == nil && ma == mb
}

// RemoveContainer releases container's blocks (upstream's
// RemoveContainer): each block's nodes count one assignment less (a node
// left without any leaves its group) and the block's bytes go back from
// reserved to free, node by node. It returns the blocks released.
func (p *Static) RemoveContainer(podUID, container string) []checkpoint.MemoryBlock {
	blocks, ok := p.entries[podUID][container]
	if !ok {
		return nil
	}
	delete(p.entries[podUID], container)
	if len(p.entries[podUID]) == 0 {
		delete(p.entries, podUID)
	}
	for _, b := range blocks {
		size := b.Size
		for _, id := range b.NUMAAffinity {
			n := p.machine[id]
			if n == nil {
				continue
			}
			n.NumberOfAssignments--
			if n.NumberOfAssignments == 0 {
				n.Cells = []int{id}
			}
			if size == 0 {
				continue
			}
			t := n.MemoryMap[b.Type]
			if t == nil || t.Reserved == 0 {
				continue
			}
			if t.Reserved < size {
				size -= t.Reserved
				t.Free += t.Reserved
				t.Reserved = 0
				continue
			}
			t.Free += size
			t.Reserved -= size
			size = 0
		}
	}
	return blocks
}

// Provider returns p as a hint provider of a topology.Manager, named
// ResourceMemory ("memory"): its Hints, PodHints and Allocate (the blocks
// allocated are p's to report, through Blocks or State).
func (p *Static) Provider() topology.Provider {
	return topology.Provider{
		Name:     ResourceMemory,
		Hints:    p.Hints,
		PodHints: p.PodHints,
		Allocate: func(pod core.Pod, container string, hint topology.Hint) error {
			_, err := p.Allocate(pod, container, hint)
			return err
		},
		Demands: p.Demands,
	}
}

// Demands returns what a Guaranteed container (the whole pod when
// container is "") asks of memory and each huge page size, in bytes, and
// per NUMA node the free and allocatable bytes of each: for the topology
// manager's explanation of a refusal. Nil for other pods, a pod with
// pod-level resources, a request that is not whole bytes, or before
// Start. Memory an init container leaves to reuse is not counted free.
func (p *Static) Demands(pod core.Pod, container string) []topology.Demand {
	if !p.started || pod.PodLevelResourcesSet() || cgroup.PodQOS(pod, p.qos) != core.PodQOSGuaranteed {
		return nil
	}
	var req map[string]uint64
	var err error
	if container == "" {
		req, err = PodRequests(pod)
	} else {
		var c core.Container
		if c, err = findContainer(pod, container); err == nil {
			req, err = ContainerRequests(c)
		}
	}
	if err != nil {
		return nil
	}
	var out []topology.Demand
	for _, name := range keys.Sorted(req) {
		d := topology.Demand{Resource: name, Asked: clampInt64(req[name]), Free: map[int]int64{}, Capacity: map[int]int64{}, Bytes: true}
		for id := range p.machine {
			if t := table(p.machine, id, name); t != nil {
				d.Free[id], d.Capacity[id] = clampInt64(t.Free), clampInt64(t.Allocatable)
			}
		}
		out = append(out, d)
	}
	return out
}

// clampInt64 converts a byte count, capping it at the largest int64.
func clampInt64(v uint64) int64 {
	if v > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}
