package admission

import (
	"strings"

	"github.com/nodelife/nodelife/core"
)

// SystemNodeCritical is the priority class that makes a critical pod
// node-critical.
const SystemNodeCritical = "system-node-critical"

// IsMirrorPodOf reports whether mirror mirrors static: same name and
// namespace, and its mirror annotation equals the static pod's config hash.
func IsMirrorPodOf(mirror, static *core.Pod) bool {
	if mirror.Name != static.Name || mirror.Namespace != static.Namespace {
		return false
	}
	hash, ok := mirror.Annotations[core.ConfigMirrorAnnotation]
	return ok && hash == static.Annotations[core.ConfigHashAnnotation]
}

// IsNodeCriticalPod reports whether p is critical and of the
// system-node-critical priority class.
func IsNodeCriticalPod(p *core.Pod) bool {
	return p.IsCritical() && p.PriorityClassName == SystemNodeCritical
}

// Preemptable reports whether the kubelet may evict preemptee to admit
// preemptor: a critical pod preempts any pod that is not critical, and
// otherwise a higher priority preempts a lower one when both are set.
func Preemptable(preemptor, preemptee *core.Pod) bool {
	if preemptor.IsCritical() && !preemptee.IsCritical() {
		return true
	}
	return preemptor.Priority != nil && preemptee.Priority != nil && *preemptor.Priority > *preemptee.Priority
}

// StaticPodName is the name the kubelet gives a static pod named name in
// its manifest on node nodeName: "<name>-<node name in lower case>".
func StaticPodName(name, nodeName string) string {
	return name + "-" + strings.ToLower(nodeName)
}

// PodFullName is the kubelet's key for a pod: "<name>_<namespace>".
func PodFullName(p *core.Pod) string { return p.Name + "_" + p.Namespace }
