// Package podgc is the pod garbage collector of kube-controller-manager
// run against a real API server, with every decision taken by package
// gc's state machine (gc.PodGC): terminated pods above the threshold,
// terminating pods on out-of-service nodes, pods bound to nodes that are
// gone (after a quarantine, confirmed by a live GET of the node) and
// terminating pods that were never scheduled.
//
// A Sync lists pods and nodes, steps the state machine at the clock's
// time and carries the plan out as upstream does: a pod that is neither
// Succeeded nor Failed first has its status patched to Failed (with the
// DisruptionTarget condition for an orphaned one), then it is deleted
// with a grace period of 0. Every write is conditional on the pod's UID:
// it never lands on a new pod of the same name. Run syncs every
// gc.PodGCPeriod (20 s), as upstream.
//
//	c, err := podgc.New(client, gc.DefaultPodGCConfig(), podgc.Options{})
//	res, err := c.Sync(ctx) // res.Plan.Deletions, res.Deleted
package podgc
