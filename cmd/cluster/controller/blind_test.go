package controller

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/nodelife/nodelife/lease"
)

// A watch that fails makes the controller blind: it decides nothing while
// a consistent list fails, and once the list succeeds and the informers
// hold what it returned, it times every node afresh and goes on. With
// JudgeStaleView it never stops judging.
func TestBlindWhileWatchFails(t *testing.T) {
	for _, judge := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		clk := testingclock.NewFakeClock(start)
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", ResourceVersion: "1"},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
				LastHeartbeatTime: metav1.NewTime(start), LastTransitionTime: metav1.NewTime(start)}}}}
		renew := metav1.NewMicroTime(start)
		l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: lease.NodeLeaseNamespace, Name: "n1", ResourceVersion: "1"},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("n1"), RenewTime: &renew}}
		client := fake.NewClientset(node, l)
		var failWatch, failList atomic.Bool
		failWatch.Store(true)
		client.PrependWatchReactor("leases", func(k8stesting.Action) (bool, watch.Interface, error) {
			if failWatch.Load() {
				return true, nil, errors.New("watch cut")
			}
			return false, nil, nil
		})
		client.PrependReactor("list", "*", func(k8stesting.Action) (bool, runtime.Object, error) {
			if failList.Load() {
				return true, nil, errors.New("API down")
			}
			return false, nil, nil
		})
		c, err := New(client, Options{Clock: clk, JudgeStaleView: judge})
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = c.Start(ctx) }()
		deadline := time.Now().Add(10 * time.Second)
		for !c.Blind() && !judge && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if judge {
			if c.Blind() {
				t.Fatal("JudgeStaleView: blind")
			}
			cancel()
			continue
		}
		if !c.Blind() {
			t.Fatal("a failing watch did not make the controller blind")
		}
		failList.Store(true)
		if next, err := c.Step(ctx); err != nil || !next.Equal(start.Add(time.Second)) || !c.Blind() || c.Passes() != 0 {
			t.Fatalf("while the list fails: next %v, err %v, blind %v, passes %d", next.Sub(start), err, c.Blind(), c.Passes())
		}
		failList.Store(false)
		failWatch.Store(false)
		for c.Blind() && time.Now().Before(deadline) {
			if _, err := c.Step(ctx); err != nil {
				t.Fatal(err)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if c.Blind() || c.Passes() == 0 {
			t.Fatalf("after the list works again: blind %v, passes %d", c.Blind(), c.Passes())
		}
		cancel()
	}
}

func ptr[T any](v T) *T { return &v }
