package podgc_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/nodelife/nodelife/cmd/cluster/podgc"
	"github.com/nodelife/nodelife/gc"
)

// With a threshold of one terminated pod, the evicted pod goes first,
// then the oldest of the rest; the running pod does not count. A fake
// client stands in for the API server here; cmd/cluster/e2e runs the
// collector against a real one.
func ExampleCollector_Sync() {
	start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	pod := func(name string, age time.Duration, phase corev1.PodPhase, reason string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: k8stypes.UID("uid-" + name), CreationTimestamp: metav1.NewTime(start.Add(-age))},
			Status: corev1.PodStatus{Phase: phase, Reason: reason}}
	}
	client := fake.NewClientset(
		pod("report-1", 3*time.Hour, corev1.PodSucceeded, ""),
		pod("report-2", 2*time.Hour, corev1.PodSucceeded, ""),
		pod("web-x", time.Hour, corev1.PodFailed, "Evicted"),
		pod("web-y", time.Hour, corev1.PodRunning, ""))
	cfg := gc.DefaultPodGCConfig()
	cfg.TerminatedPodThreshold = 1
	c, err := podgc.New(client, cfg, podgc.Options{Clock: testingclock.NewFakeClock(start)})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := c.Sync(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("deleted:", res.Deleted)
	left, _ := client.CoreV1().Pods("shop").List(context.Background(), metav1.ListOptions{})
	for _, p := range left.Items {
		fmt.Println("left:", p.Name)
	}
	// Output:
	// deleted: [shop/web-x shop/report-1]
	// left: report-2
	// left: web-y
}
