package kubeapi

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodelife/nodelife/admission"
	"github.com/nodelife/nodelife/cgroup"
)

// AdmissionPod is what the kubelet's admission reads of a pod: identity,
// labels and annotations, node name, node selector and required node
// affinity, tolerations, OS, supplemental groups policy, priority, the
// resources (as CgroupPod) and the host ports of the containers and of the
// sidecar init containers.
func AdmissionPod(p *corev1.Pod) admission.Pod {
	cp := CgroupPod(p)
	out := admission.Pod{
		Namespace: p.Namespace, Name: p.Name, UID: string(p.UID),
		Labels: p.Labels, Annotations: p.Annotations,
		DeletionTimestamp: timePtr(p.DeletionTimestamp),
		NodeName:          p.Spec.NodeName, NodeSelector: p.Spec.NodeSelector,
		Tolerations: Tolerations(p.Spec.Tolerations),
		Priority:    p.Spec.Priority, PriorityClassName: p.Spec.PriorityClassName,
		QOSClass:       cgroup.QOSClass(p.Status.QOSClass),
		InitContainers: cp.InitContainers, Containers: cp.Containers,
		Resources: cp.Resources, Overhead: cp.Overhead,
	}
	if p.Spec.OS != nil {
		out.OS = string(p.Spec.OS.Name)
	}
	if sc := p.Spec.SecurityContext; sc != nil && sc.SupplementalGroupsPolicy != nil {
		out.SupplementalGroupsPolicy = string(*sc.SupplementalGroupsPolicy)
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		ns := &admission.NodeSelector{}
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			ns.Terms = append(ns.Terms, admission.Term{MatchExpressions: requirements(t.MatchExpressions), MatchFields: requirements(t.MatchFields)})
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
	return out
}

func requirements(in []corev1.NodeSelectorRequirement) []admission.Requirement {
	if in == nil {
		return nil
	}
	out := make([]admission.Requirement, len(in))
	for i, r := range in {
		out[i] = admission.Requirement{Key: r.Key, Operator: string(r.Operator), Values: r.Values}
	}
	return out
}

func appendPorts(out []admission.ContainerPort, ports []corev1.ContainerPort) []admission.ContainerPort {
	for _, p := range ports {
		if p.HostPort > 0 {
			out = append(out, admission.ContainerPort{HostPort: p.HostPort, Protocol: string(p.Protocol), HostIP: p.HostIP})
		}
	}
	return out
}

// AdmissionNode is what the kubelet's admission reads of its Node: name,
// UID, labels, taints, allocatable, status.features and the deletion
// timestamp.
func AdmissionNode(n *corev1.Node) admission.Node {
	out := admission.Node{
		Name: n.Name, UID: string(n.UID), Labels: n.Labels,
		Taints:            Taints(n.Spec.Taints),
		Allocatable:       resourceList(n.Status.Allocatable),
		DeletionTimestamp: timePtr(n.DeletionTimestamp),
	}
	if f := n.Status.Features; f != nil {
		out.Features.SupplementalGroupsPolicy = f.SupplementalGroupsPolicy
	}
	return out
}
