package pressure

import "github.com/nodelife/nodelife/internal/enum"

// The signal-to-reclaim mapping: what the kubelet frees on the node itself
// before it evicts a pod for a disk signal.

// ReclaimKind is a node-level reclaim the kubelet runs before evicting.
type ReclaimKind int

const (
	// ReclaimContainers deletes every dead container and sandbox
	// (containerGC.DeleteAllUnusedContainers; gc.PlanContainers with
	// ContainerGCInput.EvictNonDeletedPods set).
	ReclaimContainers ReclaimKind = iota
	// ReclaimImages deletes every unused image
	// (imageGC.DeleteUnusedImages; see gc.PlanUnusedImages).
	ReclaimImages
)

// String returns "DeleteAllUnusedContainers" or "DeleteUnusedImages".
func (k ReclaimKind) String() string {
	return enum.Name(k, "ReclaimKind", "DeleteAllUnusedContainers", "DeleteUnusedImages")
}

// ReclaimFor returns the node-level reclaims the kubelet runs, in order,
// for pressure on signal under a layout (upstream's
// buildSignalToNodeReclaimFuncs):
//
//   - LayoutSingle: every disk signal deletes unused containers, then
//     unused images;
//   - LayoutImageFs: nodefs signals reclaim nothing (kubernetes#129616);
//     imagefs and containerfs delete containers, then images;
//   - LayoutSplit: nodefs and containerfs delete containers; imagefs
//     deletes images.
//
// Memory and pid signals reclaim nothing.
func ReclaimFor(s Signal, l Layout) []ReclaimKind {
	both := []ReclaimKind{ReclaimContainers, ReclaimImages}
	switch s {
	case SignalNodeFsAvailable, SignalNodeFsInodesFree:
		switch l {
		case LayoutImageFs:
			return nil
		case LayoutSplit:
			return []ReclaimKind{ReclaimContainers}
		}
		return both
	case SignalImageFsAvailable, SignalImageFsInodesFree:
		if l == LayoutSplit {
			return []ReclaimKind{ReclaimImages}
		}
		return both
	case SignalContainerFsAvailable, SignalContainerFsInodesFree:
		if l == LayoutSplit {
			return []ReclaimKind{ReclaimContainers}
		}
		return both
	}
	return nil
}
