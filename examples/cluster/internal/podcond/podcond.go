// Package podcond holds the pod condition helper the agent and the
// controller share.
package podcond

import corev1 "k8s.io/api/core/v1"

// Set adds c to p's status or replaces the condition of its type, keeping
// the old transition time when the status does not change.
func Set(p *corev1.Pod, c corev1.PodCondition) {
	for i := range p.Status.Conditions {
		old := &p.Status.Conditions[i]
		if old.Type == c.Type {
			if old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
			*old = c
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, c)
}
