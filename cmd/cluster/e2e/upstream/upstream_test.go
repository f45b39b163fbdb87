package upstream

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"
	kcmtesting "k8s.io/kubernetes/cmd/kube-controller-manager/app/testing"
	schedtesting "k8s.io/kubernetes/cmd/kube-scheduler/app/testing"
	_ "k8s.io/kubernetes/test/e2e/apimachinery" // Garbage collector
	_ "k8s.io/kubernetes/test/e2e/common/node"  // NodeLease
	"k8s.io/kubernetes/test/e2e/framework"
	_ "k8s.io/kubernetes/test/e2e/node" // NoExecuteTaintManager, Pod garbage collector

	"github.com/nodelife/nodelife/cmd/cluster/agent"
	"github.com/nodelife/nodelife/cmd/cluster/controller"
	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
	"github.com/nodelife/nodelife/cmd/cluster/ownergc"
	"github.com/nodelife/nodelife/cmd/cluster/podgc"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/gc"
)

func TestMain(m *testing.M) {
	if os.Getenv(envSide) == "" {
		os.Exit(m.Run()) // the parent: no control plane of its own
	}
	if _, err := testcluster.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	testcluster.Stop()
	os.Exit(code)
}

const (
	envSide   = "NODELIFE_UPSTREAM_SIDE"   // "nodelife" or "control": this process is a child
	envReport = "NODELIFE_UPSTREAM_REPORT" // the child's ginkgo JSON report
	envFocus  = "NODELIFE_UPSTREAM_FOCUS"  // the specs, a ginkgo focus regexp
)

// replaced are kube-controller-manager's controllers that nodelife's
// programs replace on the nodelife side (their names in v1.37).
var replaced = []string{"garbage-collector-controller", "pod-garbage-collector-controller", "node-lifecycle-controller", "taint-eviction-controller"}

// shards are what runs, as ginkgo focus regexps: the specs of the
// controllers nodelife replaces, in shards of a few minutes each, each
// shard in a process (and a control plane) of its own on each side, all
// at once (the [Serial] specs taint nodes: never two in one cluster).
func shards() []string {
	return []string{ // about 4-5, 3.5, 4 and 2.5 minutes
		`\[sig-api-machinery\] Garbage collector`,
		`\[sig-node\] NodeLease|\[sig-node\] NoExecuteTaintManager Multiple Pods`,
		`\[sig-node\] NoExecuteTaintManager Single Pod`,
		`\[sig-node\] Pod garbage collector`,
	}
}

// terminatedPodThreshold is the pod GC's threshold on both sides: the
// pod garbage collector's spec needs --terminated-pod-gc-threshold=100.
const terminatedPodThreshold = 100

// TestUpstreamSpecs runs upstream's specs in child processes, each with a
// control plane of its own, one per shard and side: kube-controller-manager
// with nodelife's programs in place of the controllers they replace, and
// (the control run) kube-controller-manager whole. Every spec that passes in the
// control run must pass on nodelife's side.
func TestUpstreamSpecs(t *testing.T) {
	if os.Getenv(envSide) != "" {
		t.Skip("a child runs TestUpstreamChild")
	}
	dir := os.Getenv("NODELIFE_UPSTREAM_LOGS") // keeps each side's report and log
	if dir == "" {
		dir = t.TempDir()
	}
	results := map[string]map[string]string{"nodelife": {}, "control": {}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, side := range []string{"nodelife", "control"} {
		for k, focus := range shards() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got := runSide(t, dir, side, k, focus)
				mu.Lock()
				maps.Copy(results[side], got)
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	var specs []string
	for s := range results["control"] {
		specs = append(specs, s)
	}
	for s := range results["nodelife"] {
		if _, ok := results["control"][s]; !ok {
			specs = append(specs, s)
		}
	}
	slices.Sort(specs)
	var table strings.Builder
	table.WriteString("| upstream spec | nodelife's controllers | upstream's (control run) |\n|---|---|---|\n")
	passed := map[string]int{}
	for _, s := range specs {
		n, c := results["nodelife"][s], results["control"][s]
		fmt.Fprintf(&table, "| %s | %s | %s |\n", s, or(n, "not run"), or(c, "not run"))
		for side, state := range map[string]string{"nodelife": n, "control": c} {
			if state == "passed" {
				passed[side]++
			}
		}
		if c == "passed" && n != "passed" {
			t.Errorf("%s: passed in the control run, %s on nodelife's controllers", s, or(n, "not run"))
		}
	}
	t.Logf("%d specs; passed: %d on nodelife's controllers, %d in the control run\n%s", len(specs), passed["nodelife"], passed["control"], table.String())
	if path := os.Getenv("NODELIFE_UPSTREAM_TABLE"); path != "" {
		if err := os.WriteFile(path, []byte(table.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
	if len(specs) == 0 {
		t.Fatal("no spec ran")
	}
}

// runSide runs shard k (focus) of one side in a child process and
// returns each spec's state.
func runSide(t *testing.T, dir, side string, k int, focus string) map[string]string {
	name := fmt.Sprintf("%s-%d", side, k)
	report := filepath.Join(dir, name+".json")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestUpstreamChild$", "-test.v", "-test.timeout", "30m")
	cmd.Env = append(os.Environ(), envSide+"="+side, envReport+"="+report, envFocus+"="+focus)
	logPath := filepath.Join(dir, name+".log")
	log, err := os.Create(logPath)
	if err != nil {
		t.Error(err)
		return nil
	}
	cmd.Stdout, cmd.Stderr = log, log
	err = cmd.Run()
	log.Close()
	out, _ := os.ReadFile(logPath)
	if err != nil {
		t.Logf("%s: %v; its output ends:\n%s", name, err, tail(out, 60))
	}
	got, rerr := readReport(report)
	if rerr != nil {
		t.Errorf("%s: %v; its output ends:\n%s", name, rerr, tail(out, 60))
	} else if len(got) == 0 {
		t.Errorf("%s: no spec matched %q", name, focus)
	}
	return got
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// tail returns the last n lines of out.
func tail(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// readReport returns each spec's state from a ginkgo JSON report, by the
// spec's full text.
func readReport(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]string{}
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType != types.NodeTypeIt || s.State == types.SpecStateSkipped && s.Failure.Message == "" {
				continue // outside the focus (a spec that skips itself says why)
			}
			out[s.FullText()] = s.State.String()
		}
	}
	return out, nil
}

// TestUpstreamChild is one side of TestUpstreamSpecs: the control plane
// (kube-apiserver and etcd from TestMain, kube-controller-manager and
// kube-scheduler, the nodes), then the specs.
func TestUpstreamChild(t *testing.T) {
	side := os.Getenv(envSide)
	if side == "" {
		t.Skip("run by TestUpstreamSpecs")
	}
	s := testcluster.Shared(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kubeconfig, err := s.Kubeconfig(t.TempDir(), "", s.Config)
	if err != nil {
		t.Fatal(err)
	}
	controllers := "*"
	if side == "nodelife" {
		controllers += ",-" + strings.Join(replaced, ",-")
	}
	kcm, err := kcmtesting.StartTestServer(t, ctx, []string{"--kubeconfig=" + kubeconfig, "--leader-elect=false", "--controllers=" + controllers,
		fmt.Sprintf("--terminated-pod-gc-threshold=%d", terminatedPodThreshold)})
	if err != nil {
		t.Fatal(err)
	}
	defer kcm.TearDownFn()
	sched, err := schedtesting.StartTestServer(t, ctx, []string{"--kubeconfig=" + kubeconfig, "--leader-elect=false"})
	if err != nil {
		t.Fatal(err)
	}
	defer sched.TearDownFn()
	if side == "nodelife" {
		startNodelife(ctx, t, s)
	}
	startNodes(ctx, t, s)

	fs := flag.NewFlagSet("e2e", flag.ContinueOnError)
	framework.RegisterCommonFlags(fs)
	framework.RegisterClusterFlags(fs)
	if err := fs.Parse([]string{"--kubeconfig=" + kubeconfig, "--provider=skeleton"}); err != nil {
		t.Fatal(err)
	}
	framework.AfterReadingAllFlags(&framework.TestContext)
	gomega.RegisterFailHandler(framework.Fail)
	suite, reporter := ginkgo.GinkgoConfiguration()
	suite.FocusStrings = []string{os.Getenv(envFocus)}
	suite.Timeout = 25 * time.Minute
	reporter.JSONReport = os.Getenv(envReport)
	reporter.Verbose = true
	ginkgo.RunSpecs(t, "upstream specs, "+side+" side", suite, reporter)
}

// nodes is how many nodes the harness runs: the specs that size their
// workloads by the cluster need ready, schedulable nodes.
const nodes = 3

// capacity is each node's machine.
var capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi"),
	corev1.ResourcePods: resource.MustParse("110"), corev1.ResourceEphemeralStorage: resource.MustParse("100Gi")}

// startNodes registers the nodes and keeps them Ready until ctx ends:
// nodelife's kubelet agents (lease renewals, status updates, a bound pod
// reported Running, a pod's deletion finished), on both sides, as the
// kubelets of a cluster are the same whichever controllers run.
func startNodes(ctx context.Context, t *testing.T, s *testcluster.Server) {
	for i := range nodes {
		a, err := agent.New(s.Client, agent.Options{NodeName: fmt.Sprintf("node-%d", i), RunPods: true, FinishDeletions: true, Capacity: capacity,
			Labels: map[string]string{"topology.kubernetes.io/zone": "zone-a", "kubernetes.io/os": "linux"}})
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = a.Run(ctx) }()
	}
	// The per-node system pods the framework waits for on every
	// schedulable node before a spec (kube-proxy, the log shipper, the node
	// problem detector: WaitForTotalHealthy), as a cluster's DaemonSets
	// place them: bound to each node, tolerating every taint; the agents
	// report them Running.
	for i := range nodes {
		for _, name := range []string{"kube-proxy", "fluentd-elasticsearch", "node-problem-detector"} {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: fmt.Sprintf("%s-node-%d", name, i)},
				Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node-%d", i), Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					Containers: []corev1.Container{{Name: name, Image: "registry.k8s.io/" + name + ":e2e"}}}}
			if _, err := s.Client.CoreV1().Pods(metav1.NamespaceSystem).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		list, err := s.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		ready := 0
		if err == nil {
			for i := range list.Items {
				if kubeapi.ReadyStatus(&list.Items[i]) == "True" {
					ready++
				}
			}
		}
		if ready == nodes {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d nodes Ready after a minute (%v)", ready, nodes, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startNodelife runs nodelife's node lifecycle controller (with its taint
// eviction), garbage collector and pod GC beside kube-controller-manager
// until ctx ends.
func startNodelife(ctx context.Context, t *testing.T, s *testcluster.Server) {
	lifecycle, err := controller.New(s.Client, controller.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := lifecycle.Start(ctx); err != nil {
		t.Fatal(err)
	}
	go func() {
		if err := lifecycle.Run(ctx); err != nil {
			t.Logf("nodelife's node lifecycle controller: %v", err)
		}
	}()
	meta, err := metadata.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	owners, err := ownergc.New(s.Client.Discovery(), meta, s.Client.CoreV1(), ownergc.Options{Interval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cfg := gc.DefaultPodGCConfig()
	cfg.TerminatedPodThreshold = terminatedPodThreshold
	pods, err := podgc.New(s.Client, cfg, podgc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logErr := func(err error) { t.Logf("nodelife: %v", err) }
	go func() { _ = owners.Run(ctx, logErr) }()
	go func() { _ = pods.Run(ctx, logErr) }()
}
