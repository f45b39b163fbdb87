package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/nodelife/nodelife/cmd/cluster/agent"
	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
	"github.com/nodelife/nodelife/cmd/cluster/internal/nodewatch"
	"github.com/nodelife/nodelife/cmd/cluster/internal/replaycmd"
	"github.com/nodelife/nodelife/conditions"
)

// Agents have a kubelet's rights and no more (nodelife issue 34, point 5;
// the seeds: "kubelets are only authorized to create/modify their own Node
// resource"). Every agent of the e2e tests authenticates as
// system:node:<name> in group system:nodes, and the API server runs the
// Node authorizer and NodeRestriction. Here a-0's identity is refused, by
// NodeRestriction, with its messages, when it writes b-0's Node status,
// b-0's Lease or the status of a pod bound to b-0, and when a node
// registers with a label the kubelet may not set; what it may do to its
// own objects goes through. (The agent itself refuses such a label at
// start-up, as the kubelet does; the API server is the second line.)
func TestNodeRestriction(t *testing.T) {
	h := newHarness(t)
	h.createPod("b-0-app", "b-0", nil, "")
	h.createPod("a-0-app", "a-0", nil, "")
	h.addAgent("a-0", "a", agent.Options{RunPods: true}, nil)
	h.addAgent("b-0", "b", agent.Options{RunPods: true}, nil)
	h.run(10 * time.Second)
	a0 := h.nodeClient("a-0")
	ctx := h.ctx
	forbidden := func(err error, msg string) {
		t.Helper()
		require.True(t, apierrors.IsForbidden(err), "want 403, got %v", err)
		require.Contains(t, err.Error(), msg)
	}

	// its own Node, Lease and pod: allowed
	own, err := a0.CoreV1().Nodes().Get(ctx, "a-0", metav1.GetOptions{})
	require.NoError(t, err)
	_, err = a0.CoreV1().Nodes().UpdateStatus(ctx, own, metav1.UpdateOptions{})
	require.NoError(t, err)
	ownLease, err := a0.CoordinationV1().Leases("kube-node-lease").Get(ctx, "a-0", metav1.GetOptions{})
	require.NoError(t, err)
	_, err = a0.CoordinationV1().Leases("kube-node-lease").Update(ctx, ownLease, metav1.UpdateOptions{})
	require.NoError(t, err)
	ownPod, err := a0.CoreV1().Pods(h.ns).Get(ctx, "a-0-app", metav1.GetOptions{})
	require.NoError(t, err)
	_, err = a0.CoreV1().Pods(h.ns).UpdateStatus(ctx, ownPod, metav1.UpdateOptions{})
	require.NoError(t, err)

	// b-0's Node: since v1.36 a node may not even read another's Node (the
	// Node authorizer, with field selectors), nor write its status
	_, err = a0.CoreV1().Nodes().Get(ctx, "b-0", metav1.GetOptions{})
	forbidden(err, `node 'a-0' cannot read 'b-0', only its own Node object`)
	other, err := h.client.CoreV1().Nodes().Get(ctx, "b-0", metav1.GetOptions{})
	require.NoError(t, err)
	_, err = a0.CoreV1().Nodes().UpdateStatus(ctx, other, metav1.UpdateOptions{})
	forbidden(err, `node "a-0" is not allowed to modify node "b-0"`)
	// b-0's Lease
	otherLease, err := h.client.CoordinationV1().Leases("kube-node-lease").Get(ctx, "b-0", metav1.GetOptions{})
	require.NoError(t, err)
	_, err = a0.CoordinationV1().Leases("kube-node-lease").Update(ctx, otherLease, metav1.UpdateOptions{})
	forbidden(err, "can only access node lease with the same name as the requesting node")
	// a pod bound to b-0: a-0 may not even read it (the Node authorizer
	// finds no path from a-0 to it), nor write its status
	_, err = a0.CoreV1().Pods(h.ns).Get(ctx, "b-0-app", metav1.GetOptions{})
	forbidden(err, `no relationship found between node 'a-0' and this object`)
	otherPod, err := h.client.CoreV1().Pods(h.ns).Get(ctx, "b-0-app", metav1.GetOptions{})
	require.NoError(t, err)
	_, err = a0.CoreV1().Pods(h.ns).UpdateStatus(ctx, otherPod, metav1.UpdateOptions{})
	forbidden(err, `node "a-0" can only update pod status for pods with spec.nodeName set to itself`)
	// nor list every pod (only those bound to it, by field selector)
	_, err = a0.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	require.True(t, apierrors.IsForbidden(err), "listing all pods: %v", err)

	// Registration labels: in the kubernetes.io and k8s.io namespaces
	// NodeRestriction refuses the labels conditions.IsKubeletLabel says a
	// kubelet may not set; labels outside those namespaces are free.
	for i, c := range []struct {
		label   string
		kubelet bool // what IsKubeletLabel answers
		ok      bool // whether registration succeeds
	}{
		{"node-role.kubernetes.io/worker", false, false},
		{"example.k8s.io/pool", false, false},
		{"node.kubernetes.io/instance-type", true, true},
		{"topology.kubernetes.io/zone", true, true},
		{"team.example.com/owner", false, true},
	} {
		require.Equal(t, c.kubelet, conditions.IsKubeletLabel(c.label), c.label)
		name := fmt.Sprintf("l-%d", i)
		// the agent checks its labels as the kubelet does at start-up
		a, err := agent.New(h.nodeClient(name), agent.Options{NodeName: name, Clock: h.clock, Labels: map[string]string{c.label: "x"}})
		if c.ok {
			require.NoError(t, err, c.label)
			_, err = a.Step(ctx)
			require.NoError(t, err, c.label)
			continue
		}
		require.ErrorIs(t, err, agent.ErrInvalidOptions, c.label)
		require.Contains(t, err.Error(), c.label)
		// and the API server refuses a node that registers with it anyway
		_, err = h.nodeClient(name).CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{c.label: "x"}}}, metav1.CreateOptions{})
		forbidden(err, `node "`+name+`" is not allowed to set the following labels: `+c.label)
		_, err = h.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		require.True(t, apierrors.IsNotFound(err), "%s registered: %v", name, err)
	}
}

// An expired client certificate (nodelife issue 34, point 3): the test's
// authority signs a certificate for the administrator that expired an hour
// ago. The API server answers 401; nodewatch and the replay say who was
// refused, where, and that the certificate expired, with its date. A
// certificate not valid yet is named so too.
func TestExpiredClientCertificate(t *testing.T) {
	s := testcluster.Shared(t)
	dir := t.TempDir()
	now := time.Now()
	for _, c := range []struct {
		name                string
		notBefore, notAfter time.Time
		want                string
	}{
		{"expired", now.Add(-2 * time.Hour), now.Add(-time.Hour).Truncate(time.Second), "the client certificate expired at " + now.Add(-time.Hour).Truncate(time.Second).UTC().Format(time.RFC3339)},
		{"future", now.Add(time.Hour).Truncate(time.Second), now.Add(2 * time.Hour), "the client certificate is not valid before " + now.Add(time.Hour).Truncate(time.Second).UTC().Format(time.RFC3339)},
	} {
		cfg, err := s.UserConfig("nodelife-admin", []string{"system:masters"}, c.notBefore, c.notAfter)
		require.NoError(t, err)
		sub := filepath.Join(dir, c.name)
		require.NoError(t, os.MkdirAll(sub, 0o755))
		kc, err := s.Kubeconfig(sub, "", cfg)
		require.NoError(t, err)
		// the server itself refuses it: 401
		client, err := kubernetes.NewForConfig(cfg)
		require.NoError(t, err)
		_, err = client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
		require.True(t, apierrors.IsUnauthorized(err), "%s: want 401, got %v", c.name, err)

		var out, errOut bytes.Buffer
		require.Equal(t, 1, nodewatch.Main([]string{"-kubeconfig", kc}, &out, &errOut), c.name)
		require.Contains(t, errOut.String(), `nodewatch: unauthorized: the API server refused the credentials of user "test" (context "test" in `+kc+") at "+s.Config.Host+": "+c.want)
		out.Reset()
		errOut.Reset()
		require.Equal(t, 1, replaycmd.Main([]string{"-kubeconfig", kc}, &out, &errOut), c.name)
		require.Contains(t, errOut.String(), `replay: unauthorized: the API server refused the credentials of user "test" (context "test" in `+kc+") at "+s.Config.Host+": "+c.want)
	}
}
