package replay

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nodelife/nodelife/examples/kubeapi/snapshot"
	"github.com/nodelife/nodelife/sim"
)

// -kubernetes-version runs the simulated kubelets as that release too. The
// sample snapshot with w-1a1 given 1Gi of 2Mi huge pages in its
// status.capacity (its memory capacity stays 8Gi), and a pressure episode
// on w-1a1 from +3m to +8m whose summary reads 1074Mi (1Gi + 50Mi) of
// memory available. Worked by hand:
//
//   - 1.37's kubelet (HugepageAwareEviction) takes the huge pages off:
//     memory.available is 50Mi, below the default hard threshold of
//     100Mi, the same reading as TestSampleShutdownsPressureCloud's 50Mi
//     episode, so the same outcome: web-7d9f8b6c5-a (the pod most over
//     its request) is evicted at +180s and replaced a second later, and
//     kube-proxy-w-1a1 is spared as a critical pod;
//   - 1.36's kubelet reads 1074Mi: no threshold is met, no pod of w-1a1
//     is ranked, evicted or spared.
func TestKubernetesVersionRunsTheKubelets(t *testing.T) {
	data, err := os.ReadFile("../snapshot/testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	var whole map[string]any
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &whole); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range list.Items {
		if md, _ := it["metadata"].(map[string]any); it["kind"] == "Node" && md["name"] == "w-1a1" {
			it["status"].(map[string]any)["capacity"].(map[string]any)["hugepages-2Mi"] = "1Gi"
			found = true
		}
	}
	if !found {
		t.Fatal("sample.json: no node w-1a1")
	}
	whole["items"] = list.Items
	edited, err := json.Marshal(whole)
	if err != nil {
		t.Fatal(err)
	}
	snap, ws, err := snapshot.Decode(edited, "sample.json, w-1a1 with huge pages")
	if err != nil || len(ws) > 0 {
		t.Fatalf("decode: %v %v", ws, err)
	}
	for _, c := range []struct {
		version string
		want    map[string]fate
	}{
		{"1.37", map[string]fate{
			"shop/web-7d9f8b6c5-a":         {"pressure-evicted", s(180), "Evicted", -1, s(181)},
			"kube-system/kube-proxy-w-1a1": {"spared", 0, "CriticalPod", -1, -1}}},
		{"1.36", map[string]fate{}},
	} {
		c1 := snap.Cluster()
		for _, n := range c1.Nodes {
			if want := map[bool]int64{true: 1 << 30}[n.Name == "w-1a1"]; n.Capacity.HugePagesBytes() != want {
				t.Fatalf("%s has %d bytes of huge pages, want %d", n.Name, n.Capacity.HugePagesBytes(), want)
			}
		}
		pr, err := ParsePressure(c1, "w-1a1@3m-8m:1074Mi", 0)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sim.Config{Cluster: c1, Duration: 10 * time.Minute, Pressures: []sim.Pressure{pr}}
		if _, err := Preset(&cfg, c.version); err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]fate{}
		for k, f := range fates(res) {
			if k == "shop/web-7d9f8b6c5-a" || k == "kube-system/kube-proxy-w-1a1" || f.Fate == "pressure-evicted" {
				got[k] = f
			}
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("-kubernetes-version %s: w-1a1's pods (-want +got):\n%s", c.version, diff)
		}
	}
}
