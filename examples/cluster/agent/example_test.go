package agent_test

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/nodelife/nodelife/examples/cluster/agent"
)

// The first Step registers the Node with its --register-with-taints,
// creates its Lease in kube-node-lease (for 40s; owned by the Node when the
// server gave the Node a UID, which the fake clientset does not) and posts
// Ready; the next work is the renewal 10s later. Here on client-go's fake
// clientset; the e2e tests run it against a real API server.
func ExampleAgent_Step() {
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := testingclock.NewFakeClock(start)
	client := fake.NewClientset()
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
	fmt.Println("lease:", *l.Spec.HolderIdentity, *l.Spec.LeaseDurationSeconds)
	fmt.Println("next step in", next.Sub(start))
	// Output:
	// taints: dedicated=db:NoSchedule
	// Ready: True KubeletReady
	// lease: n1 40
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
