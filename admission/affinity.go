package admission

import (
	"strconv"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/k8sname"
)

// MetadataName is the only node field a MatchFields requirement can read.
const MetadataName = "metadata.name"

// RequiredAffinityMatches reports whether n satisfies p's spec.nodeSelector
// and its required node affinity, as the kubelet decides it (through
// component-helpers' RequiredNodeAffinity):
//
//   - every nodeSelector entry must be a label of n with that value (the
//     entries are not validated);
//   - with Affinity set, n must match one of its terms (see
//     MatchNodeSelector); an Affinity without terms matches nothing.
func RequiredAffinityMatches(p *core.Pod, n *core.Node) bool {
	return affinityMatches(p, n, labelView{m: n.Labels})
}

// labelView is a node's labels as the kubelet's affinity check sees them:
// before it, the OS check writes the kubelet's OS into the kubernetes.io/os
// label of the cached Node's label map when the map is not empty, so a node
// with labels always has that label at the kubelet's value (an empty map is
// not written to).
type labelView struct {
	m  map[string]string
	os string // the kubelet's OS, or "" for the labels as they are
}

func (l labelView) get(k string) (string, bool) {
	if l.os != "" && k == LabelOS && len(l.m) > 0 {
		return l.os, true
	}
	v, ok := l.m[k]
	return v, ok
}

func affinityMatches(p *core.Pod, n *core.Node, l labelView) bool {
	for k, v := range p.NodeSelector {
		if lv, ok := l.get(k); !ok || lv != v {
			return false
		}
	}
	return p.Affinity == nil || selectorMatches(p.Affinity, n, l)
}

// MatchNodeSelector reports whether n matches one of s's terms. A term with neither
// expressions nor fields is skipped. Within a term, every MatchExpressions
// requirement must hold on n's labels and every MatchFields requirement on
// n's fields; the fields are not checked when n has no name. A term with an
// invalid requirement (see ValidRequirement, ValidFieldRequirement) never matches,
// while the other terms still can.
func MatchNodeSelector(s *core.NodeSelector, n *core.Node) bool {
	return selectorMatches(s, n, labelView{m: n.Labels})
}

func selectorMatches(s *core.NodeSelector, n *core.Node, l labelView) bool {
	for i := range s.Terms {
		t := &s.Terms[i]
		if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
			continue
		}
		if termMatches(t, n, l) {
			return true
		}
	}
	return false
}

func termMatches(t *core.NodeSelectorTerm, n *core.Node, l labelView) bool {
	for i := range t.MatchExpressions {
		if !ValidRequirement(&t.MatchExpressions[i]) {
			return false
		}
	}
	for i := range t.MatchFields {
		if !ValidFieldRequirement(&t.MatchFields[i]) {
			return false
		}
	}
	for i := range t.MatchExpressions {
		if !requirementMatches(&t.MatchExpressions[i], l) {
			return false
		}
	}
	if n.Name == "" {
		return true
	}
	for i := range t.MatchFields {
		r := &t.MatchFields[i]
		var v string
		if r.Key == MetadataName {
			v = n.Name
		}
		if (v == r.Values[0]) != (r.Operator == core.NodeSelectorOpIn) {
			return false
		}
	}
	return true
}

// ValidRequirement reports whether r is a valid label requirement, as apimachinery's
// labels.NewRequirement accepts it: a qualified-name key; one of the six
// operators; In and NotIn with at least one value, Exists and DoesNotExist
// with none, Gt and Lt with exactly one base-10 int64; every value a valid
// label value (so "-1" is refused: a label value starts alphanumeric).
func ValidRequirement(r *core.NodeSelectorRequirement) bool {
	if !k8sname.QualifiedName(r.Key) {
		return false
	}
	switch r.Operator {
	case core.NodeSelectorOpIn, core.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			return false
		}
	case core.NodeSelectorOpExists, core.NodeSelectorOpDoesNotExist:
		if len(r.Values) != 0 {
			return false
		}
	case core.NodeSelectorOpGt, core.NodeSelectorOpLt:
		if len(r.Values) != 1 {
			return false
		}
		if _, ok := parseInt(r.Values[0]); !ok {
			return false
		}
	default:
		return false
	}
	for _, v := range r.Values {
		if !k8sname.LabelValue(v) {
			return false
		}
	}
	return true
}

// ValidFieldRequirement reports whether r is a valid field requirement: In or NotIn
// with exactly one value. The key is not checked.
func ValidFieldRequirement(r *core.NodeSelectorRequirement) bool {
	return (r.Operator == core.NodeSelectorOpIn || r.Operator == core.NodeSelectorOpNotIn) && len(r.Values) == 1
}

// RequirementMatchesLabels reports whether a valid label requirement r holds on
// labels: In needs the label with one of the values; NotIn holds without
// the label or with another value; Exists and DoesNotExist test the key; Gt
// and Lt need the label's value to parse as a base-10 int64 greater (less)
// than r's. The result for an invalid r is unspecified.
func RequirementMatchesLabels(r *core.NodeSelectorRequirement, labels map[string]string) bool {
	return requirementMatches(r, labelView{m: labels})
}

func requirementMatches(r *core.NodeSelectorRequirement, l labelView) bool {
	v, ok := l.get(r.Key)
	switch r.Operator {
	case core.NodeSelectorOpIn:
		return ok && has(r.Values, v)
	case core.NodeSelectorOpNotIn:
		return !ok || !has(r.Values, v)
	case core.NodeSelectorOpExists:
		return ok
	case core.NodeSelectorOpDoesNotExist:
		return !ok
	case core.NodeSelectorOpGt, core.NodeSelectorOpLt:
		if !ok || len(r.Values) != 1 {
			return false
		}
		lv, ok1 := parseInt(v)
		rv, ok2 := parseInt(r.Values[0])
		if !ok1 || !ok2 {
			return false
		}
		if r.Operator == core.NodeSelectorOpGt {
			return lv > rv
		}
		return lv < rv
	}
	return false
}

func has(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// parseInt is strconv.ParseInt(s, 10, 64) without the error value.
func parseInt(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}
