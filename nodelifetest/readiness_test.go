package nodelifetest

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/readiness"
)

func readinessCondition(t, s string) conditions.Condition {
	return conditions.Condition{Type: conditions.Type(t), Status: conditions.Status(s)}
}

// Every node event, from any drawn state and history, keeps the readiness
// rules' promises, under upstream's behaviour and with every fix.
func TestPropertyReadinessPlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rules := ReadinessRules(Options{Valid: rapid.Bool().Draw(t, "valid")}).Draw(t, "rules")
		n := ReadinessNodes(rules).Draw(t, "node")
		seen := rapid.MapOf(rapid.SampledFrom([]string{"r0", "r1", "r2", "r3"}), rapid.Bool()).Draw(t, "seen")
		opts := readiness.Options{ReleaseUnmatched: rapid.Bool().Draw(t, "release"), UnguardedBootstrapWrites: rapid.Bool().Draw(t, "unguarded")}
		plan := readiness.PlanNode(rules, n, func(r string) bool { return seen[r] }, opts)
		if err := CheckReadinessPlan(rules, n, plan); err != nil {
			t.Fatal(err)
		}
	})
}

// CheckReadinessPlan catches a planner that leaves a met continuous rule's
// taint, and one that re-taints a completed bootstrap-only node.
func TestCheckReadinessPlanPlanted(t *testing.T) {
	rules := []readiness.Rule{{Name: "c", EnforcementMode: readiness.Continuous,
		Conditions: []readiness.ConditionRequirement{{Type: "Ready", RequiredStatus: "True"}}}}
	rules[0].Taint.Key, rules[0].Taint.Effect = "readiness.k8s.io/c", "NoSchedule"
	n := core.Node{Name: "n", Conditions: nil}
	n.Conditions = append(n.Conditions, readinessCondition("Ready", "True"))
	stuck := readiness.NodePlan{Node: n}
	stuck.Node.Taints = append(stuck.Node.Taints, rules[0].Taint)
	if err := CheckReadinessPlan(rules, n, stuck); err == nil {
		t.Error("a met continuous rule's taint left on the node passed")
	}
	b := rules[0]
	b.EnforcementMode = readiness.BootstrapOnly
	key, value := b.CompletionAnnotation()
	done := core.Node{Name: "n", Annotations: map[string]string{key: value}}
	retainted := readiness.NodePlan{Node: done}
	retainted.Node.Taints = append(retainted.Node.Taints, b.Taint)
	if err := CheckReadinessPlan([]readiness.Rule{b}, done, retainted); err == nil {
		t.Error("a re-tainted completed node passed")
	}
	if err := CheckReadinessPlan(rules, n, readiness.PlanNode(rules, n, nil, readiness.Options{})); err != nil {
		t.Errorf("the planner's own plan: %v", err)
	}
}
