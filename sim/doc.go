// Package sim is a discrete-event simulation of the node lifecycle: the
// piece a research scheduler or a policy test suite would vendor to see
// how nodelife's decisions play out over time across a whole cluster.
//
// It runs the kubelet side of the packages and the library's node
// lifecycle controller (nodelifecycle.Controller) on a virtual clock:
//
//   - every node runs a kubelet heartbeat (lease.Heartbeat) that renews its
//     Lease every 10s (with jitter when seeded) and posts Ready
//     (conditions.SetKubeletConditions) when the API server's copy is not
//     True;
//   - the controller is told about every change to a node, lease or pod as
//     an informer would tell it, and stepped whenever something changed and
//     at the time it asks for: monitor passes every 5s, the condition
//     taints, the rate-limited NoExecute tainting, the zone states, and the
//     pods' evictions when their tolerationSeconds run out (or their
//     cancellation when the taint goes first); its actions are applied
//     back to the simulated objects and recorded as events.
//
// The files: sim.go (the model and Run), queue.go (the event queue),
// controller.go (the controller's link to the simulated objects),
// drivers.go (outages, kubelets, shutdowns, pressure, the cloud, the pod
// GC), cluster.go (explicit clusters and their scenarios), outcomes.go
// (pod fates, samples, lost replicas), placement.go (where replacements go,
// with Config.Placement), renewals.go (the shortcuts that keep 100,000
// nodes cheap: quiet nodes' renewals in bulk, the rounds of kubelets cut
// off to the end at once, both giving the result of queueing every one)
// and svg.go (the picture).
//
// With Config.Placement, a replacement pod of an explicit cluster is
// placed, roughly as kube-scheduler would, on a node whose kubelet would
// admit it (package admission), or waits with the scheduler's message;
// placement.go's comment has the rules and what is approximated.
//
// Outages cut a zone's nodes (or the first few of them) off from the API
// server for a window of time.
//
// The cluster is synthetic (Zones, NodesPerZone, PodsPerNode: zones named
// a, b, ..., every pod with the same tolerations) or explicit
// (Config.Cluster: the nodes and pods of a real cluster, as package
// examples/kubeapi/snapshot converts them). Explicit clusters add the
// scenarios that need real pods: graceful node shutdown by the kubelet's
// phases (shutdown.Config.Plan) and non-graceful shutdown with the
// out-of-service taint and the pod GC's force deletions (gc.PodGC);
// memory pressure episodes on a node, evicted one pod at a time by the
// kubelet's eviction manager (pressure.Manager); instances deleted from
// the cloud, whose Nodes the cloud node lifecycle controller deletes
// (cloud.DecideLifecycle) and whose pods the pod GC then removes. The
// result then tells each touched pod's fate (Result.Pods: evicted,
// killed, pressure-evicted, deleted or spared, when, by which rule, and
// when its controller could replace it) and each workload's lost replicas
// over time (Result.Workloads). Replacements are assumed to find room:
// nothing is scheduled. Nothing reads a real clock or starts a
// goroutine; the event queue is ordered by (time, sequence), and the only
// randomness comes from Config.Seed, so a run is a pure function of its
// Config: the same Config gives the same Result, byte for byte.
//
// # Usage
//
//	res, err := sim.Run(sim.Config{Zones: 3, NodesPerZone: 50,
//		Outages: []sim.Outage{{Zone: "b", From: time.Minute, To: 10 * time.Minute}}})
//	for _, e := range res.Events { fmt.Println(e.At, e.Kind, e.Object, e.Message) }
//	svg := res.SVG() // a timeline of node states and evictions per zone
//
// The command in cmd/simulate runs it from the command line:
//
//	go run ./cmd/simulate --nodes 5000 --seed 7 --svg timeline.svg
package sim
