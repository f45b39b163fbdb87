package memory_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/memory"
)

func guaranteed(uid, mem, huge string) core.Pod {
	l := func() core.ResourceList {
		out := core.ResourceList{core.ResourceCPU: resource.MustParse("1"), core.ResourceMemory: resource.MustParse(mem)}
		if huge != "" {
			out["hugepages-1Gi"] = resource.MustParse(huge)
		}
		return out
	}
	return core.Pod{UID: uid, Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{Requests: l(), Limits: l()}}}}
}

// twoNodes is the static policy on two NUMA nodes of 8Gi with two 1Gi
// huge pages each, 1Gi of node 0's memory reserved; not started.
func twoNodes() (*memory.Static, error) {
	nodes := []memory.NUMANode{
		{ID: 0, Memory: 8 << 30, HugePages: []memory.HugePages{{PageSizeKiB: 1 << 20, NumPages: 2}}},
		{ID: 1, Memory: 8 << 30, HugePages: []memory.HugePages{{PageSizeKiB: 1 << 20, NumPages: 2}}},
	}
	return memory.NewStatic(memory.Config{Nodes: nodes, Reserved: map[int]map[string]uint64{0: {"memory": 1 << 30}}})
}

func freeGi(p *memory.Static, node int, name string) uint64 {
	return p.State().MachineState[node].MemoryMap[name].Free >> 30
}

// Two NUMA nodes of 8Gi with two 1Gi huge pages each, 1Gi reserved on
// node 0: node 0 offers 5Gi of memory, node 1 6Gi. Pod a (4Gi and a huge
// page) could go on either node or both; placed on node 0 it leaves 1Gi
// there. Pod b (3Gi) then fits node 1 only: node 0 lacks the memory, and
// both nodes together are not offered since node 0 now serves a
// single-node allocation. Without a topology hint b gets the policy's
// best hint. Removing a's container frees node 0 again.
func ExampleStatic() {
	p, err := twoNodes()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := p.Start(checkpoint.MemoryState{}); err != nil {
		fmt.Println(err)
		return
	}
	a := guaranteed("a", "4Gi", "1Gi")
	hints, _ := p.Hints(a, "app")
	fmt.Println("a:", hints["memory"], hints["hugepages-1Gi"])
	n0, _ := topology.NewBitMask(0)
	blocks, err := p.Allocate(a, "app", topology.Hint{Affinity: n0, Preferred: true})
	fmt.Println("a:", blocks, err, "node 0 memory free:", freeGi(p, 0, "memory"), "Gi")

	b := guaranteed("b", "3Gi", "")
	hints, _ = p.Hints(b, "app")
	fmt.Println("b:", hints["memory"])
	blocks, err = p.Allocate(b, "app", topology.Hint{Any: true})
	fmt.Println("b:", blocks, err)

	p.RemoveContainer("a", "app")
	fmt.Println("a removed, node 0 memory free:", freeGi(p, 0, "memory"), "Gi")
	// Output:
	// a: [{NUMA node 0, preferred} {NUMA node 1, preferred} {NUMA nodes 0,1}] [{NUMA node 0, preferred} {NUMA node 1, preferred} {NUMA nodes 0,1}]
	// a: [{[0] hugepages-1Gi 1073741824} {[0] memory 4294967296}] <nil> node 0 memory free: 1 Gi
	// b: [{NUMA node 1, preferred}]
	// b: [{[1] memory 3221225472}] <nil>
	// a removed, node 0 memory free: 5 Gi
}

// SystemReserved checks --reserved-memory against the node allocatable
// reservation, type by type.
func ExampleSystemReserved() {
	nodes := []memory.NUMANode{{ID: 0, Memory: 16 << 30}, {ID: 1, Memory: 16 << 30}}
	gi := resource.MustParse("1Gi")
	reservations := []memory.Reservation{
		{NUMANode: 0, Limits: core.ResourceList{core.ResourceMemory: gi}},
		{NUMANode: 1, Limits: core.ResourceList{core.ResourceMemory: gi}},
	}
	reserved, err := memory.SystemReserved(nodes, core.ResourceList{core.ResourceMemory: resource.MustParse("2Gi")}, reservations)
	fmt.Println(reserved, err)
	_, err = memory.SystemReserved(nodes, core.ResourceList{core.ResourceMemory: resource.MustParse("2Gi")}, reservations[:1])
	fmt.Println(err)
	_, err = memory.SystemReserved(nodes, nil, []memory.Reservation{{NUMANode: 2}})
	fmt.Println(err)
	// Output:
	// map[0:map[memory:1073741824] 1:map[memory:1073741824]] <nil>
	// memory: invalid input: the total amount "1Gi" of type "memory" is not equal to the value "2Gi" determined by Node Allocatable feature
	// memory: invalid input: the reserved memory configuration references a NUMA node 2 that does not exist on this machine
}

// The machine state starts from each node's memory less the reservation
// and the huge pages.
func ExampleDefaultMachineState() {
	nodes := []memory.NUMANode{{ID: 0, Memory: 16 << 30, HugePages: []memory.HugePages{{PageSizeKiB: 2048, NumPages: 1024}}}}
	ms := memory.DefaultMachineState(nodes, map[int]map[string]uint64{0: {"memory": 1 << 30}})
	for _, name := range []string{"memory", memory.HugePageResource(2048)} {
		t := ms[0].MemoryMap[name]
		fmt.Printf("%s: total %dMi, reserved for the system %dMi, allocatable %dMi\n", name, t.TotalMemSize>>20, t.SystemReserved>>20, t.Allocatable>>20)
	}
	// Output:
	// memory: total 16384Mi, reserved for the system 1024Mi, allocatable 13312Mi
	// hugepages-2Mi: total 2048Mi, reserved for the system 0Mi, allocatable 2048Mi
}

// A pod needs the larger of what runs at the end (app containers and
// sidecars) and what each regular init container needs with the sidecars
// started before it.
func ExamplePodRequests() {
	c := func(name, mem, restart string) core.Container {
		l := core.ResourceList{core.ResourceMemory: resource.MustParse(mem)}
		return core.Container{Name: name, RestartPolicy: restart, Resources: core.ResourceRequirements{Requests: l, Limits: l}}
	}
	pod := core.Pod{
		InitContainers: []core.Container{c("proxy", "1Gi", core.ContainerRestartPolicyAlways), c("migrate", "6Gi", "")},
		Containers:     []core.Container{c("app", "2Gi", "")},
	}
	req, err := memory.PodRequests(pod)
	fmt.Println(req["memory"]>>30, "Gi", err)
	// Output:
	// 7 Gi <nil>
}

// HugePageResource names a page size as the kubelet does.
func ExampleHugePageResource() {
	fmt.Println(memory.HugePageResource(2048), memory.HugePageResource(1048576), memory.HugePageResource(64))
	// Output:
	// hugepages-2Mi hugepages-1Gi hugepages-64Ki
}

// ContainerRequests reads memory and huge pages in bytes.
func ExampleContainerRequests() {
	l := core.ResourceList{core.ResourceCPU: resource.MustParse("2"), core.ResourceMemory: resource.MustParse("1Gi"), "hugepages-2Mi": resource.MustParse("4Mi")}
	req, err := memory.ContainerRequests(core.Container{Name: "app", Resources: core.ResourceRequirements{Requests: l}})
	fmt.Println(req, err)
	_, err = memory.ContainerRequests(core.Container{Name: "app", Resources: core.ResourceRequirements{Requests: core.ResourceList{core.ResourceMemory: resource.MustParse("1.5")}}})
	fmt.Println(err)
	// Output:
	// map[hugepages-2Mi:4194304 memory:1073741824] <nil>
	// memory: invalid input: failed to represent quantity as int64: memory 1500m of container "app"
}

// CompareMachineStates is the check the kubelet makes when it restores a
// state: within a group of NUMA nodes that share allocations, only the
// group's sums count, not which node holds the bytes.
func ExampleCompareMachineStates() {
	node := func(reserved uint64, cells ...int) *checkpoint.NUMANodeState {
		return &checkpoint.NUMANodeState{NumberOfAssignments: 1, Cells: cells, MemoryMap: map[string]*checkpoint.MemoryTable{
			"memory": {TotalMemSize: 8 << 30, Allocatable: 8 << 30, Reserved: reserved, Free: 8<<30 - reserved},
		}}
	}
	restored := map[int]*checkpoint.NUMANodeState{0: node(2<<30, 0, 1), 1: node(0, 0, 1)}
	computed := map[int]*checkpoint.NUMANodeState{0: node(0, 0, 1), 1: node(2<<30, 0, 1)}
	fmt.Println(memory.CompareMachineStates(restored, computed))
	computed[1] = node(3<<30, 0, 1)
	fmt.Println(memory.CompareMachineStates(restored, computed))
	// Output:
	// <nil>
	// memory: machine states differ: NUMA node 0 memory: group [0 1] free/reserved 15032385536/2147483648, expected 13958643712/3221225472
}

// Demands: what a Guaranteed container asks and what each NUMA node has,
// in bytes, for the topology manager's explanation of a refusal. The
// machine of ExampleStatic: node 0 offers 5Gi of memory (8Gi less two 1Gi
// huge pages and 1Gi reserved), node 1 6Gi; each has two 1Gi pages.
func ExampleStatic_Demands() {
	p, err := twoNodes()
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = p.Start(checkpoint.MemoryState{})
	for _, d := range p.Demands(guaranteed("big", "7Gi", "1Gi"), "app") {
		fmt.Printf("%s: asked %d, free %d and %d\n", d.Resource, d.Asked>>30, d.Free[0]>>30, d.Free[1]>>30)
	}
	fmt.Println(topology.Explain(topology.PolicySingleNUMANode, []int{0, 1}, p.Demands(guaranteed("big", "7Gi", "1Gi"), "app")))
	// Output:
	// hugepages-1Gi: asked 1, free 2 and 2
	// memory: asked 7, free 5 and 6
	// memory: 7Gi asked, at most 6Gi free on one NUMA node (NUMA node 1); single-numa-node keeps a container's resources on one NUMA node
}
