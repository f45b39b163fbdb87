package taints

import (
	"strconv"
	"time"
)

// Effect is what a taint does to pods that do not tolerate it. The values are
// those of k8s.io/api/core/v1.TaintEffect.
type Effect string

// The taint effects the API accepts.
const (
	// TaintEffectNoSchedule keeps new pods that do not tolerate the taint off the
	// node; pods already running stay.
	TaintEffectNoSchedule Effect = "NoSchedule"
	// TaintEffectPreferNoSchedule is a soft NoSchedule: the scheduler avoids the
	// node for pods that do not tolerate the taint, but may still use it.
	TaintEffectPreferNoSchedule Effect = "PreferNoSchedule"
	// TaintEffectNoExecute evicts running pods that do not tolerate the taint
	// (after their tolerationSeconds, if any) and keeps new ones off the node.
	TaintEffectNoExecute Effect = "NoExecute"
)

// Valid reports whether e is one of the three effects the API accepts. The
// empty effect is not valid for a taint; a toleration uses it to mean "all
// effects".
func (e Effect) Valid() bool {
	switch e {
	case TaintEffectNoSchedule, TaintEffectPreferNoSchedule, TaintEffectNoExecute:
		return true
	}
	return false
}

// Operator is how a toleration compares its value with a taint's value. The
// values are those of k8s.io/api/core/v1.TolerationOperator.
type Operator string

// The toleration operators.
const (
	// TolerationOpEqual matches when the values are equal. The empty operator
	// means Equal.
	TolerationOpEqual Operator = "Equal"
	// TolerationOpExists matches any value; with an empty key it matches every
	// taint.
	TolerationOpExists Operator = "Exists"
	// TolerationOpLt matches when the taint's value is a smaller integer than
	// the toleration's (KEP-5471, alpha in Kubernetes v1.35 behind the
	// TaintTolerationComparisonOperators gate). Only a Matcher with
	// ComparisonOperators set honours it.
	TolerationOpLt Operator = "Lt"
	// TolerationOpGt matches when the taint's value is a larger integer than
	// the toleration's (KEP-5471). Only a Matcher with ComparisonOperators set
	// honours it.
	TolerationOpGt Operator = "Gt"
)

// Taint is a node taint, field for field as k8s.io/api/core/v1.Taint.
//
// Two taints are the same taint when their Key and Effect are equal; Value and
// TimeAdded are attributes of it (see MatchTaint).
type Taint struct {
	// Key is the taint key, a qualified name such as
	// "node.kubernetes.io/not-ready". Required.
	Key string
	// Value is the taint value, a label value; may be empty.
	Value string
	// Effect is what the taint does to pods that do not tolerate it. Required
	// on a node; ParseTaints leaves it empty in removals meaning "every effect".
	Effect Effect
	// TimeAdded is when the node lifecycle controller added a NoExecute taint.
	// The zero time means unset (upstream's nil pointer).
	TimeAdded time.Time
}

// Toleration is a pod toleration, field for field as
// k8s.io/api/core/v1.Toleration.
type Toleration struct {
	// Key is the taint key the toleration applies to; empty means every key,
	// which the API allows only with Operator Exists.
	Key string
	// Operator compares Value with the taint's value; empty means Equal.
	Operator Operator
	// Value is compared with the taint's value; must be empty for Exists.
	Value string
	// Effect is the taint effect the toleration applies to; empty means every
	// effect.
	Effect Effect
	// TolerationSeconds is how long a NoExecute taint is tolerated before the
	// pod is evicted; nil means forever, zero or negative means evict at once.
	// The library never writes through this pointer; copies share it.
	TolerationSeconds *int64
}

// String prints the toleration on one line: "key=value:Effect(Operator)
// for 300s", an empty key as "*" (every key), an empty effect left out
// (every effect), TolerationSeconds as its value ("for 300s") and left out
// when nil (forever).
func (t Toleration) String() string {
	s := t.Key
	if s == "" {
		s = "*"
	}
	if t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + string(t.Effect)
	}
	if t.Operator != "" {
		s += "(" + string(t.Operator) + ")"
	}
	if t.TolerationSeconds != nil {
		s += " for " + strconv.FormatInt(*t.TolerationSeconds, 10) + "s"
	}
	return s
}

// GoString is String, so that %#v (rapid's form for drawn values) shows
// TolerationSeconds as a number, not an address.
func (t Toleration) GoString() string { return t.String() }

// MatchTaint reports whether t and o are the same taint: equal Key and
// Effect. Value and TimeAdded are ignored, as upstream's Taint.MatchTaint.
func (t Taint) MatchTaint(o Taint) bool {
	return t.Key == o.Key && t.Effect == o.Effect
}

// String prints the taint in the kubectl grammar: "key=value:Effect",
// "key:Effect" when Value is empty, "key=value:" or "key" when Effect is
// empty. For every valid taint, Parse(t.String()) returns t without its
// TimeAdded.
func (t Taint) String() string {
	if t.Effect == "" {
		if t.Value == "" {
			return t.Key
		}
		return t.Key + "=" + t.Value + ":"
	}
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// MatchToleration reports whether t and o are the same toleration apart from
// TolerationSeconds: equal Key, Operator, Value and Effect, as upstream's
// Toleration.MatchToleration.
func (t Toleration) MatchToleration(o Toleration) bool {
	return t.Key == o.Key && t.Operator == o.Operator && t.Value == o.Value && t.Effect == o.Effect
}

// Equal reports whether t and o are equal in every field, comparing
// TolerationSeconds by the value it points to.
func (t Toleration) Equal(o Toleration) bool {
	if !t.MatchToleration(o) {
		return false
	}
	if t.TolerationSeconds == nil || o.TolerationSeconds == nil {
		return t.TolerationSeconds == nil && o.TolerationSeconds == nil
	}
	return *t.TolerationSeconds == *o.TolerationSeconds
}
