package nodelifetest_test

import (
	"testing"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/topology/checkpoint"
)

func TestDistributionMemory(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	m := draw(nodelifetest.MemoryMachines())
	checkShares(t, "MemoryMachines",
		share{"memory reserved on node 0", func(i int) bool { return m(i).Reserved[0]["memory"] > 0 }, 1, 1},
		share{"several NUMA nodes", func(i int) bool { return len(m(i).Nodes) > 1 }, 0.5, 0.95},
		share{"huge pages", func(i int) bool { return len(m(i).Nodes[0].HugePages) > 0 }, 0.5, 0.9})
	pods := draw(nodelifetest.MemoryPods("u", []string{"hugepages-1Gi"}))
	checkShares(t, "MemoryPods",
		share{"Guaranteed", func(i int) bool { return cgroup.PodQOS(pods(i), cgroup.QOSOptions{}) == core.PodQOSGuaranteed }, 0.6, 0.95},
		share{"huge pages", func(i int) bool {
			for _, c := range pods(i).Containers {
				if _, ok := c.Resources.Requests["hugepages-1Gi"]; ok {
					return true
				}
			}
			return false
		}, 0.2, 0.8})
}

func TestCheckMemoryStatePlanted(t *testing.T) {
	table := func(free, reserved uint64) map[string]*checkpoint.MemoryTable {
		return map[string]*checkpoint.MemoryTable{"memory": {TotalMemSize: 8, Allocatable: 6, Free: free, Reserved: reserved}}
	}
	block := func(nodes ...int) []checkpoint.MemoryBlock {
		return []checkpoint.MemoryBlock{{NUMAAffinity: nodes, Type: "memory", Size: 2}}
	}
	for _, tc := range []struct {
		name string
		st   checkpoint.MemoryState
		want string
	}{
		{"more reserved than allocatable", checkpoint.MemoryState{MachineState: map[int]*checkpoint.NUMANodeState{0: {MemoryMap: table(0, 8), Cells: []int{0}}}},
			"free 0 + reserved 8 is not the allocatable 6"},
		{"count without blocks", checkpoint.MemoryState{MachineState: map[int]*checkpoint.NUMANodeState{0: {NumberOfAssignments: 1, MemoryMap: table(6, 0), Cells: []int{0}}}},
			"counts 1 assignments, 0 blocks are on it"},
		{"block on a missing node", checkpoint.MemoryState{MachineState: map[int]*checkpoint.NUMANodeState{0: {MemoryMap: table(6, 0)}},
			Entries: map[string]map[string][]checkpoint.MemoryBlock{"p": {"c": block(1)}}}, "on NUMA node 1, which the machine state lacks"},
		{"multi-node block outside its group", checkpoint.MemoryState{MachineState: map[int]*checkpoint.NUMANodeState{
			0: {NumberOfAssignments: 1, MemoryMap: table(4, 2), Cells: []int{0}}, 1: {NumberOfAssignments: 1, MemoryMap: table(6, 0), Cells: []int{0, 1}}},
			Entries: map[string]map[string][]checkpoint.MemoryBlock{"p": {"c": block(0, 1)}}}, "node 0 is in group [0]"},
	} {
		if tc.name == "multi-node block outside its group" {
			if err := nodelifetest.CheckMemoryState(tc.st); err != nil {
				t.Fatalf("CheckMemoryState checks groups: %v", err)
			}
			wantViolation(t, nodelifetest.CheckMemoryGroups(tc.st), tc.want)
			continue
		}
		wantViolation(t, nodelifetest.CheckMemoryState(tc.st), tc.want)
	}
	ok := checkpoint.MemoryState{MachineState: map[int]*checkpoint.NUMANodeState{
		0: {NumberOfAssignments: 1, MemoryMap: table(4, 2), Cells: []int{0, 1}}, 1: {NumberOfAssignments: 1, MemoryMap: table(6, 0), Cells: []int{0, 1}}},
		Entries: map[string]map[string][]checkpoint.MemoryBlock{"p": {"c": block(0, 1)}}}
	if err := nodelifetest.CheckMemoryGroups(ok); err != nil {
		t.Fatal(err)
	}
}
