package core

import (
	"math"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/internal/compact"
	mapkeys "github.com/nodelife/nodelife/internal/keys"
)

// ResourceName names a resource as core/v1 does ("cpu", "memory",
// "hugepages-2Mi", an extended resource such as "nvidia.com/gpu").
type ResourceName string

// The resource names the library reads.
const (
	// ResourceCPU is cpu, in cores (quantities like "500m").
	ResourceCPU ResourceName = "cpu"
	// ResourceMemory is memory, in bytes.
	ResourceMemory ResourceName = "memory"
	// ResourceEphemeralStorage is ephemeral-storage, local disk in bytes.
	ResourceEphemeralStorage ResourceName = "ephemeral-storage"
	// ResourcePods is pods, the number of pods a node takes.
	ResourcePods ResourceName = "pods"
	// ResourcePIDs is pid, the kubelet's name for process IDs in its
	// --system-reserved and --kube-reserved (not a core/v1 resource).
	ResourcePIDs ResourceName = "pid"
	// ResourceHugePagesPrefix starts the name of every huge page resource
	// ("hugepages-2Mi", "hugepages-1Gi").
	ResourceHugePagesPrefix = "hugepages-"
)

// ResourceList maps resource names to quantities, as core/v1's
// ResourceList. A name that is absent and a zero quantity mean the same to
// every reader.
type ResourceList map[ResourceName]resource.Quantity

// String prints the list as "{cpu:500m memory:1Gi}": names sorted,
// quantities as kubectl writes them.
func (l ResourceList) String() string {
	parts := make([]string, 0, len(l))
	for _, name := range mapkeys.Sorted(l) {
		q := l[name]
		parts = append(parts, string(name)+":"+q.String())
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// GoString is String, so that %#v (rapid's form for drawn values) prints
// quantities as kubectl writes them, not field by field.
func (l ResourceList) GoString() string { return l.String() }

// MilliCPU returns the cpu quantity in milliCPU (0 when absent).
func (l ResourceList) MilliCPU() int64 {
	q := l[ResourceCPU]
	return q.MilliValue()
}

// Memory returns the memory quantity in bytes (0 when absent).
func (l ResourceList) Memory() int64 {
	q := l[ResourceMemory]
	return q.Value()
}

// ResourceRequirements holds a container's (or, with PodLevelResources, a
// pod's) requests and limits, as core/v1's ResourceRequirements.
type ResourceRequirements struct {
	// Requests are resources.requests.
	Requests ResourceList
	// Limits are resources.limits.
	Limits ResourceList
}

// String prints the requests and limits that are set, on one line
// ("core.ResourceRequirements{Requests:{cpu:500m} Limits:{cpu:1}}").
func (r ResourceRequirements) String() string { return compact.Sprint(r) }

// GoString is String, for %#v.
func (r ResourceRequirements) GoString() string { return r.String() }

// ContainerRestartPolicyAlways is the restartPolicy that makes an init
// container a sidecar (a restartable init container): it keeps running
// next to the regular containers.
const ContainerRestartPolicyAlways = "Always"

// Container is a container of a pod's spec, the fields of core/v1's
// Container the library reads.
type Container struct {
	// Name is name, unique within the pod.
	Name string
	// Resources are resources: requests and limits.
	Resources ResourceRequirements
	// RestartPolicy is restartPolicy: ContainerRestartPolicyAlways for a
	// sidecar init container, "" otherwise.
	RestartPolicy string
	// Image is image, the image reference.
	Image string
	// HasStartupProbe and HasLivenessProbe report that startupProbe and
	// livenessProbe are set (the kubelet's restart decisions read whether
	// a probe exists; cri.ProbeSpec carries a probe's settings).
	HasStartupProbe, HasLivenessProbe bool
	// SpecJSON is the JSON encoding of the whole core/v1 Container; nil
	// unless the caller needs kubelets 1.17 to 1.30's container hash
	// (cri.SyncOptions.LegacyFullSpecHash), the only reader.
	SpecJSON []byte
}

// PodQOSClass is a pod's quality-of-service class, with core/v1's values.
type PodQOSClass string

// The three QoS classes.
const (
	// PodQOSGuaranteed: every container's cpu and memory requests equal
	// its limits.
	PodQOSGuaranteed PodQOSClass = "Guaranteed"
	// PodQOSBurstable: some request or limit, but not Guaranteed.
	PodQOSBurstable PodQOSClass = "Burstable"
	// PodQOSBestEffort: no cpu or memory request or limit anywhere.
	PodQOSBestEffort PodQOSClass = "BestEffort"
)

// PodLevelResource reports whether upstream honours name in a pod's
// spec.resources (component-helpers' IsSupportedPodLevelResource): cpu,
// memory and huge pages. Other names there are accepted and ignored.
func PodLevelResource(name ResourceName) bool {
	return name == ResourceCPU || name == ResourceMemory || strings.HasPrefix(string(name), ResourceHugePagesPrefix)
}

// PodLevelResourcesSet reports whether p sets a resource at pod level that
// upstream honours (component-helpers' IsPodLevelResourcesSet): a
// PodLevelResource in spec.resources' requests or limits. With the
// PodLevelResources gate on, such a pod is sized by its pod-level values
// instead of its containers'.
func (p *Pod) PodLevelResourcesSet() bool {
	if p.Resources == nil {
		return false
	}
	for _, l := range [...]ResourceList{p.Resources.Requests, p.Resources.Limits} {
		for name := range l {
			if PodLevelResource(name) {
				return true
			}
		}
	}
	return false
}

// HugePagesBytes returns the bytes of huge pages of every size in the
// list: the sum of its hugepages-* entries, saturating at the int64 range.
// Of a node's capacity, it is what the kubelet's summary of v1.37 takes off
// the node's memory available (pressure.NodeStats.HugePagesCapacityBytes).
func (l ResourceList) HugePagesBytes() int64 {
	var sum int64
	for name, q := range l {
		if !strings.HasPrefix(string(name), ResourceHugePagesPrefix) {
			continue
		}
		v := q.Value()
		if v < 0 {
			continue
		}
		if sum > math.MaxInt64-v {
			return math.MaxInt64
		}
		sum += v
	}
	return sum
}
