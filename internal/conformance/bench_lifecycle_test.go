package conformance

import (
	"context"
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/nodelifecycle"
)

// lifecyclePairs times a monitor pass of the composed node lifecycle
// controller beside upstream's monitorNodeHealth: 1,000 nodes in 3 zones,
// every one Ready with its lease renewed since the last pass (what a
// healthy cluster gives every pass), nothing to write. Each operation
// delivers the 1,000 renewed leases (built before the clock starts;
// upstream's go into its lease informer's store as the informer puts them)
// and runs one pass 5s after the last. Upstream runs with one node worker
// (the differential's setting; its default spreads the pass over 8
// goroutines).
func lifecyclePairs() []pair {
	const nodes = 1000
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mkNode := func(i int) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%04d", i), UID: types.UID(fmt.Sprintf("u%04d", i)),
			CreationTimestamp: metav1.NewTime(start),
			Labels:            map[string]string{corev1.LabelTopologyRegion: "r", corev1.LabelTopologyZone: fmt.Sprintf("z%d", i%3)}}}
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: metav1.NewTime(start), LastTransitionTime: metav1.NewTime(start)}}
		return n
	}
	lease := func(i int, at time.Time) *coordinationv1.Lease {
		renew := metav1.NewMicroTime(at)
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%04d", i), Namespace: corev1.NamespaceNodeLease},
			Spec: coordinationv1.LeaseSpec{RenewTime: &renew}}
	}
	return []pair{{"nodelifecycle.Controller/monitor-pass/nodes=1000",
		func(b *testing.B) {
			c, err := nodelifecycle.New(nodelifecycle.DefaultConfig())
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < nodes; i++ {
				c.UpsertNode(kubeapi.Node(mkNode(i)))
				c.UpsertLease(nodelifecycle.Lease{Node: fmt.Sprintf("n%04d", i), RenewTime: start})
			}
			c.StepAll(start)
			names := make([]string, nodes)
			for i := range names {
				names[i] = fmt.Sprintf("n%04d", i)
			}
			b.ResetTimer()
			for k := 1; k <= b.N; k++ {
				now := start.Add(time.Duration(k) * 5 * time.Second)
				for _, name := range names {
					c.UpsertLease(nodelifecycle.Lease{Node: name, RenewTime: now.Add(-time.Second)})
				}
				if r := c.StepAll(now); len(r.Actions) != 0 {
					b.Fatalf("a healthy pass acted: %v", r.Actions[0])
				}
			}
		},
		func(b *testing.B) {
			quietKlog(b)
			client := fake.NewSimpleClientset()
			for i := 0; i < nodes; i++ {
				_, _ = client.CoreV1().Nodes().Create(context.Background(), mkNode(i), metav1.CreateOptions{})
				_, _ = client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Create(context.Background(), lease(i, start), metav1.CreateOptions{})
			}
			clock := &fakeClock{now: start}
			u, err := newUpstream(client, clock, defaultLifecycleFlags())
			if err != nil {
				b.Fatal(err)
			}
			defer u.stop()
			u.monitor()
			renewed := make([][]*coordinationv1.Lease, b.N)
			for k := range renewed {
				at := start.Add(time.Duration(k+1)*5*time.Second - time.Second)
				renewed[k] = make([]*coordinationv1.Lease, nodes)
				for i := range renewed[k] {
					renewed[k][i] = lease(i, at)
				}
			}
			client.ClearActions()
			b.ResetTimer()
			for k := 1; k <= b.N; k++ {
				clock.mu.Lock()
				clock.now = start.Add(time.Duration(k) * 5 * time.Second)
				clock.mu.Unlock()
				for _, l := range renewed[k-1] {
					_ = u.leases.Update(l)
				}
				_ = ncMonitorNodeHealth(u.nc, u.ctx)
			}
			b.StopTimer()
			if n := len(client.Actions()); n != 0 {
				b.Fatalf("a healthy pass acted: %d API calls", n)
			}
		}}}
}
