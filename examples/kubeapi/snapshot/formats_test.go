package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// sampleItems returns the shipped sample's items by kind, as raw JSON.
func sampleItems(t *testing.T) map[string][]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string][]json.RawMessage{}
	for _, it := range list.Items {
		var h header
		if err := json.Unmarshal(it, &h); err != nil {
			t.Fatal(err)
		}
		out[h.Kind] = append(out[h.Kind], it)
	}
	return out
}

// kindless drops kind and apiVersion from an item, as the typed Lists
// kubectl cluster-info dump prints carry them.
func kindless(t *testing.T, it json.RawMessage) json.RawMessage {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(it, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "kind")
	delete(m, "apiVersion")
	out, err := json.MarshalIndent(m, "    ", "    ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// typedList prints a typed List as kubectl's JSON printer does: indented,
// kind and apiVersion on the List only.
func typedList(t *testing.T, kind string, items []json.RawMessage) []byte {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n    \"kind\": %q,\n    \"apiVersion\": %q,\n    \"metadata\": {\n        \"resourceVersion\": \"4242\"\n    },\n    \"items\": [", kind, map[string]string{
		"NodeList": "v1", "PodList": "v1", "EventList": "v1", "ServiceList": "v1", "DaemonSetList": "apps/v1", "LeaseList": "coordination.k8s.io/v1"}[kind])
	for i, it := range items {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n        ")
		b.Write(kindless(t, it))
	}
	b.WriteString("\n    ]\n}\n")
	return b.Bytes()
}

// summary is what a replay reads of a snapshot, for comparing inputs.
func summary(s *Snapshot) string {
	var b strings.Builder
	for _, n := range s.Nodes {
		fmt.Fprintf(&b, "node %s %v %d taints\n", n.Name, n.Labels, len(n.Spec.Taints))
	}
	for _, p := range s.Pods {
		fmt.Fprintf(&b, "pod %s/%s on %s %s %d tolerations", p.Namespace, p.Name, p.Spec.NodeName, p.Status.Phase, len(p.Spec.Tolerations))
		for _, o := range p.OwnerReferences {
			fmt.Fprintf(&b, " owner %s %s", o.Kind, o.Name)
		}
		b.WriteString("\n")
	}
	for _, l := range s.Leases {
		fmt.Fprintf(&b, "lease %s/%s\n", l.Namespace, l.Name)
	}
	return b.String()
}

func loadSample(t *testing.T) *Snapshot {
	t.Helper()
	s, ws, err := Load("testdata/sample.json")
	if err != nil || len(ws) != 0 {
		t.Fatal(err, ws)
	}
	return s
}

func podsIn(items []json.RawMessage, ns string) []json.RawMessage {
	var out []json.RawMessage
	for _, it := range items {
		var h header
		_ = json.Unmarshal(it, &h)
		if h.Metadata.Namespace == ns {
			out = append(out, it)
		}
	}
	return out
}

// kubectl cluster-info dump on stdout: typed Lists whose items have no
// kind, one after another, namespace by namespace, with the pods' logs
// (which may hold JSON) between them; the leases come from a second file.
func TestClusterInfoDumpStdout(t *testing.T) {
	items := sampleItems(t)
	var dump bytes.Buffer
	dump.Write(typedList(t, "NodeList", items["Node"]))
	for _, ns := range []string{"kube-system", "shop"} {
		dump.Write(typedList(t, "EventList", nil))
		dump.Write(typedList(t, "ServiceList", []json.RawMessage{json.RawMessage(`{"kind":"Service","metadata":{"name":"web","namespace":"` + ns + `"}}`)}))
		dump.Write(typedList(t, "DaemonSetList", nil))
		dump.Write(typedList(t, "PodList", podsIn(items["Pod"], ns)))
		fmt.Fprintf(&dump, "==== START logs for container app of pod %s/x ====\n{\"level\":\"info\",\"msg\":\"}{ not the end\"}\n==== END logs for container other of pod %s/x ====\nstill logs\n==== END logs for container app of pod %s/x ====\n", ns, ns, ns)
	}
	s, ws, err := Decode(dump.Bytes(), "dump.txt")
	if err != nil {
		t.Fatal(err)
	}
	// one warning per non-empty List of a kind the replay does not read
	if len(ws) != 2 || ws[0].String() != "dump.txt (object 3): kind ServiceList (1 items) skipped: the replay does not use it" {
		t.Fatalf("warnings: %v", ws)
	}
	want := loadSample(t)
	want.Leases = nil
	if got, w := summary(s), summary(want); got != w {
		t.Fatalf("dump:\n%s\nsample:\n%s", got, w)
	}

	// logs without their END line
	bad := append(typedList(t, "NodeList", items["Node"]), "==== START logs for container a of pod p/q ====\nnever ends\n"...)
	if _, _, err := Decode(bad, "dump.txt"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "dump.txt: offset") || !strings.Contains(err.Error(), "has no END line") {
		t.Fatalf("unterminated logs: %v", err)
	}
	// something else after a List
	bad = append(typedList(t, "NodeList", items["Node"]), "oops\n"...)
	if _, _, err := Decode(bad, "dump.txt"); err == nil || !strings.Contains(err.Error(), "want another JSON object or kubectl's pod logs after the 1 before") {
		t.Fatalf("trailing text: %v", err)
	}
}

// kubectl cluster-info dump --output-directory: nodes.json at the top,
// <namespace>/pods.json and the other kinds beside it, logs in
// <namespace>/<pod>/logs.txt; a leases file added by hand, gzip-compressed.
func TestClusterInfoDumpDirectory(t *testing.T) {
	items := sampleItems(t)
	dir := t.TempDir()
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("nodes.json", typedList(t, "NodeList", items["Node"]))
	for _, ns := range []string{"kube-system", "shop"} {
		write(ns+"/pods.json", typedList(t, "PodList", podsIn(items["Pod"], ns)))
		write(ns+"/events.json", typedList(t, "EventList", nil))
		write(ns+"/x/logs.txt", []byte("{ not json\n"))
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(typedList(t, "LeaseList", items["Lease"]))
	zw.Close()
	write("leases.json.gz", gz.Bytes())
	s, ws, err := Load(dir)
	if err != nil || len(ws) != 0 {
		t.Fatal(err, ws)
	}
	if got, w := summary(s), summary(loadSample(t)); got != w {
		t.Fatalf("directory:\n%s\nsample:\n%s", got, w)
	}
}

// kubectl get -o yaml (one List), and the same objects as "---"-separated
// documents; gzip-compressed JSON.
func TestYAMLAndGzip(t *testing.T) {
	data, err := os.ReadFile("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	want := summary(loadSample(t))
	one, err := yaml.JSONToYAML(data)
	if err != nil {
		t.Fatal(err)
	}
	if s, _, err := Decode(one, "cluster.yaml"); err != nil || summary(s) != want {
		t.Fatalf("one YAML document: %v", err)
	}
	var docs bytes.Buffer
	docs.WriteString("# manifests\n---\n")
	for _, it := range sampleItemsInOrder(t, data) {
		y, err := yaml.JSONToYAML(it)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(y)
		docs.WriteString("---\n")
	}
	if s, _, err := Decode(docs.Bytes(), "many.yaml"); err != nil || summary(s) != want {
		t.Fatalf("many YAML documents: %v", err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	if s, _, err := Decode(gz.Bytes(), "cluster.json.gz"); err != nil || summary(s) != want {
		t.Fatalf("gzip: %v", err)
	}
	if _, _, err := Decode(gz.Bytes()[:20], "cut.json.gz"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "cut.json.gz: gzip: unexpected EOF") {
		t.Fatalf("truncated gzip: %v", err)
	}
	if _, _, err := Decode([]byte("kind: [unclosed\n"), "bad.yaml"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "bad.yaml: not JSON or YAML") {
		t.Fatalf("bad YAML: %v", err)
	}
	if _, _, err := Decode([]byte("just some text\n"), "notes.txt"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "notes.txt: not a List: not JSON or YAML of an object") {
		t.Fatalf("text: %v", err)
	}
}

func sampleItemsInOrder(t *testing.T, data []byte) []json.RawMessage {
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// Inputs a script must be able to tell from a result: no node at all.
func TestNoNodes(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"empty List", `{"apiVersion":"v1","kind":"List","items":[]}`,
			"snapshot: invalid input: empty.json: no Node in it (it has 0 pods, 0 leases, 0 priority classes and 0 skipped items; want the output of kubectl get nodes,pods,leases -A -o json)"},
		{"pods only", `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a","namespace":"x"}},{"metadata":{"name":"b","namespace":"x"}}]}`,
			"snapshot: invalid input: empty.json: no Node in it (it has 2 pods, 0 leases, 0 priority classes and 0 skipped items; want the output of kubectl get nodes,pods,leases -A -o json)"},
		{"an empty YAML file", "", "snapshot: invalid input: empty.json: no Node in it (it has 0 pods, 0 leases, 0 priority classes and 0 skipped items;"},
	} {
		_, _, err := Decode([]byte(tc.data), "empty.json")
		if !errors.Is(err, ErrNoNodes) || !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// kind-less items of a NodeList count as nodes
	s, _, err := Decode([]byte(`{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"n1"}}]}`), "nodes.json")
	if err != nil || len(s.Nodes) != 1 || s.Nodes[0].Name != "n1" {
		t.Fatalf("kind-less node: %v %v", s, err)
	}
}

// FuzzDecode feeds Decode arbitrary input in every shape it tells apart
// (JSON Lists and streams with kubectl's pod logs, YAML documents, gzip):
// it never panics, and every error it returns wraps ErrInvalid.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}]}`,
		`{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"n"}}]}{"kind":"PodList","items":[]}`,
		"{\"kind\":\"NodeList\",\"items\":[]}\n==== START logs for container a of pod p/q ====\n{\n==== END logs for container a of pod p/q ====\n",
		"apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\nkind: PodList\nitems: []\n",
		"---\n--- x\nkind: [\n",
		"\x1f\x8b\x08\x00",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := Decode(data, "fuzz")
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if len(s.Nodes) == 0 {
			t.Fatal("a snapshot without a node was accepted")
		}
	})
}

// Inputs that would flood or exhaust: warnings are capped at MaxWarnings
// plus one that counts the rest; a large file whose first byte cannot
// start JSON, YAML or gzip is refused without reading it whole.
func TestBadInputsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`)
	for i := 0; i < 1000; i++ {
		b.WriteString(`,{}`)
	}
	b.WriteString(`]}`)
	_, ws, err := Decode([]byte(b.String()), "many.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != MaxWarnings+1 || ws[MaxWarnings].String() != "many.json: and 980 more warnings" {
		t.Fatalf("%d warnings, the last %v", len(ws), ws[len(ws)-1])
	}

	zeros := filepath.Join(t.TempDir(), "zeros.json")
	f, err := os.Create(zeros)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil { // 2 GiB, sparse
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err = Load(zeros)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrInvalid) || !strings.HasSuffix(err.Error(), "zeros.json: not JSON, YAML or gzip: byte 0x00 at offset 0") {
		t.Fatalf("zeros: %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("reading the zeros allocated %d bytes", grew)
	}
}
