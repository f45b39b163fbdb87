package pressure

import (
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/internal/enum"
)

// Signal is an eviction signal, the name of one quantity the kubelet
// watches (k8s.io/kubernetes/pkg/kubelet/eviction/api.Signal). Each signal
// is compared with "less than": a threshold on it is met when less is
// available than the threshold.
type Signal string

// The signals the kubelet accepts in --eviction-hard, --eviction-soft,
// --eviction-soft-grace-period and --eviction-minimum-reclaim.
const (
	// SignalMemoryAvailable: memory available on the node; on Linux the
	// node's available bytes, capacity = available + working set.
	SignalMemoryAvailable Signal = "memory.available"
	// SignalAllocatableMemoryAvailable: memory available to pods, from the
	// "pods" system container. Not written by users: the parser copies each
	// hard memory.available threshold to it when "pods" is in
	// enforceNodeAllocatable.
	SignalAllocatableMemoryAvailable Signal = "allocatableMemory.available"
	// SignalNodeFsAvailable: bytes free on the kubelet's root filesystem
	// (volumes, logs, and on a single disk everything else).
	SignalNodeFsAvailable Signal = "nodefs.available"
	// SignalNodeFsInodesFree: inodes free on the node filesystem.
	SignalNodeFsInodesFree Signal = "nodefs.inodesFree"
	// SignalImageFsAvailable: bytes free on the runtime's image filesystem.
	SignalImageFsAvailable Signal = "imagefs.available"
	// SignalImageFsInodesFree: inodes free on the image filesystem.
	SignalImageFsInodesFree Signal = "imagefs.inodesFree"
	// SignalContainerFsAvailable: bytes free on the filesystem holding the
	// containers' writable layers. Its thresholds are derived from the
	// nodefs or imagefs ones (see UpdateContainerFsThresholds).
	SignalContainerFsAvailable Signal = "containerfs.available"
	// SignalContainerFsInodesFree: inodes free on the container filesystem.
	SignalContainerFsInodesFree Signal = "containerfs.inodesFree"
	// SignalPIDAvailable: process IDs left before the node's pid_max.
	SignalPIDAvailable Signal = "pid.available"
)

// signalOrder lists every signal in the order this package acts on them
// when several thresholds are actionable at once: memory first (as
// upstream), then PIDs, then the filesystems. The position is also the
// signal's index in Observations.
var signalOrder = [...]Signal{
	SignalMemoryAvailable,
	SignalAllocatableMemoryAvailable,
	SignalPIDAvailable,
	SignalNodeFsAvailable,
	SignalNodeFsInodesFree,
	SignalImageFsAvailable,
	SignalImageFsInodesFree,
	SignalContainerFsAvailable,
	SignalContainerFsInodesFree,
}

const numSignals = len(signalOrder)

// Signals returns every valid signal, memory first, then pid, nodefs,
// imagefs and containerfs.
func Signals() []Signal { return append([]Signal(nil), signalOrder[:]...) }

// index returns the signal's position in signalOrder, or -1 for a signal
// the kubelet does not know.
func (s Signal) index() int {
	switch s {
	case SignalMemoryAvailable:
		return 0
	case SignalAllocatableMemoryAvailable:
		return 1
	case SignalPIDAvailable:
		return 2
	case SignalNodeFsAvailable:
		return 3
	case SignalNodeFsInodesFree:
		return 4
	case SignalImageFsAvailable:
		return 5
	case SignalImageFsInodesFree:
		return 6
	case SignalContainerFsAvailable:
		return 7
	case SignalContainerFsInodesFree:
		return 8
	}
	return -1
}

// Valid reports whether the kubelet accepts the signal (upstream's
// validSignal). swap.available is not one: it exists only in an unmerged
// upstream branch.
func (s Signal) Valid() bool { return s.index() >= 0 }

// Resource is the resource a signal measures, as named in eviction
// messages and the starved_resource annotation.
type Resource string

// The resources behind the signals. Inodes and pids are the kubelet's own
// names; they are not core/v1 resource names.
const (
	ResourceMemory           Resource = "memory"
	ResourceEphemeralStorage Resource = "ephemeral-storage"
	ResourceInodes           Resource = "inodes"
	ResourcePIDs             Resource = "pids"
)

// Resource returns the resource the signal measures (upstream's
// signalToResource), or "" for an unknown signal.
func (s Signal) Resource() Resource {
	switch s {
	case SignalMemoryAvailable, SignalAllocatableMemoryAvailable:
		return ResourceMemory
	case SignalNodeFsAvailable, SignalImageFsAvailable, SignalContainerFsAvailable:
		return ResourceEphemeralStorage
	case SignalNodeFsInodesFree, SignalImageFsInodesFree, SignalContainerFsInodesFree:
		return ResourceInodes
	case SignalPIDAvailable:
		return ResourcePIDs
	}
	return ""
}

// Condition returns the node condition a met threshold on the signal
// reports (upstream's signalToNodeCondition), or "" for an unknown signal.
func (s Signal) Condition() conditions.Type {
	switch s.Resource() {
	case ResourceMemory:
		return conditions.MemoryPressure
	case ResourceEphemeralStorage, ResourceInodes:
		return conditions.DiskPressure
	case ResourcePIDs:
		return conditions.PIDPressure
	}
	return ""
}

// isMemory reports whether the signal is one of the two memory signals.
func (s Signal) isMemory() bool { return s.Resource() == ResourceMemory }

// Layout is how the node's filesystems are arranged, which decides what
// each disk signal counts, how containerfs thresholds are derived and what
// node-level reclaim runs. The kubelet detects it once, at its first
// eviction cycle (HasDedicatedImageFs and IsContainerFsSeparateFromImageFs).
type Layout int

const (
	// LayoutSingle: images, writable layers, logs and volumes share the
	// node filesystem.
	LayoutSingle Layout = iota
	// LayoutImageFs: a dedicated image filesystem holds images and the
	// containers' writable layers; nodefs holds logs and volumes.
	LayoutImageFs
	// LayoutSplit: images on the image filesystem, writable layers on the
	// node filesystem with logs and volumes (KubeletSeparateDiskGC).
	LayoutSplit
)

// String returns "single", "imagefs" or "split".
func (l Layout) String() string { return enum.Name(l, "Layout", "single", "imagefs", "split") }

func (l Layout) valid() bool { return l >= LayoutSingle && l <= LayoutSplit }
