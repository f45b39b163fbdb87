package kubeapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/readiness"
)

// nodeReadinessRule is a readiness.node.x-k8s.io/v1alpha1 NodeReadinessRule
// as the API server serves it (its Go types are not served by the module
// proxy; this mirrors the fields the controller reads).
type nodeReadinessRule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Conditions []struct {
			Type           string                 `json:"type"`
			RequiredStatus corev1.ConditionStatus `json:"requiredStatus"`
			DefaultStatus  corev1.ConditionStatus `json:"defaultStatus"`
		} `json:"conditions"`
		EnforcementMode string               `json:"enforcementMode"`
		Taint           corev1.Taint         `json:"taint"`
		NodeSelector    metav1.LabelSelector `json:"nodeSelector"`
		ConditionPolicy string               `json:"conditionPolicy"`
		DryRun          bool                 `json:"dryRun"`
	} `json:"spec"`
}

// ReadinessRuleKind and ReadinessRuleGroup name the NodeReadinessRule
// resource.
const (
	ReadinessRuleKind  = "NodeReadinessRule"
	ReadinessRuleGroup = "readiness.node.x-k8s.io"
)

// ReadinessRules reads NodeReadinessRule objects as kubectl prints them
// (`kubectl get nodereadinessrules -o yaml` or `-o json`): one object, a
// List of them, or several YAML documents. An item of another kind is an
// error naming it, as is a document that does not decode.
func ReadinessRules(data []byte) ([]readiness.Rule, error) {
	var out []readiness.Rule
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for doc := 0; ; doc++ {
		var buf json.RawMessage
		if err := dec.Decode(&buf); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("kubeapi: readiness rules, document %d: %w", doc, err)
		}
		if len(buf) == 0 || string(buf) == "null" {
			continue
		}
		var list struct {
			metav1.TypeMeta `json:",inline"`
			Items           []nodeReadinessRule `json:"items"`
		}
		if err := json.Unmarshal(buf, &list); err != nil {
			return nil, fmt.Errorf("kubeapi: readiness rules, document %d: %w", doc, err)
		}
		items := list.Items
		if list.Kind != "List" && list.Kind != ReadinessRuleKind+"List" {
			var obj nodeReadinessRule
			if err := json.Unmarshal(buf, &obj); err != nil {
				return nil, fmt.Errorf("kubeapi: readiness rules, document %d: %w", doc, err)
			}
			items = []nodeReadinessRule{obj}
		}
		for i, it := range items {
			if it.Kind != ReadinessRuleKind {
				return nil, fmt.Errorf("kubeapi: readiness rules, document %d item %d (%q): kind %q, want %s", doc, i, it.Name, it.Kind, ReadinessRuleKind)
			}
			out = append(out, it.rule())
		}
	}
}

// rule is the readiness.Rule of a NodeReadinessRule.
func (r nodeReadinessRule) rule() readiness.Rule {
	out := readiness.Rule{Name: r.Name, UID: string(r.UID), Deleting: r.DeletionTimestamp != nil,
		EnforcementMode: readiness.EnforcementMode(r.Spec.EnforcementMode), Taint: Taints([]corev1.Taint{r.Spec.Taint})[0],
		NodeSelector: r.Spec.NodeSelector, ConditionPolicy: readiness.ConditionPolicy(r.Spec.ConditionPolicy), DryRun: r.Spec.DryRun}
	for _, c := range r.Spec.Conditions {
		out.Conditions = append(out.Conditions, readiness.ConditionRequirement{Type: conditions.Type(c.Type),
			RequiredStatus: conditions.Status(c.RequiredStatus), DefaultStatus: conditions.Status(c.DefaultStatus)})
	}
	return out
}
