package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/taints"
)

// OpenYurt's node autonomy in the simulator (issue 62's scenario): an
// edge pool e of 4 nodes, e-1 and e-2 autonomous (node.beta.openyurt.io/
// autonomy "true" on an edge worker), beside a cloud pool c of 2, one pod
// per node with admission's default tolerations (300 s), loses its
// connectivity from 100 s for 15 minutes, under nodelifecycle.OpenYurt.
// Worked out from v1.37's defaults, as TestFaultOutages: the kubelets'
// last renewal is at 90 s, so the four nodes turn Unknown at the pass of
// 145 s (the first more than 50 s after). Pool e is fully disrupted, pool
// c is not, so e keeps tainting at 0.1 node/s, its bucket full: e-1 at
// 145 s, e-2 at 155 s, e-3 at 165 s, e-4 at 175 s. The pods of e-3 and
// e-4 are marked NotReady at 145 s and evicted 300 s after their node's
// taint: 465 s and 475 s. The autonomous nodes' pods are never marked and
// never evicted: spared. At 1000 s the pool is back.
func TestOpenYurtPoolOutage(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var c Cluster
	for _, n := range []string{"e-1", "e-2", "e-3", "e-4", "c-1", "c-2"} {
		node := core.Node{Name: n, CreationTimestamp: start.Add(-time.Hour),
			Labels:     map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: n[:1]},
			Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}}}
		if n == "e-1" || n == "e-2" {
			node.Labels[nodelifecycle.LabelOpenYurtEdgeWorker] = "true"
			node.Annotations = map[string]string{nodelifecycle.AnnotationOpenYurtAutonomy: "true"}
		}
		c.Nodes = append(c.Nodes, node)
		c.Pods = append(c.Pods, core.Pod{Namespace: "ns", Name: "p-" + n, UID: "u-" + n, NodeName: n, Phase: core.PodRunning,
			CreationTimestamp: start.Add(-time.Hour), Tolerations: taints.WithDefaultTolerationSeconds(nil, 300, 300),
			Conditions: []core.PodCondition{{Type: core.PodReady, Status: conditions.True}}})
	}
	cfg := nodelifecycle.DefaultConfig()
	cfg.NodePolicy = nodelifecycle.OpenYurt{}
	res, err := Run(Config{Cluster: &c, Start: start, Duration: 20 * time.Minute, Controller: &cfg,
		Outages: []Outage{{Zone: "r/e", From: 100 * time.Second, To: 1000 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Events {
		switch e.Kind {
		case "unknown", "taint", "evict":
			got = append(got, fmt.Sprintf("%v %s %s %s", e.At, e.Kind, e.Object, marked(e)))
		}
	}
	want := []string{
		"2m25s unknown e-1 kept", "2m25s unknown e-2 kept", "2m25s unknown e-3 marked", "2m25s unknown e-4 marked",
		"2m25s taint e-1 ", "2m35s taint e-2 ", "2m45s taint e-3 ", "2m55s taint e-4 ",
		"7m45s evict ns/p-e-3 ", "7m55s evict ns/p-e-4 ",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events\n got %q\nwant %q", got, want)
	}
	for _, o := range res.Pods {
		if want := map[string]string{"ns/p-e-1": "spared", "ns/p-e-2": "spared", "ns/p-e-3": "evicted", "ns/p-e-4": "evicted"}[o.Pod]; want != "" && o.Fate != want {
			t.Errorf("%s: %s, want %s", o.Pod, o.Fate, want)
		}
	}
}

// marked reads whether an unknown event's pods were marked NotReady.
func marked(e Event) string {
	switch {
	case e.Kind != "unknown":
		return ""
	case strings.HasSuffix(e.Message, "pods marked NotReady: true"):
		return "marked"
	}
	return "kept"
}
