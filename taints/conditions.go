package taints

import (
	"time"

	"github.com/nodelife/nodelife/conditions"
)

// conditionTaint is one row of the node lifecycle controller's condition to
// NoSchedule taint table.
type conditionTaint struct {
	t      conditions.Type
	status conditions.Status
	key    string
}

var conditionTaints = [...]conditionTaint{
	{conditions.Ready, conditions.False, TaintNodeNotReady},
	{conditions.Ready, conditions.Unknown, TaintNodeUnreachable},
	{conditions.MemoryPressure, conditions.True, TaintNodeMemoryPressure},
	{conditions.DiskPressure, conditions.True, TaintNodeDiskPressure},
	{conditions.NetworkUnavailable, conditions.True, TaintNodeNetworkUnavailable},
	{conditions.PIDPressure, conditions.True, TaintNodePIDPressure},
}

// FromConditions returns the NoSchedule taints the node lifecycle controller
// wants on a node with these conditions (doNoScheduleTaintingPass):
//
//	Ready False               node.kubernetes.io/not-ready
//	Ready Unknown             node.kubernetes.io/unreachable
//	MemoryPressure True       node.kubernetes.io/memory-pressure
//	DiskPressure True         node.kubernetes.io/disk-pressure
//	NetworkUnavailable True   node.kubernetes.io/network-unavailable
//	PIDPressure True          node.kubernetes.io/pid-pressure
//	spec.unschedulable        node.kubernetes.io/unschedulable
//
// Taints come in the order of conds, then unschedulable; values are empty
// and TimeAdded is zero. Other condition types and statuses give no taint.
func FromConditions(conds []conditions.Condition, unschedulable bool) []Taint {
	var out []Taint
	for _, c := range conds {
		for _, row := range conditionTaints {
			if c.Type == row.t && c.Status == row.status {
				out = append(out, Taint{Key: row.key, Effect: TaintEffectNoSchedule})
			}
		}
	}
	if unschedulable {
		out = append(out, Taint{Key: TaintNodeUnschedulable, Effect: TaintEffectNoSchedule})
	}
	return out
}

// IsConditionTaint reports whether t is one the condition pass manages: a
// NoSchedule taint with one of the keys of FromConditions.
func IsConditionTaint(t Taint) bool {
	if t.Effect != TaintEffectNoSchedule {
		return false
	}
	if t.Key == TaintNodeUnschedulable {
		return true
	}
	for _, row := range conditionTaints {
		if row.key == t.Key {
			return true
		}
	}
	return false
}

// ReconcileConditionTaints returns what the node lifecycle controller changes
// on a node: the condition taints to add (TimeAdded = now, as
// SwapNodeControllerTaint sets it) and the ones to remove. Only NoSchedule
// taints with the keys of FromConditions are compared, by key and effect;
// every other taint of the node is left alone. Both lists are nil when the
// node's taints already match.
func ReconcileConditionTaints(now time.Time, nodeTaints []Taint, conds []conditions.Condition, unschedulable bool) (add, remove []Taint) {
	want := FromConditions(conds, unschedulable)
	have := Filter(nodeTaints, IsConditionTaint)
	add, remove = Diff(have, want)
	for i := range add {
		add[i].TimeAdded = now
	}
	return add, remove
}
