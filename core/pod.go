package core

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/taints"
)

// PodPhase is a pod's status.phase, with core/v1's values.
type PodPhase string

// The pod phases.
const (
	// PodPending: accepted, not all containers started yet.
	PodPending PodPhase = "Pending"
	// PodRunning: bound to a node, every container created, one at least
	// running or restarting.
	PodRunning PodPhase = "Running"
	// PodSucceeded: every container ended with success and none restarts.
	PodSucceeded PodPhase = "Succeeded"
	// PodFailed: every container ended, one at least in failure.
	PodFailed PodPhase = "Failed"
	// PodUnknown: the pod's state could not be obtained (deprecated
	// upstream since v1.21, still accepted).
	PodUnknown PodPhase = "Unknown"
)

// Terminated reports whether the phase is Succeeded or Failed: the pod has
// ended and none of its containers runs again.
func (p PodPhase) Terminated() bool { return p == PodSucceeded || p == PodFailed }

// Pod is a pod, the fields of k8s.io/api/core/v1.Pod that the library's
// planners read, flattened out of metadata, spec and status. A planner's
// doc says which fields it reads; the others may be left zero.
//
// The zero value is a pod with no name, no containers and no phase: every
// planner accepts it, and none finds a reason to act on it.
type Pod struct {
	// Namespace, Name and UID are metadata.namespace, metadata.name and
	// metadata.uid: they identify the pod in actions, and order pods that
	// tie on everything else.
	Namespace, Name, UID string
	// Labels and Annotations are metadata.labels and metadata.annotations.
	Labels, Annotations map[string]string
	// CreationTimestamp is metadata.creationTimestamp.
	CreationTimestamp time.Time
	// DeletionTimestamp is metadata.deletionTimestamp; nil while the pod
	// is not being deleted.
	DeletionTimestamp *time.Time
	// OwnerReferences are metadata.ownerReferences: the objects the pod
	// belongs to, its controller (ControllerRef) among them.
	OwnerReferences []metav1.OwnerReference

	// NodeName is spec.nodeName; "" while the pod is not scheduled.
	NodeName string
	// NodeSelector is spec.nodeSelector: labels the node must carry.
	NodeSelector map[string]string
	// Affinity is spec.affinity.nodeAffinity.
	// requiredDuringSchedulingIgnoredDuringExecution; nil when not set.
	Affinity *NodeSelector
	// OS is spec.os.name; "" when spec.os is not set.
	OS string
	// SupplementalGroupsPolicy is
	// spec.securityContext.supplementalGroupsPolicy; "" when not set.
	SupplementalGroupsPolicy string
	// Priority is spec.priority; nil counts as 0.
	Priority *int32
	// PriorityClassName is spec.priorityClassName.
	PriorityClassName string
	// TerminationGracePeriodSeconds is spec.terminationGracePeriodSeconds;
	// nil is the API default, DefaultTerminationGracePeriodSeconds.
	TerminationGracePeriodSeconds *int64
	// Tolerations are spec.tolerations, in spec order (order matters to
	// the taint eviction controller).
	Tolerations []taints.Toleration
	// InitContainers and Containers are spec.initContainers and
	// spec.containers, in order; a sidecar is an init container with
	// RestartPolicy ContainerRestartPolicyAlways.
	InitContainers, Containers []Container
	// EphemeralContainers are spec.ephemeralContainers (debug containers),
	// in order: they request nothing and are never restarted.
	EphemeralContainers []Container
	// RestartPolicy is spec.restartPolicy; "" is the API default,
	// RestartPolicyAlways.
	RestartPolicy RestartPolicy
	// HostNetwork is spec.hostNetwork: the pod uses the node's network
	// namespace and needs no IP of its own.
	HostNetwork bool
	// Resources is spec.resources, the pod-level requests and limits
	// (PodLevelResources); nil when not set.
	Resources *ResourceRequirements
	// Overhead is spec.overhead (RuntimeClass pod overhead).
	Overhead ResourceList
	// HostPorts are the ports of spec.containers and of the sidecar init
	// containers (restartPolicy Always), in spec order, as upstream collects
	// them for the host-port check; other init containers' ports reserve
	// nothing and are left out.
	HostPorts []ContainerPort
	// Volumes are spec.volumes, in spec order.
	Volumes []Volume

	// Phase is status.phase.
	Phase PodPhase
	// Conditions are status.conditions; of each type the first counts.
	Conditions []PodCondition
	// QOSClass is status.qosClass; "" when not yet set, and then computed
	// from the resources by those who need it (cgroup.PodQOS). Once set it
	// is immutable upstream.
	QOSClass PodQOSClass
	// Reason is status.reason ("Evicted" for a pod the kubelet evicted,
	// "Terminated" for one its shutdown manager killed).
	Reason string
	// Resize is what status says of the pod's resources during an in-place
	// resize; nil when not read. The kubelet's admission counts a pod with
	// it set by cgroup.EffectivePodRequests (the larger of the spec's, the
	// allocated and the actuated requests).
	Resize *ResizeStatus
}

// Deleting reports whether metadata.deletionTimestamp is set.
func (p *Pod) Deleting() bool { return p.DeletionTimestamp != nil }

// RestartPolicy is a pod's spec.restartPolicy, with core/v1's values.
type RestartPolicy string

// The pod restart policies.
const (
	// RestartPolicyAlways restarts every container that exits (the API
	// default).
	RestartPolicyAlways RestartPolicy = "Always"
	// RestartPolicyOnFailure restarts a container that exits with a
	// non-zero code.
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	// RestartPolicyNever restarts no container.
	RestartPolicyNever RestartPolicy = "Never"
)

// Key returns "namespace/name", the pod's key in the API's caches.
func (p *Pod) Key() string { return p.Namespace + "/" + p.Name }

// PodReasonEvicted is the status.reason the kubelet writes on a pod it
// evicted (node pressure) and that the pod GC and the non-graceful shutdown
// planners delete first.
const PodReasonEvicted = "Evicted"

// Evicted reports whether the pod's status records an eviction, as
// upstream's PodIsEvicted: phase Failed with reason Evicted.
func (p *Pod) Evicted() bool { return p.Phase == PodFailed && p.Reason == PodReasonEvicted }

// The annotations the kubelet puts on static and mirror pods.
const (
	// ConfigSourceAnnotation names where the kubelet got a pod: "file",
	// "http" or "api".
	ConfigSourceAnnotation = "kubernetes.io/config.source"
	// ConfigHashAnnotation holds a static pod's hash (its UID); its mirror
	// pod carries the same.
	ConfigHashAnnotation = "kubernetes.io/config.hash"
	// ConfigSeenAnnotation is when the kubelet first saw the pod.
	ConfigSeenAnnotation = "kubernetes.io/config.seen"
	// ConfigMirrorAnnotation marks a mirror pod; its value is the static
	// pod's hash.
	ConfigMirrorAnnotation = "kubernetes.io/config.mirror"
)

// The kubelet's config sources, the values of ConfigSourceAnnotation.
const (
	SourceFile      = "file"
	SourceHTTP      = "http"
	SourceAPIServer = "api"
)

// DefaultTerminationGracePeriodSeconds is the API default of
// spec.terminationGracePeriodSeconds, what a nil
// Pod.TerminationGracePeriodSeconds stands for.
const DefaultTerminationGracePeriodSeconds int64 = 30

// SystemCriticalPriority is the priority from which a pod is critical: 2 *
// 10^9, the value of the system-cluster-critical priority class
// (system-node-critical is 1000 above it).
const SystemCriticalPriority int32 = 2000000000

// IsStatic reports whether the pod came from a manifest file or URL of its
// kubelet, as the kubelet's IsStaticPod: it has a config source annotation
// and the source is not the API server.
func (p *Pod) IsStatic() bool {
	src, ok := p.Annotations[ConfigSourceAnnotation]
	return ok && src != SourceAPIServer
}

// IsMirror reports whether the pod is the API server's mirror of a static
// pod: it has the mirror annotation, whatever its value.
func (p *Pod) IsMirror() bool {
	_, ok := p.Annotations[ConfigMirrorAnnotation]
	return ok
}

// ControllerRef returns the owner reference marked as the pod's
// controller (the ReplicaSet, StatefulSet, DaemonSet, Job, or the Node of
// a mirror pod), as metav1.GetControllerOf finds it; nil when none is.
func (p *Pod) ControllerRef() *metav1.OwnerReference {
	for i := range p.OwnerReferences {
		if r := &p.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return r
		}
	}
	return nil
}

// IsCritical reports whether the kubelet treats the pod as critical, as its
// IsCriticalPod: a static or mirror pod, or a priority of at least
// SystemCriticalPriority (nil counting as 0).
func (p *Pod) IsCritical() bool {
	return p.IsStatic() || p.IsMirror() || p.Priority != nil && *p.Priority >= SystemCriticalPriority
}

// PodRef names a pod in an action or a decision: the identity the caller
// gave it, copied from its Pod.
type PodRef struct {
	// Namespace, Name and UID are the pod's.
	Namespace, Name, UID string
}

// Key returns "namespace/name".
func (r PodRef) Key() string { return r.Namespace + "/" + r.Name }

// Ref returns the pod's PodRef.
func (p *Pod) Ref() PodRef { return PodRef{Namespace: p.Namespace, Name: p.Name, UID: p.UID} }

// PodConditionType is the type of a pod condition, with core/v1's values.
type PodConditionType string

// The pod condition types the library reads or writes.
const (
	// PodReady: the pod can serve; the node lifecycle controller sets it
	// False on the pods of a node that stops being Ready.
	PodReady PodConditionType = "Ready"
	// DisruptionTarget: the pod is about to be deleted by a disruption
	// (the taint eviction controller, the pod GC, preemption).
	DisruptionTarget PodConditionType = "DisruptionTarget"
)

// PodCondition is a pod condition, the fields of core/v1's PodCondition the
// library reads or writes.
type PodCondition struct {
	// Type and Status are the condition's type and status.
	Type   PodConditionType
	Status conditions.Status
	// Reason and Message say why, as the API has them.
	Reason, Message string
}
