// Package ownergc is a garbage collector for owner references that runs
// against a real API server: the part of kube-controller-manager's
// garbage collector that deletes dependents whose owners are gone, runs
// foreground and orphan deletions to their end and reports invalid
// references, with every decision taken by package gc's owner graph
// (gc.NewOwnerGraph, gc.OwnerGraph.Plan) and only the watching, reading
// and writing done here.
//
// Discover finds the deletable resources (every resource that can be
// listed, watched and deleted, in its group's preferred version; custom
// resources included; events left out, as upstream's collector leaves
// them) and keeps a metadata informer on each: started when a resource
// appears, stopped when it goes (a CustomResourceDefinition deleted),
// kept (if it had listed) when discovery of its group fails for a
// moment. The informers hold
// only what the graph reads (no managed fields, labels or annotations).
//
// A pass plans from what the informers hold and carries the plan out in
// the order gc.OwnerPlan gives: owner-reference patches, finalizer
// removals, deletions, events. Three rules keep a cache's lag from
// deleting anything that should stay:
//
//   - no pass plans while an informer is still listing, for at most
//     Options.SyncTimeout (30 s, as upstream since kubernetes#125796):
//     after it a resource that cannot be listed no longer stops all
//     collection, at the cost upstream accepts (its objects unknown: one
//     that depends on an orphaning owner is collected instead of
//     orphaned). Options.WaitForSync waits for ever instead;
//     Result.Unsynced names such resources;
//   - an owner the graph finds missing is read live from the API server
//     before any write acts on its absence (an informer may see a
//     dependent before another sees its owner), as upstream's collector
//     reads an owner before it deletes a dependent;
//   - every write is conditional, as upstream's are: deletes carry the UID
//     and resource version the cache holds, patches and finalizer removals
//     carry the object's UID and resource version, so a write never lands
//     on an object that changed since it was read; a refused write
//     (Result.Conflicts) waits for the next pass, which sees the change.
//
// When a phase did not go through whole, the later phases wait for the
// next pass: an orphan finalizer is never removed before every dependent
// lost its reference.
//
// Run passes whenever an informer sees a change the graph reads (an
// object added or gone, its owner references, deletion or finalizers
// changed), at most once per Options.Interval, retries unfinished work
// after Options.Interval, and discovers again every Options.Rediscover.
// Sync is one discovery, a wait for the informers and one pass, for
// callers that drive the collector themselves (tests, a one-shot run).
//
// Unlike upstream's collector, whose graph is updated event by event, a
// pass builds the graph again from the caches: its CPU time grows with
// the number of objects watched (the planner builds and plans a graph of
// a million objects in 0.13-0.18 s, BENCHMARKS.md), while the API server
// sees only the informers' watches, the live reads of missing owners and
// the writes.
//
//	c, err := ownergc.New(client.Discovery(), metadata.NewForConfigOrDie(cfg), client.CoreV1(), ownergc.Options{})
//	err = c.Run(ctx, func(err error) { log.Print(err) })
package ownergc
