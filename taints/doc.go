// Package taints implements node taints and pod tolerations as Kubernetes
// defines them: matching a toleration against a taint, parsing and printing
// the taint grammar of `kubectl taint` and the kubelet's
// --register-with-taints flag, API validation, set operations keyed by
// (key, effect), and the well-known taint keys and default tolerations.
//
// The types mirror k8s.io/api/core/v1 field for field and value for value, so
// converting from the real API objects is a field copy; the package itself
// does not import k8s.io/api.
//
// # Usage
//
// Matching, as the scheduler and the taint-eviction controller do it:
//
//	tol := taints.Toleration{Key: "dedicated", Operator: taints.TolerationOpEqual, Value: "gpu", Effect: taints.TaintEffectNoSchedule}
//	tol.ToleratesTaint(&taints.Taint{Key: "dedicated", Value: "gpu", Effect: taints.TaintEffectNoSchedule}) // true
//
//	untolerated, found := taints.FindMatchingUntoleratedTaint(nodeTaints, podTolerations,
//		func(t taints.Taint) bool { return t.Effect == taints.TaintEffectNoExecute })
//
// Parsing, as `kubectl taint nodes n1 dedicated=gpu:NoSchedule gone-` does it:
//
//	add, remove, err := taints.ParseTaints([]string{"dedicated=gpu:NoSchedule", "gone-"})
//	next := taints.Apply(node.Taints, add, remove)
//
// Callers should:
//
//  1. validate what they did not parse themselves (Taint.Validate,
//     ValidateTaints, Toleration.Validate) before trusting it, since matching
//     does not validate;
//  2. use a Matcher with ComparisonOperators only where the cluster enables
//     the TaintTolerationComparisonOperators gate, for both matching and
//     validation, so that the two agree;
//  3. treat results as new values: no function here modifies its arguments,
//     but TolerationSeconds pointers are shared between input and output.
//
// # Semantics
//
// A toleration tolerates a taint when its effect is empty or equal, its key is
// empty or equal, and its operator accepts the value: "" and Equal compare the
// values, Exists accepts any value. So an empty key with Exists and an empty
// effect tolerates every taint. Lt and Gt (KEP-5471, alpha in v1.35) compare
// canonical decimal int64 values and are off unless a Matcher enables them;
// off, they tolerate nothing, as upstream with the gate off. Matching does not
// validate: an invalid toleration still matches by these rules, as upstream.
//
// ParseTaints follows pkg/util/taints: specs split on ':' into at most a key
// part and an effect; the key part splits on '=' into at most key and value;
// a trailing '-' makes a removal that keeps only key and effect; additions
// need an effect and must be unique by (key, effect). Parse follows the
// kubelet flag: comma-separated additions, effect optional and duplicates
// allowed, as upstream; ValidateTaints then applies the API server's rules.
//
// Set operations (Exists, Delete, Diff, Apply, AddOrUpdate) compare taints by
// key and effect only, as upstream's Taint.MatchTaint.
package taints
