package kubeapi_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/taints"
)

// A pod with the admission plugin's default tolerations on a node the
// controller has just tainted unreachable: the taint-eviction planner,
// fed straight from the API objects, deletes it 300s later.
func ExampleEvictionPod() {
	now := time.Date(2026, 3, 1, 12, 2, 0, 0, time.UTC)
	added := metav1.NewTime(now)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-b-17"},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute, TimeAdded: &added}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-0"},
		Spec: corev1.PodSpec{Tolerations: kubeapi.FromTolerations(taints.DefaultNoExecuteTolerations())}}

	d := eviction.NoExecuteConfig{}.Plan(kubeapi.Taints(node.Spec.Taints), kubeapi.EvictionPod(pod), nil, now)
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
	conds, _ := conditions.SetKubeletConditions(kubeapi.Conditions(n.Status.Conditions), in, now)
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
