package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	"github.com/nodelife/nodelife/cmd/cluster/agent"
	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/cri/fake"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/shutdown"
)

// slowRuntime is the fake CRI runtime with containers that take their
// time to stop: a container asked to stop exits after its pod's delay, or
// at the stop timeout if that comes first (the runtime then kills it).
type slowRuntime struct {
	*fake.Runtime
	clock  clock.Clock
	mu     sync.Mutex
	delay  map[string]time.Duration // by pod UID
	stopAt map[string]time.Time     // by container ID
	stops  []string                 // "<pod UID> <timeout>", in order
}

func (r *slowRuntime) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	cs, err := r.Runtime.ListContainers(ctx)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		if c.ID == id {
			d := min(r.delay[c.PodUID], timeout)
			r.stopAt[id] = r.clock.Now().Add(d)
			r.stops = append(r.stops, fmt.Sprintf("%s %v", c.PodUID, timeout))
		}
	}
	return nil
}

func (r *slowRuntime) ListContainers(ctx context.Context) ([]gc.Container, error) {
	r.mu.Lock()
	for id, at := range r.stopAt {
		if !r.clock.Now().Before(at) {
			if err := r.Runtime.StopContainer(ctx, id, 0); err != nil {
				r.mu.Unlock()
				return nil, err
			}
			delete(r.stopAt, id)
		}
	}
	r.mu.Unlock()
	return r.Runtime.ListContainers(ctx)
}

// A node shuts down at +20s with the kubelet's priority-based
// configuration: priority >= 0 gets 10s, >= 100000 gets 20s, critical
// (>= 2000000000) gets 30s. Its pods: "low" (no priority class: 0) stops
// in 4s; "mid" (class mid, 100000) would need 25s; "crit"
// (system-cluster-critical, 2000000000) stops in 3s. By hand, from the
// kubelet's rules (phases in ascending priority, each killing its pods in
// parallel with the grace period min(pod's 30s, phase's), the next phase
// starting once all are stopped or the phase's time is up):
//
//   - +20s: Ready turns False ("node is shutting down"); low is asked to
//     stop within 10s;
//   - +24s: low has stopped: Failed; mid is asked to stop within 20s;
//   - +44s: the runtime kills mid at its 20s timeout: Failed; crit is
//     asked to stop within 30s;
//   - +47s: crit has stopped: Failed, last.
func TestGracefulShutdown(t *testing.T) {
	h := newHarness(t)
	_, err := h.client.SchedulingV1().PriorityClasses().Create(h.ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "mid"}, Value: 100000}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, h.client.SchedulingV1().PriorityClasses().Delete(context.Background(), "mid", metav1.DeleteOptions{}))
	})
	// The Priority admission plugin reads classes from an informer: wait
	// until it knows "mid" (a dry-run create of a pod of that class is
	// admitted), or the create below can be refused as of an unknown class.
	probe := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "mid-probe"}, Spec: corev1.PodSpec{
		NodeName: "s-0", PriorityClassName: "mid", Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}}}
	require.Eventually(t, func() bool {
		_, err := h.client.CoreV1().Pods(h.ns).Create(h.ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil
	}, 10*time.Second, 20*time.Millisecond, "the API server never admitted a pod of PriorityClass mid")
	low := h.createPod("low", "s-0", nil, "")
	mid := h.createPod("mid", "s-0", nil, "mid")
	crit := h.createPod("crit", "s-0", nil, "system-cluster-critical")
	require.Equal(t, int32(2000000000), *crit.Spec.Priority, "admission resolved the class")

	var cs []gc.Container
	for _, p := range []*corev1.Pod{low, mid, crit} {
		cs = append(cs, gc.Container{ID: "c-" + p.Name, PodUID: string(p.UID), Name: "app", SandboxID: "s-" + p.Name, State: cri.ContainerRunning, CreatedAt: h.start})
	}
	inner, err := fake.New(cs, nil, nil, 0)
	require.NoError(t, err)
	rt := &slowRuntime{Runtime: inner, clock: h.clock, stopAt: map[string]time.Time{},
		delay: map[string]time.Duration{string(low.UID): 4 * time.Second, string(mid.UID): 25 * time.Second, string(crit.UID): 3 * time.Second}}

	a := h.addAgent("s-0", "a", agent.Options{RunPods: true, Runtime: rt, Shutdown: shutdown.Config{ShutdownGracePeriodByPodPriority: []shutdown.PhaseConfig{
		{Priority: 0, ShutdownGracePeriodSeconds: 10}, {Priority: 100000, ShutdownGracePeriodSeconds: 20}, {Priority: 2000000000, ShutdownGracePeriodSeconds: 30},
	}}}, nil)
	h.run(20 * time.Second)
	require.NoError(t, a.Shutdown(h.ctx))
	h.wake("s-0")
	h.run(60 * time.Second)

	s := time.Second
	require.Equal(t, sorted([]string{
		ev(0, "s-0 Ready=True"), ev(20*s, "s-0 Ready=False"),
	}), sorted(h.eventsAbout("Ready", "s-0 ")))
	require.Equal(t, sorted([]string{
		ev(0, "low phase=Running"), ev(24*s, "low phase=Failed"),
		ev(0, "mid phase=Running"), ev(44*s, "mid phase=Failed"),
		ev(0, "crit phase=Running"), ev(47*s, "crit phase=Failed"),
	}), sorted(h.eventsAbout("phase", "low ", "mid ", "crit ")))
	require.Equal(t, []string{string(low.UID) + " 10s", string(mid.UID) + " 20s", string(crit.UID) + " 30s"}, rt.stops)

	node, err := h.client.CoreV1().Nodes().Get(h.ctx, "s-0", metav1.GetOptions{})
	require.NoError(t, err)
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			require.Contains(t, c.Message, "node is shutting down")
		}
	}
	for _, name := range []string{"low", "mid", "crit"} {
		p, err := h.client.CoreV1().Pods(h.ns).Get(h.ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, corev1.PodFailed, p.Status.Phase, name)
		require.Equal(t, "Terminated", p.Status.Reason, name)
		require.Equal(t, "Pod was terminated in response to imminent node shutdown.", p.Status.Message, name)
		var dt *corev1.PodCondition
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == corev1.DisruptionTarget {
				dt = &p.Status.Conditions[i]
			}
		}
		require.NotNil(t, dt, name)
		require.Equal(t, corev1.ConditionTrue, dt.Status, name)
		require.Equal(t, "TerminationByKubelet", dt.Reason, name)
		require.Equal(t, "Pod was terminated in response to imminent node shutdown.", dt.Message, name)
	}
}
