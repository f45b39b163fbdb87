package snapshot

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/examples/sim"
)

// Cluster converts the snapshot into the simulator's explicit cluster:
// nodes with their labels (zones), taints and Ready status; pods with
// their tolerations (admission's defaults are already in the objects),
// priority, priority class, grace period, memory request, static and
// mirror marks, and their workload: the controller owner reference, with
// a ReplicaSet named "<deployment>-<pod-template-hash>" read as its
// Deployment.
func (s *Snapshot) Cluster() *sim.Cluster {
	c := &sim.Cluster{Nodes: make([]sim.Node, 0, len(s.Nodes)), Pods: make([]sim.Pod, 0, len(s.Pods)), Refused: s.Refused}
	for _, n := range s.Nodes {
		c.Nodes = append(c.Nodes, sim.Node{Name: n.Name, Labels: n.Labels, Taints: kubeapi.Taints(n.Spec.Taints),
			Ready: kubeapi.ReadyStatus(n), Created: n.CreationTimestamp.Time, Allocatable: kubeapi.AdmissionNode(n).Allocatable})
	}
	for _, p := range s.Pods {
		sp := sim.Pod{Namespace: p.Namespace, Name: p.Name, UID: string(p.UID), Node: p.Spec.NodeName, Phase: string(p.Status.Phase),
			Owner: Workload(p), Tolerations: kubeapi.Tolerations(p.Spec.Tolerations), PriorityClassName: p.Spec.PriorityClassName,
			Created: p.CreationTimestamp.Time, MemoryRequest: MemoryRequest(p)}
		if v := p.Spec.Priority; v != nil {
			pr := *v
			sp.Priority = &pr
		}
		if g := p.Spec.TerminationGracePeriodSeconds; g != nil {
			gs := *g
			sp.TerminationGracePeriodSeconds = &gs
		}
		_, sp.Mirror = p.Annotations[corev1.MirrorPodAnnotationKey]
		if src, ok := p.Annotations["kubernetes.io/config.source"]; ok && src != "api" {
			sp.Static = true
		}
		spec := kubeapi.AdmissionPod(p)
		sp.Spec = &spec
		c.Pods = append(c.Pods, sp)
	}
	return c
}

// Workload is the pod's workload: its controller owner reference (the
// first owner reference when none is marked controller), with a
// ReplicaSet whose name is "<name>-<pod-template-hash label>" read as
// the Deployment <name>. A pod without owners has none.
func Workload(p *corev1.Pod) sim.Owner {
	var ref *metav1.OwnerReference
	for i := range p.OwnerReferences {
		if r := &p.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			ref = r
			break
		}
	}
	if ref == nil && len(p.OwnerReferences) > 0 {
		ref = &p.OwnerReferences[0]
	}
	if ref == nil {
		return sim.Owner{}
	}
	if ref.Kind == "ReplicaSet" {
		if hash := p.Labels["pod-template-hash"]; hash != "" {
			if name, ok := strings.CutSuffix(ref.Name, "-"+hash); ok && name != "" {
				return sim.Owner{Kind: "Deployment", Name: name}
			}
		}
	}
	return sim.Owner{Kind: ref.Kind, Name: ref.Name}
}

// MemoryRequest is the pod's memory request in bytes as the scheduler
// counts it: the larger of the regular containers' sum (with sidecars) and
// the largest init container's; pod-level resources
// (spec.resources.requests.memory), when set, replace the containers';
// the overhead is added to a request that is not zero.
func MemoryRequest(p *corev1.Pod) int64 {
	var sum, sidecars, initMax int64
	for _, c := range p.Spec.InitContainers {
		m := c.Resources.Requests.Memory().Value()
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars += m
			continue
		}
		initMax = max(initMax, sidecars+m)
	}
	for _, c := range p.Spec.Containers {
		sum += c.Resources.Requests.Memory().Value()
	}
	req := max(sum+sidecars, initMax)
	if r := p.Spec.Resources; r != nil {
		if m, ok := r.Requests[corev1.ResourceMemory]; ok {
			req = m.Value()
		}
	}
	if req > 0 {
		req += p.Spec.Overhead.Memory().Value()
	}
	return req
}
