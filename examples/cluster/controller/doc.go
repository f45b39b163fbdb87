// Package controller is the node lifecycle controller and the taint
// eviction controller of kube-controller-manager, built on nodelife and
// client-go.
//
// Engine holds the decisions: conditions.Monitor (Ready=Unknown once the
// grace period has passed since the node was last heard from, pods marked
// NotReady), the condition NoSchedule taints, eviction.PlanDisruption
// (zone states, tainting rates, full disruption), the rate-limited
// NoExecute tainting queues of eviction.NoExecuteTainter, and the
// NoExecute eviction times of eviction.NoExecuteConfig. Controller feeds
// it from informers on Nodes, node Leases and bound Pods, and writes
// through the API with optimistic concurrency (APIWriter). A Gate (a
// leader-election candidate's Allowed) is asked before every write.
//
// # Usage
//
//	c, err := controller.New(client, controller.Options{Gate: candidate.Allowed})
//	err = c.Start(ctx) // informers, cache sync
//	err = c.Run(ctx)   // or c.Step(ctx) on your own clock
//
// # Semantics
//
// Upstream defaults (DefaultConfig): 5s monitor period, 50s grace period,
// 60s startup grace period, 0.1 nodes/s per zone, 0.01 for large partially
// disrupted zones, 0.55 unhealthy threshold, tolerationSeconds counted from
// when the controller sees the taint. The tainter acts on the Ready status
// observed before the pass's own rewrite, as upstream does, so a node's
// NoExecute taint follows its Ready=Unknown by one monitor pass.
package controller
