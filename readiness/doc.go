// Package readiness plans node readiness rules: the readiness a node's
// Ready condition does not cover (the CNI agent, a GPU driver, a storage
// plugin up), as the Node Readiness Controller
// (kubernetes-sigs/node-readiness-controller, v0.5.0) enforces it with
// NodeReadinessRule objects. A rule names node conditions and the status
// each must have, a readiness.k8s.io/ taint, the nodes it applies to, and
// whether it gates a node only until its first success (bootstrap-only) or
// for its whole life (continuous). The package decides; the caller reads
// the nodes and rules and writes the plans' actions.
//
// # Usage
//
//	rule := readiness.Rule{Name: "cni", UID: "8d0c…", EnforcementMode: readiness.Continuous,
//		Conditions: []readiness.ConditionRequirement{{Type: "cni.example.com/Ready", RequiredStatus: conditions.True}},
//		Taint:        taints.Taint{Key: "readiness.k8s.io/cni", Effect: taints.TaintEffectNoSchedule},
//		NodeSelector: metav1.LabelSelector{MatchLabels: map[string]string{"pool": "gpu"}}}
//	if err := rule.Validate(); err != nil { ... }           // the API server's checks
//	plan := readiness.PlanNode(rules, node, evaluated, readiness.Options{})
//	for _, a := range plan.Actions { ... }                   // patch the node, record the event
//
// PlanNode is a node event (every matching rule evaluated on the node),
// PlanRule a rule event (the rule on every node it matches), Cleanup a
// deleted rule's taint removal, DryRun a dry-run rule's report, Apply one
// action written on the node as it is read just before the write, and
// NeedsEvaluation the controller's filter of node updates.
// WebhookCreate and WebhookUpdate are the controller's admission webhook
// (selector overlap: NodeSelectorsOverlap).
//
// # Semantics
//
// A node is a core.Node, of which the rules read the Name, the Labels
// (selectors), the Annotations (where completions are kept), the Taints
// and the Conditions (Type and Status only, the first condition of a type
// counting).
//
// A rule applies to a node its selector matches (a selector that does not
// parse matches none; an empty one every node). Each condition is taken at
// the node's status for its type, or at its default (Unknown when unset)
// when the node does not report it; the conditions are met when all of
// them (allOf, the default) or one of them (anyOf) have the required
// status. The evaluation reports a missing condition as Unknown, even when
// its default satisfies the rule. The taint is the rule's: added verbatim,
// found and removed by key and effect whatever its value. Then:
//
//	met  taint  continuous                 bootstrap-only
//	yes  yes    remove (TaintRemoved)      remove and annotate completion, one patch
//	no   no     add (TaintAdded)           add, unless the node carries the completion
//	no   yes    keep; on the rule's first  same
//	            evaluation of the node,
//	            adopt it (TaintAdopted)
//	yes  no     nothing                    annotate completion (an already-healthy
//	                                       node is grandfathered), deferred while
//	                                       the taint is on the node
//
// The completion annotation is readiness.k8s.io/bootstrap-completed-<rule
// UID> with value {"rule-name":"<name>"}; the legacy key with the rule's
// name is honoured, never written, and a completion is never removed. On a
// node event a completed bootstrap-only rule is skipped entirely (its taint,
// if someone puts it back, stays), as are rules being deleted and dry-run
// rules; on a rule event every matching node is evaluated (a completed
// node's put-back taint is removed when the conditions are met). A deleted
// rule's taint is removed from the nodes it matches, whatever its mode;
// completions stay. A dry run counts the matching nodes, the taints it
// would add and remove, and the nodes missing a condition, with the
// controller's summary text. Rules are immutable but for dryRun.
//
// Where this package and the controller can differ: the controller visits
// its rules in map order on a node event (here by name), and it retries
// writes on conflicts (here Apply is that last, successful try); its
// metrics and status bookkeeping of failed writes are not modelled.
//
// Upstream's known bugs are its behaviour by default and their fixes
// options (Options): a node relabelled out of a rule's selector keeps the
// taint (#235, ReleaseUnmatched); a deleted rule does not clean up nodes
// that stopped matching (#347, CleanupEvaluatedNodes); deleting a dry-run
// rule removes matching taints it never added (#374,
// KeepTaintsOnDryRunDelete); and releases before v0.5.0 could orphan a
// bootstrap taint next to its completion (#382, UnguardedBootstrapWrites
// reproduces it in Apply).
//
// # Interaction with the node lifecycle
//
// The readiness taints are the rules' alone: the node lifecycle
// controller's not-ready and unreachable taints coexist with them, and a
// rule may itself require Ready=True, so a node the lifecycle controller
// marks Unknown is tainted by such a continuous rule as well. A NoExecute
// readiness taint evicts through the taint eviction planner like any other
// (the default tolerations do not cover readiness.k8s.io/ keys); zone
// disruption reads Ready only and never sees readiness taints.
//
// # Tests ported from upstream
//
// The table tests name the upstream test each row comes from:
// internal/controller/node_controller_test.go (bootstrap-only and
// continuous reconciles, selector mismatch, deletion, the optimistic-lock
// cases, completion in either key form), nodereadinessrule_controller_test.go
// (dry runs, the problem-gate default, condition policies, bootstrap
// completion), internal/webhook/nodereadinessgaterule_webhook_test.go
// (selector overlap, conflicts, NoExecute warnings, spec checks) and
// test/e2e/taint_validation_test.go (the CEL taint key rules).
package readiness
