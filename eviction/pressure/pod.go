package pressure

import (
	"math"
	"strings"

	"github.com/nodelife/nodelife/taints"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Resources are the two requests and limits eviction looks at. A zero
// Quantity is an absent entry.
type Resources struct {
	// Memory is resources.requests.memory (or limits).
	Memory resource.Quantity
	// EphemeralStorage is resources.requests.ephemeral-storage (or limits).
	EphemeralStorage resource.Quantity
}

// Container is the part of a core/v1 Container eviction reads.
type Container struct {
	// Name is the container name; stats are matched to it.
	Name string
	// Sidecar marks an init container with restartPolicy Always: its
	// requests add to the regular containers' and stay reserved for the
	// init containers after it.
	Sidecar bool
	// Requests are resources.requests.
	Requests Resources
	// Limits are resources.limits; only ephemeral storage is read, by the
	// local-storage checks.
	Limits Resources
}

// Volume is a pod volume as eviction sees it.
type Volume struct {
	// Name is the volume name; volume stats are matched to it.
	Name string
	// Local marks a volume whose data sits on the node's disk: hostPath,
	// gitRepo, configMap, and emptyDir on the default medium (upstream's
	// localVolumeNames). Only local volumes count toward disk ranking.
	Local bool
	// EmptyDirSizeLimit is emptyDir.sizeLimit, nil when the volume is not
	// an emptyDir or has no limit.
	EmptyDirSizeLimit *resource.Quantity
}

// FsUsage is a filesystem usage reading (statsapi.FsStats).
type FsUsage struct {
	// UsedBytes is the bytes used; nil counts as 0.
	UsedBytes *uint64
	// InodesUsed is the inodes used; nil counts as 0.
	InodesUsed *uint64
}

// ContainerStats is one container's reading in the stats summary.
type ContainerStats struct {
	// Name is the container name.
	Name string
	// WorkingSetBytes is the memory working set; nil counts as 0.
	WorkingSetBytes *uint64
	// Rootfs is the writable layer; nil counts as 0.
	Rootfs *FsUsage
	// Logs is the container's log files; nil counts as 0.
	Logs *FsUsage
}

// VolumeStats is one volume's reading in the stats summary.
type VolumeStats struct {
	// Name is the volume name.
	Name string
	FsUsage
}

// PodStats is a pod's reading in the stats summary (statsapi.PodStats).
type PodStats struct {
	// WorkingSetBytes is the pod's memory working set; nil counts as 0.
	WorkingSetBytes *uint64
	// ProcessCount is the pod's process count; nil counts as 0.
	ProcessCount *uint64
	// EphemeralStorageUsedBytes is the pod's total ephemeral storage use
	// (containers, volumes, logs), for the pod ephemeral-storage limit.
	EphemeralStorageUsedBytes *uint64
	// Containers are the per-container readings.
	Containers []ContainerStats
	// Volumes are the per-volume readings.
	Volumes []VolumeStats
}

// Pod is the part of an active pod (and its stats) that ranking,
// eviction and admission read. Field names follow core/v1.
type Pod struct {
	// Name, Namespace and UID identify the pod; they also order pods that
	// tie on everything else.
	Name, Namespace, UID string
	// Priority is spec.priority; nil counts as 0.
	Priority *int32
	// Static marks a pod from a file or URL source on this kubelet.
	Static bool
	// Mirror marks a mirror pod (kubernetes.io/config.mirror annotation).
	Mirror bool
	// TerminationGracePeriodSeconds is the pod's own grace period (nil:
	// the API default, 30 s). Read only with Config.SoftGracePodAware.
	TerminationGracePeriodSeconds *int64
	// InitContainers and Containers give the requests and the container
	// names for eviction messages. Ephemeral containers never count.
	InitContainers, Containers []Container
	// Overhead is spec.overhead; it is added to a non-zero request.
	Overhead Resources
	// PodLevel is spec.resources.requests for a pod with pod-level
	// resources (PodLevelResources): it replaces the containers' memory
	// request, and the pod's ephemeral-storage request is then 0.
	PodLevel *Resources
	// Volumes are the pod's volumes.
	Volumes []Volume
	// Stats is the pod's reading; nil means the summary has none, and the
	// pod ranks first for every signal.
	Stats *PodStats
	// QOSClass is status.qosClass ("BestEffort", "Burstable",
	// "Guaranteed"); read only by Admit.
	QOSClass string
	// Tolerations are spec.tolerations; read only by Admit.
	Tolerations []taints.Toleration
}

// String returns "namespace/name".
func (p *Pod) String() string { return p.Namespace + "/" + p.Name }

// IsCritical reports whether the pod is critical (upstream's
// IsCriticalPod): a static pod, a mirror pod, or priority >= 2000000000.
// Critical pods are never evicted and always admitted.
func (p *Pod) IsCritical() bool {
	return p.Static || p.Mirror || (p.Priority != nil && *p.Priority >= CriticalPodPriority)
}

func (p *Pod) priority() int32 {
	if p.Priority == nil {
		return 0
	}
	return *p.Priority
}

// DefaultTerminationGracePeriodSeconds is the API default of
// spec.terminationGracePeriodSeconds.
const DefaultTerminationGracePeriodSeconds int64 = 30

func (p *Pod) gracePeriod() int64 {
	if p.TerminationGracePeriodSeconds == nil {
		return DefaultTerminationGracePeriodSeconds
	}
	return *p.TerminationGracePeriodSeconds
}

// Request returns the pod's effective request of a resource, in milli-units
// (bytes x 1000), as upstream's GetResourceRequestQuantity: the regular
// containers' sum (plus sidecars) or the largest init container's need,
// whichever is larger; the pod-level request instead when set; plus the
// overhead when the result is not zero. Resources other than memory and
// ephemeral storage have no request. Values saturate at the int64 range.
func (p *Pod) Request(r Resource) int64 {
	if r != ResourceMemory && r != ResourceEphemeralStorage {
		return 0
	}
	var q resource.Quantity
	switch {
	case p.PodLevel != nil:
		if r == ResourceMemory {
			q = p.PodLevel.Memory.DeepCopy()
		}
	default:
		q, _ = p.aggregate(r, false)
	}
	if !q.IsZero() {
		q.Add(*p.Overhead.get(r))
	}
	return milli(q)
}

// aggregate combines the containers' requests (or limits) of r the way
// upstream's PodRequests and PodLimits do: regular containers and sidecars
// add up; each init container needs its own amount plus the sidecars
// started before it; the pod needs the larger of the two. found reports
// whether any container sets a non-zero amount.
func (p *Pod) aggregate(r Resource, limits bool) (sum resource.Quantity, found bool) {
	pick := func(c *Container) *resource.Quantity {
		if limits {
			return c.Limits.get(r)
		}
		return c.Requests.get(r)
	}
	for i := range p.Containers {
		if q := pick(&p.Containers[i]); !q.IsZero() {
			sum.Add(*q)
			found = true
		}
	}
	var sidecars, initMax resource.Quantity
	for i := range p.InitContainers {
		c := pick(&p.InitContainers[i])
		found = found || !c.IsZero()
		need := c.DeepCopy()
		if p.InitContainers[i].Sidecar {
			sum.Add(*c)
			sidecars.Add(*c)
			need = sidecars.DeepCopy()
		} else {
			need.Add(sidecars)
		}
		if need.Cmp(initMax) > 0 {
			initMax = need
		}
	}
	if initMax.Cmp(sum) > 0 {
		sum = initMax
	}
	return sum, found
}

// get returns the resource's quantity.
func (r *Resources) get(res Resource) *resource.Quantity {
	if res == ResourceMemory {
		return &r.Memory
	}
	return &r.EphemeralStorage
}

// milli returns q in milli-units, saturated to the int64 range.
func milli(q resource.Quantity) int64 {
	const limit = math.MaxInt64 / 1000
	switch {
	case q.CmpInt64(limit) > 0:
		return math.MaxInt64
	case q.CmpInt64(-limit) < 0:
		return math.MinInt64
	}
	return q.MilliValue()
}

// milliOf returns an unsigned reading in milli-units, saturated.
func milliOf(v uint64) int64 {
	if v > math.MaxInt64/1000 {
		return math.MaxInt64
	}
	return int64(v) * 1000
}

func addSat(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

func subSat(a, b int64) int64 {
	if b == math.MinInt64 {
		return addSat(addSat(a, math.MaxInt64), 1)
	}
	return addSat(a, -b)
}

func val(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

func fsBytes(u *FsUsage) uint64 {
	if u == nil {
		return 0
	}
	return val(u.UsedBytes)
}

func fsInodes(u *FsUsage) uint64 {
	if u == nil {
		return 0
	}
	return val(u.InodesUsed)
}

// FsParts are the parts of a pod's disk use that a disk signal counts.
type FsParts uint8

// The parts of a pod's disk use. Images have no per-pod reading in the
// stats summary, so PartImages is listed where upstream lists it but adds
// nothing to a pod's usage.
const (
	PartImages FsParts = 1 << iota
	PartRootfs
	PartLogs
	PartLocalVolumes
)

// String lists the parts, e.g. "rootfs+logs".
func (f FsParts) String() string {
	var parts []string
	for i, name := range [...]string{"images", "rootfs", "logs", "local volumes"} {
		if f&(1<<i) != 0 {
			parts = append(parts, name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}

// DiskParts returns what a disk signal counts of a pod's use under a
// layout (upstream's buildSignalToRankFunc):
//
//   - LayoutSingle: every disk signal counts images, rootfs, logs and
//     local volumes;
//   - LayoutImageFs: nodefs counts logs and local volumes; imagefs and
//     containerfs count rootfs and images;
//   - LayoutSplit: nodefs and containerfs count logs, local volumes and
//     rootfs; imagefs counts images only.
//
// It returns 0 for memory and pid signals.
func DiskParts(s Signal, l Layout) FsParts {
	all := PartImages | PartRootfs | PartLogs | PartLocalVolumes
	switch s {
	case SignalNodeFsAvailable, SignalNodeFsInodesFree:
		switch l {
		case LayoutImageFs:
			return PartLogs | PartLocalVolumes
		case LayoutSplit:
			return PartLogs | PartLocalVolumes | PartRootfs
		}
		return all
	case SignalImageFsAvailable, SignalImageFsInodesFree:
		switch l {
		case LayoutImageFs:
			return PartRootfs | PartImages
		case LayoutSplit:
			return PartImages
		}
		return all
	case SignalContainerFsAvailable, SignalContainerFsInodesFree:
		// containerfs counts what the filesystem holding the writable
		// layers counts: imagefs with a dedicated imagefs, else nodefs.
		if l == LayoutImageFs {
			return DiskParts(SignalImageFsAvailable, l)
		}
		return DiskParts(SignalNodeFsAvailable, l)
	}
	return 0
}

// diskUsage returns the pod's use of the parts, in bytes or inodes
// (upstream's podDiskUsage): every container reading's rootfs and logs,
// and each local volume's first reading.
func diskUsage(p *Pod, parts FsParts, inodes bool) uint64 {
	st := p.Stats
	get := fsBytes
	if inodes {
		get = fsInodes
	}
	var sum uint64
	for i := range st.Containers {
		if parts&PartRootfs != 0 {
			sum += get(st.Containers[i].Rootfs)
		}
		if parts&PartLogs != 0 {
			sum += get(st.Containers[i].Logs)
		}
	}
	if parts&PartLocalVolumes != 0 {
		for _, v := range p.Volumes {
			if !v.Local {
				continue
			}
			for j := range st.Volumes {
				if st.Volumes[j].Name == v.Name {
					sum += get(&st.Volumes[j].FsUsage)
					break
				}
			}
		}
	}
	return sum
}
