package e2e

import (
	"bytes"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/nodelife/nodelife/cmd/cluster/agent"
	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
	"github.com/nodelife/nodelife/cmd/cluster/internal/replaycmd"
	"github.com/nodelife/nodelife/examples/kubeapi/replay"
	"github.com/nodelife/nodelife/sim"
)

// The replay reads a live cluster, read-only, and plays a scenario on it.
// Two agents register r-0 (zone za) and r-1 (zone zb) and renew their
// leases; r-1 runs a pod tolerating unreachable for 60s and one with only
// what the API server's DefaultTolerationSeconds admission adds (300s).
// Zone zb is cut off from +1m in the replay (no jitter): last renewal
// +50s, Unknown at +105s, the unreachable NoExecute taint in the same pass
// (the decision reads the rewritten Ready, as upstream since v1.29; zb has
// no Ready node left, za is healthy: tainting goes on at 0.1/s), so the
// pods go at +165s and +405s; r-0's zone is untouched.
func TestReplayLive(t *testing.T) {
	h := replayCluster(t, "r")

	var writes atomic.Int64
	cfg := rest.CopyConfig(testcluster.Shared(t).Config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return countWrites{next: rt, n: &writes} }
	var out, errOut bytes.Buffer
	code := replaycmd.MainWith(h.ctx, cfg, []string{"-seed", "0", "-duration", "10m", "-outage", "zb@1m-", "-json"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.Zero(t, writes.Load(), "the replay wrote to the cluster")

	var res sim.Result
	require.NoError(t, replay.UnmarshalResult(out.Bytes(), &res))
	got := map[string]string{}
	for _, p := range res.Pods {
		if strings.HasPrefix(p.Pod, h.ns+"/") {
			got[strings.TrimPrefix(p.Pod, h.ns+"/")] = p.Fate + " " + p.At.String() + " " + p.Rule
		}
	}
	require.Equal(t, map[string]string{
		"short":    "evicted 2m45s TaintManagerEviction",
		"admitted": "evicted 6m45s TaintManagerEviction",
	}, got)
	require.Equal(t, []string{"r/za", "r/zb"}, res.Zones) // the agents label region r
}

// replayCluster registers PREFIX-0 (zone za) and PREFIX-1 (zone zb) and
// runs on PREFIX-1 a pod tolerating unreachable for 60s ("short") and one
// with the API server's default 300s ("admitted"), for 20s.
func replayCluster(t *testing.T, prefix string) *harness {
	h := newHarness(t)
	h.addAgent(prefix+"-0", "za", agent.Options{}, nil)
	h.addAgent(prefix+"-1", "zb", agent.Options{}, nil)
	h.createPod("short", prefix+"-1", tolerateUnreachable(60), "")
	h.createPod("admitted", prefix+"-1", nil, "")
	h.run(20 * time.Second)
	return h
}

// Without a snapshot or a kubeconfig, or with both, the command says so;
// a kubeconfig that is not there is named.
func TestReplayUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 2, replaycmd.Main(nil, &out, &errOut))
	require.Contains(t, errOut.String(), "give exactly one of -snapshot and -kubeconfig")
	errOut.Reset()
	missing := t.TempDir() + "/nope"
	require.Equal(t, 1, replaycmd.Main([]string{"-kubeconfig", missing}, &out, &errOut))
	require.Contains(t, errOut.String(), "replay: no kubeconfig at "+missing)
	errOut.Reset()
	bad := badTokenKubeconfig(t, t.TempDir())
	require.Equal(t, 1, replaycmd.Main([]string{"-kubeconfig", bad}, &out, &errOut))
	require.Contains(t, errOut.String(), `replay: unauthorized: the API server refused the credentials of user "test" (context "test" in `+bad+") at "+testcluster.Shared(t).Config.Host+" (invalid or expired)")
}
