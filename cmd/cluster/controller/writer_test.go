package controller

import (
	"context"
	"testing"
	"time"

	"github.com/nodelife/nodelife/core"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"
)

// A node status write that meets a conflict is retried on a fresh read, as
// upstream's monitorNodeHealth retries: only the conditions the controller
// changes are set, another component's stay; a newer kubelet heartbeat
// stops the retry; at most 5 attempts.
func TestWriteNodeConditionsConflict(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	base := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.NewTime(t0), LastTransitionTime: metav1.NewTime(t0)},
	}}}
	unknown := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown",
		LastHeartbeatTime: metav1.NewTime(t0), LastTransitionTime: metav1.NewTime(t0.Add(time.Minute))}}
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, "n1", nil)

	for _, tc := range []struct {
		name       string
		conflicts  int
		meanwhile  func(n *corev1.Node) // what the competing writer did before the retry's read
		wantErr    bool
		wantStatus corev1.ConditionStatus
		wantOther  bool
		updates    int
	}{
		{"one conflict, another component's condition kept", 1, func(n *corev1.Node) {
			n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: "NetworkUnavailable", Status: corev1.ConditionFalse})
		}, false, corev1.ConditionUnknown, true, 2},
		{"the kubelet posted meanwhile: no retry", 1, func(n *corev1.Node) {
			n.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(t0.Add(50 * time.Second))
		}, true, corev1.ConditionTrue, false, 1},
		{"conflicts every time: 5 attempts", 9, func(*corev1.Node) {}, true, corev1.ConditionTrue, false, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(base.DeepCopy())
			updates := 0
			client.PrependReactor("update", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != "status" {
					return false, nil, nil
				}
				updates++
				if updates <= tc.conflicts {
					n, err := client.Tracker().Get(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, "", "n1")
					if err != nil {
						return true, nil, err
					}
					cur := n.(*corev1.Node).DeepCopy()
					tc.meanwhile(cur)
					if err := client.Tracker().Update(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, cur, ""); err != nil {
						return true, nil, err
					}
					return true, nil, conflict
				}
				return false, nil, nil
			})
			w := &APIWriter{Client: client, Clock: testingclock.NewFakeClock(t0)}
			_, err := w.WriteNodeConditions(context.Background(), base, unknown)
			if (err != nil) != tc.wantErr || updates != tc.updates {
				t.Fatalf("err %v, %d updates; want error %v, %d updates", err, updates, tc.wantErr, tc.updates)
			}
			got, _ := client.CoreV1().Nodes().Get(context.Background(), "n1", metav1.GetOptions{})
			var ready corev1.ConditionStatus
			other := false
			for _, c := range got.Status.Conditions {
				switch c.Type {
				case corev1.NodeReady:
					ready = c.Status
				case "NetworkUnavailable":
					other = true
				}
			}
			if ready != tc.wantStatus || other != tc.wantOther {
				t.Fatalf("Ready %s, NetworkUnavailable kept %v", ready, other)
			}
		})
	}
}

// An eviction whose condition write meets a conflict (another writer
// updated the pod between the read and the update) is tried again on a
// fresh read, up to 5 times as upstream's taint eviction controller: the
// pod gets the condition and is deleted.
func TestEvictPodConflict(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u1"}}
	for _, tc := range []struct {
		conflicts int
		wantErr   bool
		deleted   bool
	}{{1, false, true}, {4, false, true}, {5, true, false}} {
		client := fake.NewClientset(pod.DeepCopy())
		updates := 0
		client.PrependReactor("update", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if a.GetSubresource() != "status" {
				return false, nil, nil
			}
			updates++
			if updates <= tc.conflicts {
				return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "p", nil)
			}
			return false, nil, nil
		})
		w := &APIWriter{Client: client, Clock: testingclock.NewFakeClock(t0)}
		err := w.EvictPod(context.Background(), pod, core.PodCondition{Type: "DisruptionTarget", Status: "True", Reason: "DeletionByTaintManager"}, t0)
		_, gerr := client.CoreV1().Pods("ns").Get(context.Background(), "p", metav1.GetOptions{})
		if (err != nil) != tc.wantErr || apierrors.IsNotFound(gerr) != tc.deleted {
			t.Errorf("%d conflicts: err %v, deleted %v", tc.conflicts, err, apierrors.IsNotFound(gerr))
		}
	}
}
