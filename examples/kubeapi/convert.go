package kubeapi

import (
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/lease"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/taints"
)

// timeOf is the time of a metav1.Time pointer, zero for nil.
func timeOf(t *metav1.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.Time
}

// timePtr is the time of a metav1.Time pointer, nil for nil.
func timePtr(t *metav1.Time) *time.Time {
	if t == nil {
		return nil
	}
	tt := t.Time
	return &tt
}

// metaTime is the API form of t: nil for the zero time.
func metaTime(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	m := metav1.NewTime(t)
	return &m
}

// Taints converts a node's spec.taints.
func Taints(in []corev1.Taint) []taints.Taint {
	if in == nil {
		return nil
	}
	out := make([]taints.Taint, len(in))
	for i, t := range in {
		out[i] = taints.Taint{Key: t.Key, Value: t.Value, Effect: taints.Effect(t.Effect), TimeAdded: timeOf(t.TimeAdded)}
	}
	return out
}

// FromTaints converts taints back to spec.taints.
func FromTaints(in []taints.Taint) []corev1.Taint {
	if in == nil {
		return nil
	}
	out := make([]corev1.Taint, len(in))
	for i, t := range in {
		out[i] = corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect), TimeAdded: metaTime(t.TimeAdded)}
	}
	return out
}

// Tolerations converts a pod's spec.tolerations. TolerationSeconds
// pointers are copied, not shared.
func Tolerations(in []corev1.Toleration) []taints.Toleration {
	if in == nil {
		return nil
	}
	out := make([]taints.Toleration, len(in))
	for i, t := range in {
		out[i] = taints.Toleration{Key: t.Key, Operator: taints.Operator(t.Operator), Value: t.Value, Effect: taints.Effect(t.Effect), TolerationSeconds: copyInt64(t.TolerationSeconds)}
	}
	return out
}

// FromTolerations converts tolerations back to spec.tolerations.
func FromTolerations(in []taints.Toleration) []corev1.Toleration {
	if in == nil {
		return nil
	}
	out := make([]corev1.Toleration, len(in))
	for i, t := range in {
		out[i] = corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value, Effect: corev1.TaintEffect(t.Effect), TolerationSeconds: copyInt64(t.TolerationSeconds)}
	}
	return out
}

func copyInt64(p *int64) *int64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Conditions converts a node's status.conditions.
func Conditions(in []corev1.NodeCondition) []conditions.Condition {
	if in == nil {
		return nil
	}
	out := make([]conditions.Condition, len(in))
	for i, c := range in {
		out[i] = conditions.Condition{Type: conditions.Type(c.Type), Status: conditions.Status(c.Status),
			LastHeartbeatTime: c.LastHeartbeatTime.Time, LastTransitionTime: c.LastTransitionTime.Time, Reason: c.Reason, Message: c.Message}
	}
	return out
}

// FromConditions converts conditions back to status.conditions.
func FromConditions(in []conditions.Condition) []corev1.NodeCondition {
	if in == nil {
		return nil
	}
	out := make([]corev1.NodeCondition, len(in))
	for i, c := range in {
		out[i] = corev1.NodeCondition{Type: corev1.NodeConditionType(c.Type), Status: corev1.ConditionStatus(c.Status),
			LastHeartbeatTime: metav1.NewTime(c.LastHeartbeatTime), LastTransitionTime: metav1.NewTime(c.LastTransitionTime), Reason: c.Reason, Message: c.Message}
	}
	return out
}

// MonitorNode is what the node health monitor reads of a node and its
// lease (kube-node-lease/<name>; nil when there is none).
func MonitorNode(n *corev1.Node, l *coordinationv1.Lease) conditions.NodeObservation {
	out := conditions.NodeObservation{Name: n.Name, CreationTimestamp: n.CreationTimestamp.Time, Conditions: Conditions(n.Status.Conditions)}
	if l != nil {
		out.HasLease = true
		if l.Spec.RenewTime != nil {
			out.LeaseRenewTime = l.Spec.RenewTime.Time
		}
	}
	return out
}

// ReadyStatus is the node's Ready status, "" without a Ready condition.
func ReadyStatus(n *corev1.Node) conditions.Status {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return conditions.Status(c.Status)
		}
	}
	return ""
}

// ZoneNode is what the disruption planner reads of a node: its zone key
// from the topology labels, its Ready status, and whether it carries the
// node.kubernetes.io/exclude-disruption label.
func ZoneNode(n *corev1.Node) eviction.ZoneNode {
	return eviction.ZoneNode{Name: n.Name, Zone: eviction.ZoneKey(n.Labels), Ready: ReadyStatus(n), Excluded: eviction.IsExcludedFromDisruption(n.Labels)}
}

// TaintNode is what the NoExecute tainter reads of a node.
func TaintNode(n *corev1.Node) eviction.TaintNode {
	return eviction.TaintNode{Name: n.Name, UID: string(n.UID), Zone: eviction.ZoneKey(n.Labels), Taints: Taints(n.Spec.Taints)}
}

// Pod converts a pod into the library's one pod type, which the pod GC, the
// shutdown planners, the cgroup computations, the topology managers, the
// NoExecute planner, the node lifecycle controller, the pod sync decisions
// (cri), node-pressure eviction and the kubelet's admission read: metadata
// (names, labels, annotations and owner references shared with p, not copied,
// so the static and mirror annotations come along; timestamps), the spec's
// node name, node selector (shared) and required node affinity, OS,
// supplemental groups policy, priority, priority class, grace period, restart
// policy, host network, tolerations, the names and images of the containers,
// init containers and ephemeral containers, the containers' and init
// containers' requests and limits and whether they set startup and liveness
// probes (sidecars by their restartPolicy), the host ports of the containers
// and of the sidecar init containers, pod-level resources and overhead, the
// volumes (Volumes), and the status's phase, reason, QoS class, conditions
// and, when it reports resources, the resize status (ResizeStatus).
func Pod(p *corev1.Pod) core.Pod {
	out := core.Pod{Namespace: p.Namespace, Name: p.Name, UID: string(p.UID), Labels: p.Labels, Annotations: p.Annotations,
		CreationTimestamp: p.CreationTimestamp.Time, DeletionTimestamp: timePtr(p.DeletionTimestamp), OwnerReferences: p.OwnerReferences,
		NodeName: p.Spec.NodeName, PriorityClassName: p.Spec.PriorityClassName,
		TerminationGracePeriodSeconds: copyInt64(p.Spec.TerminationGracePeriodSeconds), Tolerations: Tolerations(p.Spec.Tolerations),
		Overhead: resourceList(p.Spec.Overhead),
		Phase:    core.PodPhase(p.Status.Phase), Reason: p.Status.Reason, QOSClass: core.PodQOSClass(p.Status.QOSClass)}
	if p.Spec.Priority != nil {
		v := *p.Spec.Priority
		out.Priority = &v
	}
	for i := range p.Spec.InitContainers {
		c := &p.Spec.InitContainers[i]
		cc := container(c)
		if c.RestartPolicy != nil {
			cc.RestartPolicy = string(*c.RestartPolicy)
		}
		out.InitContainers = append(out.InitContainers, cc)
	}
	for i := range p.Spec.Containers {
		out.Containers = append(out.Containers, container(&p.Spec.Containers[i]))
	}
	for i := range p.Spec.EphemeralContainers {
		c := p.Spec.EphemeralContainers[i].EphemeralContainerCommon
		out.EphemeralContainers = append(out.EphemeralContainers, core.Container{Name: c.Name, Image: c.Image})
	}
	out.RestartPolicy = core.RestartPolicy(p.Spec.RestartPolicy)
	out.HostNetwork = p.Spec.HostNetwork
	if r := p.Spec.Resources; r != nil {
		pr := resources(r.Requests, r.Limits)
		out.Resources = &pr
	}
	for _, c := range p.Status.Conditions {
		out.Conditions = append(out.Conditions, core.PodCondition{Type: core.PodConditionType(c.Type), Status: conditions.Status(c.Status),
			Reason: c.Reason, Message: c.Message})
	}
	out.NodeSelector = p.Spec.NodeSelector
	if st, ok := ResizeStatus(p); ok {
		out.Resize = &st
	}
	if p.Spec.OS != nil {
		out.OS = string(p.Spec.OS.Name)
	}
	if sc := p.Spec.SecurityContext; sc != nil && sc.SupplementalGroupsPolicy != nil {
		out.SupplementalGroupsPolicy = string(*sc.SupplementalGroupsPolicy)
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		ns := &core.NodeSelector{}
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			ns.Terms = append(ns.Terms, core.NodeSelectorTerm{MatchExpressions: requirements(t.MatchExpressions), MatchFields: requirements(t.MatchFields)})
		}
		out.Affinity = ns
	}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			out.HostPorts = appendPorts(out.HostPorts, c.Ports)
		}
	}
	for _, c := range p.Spec.Containers {
		out.HostPorts = appendPorts(out.HostPorts, c.Ports)
	}
	out.Volumes = Volumes(p.Spec.Volumes)
	return out
}

// container converts a regular or init container: name, image, requests
// and limits, and whether it has startup and liveness probes. SpecJSON is
// left nil: a caller that needs the container hash of kubelets before 1.31
// sets it (json.Marshal of the container).
func container(c *corev1.Container) core.Container {
	return core.Container{Name: c.Name, Image: c.Image, Resources: resources(c.Resources.Requests, c.Resources.Limits),
		HasStartupProbe: c.StartupProbe != nil, HasLivenessProbe: c.LivenessProbe != nil}
}

// Volumes converts a pod's spec.volumes: each volume's name, which source
// it sets (core.VolumeSource: the field's JSON name, for the sources the
// library tells apart and the common others), and an emptyDir's medium and
// size limit (copied).
func Volumes(vs []corev1.Volume) []core.Volume {
	if len(vs) == 0 {
		return nil
	}
	out := make([]core.Volume, len(vs))
	for i := range vs {
		v := &vs[i]
		cv := core.Volume{Name: v.Name}
		switch {
		case v.HostPath != nil:
			cv.Source = core.VolumeHostPath
		case v.EmptyDir != nil:
			cv.Source = core.VolumeEmptyDir
			cv.EmptyDir = &core.EmptyDirVolumeSource{Medium: core.StorageMedium(v.EmptyDir.Medium)}
			if l := v.EmptyDir.SizeLimit; l != nil {
				q := l.DeepCopy()
				cv.EmptyDir.SizeLimit = &q
			}
		case v.ConfigMap != nil:
			cv.Source = core.VolumeConfigMap
		case v.GitRepo != nil: // deprecated upstream, still served, and local
			cv.Source = core.VolumeGitRepo
		case v.Secret != nil:
			cv.Source = "secret"
		case v.PersistentVolumeClaim != nil:
			cv.Source = "persistentVolumeClaim"
		case v.Projected != nil:
			cv.Source = "projected"
		case v.DownwardAPI != nil:
			cv.Source = "downwardAPI"
		case v.CSI != nil:
			cv.Source = "csi"
		case v.Ephemeral != nil:
			cv.Source = "ephemeral"
		}
		out[i] = cv
	}
	return out
}

// Node converts a node into the library's one node type, which the node
// lifecycle controller, the pod GC, the shutdown planners, the readiness
// rules, admission and the cloud controller manager's decisions read: metadata
// (names, labels and annotations shared with n, not copied; timestamps), the
// spec's taints, unschedulable, provider ID and pod CIDRs (shared), and the
// status's conditions, addresses, capacity and allocatable (copied) and
// features (what admission reads).
func Node(n *corev1.Node) core.Node {
	out := core.Node{Name: n.Name, UID: string(n.UID), Labels: n.Labels, Annotations: n.Annotations,
		CreationTimestamp: n.CreationTimestamp.Time, DeletionTimestamp: timePtr(n.DeletionTimestamp),
		Taints: Taints(n.Spec.Taints), Unschedulable: n.Spec.Unschedulable, ProviderID: n.Spec.ProviderID,
		PodCIDRs: n.Spec.PodCIDRs, Conditions: Conditions(n.Status.Conditions)}
	for _, a := range n.Status.Addresses {
		out.Addresses = append(out.Addresses, conditions.NodeAddress{Type: conditions.NodeAddressType(a.Type), Address: a.Address})
	}
	out.Capacity = resourceList(n.Status.Capacity)
	out.Allocatable = resourceList(n.Status.Allocatable)
	if f := n.Status.Features; f != nil {
		out.Features.SupplementalGroupsPolicy = f.SupplementalGroupsPolicy
	}
	return out
}

func resources(req, lim corev1.ResourceList) core.ResourceRequirements {
	return core.ResourceRequirements{Requests: resourceList(req), Limits: resourceList(lim)}
}

func resourceList(in corev1.ResourceList) core.ResourceList {
	if in == nil {
		return nil
	}
	out := make(core.ResourceList, len(in))
	for k, v := range in {
		out[core.ResourceName(k)] = v.DeepCopy()
	}
	return out
}

// Object is what the owner-reference collector reads of any object: its
// type, identity, owner references, deletion timestamp and finalizers.
func Object(typ metav1.TypeMeta, m metav1.Object) gc.Object {
	return gc.FromMeta(typ.APIVersion, typ.Kind, m)
}

// ApplyObject writes a collector object's metadata back into m: owner
// references (the collector removes some when orphaning or when an owner
// is gone), finalizers and the deletion timestamp.
func ApplyObject(o gc.Object, m metav1.Object) {
	m.SetOwnerReferences(o.OwnerReferences)
	m.SetFinalizers(o.Finalizers)
	m.SetDeletionTimestamp(o.DeletionTimestamp)
}

// Lease converts a coordination.k8s.io/v1 Lease into the lease package's
// model: namespace, name, labels, owner references and the spec, field for
// field.
func Lease(l *coordinationv1.Lease) lease.Lease {
	out := lease.Lease{Namespace: l.Namespace, Name: l.Name, Labels: l.Labels, OwnerReferences: l.OwnerReferences}
	s := l.Spec
	if s.HolderIdentity != nil {
		v := *s.HolderIdentity
		out.HolderIdentity = &v
	}
	if s.LeaseDurationSeconds != nil {
		v := *s.LeaseDurationSeconds
		out.LeaseDurationSeconds = &v
	}
	if s.LeaseTransitions != nil {
		v := *s.LeaseTransitions
		out.LeaseTransitions = &v
	}
	if s.AcquireTime != nil {
		v := s.AcquireTime.Time
		out.AcquireTime = &v
	}
	if s.RenewTime != nil {
		v := s.RenewTime.Time
		out.RenewTime = &v
	}
	return out
}

// ApplyLease writes l's labels, owner references and spec into dst,
// keeping dst's other metadata (resourceVersion, UID), so that dst can be
// sent as an update conditional on the version it was read at.
func ApplyLease(l lease.Lease, dst *coordinationv1.Lease) {
	dst.Namespace, dst.Name, dst.Labels = l.Namespace, l.Name, l.Labels
	dst.OwnerReferences = slices.Clone(l.OwnerReferences)
	micro := func(t *time.Time) *metav1.MicroTime {
		if t == nil {
			return nil
		}
		m := metav1.NewMicroTime(*t)
		return &m
	}
	dst.Spec = coordinationv1.LeaseSpec{HolderIdentity: l.HolderIdentity, LeaseDurationSeconds: l.LeaseDurationSeconds,
		LeaseTransitions: l.LeaseTransitions, AcquireTime: micro(l.AcquireTime), RenewTime: micro(l.RenewTime)}
	if dst.Spec.HolderIdentity != nil {
		v := *dst.Spec.HolderIdentity
		dst.Spec.HolderIdentity = &v
	}
	if dst.Spec.LeaseDurationSeconds != nil {
		v := *dst.Spec.LeaseDurationSeconds
		dst.Spec.LeaseDurationSeconds = &v
	}
	if dst.Spec.LeaseTransitions != nil {
		v := *dst.Spec.LeaseTransitions
		dst.Spec.LeaseTransitions = &v
	}
}

// LifecycleLease is what the composed node lifecycle controller reads of
// a node lease (kube-node-lease/<node>).
func LifecycleLease(l *coordinationv1.Lease) nodelifecycle.Lease {
	out := nodelifecycle.Lease{Node: l.Name, ResourceVersion: l.ResourceVersion}
	if l.Spec.RenewTime != nil {
		out.RenewTime = l.Spec.RenewTime.Time
	}
	return out
}
