package admission

import (
	"time"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/taints"
)

// Protocol names, as core/v1's Protocol.
const (
	ProtocolTCP  = "TCP"
	ProtocolUDP  = "UDP"
	ProtocolSCTP = "SCTP"
)

// BindAllHostIP is the host IP a port binds when its hostIP is empty; a
// port on it conflicts with the same protocol and port on every address.
const BindAllHostIP = "0.0.0.0"

// ContainerPort is one entry of a container's ports, as core/v1's
// ContainerPort; only entries with HostPort > 0 reserve anything.
type ContainerPort struct {
	// HostPort is hostPort; 0 or less reserves nothing.
	HostPort int32
	// Protocol is protocol; empty means TCP.
	Protocol string
	// HostIP is hostIP; empty means BindAllHostIP.
	HostIP string
}

// Node selector operators, as core/v1's NodeSelectorOperator.
const (
	OpIn           = "In"
	OpNotIn        = "NotIn"
	OpExists       = "Exists"
	OpDoesNotExist = "DoesNotExist"
	OpGt           = "Gt"
	OpLt           = "Lt"
)

// Requirement is a node selector requirement (core/v1's
// NodeSelectorRequirement): a label key (or, in MatchFields, a field
// name), an operator and values.
type Requirement struct {
	Key      string
	Operator string
	Values   []string
}

// Term is a node selector term: its MatchExpressions on labels and its
// MatchFields on fields (only metadata.name exists) must all hold.
type Term struct {
	MatchExpressions []Requirement
	MatchFields      []Requirement
}

// NodeSelector is a pod's spec.affinity.nodeAffinity.
// requiredDuringSchedulingIgnoredDuringExecution: the node must match one
// of the terms.
type NodeSelector struct {
	Terms []Term
}

// Pod is the part of a core/v1 Pod that admission reads. Resource fields
// have the cgroup package's shapes, so that the effective requests are
// computed once, by cgroup.PodRequests.
type Pod struct {
	// Namespace, Name and UID identify the pod.
	Namespace, Name, UID string
	// Labels are metadata.labels; only kubernetes.io/os is read, by the
	// OS selector check.
	Labels map[string]string
	// Annotations are metadata.annotations; the config source, config hash
	// and mirror annotations make a pod static or mirror (see IsStaticPod).
	Annotations map[string]string
	// DeletionTimestamp is metadata.deletionTimestamp, read by the mirror
	// pod reconciliation.
	DeletionTimestamp *time.Time
	// NodeName is spec.nodeName; empty matches any node.
	NodeName string
	// NodeSelector is spec.nodeSelector.
	NodeSelector map[string]string
	// Affinity is spec.affinity.nodeAffinity.
	// requiredDuringSchedulingIgnoredDuringExecution; nil when not set.
	Affinity *NodeSelector
	// Tolerations are spec.tolerations.
	Tolerations []taints.Toleration
	// OS is spec.os.name; empty when spec.os is not set.
	OS string
	// SupplementalGroupsPolicy is
	// spec.securityContext.supplementalGroupsPolicy; empty when not set.
	SupplementalGroupsPolicy string
	// Priority is spec.priority; nil when not set.
	Priority *int32
	// PriorityClassName is spec.priorityClassName.
	PriorityClassName string
	// QOSClass is status.qosClass; computed from the resources when empty.
	QOSClass core.PodQOSClass
	// InitContainers and Containers carry the containers' names, requests
	// and limits, and which init containers are sidecars.
	InitContainers, Containers []core.Container
	// HostPorts are the ports of spec.containers and of the sidecar init
	// containers (restartPolicy Always), in spec order, as upstream
	// collects them; other init containers' ports reserve nothing and are
	// left out by the caller.
	HostPorts []ContainerPort
	// Resources is spec.resources (pod-level resources); nil when not set.
	Resources *core.ResourceRequirements
	// Overhead is spec.overhead.
	Overhead core.ResourceList
	// Resize is what the pod's status says of its resources during an
	// in-place resize; nil when not read. When set, the pod counts with
	// cgroup.EffectivePodRequests (the larger of the spec's, the allocated
	// and the actuated requests), as the scheduler framework's NodeInfo the
	// kubelet admits against counts every pod.
	Resize *cgroup.ResizeStatus
}

// Result is an admit handler's verdict, as the kubelet's PodAdmitResult.
type Result struct {
	// Admit is true when the pod may run.
	Admit bool
	// Reason is the machine-readable reason of a refusal, written to the
	// pod's status.reason (OutOfcpu, NodeAffinity, ...).
	Reason string
	// Message is the sentence written to status.message.
	Message string
	// Why explains a refusal for people where the handler can say more
	// than upstream's Message (the topology manager's Admission.Why: the
	// resource, the amount asked, the most free where the policy allows);
	// empty otherwise. It is not written to the pod's status.
	Why string
}

// Admitted returns the Result that lets a pod run.
func Admitted() Result { return Result{Admit: true} }

// Options are the kubelet's build and feature settings admission depends on.
//
// The zero value is a Linux kubelet of v1.37 with its default feature
// gates; OptionsFor gives an earlier release's.
type Options struct {
	// OS is the kubelet's operating system (runtime.GOOS); empty means
	// "linux". A pod whose spec.os.name or kubernetes.io/os label differs
	// is refused.
	OS string
	// DisablePodLevelResources turns the PodLevelResources gate off (beta
	// and on since 1.34): spec.resources is then ignored.
	DisablePodLevelResources bool
	// DisablePodLevelResourcesFixKubeletQOSClass and SumContainersQOS
	// select the QoS class rule of releases before 1.37, as the
	// cgroup.QOSOptions fields of the same names.
	DisablePodLevelResourcesFixKubeletQOSClass bool
	SumContainersQOS                           bool
	// DisableInPlacePodLevelResourcesVerticalScaling and
	// ResizePerContainer select how the requests of a pod with a
	// Pod.Resize status are counted before 1.36 and 1.37, as the
	// cgroup.QOSOptions fields of the same names.
	DisableInPlacePodLevelResourcesVerticalScaling bool
	ResizePerContainer                             bool
	// TaintComparisonOperators turns the TaintTolerationComparisonOperators
	// gate on (alpha, off in 1.36): tolerations with Lt and Gt.
	TaintComparisonOperators bool
}

func (o Options) os() string {
	if o.OS == "" {
		return "linux"
	}
	return o.OS
}

func (o Options) qos() cgroup.QOSOptions {
	return cgroup.QOSOptions{DisablePodLevelResources: o.DisablePodLevelResources,
		DisablePodLevelResourcesFixKubeletQOSClass: o.DisablePodLevelResourcesFixKubeletQOSClass,
		SumContainersQOS: o.SumContainersQOS,
		DisableInPlacePodLevelResourcesVerticalScaling: o.DisableInPlacePodLevelResourcesVerticalScaling,
		ResizePerContainer: o.ResizePerContainer}
}

// OptionsFor returns the Linux kubelet's admission switches in Kubernetes
// release v (taken as release.Oldest or release.Current when outside
// them): the QoS rules of cgroup.QOSOptionsFor, the rest as in v1.37.
func OptionsFor(v release.Version) Options {
	q := cgroup.QOSOptionsFor(v)
	return Options{DisablePodLevelResources: q.DisablePodLevelResources,
		DisablePodLevelResourcesFixKubeletQOSClass: q.DisablePodLevelResourcesFixKubeletQOSClass,
		SumContainersQOS: q.SumContainersQOS,
		DisableInPlacePodLevelResourcesVerticalScaling: q.DisableInPlacePodLevelResourcesVerticalScaling,
		ResizePerContainer: q.ResizePerContainer}
}
