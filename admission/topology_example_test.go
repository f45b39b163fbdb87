package admission_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/admission"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
)

// The topology slot of the chain: the CPU Manager's static policy under
// single-numa-node on two NUMA nodes of two CPUs (0-1 and 2-3, CPU 0
// reserved). A Guaranteed pod of 2 CPUs fits only on node 1 (CPUs 2-3), one
// of 1 CPU on node 0 (CPU 1); a third of 1 CPU finds no free CPU, the CPU
// manager has no hint for it, and the pod is refused with the kubelet's
// TopologyAffinityError.
func ExampleTopologyHandler() {
	topo, _ := cpu.Discover(4, 2, []cpu.NUMANode{
		{ID: 0, Cores: []cpu.Core{{ID: 0, SocketID: 0, Threads: []int{0}}, {ID: 1, SocketID: 0, Threads: []int{1}}}},
		{ID: 1, Cores: []cpu.Core{{ID: 2, SocketID: 1, Threads: []int{2}}, {ID: 3, SocketID: 1, Threads: []int{3}}}},
	})
	machine, _ := cpu.NewMachine(topo)
	cpus, _ := cpu.NewStatic(cpu.Config{Machine: machine, NumReserved: 1, TopologyPolicy: topology.PolicySingleNUMANode})
	_ = cpus.Start(checkpoint.CPUState{})
	m, _ := topology.NewManager(topology.ManagerConfig{
		Policy:    topology.PolicySingleNUMANode,
		NUMA:      topology.NUMAInfo{Nodes: machine.NUMANodes()},
		Providers: []topology.Provider{cpus.Provider()},
	})
	chain := admission.Chain{Topology: admission.TopologyHandler(m)}
	for _, p := range []struct{ name, cpus string }{{"two", "2"}, {"one", "1"}, {"another", "1"}} {
		l := core.ResourceList{core.ResourceCPU: resource.MustParse(p.cpus), core.ResourceMemory: resource.MustParse("1Gi")}
		pod := &core.Pod{Namespace: "default", Name: p.name, UID: p.name,
			Containers: []core.Container{{Name: "c", Resources: core.ResourceRequirements{Requests: l, Limits: l}}}}
		if d := chain.Admit(pod); d.Admit {
			fmt.Println(p.name, "admitted on CPUs", cpus.CPUs(p.name, "c"))
		} else {
			fmt.Println(p.name, "refused:", d.Reason, "-", d.Message)
			fmt.Println("  why:", d.Why)
		}
	}
	// Output:
	// two admitted on CPUs 2-3
	// one admitted on CPUs 1
	// another refused: TopologyAffinityError - Resources cannot be allocated with Topology locality
	//   why: cpu: 1 asked, none free on any NUMA node; single-numa-node keeps a container's resources on one NUMA node
}
