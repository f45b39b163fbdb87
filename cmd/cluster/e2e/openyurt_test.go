package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/cmd/cluster/agent"
	"github.com/nodelife/nodelife/cmd/cluster/controller"
	"github.com/nodelife/nodelife/nodelifecycle"
)

// OpenYurt's node autonomy against the real API server (issue 62's
// scenario): an edge pool e of 4 agents (e-0 ... e-3) beside a cloud pool
// c of 2, pools as zones, each node with a pod tolerating unreachable for
// 60s and one with admission's 300s. e-0 and e-1 are edge workers
// annotated node.beta.openyurt.io/autonomy "true" (a patch after they
// register, as an operator would). The pool's agents stop after their
// renewals at +60s and come back at +960s: 15 minutes offline. The
// controller runs nodelifecycle.OpenYurt.
//
// Worked out as TestZoneOutage (upstream's defaults, no jitter): the last
// renewal seen is at +60s, so at the pass of +115s the four nodes turn
// Unknown and get unreachable:NoSchedule. Pool e is fully disrupted and
// pool c is not, so e keeps tainting at 0.1 node/s with a burst of 1:
// unreachable:NoExecute on e-0 at +115s, e-1 +125s, e-2 +135s, e-3 +145s.
// e-2's and e-3's pods are marked NotReady at +115s and deleted 60s and
// 300s after their node's taint: +195s and +435s, +205s and +445s. The
// autonomous nodes' pods are never marked NotReady (OpenYurt's node
// lifecycle controller) and never deleted (its pod binding: bound for
// ever). At +960s the agents post Ready and both taints come off.
func TestOpenYurtAutonomy(t *testing.T) {
	h := newHarness(t)
	s := time.Second
	for _, pool := range []string{"e", "c"} {
		n := map[string]int{"e": 4, "c": 2}[pool]
		for i := 0; i < n; i++ {
			node := fmt.Sprintf("%s-%d", pool, i)
			h.createPod(node+"-60s", node, tolerateUnreachable(60), "")
			h.createPod(node+"-default", node, nil, "")
			var pause *window
			if pool == "e" {
				pause = &window{from: 60 * s, to: 960 * s}
			}
			h.addAgent(node, pool, agent.Options{RunPods: true}, pause)
		}
	}
	cfg := controller.DefaultConfig()
	cfg.NodePolicy = nodelifecycle.OpenYurt{}
	h.addController("controller", controller.Options{Config: &cfg}, nil)
	h.run(0)
	for _, name := range []string{"e-0", "e-1"} {
		n, err := h.client.CoreV1().Nodes().Get(h.ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		n.Labels[nodelifecycle.LabelOpenYurtEdgeWorker] = "true"
		if n.Annotations == nil {
			n.Annotations = map[string]string{}
		}
		n.Annotations[nodelifecycle.AnnotationOpenYurtAutonomy] = "true"
		_, err = h.client.CoreV1().Nodes().Update(h.ctx, n, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
	h.run(1000 * s)

	var want []string
	for i := 0; i < 4; i++ {
		node := fmt.Sprintf("e-%d", i)
		d := time.Duration(i) * 10 * s
		want = append(want,
			ev(0, node+" Ready=True"),
			ev(115*s, node+" Ready=Unknown"),
			ev(115*s, node+" "+unreachableNoSchedule+"=on"),
			ev(115*s+d, node+" "+unreachableNoExecute+"=on"),
			ev(960*s, node+" Ready=True"),
			ev(960*s, node+" "+unreachableNoSchedule+"=off"),
			ev(960*s, node+" "+unreachableNoExecute+"=off"),
			ev(0, node+"-60s Ready=True"),
			ev(0, node+"-default Ready=True"),
		)
		if i >= 2 {
			want = append(want,
				ev(115*s, node+"-60s Ready=False"),
				ev(115*s, node+"-default Ready=False"),
				ev(175*s+d, node+"-60s deleted=yes"),
				ev(415*s+d, node+"-default deleted=yes"),
			)
		}
	}
	require.Equal(t, sorted(want), h.timeline("e-"))
	h.requireQuiet("c-")

	// The autonomous nodes' pods are still there, Ready, with their own
	// tolerations (the controller bound them in its view only).
	for _, name := range []string{"e-0-60s", "e-1-default"} {
		p, err := h.client.CoreV1().Pods(h.ns).Get(h.ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		require.Nil(t, p.DeletionTimestamp, name)
		var unreachable *corev1.Toleration
		for i := range p.Spec.Tolerations {
			if p.Spec.Tolerations[i].Key == corev1.TaintNodeUnreachable {
				unreachable = &p.Spec.Tolerations[i]
			}
		}
		require.NotNil(t, unreachable, name)
		require.NotNil(t, unreachable.TolerationSeconds, name)
	}
}
