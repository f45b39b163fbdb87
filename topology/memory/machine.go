package memory

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology/checkpoint"
)

// ErrInvalid is wrapped by every error about a malformed machine,
// reservation or configuration.
var ErrInvalid = errors.New("memory: invalid input")

// ResourceMemory is the regular memory resource; huge pages are
// "hugepages-<size>".
const ResourceMemory = "memory"

// HugePages is one huge page size of a NUMA node, as cAdvisor reports it.
type HugePages struct {
	// PageSizeKiB is the page size in KiB (2048 for 2Mi pages).
	PageSizeKiB uint64
	NumPages    uint64
}

// NUMANode is one NUMA node's memory as cAdvisor reports it: its bytes of
// memory (huge pages included) and its huge pages.
type NUMANode struct {
	ID        int
	Memory    uint64
	HugePages []HugePages
}

// HugePageResource returns the resource name of a page size in KiB, as
// the kubelet names it ("hugepages-2Mi", "hugepages-1Gi").
func HugePageResource(pageSizeKiB uint64) string {
	return "hugepages-" + resource.NewQuantity(int64(pageSizeKiB)*1024, resource.BinarySI).String()
}

// isMemoryResource reports whether the Memory Manager manages name:
// memory and huge pages.
func isMemoryResource(name string) bool {
	return name == ResourceMemory || strings.HasPrefix(name, core.ResourceHugePagesPrefix)
}

// Reservation is one --reserved-memory entry: the memory and huge pages
// reserved on one NUMA node.
type Reservation struct {
	NUMANode int32
	Limits   core.ResourceList
}

// SystemReserved checks the --reserved-memory entries against the node
// allocatable reservation (kube-reserved + system-reserved + eviction
// threshold, per memory type) and returns the bytes reserved per NUMA node
// and resource (upstream's getSystemReservedMemory): every entry must name
// a NUMA node of the machine, and for memory and each huge page size the
// entries must add up exactly to the node allocatable reservation. Every
// node of the machine gets a (possibly empty) map; a later entry for the
// same node and resource replaces an earlier one, as upstream.
func SystemReserved(nodes []NUMANode, nodeAllocatable core.ResourceList, reservations []Reservation) (map[int]map[string]uint64, error) {
	exists := map[int]bool{}
	for _, n := range nodes {
		exists[n.ID] = true
	}
	totals := map[string]resource.Quantity{}
	for _, r := range reservations {
		if !exists[int(r.NUMANode)] {
			return nil, fmt.Errorf("%w: the reserved memory configuration references a NUMA node %d that does not exist on this machine", ErrInvalid, r.NUMANode)
		}
		for name, q := range r.Limits {
			sum := q.DeepCopy()
			if t, ok := totals[string(name)]; ok {
				sum.Add(t)
			}
			totals[string(name)] = sum
		}
	}
	types := map[string]bool{}
	for name := range totals {
		types[name] = true
	}
	for name := range nodeAllocatable {
		if isMemoryResource(string(name)) {
			types[string(name)] = true
		}
	}
	names := make([]string, 0, len(types))
	for name := range types {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		want := resource.NewQuantity(0, resource.DecimalSI)
		if q, ok := nodeAllocatable[core.ResourceName(name)]; ok {
			want.Add(q)
		}
		got := resource.NewQuantity(0, resource.DecimalSI)
		if q, ok := totals[name]; ok {
			got.Add(q)
		}
		if !want.Equal(*got) {
			return nil, fmt.Errorf("%w: the total amount %q of type %q is not equal to the value %q determined by Node Allocatable feature", ErrInvalid, got.String(), name, want.String())
		}
	}
	out := make(map[int]map[string]uint64, len(nodes))
	for _, n := range nodes {
		out[n.ID] = map[string]uint64{}
	}
	for _, r := range reservations {
		for name, q := range r.Limits {
			v, ok := q.AsInt64()
			if !ok {
				return nil, fmt.Errorf("%w: reserved %s %s on NUMA node %d is not a whole number of bytes within int64", ErrInvalid, name, q.String(), r.NUMANode)
			}
			out[int(r.NUMANode)][string(name)] = uint64(v)
		}
	}
	return out, nil
}

// DefaultMachineState returns the machine state the static policy starts
// from (upstream's getDefaultMachineState): per NUMA node a table for each
// huge page size (all pages, less the reserved bytes) and for memory (the
// node's memory less the reserved bytes and every huge page), each free,
// the node its own group. The arithmetic is upstream's unsigned
// arithmetic: a reservation above what the node has wraps around.
func DefaultMachineState(nodes []NUMANode, reserved map[int]map[string]uint64) map[int]*checkpoint.NUMANodeState {
	out := map[int]*checkpoint.NUMANodeState{}
	hugeTotal := map[int]uint64{}
	for _, n := range nodes {
		st := &checkpoint.NUMANodeState{MemoryMap: map[string]*checkpoint.MemoryTable{}, Cells: []int{n.ID}}
		out[n.ID] = st
		for _, hp := range n.HugePages {
			name := HugePageResource(hp.PageSizeKiB)
			r := reserved[n.ID][name]
			total := hp.NumPages * hp.PageSizeKiB * 1024
			st.MemoryMap[name] = &checkpoint.MemoryTable{TotalMemSize: total, SystemReserved: r, Allocatable: total - r, Free: total - r}
			hugeTotal[n.ID] += total
		}
		r := reserved[n.ID][ResourceMemory]
		alloc := n.Memory - r - hugeTotal[n.ID]
		st.MemoryMap[ResourceMemory] = &checkpoint.MemoryTable{TotalMemSize: n.Memory, SystemReserved: r, Allocatable: alloc, Free: alloc}
	}
	return out
}

// cloneMachine deep-copies a machine state.
func cloneMachine(ms map[int]*checkpoint.NUMANodeState) map[int]*checkpoint.NUMANodeState {
	if ms == nil {
		return nil
	}
	out := make(map[int]*checkpoint.NUMANodeState, len(ms))
	for id, n := range ms {
		if n == nil {
			out[id] = nil
			continue
		}
		c := &checkpoint.NUMANodeState{NumberOfAssignments: n.NumberOfAssignments, Cells: slices.Clone(n.Cells)}
		if n.MemoryMap != nil {
			c.MemoryMap = make(map[string]*checkpoint.MemoryTable, len(n.MemoryMap))
			for name, t := range n.MemoryMap {
				if t == nil {
					c.MemoryMap[name] = nil
					continue
				}
				tc := *t
				c.MemoryMap[name] = &tc
			}
		}
		out[id] = c
	}
	return out
}

// cloneBlocks copies blocks (their affinities too).
func cloneBlocks(bs []checkpoint.MemoryBlock) []checkpoint.MemoryBlock {
	if bs == nil {
		return nil
	}
	out := make([]checkpoint.MemoryBlock, len(bs))
	for i, b := range bs {
		out[i] = checkpoint.MemoryBlock{NUMAAffinity: slices.Clone(b.NUMAAffinity), Type: b.Type, Size: b.Size}
	}
	return out
}

func cloneEntries(e map[string]map[string][]checkpoint.MemoryBlock) map[string]map[string][]checkpoint.MemoryBlock {
	if e == nil {
		return nil
	}
	out := make(map[string]map[string][]checkpoint.MemoryBlock, len(e))
	for pod, cs := range e {
		m := make(map[string][]checkpoint.MemoryBlock, len(cs))
		for name, bs := range cs {
			m[name] = cloneBlocks(bs)
		}
		out[pod] = m
	}
	return out
}
