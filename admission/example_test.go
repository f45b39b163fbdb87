package admission_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/admission"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// pod returns a pod whose one container requests cpu and memory.
func pod(name, cpu, memory string) *core.Pod {
	req := core.ResourceList{}
	if cpu != "" {
		req[core.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		req[core.ResourceMemory] = resource.MustParse(memory)
	}
	return &core.Pod{Namespace: "default", Name: name, UID: name,
		Containers: []core.Container{{Name: "c", Resources: core.ResourceRequirements{Requests: req}}}}
}

func node4x8() core.Node {
	return core.Node{Name: "n1", UID: "node-uid", Allocatable: core.ResourceList{
		core.ResourceCPU:    resource.MustParse("4"),
		core.ResourceMemory: resource.MustParse("8Gi"),
		core.ResourcePods:   resource.MustParse("110"),
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
	static.Annotations = map[string]string{core.ConfigSourceAnnotation: core.SourceFile}
	fmt.Println(len(ni.Filter(static, nil)))
	// Output:
	// TaintToleration - Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate
	// 0
}

// A scheduler looking for a node for one pod computes its requests once
// and checks them against each node: the first node, with 3.8 of its 4
// cpus requested, lacks 300m; the second takes the pod.
func ExampleNodeInfo_FilterRequests() {
	full := admission.NewNodeInfo(node4x8(), admission.Options{}, pod("a", "2", "1Gi"), pod("b", "1800m", "1Gi"))
	n2 := node4x8()
	n2.Name = "n2"
	empty := admission.NewNodeInfo(n2, admission.Options{})
	p := pod("web", "500m", "1Gi")
	req := admission.RequestsOf(p, admission.Options{})
	for _, ni := range []*admission.NodeInfo{full, empty} {
		failures := ni.FilterRequests(p, &req, nil)
		fmt.Println(ni.Node().Name, len(failures) == 0)
		for _, f := range failures {
			fmt.Println("  ", f.Message())
		}
	}
	// Output:
	// n1 false
	//    Node didn't have enough resource: cpu, requested: 500, used: 3800, capacity: 4000
	// n2 true
}

// The handler chain in the kubelet's order: the pressure handler refuses a
// BestEffort pod under memory pressure before the predicates run; a pod
// with requests passes it and is refused by the shutdown handler.
func ExampleChain_Admit() {
	var shuttingDown admission.Handler = admission.HandlerFunc(func(*core.Pod) admission.Result {
		return admission.Result{Reason: "NodeShutdown", Message: "Pod was rejected as the node is shutting down."}
	})
	chain := admission.Chain{
		Pressure:   admission.PressureHandler([]conditions.Type{conditions.MemoryPressure}, admission.Options{}),
		Predicates: admission.NewNodeInfo(node4x8(), admission.Options{}),
		Shutdown:   shuttingDown,
	}
	d := chain.Admit(pod("best-effort", "", ""))
	fmt.Printf("%s - %q\n", d.Reason, d.Message) // the kubelet's message ends in a space
	d = chain.Admit(pod("burstable", "100m", "64Mi"))
	fmt.Println(d.Reason, "-", d.Message)
	// Output:
	// Evicted - "The node had condition: [MemoryPressure]. "
	// NodeShutdown - Pod was rejected as the node is shutting down.
}

// Required node affinity: a term matches when all its requirements hold;
// Gt compares the label as an integer.
func ExampleRequiredAffinityMatches() {
	n := &core.Node{Name: "n1", Labels: map[string]string{"disk": "ssd", "cores": "64"}}
	p := &core.Pod{Affinity: &core.NodeSelector{Terms: []core.NodeSelectorTerm{{
		MatchExpressions: []core.NodeSelectorRequirement{
			{Key: "disk", Operator: core.NodeSelectorOpIn, Values: []string{"ssd", "nvme"}},
			{Key: "cores", Operator: core.NodeSelectorOpGt, Values: []string{"32"}},
		},
	}}}}
	fmt.Println(admission.RequiredAffinityMatches(p, n))
	p.Affinity.Terms[0].MatchExpressions[1].Values = []string{"-1"} // not a label value: the term is invalid
	fmt.Println(admission.RequiredAffinityMatches(p, n))
	// Output:
	// true
	// false
}

// A node selector's terms are alternatives: node n2 lacks the disk label
// of the first term but has the name the second term's field names.
func ExampleMatchNodeSelector() {
	s := &core.NodeSelector{Terms: []core.NodeSelectorTerm{
		{MatchExpressions: []core.NodeSelectorRequirement{{Key: "disk", Operator: core.NodeSelectorOpExists}}},
		{MatchFields: []core.NodeSelectorRequirement{{Key: admission.MetadataName, Operator: core.NodeSelectorOpIn, Values: []string{"n2"}}}},
	}}
	fmt.Println(admission.MatchNodeSelector(s, &core.Node{Name: "n1", Labels: map[string]string{"disk": "ssd"}}))
	fmt.Println(admission.MatchNodeSelector(s, &core.Node{Name: "n2"}))
	fmt.Println(admission.MatchNodeSelector(s, &core.Node{Name: "n3"}))
	// Output:
	// true
	// true
	// false
}

// A requirement is checked as apimachinery's labels.NewRequirement would
// check it before it is matched: Gt takes one base-10 integer that is also
// a label value, Exists takes no values.
func ExampleValidRequirement() {
	for _, r := range []core.NodeSelectorRequirement{
		{Key: "cores", Operator: core.NodeSelectorOpGt, Values: []string{"32"}},
		{Key: "cores", Operator: core.NodeSelectorOpGt, Values: []string{"-1"}},
		{Key: "disk", Operator: core.NodeSelectorOpExists, Values: []string{"ssd"}},
		{Key: "bad key", Operator: core.NodeSelectorOpIn, Values: []string{"a"}},
	} {
		fmt.Println(r.Key, r.Operator, r.Values, admission.ValidRequirement(&r))
	}
	// Output:
	// cores Gt [32] true
	// cores Gt [-1] false
	// disk Exists [ssd] false
	// bad key In [a] false
}

// A field requirement is In or NotIn with one value.
func ExampleValidFieldRequirement() {
	r := core.NodeSelectorRequirement{Key: admission.MetadataName, Operator: core.NodeSelectorOpNotIn, Values: []string{"n1"}}
	fmt.Println(admission.ValidFieldRequirement(&r))
	r.Values = append(r.Values, "n2")
	fmt.Println(admission.ValidFieldRequirement(&r))
	// Output:
	// true
	// false
}

// NotIn holds on a node without the label; Lt compares integers.
func ExampleRequirementMatchesLabels() {
	notIn := core.NodeSelectorRequirement{Key: "zone", Operator: core.NodeSelectorOpNotIn, Values: []string{"a"}}
	lt := core.NodeSelectorRequirement{Key: "cores", Operator: core.NodeSelectorOpLt, Values: []string{"16"}}
	fmt.Println(admission.RequirementMatchesLabels(&notIn, map[string]string{}))
	fmt.Println(admission.RequirementMatchesLabels(&notIn, map[string]string{"zone": "a"}))
	fmt.Println(admission.RequirementMatchesLabels(&lt, map[string]string{"cores": "8"}))
	fmt.Println(admission.RequirementMatchesLabels(&lt, map[string]string{"cores": "eight"}))
	// Output:
	// true
	// false
	// true
	// false
}

// Preempt on its own: 150m of cpu to free for a critical pod.
func ExamplePreempt() {
	critical := pod("dns", "", "")
	prio := int32(2000000000)
	critical.Priority = &prio
	running := []*core.Pod{pod("a", "100m", ""), pod("b", "300m", ""), pod("c", "100m", "")}
	victims, err := admission.Preempt(critical, running, []admission.Need{{Resource: core.ResourceCPU, Amount: 150}}, admission.Options{})
	fmt.Println(len(victims), victims[0].Name, err)

	_, err = admission.Preempt(critical, running, []admission.Need{{Resource: core.ResourceCPU, Amount: 1000}}, admission.Options{})
	fmt.Println(err)
	// Output:
	// 1 b <nil>
	// no set of running pods found to reclaim resources: [(res: cpu, q: 500), ]
}

// Priority plays no part in the victims' order: a critical pod short of
// 500m of cpu evicts the priority-1000 pod that requests exactly 500m, not
// the two priority-0 pods that would free 500m together. All three are
// Burstable; the one whose request leaves nothing missing comes first
// (its distance is 0; batch leaves 200m of 500m missing, 0.16; logs 300m,
// 0.36).
func ExamplePreempt_priorityPlaysNoPart() {
	critical := pod("dns", "", "")
	crit := int32(2000000000)
	critical.Priority = &crit
	withPriority := func(p *core.Pod, prio int32) *core.Pod {
		p.Priority = &prio
		return p
	}
	running := []*core.Pod{
		withPriority(pod("batch", "300m", ""), 0),
		withPriority(pod("payments", "500m", ""), 1000),
		withPriority(pod("logs", "200m", ""), 0),
	}
	victims, err := admission.Preempt(critical, running, []admission.Need{{Resource: core.ResourceCPU, Amount: 500}}, admission.Options{})
	for _, v := range victims {
		fmt.Println(v.Name, "priority", *v.Priority)
	}
	fmt.Println(err)
	// Output:
	// payments priority 1000
	// <nil>
}

// A static pod from a manifest and its mirror pod: missing, it is created;
// an orphaned mirror pod is deleted.
func ExampleReconcileMirrors() {
	node := &core.Node{Name: "cp-1", UID: "node-uid"}
	etcd := admission.StaticPod(core.Pod{Name: "etcd", Namespace: "kube-system"}, node.Name, core.SourceFile, "0f3c")
	fmt.Println(etcd.Name, etcd.Annotations[core.ConfigHashAnnotation])

	orphan := &core.Pod{Name: "kube-scheduler-cp-1", Namespace: "kube-system",
		Annotations: map[string]string{core.ConfigMirrorAnnotation: "77aa"}}
	for _, a := range admission.ReconcileMirrors(node, []*core.Pod{&etcd}, []*core.Pod{orphan}, nil) {
		fmt.Println(a.Op, a.FullName, "-", a.Message)
	}
	// Output:
	// etcd-cp-1 0f3c
	// Create etcd-cp-1_kube-system - static pod etcd-cp-1_kube-system has no mirror pod
	// Delete kube-scheduler-cp-1_kube-system - mirror pod kube-scheduler-cp-1_kube-system has no static pod on the node
}

// Requested reads a node's sums, for scoring nodes as a scheduler does.
func ExampleNodeInfo_Requested() {
	ni := admission.NewNodeInfo(node4x8(), admission.Options{}, pod("a", "2", "1Gi"), pod("b", "500m", "1Gi"))
	used, alloc := ni.Requested(core.ResourceCPU)
	fmt.Println(used, alloc)
	used, alloc = ni.Requested(core.ResourcePods)
	fmt.Println(used, alloc)
	// Output:
	// 2500 4000
	// 2 110
}
