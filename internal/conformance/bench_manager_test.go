package conformance

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	cadvisorapi "github.com/google/cadvisor/lib/model"
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/memorymanager"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	ucpuset "k8s.io/utils/cpuset"

	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/memory"
)

// managerPairs times the topology manager's admission beside upstream's
// on upstream's 80-CPU, 4-NUMA test machine (topoDualSocketMultiNumaPerSocketHT)
// with 64Gi and sixteen 1Gi pages per node (1Gi reserved each, 2 CPUs
// reserved), best-effort, container scope, CPU and memory managers as
// providers, holding 10 pods of 4 CPUs, 8Gi and 2Gi of pages: a pod of the
// same size is admitted (hints of both providers, the merge of cpu,
// memory and huge pages, both allocations) and its container removed.
func managerPairs() []pair {
	var topo cpu.Topology
	for _, f := range cpuFixtures {
		if f.name == "topoDualSocketMultiNumaPerSocketHT" {
			topo = f.topo
		}
	}
	machine, err := cpu.NewMachine(topo)
	if err != nil {
		panic(err)
	}
	mm := memoryMachine{reserved: map[int]map[string]uint64{}}
	var nodes []cadvisorapi.Node
	for _, id := range machine.NUMANodes() {
		mm.nodes = append(mm.nodes, memory.NUMANode{ID: id, Memory: 64 << 30, HugePages: []memory.HugePages{{PageSizeKiB: 1 << 20, NumPages: 16}}})
		mm.reserved[id] = map[string]uint64{memory.ResourceMemory: 1 << 30}
		nodes = append(nodes, cadvisorapi.Node{Id: id})
	}
	policy := topology.PolicyBestEffort

	cpus, err := cpu.NewStatic(cpu.Config{Machine: machine, NumReserved: 2, TopologyPolicy: policy})
	if err != nil {
		panic(err)
	}
	mem, err := memory.NewStatic(memory.Config{Nodes: mm.nodes, Reserved: mm.reserved})
	if err != nil {
		panic(err)
	}
	if err := cpus.Start(checkpoint.CPUState{}); err != nil {
		panic(err)
	}
	if err := mem.Start(checkpoint.MemoryState{}); err != nil {
		panic(err)
	}
	ours, err := topology.NewManager(topology.ManagerConfig{Policy: policy, NUMA: topology.NUMAInfo{Nodes: machine.NUMANodes()},
		Providers: []topology.Provider{cpus.Provider(), mem.Provider()}})
	if err != nil {
		panic(err)
	}

	logger := logr.Discard()
	tm, err := topologymanager.NewManager(logr.Discard(), nodes, string(policy), string(topology.ScopeContainer), nil)
	if err != nil {
		panic(err)
	}
	upol, err := cpumanager.NewStaticPolicy(logger, upstreamCPUTopology(topo), 2, ucpuset.New(), tm, nil)
	if err != nil {
		panic(err)
	}
	umem, err := memorymanager.NewPolicyStatic(logger, mm.machineInfo(), mm.upstreamReserved(), tm)
	if err != nil {
		panic(err)
	}
	ust, umst := state.NewMemoryState(logger), memstate.NewMemoryState(logger)
	if err := upol.Start(logger, ust); err != nil {
		panic(err)
	}
	if err := umem.Start(logger, umst); err != nil {
		panic(err)
	}
	tm.AddHintProvider(logger, cpuProvider(upol, ust))
	tm.AddHintProvider(logger, memProvider(umem, umst))

	pod := bigPod
	ourAdmit := func(p *v1.Pod) {
		a, err := ours.Admit(kubeapi.Pod(p))
		if err != nil || !a.Admit {
			panic(fmt.Sprintf("nodelife refused %s: %v %+v", p.Name, err, a))
		}
	}
	upstreamAdmit := func(p *v1.Pod) {
		if a := tm.Admit(context.Background(), &lifecycle.PodAdmitAttributes{Pod: p, Operation: lifecycle.AddOperation}); !a.Admit {
			panic(fmt.Sprintf("upstream refused %s: %+v", p.Name, a))
		}
	}
	for i := 0; i < 10; i++ {
		p := pod(fmt.Sprintf("fill-%d", i))
		ourAdmit(p)
		upstreamAdmit(p)
	}
	if a, b := ourCPUText(cpus.State())+sortedMemoryText(mem.State()), upstreamCPUText(ust)+sortedMemoryText(fromUpstreamMemory(umst)); a != b {
		panic("the filled machines differ:\n" + a + "\n" + b)
	}
	bench := pod("bench")
	return []pair{{"topology.Manager admit+remove/numa=4/best-effort/cpu+memory+hugepages/pods=10", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ourAdmit(bench)
			cpus.RemoveContainer("bench", "app")
			mem.RemoveContainer("bench", "app")
			ours.RemoveContainer("bench", "app")
		}
	}, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			upstreamAdmit(bench)
			_ = upol.RemoveContainer(logger, ust, "bench", "app")
			umem.RemoveContainer(logger, umst, "bench", "app")
		}
	}}}
}
