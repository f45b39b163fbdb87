package nodelifetest

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/readiness"
	"github.com/nodelife/nodelife/taints"
)

// readinessTypes are the condition types drawn rules and nodes share, so
// that rules often find their conditions and sometimes miss them.
var readinessTypes = []conditions.Type{"Ready", "cni.example.com/NetworkReady", "gpu.example.com/DriverReady", "storage.example.com/Ready"}

// ReadinessRules draws 1-4 node readiness rules, each with its own name,
// UID and taint key (readiness.k8s.io/r<i>): continuous or bootstrap-only,
// 1-3 conditions over a small pool of types with a required status and
// sometimes a default, allOf or anyOf, a selector on the label pool (every
// node, pool a, pool in (a, b), pool b absent), and now and then dry run
// or deletion. With o.Valid the rules pass Validate and the webhook's
// create checks (no default and no anyOf with bootstrap-only); otherwise
// statuses, modes, effects and selectors outside the API's values are
// drawn too.
func ReadinessRules(o Options) *rapid.Generator[[]readiness.Rule] {
	return rapid.Custom(func(t *rapid.T) []readiness.Rule {
		n := rapid.IntRange(1, 4).Draw(t, "rules")
		rules := make([]readiness.Rule, n)
		statuses := []conditions.Status{conditions.True, conditions.False, conditions.Unknown}
		for i := range rules {
			r := readiness.Rule{Name: fmt.Sprintf("r%d", i), UID: fmt.Sprintf("uid-%d", i),
				EnforcementMode: rapid.SampledFrom([]readiness.EnforcementMode{readiness.Continuous, readiness.BootstrapOnly}).Draw(t, "mode"),
				Taint: taints.Taint{Key: fmt.Sprintf("readiness.k8s.io/r%d", i),
					Effect: rapid.SampledFrom([]taints.Effect{taints.TaintEffectNoSchedule, taints.TaintEffectNoExecute, taints.TaintEffectPreferNoSchedule}).Draw(t, "effect")},
				DryRun:   rapid.IntRange(0, 7).Draw(t, "dryRun") == 0,
				Deleting: rapid.IntRange(0, 9).Draw(t, "deleting") == 0}
			types := rapid.SliceOfNDistinct(rapid.SampledFrom(readinessTypes), 1, 3, rapid.ID[conditions.Type]).Draw(t, "types")
			for _, ct := range types {
				c := readiness.ConditionRequirement{Type: ct, RequiredStatus: rapid.SampledFrom(statuses).Draw(t, "required")}
				if r.EnforcementMode == readiness.Continuous && rapid.Bool().Draw(t, "hasDefault") {
					c.DefaultStatus = rapid.SampledFrom(statuses).Draw(t, "default")
				}
				r.Conditions = append(r.Conditions, c)
			}
			if r.EnforcementMode == readiness.Continuous {
				r.ConditionPolicy = rapid.SampledFrom([]readiness.ConditionPolicy{"", readiness.AllOf, readiness.AnyOf}).Draw(t, "policy")
			}
			switch rapid.IntRange(0, 3).Draw(t, "selector") {
			case 1:
				r.NodeSelector = metav1.LabelSelector{MatchLabels: map[string]string{"pool": "a"}}
			case 2:
				r.NodeSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "pool", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}}
			case 3:
				r.NodeSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "pool", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"b"}}}}
			}
			if !o.Valid && rapid.IntRange(0, 5).Draw(t, "invalid") == 0 {
				switch rapid.IntRange(0, 3).Draw(t, "how") {
				case 0:
					r.Conditions[0].RequiredStatus = "Maybe"
				case 1:
					r.EnforcementMode = "sometimes"
				case 2:
					r.Taint.Effect = "Evict"
				case 3:
					r.NodeSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "pool", Operator: "Near"}}}
				}
			}
			rules[i] = r
		}
		return rules
	})
}

// ReadinessNodes draws a node for rules: a pool label (a, b or none), some
// of the pool's condition types at True, False or Unknown, the rules'
// taints with any value on about half, and their completion annotations
// (the UID key or the legacy name key) on about a third.
func ReadinessNodes(rules []readiness.Rule) *rapid.Generator[core.Node] {
	return rapid.Custom(func(t *rapid.T) core.Node {
		n := core.Node{Name: "n1", Labels: map[string]string{}}
		if p := rapid.SampledFrom([]string{"a", "b", ""}).Draw(t, "pool"); p != "" {
			n.Labels["pool"] = p
		}
		for _, ct := range readinessTypes {
			if rapid.Bool().Draw(t, "reports") {
				n.Conditions = append(n.Conditions, conditions.Condition{Type: ct,
					Status: rapid.SampledFrom([]conditions.Status{conditions.True, conditions.False, conditions.Unknown}).Draw(t, "status")})
			}
		}
		for _, r := range rules {
			if rapid.Bool().Draw(t, "tainted") {
				tt := r.Taint
				tt.Value = rapid.SampledFrom([]string{"", "x"}).Draw(t, "value")
				n.Taints = append(n.Taints, tt)
			}
			switch rapid.IntRange(0, 5).Draw(t, "completed") {
			case 0:
				key, value := r.CompletionAnnotation()
				n.Annotations = withKey(n.Annotations, key, value)
			case 1:
				n.Annotations = withKey(n.Annotations, r.LegacyCompletionKey(), `{"rule-name":"`+r.Name+`"}`)
			}
		}
		return n
	})
}

func withKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// CheckReadinessPlan checks a node event's plan against the rules' promises,
// for rules whose taint keys are their own (as ReadinessRules draws them;
// the webhook refuses overlapping rules that share one): after the event,
// a continuous rule that matches the node and is neither deleting nor a
// dry run has its taint on the node exactly when its conditions are not
// met; a bootstrap-only rule whose completion was on the node before never
// puts its taint back, and one that matches, evaluates and finds its
// conditions met leaves the node untainted and completed; a completion
// annotation is never removed.
func CheckReadinessPlan(rules []readiness.Rule, before core.Node, plan readiness.NodePlan) error {
	after := plan.Node
	for k := range before.Annotations {
		if _, ok := after.Annotations[k]; !ok {
			return checkErr("annotation %s removed", k)
		}
	}
	for _, r := range rules {
		e := readiness.Evaluate(r, after)
		active := r.Applies(after) && !r.Deleting && !r.DryRun
		switch {
		case r.EnforcementMode == readiness.Continuous && active:
			if tainted := r.HasTaint(after); tainted == e.Met {
				return checkErr("continuous rule %s: conditions met %v, taint on the node %v", r.Name, e.Met, tainted)
			}
		case r.EnforcementMode == readiness.BootstrapOnly && r.Completed(before):
			if !r.HasTaint(before) && r.HasTaint(after) {
				return checkErr("bootstrap-only rule %s re-tainted completed node %s", r.Name, after.Name)
			}
		case r.EnforcementMode == readiness.BootstrapOnly && active && e.Met:
			if r.HasTaint(after) || !r.Completed(after) {
				return checkErr("bootstrap-only rule %s met on %s: tainted %v, completed %v", r.Name, after.Name, r.HasTaint(after), r.Completed(after))
			}
		}
	}
	return nil
}
