// Package controller is the node lifecycle controller and the taint
// eviction controller of kube-controller-manager, built on nodelife and
// client-go.
//
// The decisions are nodelife's: a nodelifecycle.Controller, the two
// controllers composed as one synchronous state machine. Engine feeds it
// the API objects (as upserts and deletes, by resourceVersion) and carries
// its actions out through a Writer; Controller drives an Engine from
// informers on Nodes, node Leases and bound Pods and writes through the
// API with optimistic concurrency (APIWriter). A Gate (a leader-election
// candidate's Allowed) is asked before every write. Plan runs an Engine on
// a virtual clock over a snapshot, writing nothing.
//
// # Usage
//
//	c, err := controller.New(client, controller.Options{Gate: candidate.Allowed})
//	err = c.Start(ctx) // informers, cache sync
//	err = c.Run(ctx)   // or c.Step(ctx) on your own clock
//
// # Semantics
//
// Those of nodelifecycle.Controller, with kube-controller-manager v1.37's
// defaults (DefaultConfig; nodelifecycle.ConfigFor gives an earlier
// release's): 5s monitor period, 50s grace period, 60s
// startup grace period, 0.1 nodes/s per zone, 0.01 for large partially
// disrupted zones, 0.55 unhealthy threshold, tolerationSeconds counted from
// when the controller sees the taint, and the NoExecute taint in the same
// pass as the Ready=Unknown rewrite (nodelifecycle.Config's
// TaintOnObservedReady restores the one-pass lag of releases before v1.29).
//
// The lease circuit breaker of v1.37 (Config.LeaseCircuitBreaker) asks the
// API server: before a node whose cached lease has expired is marked
// Unknown, Controller GETs its Lease, and compares the lease informer
// store's LastStoreSyncResourceVersion with the version it waits for. A
// hung lease watch (no error, no events) is caught this way; a watch that
// fails is also caught by the controller's own blindness handling
// (Options.JudgeStaleView, ViewRestored). Plan, on a snapshot, has no API
// server to ask and takes the snapshot's leases for the live ones.
package controller
