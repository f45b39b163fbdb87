package admission

import (
	"strconv"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// The reasons the kubelet's predicate admit handler refuses a pod with.
const (
	// ReasonOSSelectorMismatch: the pod's kubernetes.io/os label names
	// another OS than the kubelet's.
	ReasonOSSelectorMismatch = "PodOSSelectorNodeLabelDoesNotMatch"
	// ReasonOSNotSupported: the pod's spec.os.name is another OS.
	ReasonOSNotSupported = "PodOSNotSupported"
	// ReasonSupplementalGroupsPolicy: the pod asks for the Strict policy
	// on a node that does not support it.
	ReasonSupplementalGroupsPolicy = "SupplementalGroupsPolicyNotSupported"
	// ReasonUnexpectedAdmissionError: critical-pod preemption found no set
	// of pods to evict (the kubelet reports that as an unexpected error).
	ReasonUnexpectedAdmissionError = "UnexpectedAdmissionError"
	// ReasonInvalidNodeInfo: the kubelet could not get its Node.
	ReasonInvalidNodeInfo = "InvalidNodeInfo"
	// InsufficientResourcePrefix starts the reason of a resource shortfall:
	// "OutOf" + the resource name (OutOfcpu, OutOfmemory, OutOfpods,
	// OutOfephemeral-storage, OutOfexample.com/gpu).
	InsufficientResourcePrefix = "OutOf"
)

// The predicates, with the names the kubelet reports as a refusal's reason.
const (
	PredicateNodeAffinity    = "NodeAffinity"
	PredicateNodeName        = "NodeName"
	PredicateNodePorts       = "NodePorts"
	PredicateTaintToleration = "TaintToleration"
)

// The predicates' descriptions, as the scheduler plugins word them.
const (
	DescNodeAffinity    = "node(s) didn't match Pod's node affinity/selector"
	DescNodeName        = "node(s) didn't match the requested node name"
	DescNodePorts       = "node(s) didn't have free ports for the requested pod ports"
	DescTaintToleration = "node(s) had taints that the pod didn't tolerate"
)

// The messages of the checks that run before the predicates.
const (
	MessageOSSelectorMismatch = "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label"
	MessageOSNotSupported     = "Failed to admit pod as the OS field doesn't match node OS"
	MessageInvalidNodeInfo    = "Kubelet cannot get node info."
)

// LabelOS is the well-known operating system label.
const LabelOS = "kubernetes.io/os"

// SupplementalGroupsPolicyStrict is the policy a node must support.
const SupplementalGroupsPolicyStrict = "Strict"

// Failure is one predicate failure. Either Resource is set (an
// insufficient resource) or Predicate and Description are.
type Failure struct {
	// Resource names the insufficient resource ("cpu", "memory", "pods",
	// "ephemeral-storage", a huge page or extended resource).
	Resource core.ResourceName
	// Requested, Used and Capacity are the pod's request, what the
	// admitted pods request, and the allocatable amount: millicores for
	// cpu, units otherwise (pods: 1, the number of pods, the pod
	// capacity).
	Requested, Used, Capacity int64
	// Predicate and Description name a failed predicate
	// (PredicateNodeAffinity, DescNodeAffinity, ...).
	Predicate, Description string
}

// Shortfall is what the pod lacks of an insufficient resource:
// Requested - (Capacity - Used).
func (f Failure) Shortfall() int64 { return f.Requested - (f.Capacity - f.Used) }

// Reason is the kubelet's reason for f: OutOf<resource> for a resource,
// the predicate's name otherwise.
func (f Failure) Reason() string {
	if f.Resource != "" {
		return InsufficientResourcePrefix + string(f.Resource)
	}
	return f.Predicate
}

// Message is the kubelet's message for f: "Node didn't have enough
// resource: cpu, requested: 500, used: 3800, capacity: 4000", or
// "Predicate NodeAffinity failed: node(s) didn't match Pod's node
// affinity/selector".
func (f Failure) Message() string {
	if f.Resource != "" {
		b := make([]byte, 0, 96)
		b = append(b, "Node didn't have enough resource: "...)
		b = append(b, f.Resource...)
		b = append(b, ", requested: "...)
		b = strconv.AppendInt(b, f.Requested, 10)
		b = append(b, ", used: "...)
		b = strconv.AppendInt(b, f.Used, 10)
		b = append(b, ", capacity: "...)
		b = strconv.AppendInt(b, f.Capacity, 10)
		return string(b)
	}
	return "Predicate " + f.Predicate + " failed: " + f.Description
}

// Result is the refusal f leads to.
func (f Failure) Result() Result {
	return Result{Reason: f.Reason(), Message: f.Message()}
}

// Filter runs the kubelet's general predicates for p against ni and
// returns every failure, in the kubelet's order:
//
//  1. resources (upstream's noderesources.Fits): the pod count against
//     allocatable pods; then, unless the pod requests nothing, cpu,
//     memory, ephemeral storage, and each scalar resource (huge pages,
//     extended, *kubernetes.io/ and attachable-volume resources) with a
//     non-zero request, each failing when the request exceeds allocatable
//     minus the admitted pods' requests. Extended resources the node does
//     not list in its allocatable are not checked.
//  2. NodeAffinity: spec.nodeSelector and the required node affinity
//     (RequiredAffinityMatches), with the node's kubernetes.io/os label
//     read as the kubelet's OS when the node has any label: the kubelet's
//     OS check writes it into its cached Node before this check;
//  3. NodeName: spec.nodeName empty or the node's name;
//  4. NodePorts: no host port taken;
//  5. TaintToleration: every NoExecute taint tolerated (NoSchedule and
//     PreferNoSchedule are the scheduler's business), except for static
//     pods.
//
// Upstream visits scalar resources in map order; here they come sorted by
// name, so when several fail the first one reported may differ from a given
// kubelet run's (the set is the same).
//
// failures is reused when it has room; Filter allocates nothing else.
func (ni *NodeInfo) Filter(p *core.Pod, failures []Failure) []Failure {
	return ni.filter(p, ni.requests(p), failures)
}

// FilterRequests is Filter for p with its requests r (RequestsOf p under
// the NodeInfo's options), not computed again: the same failures.
func (ni *NodeInfo) FilterRequests(p *core.Pod, r *Requests, failures []Failure) []Failure {
	return ni.filter(p, ni.requestsFrom(p, r), failures)
}

func (ni *NodeInfo) filter(p *core.Pod, req *amounts, failures []Failure) []Failure {
	out := failures[:0]
	if n := int64(len(ni.pods)); n+1 > ni.allowedPods {
		out = append(out, Failure{Resource: core.ResourcePods, Requested: 1, Used: n, Capacity: ni.allowedPods})
	}
	if req.milliCPU != 0 || req.memory != 0 || req.ephemeral != 0 || len(req.scalars) != 0 {
		out = short(out, core.ResourceCPU, req.milliCPU, ni.used.milliCPU, ni.alloc.milliCPU)
		out = short(out, core.ResourceMemory, req.memory, ni.used.memory, ni.alloc.memory)
		out = short(out, core.ResourceEphemeralStorage, req.ephemeral, ni.used.ephemeral, ni.alloc.ephemeral)
		for _, s := range req.scalars {
			out = short(out, s.name, s.value, ni.used.scalar(s.name), ni.alloc.scalar(s.name))
		}
	}
	if !affinityMatches(p, &ni.node, labelView{m: ni.node.Labels, os: ni.opts.os()}) {
		out = append(out, Failure{Predicate: PredicateNodeAffinity, Description: DescNodeAffinity})
	}
	if p.NodeName != "" && p.NodeName != ni.node.Name {
		out = append(out, Failure{Predicate: PredicateNodeName, Description: DescNodeName})
	}
	for _, cp := range p.HostPorts {
		if ni.portConflict(cp) {
			out = append(out, Failure{Predicate: PredicateNodePorts, Description: DescNodePorts})
			break
		}
	}
	if !p.IsStatic() {
		m := taints.Matcher{ComparisonOperators: ni.opts.TaintComparisonOperators}
		if _, ok := m.FindMatchingUntoleratedTaint(ni.node.Taints, p.Tolerations, noExecute); ok {
			out = append(out, Failure{Predicate: PredicateTaintToleration, Description: DescTaintToleration})
		}
	}
	return out
}

// short appends the shortfall of name when a positive request r exceeds
// capacity - used.
func short(out []Failure, name core.ResourceName, r, used, capacity int64) []Failure {
	if r > 0 && r > capacity-used {
		out = append(out, Failure{Resource: name, Requested: r, Used: used, Capacity: capacity})
	}
	return out
}

func noExecute(t taints.Taint) bool { return t.Effect == taints.TaintEffectNoExecute }
