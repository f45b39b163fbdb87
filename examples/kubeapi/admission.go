package kubeapi

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodelife/nodelife/core"
)

func requirements(in []corev1.NodeSelectorRequirement) []core.NodeSelectorRequirement {
	if in == nil {
		return nil
	}
	out := make([]core.NodeSelectorRequirement, len(in))
	for i, r := range in {
		out[i] = core.NodeSelectorRequirement{Key: r.Key, Operator: string(r.Operator), Values: r.Values}
	}
	return out
}

func appendPorts(out []core.ContainerPort, ports []corev1.ContainerPort) []core.ContainerPort {
	for _, p := range ports {
		if p.HostPort > 0 {
			out = append(out, core.ContainerPort{HostPort: p.HostPort, Protocol: string(p.Protocol), HostIP: p.HostIP})
		}
	}
	return out
}

// ResizeStatus is what p's status says of its resources during an in-place
// resize: the PodResizePending condition's Infeasible reason, every
// container's allocatedResources and resources, and the pod-level ones. ok
// is false when the status reports no resources and no Infeasible resize
// (the pod then counts by its spec alone).
func ResizeStatus(p *corev1.Pod) (st core.ResizeStatus, ok bool) {
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
			c := core.ContainerResizeStatus{Name: cs.Name, Allocated: resourceList(cs.AllocatedResources)}
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
