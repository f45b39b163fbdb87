package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/cmd/cluster/controller"
)

const (
	unreachableNoSchedule = "taint node.kubernetes.io/unreachable:NoSchedule"
	unreachableNoExecute  = "taint node.kubernetes.io/unreachable:NoExecute"
)

// zonedCluster starts 3 zones x 5 agents (a-0 ... c-4), each node with
// three pods: one without tolerations (the DefaultTolerationSeconds
// admission plugin gives it 300s), one tolerating unreachable for 60s, one
// tolerating it forever; and a controller with upstream's defaults. Agents
// of the zones in cut stop after +60s until +600s.
func zonedCluster(t *testing.T, cut ...string) *harness {
	h := newHarness(t)
	h.zoneAgents([]string{"a", "b", "c"}, []string{"default", "60s", "forever"}, cut...)
	h.addController("controller", controller.Options{}, nil)
	return h
}

// The real API server's admission gives a pod without tolerations the
// 300s not-ready and unreachable tolerations, and a pod that tolerates
// unreachable only the not-ready one.
func TestAdmissionAddsDefaultTolerations(t *testing.T) {
	h := newHarness(t)
	p := h.createPod("plain", "nowhere", nil, "")
	var got []string
	for _, tol := range p.Spec.Tolerations {
		got = append(got, fmt.Sprintf("%s:%s:%d", tol.Key, tol.Effect, *tol.TolerationSeconds))
	}
	require.ElementsMatch(t, []string{"node.kubernetes.io/not-ready:NoExecute:300", "node.kubernetes.io/unreachable:NoExecute:300"}, got)
}

// Zone b's agents stop renewing after their renewals at +60s and come
// back at +600s. Worked out from upstream's defaults (no jitter: leases
// renewed every 10s from +0s; monitor passes every 5s from +0s; grace
// period 50s; tainting rate 0.1/s with a burst of 1):
//
//   - The last renewal seen is at +60s, so the first pass strictly after
//     +110s, at +115s, writes Ready=Unknown, marks the pods NotReady and
//     the NoSchedule pass adds unreachable:NoSchedule.
//   - Zone b is fully disrupted while a and c are not, so it keeps the
//     0.1/s rate. The tainter acts on the Ready status after the pass's
//     own rewrite (since v1.29, kubernetes#120816), so the nodes are queued
//     at +115s: b-0 is tainted unreachable:NoExecute at once, b-1..b-4 one
//     per 10s (+125s ... +155s).
//   - Each pod's eviction counts from its node's taint: the 60s pods go
//     at +175s, +185s, ... +215s; the pods with admission's 300s at
//     +415s ... +455s; the pods tolerating forever stay.
//   - At +600s the agents renew and post Ready=True; the pass at +600s
//     sees it and removes both taints.
//
// Zones a and c see nothing after their start.
func TestZoneOutage(t *testing.T) {
	h := zonedCluster(t, "b")
	h.run(700 * time.Second)

	want := zoneBOutage("default", "60s", "forever")
	for i := 0; i < 5; i++ {
		node := fmt.Sprintf("b-%d", i)
		want = append(want,
			ev(600*time.Second, node+" Ready=True"),
			ev(600*time.Second, node+" "+unreachableNoSchedule+"=off"),
			ev(600*time.Second, node+" "+unreachableNoExecute+"=off"),
		)
	}
	require.Equal(t, sorted(want), h.timeline("b-"))
	h.requireQuiet("a-", "c-")

	// The evicted pods carry the taint eviction controller's condition.
	p, err := h.client.CoreV1().Pods(h.ns).Get(h.ctx, "b-0-60s", metav1.GetOptions{})
	require.NoError(t, err)
	var cond *corev1.PodCondition
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.DisruptionTarget {
			cond = &p.Status.Conditions[i]
		}
	}
	require.NotNil(t, cond, "DisruptionTarget condition")
	require.Equal(t, "DeletionByTaintManager", cond.Reason)
	require.Equal(t, corev1.ConditionTrue, cond.Status)

	// Each node lease is owned by its Node, so that deleting the Node
	// collects it, as the kubelet's node lease controller sets it.
	node, err := h.client.CoreV1().Nodes().Get(h.ctx, "a-0", metav1.GetOptions{})
	require.NoError(t, err)
	l, err := h.client.CoordinationV1().Leases("kube-node-lease").Get(h.ctx, "a-0", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "a-0", UID: node.UID}}, l.OwnerReferences)
}

// zoneBOutage is zone b's timeline in TestZoneOutage until its agents
// return (+600s), for nodes b-0..b-4 each with a pod of each kind: Ready
// posted at +0s; Ready=Unknown and the unreachable NoSchedule taint at
// +115s, the first pass strictly after the last renewal (+60s) plus 50s;
// the NoExecute taint on b-i at +115s + 10s*i (0.1 nodes per second); the
// pods Ready=False at +115s, the 60s pods deleted 60s after their node's
// taint and the default (300s) pods 300s after.
func zoneBOutage(kinds ...string) []string {
	var want []string
	s := time.Second
	for i := 0; i < 5; i++ {
		node := fmt.Sprintf("b-%d", i)
		d := time.Duration(i) * 10 * s
		want = append(want,
			ev(0, node+" Ready=True"),
			ev(115*s, node+" Ready=Unknown"),
			ev(115*s, node+" "+unreachableNoSchedule+"=on"),
			ev(115*s+d, node+" "+unreachableNoExecute+"=on"),
		)
		for _, kind := range kinds {
			want = append(want, ev(0, node+"-"+kind+" Ready=True"), ev(115*s, node+"-"+kind+" Ready=False"))
			switch kind {
			case "60s":
				want = append(want, ev(175*s+d, node+"-60s deleted=yes"))
			case "default":
				want = append(want, ev(415*s+d, node+"-default deleted=yes"))
			}
		}
	}
	return want
}

// All three zones lose their agents: the cluster enters full disruption
// at the pass that sees every zone without a ready node (+115s), every
// zone's tainting rate is 0, and no node gets a NoExecute taint, so no
// pod is deleted (only the NoSchedule taints and Ready=Unknown appear).
func TestAllZonesDown(t *testing.T) {
	h := zonedCluster(t, "a", "b", "c")
	h.run(400 * time.Second)
	for _, e := range h.events {
		require.NotContains(t, e, "NoExecute", "no NoExecute taint in full disruption")
		require.NotContains(t, e, "deleted", "no eviction in full disruption")
	}
	nodes, err := h.client.CoreV1().Nodes().List(h.ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, nodes.Items, 15)
	for _, n := range nodes.Items {
		var keys []string
		for _, t := range n.Spec.Taints {
			keys = append(keys, t.Key+":"+string(t.Effect))
		}
		require.Equal(t, []string{"node.kubernetes.io/unreachable:NoSchedule"}, keys, n.Name)
	}
	require.Contains(t, h.events, ev(115*time.Second, "a-0 Ready=Unknown"))
}
