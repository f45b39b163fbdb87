package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// The interner shares equal values and never merges different ones, even
// when their fields hold bytes that a separator could be confused with.
func TestInternerKeepsDifferentValuesApart(t *testing.T) {
	in := newInterner()
	a := in.labels(map[string]string{"app": "web", "tier": "1"})
	b := in.labels(map[string]string{"tier": "1", "app": "web"})
	b["shared"] = "yes" // shared: the write shows through a
	if a["shared"] != "yes" || len(in.maps) != 1 {
		t.Errorf("equal label maps not shared: %d kept", len(in.maps))
	}
	c := in.labels(map[string]string{"a": "b\x01c\x00d"})
	d := in.labels(map[string]string{"a": "b", "c": "d"})
	if len(c) != 1 || len(d) != 2 || len(in.maps) != 3 {
		t.Errorf("different label maps merged: %v %v", c, d)
	}
	secs := int64(300)
	empty := in.tolerations([]taints.Toleration{{Operator: taints.TolerationOpExists}})
	star := in.tolerations([]taints.Toleration{{Key: "*", Operator: taints.TolerationOpExists}})
	forever := in.tolerations([]taints.Toleration{{Key: "k", Operator: taints.TolerationOpExists}})
	bounded := in.tolerations([]taints.Toleration{{Key: "k", Operator: taints.TolerationOpExists, TolerationSeconds: &secs}})
	again := in.tolerations([]taints.Toleration{{Key: "k", Operator: taints.TolerationOpExists, TolerationSeconds: &secs}})
	if empty[0].Key != "" || star[0].Key != "*" || forever[0].TolerationSeconds != nil || bounded[0].TolerationSeconds == nil {
		t.Errorf("different toleration lists merged: %v %v %v %v", empty, star, forever, bounded)
	}
	if &again[0] != &bounded[0] {
		t.Error("equal toleration lists not shared")
	}
	l1 := in.list(core.ResourceList{"cpu": resource.MustParse("100m")})
	l2 := in.list(core.ResourceList{"cpu": resource.MustParse("100m")})
	l3 := in.list(core.ResourceList{"cpu": resource.MustParse("1")})
	if q := l3["cpu"]; len(in.lists) != 2 || q.MilliValue() != 1000 {
		t.Errorf("resource lists: %d kept, %v", len(in.lists), l3)
	}
	l1["x"] = resource.Quantity{} // shared: the write shows through l2
	if _, ok := l2["x"]; !ok {
		t.Error("equal resource lists not shared")
	}
}

// A read with ReplayOnly gives the same cluster as a full read converted
// afterwards, keeps no corev1.Pod, counts the pods, and still finds a pod
// that appears twice.
func TestReplayOnly(t *testing.T) {
	full, _, err := Load("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	lean, _, err := LoadWith("testdata/sample.json", Options{ReplayOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(lean.Pods) != 0 || lean.PodCount() != len(full.Pods) || lean.PodCount() == 0 {
		t.Fatalf("ReplayOnly kept %d corev1 pods and counts %d; the full read has %d", len(lean.Pods), lean.PodCount(), len(full.Pods))
	}
	if diff := cmp.Diff(full.Cluster(), lean.Cluster()); diff != "" {
		t.Errorf("the clusters differ (-full +ReplayOnly):\n%s", diff)
	}
	twice := `{"kind":"List","apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}},
{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"a","name":"p"},"spec":{"nodeName":"n"}},
{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"a","name":"p"},"spec":{"nodeName":"n"}}]}`
	path := filepath.Join(t.TempDir(), "twice.json")
	if err := os.WriteFile(path, []byte(twice), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, err := LoadWith(path, Options{ReplayOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "pod a/p appears twice") {
		t.Errorf("Validate: %v", err)
	}
}
