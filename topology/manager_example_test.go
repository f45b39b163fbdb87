package topology_test

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/memory"
)

// guaranteedPod is a pod of one container "app" whose requests equal its
// limits.
func guaranteedPod(uid, cpus, mem string) core.Pod {
	l := core.ResourceList{core.ResourceCPU: resource.MustParse(cpus), core.ResourceMemory: resource.MustParse(mem)}
	return core.Pod{UID: uid, Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{Requests: l, Limits: l}}}}
}

// twoSocketMachine is a machine of two sockets, one NUMA node each, of
// perNode single-thread cores: CPUs 0 to perNode-1 on node 0, the next
// perNode on node 1.
func twoSocketMachine(perNode int) *cpu.Machine {
	var nodes []cpu.NUMANode
	for id := 0; id < 2; id++ {
		n := cpu.NUMANode{ID: id}
		for c := perNode * id; c < perNode*(id+1); c++ {
			n.Cores = append(n.Cores, cpu.Core{ID: c, SocketID: id, Threads: []int{c}})
		}
		nodes = append(nodes, n)
	}
	topo, _ := cpu.Discover(2*perNode, 2, nodes)
	machine, _ := cpu.NewMachine(topo)
	return machine
}

// A machine of two NUMA nodes (CPUs 0-3 and 4-7, one thread per core; 4Gi
// each, 1Gi of node 0 reserved, as is CPU 0) under the CPU and Memory
// Managers' static policies, admitting three Guaranteed pods in turn:
//   - db (2 CPUs, 1Gi): both managers prefer node 0 or node 1 alone; the
//     narrowest preferred is node 0: CPUs 1-2 (CPU 0 is reserved) and
//     memory on node 0.
//   - web (3 CPUs): node 0 has one free CPU left, so only node 1 is
//     preferred for cpu: CPUs 4-6, memory on node 1.
//   - batch (4 CPUs): two CPUs are free (3 and 7), the CPU manager has no
//     hint. single-numa-node refuses the pod before any allocation.
//     best-effort admits it on node 0: no merged hint is preferred, and
//     among the others those of the size of the resources' narrowest
//     hints win (memory's, one node; the cpu list has none with an
//     affinity), the lowest first. The CPU manager then fails: CPU 3 from
//     node 0, the remaining 3 from CPU 7 alone.
func ExampleManager() {
	machine := twoSocketMachine(4)
	for _, policy := range []topology.Policy{topology.PolicySingleNUMANode, topology.PolicyBestEffort} {
		cpus, _ := cpu.NewStatic(cpu.Config{Machine: machine, NumReserved: 1, TopologyPolicy: policy})
		_ = cpus.Start(checkpoint.CPUState{})
		mem, _ := memory.NewStatic(memory.Config{
			Nodes:    []memory.NUMANode{{ID: 0, Memory: 4 << 30}, {ID: 1, Memory: 4 << 30}},
			Reserved: map[int]map[string]uint64{0: {memory.ResourceMemory: 1 << 30}},
		})
		_ = mem.Start(checkpoint.MemoryState{})
		m, err := topology.NewManager(topology.ManagerConfig{
			Policy:    policy,
			NUMA:      topology.NUMAInfo{Nodes: machine.NUMANodes()},
			Providers: []topology.Provider{cpus.Provider(), mem.Provider()},
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(policy)
		for _, pod := range []core.Pod{guaranteedPod("db", "2", "1Gi"), guaranteedPod("web", "3", "1Gi"), guaranteedPod("batch", "4", "1Gi")} {
			a, err := m.Admit(pod)
			if err != nil {
				fmt.Println(err)
				return
			}
			if !a.Admit {
				fmt.Printf("  %s: refused: %s: %s\n", pod.UID, a.Reason, a.Message)
				continue
			}
			blocks, _ := mem.Blocks(pod.UID, "app")
			fmt.Printf("  %s: %v, CPUs %s, memory on %v\n", pod.UID, a.Containers[0].Hint, cpus.CPUs(pod.UID, "app"), blocks[0].NUMAAffinity)
		}
	}
	// Output:
	// single-numa-node
	//   db: {NUMA node 0, preferred}, CPUs 1-2, memory on [0]
	//   web: {NUMA node 1, preferred}, CPUs 4-6, memory on [1]
	//   batch: refused: TopologyAffinityError: Resources cannot be allocated with Topology locality
	// best-effort
	//   db: {NUMA node 0, preferred}, CPUs 1-2, memory on [0]
	//   web: {NUMA node 1, preferred}, CPUs 4-6, memory on [1]
	//   batch: refused: UnexpectedAdmissionError: Allocate failed due to not enough cpus available to satisfy request: requested=3, available=1, which is unexpected
}

// AdmissionError is how the kubelet words a provider's allocation error
// in the pod's status: a typed error (the CPU Manager's SMTAlignmentError)
// gives its own reason, any other is unexpected.
func ExampleAdmissionError() {
	smt := cpu.SMTAlignmentError{RequestedCPUs: 3, CPUsPerCore: 2}
	fmt.Println(topology.AdmissionError(smt))
	fmt.Println(topology.AdmissionError(errors.New("not enough memory")))
	// Output:
	// SMTAlignmentError SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2
	// UnexpectedAdmissionError Allocate failed due to not enough memory, which is unexpected
}

// A refusal explained in terms of the machine. Two sockets, one NUMA node
// each with 24 CPUs (one thread per core) and 64Gi; CPU 0 and 1Gi of node 0
// are reserved, so
// node 0 has 23 CPUs free and node 1 24. A Guaranteed pod asking 40 CPUs
// and 8Gi under single-numa-node: no one node has 40 free CPUs, the best
// is node 1 with 24; its memory fits anywhere, so only cpu is named.
// Reason and Message stay upstream's; Why says what a person needs.
func ExampleAdmission_Why() {
	machine := twoSocketMachine(24)
	cpus, _ := cpu.NewStatic(cpu.Config{Machine: machine, NumReserved: 1, TopologyPolicy: topology.PolicySingleNUMANode})
	_ = cpus.Start(checkpoint.CPUState{})
	mem, err := memory.NewStatic(memory.Config{
		Nodes:    []memory.NUMANode{{ID: 0, Memory: 64 << 30}, {ID: 1, Memory: 64 << 30}},
		Reserved: map[int]map[string]uint64{0: {memory.ResourceMemory: 1 << 30}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = mem.Start(checkpoint.MemoryState{})
	m, err := topology.NewManager(topology.ManagerConfig{
		Policy:    topology.PolicySingleNUMANode,
		NUMA:      topology.NUMAInfo{Nodes: machine.NUMANodes()},
		Providers: []topology.Provider{cpus.Provider(), mem.Provider()},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := m.Admit(guaranteedPod("big", "40", "8Gi"))
	fmt.Println(a.Admit, err)
	fmt.Println(a.Reason+":", a.Message)
	fmt.Println(a.Why)
	// Output:
	// false <nil>
	// TopologyAffinityError: Resources cannot be allocated with Topology locality
	// cpu: 40 asked, at most 24 free on one NUMA node (NUMA node 1); single-numa-node keeps a container's resources on one NUMA node
}
