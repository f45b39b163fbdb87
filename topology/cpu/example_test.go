package cpu_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// twoSockets is upstream's topoDualSocketHT as cAdvisor reports it: two
// sockets, one NUMA node each, three cores of two threads per socket; the
// sockets' threads are interleaved (even CPUs on socket 0).
func twoSockets() (cpu.Topology, error) {
	var nodes []cpu.NUMANode
	for socket := 0; socket < 2; socket++ {
		n := cpu.NUMANode{ID: socket}
		for core := 0; core < 3; core++ {
			first := 2*core + socket
			n.Cores = append(n.Cores, cpu.Core{ID: core, SocketID: socket, Threads: []int{first, first + 6}})
		}
		nodes = append(nodes, n)
	}
	return cpu.Discover(12, 2, nodes)
}

// twoSocketsStatic is the static policy on twoSockets with one CPU (0)
// reserved, not started, and its machine.
func twoSocketsStatic() (*cpu.Static, *cpu.Machine, error) {
	topo, err := twoSockets()
	if err != nil {
		return nil, nil, err
	}
	m, err := cpu.NewMachine(topo)
	if err != nil {
		return nil, nil, err
	}
	p, err := cpu.NewStatic(cpu.Config{Machine: m, NumReserved: 1})
	return p, m, err
}

// Discover names each core by its lowest thread and counts what the CPU
// Manager divides by.
func ExampleDiscover() {
	topo, err := twoSockets()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(topo.NumCPUs, "CPUs,", topo.NumCores, "cores,", topo.NumSockets, "sockets,", topo.NumNUMANodes, "NUMA nodes,", topo.CPUsPerCore(), "per core")
	fmt.Printf("CPU 8: %+v\n", topo.CPUs[8])
	// Output:
	// 12 CPUs, 6 cores, 2 sockets, 2 NUMA nodes, 2 per core
	// CPU 8: {NUMANodeID:0 SocketID:0 CoreID:2 UncoreCacheID:0}
}

// A Guaranteed pod asking 4 CPUs on the two-socket machine with one
// reserved CPU (the kubelet picks CPU 0, the first thread of the lowest
// core). Both NUMA nodes could hold it, so both single-node hints are
// preferred; the topology manager picks node 0 (binary 01), where CPU 0
// is reserved: the pod gets the two whole free cores of socket 0 and
// leaves core 0's other thread (CPU 6) in the shared pool. Removing the
// container gives the CPUs back.
func ExampleStatic() {
	p, m, err := twoSocketsStatic()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := p.Start(checkpoint.CPUState{}); err != nil {
		fmt.Println(err)
		return
	}
	four := core.ResourceList{core.ResourceCPU: resource.MustParse("4"), core.ResourceMemory: resource.MustParse("1Gi")}
	pod := core.Pod{UID: "pod-1", Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{Requests: four, Limits: four}}}}

	hints, _ := p.Hints(pod, "app")
	fmt.Println("reserved:", p.Reserved(), "hints:", hints["cpu"])
	hint, admit, _ := topology.Merge(topology.PolicySingleNUMANode, topology.NUMAInfo{Nodes: m.NUMANodes()}, topology.PolicyOptions{}, []topology.ProviderHints{hints})
	fmt.Println("merged:", hint, "admit:", admit)
	cpus, err := p.Allocate(pod, "app", hint)
	fmt.Println("app:", cpus, err, "shared:", p.Shared())
	fmt.Println("released:", p.RemoveContainer("pod-1", "app"), "shared:", p.Shared())
	// Output:
	// reserved: 0 hints: [{NUMA node 0, preferred} {NUMA node 1, preferred} {NUMA nodes 0,1}]
	// merged: {NUMA node 0, preferred} admit: true
	// app: 2,4,8,10 <nil> shared: 0-1,3,5-7,9,11
	// released: 2,4,8,10 shared: 0-11
}

// Eight CPUs packed: the whole NUMA node 0, then a whole core of node 1.
// Distributed: four from each node (upstream's cpu_assignment_test rows).
func ExampleMachine_TakePacked() {
	topo, _ := twoSockets()
	m, _ := cpu.NewMachine(topo)
	all := cpuset.Range(0, 11)
	packed, err := m.TakePacked(all, 8, cpu.TakeOptions{})
	fmt.Println(packed, err)
	spread, err := m.TakeDistributed(all, 8, 1, cpu.TakeOptions{})
	fmt.Println(spread, err)
	_, err = m.TakePacked(cpuset.Range(0, 3), 5, cpu.TakeOptions{})
	fmt.Println(err)
	// Output:
	// 0-2,4,6-8,10 <nil>
	// 0-3,6-9 <nil>
	// not enough cpus available to satisfy request: requested=5, available=4
}

// ParseOptions refuses what the kubelet refuses: an alpha option without
// its gate, and incompatible options.
func ExampleParseOptions() {
	opts, err := cpu.ParseOptions(map[string]string{"full-pcpus-only": "true", "strict-cpu-reservation": "true"}, cpu.OptionGates{})
	fmt.Println("full-pcpus-only:", opts.FullPCPUsOnly, "strict-cpu-reservation:", opts.StrictCPUReservation, err)
	_, err = cpu.ParseOptions(map[string]string{"align-by-socket": "true"}, cpu.OptionGates{})
	fmt.Println(err)
	_, err = cpu.ParseOptions(map[string]string{"full-pcpus-only": "true", "distribute-cpus-across-cores": "true"}, cpu.OptionGates{AlphaOptions: true})
	fmt.Println(err)
	// Output:
	// full-pcpus-only: true strict-cpu-reservation: true <nil>
	// cpu: invalid input: CPU Manager Policy Alpha-level Options not enabled, but option "align-by-socket" provided
	// cpu: invalid input: static policy options full-pcpus-only and distribute-cpus-across-cores can not be used at the same time
}

// Demands: the exclusive CPUs a container asks and, per NUMA node, the
// CPUs free for it and the node's CPUs. On twoSockets (6 CPUs per node)
// with CPU 0 reserved, node 0 has 5 free and node 1 6; 8 CPUs fit on no
// single node.
func ExampleStatic_Demands() {
	p, m, err := twoSocketsStatic()
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = p.Start(checkpoint.CPUState{})
	l := core.ResourceList{core.ResourceCPU: resource.MustParse("8"), core.ResourceMemory: resource.MustParse("1Gi")}
	pod := core.Pod{UID: "big", Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{Requests: l, Limits: l}}}}
	d := p.Demands(pod, "app")
	fmt.Println(d[0].Resource, d[0].Asked, d[0].Free, d[0].Capacity)
	fmt.Println(topology.Explain(topology.PolicySingleNUMANode, m.NUMANodes(), d))
	// Output:
	// cpu 8 map[0:5 1:6] map[0:6 1:6]
	// cpu: 8 asked, at most 6 free on one NUMA node (NUMA node 1); single-numa-node keeps a container's resources on one NUMA node
}

// A kubelet restarted with full-pcpus-only finds in its checkpoint a
// container holding 3 CPUs (2, 4 and 8) on the two-socket machine (2
// threads a core, CPU 0 reserved). v1.37 looks the container up in the
// state before the SMT check and keeps its CPUs; v1.36 checks first, and
// 3 CPUs are not whole cores of 2 threads.
func ExampleConfigFor() {
	topo, _ := twoSockets()
	m, err := cpu.NewMachine(topo)
	if err != nil {
		fmt.Println(err)
		return
	}
	three := core.ResourceList{core.ResourceCPU: resource.MustParse("3"), core.ResourceMemory: resource.MustParse("1Gi")}
	pod := core.Pod{UID: "pod-1", Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{Requests: three, Limits: three}}}}
	held, _ := cpuset.Parse("2,4,8")
	shared, _ := cpuset.Parse("0-1,3,5-7,9-11")
	state := checkpoint.CPUState{PolicyName: cpu.PolicyName, DefaultCPUSet: shared, Entries: map[string]map[string]cpuset.CPUSet{"pod-1": {"app": held}}}
	for _, v := range []release.Version{release.V1_37, release.V1_36} {
		cfg := cpu.ConfigFor(v)
		cfg.Machine, cfg.NumReserved, cfg.Options = m, 1, cpu.Options{FullPCPUsOnly: true}
		p, err := cpu.NewStatic(cfg)
		if err == nil {
			err = p.Start(state)
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		cpus, err := p.Allocate(pod, "app", topology.Hint{Any: true})
		fmt.Printf("%v: %v %v\n", v, cpus, err)
	}
	// Output:
	// 1.37: 2,4,8 <nil>
	// 1.36:  SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2
}
