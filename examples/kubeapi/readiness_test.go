package kubeapi

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/readiness"
	"github.com/nodelife/nodelife/taints"
)

const rulesYAML = `apiVersion: readiness.node.x-k8s.io/v1alpha1
kind: NodeReadinessRule
metadata:
  name: cni
  uid: 0d9e
spec:
  conditions:
    - type: "cni.example.com/NetworkReady"
      requiredStatus: "True"
  taint:
    key: "readiness.k8s.io/cni"
    effect: "NoSchedule"
    value: "pending"
  enforcementMode: "continuous"
  nodeSelector:
    matchExpressions:
      - key: node-role.kubernetes.io/control-plane
        operator: DoesNotExist
---
apiVersion: v1
kind: List
items:
- apiVersion: readiness.node.x-k8s.io/v1alpha1
  kind: NodeReadinessRule
  metadata: {name: gpu, deletionTimestamp: "2026-11-28T00:00:00Z"}
  spec:
    conditions: [{type: gpu.example.com/DriverReady, requiredStatus: "True", defaultStatus: "False"}]
    taint: {key: readiness.k8s.io/gpu, effect: NoExecute}
    enforcementMode: bootstrap-only
    conditionPolicy: anyOf
    dryRun: true
    nodeSelector: {matchLabels: {pool: gpu}}
`

// NodeReadinessRule YAML as kubectl prints it: a single object and a List,
// in two documents; JSON reads the same way.
func TestReadinessRules(t *testing.T) {
	got, err := ReadinessRules([]byte(rulesYAML))
	if err != nil {
		t.Fatal(err)
	}
	want := []readiness.Rule{
		{Name: "cni", UID: "0d9e", EnforcementMode: readiness.Continuous,
			Conditions:   []readiness.ConditionRequirement{{Type: "cni.example.com/NetworkReady", RequiredStatus: "True"}},
			Taint:        taints.Taint{Key: "readiness.k8s.io/cni", Value: "pending", Effect: taints.TaintEffectNoSchedule},
			NodeSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "node-role.kubernetes.io/control-plane", Operator: metav1.LabelSelectorOpDoesNotExist}}}},
		{Name: "gpu", Deleting: true, EnforcementMode: readiness.BootstrapOnly, ConditionPolicy: readiness.AnyOf, DryRun: true,
			Conditions:   []readiness.ConditionRequirement{{Type: "gpu.example.com/DriverReady", RequiredStatus: "True", DefaultStatus: "False"}},
			Taint:        taints.Taint{Key: "readiness.k8s.io/gpu", Effect: taints.TaintEffectNoExecute},
			NodeSelector: metav1.LabelSelector{MatchLabels: map[string]string{"pool": "gpu"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, err := ReadinessRules([]byte(`{"kind":"NodeReadinessRule","metadata":{"name":"j"},"spec":{"enforcementMode":"continuous"}}`)); err != nil || len(got) != 1 || got[0].Name != "j" {
		t.Errorf("JSON: %v, %v", got, err)
	}
	for _, bad := range []string{
		"kind: Node\nmetadata: {name: n1}\n",
		"kind: NodeReadinessRule\nspec: [1, 2]\n",
		"kind: List\nitems:\n- kind: Pod\n  metadata: {name: p}\n",
	} {
		if _, err := ReadinessRules([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "kubeapi: readiness rules, document 0") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
