package memory

import (
	"errors"
	"fmt"
	"slices"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/keys"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
)

// PolicyName is the static policy's name (--memory-manager-policy=Static),
// as its checkpoint records it.
const PolicyName = "Static"

// Config configures a static policy. The zero value is not usable (no
// reserved memory, which the kubelet requires; NewStatic refuses it).
type Config struct {
	// Nodes are the machine's NUMA nodes (IDs 0-63).
	Nodes []NUMANode
	// Reserved is the memory reserved per NUMA node and resource, as
	// SystemReserved returns it; some memory must be reserved.
	Reserved map[int]map[string]uint64
	// QOS is passed to cgroup.PodQOS to classify pods.
	QOS cgroup.QOSOptions
}

// Static is the Memory Manager's static policy with its state: the
// machine state (each NUMA node's memory and huge page tables, its
// assignments and group) and each container's blocks, and the memory a
// pod's finished init containers leave for its next containers. It is a
// synchronous state machine (not safe for concurrent use).
//
// The zero value is not usable; call NewStatic and Start.
type Static struct {
	nodes    []NUMANode
	reserved map[int]map[string]uint64
	qos      cgroup.QOSOptions
	started  bool
	machine  map[int]*checkpoint.NUMANodeState
	entries  map[string]map[string][]checkpoint.MemoryBlock
	podBlks  map[string][]checkpoint.MemoryBlock
	// reuse is upstream's initContainersReusableMemory: by pod UID, NUMA
	// mask and resource.
	reuse map[string]map[topology.BitMask]map[string]uint64
}

// Validate returns every problem of cfg at once: no memory reserved on
// any node (upstream's NewPolicyStatic refuses that), and NUMA node IDs
// outside 0-63 or listed twice, each named.
func (cfg Config) Validate() error {
	var errs []error
	var total uint64
	for _, byName := range cfg.Reserved {
		total += byName[ResourceMemory]
	}
	if total == 0 {
		errs = append(errs, fmt.Errorf("%w: you should specify the system reserved memory (Config.Reserved has no memory)", ErrInvalid))
	}
	seen := map[int]bool{}
	for _, n := range cfg.Nodes {
		if n.ID < 0 || n.ID > 63 {
			errs = append(errs, fmt.Errorf("%w: NUMA node %d is outside 0-63", ErrInvalid, n.ID))
		} else if seen[n.ID] {
			errs = append(errs, fmt.Errorf("%w: NUMA node %d is listed twice", ErrInvalid, n.ID))
		}
		seen[n.ID] = true
	}
	return errors.Join(errs...)
}

// NewStatic returns the static policy for cfg (upstream's
// NewPolicyStatic): it refuses a configuration without reserved memory,
// and NUMA node IDs outside 0-63 or listed twice. Call Start before use.
func NewStatic(cfg Config) (*Static, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Static{nodes: slices.Clone(cfg.Nodes), reserved: cfg.Reserved, qos: cfg.QOS, reuse: map[string]map[topology.BitMask]map[string]uint64{}}, nil
}

// Start adopts st, the state restored from the checkpoint (the zero state
// when there is none), after upstream's checks (validateState): an empty
// machine state becomes the default one (DefaultMachineState) when no
// container holds memory and is refused otherwise; otherwise the state
// must be what the default machine state becomes with every container's
// blocks placed on it (same tables, assignment counts and groups, and the
// same free and reserved memory per group).
func (p *Static) Start(st checkpoint.MemoryState) error {
	ms := cloneMachine(st.MachineState)
	entries := cloneEntries(st.Entries)
	if len(ms) == 0 {
		if len(entries) != 0 {
			return fmt.Errorf("%w: machine state can not be empty when it has memory assignments", ErrInvalid)
		}
		ms = DefaultMachineState(p.nodes, p.reserved)
	} else {
		for id, n := range ms {
			if n == nil {
				return fmt.Errorf("%w: NUMA node %d of the machine state is null", ErrInvalid, id)
			}
		}
		want := DefaultMachineState(p.nodes, p.reserved)
		for _, pod := range keys.Sorted(entries) {
			for _, name := range keys.Sorted(entries[pod]) {
				if err := placeExpected(want, entries[pod][name], pod, name); err != nil {
					return err
				}
			}
		}
		if err := CompareMachineStates(ms, want); err != nil {
			return fmt.Errorf("%w: the expected machine state is different from the real one (%v)", ErrInvalid, err)
		}
	}
	p.adopt(ms, entries, st.PodEntries)
	return nil
}

// Adopt takes st as the policy's state without Start's checks, for
// simulations and tests that build a state by hand (upstream's tests set
// states that way).
func (p *Static) Adopt(st checkpoint.MemoryState) {
	p.adopt(cloneMachine(st.MachineState), cloneEntries(st.Entries), st.PodEntries)
}

func (p *Static) adopt(ms map[int]*checkpoint.NUMANodeState, entries map[string]map[string][]checkpoint.MemoryBlock, pod map[string][]checkpoint.MemoryBlock) {
	if entries == nil {
		entries = map[string]map[string][]checkpoint.MemoryBlock{}
	}
	p.machine, p.entries, p.started = ms, entries, true
	p.podBlks = make(map[string][]checkpoint.MemoryBlock, len(pod))
	for uid, bs := range pod {
		p.podBlks[uid] = cloneBlocks(bs)
	}
	if pod == nil {
		p.podBlks = nil
	}
}

// placeExpected is upstream's updateExpectedMachineState.
func placeExpected(ms map[int]*checkpoint.NUMANodeState, blocks []checkpoint.MemoryBlock, pod, container string) error {
	for _, b := range blocks {
		size := b.Size
		for _, id := range b.NUMAAffinity {
			n, ok := ms[id]
			if !ok {
				return fmt.Errorf("%w: (pod: %s, container: %s) the memory assignment uses the NUMA that does not exist", ErrInvalid, pod, container)
			}
			n.NumberOfAssignments++
			n.Cells = slices.Clone(b.NUMAAffinity)
			t, ok := n.MemoryMap[b.Type]
			if !ok || t == nil {
				return fmt.Errorf("%w: (pod: %s, container: %s) the memory assignment uses memory resource that does not exist", ErrInvalid, pod, container)
			}
			size = take(t, size)
		}
	}
	return nil
}

// take moves up to size bytes of t from free to reserved and returns what
// is left to place (upstream's per-node step of updateMachineState).
func take(t *checkpoint.MemoryTable, size uint64) uint64 {
	if size == 0 || t.Free == 0 {
		return size
	}
	if t.Free >= size {
		t.Reserved += size
		t.Free -= size
		return 0
	}
	size -= t.Free
	t.Reserved += t.Free
	t.Free = 0
	return size
}

// CompareMachineStates compares two machine states as the kubelet does
// when it validates a restored state (upstream's areMachineStatesEqual):
// the same nodes, each with the same assignment count and group, the same
// tables with the same total, system-reserved and allocatable bytes, and
// for each table the same free and reserved bytes summed over the node's
// group (within a multi-node group, which node holds the bytes does not
// matter). It returns nil, or an error naming the first difference.
func CompareMachineStates(a, b map[int]*checkpoint.NUMANodeState) error {
	if why := machinesDiffer(a, b); why != "" {
		return fmt.Errorf("memory: machine states differ: %s", why)
	}
	return nil
}

// machinesDiffer names the first difference CompareMachineStates finds,
// or returns "".
func machinesDiffer(a, b map[int]*checkpoint.NUMANodeState) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d NUMA nodes, expected %d", len(a), len(b))
	}
	for _, id := range keys.Sorted(a) {
		na, nb := a[id], b[id]
		if na == nil || nb == nil {
			return fmt.Sprintf("NUMA node %d is not expected", id)
		}
		if na.NumberOfAssignments != nb.NumberOfAssignments {
			return fmt.Sprintf("NUMA node %d has %d assignments, expected %d", id, na.NumberOfAssignments, nb.NumberOfAssignments)
		}
		if !sameGroup(na.Cells, nb.Cells) {
			return fmt.Sprintf("NUMA node %d is in group %v, expected %v", id, na.Cells, nb.Cells)
		}
		if len(na.MemoryMap) != len(nb.MemoryMap) {
			return fmt.Sprintf("NUMA node %d has %d memory tables, expected %d", id, len(na.MemoryMap), len(nb.MemoryMap))
		}
		for _, name := range keys.Sorted(na.MemoryMap) {
			ta, tb := na.MemoryMap[name], nb.MemoryMap[name]
			if tb == nil {
				return fmt.Sprintf("NUMA node %d has no expected %s table", id, name)
			}
			if ta == nil {
				return fmt.Sprintf("NUMA node %d has a null %s table", id, name)
			}
			if ta.TotalMemSize != tb.TotalMemSize || ta.SystemReserved != tb.SystemReserved || ta.Allocatable != tb.Allocatable {
				return fmt.Sprintf("NUMA node %d %s: total/system reserved/allocatable %d/%d/%d, expected %d/%d/%d", id, name,
					ta.TotalMemSize, ta.SystemReserved, ta.Allocatable, tb.TotalMemSize, tb.SystemReserved, tb.Allocatable)
			}
			var freeA, resA, freeB, resB uint64
			for _, c := range na.Cells {
				if t := table(a, c, name); t != nil {
					freeA, resA = freeA+t.Free, resA+t.Reserved
				}
				if t := table(b, c, name); t != nil {
					freeB, resB = freeB+t.Free, resB+t.Reserved
				}
			}
			if freeA != freeB || resA != resB {
				return fmt.Sprintf("NUMA node %d %s: group %v free/reserved %d/%d, expected %d/%d", id, name, na.Cells, freeA, resA, freeB, resB)
			}
		}
	}
	return ""
}

// table returns node id's table of name, or nil.
func table(ms map[int]*checkpoint.NUMANodeState, id int, name string) *checkpoint.MemoryTable {
	if n := ms[id]; n != nil {
		return n.MemoryMap[name]
	}
	return nil
}

// sameGroup compares two groups as sets in sorted order (upstream's
// areGroupsEqual, without sorting its arguments in place).
func sameGroup(a, b []int) bool {
	return slices.Equal(sortedInts(a), sortedInts(b))
}

func sortedInts(s []int) []int {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// State returns the policy's state for the checkpoint (a copy).
func (p *Static) State() checkpoint.MemoryState {
	st := checkpoint.MemoryState{PolicyName: PolicyName, MachineState: cloneMachine(p.machine), Entries: cloneEntries(p.entries)}
	if p.podBlks != nil {
		st.PodEntries = map[string][]checkpoint.MemoryBlock{}
		for uid, bs := range p.podBlks {
			st.PodEntries[uid] = cloneBlocks(bs)
		}
	}
	return st
}

// Blocks returns container's blocks and whether it has an entry.
func (p *Static) Blocks(podUID, container string) ([]checkpoint.MemoryBlock, bool) {
	bs, ok := p.entries[podUID][container]
	return cloneBlocks(bs), ok
}

var errNotStarted = fmt.Errorf("%w: the policy was not started (call Start)", ErrInvalid)

func findContainer(pod core.Pod, name string) (core.Container, error) {
	for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
		if c.Name == name {
			return c, nil
		}
	}
	return core.Container{}, fmt.Errorf("%w: pod %q has no container %q", ErrInvalid, pod.UID, name)
}

// ContainerRequests returns the memory and huge pages c requests, in bytes
// (upstream's getContainerRequestedResources); a request that is not a
// whole number of bytes within int64 is an error. A negative request
// wraps around, as upstream's conversion to unsigned does.
func ContainerRequests(c core.Container) (map[string]uint64, error) {
	out := map[string]uint64{}
	for name, q := range c.Resources.Requests {
		if !isMemoryResource(string(name)) {
			continue
		}
		v, ok := q.AsInt64()
		if !ok {
			return nil, fmt.Errorf("%w: failed to represent quantity as int64: %s %s of container %q", ErrInvalid, name, q.String(), c.Name)
		}
		out[string(name)] = uint64(v)
	}
	return out, nil
}

// PodRequests returns the memory and huge pages pod needs at once
// (upstream's getPodRequestedResources): per resource the larger of its
// long-running containers' sum (app containers and sidecars) and each
// regular init container's request plus the sidecars started before it.
// Only resources some app container requests are listed.
func PodRequests(pod core.Pod) (map[string]uint64, error) {
	initMax, sidecars := map[string]uint64{}, map[string]uint64{}
	for _, c := range pod.InitContainers {
		req, err := ContainerRequests(c)
		if err != nil {
			return nil, err
		}
		for name, v := range req {
			if _, ok := initMax[name]; !ok {
				initMax[name] = 0
			}
			if c.RestartPolicy == core.ContainerRestartPolicyAlways {
				sidecars[name] += v
			} else if sidecars[name]+v > initMax[name] {
				initMax[name] = sidecars[name] + v
			}
		}
	}
	apps := map[string]uint64{}
	for _, c := range pod.Containers {
		req, err := ContainerRequests(c)
		if err != nil {
			return nil, err
		}
		for name, v := range req {
			apps[name] += v
		}
	}
	out := map[string]uint64{}
	for name, v := range apps {
		out[name] = max(v+sidecars[name], initMax[name])
	}
	return out, nil
}
