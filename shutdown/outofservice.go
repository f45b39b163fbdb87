package shutdown

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/enum"
	"github.com/nodelife/nodelife/internal/podorder"
	"github.com/nodelife/nodelife/taints"
)

// DefaultMaxWaitForUnmount is how long the attach-detach controller waits
// for a node to unmount a volume it no longer needs before detaching it by
// force (reconcilerMaxWaitForUnmountDuration, 6 minutes).
const DefaultMaxWaitForUnmount = 6 * time.Minute

// OutOfService reports whether the node carries the out-of-service taint:
// only the key node.kubernetes.io/out-of-service counts, whatever its value
// and effect, as upstream.
func OutOfService(n *core.Node) bool { return n.HasTaintKey(taints.TaintNodeOutOfService) }

// outOfServiceTaint returns the node's first out-of-service taint.
func outOfServiceTaint(n *core.Node) taints.Taint {
	for _, t := range n.Taints {
		if t.Key == taints.TaintNodeOutOfService {
			return t
		}
	}
	return taints.Taint{}
}

// AttachedVolume is a volume attached to the node.
type AttachedVolume struct {
	// Name is the volume's unique name.
	Name string
	// MountedByNode reports that the node lists it in status.volumesInUse.
	MountedByNode bool
	// Pods are the keys (namespace/name) of the pods on the node that use
	// it. The volume is still needed while one of them exists and is not
	// being force deleted.
	Pods []string
	// UnneededSince is when the volume stopped being needed, as the
	// attach-detach controller recorded it; zero means now.
	UnneededSince time.Time
}

// VolumeAction says what happens to an attached volume.
type VolumeAction int

const (
	// VolumeKeep: a pod still uses the volume.
	VolumeKeep VolumeAction = iota
	// VolumeDetachNow: detach it now.
	VolumeDetachNow
	// VolumeDetachAfter: detach it by force at the first reconcile after
	// At, unless the node unmounts it first.
	VolumeDetachAfter
	// VolumeWaitForUnmount: wait for the node to unmount it, with no
	// deadline (the node is healthy, or force detach is disabled).
	VolumeWaitForUnmount
)

// String returns the action's name.
func (a VolumeAction) String() string {
	return enum.Name(a, "VolumeAction", "Keep", "DetachNow", "DetachAfter", "WaitForUnmount")
}

// Reasons of volume decisions.
const (
	ReasonVolumeInUse        = "VolumeInUse"
	ReasonVolumeUnmounted    = "VolumeUnmounted"
	ReasonOutOfService       = "OutOfServiceTaint"
	ReasonForceDetachTimeout = "ForceDetachTimeout"
	ReasonNodeHealthy        = "NodeHealthy"
	ReasonForceDetachOff     = "ForceDetachDisabled"
)

// VolumeDecision is the planner's verdict on one attached volume.
type VolumeDecision struct {
	// Volume is the volume's name.
	Volume string
	// Action is what to do.
	Action VolumeAction
	// At is the force-detach deadline of decisions with reason
	// ReasonForceDetachTimeout (passed already for VolumeDetachNow).
	At time.Time
	// Reason is one of the ReasonVolume*/Reason* constants.
	Reason string
}

// ForceDeletion is a pod to delete with grace period 0.
type ForceDeletion struct {
	// Pod is the pod.
	Pod core.Pod
	// SetFailed asks to patch status.phase to Failed before deleting, done
	// for pods neither Succeeded nor Failed (no condition is added on this
	// path, unlike the pod GC's orphan deletions).
	SetFailed bool
}

// OutOfServiceConfig holds the non-graceful shutdown settings. The zero
// value is upstream's behaviour except MaxWaitForUnmount, for which 0 means
// DefaultMaxWaitForUnmount.
type OutOfServiceConfig struct {
	// SkipTolerating, when true, does not force delete a terminating pod
	// that tolerates the node's out-of-service taint, as the non-graceful
	// shutdown documentation words it ("pods ... will be forcefully
	// deleted if there are no matching tolerations"). Upstream's pod GC
	// does not look at tolerations: tolerations only keep the taint
	// eviction controller from deleting a pod under a NoExecute
	// out-of-service taint, and a pod deleted by anyone else is force
	// deleted all the same. Off by default.
	SkipTolerating bool
	// MaxWaitForUnmount is how long a volume may stay mounted on an
	// unhealthy node before it is detached by force; 0 means
	// DefaultMaxWaitForUnmount.
	MaxWaitForUnmount time.Duration
	// DisableForceDetachOnTimeout is kube-controller-manager's
	// --disable-force-detach-on-timeout: never detach a mounted volume by
	// force because of the timeout (the out-of-service taint still does).
	DisableForceDetachOnTimeout bool
}

// OutOfServicePlan is what the control plane does about a node after a
// non-graceful shutdown.
type OutOfServicePlan struct {
	// OutOfService and NotReady are the two node conditions of force
	// deletion.
	OutOfService, NotReady bool
	// ForceDelete lists the pods to force delete, in upstream's order:
	// evicted pods first, then oldest first, then by name (then namespace
	// and UID, so that the order is total).
	ForceDelete []ForceDeletion
	// Volumes has one decision per attached volume, in input order.
	Volumes []VolumeDecision
}

// Plan decides which of the node's pods the pod GC force deletes
// (gcTerminating) and what the attach-detach controller does with the
// node's attached volumes. A pod is force deleted when it is terminating
// (DeletionTimestamp set), the node's Ready condition is not True, and the
// node carries the out-of-service taint key; under SkipTolerating, pods
// tolerating that taint are spared. pods must be the pods bound to node;
// the inputs are not modified.
//
// Each volume not needed any more (no pod of it remains once the force
// deletions are done) is detached now when the node is out of service or
// does not mount it; otherwise, on a node that is not Ready, after
// MaxWaitForUnmount from UnneededSince; on a Ready node, only once
// unmounted.
func (c OutOfServiceConfig) Plan(now time.Time, node core.Node, pods []core.Pod, volumes []AttachedVolume) OutOfServicePlan {
	p := OutOfServicePlan{OutOfService: OutOfService(&node), NotReady: !node.Ready()}
	var oos taints.Taint
	if p.OutOfService {
		oos = outOfServiceTaint(&node)
	}
	var picked []int
	if p.OutOfService && p.NotReady {
		for i := range pods {
			if !pods[i].Deleting() {
				continue
			}
			if c.SkipTolerating && taints.TolerationsTolerateTaint(pods[i].Tolerations, &oos) {
				continue
			}
			picked = append(picked, i)
		}
		// Sort indices, not pods: a Pod is large and the comparator is
		// called n log n times.
		slices.SortStableFunc(picked, func(a, b int) int { return compareForDeletion(&pods[a], &pods[b]) })
		p.ForceDelete = make([]ForceDeletion, len(picked))
		for k, i := range picked {
			p.ForceDelete[k] = ForceDeletion{Pod: pods[i], SetFailed: !pods[i].Phase.Terminated()}
		}
	}
	if len(volumes) == 0 {
		return p
	}
	// A pod still needs its volumes unless it is gone or force deleted.
	needed := make(map[podName]bool, len(pods))
	for i := range pods {
		needed[podName{pods[i].Namespace, pods[i].Name}] = true
	}
	for _, i := range picked {
		needed[podName{pods[i].Namespace, pods[i].Name}] = false
	}
	maxWait := cmp.Or(c.MaxWaitForUnmount, DefaultMaxWaitForUnmount)
	p.Volumes = make([]VolumeDecision, len(volumes))
	for i, v := range volumes {
		p.Volumes[i] = c.decideVolume(v, p, needed, maxWait, now)
	}
	return p
}

// podName is a pod's namespace and name, a map key that costs no
// allocation to build.
type podName struct{ namespace, name string }

// decideVolume applies the attach-detach reconciler's rules to one volume.
func (c OutOfServiceConfig) decideVolume(v AttachedVolume, p OutOfServicePlan, needed map[podName]bool, maxWait time.Duration, now time.Time) VolumeDecision {
	d := VolumeDecision{Volume: v.Name}
	for _, k := range v.Pods {
		ns, name, _ := strings.Cut(k, "/")
		if needed[podName{ns, name}] {
			d.Reason = ReasonVolumeInUse
			return d
		}
	}
	switch {
	case !v.MountedByNode:
		d.Action, d.Reason = VolumeDetachNow, ReasonVolumeUnmounted
	case p.OutOfService:
		d.Action, d.Reason = VolumeDetachNow, ReasonOutOfService
	case !p.NotReady:
		d.Action, d.Reason = VolumeWaitForUnmount, ReasonNodeHealthy
	case c.DisableForceDetachOnTimeout:
		d.Action, d.Reason = VolumeWaitForUnmount, ReasonForceDetachOff
	default:
		since := v.UnneededSince
		if since.IsZero() || since.After(now) {
			since = now
		}
		d.At = since.Add(maxWait)
		d.Reason = ReasonForceDetachTimeout
		if now.Sub(since) > maxWait {
			d.Action = VolumeDetachNow
		} else {
			d.Action = VolumeDetachAfter
		}
	}
	return d
}

// compareForDeletion orders pods as upstream's byEvictionAndCreationTimestamp
// (see internal/podorder).
func compareForDeletion(a, b *core.Pod) int {
	return podorder.Compare(
		podorder.Key{Evicted: a.Evicted(), Created: a.CreationTimestamp, Name: a.Name, Namespace: a.Namespace, UID: a.UID},
		podorder.Key{Evicted: b.Evicted(), Created: b.CreationTimestamp, Name: b.Name, Namespace: b.Namespace, UID: b.UID})
}
