package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/readiness"
	"github.com/nodelife/nodelife/taints"
)

// A continuous NoExecute readiness rule in the simulated cluster: zone b's
// first node loses its CNI agent from +60s to +150s. The rule taints it at
// +60s, the taint eviction controller deletes its two pods (their
// tolerations, the default not-ready and unreachable ones, do not cover
// the readiness taint) in the step that hears of the taint, and the taint
// comes off at +150s; the node stays Ready, so zone b stays Normal.
func TestReadinessRules(t *testing.T) {
	const cni = conditions.Type("cni.example.com/NetworkReady")
	rule := readiness.Rule{Name: "cni", UID: "u1", EnforcementMode: readiness.Continuous,
		Conditions:   []readiness.ConditionRequirement{{Type: cni, RequiredStatus: conditions.True}},
		Taint:        taints.Taint{Key: "readiness.k8s.io/cni", Effect: taints.TaintEffectNoExecute},
		NodeSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: metav1.LabelSelectorOpExists}}}}
	res, err := Run(Config{Zones: 3, NodesPerZone: 3, PodsPerNode: 2, Duration: 5 * time.Minute, TolerationSeconds: 300,
		ReadinessRules:    []readiness.Rule{rule},
		ConditionEpisodes: []ConditionEpisode{{Type: cni, Status: conditions.False, Zone: "b", Nodes: 1, From: time.Minute, To: 150 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Events {
		switch e.Kind {
		case "condition", "taint", "untaint", "evict", "zone", "readiness":
			got = append(got, fmt.Sprintf("+%gs %s %s", e.At.Seconds(), e.Kind, e.Message))
		}
	}
	want := []string{
		"+0s zone zone a: Initial -> Normal, 0 of 3 not ready, tainting rate 0.1/s",
		"+0s zone zone b: Initial -> Normal, 0 of 3 not ready, tainting rate 0.1/s",
		"+0s zone zone c: Initial -> Normal, 0 of 3 not ready, tainting rate 0.1/s",
		"+60s condition b-00 posts cni.example.com/NetworkReady=False",
		"+60s taint b-00: Taint 'readiness.k8s.io/cni:NoExecute' added by rule 'cni'",
		"+60s evict pod shop/b-00-0 on b-00 deleted (UntoleratedTaint)",
		"+60s evict pod shop/b-00-1 on b-00 deleted (UntoleratedTaint)",
		"+150s condition b-00 posts cni.example.com/NetworkReady=True",
		"+150s untaint b-00: Taint 'readiness.k8s.io/cni:NoExecute' removed by rule 'cni'",
	}
	if diff := strings.Join(want, "\n"); diff != strings.Join(got, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), diff)
	}
	if res.Totals.Evicted != 2 {
		t.Errorf("evicted %d, want b-00's 2 pods", res.Totals.Evicted)
	}
}

// A continuous rule on Ready itself: the node lifecycle controller's
// Unknown (zone b's first node cut off at +60s: its last renewal at +50s,
// Unknown at the first 5s pass after +100s, +105s) makes the rule taint
// the node at once; the kubelet's Ready=True after the outage untaints it:
// its renewal at +60s failed and was retried after 0.2, 0.4, 0.8, 1.6,
// 3.2 and 6.4s (+72.6s), then every 7s, so the first one after +200s is
// +72.6s + 19 x 7s = +205.6s, and with it the status post.
func TestReadinessRuleOnReady(t *testing.T) {
	rule := readiness.Rule{Name: "ready", UID: "u2", EnforcementMode: readiness.Continuous,
		Conditions: []readiness.ConditionRequirement{{Type: conditions.Ready, RequiredStatus: conditions.True}},
		Taint:      taints.Taint{Key: "readiness.k8s.io/ready", Effect: taints.TaintEffectNoSchedule}}
	res, err := Run(Config{Zones: 3, NodesPerZone: 3, PodsPerNode: 1, Duration: 5 * time.Minute,
		ReadinessRules: []readiness.Rule{rule},
		Outages:        []Outage{{Zone: "b", Nodes: 1, From: time.Minute, To: 200 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Events {
		if e.Reason == readiness.ReasonTaintAdded || e.Reason == readiness.ReasonTaintRemoved {
			got = append(got, fmt.Sprintf("+%gs %s", e.At.Seconds(), e.Message))
		}
	}
	want := []string{
		"+105s b-00: Taint 'readiness.k8s.io/ready:NoSchedule' added by rule 'ready'",
		"+205.6s b-00: Taint 'readiness.k8s.io/ready:NoSchedule' removed by rule 'ready'",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("readiness taints:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
