package core

// Protocol names, as core/v1's Protocol.
const (
	ProtocolTCP  = "TCP"
	ProtocolUDP  = "UDP"
	ProtocolSCTP = "SCTP"
)

// ContainerPort is one entry of a container's ports, as core/v1's
// ContainerPort; only entries with HostPort > 0 reserve anything on the
// node.
type ContainerPort struct {
	// HostPort is hostPort; 0 or less reserves nothing.
	HostPort int32
	// Protocol is protocol; "" means ProtocolTCP.
	Protocol string
	// HostIP is hostIP; "" binds every address (admission.BindAllHostIP).
	HostIP string
}

// Node selector operators, as core/v1's NodeSelectorOperator.
const (
	NodeSelectorOpIn           = "In"
	NodeSelectorOpNotIn        = "NotIn"
	NodeSelectorOpExists       = "Exists"
	NodeSelectorOpDoesNotExist = "DoesNotExist"
	NodeSelectorOpGt           = "Gt"
	NodeSelectorOpLt           = "Lt"
)

// NodeSelectorRequirement is core/v1's NodeSelectorRequirement: a label key
// (or, in MatchFields, a field name), an operator and values.
type NodeSelectorRequirement struct {
	// Key is the label key, or in MatchFields the field name (only
	// metadata.name exists).
	Key string
	// Operator is one of the NodeSelectorOp constants.
	Operator string
	// Values are the operand: one integer for Gt and Lt, none for Exists
	// and DoesNotExist.
	Values []string
}

// NodeSelectorTerm is core/v1's NodeSelectorTerm: its MatchExpressions on
// labels and its MatchFields on fields must all hold.
type NodeSelectorTerm struct {
	// MatchExpressions are requirements on the node's labels.
	MatchExpressions []NodeSelectorRequirement
	// MatchFields are requirements on the node's fields.
	MatchFields []NodeSelectorRequirement
}

// NodeSelector is a pod's spec.affinity.nodeAffinity.
// requiredDuringSchedulingIgnoredDuringExecution: the node must match one
// of the terms (admission.MatchNodeSelector decides).
type NodeSelector struct {
	// Terms are nodeSelectorTerms; a selector without terms matches no
	// node.
	Terms []NodeSelectorTerm
}

// ResizeStatus is what a pod's status says of its resources while it is
// resized in place: which requests the kubelet admitted and which the
// runtime applied. It matters wherever the pod's footprint on its node
// right now counts: the kubelet's admission of the pods already there, the
// scheduler's node fit, the retry of pending resizes.
//
// The zero value is a pod whose status reports nothing: its spec counts.
type ResizeStatus struct {
	// Infeasible is set when the pod's PodResizePending condition has
	// reason Infeasible: the spec's new values are then not counted.
	Infeasible bool
	// Containers are status.containerStatuses and
	// status.initContainerStatuses, matched to the spec's containers by
	// name (the first of a name counts).
	Containers []ContainerResizeStatus
	// Allocated is status.allocatedResources, the pod-level requests the
	// kubelet admitted, read under the InPlacePodLevelResourcesVerticalScaling
	// gate; nil when not set.
	Allocated ResourceList
	// Actuated is status.resources, the pod-level values the runtime
	// applied; nil when not set.
	Actuated *ResourceRequirements
}

// ContainerResizeStatus is one container's resources as its status reports
// them.
type ContainerResizeStatus struct {
	// Name is the container's name.
	Name string
	// Allocated is allocatedResources (the requests the kubelet admitted);
	// nil when not set.
	Allocated ResourceList
	// Actuated is resources (what the runtime applied); nil when not
	// reported.
	Actuated *ResourceRequirements
}
