package readiness

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

const cniKey = "readiness.k8s.io/cni"

var cniTaint = taints.Taint{Key: cniKey, Effect: taints.TaintEffectNoSchedule}

// cniRule requires cni.example.com/Ready=True on the nodes labelled
// pool=a.
func cniRule(mode EnforcementMode) Rule {
	return Rule{Name: "cni", UID: "uid-1", EnforcementMode: mode,
		Conditions:   []ConditionRequirement{{Type: "cni.example.com/Ready", RequiredStatus: conditions.True}},
		Taint:        cniTaint,
		NodeSelector: metav1.LabelSelector{MatchLabels: map[string]string{"pool": "a"}}}
}

// node builds a node of pool a with the given taints and condition
// statuses ("Type=Status").
func node(ts []taints.Taint, conds ...string) core.Node {
	n := core.Node{Name: "n1", Labels: map[string]string{"pool": "a"}, Taints: ts}
	for _, c := range conds {
		t, s, _ := strings.Cut(c, "=")
		n.Conditions = append(n.Conditions, conditions.Condition{Type: conditions.Type(t), Status: conditions.Status(s)})
	}
	return n
}

func actions(acts []Action) []string {
	var out []string
	for _, a := range acts {
		out = append(out, a.String())
	}
	return out
}

const (
	removed = "RemoveTaint n1 readiness.k8s.io/cni:NoSchedule (rule cni): Taint 'readiness.k8s.io/cni:NoSchedule' removed by rule 'cni'"
	added   = "AddTaint n1 readiness.k8s.io/cni:NoSchedule (rule cni): Taint 'readiness.k8s.io/cni:NoSchedule' added by rule 'cni'"
	adopted = "AdoptTaint n1 readiness.k8s.io/cni:NoSchedule (rule cni): Taint 'readiness.k8s.io/cni:NoSchedule' is now managed by rule 'cni'"
	marked  = "MarkCompleted n1 readiness.k8s.io/cni:NoSchedule (rule cni): bootstrap of rule 'cni' completed on node n1"
	uidKey  = "readiness.k8s.io/bootstrap-completed-uid-1"
	nameKey = "readiness.k8s.io/bootstrap-completed-cni"
	uidVal  = `{"rule-name":"cni"}`
)

// The decision table of the package doc (the reference's 1.5, with 1.3 and
// 1.4), one node event each: the actions, the node's taints and
// annotations after them, and the evaluation's taint status.
func TestDecisionTable(t *testing.T) {
	ready, notReady := "cni.example.com/Ready=True", "cni.example.com/Ready=False"
	other := taints.Taint{Key: cniKey, Value: "other", Effect: taints.TaintEffectNoSchedule}
	noExec := taints.Taint{Key: cniKey, Effect: taints.TaintEffectNoExecute}
	for _, tc := range []struct {
		name        string
		rule        Rule
		node        core.Node
		seen        bool // the rule evaluated the node before
		want        []string
		taints      []taints.Taint
		annotations map[string]string
		status      TaintStatus // "" when the rule is not evaluated
		skipped     string
	}{
		{"continuous, met, tainted: removed", cniRule(Continuous), node([]taints.Taint{cniTaint}, ready), true,
			[]string{removed}, []taints.Taint{}, nil, TaintAbsent, ""},
		{"continuous, not met, untainted: added", cniRule(Continuous), node(nil, notReady), true,
			[]string{added}, []taints.Taint{cniTaint}, nil, TaintPresent, ""},
		{"continuous, not met, tainted, first evaluation: adopted", cniRule(Continuous), node([]taints.Taint{cniTaint}, notReady), false,
			[]string{adopted}, []taints.Taint{cniTaint}, nil, TaintPresent, ""},
		{"continuous, not met, tainted, evaluated before: kept quietly", cniRule(Continuous), node([]taints.Taint{cniTaint}, notReady), true,
			nil, []taints.Taint{cniTaint}, nil, TaintPresent, ""},
		{"continuous, met, untainted: nothing", cniRule(Continuous), node(nil, ready), true,
			nil, nil, nil, TaintAbsent, ""},
		{"bootstrap-only, met, tainted: removed and completed in one patch", cniRule(BootstrapOnly), node([]taints.Taint{cniTaint}, ready), true,
			[]string{removed}, []taints.Taint{}, map[string]string{uidKey: uidVal}, TaintAbsent, ""},
		{"bootstrap-only, not met, untainted: added", cniRule(BootstrapOnly), node(nil, notReady), true,
			[]string{added}, []taints.Taint{cniTaint}, nil, TaintPresent, ""},
		{"bootstrap-only, met, untainted: grandfathered", cniRule(BootstrapOnly), node(nil, ready), false,
			[]string{marked}, nil, map[string]string{uidKey: uidVal}, TaintAbsent, ""},
		{"bootstrap-only, completed (UID key): skipped, taint left", cniRule(BootstrapOnly),
			withAnn(node([]taints.Taint{cniTaint}, ready), uidKey), true,
			nil, []taints.Taint{cniTaint}, map[string]string{uidKey: uidVal}, "", "BootstrapCompleted"},
		{"bootstrap-only, completed (legacy name key): skipped, not re-tainted", cniRule(BootstrapOnly),
			withAnn(node(nil, notReady), nameKey), true,
			nil, nil, map[string]string{nameKey: uidVal}, "", "BootstrapCompleted"},
		{"a taint of the rule's key and effect with another value is the rule's", cniRule(Continuous), node([]taints.Taint{other}, ready), true,
			[]string{removed}, []taints.Taint{}, nil, TaintAbsent, ""},
		{"another effect is not the rule's taint", cniRule(Continuous), node([]taints.Taint{noExec}, notReady), true,
			[]string{added}, []taints.Taint{noExec, cniTaint}, nil, TaintPresent, ""},
		{"a missing condition takes its default", withDefault(cniRule(Continuous), conditions.True), node([]taints.Taint{cniTaint}), true,
			[]string{removed}, []taints.Taint{}, nil, TaintAbsent, ""},
		{"a missing condition without default is Unknown, not True", cniRule(Continuous), node(nil), true,
			[]string{added}, []taints.Taint{cniTaint}, nil, TaintPresent, ""},
		{"anyOf: one condition of two met", anyOf(cniRule(Continuous)), node([]taints.Taint{cniTaint}, notReady, "gpu=True"), true,
			[]string{removed}, []taints.Taint{}, nil, TaintAbsent, ""},
		{"allOf: one condition of two met", allOf(cniRule(Continuous)), node(nil, notReady, "gpu=True"), true,
			[]string{added}, []taints.Taint{cniTaint}, nil, TaintPresent, ""},
		{"a duplicate condition type: the first counts", cniRule(Continuous), node(nil, ready, notReady), true,
			nil, nil, nil, TaintAbsent, ""},
		{"a rule being deleted: skipped", deleting(cniRule(Continuous)), node(nil, notReady), true,
			nil, nil, nil, "", "Deleting"},
		{"a dry-run rule: skipped", dryRun(cniRule(Continuous)), node(nil, notReady), true,
			nil, nil, nil, "", "DryRun"},
		{"a selector that does not match: nothing", withSelector(cniRule(Continuous), "pool", "b"), node([]taints.Taint{cniTaint}, ready), true,
			nil, []taints.Taint{cniTaint}, nil, "", ""},
		{"a selector that does not parse matches nothing", badSelector(cniRule(Continuous)), node(nil, notReady), true,
			nil, nil, nil, "", ""},
		{"an empty selector matches every node", withSelector(cniRule(Continuous), "", ""), node(nil, notReady), true,
			[]string{added}, []taints.Taint{cniTaint}, nil, TaintPresent, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := PlanNode([]Rule{tc.rule}, tc.node, func(string) bool { return tc.seen }, Options{})
			if diff := cmp.Diff(tc.want, actions(plan.Actions)); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.taints, plan.Node.Taints); diff != "" {
				t.Errorf("taints after (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.annotations, plan.Node.Annotations); diff != "" {
				t.Errorf("annotations after (-want +got):\n%s", diff)
			}
			var status TaintStatus
			if len(plan.Evaluations) > 0 {
				status = plan.Evaluations[0].TaintStatus
			}
			if status != tc.status {
				t.Errorf("taint status %q, want %q", status, tc.status)
			}
			var skipped string
			if len(plan.Skipped) > 0 {
				skipped = plan.Skipped[0].Reason
			}
			if skipped != tc.skipped {
				t.Errorf("skipped %q, want %q", skipped, tc.skipped)
			}
		})
	}
}

func withAnn(n core.Node, key string) core.Node {
	n.Annotations = map[string]string{key: uidVal}
	return n
}

func withDefault(r Rule, s conditions.Status) Rule {
	r.Conditions = []ConditionRequirement{{Type: r.Conditions[0].Type, RequiredStatus: r.Conditions[0].RequiredStatus, DefaultStatus: s}}
	return r
}

func anyOf(r Rule) Rule {
	r = allOf(r)
	r.ConditionPolicy = AnyOf
	return r
}

func allOf(r Rule) Rule {
	r.Conditions = append(r.Conditions[:1:1], ConditionRequirement{Type: "gpu", RequiredStatus: conditions.True})
	r.ConditionPolicy = AllOf
	return r
}

func deleting(r Rule) Rule { r.Deleting = true; return r }
func dryRun(r Rule) Rule   { r.DryRun = true; return r }

func withSelector(r Rule, k, v string) Rule {
	r.NodeSelector = metav1.LabelSelector{}
	if k != "" {
		r.NodeSelector.MatchLabels = map[string]string{k: v}
	}
	return r
}

func badSelector(r Rule) Rule {
	r.NodeSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "pool", Operator: "Near"}}}
	return r
}

// The condition results as the controller reports them (the problem-gate
// row of nodereadinessrule_controller_test.go: an absent condition whose
// default False satisfies required False is reported Unknown, with the
// default False).
func TestConditionResults(t *testing.T) {
	r := Rule{Name: "maintenance", EnforcementMode: Continuous,
		Conditions: []ConditionRequirement{{Type: "MaintenanceRequired", RequiredStatus: conditions.False, DefaultStatus: conditions.False},
			{Type: "Ready", RequiredStatus: conditions.True}},
		Taint: taints.Taint{Key: "readiness.k8s.io/maintenance", Effect: taints.TaintEffectNoSchedule}}
	e := Evaluate(r, core.Node{Name: "n", Conditions: []conditions.Condition{{Type: "Ready", Status: conditions.True}},
		Taints: []taints.Taint{r.Taint}})
	want := []ConditionResult{
		{Type: "MaintenanceRequired", CurrentStatus: conditions.Unknown, RequiredStatus: conditions.False, DefaultStatus: conditions.False},
		{Type: "Ready", CurrentStatus: conditions.True, RequiredStatus: conditions.True, DefaultStatus: conditions.Unknown},
	}
	if diff := cmp.Diff(want, e.Results); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if !e.Met || e.Missing != 1 || e.TaintStatus != TaintPresent {
		t.Errorf("met %v, missing %d, taint %s; want true, 1, Present", e.Met, e.Missing, e.TaintStatus)
	}
}

func statusOf(s string) conditions.Status { return conditions.Status(s) }
