package cpu

import (
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"slices"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/keys"
	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// PolicyName is the static policy's name (--cpu-manager-policy=static), as
// its checkpoint records it.
const PolicyName = "static"

// ResourceName is the resource the policy gives hints for.
const ResourceName = "cpu"

// MaxHintNUMANodes is the most NUMA nodes the policy computes hints for:
// hints range over every subset of the nodes (upstream walks all 2^N-1 of
// them whatever the topology manager allows).
const MaxHintNUMANodes = 24

// ErrAllocation is wrapped by the errors of allocations that cannot be
// made; their text is upstream's.
var ErrAllocation = errors.New("cpu: allocation failed")

// allocationError carries upstream's text and matches ErrAllocation.
type allocationError struct{ err error }

func (e allocationError) Error() string        { return e.err.Error() }
func (e allocationError) Is(target error) bool { return target == ErrAllocation }
func (e allocationError) Unwrap() error        { return e.err }

// SMTAlignmentError is full-pcpus-only's refusal of a request (upstream's
// SMTAlignmentError; the kubelet reports its Type as the pod's admission
// failure reason).
type SMTAlignmentError struct {
	RequestedCPUs         int
	CPUsPerCore           int
	AvailablePhysicalCPUs int
	// CausedByPhysicalCPUs: too few free whole cores, rather than a
	// request that is not a multiple of CPUsPerCore.
	CausedByPhysicalCPUs bool
}

// Error returns upstream's message.
func (e SMTAlignmentError) Error() string {
	if e.CausedByPhysicalCPUs {
		return fmt.Sprintf("SMT Alignment Error: not enough free physical CPUs: available physical CPUs = %d, requested CPUs = %d, CPUs per core = %d", e.AvailablePhysicalCPUs, e.RequestedCPUs, e.CPUsPerCore)
	}
	return fmt.Sprintf("SMT Alignment Error: requested %d cpus not multiple cpus per core = %d", e.RequestedCPUs, e.CPUsPerCore)
}

// Type returns "SMTAlignmentError", the pod's admission failure reason.
func (e SMTAlignmentError) Type() string { return "SMTAlignmentError" }

// Config configures a static policy. The zero value is not usable (no
// Machine; NewStatic refuses it).
type Config struct {
	Machine *Machine
	// NumReserved is the number of CPUs kept out of exclusive allocation:
	// the kubelet's ceil(kube-reserved + system-reserved cpu).
	NumReserved int
	// Reserved is --reserved-cpus; when empty the policy chooses
	// NumReserved CPUs as upstream does (taken by topology from all CPUs,
	// the lowest cores first). Either way the set must have NumReserved
	// CPUs of the machine.
	Reserved cpuset.CPUSet
	Options  Options
	// TopologyPolicy is the topology manager's policy; align-by-socket is
	// refused under single-numa-node.
	TopologyPolicy topology.Policy
	// QOS is passed to cgroup.PodQOS to classify pods.
	QOS cgroup.QOSOptions
	// SMTCheckBeforeState checks full-pcpus-only before looking the
	// container up in the state, as upstream before 1.37: a container the
	// checkpoint already holds is refused (SMTAlignmentError) when its CPU
	// count breaks the current policy, say after a restart that turned
	// full-pcpus-only on. Off (1.37): it keeps its checkpointed CPUs.
	SMTCheckBeforeState bool
	// DistributedIgnoresAlignBySocket allocates with
	// distribute-cpus-across-numa without the align-by-socket option's
	// socket preference, as upstream before 1.37 did (its distributed
	// allocator took no socket argument). Off (1.37): TakeOptions.AlignBySocket
	// follows the option.
	DistributedIgnoresAlignBySocket bool
}

// ConfigFor returns the static policy's switches in Kubernetes release v
// (taken as release.Oldest or release.Current when outside them): the QoS
// rules of cgroup.QOSOptionsFor and, before 1.37, SMTCheckBeforeState and
// DistributedIgnoresAlignBySocket. The node's own settings (Machine, the
// reservation, Options, TopologyPolicy) are left for the caller, as
// cgroup.QOSConfigOptionsFor leaves the node's figures:
//
//	cfg := cpu.ConfigFor(release.V1_36)
//	cfg.Machine, cfg.NumReserved = m, 1
func ConfigFor(v release.Version) Config {
	old := !v.Clamp().AtLeast(release.V1_37)
	return Config{QOS: cgroup.QOSOptionsFor(v), SMTCheckBeforeState: old, DistributedIgnoresAlignBySocket: old}
}

// Static is the CPU Manager's static policy with its state: the shared
// pool (the default CPU set), the exclusive CPUs of each container, and
// the CPUs a pod's finished init containers leave for its next
// containers. It is a synchronous state machine (not safe for concurrent
// use): Hints and PodHints read it, Allocate and RemoveContainer change
// it, State returns it for the checkpoint.
//
// The zero value is not usable; call NewStatic and Start.
type Static struct {
	m                *Machine
	opts             Options
	qos              cgroup.QOSOptions
	smtFirst         bool
	noSocketSpread   bool
	groupSize        int
	reserved         cpuset.CPUSet
	reservedPhysical cpuset.CPUSet
	started          bool
	// The state (upstream's state.State) and the reusable CPUs by pod UID
	// (upstream's cpusToReuse).
	def        cpuset.CPUSet
	entries    map[string]map[string]cpuset.CPUSet
	podEntries map[string]cpuset.CPUSet
	reuse      map[string]cpuset.CPUSet
}

// Validate returns every problem of cfg at once, each naming the field:
// no machine, a negative reservation, incompatible options, and
// align-by-socket under the single-numa-node topology policy or on a
// machine with more sockets than NUMA nodes (upstream's
// ValidateStaticPolicyOptions). The reserved CPUs themselves are checked
// by NewStatic, which chooses them.
func (cfg Config) Validate() error {
	var errs []error
	if cfg.Machine == nil {
		errs = append(errs, fmt.Errorf("%w: Config.Machine is nil", ErrInvalid))
	}
	if cfg.NumReserved < 0 {
		errs = append(errs, fmt.Errorf("%w: Config.NumReserved %d is negative", ErrInvalid, cfg.NumReserved))
	}
	if err := cfg.Options.Validate(); err != nil {
		errs = append(errs, err)
	}
	if cfg.Options.AlignBySocket {
		if cfg.TopologyPolicy == topology.PolicySingleNUMANode {
			errs = append(errs, fmt.Errorf("%w: topology manager policy %s is incompatible with CPU manager policy option %s", ErrInvalid, topology.PolicySingleNUMANode, OptionAlignBySocket))
		}
		if m := cfg.Machine; m != nil && m.topo.NumSockets > m.topo.NumNUMANodes {
			errs = append(errs, fmt.Errorf("%w: %s is not compatible with hardware where number of sockets (%d) is more than number of NUMA nodes (%d)", ErrInvalid, OptionAlignBySocket, m.topo.NumSockets, m.topo.NumNUMANodes))
		}
	}
	return errors.Join(errs...)
}

// NewStatic returns the static policy for cfg (upstream's NewStaticPolicy):
// options validated against each other and the machine (align-by-socket
// needs no more sockets than NUMA nodes and a topology policy other than
// single-numa-node) and the reserved CPUs chosen. Call Start before use.
func NewStatic(cfg Config) (*Static, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := cfg.Machine
	p := &Static{m: m, opts: cfg.Options, qos: cfg.QOS, smtFirst: cfg.SMTCheckBeforeState, noSocketSpread: cfg.DistributedIgnoresAlignBySocket, groupSize: m.topo.CPUsPerCore(), reuse: map[string]cpuset.CPUSet{}}
	reserved := cfg.Reserved
	if reserved.IsEmpty() {
		reserved, _ = p.take(m.all, m.topo.NumCPUs, cfg.NumReserved)
	}
	if reserved.Size() != cfg.NumReserved {
		return nil, fmt.Errorf("%w: unable to reserve the required amount of CPUs (size of %q did not equal %d)", ErrInvalid, reserved.String(), cfg.NumReserved)
	}
	var physical []cpuset.CPUSet
	for _, c := range reserved.List() {
		if !m.all.has(c) {
			return nil, fmt.Errorf("%w: reserved CPU %d is not a CPU of the machine", ErrInvalid, c)
		}
		physical = append(physical, m.toCPUSet(m.core.groups[m.core.of[c]].cpus))
	}
	p.reserved = reserved
	p.reservedPhysical = cpuset.CPUSet{}.Union(physical...)
	return p, nil
}

// Reserved returns the CPUs kept out of exclusive allocation.
func (p *Static) Reserved() cpuset.CPUSet { return p.reserved }

// ReservedPhysical returns the reserved CPUs with every thread of their
// cores, which full-pcpus-only keeps out of its count of free cores.
func (p *Static) ReservedPhysical() cpuset.CPUSet { return p.reservedPhysical }

// Start adopts st, the state restored from the checkpoint (the zero state
// when there is none), after checking it as upstream's validateState does:
// an empty shared pool is filled with every CPU (less the reserved ones
// under strict-cpu-reservation) when nothing is assigned and refused
// otherwise; the reserved CPUs must all be in the pool (none of them under
// strict-cpu-reservation); no container's CPUs may be in the pool; and
// the pool with every assignment must be exactly the machine's CPUs. The
// error names what is wrong. Pod-level entries are kept as they are.
func (p *Static) Start(st checkpoint.CPUState) error {
	all := p.m.CPUs()
	if p.opts.StrictCPUReservation {
		all = all.Difference(p.reserved)
	}
	entries := cloneEntries(st.Entries)
	def := st.DefaultCPUSet
	if def.IsEmpty() {
		if len(entries) != 0 {
			return fmt.Errorf("%w: default cpuset cannot be empty", ErrInvalid)
		}
		def = all
	} else {
		if p.opts.StrictCPUReservation {
			if in := p.reserved.Intersection(def); !in.IsEmpty() {
				return fmt.Errorf("%w: some of strictly reserved cpus: %q are present in defaultCpuSet: %q", ErrInvalid, in.String(), def.String())
			}
		} else if !p.reserved.IsSubsetOf(def) {
			return fmt.Errorf("%w: not all reserved cpus: %q are present in defaultCpuSet: %q", ErrInvalid, p.reserved.String(), def.String())
		}
		known := def
		for _, pod := range keys.Sorted(entries) {
			for _, name := range keys.Sorted(entries[pod]) {
				cs := entries[pod][name]
				if !def.Intersection(cs).IsEmpty() {
					return fmt.Errorf("%w: pod: %s, container: %s cpuset: %q overlaps with default cpuset %q", ErrInvalid, pod, name, cs.String(), def.String())
				}
				known = known.Union(cs)
			}
		}
		if !known.Equals(all) {
			return fmt.Errorf("%w: current set of available CPUs %q doesn't match with CPUs in state %q", ErrInvalid, all.String(), known.String())
		}
	}
	p.def, p.entries, p.podEntries = def, entries, maps.Clone(st.PodEntries)
	if p.entries == nil {
		p.entries = map[string]map[string]cpuset.CPUSet{}
	}
	p.started = true
	return nil
}

// Adopt takes st as the policy's state without Start's checks, for
// simulations and tests that build a state by hand (upstream's own tests
// set states that way). The policy behaves on it exactly as upstream's on
// the same state.
func (p *Static) Adopt(st checkpoint.CPUState) {
	p.def, p.entries, p.podEntries = st.DefaultCPUSet, cloneEntries(st.Entries), maps.Clone(st.PodEntries)
	if p.entries == nil {
		p.entries = map[string]map[string]cpuset.CPUSet{}
	}
	p.started = true
}

func cloneEntries(e map[string]map[string]cpuset.CPUSet) map[string]map[string]cpuset.CPUSet {
	if e == nil {
		return nil
	}
	out := make(map[string]map[string]cpuset.CPUSet, len(e))
	for pod, cs := range e {
		out[pod] = maps.Clone(cs)
		if out[pod] == nil {
			out[pod] = map[string]cpuset.CPUSet{}
		}
	}
	return out
}

// State returns the policy's state for the checkpoint (a copy).
func (p *Static) State() checkpoint.CPUState {
	return checkpoint.CPUState{PolicyName: PolicyName, DefaultCPUSet: p.def, Entries: cloneEntries(p.entries), PodEntries: maps.Clone(p.podEntries)}
}

// Shared returns the shared pool: the CPUs of containers without
// exclusive ones.
func (p *Static) Shared() cpuset.CPUSet { return p.def }

// Available returns the CPUs exclusive allocations can take: the shared
// pool less the reserved CPUs.
func (p *Static) Available() cpuset.CPUSet { return p.def.Difference(p.reserved) }

// CPUs returns the CPUs container runs on: its exclusive ones, else the
// shared pool (upstream's GetCPUSetOrDefault).
func (p *Static) CPUs(podUID, container string) cpuset.CPUSet {
	if cs, ok := p.entries[podUID][container]; ok {
		return cs
	}
	return p.def
}

// Assigned returns container's exclusive CPUs and whether it has any.
func (p *Static) Assigned(podUID, container string) (cpuset.CPUSet, bool) {
	cs, ok := p.entries[podUID][container]
	return cs, ok
}

var errNotStarted = fmt.Errorf("%w: the policy was not started (call Start)", ErrInvalid)

// findContainer returns pod's container called name and whether it is an
// init container.
func findContainer(pod core.Pod, name string) (core.Container, bool, error) {
	for _, c := range pod.InitContainers {
		if c.Name == name {
			return c, true, nil
		}
	}
	for _, c := range pod.Containers {
		if c.Name == name {
			return c, false, nil
		}
	}
	return core.Container{}, false, fmt.Errorf("%w: pod %q has no container %q", ErrInvalid, pod.UID, name)
}

// GuaranteedCPUs returns the exclusive CPUs c asks for in pod (upstream's
// guaranteedCPUs): its cpu request when the pod is Guaranteed and the
// request a whole number of CPUs, else 0.
func (p *Static) GuaranteedCPUs(pod core.Pod, c core.Container) int {
	if cgroup.PodQOS(pod, p.qos) != core.PodQOSGuaranteed {
		return 0
	}
	q := c.Resources.Requests[core.ResourceCPU]
	v := q.Value()
	if v*1000 != q.MilliValue() {
		return 0
	}
	return int(v)
}

// PodGuaranteedCPUs returns the exclusive CPUs pod needs at once
// (upstream's podGuaranteedCPUs): the larger of its longest-running need
// (app containers plus sidecars) and each regular init container's need
// plus the sidecars started before it.
func (p *Static) PodGuaranteedCPUs(pod core.Pod) int {
	initMax, sidecars := 0, 0
	for _, c := range pod.InitContainers {
		if _, ok := c.Resources.Requests[core.ResourceCPU]; !ok {
			continue
		}
		n := p.GuaranteedCPUs(pod, c)
		if c.RestartPolicy == core.ContainerRestartPolicyAlways {
			sidecars += n
		} else if sidecars+n > initMax {
			initMax = sidecars + n
		}
	}
	apps := 0
	for _, c := range pod.Containers {
		if _, ok := c.Resources.Requests[core.ResourceCPU]; !ok {
			continue
		}
		apps += p.GuaranteedCPUs(pod, c)
	}
	return max(initMax, apps+sidecars)
}

// Hints returns the policy's topology hints for one container (upstream's
// GetTopologyHints): nil (no preference) for a container without
// exclusive CPUs or a pod with pod-level resources; for a container that
// already has CPUs, the hints of those CPUs, or an empty list (no
// affinity can satisfy it) when their number differs from the request;
// otherwise a hint for every set of NUMA nodes whose free CPUs (with the
// pod's reusable ones, all of which must be on the set) cover the
// request, preferred when it has as few nodes as the smallest set whose
// CPUs could ever hold the request (or, with align-by-socket, spans as
// few sockets as that needs).
func (p *Static) Hints(pod core.Pod, container string) (topology.ProviderHints, error) {
	if !p.started {
		return nil, errNotStarted
	}
	c, _, err := findContainer(pod, container)
	if err != nil {
		return nil, err
	}
	requested := p.GuaranteedCPUs(pod, c)
	if requested == 0 || pod.PodLevelResourcesSet() {
		return nil, nil
	}
	if err := p.checkHintNodes(); err != nil {
		return nil, err
	}
	if allocated, ok := p.entries[pod.UID][container]; ok {
		if allocated.Size() != requested {
			return topology.ProviderHints{ResourceName: {}}, nil
		}
		return topology.ProviderHints{ResourceName: p.hints(allocated, nil, requested)}, nil
	}
	reusable := p.reuse[pod.UID]
	return topology.ProviderHints{ResourceName: p.hints(p.Available(), reusable.List(), requested)}, nil
}

// PodHints returns the policy's topology hints for a whole pod (the
// topology manager's pod scope; upstream's GetPodTopologyHints): as Hints
// for PodGuaranteedCPUs, the CPUs its containers already have counted as
// reusable, or the hints of exactly those CPUs when they are all it needs.
func (p *Static) PodHints(pod core.Pod) (topology.ProviderHints, error) {
	if !p.started {
		return nil, errNotStarted
	}
	requested := p.PodGuaranteedCPUs(pod)
	if requested == 0 || pod.PodLevelResourcesSet() {
		return nil, nil
	}
	if err := p.checkHintNodes(); err != nil {
		return nil, err
	}
	var assigned []cpuset.CPUSet
	for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
		allocated, ok := p.entries[pod.UID][c.Name]
		if !ok {
			continue
		}
		if allocated.Size() != p.GuaranteedCPUs(pod, c) {
			return topology.ProviderHints{ResourceName: {}}, nil
		}
		assigned = append(assigned, allocated)
	}
	mine := cpuset.CPUSet{}.Union(assigned...)
	if mine.Size() == requested {
		return topology.ProviderHints{ResourceName: p.hints(mine, nil, requested)}, nil
	}
	reusable := p.reuse[pod.UID].Union(mine)
	return topology.ProviderHints{ResourceName: p.hints(p.Available(), reusable.List(), requested)}, nil
}

func (p *Static) checkHintNodes() error {
	if n := len(p.m.numaIDs); n > MaxHintNUMANodes {
		return fmt.Errorf("%w: the machine has %d NUMA nodes; hints range over every subset, at most %d nodes", ErrInvalid, n, MaxHintNUMANodes)
	}
	return nil
}

// hints is upstream's generateCPUTopologyHints. available is given as a
// CPU set; reusable as a list (every CPU of it must be on the mask).
func (p *Static) hints(available cpuset.CPUSet, reusable []int, request int) []topology.Hint {
	m := p.m
	// Free CPUs per NUMA node ID (a CPU the machine lacks counts on node
	// 0, as upstream reads the zero CPUInfo), total CPUs per node, and the
	// nodes the reusable CPUs need.
	var avail, total [64]int
	for c := available.Next(0); c >= 0; c = available.Next(c + 1) {
		avail[m.numaOf(c)]++
		if c == cpuset.MaxCPU {
			break
		}
	}
	for _, g := range m.numa.groups {
		total[g.id] = g.size
	}
	var need topology.BitMask
	for _, c := range reusable {
		need |= 1 << uint(m.numaOf(c))
	}
	minSize := len(m.numaIDs)
	hints := []topology.Hint{}
	topology.EachMask(m.numaIDs, func(mask topology.BitMask) {
		inMask, matching := 0, len(reusable)
		for v := uint64(mask); v != 0; v &= v - 1 {
			id := bits.TrailingZeros64(v)
			inMask += total[id]
			matching += avail[id]
		}
		if inMask >= request && mask.Count() < minSize {
			minSize = mask.Count()
		}
		if need&^mask != 0 {
			return
		}
		if matching < request {
			return
		}
		hints = append(hints, topology.Hint{Affinity: mask})
	})
	for i := range hints {
		if p.opts.AlignBySocket && p.socketAligned(hints[i].Affinity, minSize) {
			hints[i].Preferred = true
			continue
		}
		if hints[i].Affinity.Count() == minSize {
			hints[i].Preferred = true
		}
	}
	return hints
}

// socketAligned is upstream's isHintSocketAligned: the hint's nodes span
// as few sockets as minSize nodes need.
func (p *Static) socketAligned(mask topology.BitMask, minSize int) bool {
	t := p.m.topo
	perSocket := t.NumNUMANodes / t.NumSockets
	if perSocket == 0 {
		return false
	}
	minSockets := (minSize + perSocket - 1) / perSocket
	sockets := map[int]bool{}
	for _, id := range mask.Nodes() {
		if g := p.numaGroup(id); g >= 0 {
			p.m.all.eachAnd(p.m.numa.groups[g].cpus, func(c int) { sockets[p.m.topo.CPUs[c].SocketID] = true })
		}
	}
	return len(sockets) == minSockets
}

// numaGroup returns the group index of NUMA node id, or -1.
func (p *Static) numaGroup(id int) int {
	i, ok := slices.BinarySearch(p.m.numaIDs, id)
	if !ok {
		return -1
	}
	return i
}
