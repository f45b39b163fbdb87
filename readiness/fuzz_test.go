package readiness

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// bytes hands out a fuzz input one choice at a time (zero when used up).
type bytes struct {
	b []byte
	i int
}

func (s *bytes) next(n int) int {
	if s.i >= len(s.b) || n <= 0 {
		return 0
	}
	s.i++
	return int(s.b[s.i-1]) % n
}

var (
	fuzzStatuses = []conditions.Status{conditions.True, conditions.False, conditions.Unknown, "", "Maybe"}
	fuzzTypes    = []conditions.Type{"Ready", "cni", "gpu", "", "a/b"}
	fuzzEffects  = []taints.Effect{taints.TaintEffectNoSchedule, taints.TaintEffectNoExecute, taints.TaintEffectPreferNoSchedule, "", "Evict"}
	fuzzPools    = []string{"a", "b", ""}
)

// fuzzRule draws a rule; distinct keeps its taint key to itself (rule i
// owns readiness.k8s.io/r<i>).
func fuzzRule(s *bytes, i int, distinct bool) Rule {
	r := Rule{Name: fmt.Sprintf("r%d", i), UID: fmt.Sprintf("u%d", s.next(3)),
		EnforcementMode: []EnforcementMode{Continuous, BootstrapOnly, "other"}[s.next(3)],
		ConditionPolicy: []ConditionPolicy{"", AllOf, AnyOf, "x"}[s.next(4)],
		DryRun:          s.next(5) == 0, Deleting: s.next(6) == 0}
	for c := 0; c < s.next(4); c++ {
		r.Conditions = append(r.Conditions, ConditionRequirement{Type: fuzzTypes[s.next(len(fuzzTypes))],
			RequiredStatus: fuzzStatuses[s.next(len(fuzzStatuses))], DefaultStatus: fuzzStatuses[s.next(len(fuzzStatuses))]})
	}
	r.Taint = taints.Taint{Key: fmt.Sprintf("readiness.k8s.io/r%d", s.next(3)), Value: fuzzPools[s.next(3)], Effect: fuzzEffects[s.next(len(fuzzEffects))]}
	if distinct {
		r.Taint.Key = fmt.Sprintf("readiness.k8s.io/r%d", i)
	}
	switch s.next(4) {
	case 0:
		r.NodeSelector = metav1.LabelSelector{MatchLabels: map[string]string{"pool": fuzzPools[s.next(3)]}}
	case 1:
		r.NodeSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "pool", Operator: []metav1.LabelSelectorOperator{"In", "NotIn", "Exists", "DoesNotExist", "Gt"}[s.next(5)], Values: []string{fuzzPools[s.next(3)]}}}}
	case 2:
		r.NodeSelector = metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "x"}}
	}
	return r
}

func fuzzNode(s *bytes, rules []Rule) core.Node {
	n := core.Node{Name: "n", Labels: map[string]string{}}
	if p := fuzzPools[s.next(3)]; p != "" {
		n.Labels["pool"] = p
	}
	for c := 0; c < s.next(5); c++ {
		n.Conditions = append(n.Conditions, conditions.Condition{Type: fuzzTypes[s.next(len(fuzzTypes))], Status: fuzzStatuses[s.next(len(fuzzStatuses))]})
	}
	for _, r := range rules {
		if s.next(2) == 0 {
			t := r.Taint
			t.Value = fuzzPools[s.next(3)]
			n.Taints = append(n.Taints, t)
		}
		switch s.next(4) {
		case 0:
			key, value := r.CompletionAnnotation()
			n.Annotations = withAnnotation(n.Annotations, key, value)
		case 1:
			n.Annotations = withAnnotation(n.Annotations, r.LegacyCompletionKey(), "x")
		}
	}
	return n
}

// FuzzPlan: arbitrary rules and a node never make the planners panic, and
// with rules of distinct taints a node event's result planned again (the
// rules that evaluated the node now know it) asks for nothing more; the inputs are
// not modified.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{2, 1, 0, 1, 1, 0, 0, 2, 1, 0, 3, 3, 1, 0, 2, 2, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		s := &bytes{b: b}
		distinct := s.next(2) == 0
		var rules []Rule
		for i := 0; i < 1+s.next(3); i++ {
			rules = append(rules, fuzzRule(s, i, distinct))
		}
		n := fuzzNode(s, rules)
		before := fmt.Sprintf("%+v", n)
		opts := Options{ReleaseUnmatched: s.next(2) == 0, CleanupEvaluatedNodes: s.next(2) == 0,
			KeepTaintsOnDryRunDelete: s.next(2) == 0, UnguardedBootstrapWrites: s.next(2) == 0}
		first := func(string) bool { return false }
		plan := PlanNode(rules, n, first, opts)
		for _, r := range rules {
			_ = PlanRule(r, []core.Node{n, plan.Node}, first, opts)
			_ = DryRun(r, []core.Node{n})
			_ = r.Validate()
			_, _ = WebhookCreate(r, rules)
			_ = ValidateUpdate(rules[0], r)
			for _, a := range plan.Actions {
				Apply(n, a, opts)
			}
		}
		if after := fmt.Sprintf("%+v", n); after != before {
			t.Fatalf("the node was modified:\n%s\n%s", before, after)
		}
		if !distinct {
			return
		}
		seen := map[string]bool{}
		for _, e := range plan.Evaluations {
			seen[e.Rule] = true
		}
		again := PlanNode(rules, plan.Node, func(r string) bool { return seen[r] }, opts)
		if len(again.Actions) > 0 {
			t.Fatalf("planned again: %v\nrules %+v\nnode %+v", actions(again.Actions), rules, plan.Node)
		}
	})
}

// FuzzValidate: any strings in a rule's fields never make validation
// panic, and a taint key Validate accepts has the prefix, one slash and a
// name of 1-63 characters.
func FuzzValidate(f *testing.F) {
	f.Add("readiness.k8s.io/cni", "", "NoSchedule", "Ready", "True", "", "continuous", "allOf", "pool", "In")
	f.Add("readiness.k8s.io/a/b", "v", "Evict", "", "Maybe", "x", "bootstrap-only", "anyOf", "", "Gt")
	f.Fuzz(func(t *testing.T, key, value, effect, ctype, required, def, mode, policy, selKey, op string) {
		r := Rule{Name: "f", EnforcementMode: EnforcementMode(mode), ConditionPolicy: ConditionPolicy(policy),
			Conditions: []ConditionRequirement{{Type: conditions.Type(ctype), RequiredStatus: conditions.Status(required), DefaultStatus: conditions.Status(def)}},
			Taint:      taints.Taint{Key: key, Value: value, Effect: taints.Effect(effect)},
			NodeSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: selKey, Operator: metav1.LabelSelectorOperator(op), Values: []string{value}}}}}
		err := r.Validate()
		_, _ = WebhookCreate(r, []Rule{r})
		_ = WebhookUpdate(r, []Rule{r})
		_ = ValidateUpdate(cniRule(Continuous), r)
		_ = NodeSelectorsOverlap(r.NodeSelector, cniRule(Continuous).NodeSelector)
		if err != nil {
			return
		}
		name, ok := strings.CutPrefix(key, TaintKeyPrefix)
		if !ok || strings.Contains(name, "/") || len(name) < 1 || len(name) > 63 || len(value) > 63 {
			t.Fatalf("accepted taint %q=%q", key, value)
		}
	})
}
