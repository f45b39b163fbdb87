// Package gc holds the cleanup decisions of the kubelet and the control
// plane's collectors, as pure planners:
//
//   - owner references: NewOwnerGraph (a snapshot of objects with every
//     owner reference classified), OwnerGraph.Plan (the garbage
//     collector of kube-controller-manager on every object: deletes with their
//     propagation policy, reference patches, finalizer removals, held
//     objects, the OwnerRefInvalidNamespace event), PlanCascade (a delete
//     with Background, Foreground or Orphan propagation run to the end),
//     Cycles and Deadlocks (what is never collected) and Explain;
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
// and executes the plan (package cri has executors for the image and
// container plans: cri.ExecuteImagePlan, cri.ExecuteContainerPlan).
//
// # Usage
//
// A controller, or a policy test, over a metadata snapshot:
//
//	objs = append(objs, gc.FromMeta("apps/v1", "ReplicaSet", &rs.ObjectMeta))
//	g, err := gc.NewOwnerGraph(objs, gc.OwnerOptions{Scopes: myKinds.Lookup})
//	plan := g.Plan()
//	// apply plan.Patches, then plan.FinalizerRemovals, then plan.Deletions
//	// (each with its Preconditions and Policy); post plan.Events
//	e, _ := g.Explain(uid) // why is this object still here?
//
// What would "kubectl delete deployment web --cascade=foreground" do?
//
//	res, err := gc.PlanCascade(objs, webUID, metav1.DeletePropagationForeground, gc.OwnerOptions{})
//	for _, s := range res.Steps { fmt.Println(s) }
//
// A custom kubelet, every 5 minutes:
//
//	records = gc.DetectImages(now, policy, records, runtimeImages, containerImageRefs)
//	plan, err := gc.PlanImages(now, policy, records, gc.FsStats{Capacity: c, Available: a}, kubeletStart)
//	// remove each plan.Deletions[i].Image.ID; on a failure take the next of plan.Spare
//	// post plan.Events on the Node
//
// and every minute:
//
//	cplan, err := gc.PlanContainers(now, gc.DefaultContainerPolicy(), gc.ContainerGCInput{
//		Containers: cs, Sandboxes: ss, Pods: podStates, PodsSynced: true, AllSourcesReady: true})
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
// Owner references. Each reference of a live object is classified as
// upstream's attemptToDelete does with live GETs, here against the
// snapshot: the owner is the object at the reference's coordinates (its
// API group, kind or lowercase kind, name, and the dependent's namespace
// for a namespaced kind or none for a cluster-scoped one) and counts only
// if it has the reference's UID. So a reused name, an owner in another
// namespace and a UID borrowed by another kind all dangle; a dangling
// owner in another namespace also raises OwnerRefInvalidNamespace. An
// owner being deleted with foregroundDeletion is waiting; anything else
// that exists, even an owner being deleted otherwise, is solid. Then: a
// solid owner keeps the object (dangling and waiting references are
// patched out); waiting owners and dependents mean a foreground delete
// (after making the object's references non-blocking if a dependent
// deletes in the foreground too, upstream's cycle heuristic); otherwise
// the object is deleted with the policy its own finalizers imply (orphan,
// foregroundDeletion, else Background). The first reference to a kind
// the Scopes lookup does not know pins the object (upstream retries
// forever); a cluster-scoped object pointing at a namespaced kind is
// never collected. An object deleting in the foreground loses the
// finalizer when no dependent holds a blockOwnerDeletion reference to
// it; one deleting with the orphan finalizer first has its UID removed
// from every dependent. Owner cycles whose members all exist are never
// collected, which Cycles reports; two foreground deletions blocking each
// other wait forever, which Deadlocks reports.
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
// OwnerOptions.ForegroundBlockingOnly limits a foreground deletion to the
// dependents that block it, as kubernetes#121113 asks; OwnerOptions.Scopes
// is the REST mapper's answer for custom kinds.
package gc
