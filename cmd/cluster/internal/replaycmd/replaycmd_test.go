package replaycmd

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/examples/kubeapi/replay"
	"github.com/nodelife/nodelife/sim"
)

const sample = "../../../../examples/kubeapi/snapshot/testdata/sample.json"

// The outputs on the sample: JSON that decodes into the result, an SVG
// that is well-formed XML with the workload panel, the event list; and
// errors that name the bad flag value.
func TestOutputs(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "t.svg")
	var out, errOut bytes.Buffer
	args := []string{"-snapshot", sample, "-seed", "0", "-duration", "10m", "-outage", "eu-1b@1m-", "-cloud-delete", "w-1c1@2m"}
	if code := Main(append(args, "-json", "-svg", svg), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var res sim.Result
	if err := replay.UnmarshalResult(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Totals.NodesDeleted != 1 || res.Totals.Evicted != 4 {
		t.Errorf("totals %+v", res.Totals)
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("SVG: %v", err)
		}
	}
	if !strings.Contains(string(data), "replicas lost") || !strings.Contains(string(data), "StatefulSet shop/db") {
		t.Error("the SVG has no workload panel")
	}
	out.Reset()
	if code := Main(append(args, "-events"), &out, &errOut); code != 0 || !strings.Contains(out.String(), "nodedelete") ||
		!strings.Contains(out.String(), "Deleting node w-1c1 because it does not exist in the cloud provider") {
		t.Errorf("events: exit %d\n%s", code, out.String())
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"-outage", "eu-9@1m-2m"}, `--outage "eu-9@1m-2m": "eu-9" is neither a zone`},
		{[]string{"-shutdown-grace-by-priority", "x=1s", "-shutdown", "w-1a1@1m"}, `priority "x"`},
		{[]string{"-shutdown-grace", "500ms", "-shutdown", "w-1a1@1m"}, `ShutdownGracePeriod`},
		{[]string{"-pressure", "w-1a1@1m-2m"}, `want NODE@FROM-TO:AVAILABLE`},
	} {
		errOut.Reset()
		code := Main(append([]string{"-snapshot", sample}, bad.args...), io.Discard, &errOut)
		if code != 1 || !strings.Contains(errOut.String(), bad.want) {
			t.Errorf("%v: exit %d, %q; want it to say %q", bad.args, code, errOut.String(), bad.want)
		}
	}
	errOut.Reset()
	if code := Main([]string{"-snapshot", "nope.json"}, io.Discard, &errOut); code != 1 || !strings.Contains(errOut.String(), "nope.json") {
		t.Errorf("a missing snapshot: exit %d, %q", code, errOut.String())
	}
}

// A static pod has no spec.priority: upstream kills it in the first phase
// (+60s here, with the priority-0 pod web) whatever its class; with
// -resolve-priority-class its class from the snapshot (2000001000,
// critical) puts it in the critical phase, which starts when the first
// phase's 40s end (+100s).
func TestResolvePriorityClass(t *testing.T) {
	path := filepath.Join(t.TempDir(), "static.json")
	if err := os.WriteFile(path, []byte(`{"apiVersion":"v1","kind":"List","items":[
 {"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"conditions":[{"type":"Ready","status":"True"}]}},
 {"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"node-agent"},"value":2000001000},
 {"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"kube-system","name":"agent-n"},
  "spec":{"nodeName":"n","priorityClassName":"node-agent"},"status":{"phase":"Running"}},
 {"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"web"},
  "spec":{"nodeName":"n","priority":0},"status":{"phase":"Running"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	killedAt := func(extra ...string) string {
		var out, errOut bytes.Buffer
		args := append([]string{"-snapshot", path, "-seed", "0", "-duration", "5m", "-shutdown", "n@1m", "-shutdown-grace", "60s",
			"-shutdown-grace-critical", "20s", "-json"}, extra...)
		if code := Main(args, &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		var res sim.Result
		if err := replay.UnmarshalResult(out.Bytes(), &res); err != nil || len(res.Pods) != 2 || res.Pods[0].Pod != "kube-system/agent-n" {
			t.Fatalf("%v %+v", err, res.Pods)
		}
		return res.Pods[0].Fate + " " + res.Pods[0].At.String()
	}
	if got := killedAt(); got != "killed 1m0s" {
		t.Errorf("upstream: %s", got)
	}
	if got := killedAt("-resolve-priority-class"); got != "killed 1m40s" {
		t.Errorf("with -resolve-priority-class: %s", got)
	}
}

// Inputs a script must tell from a result, and inputs that are partly
// usable: no node is an error (exit 1, naming the file and what it held); a
// pod bound to a node the snapshot does not have is a warning, and the pod
// is counted as not simulated; standard input with -snapshot -.
func TestInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var out, errOut bytes.Buffer
	empty := write("empty.json", `{"apiVersion":"v1","kind":"List","items":[]}`)
	if code := Main([]string{"-snapshot", empty}, &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "empty.json: no Node in it (it has 0 pods, 0 leases, 0 priority classes and 0 skipped items;") {
		t.Fatalf("empty List: exit %d: %s", code, errOut.String())
	}

	orphans := write("orphans.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status:
    conditions: [{type: Ready, status: "True"}]
- apiVersion: v1
  kind: Pod
  metadata: {namespace: shop, name: web-1}
  spec: {nodeName: n1}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {namespace: shop, name: web-2}
  spec: {nodeName: deleted-node}
  status: {phase: Running}
`)
	out.Reset()
	errOut.Reset()
	if code := Main([]string{"-snapshot", orphans, "-duration", "1m", "-quiet"}, &out, &errOut); code != 0 {
		t.Fatalf("orphan: exit %d: %s", code, errOut.String())
	}
	if want := "replay: warning: 1 pod is bound to a node not in the snapshot and not simulated: shop/web-2 (node deleted-node)\n"; errOut.String() != want {
		t.Fatalf("stderr %q, want %q", errOut.String(), want)
	}
	if want := "1 nodes, 2 pods in the snapshot: 1 simulated, 1 not (1 bound to a node not in the snapshot); 1m0s simulated\n"; !strings.HasPrefix(out.String(), want) {
		t.Fatalf("header:\n%s\nwant %s", out.String(), want)
	}

	// standard input
	f, err := os.Open(sample)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdin := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = stdin }()
	out.Reset()
	if code := Main([]string{"-snapshot", "-", "-duration", "1m", "-quiet"}, &out, &errOut); code != 0 ||
		!strings.HasPrefix(out.String(), "7 nodes, 18 pods in the snapshot: 17 simulated, 1 not (1 not scheduled); 1m0s simulated") {
		t.Fatalf("stdin: exit %d\n%s", code, out.String())
	}
}

// -readiness-rules and -condition: a continuous NoExecute rule on every
// node and the CNI condition False on w-1a1 from +1m to +3m: the node is
// tainted at +1m, its pods are deleted at once (their tolerations do not
// cover readiness.k8s.io/cni), and the taint comes off at +3m.
func TestReadinessRules(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(rules, []byte(`apiVersion: readiness.node.x-k8s.io/v1alpha1
kind: NodeReadinessRule
metadata: {name: cni, uid: u1}
spec:
  conditions: [{type: cni.example.com/NetworkReady, requiredStatus: "True"}]
  taint: {key: readiness.k8s.io/cni, effect: NoExecute}
  enforcementMode: continuous
  nodeSelector: {matchExpressions: [{key: kubernetes.io/hostname, operator: Exists}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	args := []string{"-snapshot", sample, "-seed", "0", "-duration", "5m", "-events", "-readiness-rules", rules,
		"-condition", "w-1a1@1m-3m:cni.example.com/NetworkReady=False"}
	if code := Main(args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{
		"w-1a1 posts cni.example.com/NetworkReady=False",
		"w-1a1: Taint 'readiness.k8s.io/cni:NoExecute' added by rule 'cni'",
		"w-1a1: Taint 'readiness.k8s.io/cni:NoExecute' removed by rule 'cni'",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"-condition", "w-1a1@1m-3m:cni"}, "want SEL@FROM-TO:TYPE=STATUS"},
		{[]string{"-condition", "w-1a1@1m-3m:cni=Maybe"}, `status "Maybe"`},
		{[]string{"-readiness-rules", "nope.yaml"}, "nope.yaml"},
	} {
		errOut.Reset()
		if code := Main(append([]string{"-snapshot", sample}, bad.args...), io.Discard, &errOut); code != 1 || !strings.Contains(errOut.String(), bad.want) {
			t.Errorf("%v: exit %d, %q; want %q", bad.args, code, errOut.String(), bad.want)
		}
	}
}

// The help text's defaults read as a person writes them: the zone
// threshold, a float32 upstream, is 0.55 and not its float64 widening.
func TestHelpDefaults(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Main([]string{"-h"}, &out, &errOut); code != 2 {
		t.Fatalf("-h: exit %d, want 2", code)
	}
	help := errOut.String()
	for _, want := range []string{"kube-controller-manager --unhealthy-zone-threshold (default 0.55)", "(default 0.1)", "(default 0.01)",
		`-max-input-bytes string`, `(default "16Gi")`} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if strings.Contains(help, "0.5500000") {
		t.Errorf("help prints the float32 widened: %s", help)
	}
	if got := shortestFloat64(0.55); float32(got) != 0.55 || got != 0.55 {
		t.Errorf("shortestFloat64(0.55) = %v", got)
	}
}

// The hostile snapshot of issue 48: a node with negative and overflowing
// quantities, a pod with negative requests and one with an invalid name
// are left out with a warning each, counted in the header, and the rest
// is replayed; a snapshot larger than -max-input-bytes is an error naming
// the flag, and a bad -max-input-bytes is refused.
func TestReplayRefusesInvalidObjects(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hostile.json")
	zone := `"labels":{"topology.kubernetes.io/region":"r","topology.kubernetes.io/zone":"z"}`
	ready := `"conditions":[{"type":"Ready","status":"True"}]`
	input := `{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"v1","kind":"Node","metadata":{"name":"n-ok",` + zone + `},"status":{"allocatable":{"cpu":"4","memory":"16Gi","pods":"110"},` + ready + `}},
{"apiVersion":"v1","kind":"Node","metadata":{"name":"n-bad",` + zone + `},"status":{"allocatable":{"cpu":"-4","memory":"99999999999999999999999999Ei"},"capacity":{"cpu":"1e1000"},` + ready + `}},
{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"web-1"},"spec":{"nodeName":"n-ok","containers":[{"name":"c"}]},"status":{"phase":"Running"}},
{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"web-2"},"spec":{"nodeName":"n-ok","containers":[{"name":"c","resources":{"requests":{"cpu":"-1","memory":"-1Gi"}}}]},"status":{"phase":"Running"}},
{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"web-` + "\xff" + `"},"spec":{"nodeName":"n-ok"},"status":{"phase":"Running"}}
]}`
	if err := os.WriteFile(path, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := Main([]string{"-snapshot", path, "-duration", "2m", "-quiet"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{
		"replay: warning: " + path + `: item 1: node n-bad left out, as the API server would refuse it: status.capacity[cpu]: Invalid value: "1e1000": must be less than 2^63-1 bytes (millicores for cpu): too large to compute with`,
		`status.allocatable[cpu]: Invalid value: "-4": must be greater than or equal to 0`,
		"item 3: pod shop/web-2 left out",
		`spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": must be greater than or equal to 0`,
		"item 4: pod shop/web-\ufffd left out",
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if want := "1 nodes, 1 pods in the snapshot (and 3 objects left out as invalid, see the warnings): 1 simulated, 0 not;"; !strings.Contains(out.String(), want) {
		t.Errorf("the header lacks %q:\n%s", want, out.String())
	}

	errOut.Reset()
	if code := Main([]string{"-snapshot", path, "-max-input-bytes", "1Ki", "-quiet"}, &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "larger than the limit: more than 1Ki after decompression (Options.MaxBytes); -max-input-bytes raises the limit") {
		t.Errorf("-max-input-bytes 1Ki: exit %d: %s", code, errOut.String())
	}
	for _, bad := range []string{"0", "-1Gi", "lots", "1.5"} {
		errOut.Reset()
		if code := Main([]string{"-snapshot", path, "-max-input-bytes", bad}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "-max-input-bytes") {
			t.Errorf("-max-input-bytes %s: exit %d: %s", bad, code, errOut.String())
		}
	}
}
