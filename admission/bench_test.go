package admission

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

func benchPod(name string, cpu, memMi int64) *core.Pod {
	return &core.Pod{Namespace: "ns", Name: name, UID: name,
		Containers: []core.Container{{Name: "c", Resources: core.ResourceRequirements{Requests: core.ResourceList{
			core.ResourceCPU:    *resource.NewMilliQuantity(cpu, resource.DecimalSI),
			core.ResourceMemory: *resource.NewQuantity(memMi<<20, resource.BinarySI),
		}}}},
		Tolerations: []taints.Toleration{{Key: "dedicated", Operator: taints.TolerationOpEqual, Value: "web", Effect: taints.TaintEffectNoExecute}},
	}
}

func benchNode(name string) core.Node {
	return core.Node{Name: name,
		Labels: map[string]string{"kubernetes.io/os": "linux", "disk": "ssd"},
		Taints: []taints.Taint{{Key: "dedicated", Value: "web", Effect: taints.TaintEffectNoExecute}},
		Allocatable: core.ResourceList{
			core.ResourceCPU:    resource.MustParse("32"),
			core.ResourceMemory: resource.MustParse("128Gi"),
			core.ResourcePods:   resource.MustParse("111"),
		}}
}

// full110 is a node with 110 pods of 250m and 1Gi and a pod of 500m and
// 1Gi with a node selector that fits on it.
func full110() (*NodeInfo, *core.Pod) {
	ni := NewNodeInfo(benchNode("n1"), Options{})
	for i := 0; i < 110; i++ {
		ni.AddPod(benchPod(fmt.Sprintf("o%d", i), 250, 1024))
	}
	p := benchPod("new", 500, 1024)
	p.NodeSelector = map[string]string{"disk": "ssd"}
	return ni, p
}

// Admitting a pod that fits allocates nothing: the node's sums are kept,
// the pod's requests go to reused scratch space.
func TestAdmitAllocatesNothing(t *testing.T) {
	ni, p := full110()
	if d := ni.Admit(p); !d.Admit {
		t.Fatalf("refused: %+v", d)
	}
	if n := testing.AllocsPerRun(1000, func() { ni.Admit(p) }); n != 0 {
		t.Fatalf("Admit allocates %v times per call", n)
	}
}

func BenchmarkAdmit(b *testing.B) {
	ni, p := full110()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !ni.Admit(p).Admit {
			b.Fatal("refused")
		}
	}
}

// BenchmarkFirstFit places 150,000 pods of three shapes on 5,000 nodes,
// each on the first node that admits it, as a simulator re-placing a
// cluster's pods would. A node that refused a shape refuses it for good
// (nodes only fill up), so each shape keeps the index of its first
// candidate: the placement is exactly first-fit without rescanning full
// nodes.
func BenchmarkFirstFit(b *testing.B) {
	const nodes, pods = 5000, 150000
	shapes := [][2]int64{{250, 512}, {1000, 2048}, {100, 128}}
	podList := make([]*core.Pod, pods)
	for i := range podList {
		s := shapes[i%len(shapes)]
		podList[i] = benchPod(fmt.Sprintf("p%d", i), s[0], s[1])
	}
	b.ReportAllocs()
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		nis := make([]*NodeInfo, nodes)
		for i := range nis {
			nis[i] = NewNodeInfo(benchNode(fmt.Sprintf("n%d", i)), Options{})
		}
		b.StartTimer()
		var first [3]int
		placed := 0
		for i, p := range podList {
			k := i % len(shapes)
			for j := first[k]; j < nodes; j++ {
				if nis[j].Admit(p).Admit {
					nis[j].AddPod(p)
					placed++
					break
				}
				first[k] = j + 1
			}
		}
		if placed != pods {
			b.Fatalf("placed %d of %d", placed, pods)
		}
	}
}
