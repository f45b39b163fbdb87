package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
	"github.com/nodelife/nodelife/cmd/cluster/internal/replaycmd"
	"github.com/nodelife/nodelife/examples/kubeapi/replay"
	"github.com/nodelife/nodelife/sim"
)

// kubectl runs kubectl v1.37.2, built from the k8s.io/kubectl module into
// this test binary (the command k8s.io/kubernetes/cmd/kubectl wraps), with
// args, and returns what it printed on stdout.
func kubectl(t *testing.T, kubeconfig string, args ...string) []byte {
	t.Helper()
	var out, errOut bytes.Buffer
	cmdutil.BehaviorOnFatal(func(msg string, code int) { t.Fatalf("kubectl %v: exit %d: %s", args, code, msg) })
	defer cmdutil.DefaultBehaviorOnFatal()
	all := append([]string{"--kubeconfig", kubeconfig}, args...)
	cmd := kubectlcmd.NewKubectlCommand(kubectlcmd.KubectlOptions{
		Arguments:   append([]string{"kubectl"}, all...),
		ConfigFlags: genericclioptions.NewConfigFlags(true),
		IOStreams:   genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
	})
	cmd.SetArgs(all)
	require.NoError(t, cmd.Execute(), "kubectl %v: %s", args, errOut.String())
	return out.Bytes()
}

// Each kind of kubectl output replays to the same result: kubectl get
// nodes,pods,leases -A with -o json and -o yaml, kubectl cluster-info dump
// on stdout and with --output-directory, and the live read. The cluster
// is TestReplayLive's: zone zb is cut off from +1m, its pods tolerate
// unreachable for 60s and for the API server's default 300s, so they go at
// +165s and +405s (cluster-info dump has no leases; the replay does not
// need them).
func TestReplayKubectlOutputs(t *testing.T) {
	h := replayCluster(t, "k")

	dir := t.TempDir()
	kc, err := testcluster.Shared(t).Kubeconfig(dir, "", nil)
	require.NoError(t, err)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	inputs := map[string]string{
		"get -o json":                          write("cluster.json", kubectl(t, kc, "get", "nodes,pods,leases", "-A", "-o", "json")),
		"get -o yaml":                          write("cluster.yaml", kubectl(t, kc, "get", "nodes,pods,leases", "-A", "-o", "yaml")),
		"cluster-info dump":                    write("dump.txt", kubectl(t, kc, "cluster-info", "dump", "--namespaces", h.ns)),
		"cluster-info dump --output-directory": filepath.Join(dir, "dump"),
	}
	kubectl(t, kc, "cluster-info", "dump", "--namespaces", h.ns, "--output-directory", inputs["cluster-info dump --output-directory"])
	dumped, err := os.ReadFile(inputs["cluster-info dump"])
	require.NoError(t, err)
	require.Contains(t, string(dumped), `"kind": "NodeList"`)
	require.Contains(t, string(dumped), "==== START logs for container") // skipped by the reader
	require.FileExists(t, filepath.Join(inputs["cluster-info dump --output-directory"], h.ns, "pods.json"))

	fates := func(args ...string) map[string]string {
		var out, errOut bytes.Buffer
		base := []string{"-seed", "0", "-duration", "10m", "-outage", "zb@1m-", "-json", "-quiet"}
		var code int
		if len(args) == 0 {
			code = replaycmd.MainWith(h.ctx, testcluster.Shared(t).Config, base, &out, &errOut)
		} else {
			code = replaycmd.Main(append(base, args...), &out, &errOut)
		}
		require.Equal(t, 0, code, "%v: %s", args, errOut.String())
		var res sim.Result
		require.NoError(t, replay.UnmarshalResult(out.Bytes(), &res))
		got := map[string]string{}
		for _, p := range res.Pods {
			if ns, name, _ := strings.Cut(p.Pod, "/"); ns == h.ns {
				got[name] = fmt.Sprintf("%s %v %s", p.Fate, p.At, p.Rule)
			}
		}
		return got
	}
	want := map[string]string{
		"short":    "evicted 2m45s TaintManagerEviction",
		"admitted": "evicted 6m45s TaintManagerEviction",
	}
	require.Equal(t, want, fates(), "live")
	for what, path := range inputs {
		require.Equal(t, want, fates("-snapshot", path), what)
	}
}
