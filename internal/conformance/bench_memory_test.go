package conformance

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet/cm/memorymanager"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"

	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/memory"
)

// bigPod is the Guaranteed pod the memory and manager pairs place: one
// container "app" of 4 CPUs, 8Gi and 2Gi of 1Gi pages.
func bigPod(uid string) *v1.Pod {
	l := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("8Gi"), "hugepages-1Gi": resource.MustParse("2Gi")}
	p := &v1.Pod{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Resources: v1.ResourceRequirements{Requests: l, Limits: l.DeepCopy()}}}}}
	p.Name, p.UID = uid, types.UID(uid)
	return p
}

// memoryPairs times the static memory policy beside upstream's on an
// 8-NUMA machine (64Gi and sixteen 1Gi pages per node, 1Gi reserved each)
// holding 30 pods of 8Gi and 2Gi of pages: a pod of the same size has its
// hints computed, is allocated with its first preferred hint and removed.
func memoryPairs() []pair {
	m := memoryMachine{reserved: map[int]map[string]uint64{}}
	for id := 0; id < 8; id++ {
		m.nodes = append(m.nodes, memory.NUMANode{ID: id, Memory: 64 << 30, HugePages: []memory.HugePages{{PageSizeKiB: 1 << 20, NumPages: 16}}})
		m.reserved[id] = map[string]uint64{memory.ResourceMemory: 1 << 30}
	}
	ours, err := memory.NewStatic(memory.Config{Nodes: m.nodes, Reserved: m.reserved})
	if err != nil {
		panic(err)
	}
	if err := ours.Start(checkpoint.MemoryState{}); err != nil {
		panic(err)
	}
	logger := logr.Discard()
	store := &upstreamStore{policy: topologymanager.NewNonePolicy()}
	theirs, err := memorymanager.NewPolicyStatic(logger, m.machineInfo(), m.upstreamReserved(), store)
	if err != nil {
		panic(err)
	}
	st := memstate.NewMemoryState(logger)
	if err := theirs.Start(logger, st); err != nil {
		panic(err)
	}
	pod := bigPod
	ourAdmit := func(p *v1.Pod) {
		cp := kubeapi.Pod(p)
		h, err := ours.Hints(cp, "app")
		if err != nil {
			panic(err)
		}
		if _, err := ours.Allocate(cp, "app", firstPreferred(h[memory.ResourceMemory])); err != nil {
			panic(err)
		}
	}
	upstreamAdmit := func(p *v1.Pod) {
		h := theirs.GetTopologyHints(logger, st, p, &p.Spec.Containers[0], lifecycle.AddOperation)
		store.hint = topologymanager.TopologyHint{}
		for _, x := range h["memory"] {
			if x.Preferred {
				store.hint = x
				break
			}
		}
		if err := theirs.Allocate(context.Background(), st, p, &p.Spec.Containers[0], lifecycle.AddOperation); err != nil {
			panic(err)
		}
	}
	for i := 0; i < 30; i++ {
		p := pod(fmt.Sprintf("fill-%d", i))
		ourAdmit(p)
		upstreamAdmit(p)
	}
	if a, b := sortedMemoryText(ours.State()), sortedMemoryText(fromUpstreamMemory(st)); a != b {
		panic("the filled machines differ:\n" + a + "\n" + b)
	}
	bench := pod("bench")
	return []pair{{"memory.Static hints+allocate+remove/numa=8/pods=30", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ourAdmit(bench)
			ours.RemoveContainer("bench", "app")
		}
	}, func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			upstreamAdmit(bench)
			theirs.RemoveContainer(logger, st, "bench", "app")
		}
	}}}
}
