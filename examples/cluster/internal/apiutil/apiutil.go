package apiutil

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/nodelife/nodelife/lease"
)

// SetPodCondition adds c to p's status or replaces the condition of its
// type, keeping the old transition time when the status does not change.
func SetPodCondition(p *corev1.Pod, c corev1.PodCondition) {
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

// Outcome maps an API error to the outcome a lease.Heartbeat or a
// lease.Elector expects: a 409 or an existing object is a lost race, a 404
// is NotFound, anything else a failure.
func Outcome(err error) lease.Outcome {
	switch {
	case err == nil:
		return lease.OK
	case apierrors.IsConflict(err), apierrors.IsAlreadyExists(err):
		return lease.Conflict
	case apierrors.IsNotFound(err):
		return lease.NotFound
	default:
		return lease.Failed
	}
}
