// Package conditions computes node conditions and node health, on both sides
// of the Kubernetes node heartbeat:
//
//   - the kubelet side: the Ready, MemoryPressure, DiskPressure and
//     PIDPressure conditions a kubelet posts, with upstream's reasons,
//     messages and events (pkg/kubelet/nodestatus), and the decision when
//     to post (Reporter: nodeStatusUpdateFrequency vs
//     nodeStatusReportFrequency, the v1.33 report delay);
//   - the control-plane side: the node lifecycle controller's health monitor
//     (tryUpdateNodeHealth), which turns a node that stops posting and stops
//     renewing its lease Unknown after a grace period, and asks for its pods
//     to be marked NotReady;
//   - registration checks from the Nodes page: node names, --node-ip, the
//     node's host IPs, and the labels a kubelet may set on itself.
//
// The types mirror k8s.io/api/core/v1 (Condition is a NodeCondition), so
// converting is a field copy. Nothing here reads the clock: every function
// that needs the time takes now.
//
// # Usage
//
// A custom kubelet, every nodeStatusUpdateFrequency:
//
//	conds, events := conditions.SetKubeletConditions(now, node.Conditions, in)
//	changed := conditions.StatusChanged(node.Conditions, conds)
//	if d := reporter.Step(now, changed); d.Post {
//		// PATCH the node status, record events, then:
//		reporter.Reported(now)
//	}
//
// A node controller: package nodelifecycle is the whole node lifecycle
// controller (this monitor, the zone states, the NoExecute tainting and the
// taint eviction controller) as one state machine; use it unless you need
// the pieces. By hand, every node monitor period:
//
//	for _, u := range monitor.Step(now, nodes) {
//		if u.Health.Write { /* UpdateStatus with u.Health.Conditions; on error monitor.WriteFailed(u) */ }
//		if u.Health.MarkPodsNotReady { /* set pods' Ready False; on error monitor.MarkPodsFailed(u.Name) */ }
//	}
//
// What the loop leaves to the caller:
//
//   - Step returns only the nodes with something to do. Every other node's
//     Ready is the one it posted (Find(node.Conditions, Ready)); the zone
//     counts of package eviction need all of them. Per node,
//     MonitorConfig.Observe returns the whole Health (CurrentReady after the
//     rewrite, ObservedReady as posted) for callers that need it in the same
//     loop, as nodelifecycle does.
//   - The NoExecute tainting decision (eviction.NoExecuteTainter.Observe)
//     takes CurrentReady, node by node in the same pass, since v1.29; the
//     zone planner runs after every node was observed; see package
//     eviction's Usage for the order.
//   - The condition NoSchedule taints (taints.ReconcileConditionTaints)
//     follow every change of a node's conditions, the Unknown rewrite
//     included, not only the pass.
//   - A renewed lease only refreshes the probe timestamp: it keeps a node
//     from timing out but never turns Unknown back into True. Only the
//     kubelet posting Ready=True does.
//   - A node seen for the first time starts a fresh record with probe = now
//     (a restarted controller counts from its own first sight); keep
//     records of deleted nodes, as upstream does, or Forget them.
//
// Callers should:
//
//  1. pass the conditions as read from the API, and write back the
//     conditions returned, never edit them in place;
//  2. report failed writes (Monitor.WriteFailed, Monitor.MarkPodsFailed) so
//     that the next pass retries as upstream does;
//  3. inject a random source into ReportConfig.Rand to spread reports, as
//     kubelets since v1.33 do; without one the delay is zero.
//
// # Semantics
//
// Kubelet setters. Pressure conditions start Unknown, refresh their heartbeat
// on every sync, and change status, reason, message and transition time only
// when they flip, returning the event to record. Ready is False with reason
// KubeletNotReady when the runtime, network, storage or shutdown manager
// reports an error or a required capacity is missing, with upstream's
// aggregate message form; it keeps its transition time while its status
// holds, and emits NodeReady/NodeNotReady only when an existing condition
// flips. Conditions are created in upstream order, Ready last.
//
// Node monitor. The grace period is 50s (40s before v1.32, see
// LegacyNodeMonitorGracePeriod), 60s for a node that has no Ready condition.
// The controller hears from a node when Ready's heartbeat changes or its
// Lease renewTime moves forward; a node is Unknown from the first pass
// strictly after probe + grace. The timeout rewrites Ready, MemoryPressure,
// DiskPressure and PIDPressure, never NetworkUnavailable, and is written
// only when Ready changed. Pods are marked NotReady when Ready goes from True
// as posted to not True; MonitorConfig.MarkPodsOnKubeletNotReady adds the
// case upstream misses (kubernetes#125618).
package conditions
