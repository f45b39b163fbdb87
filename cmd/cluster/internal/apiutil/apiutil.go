package apiutil

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

// MarkNotReady turns p's conditions of the given types False, moving
// their transition time to now when they were not False already, as
// upstream's MarkPodsNotReady (via UpdatePodCondition) and the kubelet's
// terminal status do. Missing conditions are not added.
func MarkNotReady(p *corev1.Pod, now time.Time, types ...corev1.PodConditionType) {
	for i := range p.Status.Conditions {
		c := &p.Status.Conditions[i]
		if slices.Contains(types, c.Type) && c.Status != corev1.ConditionFalse {
			c.Status, c.LastTransitionTime = corev1.ConditionFalse, metav1.NewTime(now)
		}
	}
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
