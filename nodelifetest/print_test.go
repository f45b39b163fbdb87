package nodelifetest_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/nodelifetest"
)

// Drawn pods print under %#v, as rapid logs them, without a pointer
// address or apimachinery's Quantity internals, and with the priority
// (the field the property is about) when it is set.
func TestPodGoStringDrawn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := nodelifetest.OnePod(nodelifetest.Options{}).Draw(t, "pod")
		s := fmt.Sprintf("%#v", p)
		for _, bad := range []string{"0x", "int64Amount", "infDecAmount", "\n"} {
			if strings.Contains(s, bad) {
				t.Fatalf("%q in %s", bad, s)
			}
		}
		if p.Priority != nil && !strings.Contains(s, " priority="+strconv.Itoa(int(*p.Priority))) {
			t.Fatalf("priority %d missing: %s", *p.Priority, s)
		}
		if len(s) > 2000 {
			t.Fatalf("%d characters: %s", len(s), s)
		}
	})
}

// A scenario prints as a short table: nodes by zone, a pod a line, the
// fault schedule.
func TestScenarioString(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	node := func(name, zone string) core.Node {
		return core.Node{Name: name, Labels: map[string]string{eviction.LabelTopologyZone: zone}}
	}
	prio := int32(0)
	s := nodelifetest.Scenario{Cluster: nodelifetest.Cluster{Start: start,
		Nodes: []core.Node{node("a-0", "a"), node("b-0", "b"), node("a-1", "a")},
		Pods: []core.Pod{{Namespace: "ns", Name: "p0", NodeName: "a-0", Priority: &prio, Phase: core.PodRunning,
			Conditions: []core.PodCondition{{Type: core.PodReady, Status: conditions.True}}}}},
		Faults:   []nodelifetest.Fault{{Kind: nodelifetest.FaultShutdown, Nodes: []string{"a-0"}, From: time.Minute, To: 3*time.Minute + 20*time.Second}},
		Duration: 10 * time.Minute}
	s.Nodes[2].Unschedulable = true
	want := `Scenario of 10m0s: Cluster at 2026-01-01T00:00:00Z
  zone "a": a-0, a-1 [cordoned]
  zone "b": b-0
  Pod{ns/p0 node=a-0 priority=0 phase=Running ready}
  fault Shutdown [a-0] +1m0s..+3m20s
`
	if got := fmt.Sprintf("%#v", s); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Drawn scenarios print without addresses or Quantity internals, one
// line per zone, pod and fault plus the header.
func TestScenarioGoStringDrawn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := nodelifetest.Scenarios(nodelifetest.Options{}).Draw(t, "scenario")
		text := fmt.Sprintf("%#v", s)
		for _, bad := range []string{"0x", "int64Amount", "core.Node{"} {
			if strings.Contains(text, bad) {
				t.Fatalf("%q in %s", bad, text)
			}
		}
		zones := map[string]bool{}
		for _, n := range s.Nodes {
			zones[n.Labels[eviction.LabelTopologyZone]] = true
		}
		lines := 1 + len(zones) + len(s.Pods) + max(len(s.Faults), 1)
		if got := strings.Count(text, "\n"); got != lines {
			t.Fatalf("%d lines, want %d:\n%s", got, lines, text)
		}
	})
}
