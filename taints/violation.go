package taints

// ViolationFilter is the descheduler's RemovePodsViolatingNodeTaints plugin
// (kubernetes-sigs/descheduler, pkg/framework/plugins/
// removepodsviolatingnodetaints), its taint part: which of a node's taints
// a running pod must tolerate to stay, under the plugin's arguments. The
// scheduler honours NoSchedule taints only when it places a pod; the
// plugin evicts the pods that a NoSchedule taint added later would have
// kept off the node. The pod filters of the descheduler's evictor
// (namespaces, priorities, owners, eviction limits) are not part of it.
type ViolationFilter struct {
	// IncludePreferNoSchedule also counts PreferNoSchedule taints
	// (includePreferNoSchedule); off, NoSchedule taints only. NoExecute
	// taints never count: the taint eviction controller handles them.
	IncludePreferNoSchedule bool
	// ExcludedTaints are taints that never count, each a key ("dedicated")
	// or a key and value ("dedicated=db"), matched against a taint's key
	// and, for a taint with a value, its key=value (excludedTaints).
	ExcludedTaints []string
	// IncludedTaints, when not nil, are the only taints that count, in the
	// same form (includedTaints). nil counts every taint; an empty,
	// non-nil list counts none, as the plugin reads it.
	IncludedTaints []string
}

// Counts reports whether t is a taint f holds pods to.
func (f ViolationFilter) Counts(t Taint) bool {
	if t.Effect != TaintEffectNoSchedule && (!f.IncludePreferNoSchedule || t.Effect != TaintEffectPreferNoSchedule) {
		return false
	}
	if named(f.ExcludedTaints, t) {
		return false
	}
	return f.IncludedTaints == nil || named(f.IncludedTaints, t)
}

// named reports whether t's key, or its key=value when it has a value, is
// in names.
func named(names []string, t Taint) bool {
	for _, n := range names {
		if n == t.Key {
			return true
		}
		if t.Value != "" && len(n) == len(t.Key)+1+len(t.Value) && n[:len(t.Key)] == t.Key && n[len(t.Key)] == '=' && n[len(t.Key)+1:] == t.Value {
			return true
		}
	}
	return false
}

// Violation returns the first of nodeTaints that f counts and that no
// toleration of tols tolerates: the taint a running pod with tols violates
// on the node, for which the plugin evicts it. ok is false when the pod
// violates none. It allocates nothing.
func (f ViolationFilter) Violation(tols []Toleration, nodeTaints []Taint) (t Taint, ok bool) {
	return findUntolerated(nodeTaints, tols, f.Counts, false)
}
