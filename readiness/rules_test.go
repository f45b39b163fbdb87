package readiness

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// The rule path (a rule event) differs from the node path on completed
// bootstrap-only nodes (reference 1.5, nodereadinessrule_controller_test.go
// "bootstrap completion"): it evaluates them, so a put-back taint is removed
// when the conditions are met; its add is still refused on a completed
// node; a node carrying only the legacy completion key gets the UID key.
func TestRulePathOnCompletedNodes(t *testing.T) {
	r := cniRule(BootstrapOnly)
	for _, tc := range []struct {
		name        string
		node        core.Node
		want        []string
		taints      []taints.Taint
		annotations map[string]string
	}{
		{"put-back taint, met: removed, completion kept", withAnn(node([]taints.Taint{cniTaint}, "cni.example.com/Ready=True"), uidKey),
			[]string{removed}, []taints.Taint{}, map[string]string{uidKey: uidVal}},
		{"completed, not met, untainted: the add is refused", withAnn(node(nil, "cni.example.com/Ready=False"), uidKey),
			nil, nil, map[string]string{uidKey: uidVal}},
		{"legacy key only, met, untainted: the UID key is written", withAnn(node(nil, "cni.example.com/Ready=True"), nameKey),
			[]string{marked}, nil, map[string]string{nameKey: uidVal, uidKey: uidVal}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := PlanRule(r, []core.Node{tc.node}, func(string) bool { return true }, Options{})
			if diff := cmp.Diff(tc.want, actions(plan.Actions)); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.taints, plan.Nodes[0].Taints); diff != "" {
				t.Errorf("taints (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.annotations, plan.Nodes[0].Annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"n1"}, plan.Applied); diff != "" {
				t.Errorf("applied (-want +got):\n%s", diff)
			}
		})
	}
	// the node path skips the first node entirely
	plan := PlanNode([]Rule{r}, withAnn(node([]taints.Taint{cniTaint}, "cni.example.com/Ready=True"), uidKey), nil, Options{})
	if len(plan.Actions) != 0 || len(plan.Skipped) != 1 {
		t.Errorf("node path: actions %v, skipped %v; want none, one", actions(plan.Actions), plan.Skipped)
	}
}

// A continuous rule's cycle on one node, event by event (node_controller_test
// "should re-add the taint if conditions regress"), and bootstrap-only's
// ("should not re-add the taint if conditions regress after completion").
func TestRegression(t *testing.T) {
	for _, tc := range []struct {
		mode EnforcementMode
		want [][]string
	}{
		{Continuous, [][]string{{removed}, {added}}},
		{BootstrapOnly, [][]string{{removed}, nil}},
	} {
		r := cniRule(tc.mode)
		n := node([]taints.Taint{cniTaint}, "cni.example.com/Ready=True")
		var got [][]string
		for _, status := range []string{"True", "False"} {
			n.Conditions[0].Status = statusOf(status)
			plan := PlanNode([]Rule{r}, n, func(string) bool { return true }, Options{})
			got = append(got, actions(plan.Actions))
			n = plan.Node
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.mode, diff)
		}
	}
}

// Rule deletion (reference 1.9): the taint leaves the nodes that match
// now, whatever the mode or dry run; completions stay. The options fix
// #347 (nodes that stopped matching) and #374 (a dry-run rule's deletion).
func TestCleanup(t *testing.T) {
	matching := withAnn(node([]taints.Taint{cniTaint}), uidKey)
	moved := node([]taints.Taint{cniTaint})
	moved.Name, moved.Labels = "n2", map[string]string{"pool": "b"}
	bystander := node([]taints.Taint{cniTaint})
	bystander.Name, bystander.Labels = "n3", map[string]string{"pool": "c"}
	evaluated := func(n string) bool { return n != "n3" }
	removedFrom := func(p RulePlan) []string {
		var out []string
		for _, a := range p.Actions {
			if a.Kind != KindRemoveTaint || a.AnnotationKey != "" {
				t.Errorf("cleanup action %s, annotation %q", a, a.AnnotationKey)
			}
			out = append(out, a.Node)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		rule Rule
		opts Options
		want []string
	}{
		{"upstream: only the nodes that match now", deleting(cniRule(BootstrapOnly)), Options{}, []string{"n1"}},
		{"#347 fixed: also the evaluated nodes that stopped matching", deleting(cniRule(BootstrapOnly)), Options{CleanupEvaluatedNodes: true}, []string{"n1", "n2"}},
		{"upstream: a dry-run rule strips the matching taints", deleting(dryRun(cniRule(Continuous))), Options{}, []string{"n1"}},
		{"#374 fixed: a dry-run rule removes nothing", deleting(dryRun(cniRule(Continuous))), Options{KeepTaintsOnDryRunDelete: true}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := PlanRule(tc.rule, []core.Node{matching, moved, bystander}, evaluated, tc.opts)
			if diff := cmp.Diff(tc.want, removedFrom(plan)); diff != "" {
				t.Errorf("removed from (-want +got):\n%s", diff)
			}
			if _, ok := plan.Nodes[0].Annotations[uidKey]; !ok {
				t.Error("the completion annotation went with the taint")
			}
			if len(plan.Nodes[2].Taints) != 1 {
				t.Error("a node the rule never evaluated and does not match lost its taint")
			}
		})
	}
}

// A node relabelled out of the selector keeps the taint (#235) unless
// ReleaseUnmatched, on both paths.
func TestReleaseUnmatched(t *testing.T) {
	r := cniRule(Continuous)
	n := node([]taints.Taint{cniTaint}, "cni.example.com/Ready=False")
	n.Labels = map[string]string{"pool": "b"}
	seen := func(string) bool { return true }
	for _, opts := range []Options{{}, {ReleaseUnmatched: true}} {
		np := PlanNode([]Rule{r}, n, seen, opts)
		rp := PlanRule(r, []core.Node{n}, seen, opts)
		want := 1
		if opts.ReleaseUnmatched {
			want = 0
		}
		if len(np.Node.Taints) != want || len(rp.Nodes[0].Taints) != want {
			t.Errorf("ReleaseUnmatched=%v: taints left %d (node path), %d (rule path), want %d", opts.ReleaseUnmatched,
				len(np.Node.Taints), len(rp.Nodes[0].Taints), want)
		}
		if len(rp.Applied) != 0 {
			t.Errorf("applied %v, want none", rp.Applied)
		}
	}
	// a node the rule never evaluated is not released
	if p := PlanNode([]Rule{r}, n, nil, Options{ReleaseUnmatched: true}); len(p.Node.Taints) != 1 {
		t.Error("released a node the rule never evaluated")
	}
}

// #382: the rule path, on a stale view (conditions not met yet), adds the
// taint while the node path, on the fresh one (met, untainted), records
// the completion. Since v0.5.0 whichever write comes second is refused or
// deferred, so the node is never left tainted and completed; before it
// (UnguardedBootstrapWrites) both land, and the node path then skips the
// node for good with the taint on it (node_controller_test "should not mark
// bootstrap completed when the rule taints concurrently", "should not add
// the taint when bootstrap completion annotated concurrently").
func TestBootstrapRace(t *testing.T) {
	r := cniRule(BootstrapOnly)
	stale := node(nil, "cni.example.com/Ready=False")
	fresh := node(nil, "cni.example.com/Ready=True")
	add := PlanRule(r, []core.Node{stale}, nil, Options{}).Actions
	mark := PlanNode([]Rule{r}, fresh, nil, Options{}).Actions
	if len(add) != 1 || add[0].Kind != KindAddTaint || len(mark) != 1 || mark[0].Kind != KindMarkCompleted {
		t.Fatalf("plans: %v and %v", actions(add), actions(mark))
	}
	for _, tc := range []struct {
		name         string
		first, other Action
		opts         Options
		orphan       bool
	}{
		{"completion first, then the add: refused", mark[0], add[0], Options{}, false},
		{"the add first, then the completion: deferred", add[0], mark[0], Options{}, false},
		{"before v0.5.0, completion first", mark[0], add[0], Options{UnguardedBootstrapWrites: true}, true},
		{"before v0.5.0, the add first", add[0], mark[0], Options{UnguardedBootstrapWrites: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, _ := Apply(fresh, tc.first, tc.opts)
			n, _ = Apply(n, tc.other, tc.opts)
			if orphan := r.HasTaint(n) && r.Completed(n); orphan != tc.orphan {
				t.Fatalf("tainted and completed: %v, want %v", orphan, tc.orphan)
			}
			// what the next node event does with it
			next := PlanNode([]Rule{r}, n, func(string) bool { return true }, tc.opts)
			if r.HasTaint(next.Node) != tc.orphan {
				t.Errorf("after the next node event: tainted %v, want %v", r.HasTaint(next.Node), tc.orphan)
			}
		})
	}
}

// Dry runs (nodereadinessrule_controller_test.go's dry-run rows, with the
// counts worked out exactly where upstream's shared test cluster asserts
// at least one).
func TestDryRun(t *testing.T) {
	ready := cniRule(Continuous)
	ready.Conditions[0].Type = "Ready"
	tainted := []taints.Taint{cniTaint}
	named := func(n core.Node, name, pool string) core.Node {
		n.Name, n.Labels = name, map[string]string{"pool": pool}
		return n
	}
	maintenance := Rule{Name: "m", EnforcementMode: Continuous, DryRun: true,
		Conditions:   []ConditionRequirement{{Type: "MaintenanceRequired", RequiredStatus: "False", DefaultStatus: "False"}},
		Taint:        cniTaint,
		NodeSelector: ready.NodeSelector}
	for _, tc := range []struct {
		name  string
		rule  Rule
		nodes []core.Node
		want  DryRunResult
	}{
		{"conditions unmet, taint absent", ready, []core.Node{node(nil, "Ready=False")},
			DryRunResult{1, 1, 0, 0, "would add 1 taints"}},
		{"conditions met, taint present", ready, []core.Node{node(tainted, "Ready=True")},
			DryRunResult{1, 0, 1, 0, "would remove 1 taints"}},
		{"a condition missing", ready, []core.Node{node(nil)},
			DryRunResult{1, 1, 0, 1, "would add 1 taints, 1 nodes have missing conditions"}},
		{"absent condition satisfied by its default", maintenance, []core.Node{node(tainted)},
			DryRunResult{1, 0, 1, 1, "would remove 1 taints, 1 nodes have missing conditions"}},
		{"a node the selector does not match", ready, []core.Node{named(node(nil, "Ready=False"), "x", "b")},
			DryRunResult{0, 0, 0, 0, "No changes needed"}},
		{"several nodes in different branches", ready, []core.Node{
			named(node(nil, "Ready=False"), "add", "a"), named(node(tainted, "Ready=True"), "remove", "a"),
			named(node(nil), "risky", "a"), named(node(nil, "Ready=False"), "skip", "b")},
			DryRunResult{3, 2, 1, 1, "would add 2 taints, would remove 1 taints, 1 nodes have missing conditions"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, DryRun(tc.rule, tc.nodes)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			r := dryRun(tc.rule)
			plan := PlanRule(r, tc.nodes, nil, Options{})
			if plan.DryRun == nil || *plan.DryRun != tc.want || len(plan.Actions) != 0 {
				t.Errorf("PlanRule: dry run %+v, actions %v", plan.DryRun, actions(plan.Actions))
			}
		})
	}
}

// The node event filter (helper_unit_test.go TestLabelsEqual, its 8 rows
// both ways; node_controller_test.go "Helper function tests" for
// conditions and taints).
func TestNeedsEvaluation(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b map[string]string
		same bool
	}{
		{"identical labels", map[string]string{"env": "prod"}, map[string]string{"env": "prod"}, true},
		{"different value for the same key", map[string]string{"env": "prod"}, map[string]string{"env": "staging"}, false},
		{"extra key", map[string]string{"env": "prod"}, map[string]string{"env": "prod", "tier": "frontend"}, false},
		{"empty valued role label swapped for another", map[string]string{"node-role.kubernetes.io/worker": ""}, map[string]string{"node-role.kubernetes.io/infra": ""}, false},
		{"disjoint empty valued keys alongside a shared label", map[string]string{"a": "", "shared": "x"}, map[string]string{"b": "", "shared": "x"}, false},
		{"empty valued label kept unchanged", map[string]string{"node-role.kubernetes.io/worker": ""}, map[string]string{"node-role.kubernetes.io/worker": ""}, true},
		{"both nil", nil, nil, true},
		{"nil compared to empty valued label", nil, map[string]string{"node-role.kubernetes.io/worker": ""}, false},
	} {
		a, b := core.Node{Labels: tc.a}, core.Node{Labels: tc.b}
		if NeedsEvaluation(a, b) == tc.same || NeedsEvaluation(b, a) == tc.same {
			t.Errorf("labels, %s: needs evaluation %v/%v, want %v", tc.name, NeedsEvaluation(a, b), NeedsEvaluation(b, a), !tc.same)
		}
	}
	conds := func(kv ...string) core.Node { return node(nil, kv...) }
	c1 := conds("Ready=True", "NetworkReady=False")
	for _, tc := range []struct {
		name string
		b    core.Node
		same bool
	}{
		{"identical conditions", conds("Ready=True", "NetworkReady=False"), true},
		{"the same in another order", conds("NetworkReady=False", "Ready=True"), true},
		{"different status", conds("Ready=False", "NetworkReady=False"), false},
		{"different length", conds("Ready=True"), false},
	} {
		if NeedsEvaluation(c1, tc.b) == tc.same {
			t.Errorf("conditions, %s: needs evaluation %v", tc.name, !tc.same)
		}
	}
	c1.Conditions[0].Reason, c1.Conditions[0].Message = "KubeletReady", "posted"
	if NeedsEvaluation(conds("Ready=True", "NetworkReady=False"), c1) {
		t.Error("a reason and message change needs evaluation")
	}
	taint := func(key, value string, effect taints.Effect) taints.Taint {
		return taints.Taint{Key: "readiness.k8s.io/" + key, Value: value, Effect: effect}
	}
	t1 := node([]taints.Taint{taint("key1", "value1", taints.TaintEffectNoSchedule), taint("key2", "value2", taints.TaintEffectNoExecute)})
	for _, tc := range []struct {
		name string
		b    []taints.Taint
		same bool
	}{
		{"identical taints", []taints.Taint{taint("key1", "value1", taints.TaintEffectNoSchedule), taint("key2", "value2", taints.TaintEffectNoExecute)}, true},
		{"different value", []taints.Taint{taint("key1", "different", taints.TaintEffectNoSchedule), taint("key2", "value2", taints.TaintEffectNoExecute)}, false},
		{"different length", []taints.Taint{taint("key1", "value1", taints.TaintEffectNoSchedule)}, false},
	} {
		if NeedsEvaluation(t1, node(tc.b)) == tc.same {
			t.Errorf("taints, %s: needs evaluation %v", tc.name, !tc.same)
		}
	}
}

// The completion annotation (helper_unit_test.go: the UID key, the value
// as JSON, a long rule name kept whole, the legacy key; node_controller_test.go
// "isBootstrapCompleted": either key, both, none).
func TestCompletionAnnotation(t *testing.T) {
	r := Rule{Name: "my-rule", UID: "550e8400-e29b-41d4-a716-446655440000"}
	key, value := r.CompletionAnnotation()
	if key != "readiness.k8s.io/bootstrap-completed-550e8400-e29b-41d4-a716-446655440000" || value != `{"rule-name":"my-rule"}` {
		t.Errorf("annotation %q=%q", key, value)
	}
	if got := r.LegacyCompletionKey(); got != "readiness.k8s.io/bootstrap-completed-my-rule" {
		t.Errorf("legacy key %q", got)
	}
	long := Rule{Name: "my-very-long-rule-name-that-exceeds-the-63-character-annotation-key-limit-strictly", UID: "u"}
	if _, v := long.CompletionAnnotation(); !strings.Contains(v, long.Name) {
		t.Errorf("long name value %q", v)
	}
	for _, tc := range []struct {
		name string
		ann  map[string]string
		want bool
	}{
		{"no annotations", nil, false},
		{"only the UID key", map[string]string{key: value}, true},
		{"only the legacy key", map[string]string{r.LegacyCompletionKey(): "true"}, true},
		{"both", map[string]string{key: value, r.LegacyCompletionKey(): "true"}, true},
		{"another rule's", map[string]string{"readiness.k8s.io/bootstrap-completed-other": "x"}, false},
	} {
		if got := r.Completed(core.Node{Annotations: tc.ann}); got != tc.want {
			t.Errorf("%s: completed %v, want %v", tc.name, got, tc.want)
		}
	}
}
