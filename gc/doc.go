// Package gc holds the cleanup decisions of the kubelet and the control
// plane's collectors, as pure planners:
//
//   - images: ImagePolicy (kubelet defaults and validation), DetectImages
//     (the image manager's records from a runtime listing), PlanImages (the
//     age pass and the space pass of one GC run, with upstream's events)
//     and PlanUnusedImages (the eviction manager's delete-all-unused mode);
//   - dead containers and sandboxes: ContainerPolicy, PlanContainers (one
//     container GC run: removed pods, per-unit and node-wide limits,
//     sandboxes) and ContainerDeathPlan (the trim when a container dies);
//   - pods: PodGC, the pod GC controller's steps (terminated-pod threshold,
//     out-of-service nodes, orphans of deleted nodes after a quarantine,
//     unscheduled terminating pods);
//   - other collectors: JobTTL and PlanJobTTL (ttlSecondsAfterFinished),
//     PlanCSRCleanup (the CSR cleaner), PlanNodeLeases (heartbeat Leases of
//     deleted Nodes).
//
// Nothing here lists, stops or removes anything, or reads the clock: the
// caller passes what the runtime and the API server report and the time,
// and executes the plan (the planned package cri will have executors for
// the image and container plans).
//
// # Usage
//
// A custom kubelet, every 5 minutes:
//
//	records = gc.DetectImages(policy, records, runtimeImages, containerImageRefs, now)
//	plan, err := gc.PlanImages(policy, records, gc.FsStats{Capacity: c, Available: a}, kubeletStart, now)
//	// remove each plan.Deletions[i].Image.ID; on a failure take the next of plan.Spare
//	// post plan.Events on the Node
//
// and every minute:
//
//	cplan, err := gc.PlanContainers(gc.DefaultContainerPolicy(), gc.ContainerGCInput{
//		Containers: cs, Sandboxes: ss, Pods: podStates, PodsSynced: true, AllSourcesReady: true}, now)
//	// for each removal: stop first if StopFirst (skip it if the stop fails), then remove
//
// A pod GC controller, every 20 seconds:
//
//	g, _ := gc.NewPodGC(gc.DefaultPodGCConfig())
//	plan, err := g.Step(now, gc.PodGCInput{Pods: pods, Nodes: nodes})
//	// for each deletion: patch status to Failed (and Condition) if SetFailed, delete with grace 0
//
// # Semantics
//
// Image GC. Records remember when each image was first detected and last
// seen used by any container, running or exited. An image in use or pinned
// is never deleted. The age pass (imageMaximumGCAge, off by default) runs
// once MaxAge has passed since GC began and deletes every unused image
// idle for longer than MaxAge. The space pass starts when usage, 100 -
// floor(available*100/capacity), reaches the high threshold (capacity
// 1000, available 151: 85%, which triggers at 85), and frees
// floor(capacity*(100-low)/100) - available bytes, least recently used
// first, skipping images younger than imageMinimumGCAge (an image exactly
// that old is eligible) and stopping as soon as the target is reached.
// Falling short is event FreeDiskSpaceFailed with upstream's message;
// capacity 0 is InvalidDiskCapacity.
//
// Container GC. Dead containers (not running, at least MinAge old) form
// evict units by pod UID and container name. Containers of deleted or
// evicted pods all go once every pod source is ready. Each unit keeps its
// newest MaxPerPodContainer. Above MaxContainers, every unit is cut to
// max(MaxContainers/units, 1) and then the oldest on the node go: 8 units
// with 10 dead containers under MaxContainers 6 keep one each, then lose
// the two oldest. A container in unknown state is stopped before removal.
// A live pod keeps its newest sandbox; inactive sandboxes (not ready, no
// container) go otherwise.
//
// Pod GC. See PodGC.Step: the terminated-pod threshold keeps exactly that
// many terminated pods (evicted, then oldest go first); a threshold of 0
// or less disables only that step.
//
// Other collectors. A finished Job with ttlSecondsAfterFinished goes when
// finish time + TTL is not after now, with Foreground propagation. The CSR
// cleaner deletes issued CSRs an hour after approval, denied and failed
// ones an hour after that condition, condition-less ones after 24 hours and
// any approved CSR whose certificate expired. A node Lease goes with its
// Node, through its owner reference.
//
// Order. Upstream iterates maps and sorts without tie-breakers; every plan
// here is in a total order (documented on each), so the same input gives
// the same plan whatever its order.
//
// # Options
//
// ImagePolicy.RuntimeClassInImageCriAPI keys images by ID and runtime
// handler, as upstream's gate of that name. ContainerGCInput's
// EvictNonDeletedPods is the eviction manager's delete-all-unused mode.
// NodeLeaseConfig.OwnerlessAfter collects heartbeat Leases that never got
// an owner reference, which upstream keeps forever.
package gc
