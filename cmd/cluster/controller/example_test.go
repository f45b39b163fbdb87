package controller_test

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/cmd/cluster/controller"
)

// Plan shows what a controller starting now would do: two nodes renew
// their leases, n3's lease is five minutes old. n3 is first seen now, so it
// turns Unknown after the 50s grace period (at the pass at +55s) and gets
// both unreachable taints in that pass (the tainting decision reads the
// rewritten Ready condition, as since Kubernetes v1.29), and its pod,
// which tolerates unreachable for 60s, is deleted 60s after that, at
// +1m55s. The zone has no region label, hence "/a".
func ExamplePlan() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	dur := int32(40)
	var snap controller.Snapshot
	snap.Leases = map[string]*coordinationv1.Lease{}
	for i, age := range []time.Duration{2 * time.Second, 7 * time.Second, 5 * time.Minute} {
		name := fmt.Sprintf("n%d", i+1)
		snap.Nodes = append(snap.Nodes, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelTopologyZone: "a"}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
				LastHeartbeatTime: metav1.NewTime(now.Add(-age))}}},
		})
		renew := metav1.NewMicroTime(now.Add(-age))
		snap.Leases[name] = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: coordinationv1.LeaseSpec{RenewTime: &renew, LeaseDurationSeconds: &dur}}
	}
	sixty := int64(60)
	snap.Pods = []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "u1"},
		Spec: corev1.PodSpec{NodeName: "n3", Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/unreachable",
			Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &sixty}}}}}

	acts, err := controller.Plan(context.Background(), controller.DefaultConfig(), snap, now, 3*time.Minute)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range acts {
		if a.Kind != controller.KindSchedule {
			fmt.Printf("+%v %s\n", a.At.Sub(now), a)
		}
	}
	// Output:
	// +0s Zone /a: Initial -> Normal, 0 of 3 not ready, tainting rate 0.1/s
	// +55s NodeStatus n3: no heartbeat for 50s: Ready=Unknown
	// +55s PodsNotReady n3: Node is not ready
	// +55s Taint n3 node.kubernetes.io/unreachable:NoSchedule: condition taints follow the node's conditions
	// +55s Taint n3 node.kubernetes.io/unreachable:NoExecute: Ready is Unknown
	// +1m55s Evict n3 pod shop/web: tolerated the node's NoExecute taints for 1m0s
}
