// Package nodelifecycle is kube-controller-manager's node lifecycle
// controller and taint eviction controller composed into one synchronous
// state machine, on top of packages conditions, eviction and taints.
//
// A Controller holds a view of the cluster (nodes with their conditions,
// taints and zone labels, node leases, pods bound to nodes) and the
// controllers' memory (each node's health record, the zone states, the
// per-zone tainting queues, the scheduled evictions). The caller keeps the
// view current, object by object, as an informer would; Step decides what
// the two controllers do at a given time and returns the actions in order,
// each with a machine-readable Reason and a Message, and when it next needs
// to run. It is what the simulator (examples/sim), the client-go controller
// (examples/cluster/controller), the nodewatch command and the what-if
// replay all run.
//
// Upstream: k8s.io/kubernetes v1.36 pkg/controller/nodelifecycle
// (monitorNodeHealth, tryUpdateNodeHealth, processTaintBaseEviction,
// handleDisruption, doNoScheduleTaintingPass, doNoExecuteTaintingPass) and
// pkg/controller/tainteviction.
//
// # Usage
//
//	c, err := nodelifecycle.New(nodelifecycle.DefaultConfig())
//	// from the informers' handlers (or a list, for a dry run):
//	c.UpsertNode(node)   // c.DeleteNode(name)
//	c.UpsertLease(lease) // c.DeleteLease(name)
//	c.UpsertPod(pod)     // c.DeletePod(namespace, name)
//	// whenever something changed, and at Next:
//	r := c.Step(now, func(a nodelifecycle.Action) error {
//		return write(a) // UpdateStatus, taint update, pod status, delete
//	})
//	for _, a := range r.Actions { log.Println(a) }
//	wake at r.Next
//
// The apply function is optional: with nil, every action counts as done,
// which is what a simulation or a dry run wants. With one, a write that
// fails changes what follows in the same Step as upstream's error paths do.
//
// # Semantics
//
// One Step runs, in this order: the monitor pass when one is due (every
// NodeMonitorPeriod from the first Step), the condition NoSchedule taints
// of the nodes that changed, the tainting pass on its 100ms grid, the
// NoExecute plans of the nodes whose taints or pods changed, and the
// evictions that are due. Step's documentation has the details; what the
// pieces decide is in conditions.MonitorConfig.Observe,
// eviction.NoExecuteTainter, eviction.Config.PlanDisruption and
// eviction.NoExecuteConfig.Plan. In words:
//
//   - a node that is not heard from (no new Ready heartbeat, no newer lease
//     renewal) for NodeMonitorGracePeriod is Unknown at the first pass
//     strictly after that, its pods are marked NotReady, it gets the
//     unreachable NoSchedule taint at once and the unreachable NoExecute
//     taint at its zone's rate (the same pass, if the zone's bucket has a
//     token). A renewed lease alone never restores Ready=True: only the
//     kubelet posting Ready does, after which the next pass removes the
//     NoExecute taints;
//   - a zone with no Ready node is fully disrupted and is still tainted at
//     NodeEvictionRate while another zone is not; when every zone is fully
//     disrupted, the control plane is presumed cut off: no NoExecute taint
//     is added and every one is removed; when a zone recovers, every node's
//     grace period starts again;
//   - a pod is evicted when it does not tolerate a NoExecute taint of its
//     node, at once, or tolerationSeconds after the controller first saw the
//     taint (not the taint's TimeAdded), the eviction cancelled when the
//     taints go first;
//   - a Controller counts from its own first sight, as a restarted
//     kube-controller-manager does: its first pass takes the NoExecute
//     taints off every node and queues them again, and every health record
//     starts fresh.
//
// Two simplifications, both about pods already on their way out: a
// terminating pod is not planned again (upstream plans it and may send a
// second delete), and a pod deleted or terminating loses its pending
// eviction without a KindCancel (upstream records "Cancelling deletion"
// for a deleted pod whose eviction was pending).
//
// # Options
//
// Each difference from v1.36 is a Config field, off by default:
// TaintOnObservedReady (the one-pass tainting lag before v1.29,
// kubernetes#120815), LargeClusterSizeBy (kubernetes#102908),
// KeepProbesOnExit (openyurtio/openyurt#2713), MarkPodsOnKubeletNotReady
// (kubernetes#125618), NoExecute (tolerationSeconds from the taint's
// TimeAdded, kubernetes#108268; re-planning on toleration edits,
// kubernetes#102993), and Queue (the tainting queue's two upstream defects,
// kubernetes#104639, which are fixed by default as in package eviction).
//
// # Restarts and blindness
//
// A controller that stops leading and leads again, or a process that
// restarts, starts from a new Controller (New): upstream's restarted
// kube-controller-manager times every node from its own first sight and
// counts tolerationSeconds from its own observation of the taints, and so
// does a new Controller fed the current objects. A controller that keeps
// running but could not see the cluster for a while (its watches or lists
// failed) calls ViewRestored when its view is whole again: node health is
// timed afresh while taints, zone states and scheduled evictions stay.
// Upstream does neither in-process; not calling ViewRestored is its
// behaviour.
//
// # Cost
//
// A Step costs what changed since the last one, plus a monitor pass over
// every node when one is due: nodes and pods that did not change are not
// looked at between passes, pending evictions sit in a heap. Figures at
// 5,000 nodes and 150,000 pods are in BENCHMARKS.md.
package nodelifecycle
