package readiness_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/readiness"
	"github.com/nodelife/nodelife/taints"
)

// cni gates the nodes of pool gpu until the CNI agent reports
// cni.example.com/NetworkReady=True.
func cni(mode readiness.EnforcementMode) readiness.Rule {
	return readiness.Rule{Name: "cni", UID: "5f1c", EnforcementMode: mode,
		Conditions:   []readiness.ConditionRequirement{{Type: "cni.example.com/NetworkReady", RequiredStatus: conditions.True}},
		Taint:        taints.Taint{Key: "readiness.k8s.io/cni", Effect: taints.TaintEffectNoSchedule},
		NodeSelector: metav1.LabelSelector{MatchLabels: map[string]string{"pool": "gpu"}}}
}

func gpuNode(network conditions.Status, ts ...taints.Taint) core.Node {
	return core.Node{Name: "gpu-1", Labels: map[string]string{"pool": "gpu"}, Taints: ts,
		Conditions: []conditions.Condition{{Type: "cni.example.com/NetworkReady", Status: network}}}
}

// A node registered with the readiness taint: while the CNI agent is not
// ready the rule adopts the taint it finds; once it is, a bootstrap-only
// rule removes the taint and records its completion in the same patch, and
// never taints the node again.
func ExamplePlanNode() {
	rule := cni(readiness.BootstrapOnly)
	n := gpuNode(conditions.False, rule.Taint)
	evaluated := false
	for _, status := range []conditions.Status{conditions.False, conditions.True, conditions.False} {
		n.Conditions[0].Status = status
		plan := readiness.PlanNode([]readiness.Rule{rule}, n, func(string) bool { return evaluated }, readiness.Options{})
		for _, a := range plan.Actions {
			fmt.Println(a.Reason+":", a.Message)
			if a.AnnotationValue != "" {
				fmt.Println("  annotation", a.AnnotationKey, a.AnnotationValue)
			}
		}
		for _, s := range plan.Skipped {
			fmt.Println("skipped:", s.Reason)
		}
		n, evaluated = plan.Node, true
	}
	// Output:
	// TaintAdopted: Taint 'readiness.k8s.io/cni:NoSchedule' is now managed by rule 'cni'
	// TaintRemoved: Taint 'readiness.k8s.io/cni:NoSchedule' removed by rule 'cni'
	//   annotation readiness.k8s.io/bootstrap-completed-5f1c {"rule-name":"cni"}
	// skipped: BootstrapCompleted
}

// A new continuous rule over three nodes: one not ready is tainted, the
// others are left alone.
func ExamplePlanRule() {
	ready, notReady := gpuNode(conditions.True), gpuNode(conditions.False)
	notReady.Name = "gpu-2"
	cpu := gpuNode(conditions.False)
	cpu.Name, cpu.Labels = "cpu-1", map[string]string{"pool": "cpu"}
	plan := readiness.PlanRule(cni(readiness.Continuous), []core.Node{ready, notReady, cpu}, nil, readiness.Options{})
	for _, a := range plan.Actions {
		fmt.Println(a.Node, a.Reason)
	}
	fmt.Println("applied:", plan.Applied)
	// Output:
	// gpu-2 TaintAdded
	// applied: [gpu-1 gpu-2]
}

// The report of a dry-run rule, in the controller's words.
func ExampleDryRun() {
	tainted := gpuNode(conditions.True, taints.Taint{Key: "readiness.k8s.io/cni", Effect: taints.TaintEffectNoSchedule})
	silent := core.Node{Name: "gpu-3", Labels: map[string]string{"pool": "gpu"}}
	fmt.Println(readiness.DryRun(cni(readiness.Continuous), []core.Node{tainted, silent}).Summary)
	// Output:
	// would add 1 taints, would remove 1 taints, 1 nodes have missing conditions
}

// A deleted rule takes its taint off the nodes it matches.
func ExampleCleanup() {
	rule := cni(readiness.Continuous)
	rule.Deleting = true
	plan := readiness.Cleanup(rule, []core.Node{gpuNode(conditions.False, rule.Taint)}, nil, readiness.Options{})
	fmt.Println(plan.Actions[0].Message, len(plan.Nodes[0].Taints))
	// Output:
	// Taint 'readiness.k8s.io/cni:NoSchedule' removed by rule 'cni' 0
}

// The evaluation reports a condition the node does not post as Unknown.
func ExampleEvaluate() {
	e := readiness.Evaluate(cni(readiness.Continuous), core.Node{Name: "gpu-3", Labels: map[string]string{"pool": "gpu"}})
	fmt.Println(e.Met, e.Missing, e.Results[0].CurrentStatus, e.TaintStatus)
	// Output:
	// false 1 Unknown Absent
}

// Apply writes an action on the node as it is when the write happens:
// here the completion comes first, so the stale plan's add is refused.
func ExampleApply() {
	rule := cni(readiness.BootstrapOnly)
	add := readiness.PlanRule(rule, []core.Node{gpuNode(conditions.False)}, nil, readiness.Options{}).Actions[0]
	done := readiness.PlanNode([]readiness.Rule{rule}, gpuNode(conditions.True), nil, readiness.Options{}).Node
	_, changed := readiness.Apply(done, add, readiness.Options{})
	fmt.Println(add.Kind, "applied:", changed)
	// Output:
	// AddTaint applied: false
}

// The API server's checks name each field and value.
func ExampleRule_Validate() {
	rule := cni(readiness.Continuous)
	rule.Taint.Key = "readiness.k8s.io/-cni"
	fmt.Println(rule.Validate())
	// Output:
	// readiness: invalid rule: spec.taint: taint key name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ("readiness.k8s.io/-cni")
}

// Immutable fields cannot change on update.
func ExampleValidateUpdate() {
	old := cni(readiness.Continuous)
	r := old
	r.EnforcementMode = readiness.BootstrapOnly
	fmt.Println(readiness.ValidateUpdate(old, r))
	// Output:
	// readiness: invalid rule: spec.enforcementMode: Invalid value: enforcementMode is immutable
}

// The webhook warns about NoExecute, and refuses a second rule with the
// same taint over an overlapping set of nodes.
func ExampleWebhookCreate() {
	rule := cni(readiness.Continuous)
	rule.Taint.Effect = taints.TaintEffectNoExecute
	warnings, err := readiness.WebhookCreate(rule, nil)
	fmt.Println(warnings, err)
	twin := rule
	twin.Name = "cni-2"
	_, err = readiness.WebhookCreate(twin, []readiness.Rule{rule})
	fmt.Println(err)
	// Output:
	// [CAUTION: NoExecute with continuous mode evicts pods when conditions fail, risking workload disruption. Consider NoSchedule or bootstrap-only] <nil>
	// readiness: refused by the webhook: spec.taint.key: Invalid value: "readiness.k8s.io/cni": conflicts with existing rule 'cni' - same taint key 'readiness.k8s.io/cni' and effect 'NoExecute' with overlapping node selectors
}

// A rule update is checked against the others, not itself.
func ExampleWebhookUpdate() {
	rule := cni(readiness.Continuous)
	rule.DryRun = true
	fmt.Println(readiness.WebhookUpdate(rule, []readiness.Rule{cni(readiness.Continuous)}))
	// Output:
	// <nil>
}

// Two selectors overlap when some node could match both.
func ExampleNodeSelectorsOverlap() {
	prod := metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	dev := metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}
	fmt.Println(readiness.NodeSelectorsOverlap(prod, dev), readiness.NodeSelectorsOverlap(prod, metav1.LabelSelector{}))
	// Output:
	// false true
}

// Numeric bounds are searched for a value both allow.
func ExampleSelectorsOverlap() {
	a, _ := labels.Parse("version>1")
	b, _ := labels.Parse("version<3,version!=2")
	fmt.Println(readiness.SelectorsOverlap(a, b))
	// Output:
	// false
}

// The completion annotation of a bootstrap-only rule.
func ExampleRule_CompletionAnnotation() {
	fmt.Println(cni(readiness.BootstrapOnly).CompletionAnnotation())
	// Output:
	// readiness.k8s.io/bootstrap-completed-5f1c {"rule-name":"cni"}
}

// A heartbeat changes nothing the rules read; a condition's status does.
func ExampleNeedsEvaluation() {
	old := gpuNode(conditions.False)
	beat := gpuNode(conditions.False)
	beat.Conditions[0].Message = "still waiting"
	fmt.Println(readiness.NeedsEvaluation(old, beat), readiness.NeedsEvaluation(old, gpuNode(conditions.True)))
	// Output:
	// false true
}
