package memory_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/memory"
)

// node8 is the admission the kubelet runs for a Guaranteed pod on an
// 8-NUMA machine (2 sockets, 4 NUMA nodes each, 16 cores of 2 threads per
// node: 256 CPUs; 64Gi and sixteen 1Gi pages per node): a
// topology.Manager under best-effort with the CPU and Memory Managers as
// providers (their hints, the merge of the three lists cpu, memory and
// hugepages-1Gi, both allocations).
type node8 struct {
	cpus *cpu.Static
	mem  *memory.Static
	tm   *topology.Manager
}

func newNode8(tb testing.TB) *node8 {
	tb.Helper()
	var cpuNodes []cpu.NUMANode
	var memNodes []memory.NUMANode
	reserved := map[int]map[string]uint64{}
	id := 0
	for s := 0; s < 2; s++ {
		for k := 0; k < 4; k++ {
			n := cpu.NUMANode{ID: id}
			for c := 0; c < 16; c++ {
				first := id*16 + c
				n.Cores = append(n.Cores, cpu.Core{ID: c, SocketID: s, Threads: []int{first, first + 128}})
			}
			cpuNodes = append(cpuNodes, n)
			memNodes = append(memNodes, memory.NUMANode{ID: id, Memory: 64 << 30, HugePages: []memory.HugePages{{PageSizeKiB: 1 << 20, NumPages: 16}}})
			reserved[id] = map[string]uint64{memory.ResourceMemory: 1 << 30}
			id++
		}
	}
	topo, err := cpu.Discover(256, 2, cpuNodes)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := cpu.NewMachine(topo)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := cpu.NewStatic(cpu.Config{Machine: m, NumReserved: 2, TopologyPolicy: topology.PolicyBestEffort})
	if err != nil {
		tb.Fatal(err)
	}
	mem, err := memory.NewStatic(memory.Config{Nodes: memNodes, Reserved: reserved})
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Start(checkpoint.CPUState{}); err != nil {
		tb.Fatal(err)
	}
	if err := mem.Start(checkpoint.MemoryState{}); err != nil {
		tb.Fatal(err)
	}
	tm, err := topology.NewManager(topology.ManagerConfig{Policy: topology.PolicyBestEffort, NUMA: topology.NUMAInfo{Nodes: m.NUMANodes()},
		Providers: []topology.Provider{c.Provider(), mem.Provider()}})
	if err != nil {
		tb.Fatal(err)
	}
	return &node8{cpus: c, mem: mem, tm: tm}
}

func podOf(uid, cpus, mem, huge string) core.Pod {
	l := func() core.ResourceList {
		return core.ResourceList{core.ResourceCPU: resource.MustParse(cpus), core.ResourceMemory: resource.MustParse(mem), "hugepages-1Gi": resource.MustParse(huge)}
	}
	return core.Pod{UID: uid, Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{Requests: l(), Limits: l()}}}}
}

// admit runs one admission; it reports whether the pod was placed (a
// refused pod's allocations are released).
func (n *node8) admit(tb testing.TB, pod core.Pod) bool {
	a, err := n.tm.Admit(pod)
	if err != nil {
		tb.Fatal(err)
	}
	if !a.Admit {
		n.release(pod.UID)
	}
	return a.Admit
}

func (n *node8) release(uid string) {
	n.cpus.RemoveContainer(uid, "app")
	n.mem.RemoveContainer(uid, "app")
	n.tm.RemoveContainer(uid, "app")
}

// filled8 returns the machine holding 30 pods of 4 CPUs, 8Gi and 2Gi of
// pages.
func filled8(tb testing.TB) *node8 {
	n := newNode8(tb)
	for i := 0; i < 30; i++ {
		if !n.admit(tb, podOf(fmt.Sprintf("fill-%d", i), "4", "8Gi", "2Gi")) {
			tb.Fatalf("fill pod %d not placed", i)
		}
	}
	return n
}

// TestAdmitReleaseCycles runs 10,000 admissions and releases of a pod of
// 4 CPUs, 8Gi and 2Gi of 1Gi pages on the 8-NUMA machine holding 30 such
// pods, and checks that the machine ends as it started. The time is
// logged (the target, under 1 s without -race, is BenchmarkAdmitRelease's).
func TestAdmitReleaseCycles(t *testing.T) {
	n := filled8(t)
	cpuBefore, memBefore := n.cpus.State(), n.mem.State()
	pod := podOf("cycle", "4", "8Gi", "2Gi")
	start := time.Now()
	for i := 0; i < 10000; i++ {
		if !n.admit(t, pod) {
			t.Fatalf("cycle %d: not placed", i)
		}
		n.release("cycle")
	}
	t.Logf("10,000 admit/release cycles: %v", time.Since(start))
	if !n.cpus.Shared().Equals(cpuBefore.DefaultCPUSet) {
		t.Fatalf("shared pool %s, was %s", n.cpus.Shared(), cpuBefore.DefaultCPUSet)
	}
	if err := memory.CompareMachineStates(n.mem.State().MachineState, memBefore.MachineState); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkAdmitRelease is one admit/release cycle as TestAdmitReleaseCycles
// runs them; 10,000 of them take 10,000 x ns/op.
func BenchmarkAdmitRelease(b *testing.B) {
	n := filled8(b)
	pod := podOf("cycle", "4", "8Gi", "2Gi")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !n.admit(b, pod) {
			b.Fatal("not placed")
		}
		n.release("cycle")
	}
}
