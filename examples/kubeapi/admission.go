package kubeapi

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodelife/nodelife/admission"
	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
)

// AdmissionPod is what the kubelet's admission reads of a pod: identity,
// labels and annotations, node name, node selector and required node
// affinity, tolerations, OS, supplemental groups policy, priority, the
// resources (as Pod), the resize status when the pod's status reports
// resources (ResizeStatus) and the host ports of the containers and of the
// sidecar init containers.
func AdmissionPod(p *corev1.Pod) admission.Pod {
	cp := Pod(p)
	out := admission.Pod{
		Namespace: p.Namespace, Name: p.Name, UID: string(p.UID),
		Labels: p.Labels, Annotations: p.Annotations,
		DeletionTimestamp: timePtr(p.DeletionTimestamp),
		NodeName:          p.Spec.NodeName, NodeSelector: p.Spec.NodeSelector,
		Tolerations: Tolerations(p.Spec.Tolerations),
		Priority:    p.Spec.Priority, PriorityClassName: p.Spec.PriorityClassName,
		QOSClass:       core.PodQOSClass(p.Status.QOSClass),
		InitContainers: cp.InitContainers, Containers: cp.Containers,
		Resources: cp.Resources, Overhead: cp.Overhead,
	}
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

// ResizeStatus is what p's status says of its resources during an in-place
// resize: the PodResizePending condition's Infeasible reason, every
// container's allocatedResources and resources, and the pod-level ones. ok
// is false when the status reports no resources and no Infeasible resize
// (the pod then counts by its spec alone).
func ResizeStatus(p *corev1.Pod) (st cgroup.ResizeStatus, ok bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodResizePending {
			st.Infeasible = c.Reason == corev1.PodReasonInfeasible
			break
		}
	}
	for _, list := range [2][]corev1.ContainerStatus{p.Status.ContainerStatuses, p.Status.InitContainerStatuses} {
		for _, cs := range list {
			if cs.AllocatedResources == nil && cs.Resources == nil {
				continue
			}
			c := cgroup.ContainerResizeStatus{Name: cs.Name, Allocated: resourceList(cs.AllocatedResources)}
			if cs.Resources != nil {
				r := resources(cs.Resources.Requests, cs.Resources.Limits)
				c.Actuated = &r
			}
			st.Containers = append(st.Containers, c)
		}
	}
	st.Allocated = resourceList(p.Status.AllocatedResources)
	if r := p.Status.Resources; r != nil {
		a := resources(r.Requests, r.Limits)
		st.Actuated = &a
	}
	return st, st.Infeasible || len(st.Containers) > 0 || st.Allocated != nil || st.Actuated != nil
}
