package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/nodelife/nodelife/cmd/cluster/agent"
	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
)

// An agent with RunPods reports its bound pod Running; with
// FinishDeletions it finishes the pod's deletion at its next status
// update, as the kubelet does once the containers have stopped; without,
// the pod stays terminating.
func TestAgentFinishesDeletions(t *testing.T) {
	s := testcluster.Shared(t)
	ctx := context.Background()
	ns := "agent-finish"
	newNamespace(t, s, ns)
	for _, finish := range []bool{true, false} {
		node := map[bool]string{true: "finish-0", false: "finish-1"}[finish]
		clk := testingclock.NewFakeClock(time.Now())
		a, err := agent.New(s.Client, agent.Options{NodeName: node, Clock: clk, RunPods: true, FinishDeletions: finish})
		require.NoError(t, err)
		_, err = a.Step(ctx)
		require.NoError(t, err)
		_, err = s.Client.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: node},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "registry.example.com/app:1"}}}}, metav1.CreateOptions{})
		require.NoError(t, err)
		step := func() {
			next, err := a.Step(ctx)
			require.NoError(t, err)
			clk.SetTime(next)
			_, err = a.Step(ctx)
			require.NoError(t, err)
		}
		step() // the next status update
		p, err := s.Client.CoreV1().Pods(ns).Get(ctx, node, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, corev1.PodRunning, p.Status.Phase)

		require.NoError(t, s.Client.CoreV1().Pods(ns).Delete(ctx, node, metav1.DeleteOptions{}))
		p, err = s.Client.CoreV1().Pods(ns).Get(ctx, node, metav1.GetOptions{})
		require.NoError(t, err)
		require.NotNil(t, p.DeletionTimestamp, "a bound pod waits for its kubelet")
		for range 2 {
			step()
		}
		_, err = s.Client.CoreV1().Pods(ns).Get(ctx, node, metav1.GetOptions{})
		require.Equal(t, finish, apierrors.IsNotFound(err), "finish %v: %v", finish, err)
	}
}
