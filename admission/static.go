package admission

import (
	"strings"

	"github.com/nodelife/nodelife/core"
)

// SystemNodeCritical is the priority class that makes a critical pod
// node-critical.
const SystemNodeCritical = "system-node-critical"

// IsStaticPod reports whether p came from a manifest file or URL: it has a
// config source annotation and the source is not the API server.
func IsStaticPod(p *Pod) bool {
	src, ok := p.Annotations[core.ConfigSourceAnnotation]
	return ok && src != core.SourceAPIServer
}

// IsMirrorPod reports whether p is the API server's mirror of a static pod
// (it has the mirror annotation, whatever its value).
func IsMirrorPod(p *Pod) bool {
	_, ok := p.Annotations[core.ConfigMirrorAnnotation]
	return ok
}

// IsMirrorPodOf reports whether mirror mirrors static: same name and
// namespace, and its mirror annotation equals the static pod's config hash.
func IsMirrorPodOf(mirror, static *Pod) bool {
	if mirror.Name != static.Name || mirror.Namespace != static.Namespace {
		return false
	}
	hash, ok := mirror.Annotations[core.ConfigMirrorAnnotation]
	return ok && hash == static.Annotations[core.ConfigHashAnnotation]
}

// IsCriticalPod reports whether the kubelet treats p as critical: a static
// or mirror pod, or a priority of at least core.SystemCriticalPriority.
func IsCriticalPod(p *Pod) bool {
	return IsStaticPod(p) || IsMirrorPod(p) || p.Priority != nil && *p.Priority >= core.SystemCriticalPriority
}

// IsNodeCriticalPod reports whether p is critical and of the
// system-node-critical priority class.
func IsNodeCriticalPod(p *Pod) bool {
	return IsCriticalPod(p) && p.PriorityClassName == SystemNodeCritical
}

// Preemptable reports whether the kubelet may evict preemptee to admit
// preemptor: a critical pod preempts any pod that is not critical, and
// otherwise a higher priority preempts a lower one when both are set.
func Preemptable(preemptor, preemptee *Pod) bool {
	if IsCriticalPod(preemptor) && !IsCriticalPod(preemptee) {
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
func PodFullName(p *Pod) string { return p.Name + "_" + p.Namespace }

// cgroupPod is the view of p the cgroup computations read. It shares p's
// slices and maps.
func (p *Pod) cgroupPod() core.Pod {
	return core.Pod{
		Namespace:      p.Namespace,
		Name:           p.Name,
		UID:            p.UID,
		Annotations:    p.Annotations,
		Priority:       p.Priority,
		QOSClass:       p.QOSClass,
		InitContainers: p.InitContainers,
		Containers:     p.Containers,
		Resources:      p.Resources,
		Overhead:       p.Overhead,
	}
}
