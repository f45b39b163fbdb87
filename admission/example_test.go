package admission_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/admission"
	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/taints"
)

// pod returns a pod whose one container requests cpu and memory.
func pod(name, cpu, memory string) *admission.Pod {
	req := cgroup.ResourceList{}
	if cpu != "" {
		req[cgroup.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		req[cgroup.ResourceMemory] = resource.MustParse(memory)
	}
	return &admission.Pod{Namespace: "default", Name: name, UID: name,
		Containers: []cgroup.Container{{Name: "c", Resources: cgroup.Resources{Requests: req}}}}
}

func node4x8() admission.Node {
	return admission.Node{Name: "n1", UID: "node-uid", Allocatable: cgroup.ResourceList{
		cgroup.ResourceCPU:    resource.MustParse("4"),
		cgroup.ResourceMemory: resource.MustParse("8Gi"),
		cgroup.ResourcePods:   resource.MustParse("110"),
	}}
}

// A node with 4 cpus whose pods request 3.8 refuses a pod asking for half a
// cpu, with the kubelet's reason and message.
func ExampleNodeInfo_Admit() {
	ni := admission.NewNodeInfo(node4x8(), admission.Options{}, pod("a", "2", "1Gi"), pod("b", "1800m", "1Gi"))
	d := ni.Admit(pod("c", "500m", "1Gi"))
	fmt.Println(d.Admit, d.Reason)
	fmt.Println(d.Message)

	d = ni.Admit(pod("d", "200m", "1Gi"))
	fmt.Println(d.Admit)
	// Output:
	// false OutOfcpu
	// Node didn't have enough resource: cpu, requested: 500, used: 3800, capacity: 4000
	// true
}

// A critical pod that does not fit is admitted by evicting the pods that
// free its shortfall at the least cost. 300m of cpu are missing (500m asked,
// 4000 - 3800 free); both Burstable pods free it alone, so the Guaranteed pod
// is spared and the tie goes to the one with the smaller memory request.
func ExampleNodeInfo_Admit_preemption() {
	guaranteed := pod("guaranteed", "1", "1Gi")
	guaranteed.Containers[0].Resources.Limits = guaranteed.Containers[0].Resources.Requests
	burstable := pod("burstable", "2", "2Gi")
	ni := admission.NewNodeInfo(node4x8(), admission.Options{}, guaranteed, burstable, pod("small", "800m", ""))

	critical := pod("dns", "500m", "100Mi")
	prio := int32(2000001000) // system-node-critical
	critical.Priority = &prio
	d := ni.Admit(critical)
	fmt.Println(d.Admit, len(d.Preempt), d.Preempt[0].Name)
	// Output:
	// true 1 small
}

// The kubelet reads only NoExecute taints, and not for static pods.
func ExampleNodeInfo_Filter() {
	n := node4x8()
	n.Taints = []taints.Taint{
		{Key: "dedicated", Value: "db", Effect: taints.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/unreachable", Effect: taints.TaintEffectNoExecute},
	}
	ni := admission.NewNodeInfo(n, admission.Options{})
	p := pod("web", "100m", "")
	for _, f := range ni.Filter(p, nil) {
		fmt.Println(f.Reason(), "-", f.Message())
	}
	static := pod("etcd", "100m", "")
	static.Annotations = map[string]string{admission.ConfigSourceAnnotation: admission.SourceFile}
	fmt.Println(len(ni.Filter(static, nil)))
	// Output:
	// TaintToleration - Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate
	// 0
}
