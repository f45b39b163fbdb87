package e2e

import (
	"context"

	"time"

	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/cmd/cluster/controller"
	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
)

// inventory is every node, node lease and pod of the test by name, with
// its UID: what "nothing lost" compares.
func (h *harness) inventory() map[string]string {
	h.t.Helper()
	out := map[string]string{}
	nodes, err := h.client.CoreV1().Nodes().List(h.ctx, metav1.ListOptions{})
	require.NoError(h.t, err)
	for _, n := range nodes.Items {
		out["node/"+n.Name] = string(n.UID)
	}
	leases, err := h.client.CoordinationV1().Leases("kube-node-lease").List(h.ctx, metav1.ListOptions{})
	require.NoError(h.t, err)
	for _, l := range leases.Items {
		out["lease/"+l.Name] = string(l.UID)
	}
	pods, err := h.client.CoreV1().Pods(h.ns).List(h.ctx, metav1.ListOptions{})
	require.NoError(h.t, err)
	for _, p := range pods.Items {
		out["pod/"+p.Name] = string(p.UID)
	}
	return out
}

// waitAPI waits, in real time, until the API server answers a consistent
// list (read from etcd, not its cache) through the stable address.
func (h *harness) waitAPI() time.Duration {
	h.t.Helper()
	began := time.Now()
	ctx, cancel := context.WithTimeout(h.ctx, 60*time.Second)
	defer cancel()
	for {
		_, err := h.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err == nil {
			return time.Since(began)
		}
		require.NoError(h.t, ctx.Err(), "the API server did not come back: %v", err)
		time.Sleep(50 * time.Millisecond)
	}
}

// restartMidOutage runs TestZoneOutage's cluster for zones a and b (the
// 60s pods; zone b's agents stop after +60s) up to +150s, calls restart
// (the fake clock stands still meanwhile: no component misses a step),
// and runs on to +240s. Whatever the restart cut (watches, connections),
// nothing may be lost and the timeline must be TestZoneOutage's: b-3's
// taint at +145s came before the restart, b-4's at +155s and all five
// evictions (+175s ... +215s) after it.
func restartMidOutage(t *testing.T, restart func() (time.Duration, error)) {
	h := newHarness(t)
	h.zoneAgents([]string{"a", "b"}, []string{"60s"}, "b")
	c := h.addController("controller", controller.Options{}, nil)
	h.run(150 * time.Second)
	before := h.inventory()
	require.Len(t, before, 30, "10 nodes, 10 leases, 10 pods")

	away, err := restart()
	require.NoError(t, err)
	back := h.waitAPI()
	t.Logf("away %v, consistent list %v later; controller blind: %v", away.Round(time.Millisecond), back.Round(time.Millisecond), c.Blind())
	require.Equal(t, before, h.inventory(), "objects lost or replaced by the restart")

	h.run(240 * time.Second)
	require.Equal(t, zoneOutageTimeline(115*time.Second), h.timeline("b-"))
	h.requireQuiet("a-")
	require.False(t, c.Blind(), "the controller is still blind at the end")
	after := h.inventory()
	for k, uid := range before {
		if got, ok := after[k]; ok {
			require.Equal(t, uid, got, k)
		} else {
			require.Contains(t, k, "-60s", "%s is gone and was not evicted", k)
		}
	}
	require.Len(t, after, len(before), "evicted pods stay terminating (no kubelet confirms): %v", after)
}

// The API server stopped and a new one started on the same etcd
// (nodelife issue 34, point 3) in the middle of zone b's outage. The
// stable address cuts every connection, so agents, the controller's
// informers and the harness reconnect to the new server with the same
// certificates; the informers' watches end and resume (or relist); no
// object is lost and the controller's timeline is TestZoneOutage's.
func TestAPIServerRestart(t *testing.T) {
	restartMidOutage(t, testcluster.Shared(t).RestartAPIServer)
}

// etcd stopped for two seconds and started again on the same data and
// ports (nodelife issue 34, point 3) in the middle of zone b's outage; the
// API server keeps running and reconnects. Same expectations as
// TestAPIServerRestart.
func TestEtcdRestart(t *testing.T) {
	restartMidOutage(t, func() (time.Duration, error) { return testcluster.Shared(t).RestartEtcd(2 * time.Second) })
}
