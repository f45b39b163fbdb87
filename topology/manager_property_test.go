package topology_test

import (
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/memory"
)

// TestManagerProperties admits generated pods through a Manager with the
// CPU and Memory Managers' static policies on generated machines, under
// every policy and scope, and removes some:
//   - the managers' states stay sound (nodelifetest.CheckCPUState,
//     CheckMemoryState);
//   - under single-numa-node every container admitted with a NUMA
//     affinity has it on one node, and its exclusive CPUs and memory
//     blocks lie on that node;
//   - a refused pod's containers, once removed from both managers, leave
//     the states as they were before the admission (the memory state as
//     the kubelet compares them, and only while the admission kept the
//     NUMA groups whole: kubernetes#113035).
func TestManagerProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topo := nodelifetest.CPUTopologies().Draw(t, "machine")
		machine, err := cpu.NewMachine(topo)
		if err != nil {
			t.Fatal(err)
		}
		policy := rapid.SampledFrom([]topology.Policy{topology.PolicyNone, topology.PolicyBestEffort, topology.PolicyRestricted, topology.PolicySingleNUMANode}).Draw(t, "policy")
		scope := rapid.SampledFrom([]topology.Scope{topology.ScopeContainer, topology.ScopePod}).Draw(t, "scope")
		cpus, err := cpu.NewStatic(cpu.Config{Machine: machine, NumReserved: rapid.IntRange(0, min(3, len(topo.CPUs)-1)).Draw(t, "reserved CPUs"), TopologyPolicy: policy})
		if err != nil {
			t.Fatal(err)
		}
		var nodes []memory.NUMANode
		for _, id := range machine.NUMANodes() {
			nodes = append(nodes, memory.NUMANode{ID: id, Memory: uint64(rapid.IntRange(4, 16).Draw(t, "GiB")) << 30})
		}
		mem, err := memory.NewStatic(memory.Config{Nodes: nodes, Reserved: map[int]map[string]uint64{nodes[0].ID: {memory.ResourceMemory: 1 << 30}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := cpus.Start(checkpoint.CPUState{}); err != nil {
			t.Fatal(err)
		}
		if err := mem.Start(checkpoint.MemoryState{}); err != nil {
			t.Fatal(err)
		}
		m, err := topology.NewManager(topology.ManagerConfig{Policy: policy, Scope: scope, NUMA: topology.NUMAInfo{Nodes: machine.NUMANodes()},
			Providers: []topology.Provider{cpus.Provider(), mem.Provider()}})
		if err != nil {
			t.Fatal(err)
		}
		var admitted []core.Pod
		for k := rapid.IntRange(1, 12).Draw(t, "steps"); k > 0; k-- {
			if len(admitted) > 0 && rapid.IntRange(0, 3).Draw(t, "remove") == 0 {
				i := rapid.IntRange(0, len(admitted)-1).Draw(t, "victim")
				release(cpus, mem, m, admitted[i])
				admitted = append(admitted[:i], admitted[i+1:]...)
				continue
			}
			uid := fmt.Sprintf("pod-%d", k)
			gen := nodelifetest.MemoryPods(uid, nil)
			if rapid.Bool().Draw(t, "cpu-heavy") {
				gen = nodelifetest.CPUPods(uid)
			}
			pod := gen.Draw(t, "pod")
			cpuBefore, memBefore := cpus.State(), mem.State()
			a, err := m.Admit(pod)
			if err != nil {
				t.Fatalf("Admit(%s): %v", uid, err)
			}
			if err := nodelifetest.CheckCPUState(cpus, machine, false); err != nil {
				t.Fatal(err)
			}
			if err := nodelifetest.CheckMemoryState(mem.State()); err != nil {
				t.Fatal(err)
			}
			// A single-node hint merged from the CPU manager's can put
			// memory on a node of a multi-node group (kubernetes#113035);
			// releasing it then breaks the group, as upstream does.
			groupsHeld := nodelifetest.CheckMemoryGroups(mem.State()) == nil
			if !a.Admit {
				release(cpus, mem, m, pod)
				if got := cpus.State(); !reflect.DeepEqual(got, cpuBefore) {
					t.Fatalf("%s refused (%s on %s), removed: CPU state %+v, before %+v", uid, a.Reason, a.Refused, got, cpuBefore)
				}
				if err := memory.CompareMachineStates(mem.State().MachineState, memBefore.MachineState); err != nil && groupsHeld {
					t.Fatalf("%s refused (%s on %s), removed: %v", uid, a.Reason, a.Refused, err)
				}
				continue
			}
			admitted = append(admitted, pod)
			if policy != topology.PolicySingleNUMANode {
				continue
			}
			for _, ch := range a.Containers {
				if ch.Hint.Any {
					continue
				}
				ids := ch.Hint.Affinity.Nodes()
				if len(ids) != 1 {
					t.Fatalf("single-numa-node admitted %s/%s on %v", uid, ch.Container, ch.Hint)
				}
				exclusive, _ := cpus.Assigned(uid, ch.Container)
				for _, c := range exclusive.List() {
					if topo.CPUs[c].NUMANodeID != ids[0] {
						t.Fatalf("%s/%s admitted on node %d holds CPU %d of node %d", uid, ch.Container, ids[0], c, topo.CPUs[c].NUMANodeID)
					}
				}
				blocks, _ := mem.Blocks(uid, ch.Container)
				for _, b := range blocks {
					if !reflect.DeepEqual(b.NUMAAffinity, ids) {
						t.Fatalf("%s/%s admitted on node %d has %s on %v", uid, ch.Container, ids[0], b.Type, b.NUMAAffinity)
					}
				}
			}
		}
	})
}

// release removes every container of pod from the managers, as the
// kubelet does when a pod is gone.
func release(cpus *cpu.Static, mem *memory.Static, m *topology.Manager, pod core.Pod) {
	for _, cs := range [][]core.Container{pod.InitContainers, pod.Containers} {
		for _, c := range cs {
			cpus.RemoveContainer(pod.UID, c.Name)
			mem.RemoveContainer(pod.UID, c.Name)
			m.RemoveContainer(pod.UID, c.Name)
		}
	}
}
