package e2e

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/nodelife/nodelife/cmd/cluster/agent"
	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
	"github.com/nodelife/nodelife/cmd/cluster/internal/nodewatch"
)

// countWrites counts the requests a config's clients send that are not
// reads, SelfSubjectAccessReviews aside (they store nothing).
type countWrites struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c countWrites) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && !strings.HasSuffix(req.URL.Path, "/selfsubjectaccessreviews") {
		c.n.Add(1)
	}
	return c.next.RoundTrip(req)
}

// actionLines returns the lines of a nodewatch report that are actions.
func actionLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "+") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return lines
}

// Zone z has three nodes; n-2's agent renewed its lease at +0s only. The
// API server's TaintNodesByCondition admission registered every node with
// not-ready:NoSchedule, and no controller ran yet. nodewatch starts at
// +30s. Its plan, worked out by hand from upstream's defaults for a
// controller that starts then: the first pass removes not-ready:NoSchedule
// from the three nodes, which post Ready=True; n-2 is first seen at +30s,
// so it turns Unknown at the first pass strictly after +80s, at +85s (+55s
// from nodewatch's start), with the NoSchedule taint and its pods marked
// NotReady; the NoExecute taint in the same pass (+85s: the tainter reads
// the rewritten Ready, as since v1.29; the zone keeps its 0.1/s rate with
// one of three nodes down); the pod tolerating 30s goes at +115s, the one
// with admission's 300s at +385s. The dry run
// writes nothing; -apply then does exactly what the plan said, through the
// API.
func TestNodewatchPlanMatchesApply(t *testing.T) {
	h := newHarness(t)
	h.createPod("w-30s", "n-2", []corev1.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists,
		Effect: corev1.TaintEffectNoExecute, TolerationSeconds: int64p(30)}}, "")
	h.createPod("w-default", "n-2", nil, "")
	h.addAgent("n-0", "z", agent.Options{RunPods: true}, nil)
	h.addAgent("n-1", "z", agent.Options{RunPods: true}, nil)
	h.addAgent("n-2", "z", agent.Options{RunPods: true}, &window{from: 0})
	h.run(30 * time.Second)

	var writes atomic.Int64
	cfg := rest.CopyConfig(testcluster.Shared(t).Config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return countWrites{next: rt, n: &writes} }
	var plan bytes.Buffer
	require.NoError(t, nodewatch.Run(h.ctx, nodewatch.Options{Config: cfg, Clock: h.clock, Horizon: 400 * time.Second, Out: &plan}))
	t.Logf("plan:\n%s", plan.String())
	require.Zero(t, writes.Load(), "the read-only mode wrote")
	require.Contains(t, plan.String(), "n-2")

	s := time.Second
	planned := actionLines(plan.String())
	for _, want := range []string{
		"+0s  Untaint n-2 node.kubernetes.io/not-ready:NoSchedule",
		"+55s  NodeStatus n-2: no heartbeat for 50s: Ready=Unknown",
		"+55s  PodsNotReady n-2: Node is not ready",
		"+55s  Taint n-2 node.kubernetes.io/unreachable:NoSchedule",
		"+55s  Taint n-2 node.kubernetes.io/unreachable:NoExecute",
		"+1m25s  Evict n-2 pod " + h.ns + "/w-30s",
		"+5m55s  Evict n-2 pod " + h.ns + "/w-default",
	} {
		found := false
		for _, l := range planned {
			found = found || strings.HasPrefix(l, want)
		}
		require.True(t, found, "plan lacks %q", want)
	}

	var acted bytes.Buffer
	sleep := func(ctx context.Context, d time.Duration) error {
		h.run(h.clock.Now().Add(d).Sub(h.start))
		return nil
	}
	require.NoError(t, nodewatch.Run(h.ctx, nodewatch.Options{Config: cfg, Apply: true, Clock: h.clock, Horizon: 400 * time.Second, Out: &acted, Sleep: sleep}))
	t.Logf("apply:\n%s", acted.String())
	require.Equal(t, planned, actionLines(acted.String()), "-apply did what the plan said")

	require.Equal(t, []string{
		ev(0, "n-2 Ready=True"), ev(0, "n-2 taint node.kubernetes.io/not-ready:NoSchedule=on"),
		ev(30*s, "n-2 taint node.kubernetes.io/not-ready:NoSchedule=off"), ev(85*s, "n-2 Ready=Unknown"),
		// the tainting pass runs in the same Step as the monitor pass, so one
		// observation sees both taints (changes seen together are sorted)
		ev(85*s, "n-2 "+unreachableNoExecute+"=on"), ev(85*s, "n-2 "+unreachableNoSchedule+"=on"),
	}, h.eventsAbout("", "n-2 "))
	require.Equal(t, []string{ev(115*s, "w-30s deleted=yes"), ev(385*s, "w-default deleted=yes")}, h.eventsAbout("deleted", "w-"))
}

// The errors name their cause: a missing kubeconfig and where it was
// looked for, an API server that does not answer and its address, and
// the verbs a user without rights lacks.
func TestNodewatchErrors(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := nodewatch.Main(args, &out, &errOut)
		return code, errOut.String()
	}

	missing := filepath.Join(dir, "nope")
	code, msg := run("-kubeconfig", missing)
	require.Equal(t, 1, code)
	require.Contains(t, msg, "nodewatch: no kubeconfig at "+missing)

	unreachable := filepath.Join(dir, "unreachable")
	require.NoError(t, os.WriteFile(unreachable, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600))
	code, msg = run("-kubeconfig", unreachable)
	require.Equal(t, 1, code)
	require.Contains(t, msg, "nodewatch: cannot reach the API server at https://127.0.0.1:1")

	kc, err := testcluster.Shared(t).Kubeconfig(dir, "nobody", nil)
	require.NoError(t, err)
	code, msg = run("-kubeconfig", kc)
	require.Equal(t, 1, code)
	require.Contains(t, msg, "nodewatch: forbidden: the read-only mode needs")
	require.Contains(t, msg, "this user may not: list nodes (cluster), watch nodes (cluster), list pods (all namespaces)")
	code, msg = run("-kubeconfig", kc, "-apply")
	require.Equal(t, 1, code)
	require.Contains(t, msg, "delete pods (all namespaces)")

	// invalid credentials (an expired token gets the same 401): the error
	// names the server and the kubeconfig's user
	bad := badTokenKubeconfig(t, dir)
	code, msg = run("-kubeconfig", bad)
	require.Equal(t, 1, code)
	require.Contains(t, msg, `nodewatch: unauthorized: the API server refused the credentials of user "test" (context "test" in `+bad+") at "+testcluster.Shared(t).Config.Host+" (invalid or expired)")

	code, _ = run("-horizon", "-1s")
	require.Equal(t, 2, code)
}

// badTokenKubeconfig writes a kubeconfig for the test server whose user
// "test" has a token the server does not know (and no certificate).
func badTokenKubeconfig(t *testing.T, dir string) string {
	t.Helper()
	sub := filepath.Join(dir, "bad")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	path, err := testcluster.Shared(t).Kubeconfig(sub, "", nil)
	require.NoError(t, err)
	cfg, err := clientcmd.LoadFromFile(path)
	require.NoError(t, err)
	cfg.AuthInfos["test"] = &clientcmdapi.AuthInfo{Token: "not-a-token"}
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}
