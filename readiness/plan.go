package readiness

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// ConditionResult is one of a node evaluation's conditionResults, as the
// controller reports it.
type ConditionResult struct {
	Type conditions.Type
	// CurrentStatus is the node's status for Type, Unknown when the node
	// does not report it (even when the default satisfies the rule).
	CurrentStatus  conditions.Status
	RequiredStatus conditions.Status
	// DefaultStatus is the effective default (Unknown when unset).
	DefaultStatus conditions.Status
}

// Evaluation is a rule's verdict on one node: a nodeEvaluations entry of
// the rule's status, with what decided it.
type Evaluation struct {
	Rule, Node string
	// Results are the conditions' results in spec order.
	Results []ConditionResult
	// Met says the conditions are met under the rule's policy, each
	// condition taken at the node's status or, when missing, its default.
	Met bool
	// Missing counts the conditions the node does not report.
	Missing int
	// TaintStatus is whether the rule's taint is on the node after the
	// evaluation's actions.
	TaintStatus TaintStatus
}

// Evaluate returns r's verdict on n before any action: the conditions'
// results, whether they are met, and the taint as n has it.
func Evaluate(r Rule, n core.Node) Evaluation {
	e := Evaluation{Rule: r.Name, Node: n.Name, Results: make([]ConditionResult, len(r.Conditions)), TaintStatus: TaintAbsent}
	all, anyMet := true, false
	for i, req := range r.Conditions {
		current, found := conditions.Find(n.Conditions, req.Type)
		effective := current.Status
		if !found {
			effective = req.Default()
			e.Missing++
		}
		if effective == req.RequiredStatus {
			anyMet = true
		} else {
			all = false
		}
		observed := effective
		if !found {
			observed = conditions.Unknown
		}
		e.Results[i] = ConditionResult{Type: req.Type, CurrentStatus: observed, RequiredStatus: req.RequiredStatus, DefaultStatus: req.Default()}
	}
	e.Met = all
	if r.Policy() == AnyOf {
		e.Met = anyMet
	}
	if r.HasTaint(n) {
		e.TaintStatus = TaintPresent
	}
	return e
}

// ActionKind is the kind of a node write (or event) a plan asks for.
type ActionKind string

// The action kinds.
const (
	// KindAddTaint appends the rule's taint to the node's taints.
	KindAddTaint ActionKind = "AddTaint"
	// KindRemoveTaint removes every taint with the rule's key and effect,
	// and, for a bootstrap-only rule, writes its completion annotation in
	// the same patch.
	KindRemoveTaint ActionKind = "RemoveTaint"
	// KindMarkCompleted writes a bootstrap-only rule's completion
	// annotation on a node that met its conditions without the taint.
	KindMarkCompleted ActionKind = "MarkCompleted"
	// KindAdoptTaint writes nothing: the rule's first evaluation of the
	// node found its taint already there, and records an event.
	KindAdoptTaint ActionKind = "AdoptTaint"
)

// Event reasons and the other Reasons of the actions.
const (
	ReasonTaintAdded   = "TaintAdded"
	ReasonTaintRemoved = "TaintRemoved"
	ReasonTaintAdopted = "TaintAdopted"
	// ReasonBootstrapCompleted is a KindMarkCompleted action's Reason (the
	// controller logs it; no event).
	ReasonBootstrapCompleted = "BootstrapCompleted"
)

// Action is one node write (or event) of a plan.
type Action struct {
	Kind       ActionKind
	Rule, Node string
	// Taint is the rule's taint (added verbatim; removed by key and effect).
	Taint taints.Taint
	// AnnotationKey and AnnotationValue are a bootstrap-only rule's
	// completion annotation, written by a removal or a completion when it is
	// not on the node yet; empty for a continuous rule. An add of a
	// bootstrap-only rule has the key and LegacyAnnotationKey, its value
	// empty: the add is refused on a node with either.
	AnnotationKey, AnnotationValue string
	LegacyAnnotationKey            string
	// Reason is the event's reason (ReasonTaintAdded, ReasonTaintRemoved,
	// ReasonTaintAdopted) or ReasonBootstrapCompleted; Message is the
	// event's message, as the controller writes it.
	Reason, Message string
}

// String returns a one-line form of a: kind, node, taint and message.
func (a Action) String() string {
	return fmt.Sprintf("%s %s %s:%s (rule %s): %s", a.Kind, a.Node, a.Taint.Key, a.Taint.Effect, a.Rule, a.Message)
}

// Options select upstream's known bugs' fixes. The zero value is the
// controller as released (v0.5.0).
type Options struct {
	// ReleaseUnmatched removes a rule's taint from a node that no longer
	// matches the rule's selector but that the rule evaluated before. The
	// controller leaves it there (node-readiness-controller#235, open).
	ReleaseUnmatched bool
	// CleanupEvaluatedNodes makes a deleted rule's cleanup also remove its
	// taint from the nodes it evaluated before that no longer match its
	// selector. The controller cleans up only the nodes that match now
	// (node-readiness-controller#347).
	CleanupEvaluatedNodes bool
	// KeepTaintsOnDryRunDelete makes the deletion of a dry-run rule remove
	// nothing (it never added a taint). The controller removes the matching
	// taints from every node that matches, even ones it did not add
	// (node-readiness-controller#374, open).
	KeepTaintsOnDryRunDelete bool
	// UnguardedBootstrapWrites applies the writes as releases before v0.5.0
	// did: a taint is added to a node that already carries the rule's
	// completion annotation, and the annotation is written on a node that
	// has the taint. Two plans made from different views of one node, then
	// applied, can then leave a completed node tainted for good
	// (node-readiness-controller#382, fixed by #417 in v0.5.0); with it,
	// Apply reproduces that orphaned taint for what-ifs.
	UnguardedBootstrapWrites bool
}

// Apply writes a onto n as the controller's optimistic-lock patch does on
// the node it reads just before writing, and reports whether it changed n:
// an add is skipped when the taint is there (or, for a bootstrap-only rule,
// when the completion annotation is, in either form); a removal is skipped
// when neither the taint nor a missing annotation is left to write; a
// completion is skipped when its annotation is there, and deferred (skipped)
// while the taint is on the node. n is not modified.
func Apply(n core.Node, a Action, opts Options) (core.Node, bool) {
	hasTaint := false
	for _, t := range n.Taints {
		if t.Key == a.Taint.Key && t.Effect == a.Taint.Effect {
			hasTaint = true
			break
		}
	}
	_, annotated := n.Annotations[a.AnnotationKey]
	switch a.Kind {
	case KindAddTaint:
		if hasTaint {
			return n, false
		}
		if a.AnnotationKey != "" && !opts.UnguardedBootstrapWrites {
			if _, legacy := n.Annotations[a.LegacyAnnotationKey]; annotated || legacy {
				return n, false
			}
		}
		n.Taints = append(slices.Clip(n.Taints), a.Taint)
		return n, true
	case KindRemoveTaint:
		missing := a.AnnotationKey != "" && !annotated
		if !hasTaint && !missing {
			return n, false
		}
		if hasTaint {
			n.Taints = removeTaint(n.Taints, a.Taint)
		}
		if missing {
			n.Annotations = withAnnotation(n.Annotations, a.AnnotationKey, a.AnnotationValue)
		}
		return n, true
	case KindMarkCompleted:
		if annotated || (hasTaint && !opts.UnguardedBootstrapWrites) {
			return n, false
		}
		n.Annotations = withAnnotation(n.Annotations, a.AnnotationKey, a.AnnotationValue)
		return n, true
	}
	return n, false
}

// removeTaint returns ts without the taints of t's key and effect, in a new
// slice.
func removeTaint(ts []taints.Taint, t taints.Taint) []taints.Taint {
	out := make([]taints.Taint, 0, len(ts))
	for _, x := range ts {
		if x.Key != t.Key || x.Effect != t.Effect {
			out = append(out, x)
		}
	}
	return out
}

// withAnnotation returns a copy of m with key set to value.
func withAnnotation(m map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[key] = value
	return out
}

// selector is a rule's compiled node selector; nil when it does not parse
// (the rule then applies to no node, as upstream).
type selector struct{ s labels.Selector }

func compile(r Rule) selector {
	s, err := metav1.LabelSelectorAsSelector(&r.NodeSelector)
	if err != nil {
		return selector{}
	}
	return selector{s}
}

func (s selector) matches(n core.Node) bool { return s.s != nil && s.s.Matches(labels.Set(n.Labels)) }

// Applies reports whether r's node selector matches n. A selector that
// does not parse matches no node; an empty one matches every node.
func (r Rule) Applies(n core.Node) bool { return compile(r).matches(n) }

// event returns the action of kind k for r on n with its event text.
func event(k ActionKind, r Rule, n core.Node) Action {
	a := Action{Kind: k, Rule: r.Name, Node: n.Name, Taint: r.Taint}
	verb := ""
	switch k {
	case KindAddTaint:
		a.Reason, verb = ReasonTaintAdded, "added by"
	case KindRemoveTaint:
		a.Reason, verb = ReasonTaintRemoved, "removed by"
	case KindAdoptTaint:
		a.Reason, verb = ReasonTaintAdopted, "is now managed by"
	case KindMarkCompleted:
		a.Reason = ReasonBootstrapCompleted
		a.Message = fmt.Sprintf("bootstrap of rule '%s' completed on node %s", r.Name, n.Name)
	}
	if verb != "" {
		a.Message = fmt.Sprintf("Taint '%s:%s' %s rule '%s'", r.Taint.Key, r.Taint.Effect, verb, r.Name)
	}
	if r.EnforcementMode == BootstrapOnly && k != KindAdoptTaint {
		a.AnnotationKey, a.AnnotationValue = r.CompletionAnnotation()
		if k == KindAddTaint {
			a.AnnotationValue, a.LegacyAnnotationKey = "", r.LegacyCompletionKey()
		}
	}
	return a
}

// evaluate runs r on n as the controller's evaluateRuleForNode: the
// conditions decide, the taint is added, removed (with the completion of a
// bootstrap-only rule), adopted on the rule's first evaluation of the node,
// or, for a bootstrap-only rule met without its taint, the completion is
// recorded. It returns n after the actions, the evaluation and the actions
// that change n or record an event.
func evaluate(r Rule, n core.Node, first bool, opts Options) (core.Node, Evaluation, []Action) {
	e := Evaluate(r, n)
	hasTaint := e.TaintStatus == TaintPresent
	var a Action
	switch {
	case e.Met && hasTaint:
		a = event(KindRemoveTaint, r, n)
	case !e.Met && !hasTaint:
		a = event(KindAddTaint, r, n)
	case !e.Met && hasTaint:
		if !first {
			return n, e, nil
		}
		return n, e, []Action{event(KindAdoptTaint, r, n)}
	case r.EnforcementMode == BootstrapOnly:
		a = event(KindMarkCompleted, r, n)
	default:
		return n, e, nil
	}
	n, changed := Apply(n, a, opts)
	if !changed {
		return n, e, nil
	}
	e.TaintStatus = TaintAbsent
	if r.HasTaint(n) {
		e.TaintStatus = TaintPresent
	}
	return n, e, []Action{a}
}

// Skip says why a rule that matches a node was not evaluated on it.
type Skip struct {
	Rule string
	// Reason is "Deleting", "BootstrapCompleted" or "DryRun".
	Reason string
}

// NodePlan is what the controller does to one node on a node event.
type NodePlan struct {
	// Node is the node after the actions.
	Node core.Node
	// Actions are the writes and events, rule by rule.
	Actions []Action
	// Evaluations are the verdicts of the rules evaluated on the node (the
	// node's entry in each one's status).
	Evaluations []Evaluation
	// Skipped are the matching rules that were not evaluated, and why.
	Skipped []Skip
}

// PlanNode is the controller's node reconcile: every rule whose selector
// matches n is evaluated on n in turn (see Evaluate and the package
// documentation's decision table), each seeing n as the rules before it
// left it; a rule being deleted, a bootstrap-only rule whose completion
// annotation (either form) is on n, and a dry-run rule are skipped.
// evaluatedBefore(rule) says whether the rule's status already holds an
// evaluation of n (nil: none does): a first evaluation adopts a taint it
// finds. The rules are taken in name order (upstream's rule cache is a map,
// visited in random order; rules with distinct taints do not interact).
// With opts.ReleaseUnmatched a rule that no longer matches n but evaluated
// it before removes its taint. Inputs are not modified.
func PlanNode(rules []Rule, n core.Node, evaluatedBefore func(rule string) bool, opts Options) NodePlan {
	order := slices.Clone(rules)
	slices.SortStableFunc(order, func(a, b Rule) int { return strings.Compare(a.Name, b.Name) })
	plan := NodePlan{Node: n}
	for _, r := range order {
		first := evaluatedBefore == nil || !evaluatedBefore(r.Name)
		if !r.Applies(plan.Node) {
			if opts.ReleaseUnmatched && !first && !r.Deleting && !r.DryRun {
				plan.Node, plan.Actions = release(r, plan.Node, plan.Actions, opts)
			}
			continue
		}
		switch {
		case r.Deleting:
			plan.Skipped = append(plan.Skipped, Skip{r.Name, "Deleting"})
			continue
		case r.EnforcementMode == BootstrapOnly && r.Completed(plan.Node):
			plan.Skipped = append(plan.Skipped, Skip{r.Name, "BootstrapCompleted"})
			continue
		case r.DryRun:
			plan.Skipped = append(plan.Skipped, Skip{r.Name, "DryRun"})
			continue
		}
		var e Evaluation
		var acts []Action
		plan.Node, e, acts = evaluate(r, plan.Node, first, opts)
		plan.Actions = append(plan.Actions, acts...)
		plan.Evaluations = append(plan.Evaluations, e)
	}
	return plan
}

// release removes r's taint from n (no completion annotation), appending
// the action to acts when it changed n.
func release(r Rule, n core.Node, acts []Action, opts Options) (core.Node, []Action) {
	a := event(KindRemoveTaint, r, n)
	a.AnnotationKey, a.AnnotationValue = "", ""
	n, changed := Apply(n, a, opts)
	if changed {
		acts = append(acts, a)
	}
	return n, acts
}

// DryRunResult is a dry-run rule's status.dryRunResults.
type DryRunResult struct {
	// AffectedNodes counts the nodes the selector matches; TaintsToAdd
	// those whose conditions are not met and that lack the taint;
	// TaintsToRemove those met that have it; RiskyOperations those that
	// do not report every condition (even when a default satisfies it).
	AffectedNodes, TaintsToAdd, TaintsToRemove, RiskyOperations int32
	// Summary is the controller's text: "would add N taints", "would
	// remove N taints" and "N nodes have missing conditions", the non-zero
	// ones joined by ", ", or "No changes needed".
	Summary string
}

// DryRun returns what r would do to nodes, as the controller reports a
// dry-run rule: every matching node is evaluated whatever the rule's mode
// and completion annotations; nothing is written.
func DryRun(r Rule, nodes []core.Node) DryRunResult {
	var out DryRunResult
	sel := compile(r)
	for _, n := range nodes {
		if !sel.matches(n) {
			continue
		}
		out.AffectedNodes++
		e := Evaluate(r, n)
		switch has := e.TaintStatus == TaintPresent; {
		case e.Met && has:
			out.TaintsToRemove++
		case !e.Met && !has:
			out.TaintsToAdd++
		}
		if e.Missing > 0 {
			out.RiskyOperations++
		}
	}
	var parts []string
	if out.TaintsToAdd > 0 {
		parts = append(parts, fmt.Sprintf("would add %d taints", out.TaintsToAdd))
	}
	if out.TaintsToRemove > 0 {
		parts = append(parts, fmt.Sprintf("would remove %d taints", out.TaintsToRemove))
	}
	if out.RiskyOperations > 0 {
		parts = append(parts, fmt.Sprintf("%d nodes have missing conditions", out.RiskyOperations))
	}
	out.Summary = "No changes needed"
	if len(parts) > 0 {
		out.Summary = strings.Join(parts, ", ")
	}
	return out
}

// RulePlan is what the controller does on a rule event.
type RulePlan struct {
	// Nodes are the nodes after the actions, in the order given.
	Nodes []core.Node
	// Actions are the writes and events, node by node.
	Actions []Action
	// Evaluations are the rule's verdicts on the nodes it evaluated (its
	// status.nodeEvaluations entries for them).
	Evaluations []Evaluation
	// Applied are the names of the nodes evaluated (status.appliedNodes).
	Applied []string
	// DryRun is set for a dry-run rule (status.dryRunResults).
	DryRun *DryRunResult
}

// PlanRule is the controller's rule reconcile over nodes: a rule being
// deleted is cleaned up (Cleanup); a dry-run rule is reported (DryRun);
// any other rule is evaluated on every node its selector matches, with no
// check of a completion annotation first (a completed node whose taint
// someone put back, and whose conditions are met, loses it again; its add
// is still refused). evaluatedBefore(node) says whether the rule's status
// holds an evaluation of the node (nil: none does). With
// opts.ReleaseUnmatched the nodes it no longer matches but evaluated before
// lose its taint. Inputs are not modified.
func PlanRule(r Rule, nodes []core.Node, evaluatedBefore func(node string) bool, opts Options) RulePlan {
	if r.Deleting {
		return Cleanup(r, nodes, evaluatedBefore, opts)
	}
	plan := RulePlan{Nodes: slices.Clone(nodes)}
	if r.DryRun {
		dr := DryRun(r, nodes)
		plan.DryRun = &dr
		return plan
	}
	sel := compile(r)
	for i := range plan.Nodes {
		first := evaluatedBefore == nil || !evaluatedBefore(plan.Nodes[i].Name)
		if !sel.matches(plan.Nodes[i]) {
			if opts.ReleaseUnmatched && !first {
				plan.Nodes[i], plan.Actions = release(r, plan.Nodes[i], plan.Actions, opts)
			}
			continue
		}
		var e Evaluation
		var acts []Action
		plan.Nodes[i], e, acts = evaluate(r, plan.Nodes[i], first, opts)
		plan.Actions = append(plan.Actions, acts...)
		plan.Evaluations = append(plan.Evaluations, e)
		plan.Applied = append(plan.Applied, plan.Nodes[i].Name)
	}
	return plan
}

// Cleanup is a deleted rule's taint cleanup: its taint (key and effect,
// any value) is removed from every node its selector matches, whatever the
// rule's mode, completion annotations or dry run; completion annotations
// stay. With opts.CleanupEvaluatedNodes also from the nodes it evaluated
// before (evaluatedBefore) that no longer match; with
// opts.KeepTaintsOnDryRunDelete a dry-run rule removes nothing.
func Cleanup(r Rule, nodes []core.Node, evaluatedBefore func(node string) bool, opts Options) RulePlan {
	plan := RulePlan{Nodes: slices.Clone(nodes)}
	if r.DryRun && opts.KeepTaintsOnDryRunDelete {
		return plan
	}
	sel := compile(r)
	for i := range plan.Nodes {
		n := plan.Nodes[i]
		if sel.matches(n) || (opts.CleanupEvaluatedNodes && evaluatedBefore != nil && evaluatedBefore(n.Name)) {
			plan.Nodes[i], plan.Actions = release(r, n, plan.Actions, opts)
		}
	}
	return plan
}

// NeedsEvaluation reports whether a node update from old to n makes the
// controller evaluate the node again (its node event filter): a change of
// the conditions (as type to status, ignoring heartbeats, reasons and
// messages, and order), of the taints (as key and effect to value), or of
// the labels. A created node is always evaluated.
func NeedsEvaluation(old, n core.Node) bool {
	return !sameConditions(old.Conditions, n.Conditions) || !sameTaints(old.Taints, n.Taints) || !maps.Equal(old.Labels, n.Labels)
}

func sameConditions(a, b []conditions.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	byType := make(map[conditions.Type]conditions.Status, len(a))
	for _, c := range a {
		byType[c.Type] = c.Status
	}
	for _, c := range b {
		if s, ok := byType[c.Type]; !ok || s != c.Status {
			return false
		}
	}
	return true
}

func sameTaints(a, b []taints.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	type keyEffect struct {
		key    string
		effect taints.Effect
	}
	byKey := make(map[keyEffect]string, len(a))
	for _, t := range a {
		byKey[keyEffect{t.Key, t.Effect}] = t.Value
	}
	for _, t := range b {
		if v, ok := byKey[keyEffect{t.Key, t.Effect}]; !ok || v != t.Value {
			return false
		}
	}
	return true
}
