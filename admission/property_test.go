package admission

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/cgroup"
)

var propResources = []cgroup.ResourceName{cgroup.ResourceCPU, cgroup.ResourceMemory, cgroup.ResourceEphemeralStorage, "hugepages-2Mi", "example.com/gpu"}

func genList(t *rapid.T, label string) cgroup.ResourceList {
	l := cgroup.ResourceList{}
	for _, name := range propResources {
		if rapid.IntRange(0, 2).Draw(t, label+"?"+string(name)) == 0 {
			v := rapid.Int64Range(0, 4000).Draw(t, label+string(name))
			if name == cgroup.ResourceCPU {
				l[name] = *resource.NewMilliQuantity(v, resource.DecimalSI)
			} else {
				l[name] = *resource.NewQuantity(v<<20, resource.BinarySI)
			}
		}
	}
	return l
}

func genPod(t *rapid.T, i int) *Pod {
	p := &Pod{Namespace: "ns", Name: fmt.Sprintf("p%d", i), UID: fmt.Sprintf("u%d", i)}
	for c := rapid.IntRange(1, 2).Draw(t, "containers"); c > 0; c-- {
		p.Containers = append(p.Containers, cgroup.Container{Name: "c", Resources: cgroup.Resources{Requests: genList(t, "req")}})
	}
	if rapid.IntRange(0, 3).Draw(t, "init?") == 0 {
		ic := cgroup.Container{Name: "i", Resources: cgroup.Resources{Requests: genList(t, "init")}}
		if rapid.Bool().Draw(t, "sidecar") {
			ic.RestartPolicy = cgroup.ContainerRestartPolicyAlways
		}
		p.InitContainers = append(p.InitContainers, ic)
	}
	if rapid.IntRange(0, 3).Draw(t, "ports?") == 0 {
		p.HostPorts = []ContainerPort{{HostPort: rapid.Int32Range(79, 81).Draw(t, "port"), HostIP: rapid.SampledFrom([]string{"", "10.0.0.1"}).Draw(t, "ip")}}
	}
	if rapid.IntRange(0, 3).Draw(t, "prio?") == 0 {
		prio := rapid.SampledFrom([]int32{0, 100, cgroup.SystemCriticalPriority}).Draw(t, "prio")
		p.Priority = &prio
	}
	return p
}

func genNode(t *rapid.T) Node {
	alloc := genList(t, "alloc")
	alloc[cgroup.ResourcePods] = *resource.NewQuantity(rapid.Int64Range(0, 12).Draw(t, "pods"), resource.DecimalSI)
	return Node{Name: "n1", Allocatable: alloc}
}

// value is what cgroup.PodRequests gives p of name: millicores for cpu.
func value(p *Pod, name cgroup.ResourceName) int64 {
	q := cgroup.PodRequests(p.cgroupPod(), cgroup.QOSOptions{})[name]
	if name == cgroup.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

func allocValue(n Node, name cgroup.ResourceName) int64 {
	q := n.Allocatable[name]
	if name == cgroup.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// Admitting pods one at a time (without preemption) never takes a node past
// its allocatable: for every resource the node lists, the admitted pods'
// requests sum to at most its allocatable, and their number to at most its
// pods.
func TestPropertyAdmitWithinAllocatable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := genNode(t)
		ni := NewNodeInfo(n, Options{})
		for i := rapid.IntRange(0, 20).Draw(t, "pods"); i > 0; i-- {
			p := genPod(t, i)
			p.Priority = nil // no preemption here
			if d := ni.Admit(p); d.Admit {
				ni.AddPod(p)
			}
		}
		if got, max := int64(len(ni.Pods())), allocValue(n, cgroup.ResourcePods); got > max {
			t.Fatalf("%d pods admitted, allocatable %d", got, max)
		}
		for name := range n.Allocatable {
			if name == cgroup.ResourcePods {
				continue
			}
			var sum int64
			for _, p := range ni.Pods() {
				sum += value(p, name)
			}
			if max := allocValue(n, name); sum > max {
				t.Fatalf("%s: admitted pods request %d, allocatable %d", name, sum, max)
			}
		}
	})
}

// A pod admitted stays admitted when other pods are removed: removal only
// frees resources and ports. And the NodeInfo kept up to date by AddPod and
// RemovePod judges as one built afresh from the remaining pods.
func TestPropertyRemovalKeepsAdmission(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := genNode(t)
		var pods []*Pod
		for i := rapid.IntRange(0, 10).Draw(t, "pods"); i > 0; i-- {
			pods = append(pods, genPod(t, i))
		}
		ni := NewNodeInfo(n, Options{}, pods...)
		p := genPod(t, 100)
		before := ni.Admit(p)
		var left []*Pod
		for _, q := range pods {
			if rapid.Bool().Draw(t, "remove "+q.Name) {
				if !ni.RemovePod(q.UID) {
					t.Fatalf("RemovePod(%s) found nothing", q.UID)
				}
			} else {
				left = append(left, q)
			}
		}
		after := ni.Admit(p)
		if before.Admit && len(before.Preempt) == 0 && (!after.Admit || len(after.Preempt) > 0) {
			t.Fatalf("admitted before removals, then %+v", after)
		}
		fresh := NewNodeInfo(n, Options{}, left...)
		if got, want := fmt.Sprint(ni.Filter(p, nil)), fmt.Sprint(fresh.Filter(p, nil)); got != want {
			t.Fatalf("after removals: %s, afresh: %s", got, want)
		}
	})
}

// Preemption frees at least each shortfall, as the kubelet counts requests,
// and never evicts a critical pod.
func TestPropertyPreemptFreesShortfall(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var running []*Pod
		for i := rapid.IntRange(0, 10).Draw(t, "pods"); i > 0; i-- {
			running = append(running, genPod(t, i))
		}
		p := genPod(t, 100)
		prio := cgroup.SystemCriticalPriority
		p.Priority = &prio
		var needs []Need
		for _, name := range []cgroup.ResourceName{cgroup.ResourceCPU, cgroup.ResourceMemory, cgroup.ResourcePods} {
			if rapid.Bool().Draw(t, "need "+string(name)) {
				needs = append(needs, Need{Resource: name, Amount: rapid.Int64Range(1, 3000).Draw(t, "amount")})
			}
		}
		victims, err := Preempt(p, running, needs, Options{})
		if err != nil {
			return
		}
		for _, v := range victims {
			if IsCriticalPod(v) {
				t.Fatalf("critical pod %s preempted", v.Name)
			}
		}
		for _, need := range needs {
			var freed int64
			for _, v := range victims {
				freed += PreemptRequest(v, need.Resource, Options{})
			}
			if freed < need.Amount {
				t.Fatalf("%s: freed %d of %d", need.Resource, freed, need.Amount)
			}
		}
	})
}
