// Package ownergc is a garbage collector for owner references that runs
// against a real API server: the part of kube-controller-manager's
// garbage collector that deletes dependents whose owners are gone, runs
// foreground and orphan deletions to their end and reports invalid
// references, with every decision taken by package gc's owner graph
// (gc.NewOwnerGraph, gc.OwnerGraph.Plan) and only the reading and writing
// done here.
//
// A Sync finds the deletable resources by discovery (every resource that
// can be listed, watched and deleted; custom resources included, found
// again at each Sync as their definitions come and go; events left out,
// as upstream's collector leaves them), lists the metadata of all their
// objects, plans, and carries the plan out in the order gc.OwnerPlan
// gives: owner-reference patches, finalizer removals, deletions, events.
// Every write is conditional, as the upstream collector's are: deletes
// carry the UID and resource version that were inspected, patches and
// finalizer removals carry the object's UID and resource version, so a
// write never lands on an object that changed since it was read; a
// conflict is left to the next Sync, which sees the change. When a phase
// has a failed write, the later phases wait for the next Sync: an orphan
// finalizer is never removed before every dependent lost its reference.
//
// Run calls Sync at a fixed interval. Upstream's collector reacts to watch
// events on metadata informers instead of listing again; a Sync lists
// everything, which is simple and exact but costs a list of every
// resource per interval: meant for test clusters and the e2e harness
// (examples/cluster/e2e), not for clusters of thousands of objects.
//
//	c, err := ownergc.New(client.Discovery(), metadata.NewForConfigOrDie(cfg), client.CoreV1(), ownergc.Options{})
//	res, err := c.Sync(ctx) // res.Deleted, res.Patched, res.Finalized, res.Plan
package ownergc
