package snapshot

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// At cluster scale most of a pod's or node's JSON is what no replay reads:
// managed fields, container statuses, probes, volumes, environment, node
// images. Pods and nodes are decoded through the types below, which name
// only the fields kept, so that encoding/json skips the rest instead of
// building it (about half the decoding time for 100,000 pods). The JSON
// names are core/v1's, so a type error still names the field's path.

// objectMeta is the part of metadata kept.
type objectMeta struct {
	Name              string                  `json:"name"`
	Namespace         string                  `json:"namespace"`
	UID               types.UID               `json:"uid"`
	ResourceVersion   string                  `json:"resourceVersion"`
	CreationTimestamp metav1.Time             `json:"creationTimestamp"`
	DeletionTimestamp *metav1.Time            `json:"deletionTimestamp"`
	Labels            map[string]string       `json:"labels"`
	Annotations       map[string]string       `json:"annotations"`
	OwnerReferences   []metav1.OwnerReference `json:"ownerReferences"`
}

func (m *objectMeta) meta(kind, apiVersion string) (metav1.TypeMeta, metav1.ObjectMeta) {
	return metav1.TypeMeta{Kind: kind, APIVersion: apiVersion}, metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
		ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp, DeletionTimestamp: m.DeletionTimestamp,
		Labels: m.Labels, Annotations: m.Annotations, OwnerReferences: m.OwnerReferences}
}

// container is the part of a container kept: what requests, limits,
// sidecars and eviction messages need.
type container struct {
	Name          string                         `json:"name"`
	Resources     corev1.ResourceRequirements    `json:"resources"`
	RestartPolicy *corev1.ContainerRestartPolicy `json:"restartPolicy"`
	Ports         []corev1.ContainerPort         `json:"ports"`
}

func containers(in []container) []corev1.Container {
	if in == nil {
		return nil
	}
	out := make([]corev1.Container, len(in))
	for i, c := range in {
		out[i] = corev1.Container{Name: c.Name, Resources: c.Resources, RestartPolicy: c.RestartPolicy, Ports: c.Ports}
	}
	return out
}

// pod is the part of a Pod kept.
type pod struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   objectMeta `json:"metadata"`
	Spec       podSpec    `json:"spec"`
	Status     podStatus  `json:"status"`
}

// podSpec is the part of a PodSpec kept.
type podSpec struct {
	NodeName                      string                       `json:"nodeName"`
	Tolerations                   []corev1.Toleration          `json:"tolerations"`
	Priority                      *int32                       `json:"priority"`
	PriorityClassName             string                       `json:"priorityClassName"`
	TerminationGracePeriodSeconds *int64                       `json:"terminationGracePeriodSeconds"`
	InitContainers                []container                  `json:"initContainers"`
	Containers                    []container                  `json:"containers"`
	Overhead                      corev1.ResourceList          `json:"overhead"`
	Resources                     *corev1.ResourceRequirements `json:"resources"`
	NodeSelector                  map[string]string            `json:"nodeSelector"`
	Affinity                      *corev1.Affinity             `json:"affinity"`
	OS                            *corev1.PodOS                `json:"os"`
	SecurityContext               *corev1.PodSecurityContext   `json:"securityContext"`
}

// podStatus is the part of a PodStatus kept.
type podStatus struct {
	Phase    corev1.PodPhase    `json:"phase"`
	Reason   string             `json:"reason"`
	QOSClass corev1.PodQOSClass `json:"qosClass"`
}

// decodePod decodes a Pod, and returns the apiVersion and kind as the
// item gives them.
func decodePod(raw []byte) (*corev1.Pod, string, string, error) {
	var p pod
	if !fastPod(raw, &p) {
		p = pod{}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, "", "", err
		}
	}
	out := &corev1.Pod{}
	out.TypeMeta, out.ObjectMeta = p.Metadata.meta("Pod", "v1")
	s := &p.Spec
	out.Spec = corev1.PodSpec{NodeName: s.NodeName, Tolerations: s.Tolerations, Priority: s.Priority, PriorityClassName: s.PriorityClassName,
		TerminationGracePeriodSeconds: s.TerminationGracePeriodSeconds, InitContainers: containers(s.InitContainers),
		Containers: containers(s.Containers), Overhead: s.Overhead, Resources: s.Resources,
		NodeSelector: s.NodeSelector, Affinity: s.Affinity, OS: s.OS, SecurityContext: s.SecurityContext}
	out.Status = corev1.PodStatus{Phase: p.Status.Phase, Reason: p.Status.Reason, QOSClass: p.Status.QOSClass}
	return out, p.APIVersion, p.Kind, nil
}

// node is the part of a Node kept.
type node struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   objectMeta      `json:"metadata"`
	Spec       corev1.NodeSpec `json:"spec"`
	Status     nodeStatus      `json:"status"`
}

// nodeStatus is the part of a NodeStatus kept.
type nodeStatus struct {
	Capacity    corev1.ResourceList    `json:"capacity"`
	Allocatable corev1.ResourceList    `json:"allocatable"`
	Conditions  []corev1.NodeCondition `json:"conditions"`
	Addresses   []corev1.NodeAddress   `json:"addresses"`
}

// decodeNode decodes a Node, and returns the apiVersion and kind as the
// item gives them.
func decodeNode(raw []byte) (*corev1.Node, string, string, error) {
	var n node
	if !fastNode(raw, &n) {
		n = node{}
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, "", "", err
		}
	}
	out := &corev1.Node{Spec: n.Spec}
	out.TypeMeta, out.ObjectMeta = n.Metadata.meta("Node", "v1")
	out.Status = corev1.NodeStatus{Capacity: n.Status.Capacity, Allocatable: n.Status.Allocatable, Conditions: n.Status.Conditions, Addresses: n.Status.Addresses}
	return out, n.APIVersion, n.Kind, nil
}
