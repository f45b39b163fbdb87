package readiness

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/taints"
)

// The CEL taint key rules (test/e2e/taint_validation_test.go): each
// refused key with the message upstream's test looks for, and the keys it
// accepts.
func TestTaintKeyRules(t *testing.T) {
	for _, tc := range []struct {
		key, want string
	}{
		{"readiness.k8s.io/invalid/multiple-slashes", "exactly one '/' separator"},
		{"readiness.k8s.io/-invalid-start", "must consist of alphanumeric characters"},
		{"readiness.k8s.io/invalid-end-", "must consist of alphanumeric characters"},
		{"readiness.k8s.io/" + strings.Repeat("a", 64), "1-63 characters"},
		{"readiness.k8s.io/", "1-63 characters"},
		{"readiness.k8s.io/invalid@special", "must consist of alphanumeric characters"},
		{"example.com/cni", "must start with 'readiness.k8s.io/'"},
		{"readiness.k8s.io/" + strings.Repeat("a", 63) + "/" + strings.Repeat("b", 200), "at most 253 characters"},
	} {
		r := cniRule(Continuous)
		r.Taint.Key = tc.key
		err := r.Validate()
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "spec.taint") {
			t.Errorf("key %q: %v, want an ErrInvalid on spec.taint saying %q", tc.key, err, tc.want)
		}
	}
	for _, key := range []string{"readiness.k8s.io/simple", "readiness.k8s.io/with-dashes", "readiness.k8s.io/with_underscores",
		"readiness.k8s.io/with.dots", "readiness.k8s.io/Mixed-Case_123.OK", "readiness.k8s.io/security-agent-ready"} {
		r := cniRule(Continuous)
		r.Taint.Key = key
		if err := r.Validate(); err != nil {
			t.Errorf("key %q refused: %v", key, err)
		}
	}
}

// The schema's other rules, every problem at once, each naming its field.
func TestValidate(t *testing.T) {
	r := Rule{Name: "bad", Conditions: []ConditionRequirement{
		{Type: "", RequiredStatus: "Yes"}, {Type: "a", RequiredStatus: conditions.True, DefaultStatus: "Maybe"}, {Type: "a", RequiredStatus: conditions.False}},
		EnforcementMode: "sometimes", ConditionPolicy: "noneOf",
		Taint: taints.Taint{Key: "readiness.k8s.io/x", Value: strings.Repeat("v", 64), Effect: "Evict"}}
	err := r.Validate()
	for _, want := range []string{
		`spec.conditions[0].type: Invalid value: "": must be 1-316 characters`,
		`spec.conditions[0].requiredStatus: Unsupported value: "Yes"`,
		`spec.conditions[1].defaultStatus: Unsupported value: "Maybe"`,
		`spec.conditions[2]: Duplicate value: type "a"`,
		`spec.enforcementMode: Unsupported value: "sometimes"`,
		`spec.conditionPolicy: Unsupported value: "noneOf"`,
		`spec.taint: taint value length must be at most 63 characters`,
		`spec.taint: taint effect must be one of 'NoSchedule', 'PreferNoSchedule', 'NoExecute' ("Evict")`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	r = cniRule(Continuous)
	r.Conditions = nil
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "spec.conditions: Required value") {
		t.Errorf("no conditions: %v", err)
	}
	r.Conditions = make([]ConditionRequirement, 33)
	for i := range r.Conditions {
		r.Conditions[i] = ConditionRequirement{Type: conditions.Type(strings.Repeat("c", i+1)), RequiredStatus: conditions.True}
	}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "Too many: 33: must have at most 32 items") {
		t.Errorf("33 conditions: %v", err)
	}
	if err := cniRule(BootstrapOnly).Validate(); err != nil {
		t.Errorf("a valid rule: %v", err)
	}
}

// Immutability on update (nodereadinessrule_controller_test.go "when
// attempting to modify immutable fields"): every spec field but dryRun;
// an omitted condition policy equals allOf.
func TestValidateUpdate(t *testing.T) {
	old := cniRule(Continuous)
	for _, tc := range []struct {
		name   string
		change func(*Rule)
		want   string
	}{
		{"taint.key", func(r *Rule) { r.Taint.Key = "readiness.k8s.io/other" }, "spec.taint.key: Invalid value: key is immutable"},
		{"taint.effect", func(r *Rule) { r.Taint.Effect = taints.TaintEffectNoExecute }, "spec.taint.effect: Invalid value: effect is immutable"},
		{"taint.value", func(r *Rule) { old.Taint.Value = "v1"; r.Taint.Value = "v2" }, "spec.taint.value: Invalid value: value is immutable"},
		{"conditions", func(r *Rule) { r.Conditions = []ConditionRequirement{{Type: "x", RequiredStatus: conditions.True}} }, "spec.conditions: Invalid value: conditions is immutable"},
		{"enforcementMode", func(r *Rule) { r.EnforcementMode = BootstrapOnly }, "spec.enforcementMode: Invalid value: enforcementMode is immutable"},
		{"conditionPolicy", func(r *Rule) { r.ConditionPolicy = AnyOf }, "spec.conditionPolicy: Invalid value: conditionPolicy is immutable"},
		{"nodeSelector", func(r *Rule) { r.NodeSelector.MatchLabels = map[string]string{"pool": "b"} }, "spec.nodeSelector: Invalid value: nodeSelector is immutable"},
		{"dryRun is mutable", func(r *Rule) { r.DryRun = true }, ""},
		{"an omitted policy equals allOf", func(r *Rule) { r.ConditionPolicy = AllOf }, ""},
		{"an empty and a missing label map are the same selector", func(r *Rule) { r.NodeSelector.MatchExpressions = []metav1.LabelSelectorRequirement{} }, ""},
	} {
		old = cniRule(Continuous)
		r := cniRule(Continuous)
		r.Conditions = append([]ConditionRequirement(nil), old.Conditions...)
		tc.change(&r)
		err := ValidateUpdate(old, r)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// The webhook's spec checks and conflicts
// (nodereadinessgaterule_webhook_test.go "Spec Validation", "Taint Conflict
// Detection", "NoExecute Taint Warnings").
func TestWebhook(t *testing.T) {
	bootstrap := cniRule(BootstrapOnly)
	bootstrap.Conditions[0].DefaultStatus = conditions.False
	bootstrap.ConditionPolicy = AnyOf
	bootstrap.NodeSelector = metav1.LabelSelector{}
	_, err := WebhookCreate(bootstrap, nil)
	for _, want := range []string{
		"spec.nodeSelector: Required value: nodeSelector must not be empty",
		`spec.conditions[0].defaultStatus: Forbidden: defaultStatus should not be used with bootstrap-only enforcementMode ("False")`,
		"spec.conditionPolicy: Forbidden: anyOf conditionPolicy is not supported with bootstrap-only enforcementMode",
	} {
		if err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in: %v", want, err)
		}
	}
	invalidSel := cniRule(Continuous)
	invalidSel.NodeSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "pool", Operator: "Near"}}}
	if _, err := WebhookCreate(invalidSel, nil); err == nil || !strings.Contains(err.Error(), "spec.nodeSelector: Invalid value") {
		t.Errorf("an invalid selector: %v", err)
	}
	// continuous with a default and anyOf is fine; defaultStatus and anyOf are create-only checks
	cont := cniRule(Continuous)
	cont.Conditions[0].DefaultStatus = conditions.False
	cont.ConditionPolicy = AnyOf
	if w, err := WebhookCreate(cont, nil); err != nil || len(w) != 0 {
		t.Errorf("continuous with a default and anyOf: %v, %v", w, err)
	}
	if err := WebhookUpdate(bootstrapOK(), nil); err != nil {
		t.Errorf("update: %v", err)
	}

	existing := cniRule(Continuous)
	existing.Name = "existing"
	same := cniRule(Continuous)
	same.Name = "new"
	if _, err := WebhookCreate(same, []Rule{existing}); err == nil || !strings.Contains(err.Error(),
		"conflicts with existing rule 'existing' - same taint key 'readiness.k8s.io/cni' and effect 'NoSchedule' with overlapping node selectors") {
		t.Errorf("conflict: %v", err)
	}
	otherEffect := same
	otherEffect.Taint.Effect = taints.TaintEffectPreferNoSchedule
	if _, err := WebhookCreate(otherEffect, []Rule{existing}); err != nil {
		t.Errorf("same key, another effect: %v", err)
	}
	if err := WebhookUpdate(existing, []Rule{existing}); err != nil {
		t.Errorf("an update of the rule itself: %v", err)
	}

	for _, tc := range []struct {
		effect taints.Effect
		mode   EnforcementMode
		want   string
	}{
		{taints.TaintEffectNoExecute, Continuous, "CAUTION: NoExecute with continuous mode evicts pods when conditions fail, risking workload disruption. Consider NoSchedule or bootstrap-only"},
		{taints.TaintEffectNoExecute, BootstrapOnly, "NOTE: NoExecute will evict existing pods without tolerations. Ensure critical system pods have appropriate tolerations"},
		{taints.TaintEffectNoSchedule, Continuous, ""},
		{taints.TaintEffectPreferNoSchedule, Continuous, ""},
	} {
		r := cniRule(tc.mode)
		r.Taint.Effect = tc.effect
		w, err := WebhookCreate(r, nil)
		got := strings.Join(w, "|")
		if err != nil || got != tc.want {
			t.Errorf("%s %s: warnings %q, %v; want %q", tc.effect, tc.mode, got, err, tc.want)
		}
	}
}

func bootstrapOK() Rule { return cniRule(BootstrapOnly) }

// Selector overlap (nodereadinessgaterule_webhook_test.go "Node Selector
// Overlap Detection" and "Selector Overlap Helper").
func TestSelectorsOverlap(t *testing.T) {
	ml := func(kv ...string) metav1.LabelSelector {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return metav1.LabelSelector{MatchLabels: m}
	}
	me := func(key string, op metav1.LabelSelectorOperator, values ...string) metav1.LabelSelector {
		return metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}}
	}
	worker := ml("node-role.kubernetes.io/worker", "")
	for _, tc := range []struct {
		name string
		a, b metav1.LabelSelector
		want bool
	}{
		{"both empty", metav1.LabelSelector{}, metav1.LabelSelector{}, true},
		{"empty and a selector", metav1.LabelSelector{}, worker, true},
		{"a selector and empty", worker, metav1.LabelSelector{}, true},
		{"identical", worker, ml("node-role.kubernetes.io/worker", ""), true},
		{"env=prod, env=dev", ml("env", "prod"), ml("env", "dev"), false},
		{"subset", ml("env", "prod"), ml("env", "prod", "region", "us"), true},
		{"non-subset match labels", ml("env", "prod", "region", "us"), ml("env", "prod", "disk", "ssd"), true},
		{"In ∩ In", me("env", metav1.LabelSelectorOpIn, "prod", "stage"), me("env", metav1.LabelSelectorOpIn, "stage", "dev"), true},
		{"disjoint In", me("env", metav1.LabelSelectorOpIn, "prod", "stage"), me("env", metav1.LabelSelectorOpIn, "dev", "test"), false},
		{"Exists, DoesNotExist", me("env", metav1.LabelSelectorOpExists), me("env", metav1.LabelSelectorOpDoesNotExist), false},
		{"DoesNotExist, NotIn", me("env", metav1.LabelSelectorOpDoesNotExist), me("env", metav1.LabelSelectorOpNotIn, "prod"), true},
		{"a selector that does not parse overlaps", me("env", "Near"), ml("env", "prod"), true},
	} {
		if got := NodeSelectorsOverlap(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"version>1", "version<3", true},
		{"version>3", "version<3", false},
		{"version<3", "version!=0", true},
		{"version<1", "version!=0", false},
		{"version>1,version<3", "version notin (2)", false},
		{"version in (1,5)", "version>2", true},
		{"version in (1,x)", "version>2", false},
	} {
		a, errA := labels.Parse(tc.a)
		b, errB := labels.Parse(tc.b)
		if errA != nil || errB != nil {
			t.Fatalf("%s / %s: %v %v", tc.a, tc.b, errA, errB)
		}
		if got := SelectorsOverlap(a, b); got != tc.want {
			t.Errorf("%s and %s: %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if SelectorsOverlap(labels.Nothing(), labels.Everything()) {
		t.Error("Nothing overlaps Everything")
	}
}
