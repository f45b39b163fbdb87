package sim_test

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/sim"
	"github.com/nodelife/nodelife/taints"
)

// TestPropertySimulatedOutagesKeepTolerations runs the simulator on
// clusters and outages drawn by nodelifetest and checks its evictions with
// nodelifetest's invariants: no pod evicted twice, none before its
// tolerations allow. The simulator reports each NoExecute taint as a
// "taint" event naming it, and its removal as "untaint"; the History is
// built from those.
func TestPropertySimulatedOutagesKeepTolerations(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := nodelifetest.Scenarios(nodelifetest.Options{MaxNodes: 6}).Draw(t, "scenario")
		var c sim.Cluster
		for _, n := range s.Nodes {
			c.Nodes = append(c.Nodes, core.Node{Name: n.Name, Labels: n.Labels, CreationTimestamp: n.CreationTimestamp,
				Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}}})
		}
		tolerations := map[string][]taints.Toleration{}
		for _, p := range s.Pods {
			c.Pods = append(c.Pods, core.Pod{Namespace: p.Namespace, Name: p.Name, UID: p.UID, NodeName: p.NodeName, Phase: core.PodRunning, Tolerations: p.Tolerations})
			tolerations[p.Key()] = p.Tolerations
		}
		var outages []sim.Outage
		for _, f := range s.Faults {
			if f.Kind == nodelifetest.FaultOutage {
				outages = append(outages, sim.Outage{Names: f.Nodes, From: f.From, To: f.To})
			}
		}
		res, err := sim.Run(sim.Config{Cluster: &c, Outages: outages, Duration: s.Duration, Start: s.Start})
		if err != nil {
			t.Fatal(err)
		}
		var h nodelifetest.History
		podNode := map[string]string{}
		for _, p := range s.Pods {
			podNode[p.Key()] = p.NodeName
		}
		for _, n := range s.Nodes {
			h.Taints = append(h.Taints, nodelifetest.TaintChange{At: s.Start, Node: n.Name})
		}
		for i, e := range res.Events {
			at := s.Start.Add(e.At)
			switch e.Kind {
			case "taint":
				// "a-0 tainted node.kubernetes.io/unreachable:NoExecute"
				words := strings.Fields(e.Message)
				key, effect, ok := strings.Cut(words[len(words)-1], ":")
				if !ok || effect != string(taints.TaintEffectNoExecute) {
					t.Fatalf("taint event %q names no NoExecute taint", e.Message)
				}
				h.Taints = append(h.Taints, nodelifetest.TaintChange{At: at, Seq: i + 1, Node: e.Object, Taints: []taints.Taint{{Key: key, Effect: taints.TaintEffectNoExecute}}})
			case "untaint":
				h.Taints = append(h.Taints, nodelifetest.TaintChange{At: at, Seq: i + 1, Node: e.Object})
			case "evict":
				key := e.Object
				if !strings.Contains(key, "/") {
					t.Fatalf("evict event names %q, not namespace/name", key)
				}
				h.Evictions = append(h.Evictions, nodelifetest.Eviction{At: at, Seq: i + 1, Node: podNode[key], Pod: key, Tolerations: tolerations[key]})
			}
		}
		if err := nodelifetest.CheckEvictedOnce(h); err != nil {
			t.Fatal(err)
		}
		if err := nodelifetest.CheckTolerations(h); err != nil {
			t.Fatalf("%v\noutages %v", err, outages)
		}
	})
}
