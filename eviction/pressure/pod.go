package pressure

import (
	"math"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
)

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

// Stats are the pods' readings in the stats summary, by pod UID, as the
// kubelet's eviction manager looks a pod's reading up. A pod without an
// entry (or with a nil one) has no reading: it ranks first for every
// signal, gets an eviction message without its usage, and is skipped by
// the local-storage checks.
type Stats map[string]*PodStats

// of returns p's reading, or nil.
func (s Stats) of(p *core.Pod) *PodStats { return s[p.UID] }

func priority(p *core.Pod) int32 {
	if p.Priority == nil {
		return 0
	}
	return *p.Priority
}

func gracePeriod(p *core.Pod) int64 {
	if p.TerminationGracePeriodSeconds == nil {
		return core.DefaultTerminationGracePeriodSeconds
	}
	return *p.TerminationGracePeriodSeconds
}

// Request returns the pod's effective request of a resource, in milli-units
// (bytes x 1000), as upstream's GetResourceRequestQuantity: the regular
// containers' sum (plus sidecars) or the largest init container's need,
// whichever is larger; for a pod that sets pod-level resources
// (core.Pod.PodLevelResourcesSet), its pod-level request instead, which
// only memory has here (ephemeral storage is not a pod-level resource, so
// such a pod requests none); plus the overhead when the result is not zero.
// Resources other than memory and ephemeral storage have no request. Values
// saturate at the int64 range.
func Request(p *core.Pod, r Resource) int64 {
	if r != ResourceMemory && r != ResourceEphemeralStorage {
		return 0
	}
	var q resource.Quantity
	switch {
	case p.PodLevelResourcesSet():
		if r == ResourceMemory {
			q = p.Resources.Requests[core.ResourceMemory].DeepCopy()
		}
	default:
		q, _ = aggregate(p, r, false)
	}
	if !q.IsZero() {
		q.Add(p.Overhead[r.name()])
	}
	return milli(q)
}

// aggregate combines the containers' requests (or limits) of r the way
// upstream's PodRequests and PodLimits do: regular containers and sidecars
// add up; each init container needs its own amount plus the sidecars
// started before it; the pod needs the larger of the two. found reports
// whether any container sets a non-zero amount.
func aggregate(p *core.Pod, r Resource, limits bool) (sum resource.Quantity, found bool) {
	name := r.name()
	pick := func(c *core.Container) resource.Quantity {
		if limits {
			return c.Resources.Limits[name]
		}
		return c.Resources.Requests[name]
	}
	for i := range p.Containers {
		if q := pick(&p.Containers[i]); !q.IsZero() {
			sum.Add(q)
			found = true
		}
	}
	var sidecars, initMax resource.Quantity
	for i := range p.InitContainers {
		c := pick(&p.InitContainers[i])
		found = found || !c.IsZero()
		need := c.DeepCopy()
		if sidecar(&p.InitContainers[i]) {
			sum.Add(c)
			sidecars.Add(c)
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

// sidecar reports whether an init container is a sidecar (restartPolicy
// Always).
func sidecar(c *core.Container) bool { return c.RestartPolicy == core.ContainerRestartPolicyAlways }

// name returns the core/v1 resource name of memory and ephemeral storage,
// the two resources a pod requests here.
func (r Resource) name() core.ResourceName {
	if r == ResourceMemory {
		return core.ResourceMemory
	}
	return core.ResourceEphemeralStorage
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
func diskUsage(p *core.Pod, st *PodStats, parts FsParts, inodes bool) uint64 {
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
		for i := range p.Volumes {
			v := &p.Volumes[i]
			if v.Source != core.VolumeHostPath && !v.LocalEphemeral() {
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
