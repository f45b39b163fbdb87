package agent_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/nodelife/nodelife/cmd/cluster/agent"
)

// The first Step registers the Node with its --register-with-taints,
// creates its Lease in kube-node-lease (for 40s, owned by the Node) and
// posts Ready; the next work is the renewal 10s later. Here on client-go's
// fake clientset, taught to give new Nodes a UID as an API server does; the
// e2e tests run the agent against a real API server.
func ExampleAgent_Step() {
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := testingclock.NewFakeClock(start)
	client := fake.NewClientset()
	client.PrependReactor("create", "nodes", func(action k8stesting.Action) (bool, runtime.Object, error) {
		action.(k8stesting.CreateAction).GetObject().(*corev1.Node).UID = "6e3d1f0c"
		return false, nil, nil // the fake's store takes it from here
	})
	a, err := agent.New(client, agent.Options{NodeName: "n1", RegisterWithTaints: []string{"dedicated=db:NoSchedule"}, Clock: clk})
	if err != nil {
		fmt.Println(err)
		return
	}
	next, err := a.Step(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	node, _ := client.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	l, _ := client.CoordinationV1().Leases("kube-node-lease").Get(ctx, "n1", metav1.GetOptions{})
	fmt.Println("taints:", node.Spec.Taints[0].ToString())
	for _, c := range node.Status.Conditions {
		if c.Type == "Ready" {
			fmt.Println("Ready:", c.Status, c.Reason)
		}
	}
	fmt.Println("lease:", *l.Spec.HolderIdentity, *l.Spec.LeaseDurationSeconds, "owner", l.OwnerReferences[0].Kind, l.OwnerReferences[0].UID)
	fmt.Println("next step in", next.Sub(start))
	// Output:
	// taints: dedicated=db:NoSchedule
	// Ready: True KubeletReady
	// lease: n1 40 owner Node 6e3d1f0c
	// next step in 10s
}

// New checks the options as the kubelet checks its flags, and names every
// bad value.
func ExampleNew() {
	_, err := agent.New(fake.NewClientset(), agent.Options{NodeName: "Node_1", RegisterWithTaints: []string{"maintenance-"}})
	fmt.Println(err)
	// Output:
	// agent: invalid options: NodeName: conditions: invalid node name: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
	// agent: invalid options: RegisterWithTaints: "maintenance-" removes a taint; only additions register
}
