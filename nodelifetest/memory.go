package nodelifetest

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/memory"
)

// MemoryMachine is a machine for the Memory Manager: its NUMA nodes and
// the memory reserved on them (as memory.SystemReserved returns it).
type MemoryMachine struct {
	Nodes    []memory.NUMANode
	Reserved map[int]map[string]uint64
}

// MemoryMachines draws 1-8 NUMA nodes (IDs 0..n-1) of 2-16 GiB, each with
// the same huge page sizes (none, 2Mi, 1Gi or both, as cAdvisor reports
// them: every size on every node) and 0-4 GiB of each, and 0.5-1 GiB of
// memory reserved on node 0 and some others.
func MemoryMachines() *rapid.Generator[MemoryMachine] {
	return rapid.Custom(func(t *rapid.T) MemoryMachine {
		sizes := rapid.SampledFrom([][]uint64{nil, {2048}, {1 << 20}, {2048, 1 << 20}}).Draw(t, "page sizes")
		m := MemoryMachine{Reserved: map[int]map[string]uint64{}}
		for id := 0; id < rapid.IntRange(1, 8).Draw(t, "nodes"); id++ {
			n := memory.NUMANode{ID: id, Memory: uint64(rapid.IntRange(2, 16).Draw(t, "GiB")) << 30}
			for _, s := range sizes {
				gib := uint64(rapid.IntRange(0, 4).Draw(t, "huge GiB"))
				n.HugePages = append(n.HugePages, memory.HugePages{PageSizeKiB: s, NumPages: gib << 20 / s})
			}
			m.Nodes = append(m.Nodes, n)
			if id == 0 || rapid.Bool().Draw(t, "reserved") {
				m.Reserved[id] = map[string]uint64{memory.ResourceMemory: uint64(rapid.IntRange(1, 2).Draw(t, "reserved halves")) << 29}
			}
		}
		return m
	})
}

// MemoryPods draws Guaranteed pods (four in five; else Burstable) with UID
// uid: 1-3 app containers and 0-2 init containers (half of them sidecars),
// each asking one CPU, 256Mi-6Gi of memory and at times huge pages of a
// size in sizes (resource names such as "hugepages-1Gi").
func MemoryPods(uid string, sizes []string) *rapid.Generator[core.Pod] {
	return rapid.Custom(func(t *rapid.T) core.Pod {
		guaranteed := !rare(t, 5, "burstable")
		container := func(name string) core.Container {
			l := core.ResourceList{core.ResourceCPU: resource.MustParse("1"),
				core.ResourceMemory: resource.MustParse(rapid.SampledFrom([]string{"256Mi", "512Mi", "1Gi", "2Gi", "3Gi", "6Gi"}).Draw(t, "memory"))}
			if len(sizes) > 0 && rare(t, 3, "huge pages") {
				name := rapid.SampledFrom(sizes).Draw(t, "page size")
				amount := "1Gi"
				if name == "hugepages-2Mi" {
					amount = rapid.SampledFrom([]string{"2Mi", "64Mi", "1Gi"}).Draw(t, "huge amount")
				}
				l[core.ResourceName(name)] = resource.MustParse(amount)
			}
			c := core.Container{Name: name, Resources: core.ResourceRequirements{Requests: l}}
			if guaranteed {
				lim := core.ResourceList{}
				for k, v := range l {
					lim[k] = v.DeepCopy()
				}
				c.Resources.Limits = lim
			}
			return c
		}
		return podOf(t, uid, container)
	})
}

// CheckMemoryState checks a Memory Manager state against its machine: each
// table keeps free + reserved = allocatable (no node hands out more than
// it has), and each node's assignment count is the number of blocks placed
// on it. A container's blocks may be smaller than what it reserved: the
// kubelet's bookkeeping counts reused init container memory once.
func CheckMemoryState(st checkpoint.MemoryState) error { return checkMemory(st, false) }

// CheckMemoryGroups is CheckMemoryState plus the group rule: every node of
// a multi-node block is in exactly that block's group. It holds while the
// topology manager's hints are ones the memory manager offered; a
// single-node hint the merge takes from other providers can put a
// single-node allocation on a node of a group and break it, as upstream
// allows (kubernetes#113035).
func CheckMemoryGroups(st checkpoint.MemoryState) error { return checkMemory(st, true) }

func checkMemory(st checkpoint.MemoryState, groups bool) error {
	count := map[int]int{}
	for pod, cs := range st.Entries {
		for name, bs := range cs {
			for _, b := range bs {
				for _, id := range b.NUMAAffinity {
					n := st.MachineState[id]
					if n == nil {
						return checkErr("%s/%s has a block on NUMA node %d, which the machine state lacks", pod, name, id)
					}
					count[id]++
					if groups && len(b.NUMAAffinity) > 1 && !slices.Equal(n.Cells, b.NUMAAffinity) {
						return checkErr("%s/%s has a block on nodes %v but node %d is in group %v", pod, name, b.NUMAAffinity, id, n.Cells)
					}
				}
			}
		}
	}
	for id, n := range st.MachineState {
		if n == nil {
			return checkErr("NUMA node %d has no state", id)
		}
		for name, t := range n.MemoryMap {
			if t == nil || t.Free+t.Reserved != t.Allocatable || t.Reserved > t.Allocatable {
				return checkErr("NUMA node %d %s: free %v + reserved %v is not the allocatable %v", id, name, field(t, "free"), field(t, "reserved"), field(t, "allocatable"))
			}
		}
		if n.NumberOfAssignments != count[id] {
			return checkErr("NUMA node %d counts %d assignments, %d blocks are on it", id, n.NumberOfAssignments, count[id])
		}
	}
	return nil
}

func field(t *checkpoint.MemoryTable, name string) any {
	if t == nil {
		return "nil"
	}
	return map[string]uint64{"free": t.Free, "reserved": t.Reserved, "allocatable": t.Allocatable}[name]
}
