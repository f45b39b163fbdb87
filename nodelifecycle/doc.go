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
// to run. It is what the simulator (sim), the client-go controller
// (cmd/cluster/controller), the nodewatch command and the what-if
// replay all run.
//
// Upstream: k8s.io/kubernetes v1.37 pkg/controller/nodelifecycle
// (monitorNodeHealth, tryUpdateNodeHealth, processTaintBaseEviction,
// handleDisruption, doNoScheduleTaintingPass, doNoExecuteTaintingPass) and
// pkg/controller/tainteviction. DefaultConfig is v1.37's;
// ConfigFor(release.V1_36) (or any release from v1.27) is that release's.
//
// # Usage
//
//	c, err := nodelifecycle.New(nodelifecycle.DefaultConfig())
//	// from the informers' handlers (or a list, for a dry run):
//	c.UpsertNode(node)   // c.DeleteNode(name)
//	c.UpsertLease(lease) // c.DeleteLease(name)
//	c.UpsertPod(pod)     // c.DeletePod(namespace, name)
//	// whenever something changed, and at Next:
//	for {
//		r := c.Step(now)
//		for _, a := range r.Actions {
//			if err := write(a); err != nil { // UpdateStatus, taint update, pod status, delete
//				c.Failed(a)
//			}
//		}
//		if r.Next.After(now) {
//			wake at r.Next; break
//		}
//		// Next == now: the Step paused after its writes; carry on
//	}
//
// A Step that wrote pauses so that the writes that failed are reported
// before anything that depends on them is decided: a failed write changes
// what follows as upstream's error paths do. A simulation or a dry run,
// where nothing fails, calls StepAll(now) instead, which carries the Step
// through and counts every write as done.
//
// # Semantics
//
// One Step runs, in this order: the NotReady marking of pods bound since
// the last Step, the monitor pass when one is due (every
// NodeMonitorPeriod from the first Step), the condition NoSchedule taints
// of the nodes that changed, the tainting pass when one is due on its
// 100ms grid, the NoExecute plans of the nodes whose taints or pods
// changed, and the evictions that are due. Step's documentation has the
// details; what the pieces decide is in conditions.MonitorConfig.Observe,
// eviction.NoExecuteTainter, eviction.Config.PlanDisruption and
// eviction.NoExecuteConfig.Plan. In words:
//
//   - a node that is not heard from (no new Ready heartbeat, no newer lease
//     renewal) for NodeMonitorGracePeriod is Unknown at the first pass
//     strictly after that, its pods are marked NotReady, it gets the
//     unreachable NoSchedule taint at once and the unreachable NoExecute
//     taint at its zone's rate: in the same Step when the zone's bucket has
//     a token (the tainting grid's 100ms ticks fall on every monitor pass,
//     and the tainting pass runs after the monitor pass), else at the first
//     tick with one. A renewed lease alone never restores Ready=True: only
//     the kubelet posting Ready does, after which the next pass removes the
//     NoExecute taints;
//   - a pod bound to a node (new, or moved to it) whose Ready, as the last
//     monitor pass saved it, is not True is marked NotReady at the next
//     Step (upstream's pod handler, processPod);
//   - a zone with no Ready node is fully disrupted and is still tainted at
//     NodeEvictionRate while another zone is not; when every zone is fully
//     disrupted, the control plane is presumed cut off: no NoExecute taint
//     is added and the pass takes off every one it listed when it began (a
//     node it swapped from not-ready to unreachable in that same pass keeps
//     unreachable, as upstream's does; FreshTaintsInPass takes it off);
//     when a zone recovers, every node's grace period starts again;
//   - a pod is evicted when it does not tolerate a NoExecute taint of its
//     node, at once, or tolerationSeconds after the controller first saw the
//     taint (not the taint's TimeAdded), the eviction cancelled when the
//     taints go first or the pod is deleted; an eviction pending for a pod
//     on a node that is deleted stays, and fires if the pod is still there;
//   - a Controller counts from its own first sight, as a restarted
//     kube-controller-manager does: its first pass takes the NoExecute
//     taints off every node and queues them again, and every health record
//     starts fresh.
//
// # Order within an instant
//
// Upstream runs the monitor pass, the tainting pass and each scheduled
// eviction on goroutines of their own, so where two are due at one instant
// either may go first. nodelife takes one order, always: the monitor pass,
// then the tainting pass, then the evictions; at a Controller's first Step
// the monitor pass also comes before the NoExecute plans of the objects it
// was given (upstream's taint eviction controller may process its first
// list before or after the node lifecycle controller's first pass). Events
// (upserts) are taken before the loops of the Step that follows them. The
// scenario differential in internal/conformance drives upstream in this
// order and counts the instants where two loops were due.
//
// One simplification, about pods already on their way out: a terminating
// pod is not planned again (upstream plans it and may send a second
// delete), and its pending eviction is dropped without a KindCancel.
//
// # Options
//
// The release presets (ConfigFor) differ in NodeMonitorGracePeriod,
// TaintOnObservedReady and LeaseCircuitBreaker. Each difference from
// upstream that no release has is a Config field, off in every preset:
// TaintOnObservedReady (the one-pass tainting lag before v1.29,
// kubernetes#120815), FreshTaintsInPass (the taints a pass wrote are the
// ones it decides from; kubernetes#111385), LargeClusterSizeBy (kubernetes#102908),
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
// Since v1.37 upstream answers part of the same problem in another way,
// the lease circuit breaker (Config.LeaseCircuitBreaker, on by default):
// before it marks a node Unknown it reads the node's live Lease, and when
// the live lease is newer than its cache's, or cannot be read, it blames
// the cache, not the node, and holds every node (no Unknown, no taint, not
// counted in its zone, KindHold) until the cache has caught up with the
// live lease's resource version. The caller answers the two questions
// through SetLiveLeases: a GET of the Lease, and how far its lease
// informer has synced. The breaker sees a stale lease cache while the
// controller keeps running and needs no one to say when the view broke
// or healed; ViewRestored needs that signal but also covers what the
// breaker cannot see: nodes that posted their Ready status (without a
// lease) while the view was cut, and a view whose node list rather than
// lease cache lagged. The two compose: with both, a hung lease watch is
// caught by the breaker, a failed one reported by ViewRestored.
//
// A node the breaker holds before its first monitor pass has no health
// record yet. When the cluster leaves full disruption in such a pass,
// v1.37's controller dereferences the missing record and
// kube-controller-manager exits (kubernetes#141572, fix in PR #141622,
// open); the Controller resets the probes of the nodes it has a record of
// and times the others from their first pass, as the fix does.
//
// # Per-node policy, refusals, and the forks
//
// Config.NodePolicy bends the lifecycle per node without a fork. Its
// NodeRules, asked once per upserted version of a node, say whether the
// node's pods are marked NotReady (KeepPodsReady), whether the node is
// tainted NoExecute for its health (NoExecuteExempt), whether it counts in
// its zone's disruption (ExcludeFromDisruption) and whether its pods
// tolerate its not-ready and unreachable taints for a time of the node's
// own (Bind, BindSeconds; the pods' own tolerations stay in the view).
// OpenYurt is the ready-made policy of OpenYurt's yurt-manager: its node
// lifecycle controller keeps the pods of nodes with its three annotations
// Ready, and its pod binding controller binds the pods of autonomous edge
// nodes (for ever, or for node.openyurt.io/autonomy-duration). Node pools
// are zones when the nodes carry the pool as their zone label; the rates
// and thresholds are the Config's, for every zone. Every rule is off in
// every preset, and with no policy the Controller is upstream's (the
// conformance differential runs it so).
//
// OpenYurt's own recipe writes the pods instead: OpenYurtBindPod is its
// pod binding's rewrite as a pure function. What the rewritten pods then do
// follows the taint eviction controller's rules (eviction.NoExecuteConfig):
// a pod bound for ever has its pending eviction cancelled; a pod bound for
// a number of seconds while its eviction is pending keeps the eviction's
// first deadline (upstream ignores a change of one number of seconds for
// another, unless NoExecute.Replan); a pod set back from for ever to
// seconds is scheduled anew, counted from the edit. Bind, inside the
// Controller, follows the same rules at the node's next plan.
//
// Four modes bend it for every node (all off in every preset):
// NoTaintEviction, the lifecycle half without the taint eviction
// controller; NoScheduleOnly, no NoExecute tainting for health (Karmada
// without --enable-no-execute-taint-eviction); ConditionChangeIsHeartbeat,
// for objects whose conditions carry no heartbeat time; and
// HeartbeatLease, which says which leases are heartbeats (not a
// delegate's, say). OpenYurt's #2713 fix is eviction.Config's
// KeepProbesOnExit. Config.Zones gives zones (node pools, through
// NodeRules.Zone) their own rates and thresholds.
//
// A caller with a veto of its own reports a write it chose not to make
// with Refused instead of Failed: a refused eviction is not tried again
// (Failed's retries every RetryDelay would go on for ever) and its pod
// stays running in the view until the pod or its node's NoExecute taints
// or rules change; a refused KindPodsNotReady leaves the pods Ready. Only
// those two can be refused; a node's taints and status follow its rules.
//
// # Cost
//
// A Step costs what changed since the last one: nodes and pods that did
// not change are not looked at, pending evictions sit in a heap. A monitor
// pass looks only at the nodes where something can change (their node
// object or lease changed, a write or taint of theirs is under way, or
// their grace period may have run out); the others are idle, counted in
// their zones as they were, and wait in a heap for the first pass that
// could find them timed out. Config.EveryNodePass looks at every node at
// every pass, as upstream does; the actions and times are the same
// (TestPropertyEventDrivenMatchesEveryNode), and Visits counts the looks.
//
// A kubelet renewing its lease every 10s costs one RenewLease a renewal.
// A caller that knows the renewals in advance (a simulator) gives them
// once with SetRenewals (Periodic for a fixed interval); the Controller
// reads the schedule only when a pass needs the node's lease, so a healthy
// node costs nothing between its deadlines. Figures are in BENCHMARKS.md.
package nodelifecycle
