// Package core holds the library's object model: the one Pod, Container,
// Node and PodPhase type every planner and state machine reads, and the
// resource lists their requests, limits and allocatable are written in.
//
// # Usage
//
// Convert a k8s.io/api/core/v1 object once (examples/kubeapi's adapters do
// it field by field) and hand the result to every package that decides
// something about it: the pod GC controller, the kubelet's shutdown
// manager and the rest read the same value, each the fields its rule
// needs.
//
//	pod := core.Pod{Namespace: "default", Name: "web-0", UID: "u1",
//		NodeName: "node-a", Phase: core.PodRunning}
//	node := core.Node{Name: "node-a", Conditions: []conditions.Condition{
//		{Type: conditions.Ready, Status: conditions.True}}}
//
// # Semantics
//
// Field names, constants and string values are those of
// k8s.io/api/core/v1, flattened: a field of metadata, spec or status is a
// field of the struct, named as the API names it (Pod.NodeName is
// spec.nodeName, Pod.Phase is status.phase). A nil slice or map is an
// absent list, a nil pointer an unset optional field, a zero time an unset
// timestamp, as in the API. Taints and tolerations keep their own package
// (taints), node conditions theirs (conditions); this package uses their
// types.
//
// Nothing here decides anything: the types carry data, and their few
// methods read what the API's own helpers read (a node's Ready condition,
// whether a pod is static or a mirror). A field of the API object lives
// here even when one planner alone reads it (admission's node selector and
// host ports); inputs that are not part of the object (a container's
// usage, a runtime's state, a plan) stay in that planner's package.
//
// Of the library the package imports only taints, conditions and two
// internal helpers, so every other package may import it.
package core
