// Package eviction holds the node lifecycle controller's eviction brain and
// the taint eviction controller's decisions, as pure planners and small
// synchronous state machines:
//
//   - zones: ZoneKey (upstream's topology.GetZoneKey), ComputeZoneState, and the
//     disruption planner (Config.PlanDisruption, upstream's
//     handleDisruption) that picks each zone's tainting rate and enters and
//     leaves "full disruption" mode;
//   - rate limiting: TokenBucket and RateLimitedQueue, upstream's per-zone
//     RateLimitedTimedQueue driven by explicit times;
//   - NoExecute tainting: NoExecuteTainter decides, from each node's Ready
//     condition, which of the not-ready and unreachable NoExecute taints to
//     add, swap or remove, at the zone's rate;
//   - NoExecute eviction: NoExecuteConfig.Plan and PlanNode decide, from a
//     node's NoExecute taints and a pod's tolerations, whether the pod is
//     evicted now, at a deadline, or not at all.
//
// Nothing here reads the clock, sleeps, or starts goroutines: every function
// that needs the time takes now, and callers carry out the returned actions.
//
// # Usage
//
// Most callers want the whole controller: package nodelifecycle composes
// this package with conditions and taints into one state machine that
// takes nodes, leases and pods and returns the actions in order. What
// follows is for those who wire the pieces by hand, in the order
// nodelifecycle.Controller.Step uses (upstream's monitorNodeHealth and the
// taint eviction controller's handlers).
//
// Every monitor period (5s), for each node in name order: the first time a
// node is seen, tainter.MarkReachable(node) (a restarted controller takes
// the NoExecute taints off and counts again); then the health monitor of
// package conditions (conditions.MonitorConfig.Observe). A node whose
// status write failed is skipped for the rest of the pass and left out of
// its zone. The others:
//
//	ready := h.CurrentReady.Status // after the pass's rewrite (v1.29+); "" if none
//	zoneNodes = append(zoneNodes, eviction.ZoneNode{Name: n.Name, Zone: eviction.ZoneKey(n.Labels),
//		Ready: ready, Excluded: eviction.IsExcludedFromDisruption(n.Labels)})
//	if h.HasCurrentReady {
//		a := tainter.Observe(now, taintNode, ready) // swap now, queue, or untaint
//		// apply a.Add / a.Remove to the node's taints, then mark pods if h.MarkPodsNotReady
//	}
//
// Every node is counted, not only those conditions.Monitor.Step returns: for
// a node without an update, CurrentReady is the Ready condition it posted.
// Then, once per pass, over every node:
//
//	plan, err := cfg.PlanDisruption(prevZones, zoneNodes)
//	prevZones = plan.Next
//	for _, a := range tainter.ApplyPlan(now, plan, taintNodes) { /* untaint: full disruption */ }
//	if plan.ResetProbes { /* every node's probe and transition timestamps = now */ }
//
// Every 100ms (NodeTaintPassPeriod, on a grid from the controller's
// start), when tainter.Next says a node is due:
//
//	for _, u := range tainter.Step(now, readyOf) {
//		// add u.Add and remove u.Remove; on failure tainter.TaintFailed(now, u)
//	}
//
// A taint eviction controller, whenever a node's NoExecute taints change or
// a pod on it is added, moved, deleted or changes its tolerations (not on a
// timer), and whenever a scheduled eviction comes due:
//
//	for _, d := range nes.PlanNode(now, node.Taints, pods, scheduled) {
//		switch d.Action {
//		case eviction.NoExecuteSchedule: scheduled[d.Pod.Key()] = d.Scheduled
//		case eviction.NoExecuteCancel:   delete(scheduled, d.Pod.Key())
//		case eviction.NoExecuteEvictNow: // set *d.Condition on the pod, then delete it
//		}
//	}
//
// The condition NoSchedule taints (taints.ReconcileConditionTaints) follow
// every change of a node's conditions, the controller's own Unknown rewrite
// included, not only the monitor pass.
//
// # Semantics
//
// Zones. A node's zone is region + ":\x00:" + zone from its labels, the
// deprecated failure-domain.beta.kubernetes.io labels winning whenever
// present. Nodes labelled node.kubernetes.io/exclude-disruption, and nodes
// whose health update failed, are not counted. A zone is FullDisruption
// when none of its counted nodes is Ready and PartialDisruption when more
// than two are not Ready and their fraction (in float32) is at least
// --unhealthy-zone-threshold (0.55); otherwise Normal.
//
// Rates. A zone's queue runs at --node-eviction-rate (0.1 nodes/s) when
// Normal, and also when FullDisruption while another zone is not (so work
// leaves a dead zone quickly); when PartialDisruption, at
// --secondary-node-eviction-rate (0.01) if the zone has more than
// --large-cluster-size-threshold (50) counted nodes, else 0. A zone's rate is
// set only when its state changes. When every zone becomes FullDisruption
// the control plane is probably the one cut off: all rates go to 0 and the
// NoExecute taints come off every node. When some zone recovers, every zone
// is reset for its state and every node's probe timestamp is reset, which
// gives dead nodes a fresh grace period.
//
// Callbacks. RateLimitedQueue.Try's fn and NoExecuteTainter.Step's ready
// may call any method of the value running them: Try applies fn's answer to
// whatever is then queued under the item's name, as upstream's queue does
// by value (nothing to do if fn removed it); a Try or a Step nested inside
// them skips the queue being processed; a pass covers the zones there were
// when it started.
//
// Tainting. Decisions use the Ready condition after the monitor pass's own
// rewrite, as upstream since v1.29 (kubernetes#120815, PR #120816; before,
// the condition as posted, so the unreachable taint came one pass after the
// Unknown rewrite: pass conditions.Health.ObservedReady to get that). A node whose
// Ready is False or Unknown while it carries the opposite NoExecute taint
// has it swapped at once; otherwise it is queued and tainted at the zone's
// rate, one node per 10s by default. Queues deduplicate by name: a tainted
// node is not queued again until it has been Ready. Added taints carry
// TimeAdded.
//
// Eviction. Each NoExecute taint uses the first toleration, in list order,
// that tolerates it. An untolerated taint evicts at once; tolerationSeconds
// <= 0 evicts at once; nil tolerates forever; otherwise the pod is evicted
// after the smallest tolerationSeconds, counted from when the controller
// first planned it. A scheduled eviction is never moved by later toleration
// edits (kubernetes#102993, kubernetes#108982); removing the taints cancels
// it. The pod gets the DisruptionTarget condition (DeletionByTaintManager)
// before deletion.
//
// # Options
//
// Upstream's behaviour is the default, defects included. Each difference
// is an option:
//
//   - Config.LargeClusterSizeBy: SizeCluster compares the threshold with the
//     cluster's size, as the flag's name says (kubernetes#102908).
//   - Config.KeepProbesOnExit: do not reset probes when leaving full
//     disruption (openyurtio/openyurt#2713).
//   - QueueOptions.RestartStopped: a stopped queue reports rate 0, so it
//     can be restarted at rate 1 (upstream's reports 1 and cannot,
//     kubernetes#104639); QueueOptions.TokenOnlyForDue: Try takes a token
//     only for an item it processes (upstream takes one before checking
//     that the head is due). FixedQueueOptions turns both on.
//   - NoExecuteConfig.Anchor: AnchorTaintAdded counts tolerationSeconds from
//     the taint's TimeAdded, so deadlines survive a restart
//     (kubernetes#108268).
//   - NoExecuteConfig.Replan: let toleration edits move a scheduled
//     eviction.
//
// Two deliberate differences are not options: vanished zones are forgotten
// at once, where upstream's map-order loop may keep some for another pass
// without effect on the others; and tolerationSeconds too large for a
// time.Duration (over ~292 years) are capped, where upstream's
// multiplication overflows.
package eviction
