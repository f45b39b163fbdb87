package readiness

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// EnforcementMode is spec.enforcementMode: how long a rule keeps its taint
// in step with the node's conditions.
type EnforcementMode string

// The enforcement modes.
const (
	// BootstrapOnly gates a node until its conditions are first met: the
	// taint is removed once, a completion annotation is written, and the
	// node is not tainted again by the rule.
	BootstrapOnly EnforcementMode = "bootstrap-only"
	// Continuous keeps the taint in step with the conditions for the
	// node's whole life: removed when they are met, added back when not.
	Continuous EnforcementMode = "continuous"
)

// ConditionPolicy is spec.conditionPolicy: how the rule's conditions
// combine.
type ConditionPolicy string

// The condition policies.
const (
	// AllOf (the default, also when the field is empty) needs every
	// condition at its required status.
	AllOf ConditionPolicy = "allOf"
	// AnyOf needs at least one.
	AnyOf ConditionPolicy = "anyOf"
)

// TaintStatus is a node evaluation's taintStatus: whether the rule's taint
// (its key and effect) is on the node after the evaluation.
type TaintStatus string

// The taint statuses.
const (
	TaintPresent TaintStatus = "Present"
	TaintAbsent  TaintStatus = "Absent"
)

// Names the controller writes.
const (
	// TaintKeyPrefix is the prefix every rule's taint key must have.
	TaintKeyPrefix = "readiness.k8s.io/"
	// CompletionAnnotationPrefix starts the node annotation that records a
	// bootstrap-only rule's completion: the prefix and the rule's UID (the
	// legacy form, still honoured, has the rule's name instead).
	CompletionAnnotationPrefix = "readiness.k8s.io/bootstrap-completed-"
	// Finalizer is the finalizer the controller puts on every rule, so that
	// a deleted rule's taints are removed before it goes.
	Finalizer = "readiness.node.x-k8s.io/cleanup-taints"
)

// ConditionRequirement is one of spec.conditions: a node condition type,
// the status that satisfies it, and the status it is taken to have when
// the node does not report it.
type ConditionRequirement struct {
	// Type is the node condition type (1-316 characters); any string, not
	// only the kubelet's.
	Type conditions.Type
	// RequiredStatus is True, False or Unknown.
	RequiredStatus conditions.Status
	// DefaultStatus is True, False or Unknown, or empty for Unknown.
	DefaultStatus conditions.Status
}

// Default returns the requirement's effective default status: DefaultStatus,
// or Unknown when it is empty.
func (c ConditionRequirement) Default() conditions.Status {
	if c.DefaultStatus == "" {
		return conditions.Unknown
	}
	return c.DefaultStatus
}

// Rule is a NodeReadinessRule (readiness.node.x-k8s.io/v1alpha1): the
// metadata the controller reads and the spec, field for field.
type Rule struct {
	// Name and UID are metadata.name and metadata.uid. The UID names the
	// completion annotation of a bootstrap-only rule.
	Name, UID string
	// Deleting says metadata.deletionTimestamp is set: the rule's taint is
	// being cleaned up (Cleanup) and the rule evaluates nothing more.
	Deleting bool
	// Conditions are spec.conditions, 1 to 32 of them, each type once.
	Conditions []ConditionRequirement
	// EnforcementMode is spec.enforcementMode.
	EnforcementMode EnforcementMode
	// Taint is spec.taint: added to nodes verbatim (TimeAdded included when
	// set), matched and removed by key and effect whatever the value.
	Taint taints.Taint
	// NodeSelector is spec.nodeSelector, the nodes the rule applies to.
	NodeSelector metav1.LabelSelector
	// ConditionPolicy is spec.conditionPolicy; empty means AllOf.
	ConditionPolicy ConditionPolicy
	// DryRun is spec.dryRun: the rule reports what it would do
	// (DryRun) and changes nothing.
	DryRun bool
}

// Policy returns the rule's effective condition policy: ConditionPolicy,
// or AllOf when it is empty.
func (r Rule) Policy() ConditionPolicy {
	if r.ConditionPolicy == "" {
		return AllOf
	}
	return r.ConditionPolicy
}

// CompletionAnnotation returns the key and value of the annotation that
// records the rule's bootstrap completion on a node: the prefix and the
// rule's UID, and {"rule-name":"<name>"}.
func (r Rule) CompletionAnnotation() (key, value string) {
	b, _ := json.Marshal(struct {
		RuleName string `json:"rule-name"`
	}{r.Name}) // a struct of one string always marshals
	return CompletionAnnotationPrefix + r.UID, string(b)
}

// LegacyCompletionKey returns the completion annotation key of releases
// before the UID form: the prefix and the rule's name. It is still read,
// never written.
func (r Rule) LegacyCompletionKey() string { return CompletionAnnotationPrefix + r.Name }

// Completed reports whether n carries the rule's completion annotation,
// in either form.
func (r Rule) Completed(n core.Node) bool {
	key, _ := r.CompletionAnnotation()
	_, uid := n.Annotations[key]
	_, legacy := n.Annotations[r.LegacyCompletionKey()]
	return uid || legacy
}

// HasTaint reports whether n has the rule's taint: a taint with its key and
// effect, whatever the value.
func (r Rule) HasTaint(n core.Node) bool {
	for _, t := range n.Taints {
		if t.Key == r.Taint.Key && t.Effect == r.Taint.Effect {
			return true
		}
	}
	return false
}
