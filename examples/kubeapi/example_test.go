package kubeapi_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/taints"
)

// A pod with the admission plugin's default tolerations on a node the
// controller has just tainted unreachable: the taint-eviction planner,
// fed straight from the API objects, deletes it 300s later.
func ExamplePod_noExecute() {
	now := time.Date(2026, 3, 1, 12, 2, 0, 0, time.UTC)
	added := metav1.NewTime(now)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-b-17"},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute, TimeAdded: &added}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-0"},
		Spec: corev1.PodSpec{Tolerations: kubeapi.FromTolerations(taints.DefaultNoExecuteTolerations())}}

	d := eviction.NoExecuteConfig{}.Plan(now, kubeapi.Taints(node.Spec.Taints), kubeapi.Pod(pod), nil)
	fmt.Println(d.Action, d.Reason, d.At.Sub(now))
	// Output:
	// Schedule TolerationSeconds 5m0s
}

// A custom kubelet computes its conditions with nodelife and writes them
// into the Node it PATCHes.
func ExampleFromConditions() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-b-17"}}
	in := conditions.KubeletInput{Ready: conditions.ReadyInput{Capacity: []string{"cpu", "memory", "pods"}}}
	conds, _ := conditions.SetKubeletConditions(now, kubeapi.Conditions(n.Status.Conditions), in)
	n.Status.Conditions = kubeapi.FromConditions(conds)
	for _, c := range n.Status.Conditions {
		fmt.Println(c.Type, c.Status, c.Reason)
	}
	// Output:
	// MemoryPressure False KubeletHasSufficientMemory
	// DiskPressure False KubeletHasNoDiskPressure
	// PIDPressure False KubeletHasSufficientPID
	// Ready True KubeletReady
}

// One conversion per object, two planners: a pod stuck terminating on a
// node that went down and was marked out of service is force deleted by
// the pod GC controller and by the non-graceful shutdown planner, both fed
// the same core.Pod and core.Node.
func ExamplePod() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	deleted := metav1.NewTime(now.Add(-10 * time.Minute))
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-b-17"},
		Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: "node.kubernetes.io/out-of-service", Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute}}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "pg-0", DeletionTimestamp: &deleted},
		Spec: corev1.PodSpec{NodeName: "worker-b-17"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}

	p, n := kubeapi.Pod(pod), kubeapi.Node(node)
	g, _ := gc.NewPodGC(gc.DefaultPodGCConfig())
	gcPlan, _ := g.Step(now, gc.PodGCInput{Pods: []core.Pod{p}, Nodes: []core.Node{n}})
	for _, d := range gcPlan.Deletions {
		fmt.Println("pod GC:", d.Pod.Key(), d.Reason, "set Failed:", d.SetFailed)
	}
	oos := shutdown.OutOfServiceConfig{}.Plan(now, n, []core.Pod{p}, nil)
	for _, f := range oos.ForceDelete {
		fmt.Println("out of service:", f.Pod.Key(), "set Failed:", f.SetFailed)
	}
	// Output:
	// pod GC: db/pg-0 terminating-out-of-service set Failed: true
	// out of service: db/pg-0 set Failed: true
}

// A node's Ready condition comes over with its other conditions.
func ExampleNode() {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-b-17"},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse},
			{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown"}}}}
	n := kubeapi.Node(node)
	fmt.Println(n.Name, n.ReadyStatus(), n.Ready())
	// Output: worker-b-17 Unknown false
}
