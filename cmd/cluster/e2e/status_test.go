package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/cmd/cluster/agent"
	"github.com/nodelife/nodelife/cmd/cluster/controller"
	"github.com/nodelife/nodelife/conditions"
)

// The agent observes memory pressure from +25s to +65s. With the
// kubelet's defaults (status checked every 10s from +0s, an unchanged
// status reported every 5m, no report delay without randomness), by hand:
// it posts at +0s (first), +30s (MemoryPressure=True, a change), +70s
// (back to False) and then not until +370s (5m after the last report).
// The controller's NoSchedule pass follows the condition: the
// memory-pressure taint is on from +30s to +70s.
func TestAgentStatusSchedule(t *testing.T) {
	h := newHarness(t)
	observe := func(now time.Time) conditions.KubeletInput {
		off := now.Sub(h.start)
		return conditions.KubeletInput{MemoryPressure: off >= 25*time.Second && off < 65*time.Second,
			Ready: conditions.ReadyInput{Capacity: []string{"cpu", "memory", "pods", "ephemeral-storage"}, LocalStorageCapacityIsolation: true}}
	}
	h.addAgent("m-0", "a", agent.Options{Observe: observe}, nil)
	h.addAgent("m-1", "a", agent.Options{}, nil)
	h.addController("controller", controller.Options{}, nil)

	heartbeat := func() time.Duration {
		n, err := h.client.CoreV1().Nodes().Get(h.ctx, "m-0", metav1.GetOptions{})
		require.NoError(t, err)
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.LastHeartbeatTime.Sub(h.start)
			}
		}
		return -1
	}
	s := time.Second
	h.run(20 * s)
	require.Equal(t, 0*s, heartbeat(), "first report at +0s")
	h.run(50 * s)
	require.Equal(t, 30*s, heartbeat(), "a change is posted at the next check")
	h.run(360 * s)
	require.Equal(t, 70*s, heartbeat(), "no unchanged report before 5m")
	h.run(375 * s)
	require.Equal(t, 370*s, heartbeat(), "the periodic report 5m after the last")
	require.Equal(t, []string{
		ev(30*s, "m-0 taint node.kubernetes.io/memory-pressure:NoSchedule=on"),
		ev(70*s, "m-0 taint node.kubernetes.io/memory-pressure:NoSchedule=off"),
	}, h.eventsAbout("memory-pressure", "m-0 "))
}
