package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
	"github.com/nodelife/nodelife/cmd/cluster/podgc"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/taints"
)

// podGCEnv is one pod GC test: a namespace of its own and a collector
// restricted to it, on a fake clock.
type podGCEnv struct {
	t      *testing.T
	ctx    context.Context
	client kubernetes.Interface
	ns     string
	clock  *testingclock.FakeClock
	c      *podgc.Collector
}

func newPodGCEnv(t *testing.T, ns string, threshold int) *podGCEnv {
	s := testcluster.Shared(t)
	ctx := context.Background()
	newNamespace(t, s, ns)
	clk := testingclock.NewFakeClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	cfg := gc.DefaultPodGCConfig()
	cfg.TerminatedPodThreshold = threshold
	c, err := podgc.New(s.Client, cfg, podgc.Options{Clock: clk, Namespace: ns})
	require.NoError(t, err)
	return &podGCEnv{t: t, ctx: ctx, client: s.Client, ns: ns, clock: clk, c: c}
}

// pod creates a pod on node (none: "") in phase, with finalizers.
func (e *podGCEnv) pod(name, node string, phase corev1.PodPhase, reason string, finalizers ...string) *corev1.Pod {
	p, err := e.client.CoreV1().Pods(e.ns).Create(e.ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: finalizers},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "registry.example.com/app:1"}}}}, metav1.CreateOptions{})
	require.NoError(e.t, err)
	if phase != corev1.PodPending || reason != "" {
		p.Status.Phase, p.Status.Reason = phase, reason
		p, err = e.client.CoreV1().Pods(e.ns).UpdateStatus(e.ctx, p, metav1.UpdateOptions{})
		require.NoError(e.t, err)
	}
	return p
}

// get returns the pod, nil when it is gone.
func (e *podGCEnv) get(name string) *corev1.Pod {
	p, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	return orGone(e.t, p, err)
}

func (e *podGCEnv) sync() podgc.Result {
	res, err := e.c.Sync(e.ctx)
	require.NoError(e.t, err)
	require.Empty(e.t, res.Errors)
	return res
}

// release removes the pod's finalizers, so that its deletion completes.
func (e *podGCEnv) release(name string) {
	p := e.get(name)
	p.Finalizers = nil
	_, err := e.client.CoreV1().Pods(e.ns).Update(e.ctx, p, metav1.UpdateOptions{})
	require.NoError(e.t, err)
	require.Nil(e.t, e.get(name))
}

// Above the threshold of terminated pods (1 here), the excess goes:
// evicted pods first, then the oldest (by name on a tie); running pods
// are not counted.
func TestPodGCTerminatedThreshold(t *testing.T) {
	e := newPodGCEnv(t, "podgc-threshold", 1)
	e.pod("done-a", "", corev1.PodSucceeded, "")
	e.pod("done-b", "", corev1.PodSucceeded, "")
	e.pod("evicted", "", corev1.PodFailed, "Evicted")
	e.pod("running", "", corev1.PodRunning, "")
	res := e.sync()
	require.Equal(t, []string{e.ns + "/evicted", e.ns + "/done-a"}, res.Deleted)
	require.Empty(t, res.Failed, "both were terminal already")
	require.Nil(t, e.get("evicted"))
	require.Nil(t, e.get("done-a"))
	require.NotNil(t, e.get("done-b"))
	require.NotNil(t, e.get("running"))
	require.Empty(t, e.sync().Deleted)
}

// A pod bound to a node that does not exist goes once the node's
// quarantine (40 s) has run: marked Failed with the DisruptionTarget
// condition, then deleted (a finalizer keeps it here to read its status).
func TestPodGCOrphaned(t *testing.T) {
	e := newPodGCEnv(t, "podgc-orphaned", 0)
	e.pod("orphan", "podgc-no-such-node", corev1.PodRunning, "", "example.com/keep")
	res := e.sync()
	require.Empty(t, res.Deleted)
	require.Equal(t, []string{"podgc-no-such-node"}, res.Plan.Quarantined)

	e.clock.Step(gc.DefaultQuarantine - time.Second)
	require.Empty(t, e.sync().Deleted, "still in quarantine")
	e.clock.Step(2 * time.Second)
	res = e.sync()
	require.Equal(t, []string{e.ns + "/orphan"}, res.Deleted)
	require.Equal(t, []string{e.ns + "/orphan"}, res.Failed)
	p := e.get("orphan")
	require.NotNil(t, p.DeletionTimestamp)
	require.Equal(t, corev1.PodFailed, p.Status.Phase)
	require.Len(t, p.Status.Conditions, 1)
	c := p.Status.Conditions[0]
	require.Equal(t, []string{"DisruptionTarget", "True", "DeletionByPodGC", "PodGC: node no longer exists"},
		[]string{string(c.Type), string(c.Status), c.Reason, c.Message})
	e.release("orphan")
}

// A terminating pod on a node that is not Ready and carries the
// out-of-service taint is marked Failed and deleted at once; the same
// pod on a Ready node waits for its kubelet.
func TestPodGCOutOfService(t *testing.T) {
	e := newPodGCEnv(t, "podgc-oos", 0)
	node := func(name string, ready corev1.ConditionStatus, taints ...corev1.Taint) {
		n, err := e.client.CoreV1().Nodes().Create(e.ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Taints: taints}}, metav1.CreateOptions{})
		require.NoError(t, err)
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
		_, err = e.client.CoreV1().Nodes().UpdateStatus(e.ctx, n, metav1.UpdateOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = e.client.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	node("podgc-oos", corev1.ConditionFalse, corev1.Taint{Key: taints.TaintNodeOutOfService, Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute})
	node("podgc-ready", corev1.ConditionTrue, corev1.Taint{Key: taints.TaintNodeOutOfService, Effect: corev1.TaintEffectNoExecute})
	e.pod("stuck", "podgc-oos", corev1.PodRunning, "", "example.com/keep")
	e.pod("waiting", "podgc-ready", corev1.PodRunning, "")
	for _, name := range []string{"stuck", "waiting"} {
		require.NoError(t, e.client.CoreV1().Pods(e.ns).Delete(e.ctx, name, metav1.DeleteOptions{}))
		require.NotNil(t, e.get(name).DeletionTimestamp, "no kubelet confirms the deletion")
	}
	res := e.sync()
	require.Equal(t, []string{e.ns + "/stuck"}, res.Deleted)
	require.Equal(t, []string{e.ns + "/stuck"}, res.Failed)
	p := e.get("stuck")
	require.Equal(t, corev1.PodFailed, p.Status.Phase)
	require.Zero(t, *p.DeletionGracePeriodSeconds, "deleted again with grace period 0")
	require.NotNil(t, e.get("waiting"))
	e.release("stuck")
	require.NoError(t, e.client.CoreV1().Pods(e.ns).Delete(e.ctx, "waiting", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}))
}

// A terminating pod that was never scheduled is marked Failed and deleted.
func TestPodGCUnscheduledTerminating(t *testing.T) {
	e := newPodGCEnv(t, "podgc-unscheduled", 0)
	e.pod("never-bound", "", corev1.PodPending, "", "example.com/keep")
	require.Empty(t, e.sync().Deleted, "not terminating")
	require.NoError(t, e.client.CoreV1().Pods(e.ns).Delete(e.ctx, "never-bound", metav1.DeleteOptions{}))
	res := e.sync()
	require.Equal(t, []string{e.ns + "/never-bound"}, res.Deleted)
	require.Equal(t, corev1.PodFailed, e.get("never-bound").Status.Phase)
	e.release("never-bound")
}
