package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/taints"
)

// The shipped sample, counted by hand from sampleList: 7 nodes (cp-1 and
// two workers in each of eu-1a, eu-1b, eu-1c) with one lease each; 18 pods
// (7 kube-proxy, 2 coredns, 3 web, 2 api, 3 db, 1 pending batch job).
func TestLoadSample(t *testing.T) {
	s, ws, err := Load("testdata/sample.json")
	if err != nil || len(ws) != 0 {
		t.Fatalf("%v %v", err, ws)
	}
	if len(s.Nodes) != 7 || len(s.Leases) != 7 || len(s.Pods) != 18 || len(s.PriorityClasses) != 0 {
		t.Fatalf("nodes %d leases %d pods %d", len(s.Nodes), len(s.Leases), len(s.Pods))
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	on := s.PodsOn()
	// w-1b1: kube-proxy, coredns, web-b, db-1.
	if got := len(on["w-1b1"]); got != 4 {
		t.Errorf("w-1b1 has %d pods, want 4", got)
	}
	if len(on[""]) != 1 || on[""][0].Name != "batch-report-28830" {
		t.Errorf("pending: %v", on[""])
	}
	// Sorted by namespace/name: kube-system before shop.
	if s.Pods[0].Namespace != "kube-system" || s.Nodes[0].Name != "cp-1" || s.Nodes[6].Name != "w-1c2" {
		t.Errorf("order: %s/%s, %s .. %s", s.Pods[0].Namespace, s.Pods[0].Name, s.Nodes[0].Name, s.Nodes[6].Name)
	}
	// The objects convert with kubeapi: the api pods tolerate the
	// unreachable NoExecute taint for 60s, db forever, web for the
	// admission default of 300s.
	unreachable := taints.Taint{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute}
	want := map[string]string{"api-6c4d7f9b8-a": "60", "db-0": "forever", "web-7d9f8b6c5-a": "300"}
	for _, p := range s.Pods {
		w, ok := want[p.Name]
		if !ok {
			continue
		}
		got := "untolerated"
		for _, tol := range kubeapi.Pod(p).Tolerations {
			if tol.ToleratesTaint(&unreachable) {
				got = "forever"
				if tol.TolerationSeconds != nil {
					got = strconv.FormatInt(*tol.TolerationSeconds, 10)
				}
			}
		}
		if got != w {
			t.Errorf("%s tolerates unreachable: %s, want %s", p.Name, got, w)
		}
	}
	if z := kubeapi.ZoneNode(s.Nodes[3]); z.Name != "w-1b1" || z.Zone != "eu-1:\x00:eu-1b" {
		t.Errorf("zone node %+v", z)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"not JSON", "{\n\"kind\": \"List\",\n oops}", `in.json: not JSON: line 3`},
		{"not a List", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"p"}}`, `kind "Service" is not a List`},
		{"bad field", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"p"},"spec":{"nodeName":5}}]}`,
			`item 0 (Pod shop/p): field spec.nodeName: cannot use JSON number as string`},
		{"bad quantity", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"capacity":{"cpu":"lots"}}}]}`,
			`item 0 (Node n)`},
	} {
		_, _, err := Decode([]byte(tc.data), "in.json")
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	s, ws, err := Decode([]byte(`{"apiVersion":"v1","kind":"List","items":[
		{"apiVersion":"v1","kind":"Service","metadata":{"namespace":"shop","name":"web"}},
		{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"lost"},"spec":{"nodeName":"gone"}},
		{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"lost"},"spec":{}},
		{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}]}`), "in.json")
	if err != nil || len(ws) != 1 || !strings.Contains(ws[0].String(), `in.json: item 0: kind Service (apiVersion "v1") shop/web skipped`) {
		t.Fatalf("%v %v", err, ws)
	}
	if err = s.Validate(); !errors.Is(err, ErrInvalid) || err.Error() != "snapshot: invalid input: pod shop/lost appears twice" {
		t.Errorf("Validate: %v", err)
	}
	if o := s.Orphans(); len(o) != 1 || o[0].Spec.NodeName != "gone" {
		t.Errorf("Orphans: %v", o)
	}
}

// A directory: every *.json file in name order, merged and sorted.
func TestLoadDirectory(t *testing.T) {
	dir := t.TempDir()
	nodes := `{"apiVersion":"v1","kind":"NodeList","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"b"}},{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}}]}`
	pods := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"x","name":"p"},"spec":{"nodeName":"a"}}]}`
	for name, data := range map[string]string{"1-nodes.json": nodes, "2-pods.json": pods, "notes.txt": "not read"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, _, err := Load(dir)
	if err != nil || len(s.Nodes) != 2 || s.Nodes[0].Name != "a" || len(s.Pods) != 1 || s.Validate() != nil {
		t.Fatalf("%v %+v", err, s)
	}
	if _, _, err := Load(t.TempDir()); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "no *.json or *.yaml file under the directory") {
		t.Errorf("empty dir: %v", err)
	}
	if _, _, err := Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}

// Valid JSON whose items are not an array is "not a List", not "not
// JSON", and names the field.
func TestItemsNotAnArray(t *testing.T) {
	_, _, err := Decode([]byte(`{"apiVersion":"v1","kind":"List","items":{"a":1}}`), "in.json")
	if err == nil || !strings.Contains(err.Error(), "in.json: not a List: field items: cannot use JSON object") || strings.Contains(err.Error(), "not JSON") {
		t.Fatalf("%v", err)
	}
}
