package conformance

import (
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	ucpuset "k8s.io/utils/cpuset"

	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
)

func twoCPUPod(uid string) *v1.Pod {
	l := v1.ResourceList{v1.ResourceCPU: resource.MustParse("2"), v1.ResourceMemory: resource.MustParse("1Gi")}
	p := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: l, Limits: l.DeepCopy()}}}}}
	p.Name, p.UID = uid, types.UID(uid)
	return p
}

func firstPreferred(hs []topology.Hint) topology.Hint {
	for _, h := range hs {
		if h.Preferred {
			return h
		}
	}
	return topology.Hint{Any: true}
}

// cpuPairs times the static policy beside upstream's on upstream's
// 256-CPU, 8-NUMA test machine (topoDualSocketMultiNumaPerSocketHTLarge)
// holding 127 pods of two CPUs: a pod of two CPUs has its hints computed,
// is allocated with the first preferred one and removed again; and the
// packed and distributed allocators taking 64 of the 256 CPUs.
func cpuPairs() []pair {
	var topo cpu.Topology
	for _, f := range cpuFixtures {
		if f.name == "topoDualSocketMultiNumaPerSocketHTLarge" {
			topo = f.topo
		}
	}
	m, err := cpu.NewMachine(topo)
	if err != nil {
		panic(err)
	}
	ours, err := cpu.NewStatic(cpu.Config{Machine: m})
	if err != nil {
		panic(err)
	}
	if err := ours.Start(checkpoint.CPUState{}); err != nil {
		panic(err)
	}
	logger := logr.Discard()
	store := &upstreamStore{policy: topologymanager.NewNonePolicy()}
	utopo := upstreamCPUTopology(topo)
	theirs, err := cpumanager.NewStaticPolicy(logger, utopo, 0, ucpuset.New(), store, nil)
	if err != nil {
		panic(err)
	}
	st := state.NewMemoryState(logger)
	if err := theirs.Start(logger, st); err != nil {
		panic(err)
	}
	upstreamAdmit := func(pod *v1.Pod) {
		hints := theirs.GetTopologyHints(logger, st, pod, &pod.Spec.Containers[0], lifecycle.AddOperation)
		store.hint = topologymanager.TopologyHint{}
		for _, h := range hints["cpu"] {
			if h.Preferred {
				store.hint = h
				break
			}
		}
		if err := theirs.Allocate(logger, st, pod, &pod.Spec.Containers[0], lifecycle.AddOperation); err != nil {
			panic(err)
		}
	}
	ourAdmit := func(pod *v1.Pod) {
		cp := kubeapi.Pod(pod)
		hints, err := ours.Hints(cp, "c")
		if err != nil {
			panic(err)
		}
		if _, err := ours.Allocate(cp, "c", firstPreferred(hints[cpu.ResourceName])); err != nil {
			panic(err)
		}
	}
	for i := 0; i < 127; i++ {
		pod := twoCPUPod(fmt.Sprintf("fill-%d", i))
		ourAdmit(pod)
		upstreamAdmit(pod)
	}
	if ours.Shared().String() != st.GetDefaultCPUSet().String() {
		panic(fmt.Sprintf("the filled machines differ: %s, upstream %s", ours.Shared(), st.GetDefaultCPUSet()))
	}
	bench := twoCPUPod("bench")
	all := m.CPUs()
	uall := toUpstreamCPUSet(all)
	return []pair{
		{"cpu.Static hints+allocate+remove/cpus=256/numa=8/pods=127", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				ourAdmit(bench)
				ours.RemoveContainer("bench", "c")
			}
		}, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				upstreamAdmit(bench)
				_ = theirs.RemoveContainer(logger, st, "bench", "c")
			}
		}},
		{"cpu.Machine.TakePacked/cpus=256/take=64", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, _ := m.TakePacked(all, 64, cpu.TakeOptions{})
				sinkBool = s.IsEmpty()
			}
		}, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, _ := upstreamTakePacked(logger, utopo, uall, 64, cpumanager.CPUSortingStrategyPacked, false)
				sinkBool = s.IsEmpty()
			}
		}},
		{"cpu.Machine.TakeDistributed/cpus=256/take=64", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, _ := m.TakeDistributed(all, 64, 1, cpu.TakeOptions{})
				sinkBool = s.IsEmpty()
			}
		}, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, _ := upstreamTakeDistributed(logger, utopo, uall, 64, 1, cpumanager.CPUSortingStrategyPacked, false)
				sinkBool = s.IsEmpty()
			}
		}},
	}
}
