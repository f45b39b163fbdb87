// Package nodelife is an embeddable library of pure Kubernetes node-lifecycle
// algorithms: the decisions that the kubelet, the node lifecycle controller,
// the taint-eviction controller, the garbage collectors and the kubelet's
// cgroup and CRI layers make, rebuilt as side-effect-free planners and
// synchronous state machines.
//
// It is for authors of custom kubelets and node controllers (virtual-kubelet
// providers, edge agents, operators), for people writing property-based tests
// of eviction, shutdown and garbage-collection policy, and for simulators and
// research schedulers that want upstream's behaviour without upstream's
// controllers. Upstream keeps these rules inside k8s.io/kubernetes, which
// cannot be imported cleanly and which reads wall clocks, feature gates and
// informers; nodelife takes the same decisions as plain functions.
//
// This root package holds the documentation and Profile, one release's
// settings for every package. The work is in the subpackages.
//
// # Releases
//
// Every default reproduces the current Kubernetes release, v1.37
// (release.Current). One value runs the whole library as another release,
// from v1.27 to v1.37: ProfileFor returns a Profile whose fields are the
// configs of every package whose rules changed between releases, each
// that release's defaults and feature gates:
//
//	p := nodelife.ProfileFor(release.V1_36)
//	ctrl, err := nodelifecycle.New(p.NodeLifecycle) // no lease circuit breaker
//	class := cgroup.ComputeQOS(pod, p.QOS)           // the summed QoS rule
//
// Each field is its package's own preset, which a program that uses one
// package can call alone:
//
//	cfg := nodelifecycle.ConfigFor(release.V1_36)
//
// The presets are nodelifecycle.ConfigFor, cgroup's QOSOptionsFor,
// PodConfigOptionsFor, QOSConfigOptionsFor and MemoryQoSConfigFor,
// eviction/pressure.ConfigFor, cri.SyncOptionsFor, admission.OptionsFor,
// topology/cpu.ConfigFor and topology/checkpoint's CPUFormatFor,
// MemoryFormatFor, CPUReadOptionsFor and MemoryReadOptionsFor. A preset
// changes only what differs between releases; a rule that changed before
// v1.36 and that a preset does not name is v1.36's in the older presets.
//
// # Packages
//
// core: the object model. The one Pod, Node and PodPhase type the
// planners read, with core/v1's names and values flattened out of
// metadata, spec and status; a caller converts an API object once
// (examples/kubeapi's Pod and Node) and hands the result to every package
// that takes it, with the resource lists (ResourceList,
// ResourceRequirements, Container, PodQOSClass) and PodRef, the identity
// decisions name a pod by. Every package reads core.Node; the pod GC,
// graceful and non-graceful shutdown, the cgroup computations, the
// topology managers, the NoExecute taint-eviction planner and the node
// lifecycle controller read core.Pod, and the remaining per-package pod
// types (admission, eviction/pressure, cri) move onto it package by
// package.
//
// taints: node taints and pod tolerations. Matching with upstream's
// Equal/Exists rules and the opt-in Lt/Gt operators of KEP-5471, the
// `kubectl taint` and --register-with-taints grammars, API validation, set
// operations keyed by (key, effect), the well-known taint keys, and the
// default and DaemonSet tolerations.
//
// conditions: node conditions and node health. The kubelet's Ready and
// pressure setters with upstream's reasons, messages and events, the
// decision when to post status, the node lifecycle controller's health
// monitor (grace periods, lease probes, the Unknown rewrite), and the
// registration checks of node names, node IPs and kubelet labels.
//
// eviction: the node lifecycle controller's zone keys, zone states and
// per-zone tainting rates, its full-disruption mode, the rate-limited
// tainting queue with an explicit clock, the NoExecute tainting decisions
// from each node's Ready condition, and the taint eviction controller's
// tolerationSeconds planner.
//
// shutdown: the kubelet's graceful node shutdown. Phases by pod priority
// (or the two-phase form), each pod's grace period and each phase's
// window, a manager state machine that turns shutdown events, pod
// terminations and ticks into kills, pod statuses, admission verdicts and
// inhibitor lock actions, the logind inhibit-delay decision, and the
// control plane's out-of-service force deletions and volume detaches.
//
// lease: leases and what is built on them. The node heartbeat (renew
// interval, retries, get-or-create with back-off), leader election as a
// state machine that says until when a losing leader may still work, a
// delegate renewing many nodes' leases under one identity (kwok's rules:
// a foreign holder respected until its lease expires), and the API server
// identity lease names and their garbage collection.
//
// cgroup: what the kubelet computes about cgroups, from plain numbers. The
// cgroup version and what v2 needs from a host, cgroupfs and systemd names
// of the QoS tree, milliCPU to shares, CFS quota and both cpu.weight
// formulas, QoS classes and the values of pod and QoS cgroups, MemoryQoS,
// swap eligibility, node allocatable, and the cgroup file formats.
//
// gc: cleanup decisions. The garbage collector's owner-reference graph
// (each reference solid, dangling or waiting; keep, patch or delete with
// which propagation policy; orphaning and foreground finalizers; a whole
// cascade under Background, Foreground or Orphan; owner cycles,
// foreground deadlocks and Explain), the kubelet's image GC (when usage
// crosses the high threshold, which images go, least recently used
// first), dead container and sandbox trimming, the pod GC controller's
// four steps, and the finished-Job TTL, CSR cleaner and node Lease
// collectors.
//
// cri: the seam to a container runtime. Small runtime, image and version
// interfaces a caller implements over a CRI client (cri/fake implements
// them in memory), the kubelet's CRI v1 start-up check, executors that
// apply the gc image and container plans, and the kubelet's per-pod
// runtime decisions: which sandbox to create and which containers to start
// or kill on a sync, the container hash, the crash-loop back-off and the
// probe worker.
//
// cloud: the cloud controller manager's node decisions, with the cloud
// provider injected as two small interfaces (cloud/fake implements them in
// memory): initializing a node from its instance metadata (provider ID,
// topology labels, addresses honouring the kubelet's --node-ip), the cloud
// node lifecycle (shutdown taint, deleting nodes whose instance is gone),
// node IPAM (the CIDR set and the dual-stack range allocator), the route
// controller's reconcile plan and the load-balancer node set.
//
// nodelifecycle: the node lifecycle and taint eviction controllers of
// kube-controller-manager composed into one synchronous state machine. It
// is told about nodes, node leases and bound pods, and each Step returns
// the controllers' actions in order (node status writes, pods marked
// NotReady, taints, zone transitions, scheduled and cancelled evictions,
// evictions) and when it next needs to run; the simulator, the client-go
// controller, nodewatch and the what-if replay all run it. Forks bend it
// without forking: a per-node policy (NodePolicy: pods kept Ready, no
// NoExecute taint, zones of the caller's; OpenYurt's autonomy ready-made),
// zones' own rates (eviction.Config.Zones), modes (no taint eviction,
// NoSchedule only, conditions without heartbeats, a lease filter) and
// refused writes (Refused).
//
// admission: the kubelet's pod admission. A NodeInfo holds a node and the
// pods admitted to it, kept up to date as pods come and go, and decides
// whether a pod may run there as the kubelet's general predicates do
// (resources against allocatable, host ports, node name, node selector and
// required affinity, NoExecute taints, OS), with the kubelet's reasons and
// messages (OutOfcpu, "Node didn't have enough resource: ..."); for a
// critical pod that does not fit it chooses the pods the kubelet preempts.
// Chain runs the kubelet's admit handlers in order (pressure, topology,
// shutdown, and slots for the rest); static pods, mirror pods and their
// reconciliation are planned too.
//
// eviction/pressure: the kubelet's node-pressure eviction. The eviction
// signals and the threshold grammar of --eviction-hard and friends with
// upstream's defaults and errors, observations from node stats, a
// synchronous eviction manager (grace and transition periods, minimum
// reclaim, node-level reclaim by filesystem layout, one pod per cycle with
// its status and message), the pod ranking per signal, admission under
// pressure, and what-if plans of how many pods must go.
//
// topology: the kubelet's node topology managers. The Topology Manager:
// NUMA bitmasks, topology hints and their merge under each policy (none,
// best-effort, restricted, single-numa-node) and option
// (prefer-closest-numa-nodes, max-allowable-numa-nodes), with upstream's
// answer and tie-breaks but without its cartesian product (an 8-node
// machine's worst case in half a millisecond instead of seconds), and its
// admission (Manager: container and pod scope over the hint providers).
// Its subpackages: the CPU and Memory Managers' static policies (cpu,
// memory), CPU lists as bitsets (cpuset) and both managers' checkpoint
// files (checkpoint).
//
// readiness: node readiness rules, the readiness the Ready condition does
// not cover, as the Node Readiness Controller enforces its
// NodeReadinessRule objects: rule validation (the CRD's rules and the
// admission webhook's, selector overlap), the evaluation of a rule's
// conditions on a node, the readiness taints added, removed and adopted,
// the bootstrap completion annotations, dry-run reports and a deleted
// rule's cleanup, with the controller's known bugs as options.
//
// remediation: node health checks and their remediation, as Cluster
// API's MachineHealthCheck and medik8s' NodeHealthCheck decide them: the
// conditions held for a timeout, the node startup timeout, the
// maxUnhealthy / minHealthy / unhealthyRange gate, storm recovery with its
// cooldown, escalating remediations with their timeouts, the healthy delay,
// exclusion labels, pauses and one control-plane node at a time (Check).
//
// release: the Kubernetes releases nodelife has presets for (V1_27 to
// V1_37; Current is v1.37, what every default reproduces) and Parse of a
// version string; every package whose rules changed between releases
// takes a release.Version in its preset (nodelifecycle.ConfigFor,
// cgroup.QOSOptionsFor, ...), and ProfileFor, in this root package, calls
// them all.
//
// nodelifetest: for property-based tests of policies built on the
// library, and of the library itself. rapid generators of every input
// type (taints and tolerations, conditions, nodes, leases, pods in every
// package's shape, eviction settings, shutdown configs, image, container
// and owner-graph records, cgroup values), a scenario generator of
// clusters with outages, shutdowns, pressure and API faults with a driver
// that plays them against nodelifecycle.Controller, and invariant checks
// (tolerationSeconds respected, zone tainting rates, full disruption,
// Unknown only after silence, critical pods and the kubelet's eviction
// order, shutdown phases, cascading deletion). Only tests import it; it is
// the one package that imports pgregory.net/rapid.
//
// sim: a discrete-event simulation of a cluster on a virtual clock, the
// library's machines composed: kubelets that heartbeat, post status, evict
// under pressure and shut down gracefully; the node lifecycle controller
// with its zones, taints and evictions; outages, shutdowns and pressure
// episodes; a timeline, per-pod outcomes and per-workload losses, drawn as
// SVG. Deterministic for a seed, no goroutines. cmd/simulate runs it from
// the command line (go run ./cmd/simulate --nodes 5000). Its subpackage
// sim/sched is the scheduling harness: a Policy seam in kube-scheduler's
// filter-and-score shape, nodes with GPUs per device, the FGD paper's six
// policies, fragmentation measure and experiment protocol, on traces
// that sim/trace reads (Alibaba's openb format), and kube-scheduler's
// queue as a machine (Scheduler) through which Replay runs a trace over
// time, pods arriving, waiting and leaving, and with a node fault trace
// the node lifecycle controller beside it (evictions, replacements,
// GPU-hours lost); cmd/schedsim runs the paper's table and the replays.
//
// # Layout
//
// The packages above are the library, in the root module. cmd/ holds the
// programs users run, each in the module it needs: cmd/simulate and
// cmd/schedsim in the root module, and cmd/cluster, a module on client-go, with the replay and
// nodewatch commands and the packages of a client-go controller, agent,
// leader election and garbage collectors (its end-to-end tests are the
// module cmd/cluster/e2e). examples/ holds the worked examples: go run
// ./examples/tour prints the guided tour, one scenario per area, each also
// a program of its own (examples/zone-outage, examples/shutdown,
// examples/disk-pressure, examples/leader-election,
// examples/cascading-delete, examples/cgroup, examples/taints,
// examples/cloud-node); examples/kubeapi, a module of its own, converts
// k8s.io/api objects into the library's inputs and back. internal/
// holds helpers, CI's checks and internal/conformance, nodelife beside
// k8s.io/kubernetes.
//
// # Driving a machine
//
// Every state machine and planner is driven the same way. The caller
// passes what happened, and now for anything that depends on time; the
// machine returns what to do as a value, the actions in order, each with
// a machine-readable Reason and a Message where a person reads it, and a
// state machine also when to call it again if nothing happens first (its
// Next; zero means no timer is needed). The caller performs the actions
// and tells the machine how they went through the feedback named in the
// table; events between steps have methods named after them (Observe,
// Upsert and Delete, Start, Cancel, PodTerminated). Outcomes come back
// only through those methods, between steps: no machine asks its caller
// how a write went while it decides. A machine whose later decisions in
// one step depend on its writes (nodelifecycle.Controller) pauses after
// them, returning Next equal to now, and the next call carries on once
// the failures are reported. A machine reads no clock, and clamps a now
// earlier than one it has seen. Two take a function that answers a
// question rather than reporting an outcome: NoExecuteTainter.Step asks a
// node's current Ready status, and RateLimitedQueue.Try, upstream's queue
// primitive, asks its caller what to do with each due item. Pure decisions that keep no state are functions or
// config methods named Plan or Decide; the same inputs give the same plan.
// Errors are returned for invalid input (a config, an object the API
// would refuse) or a lookup of the caller's that failed (gc.PodGC's
// NodeExists), never for a decision.
//
// The state machines (each made by its NewXxx, which validates the config):
//
//	machine                    call                          returns (what to do; when next)                             feedback
//	conditions.Monitor         Step(now, nodes)              []NodeUpdate: each node's Health (write, pods NotReady,     WriteFailed(update), MarkPodsFailed(node),
//	                                                         event); next: every conditions.DefaultNodeMonitorPeriod     Forget(node), ResetProbes(now)
//	conditions.Reporter        Step(now, changed)            ReportDecision: Post, Reason, Message; Next                 Reported(now) after a successful post
//	eviction.NoExecuteTainter  Step(now, ready)              []TaintUpdate: Add, Remove, Reason, Message; Next(now)      TaintFailed(now, update); Observe(now, node, ready)
//	eviction.RateLimitedQueue  Try(now, fn)                  fn called per due item, in order; Next(now)                 fn's result: done, or retry after a delay
//	eviction.TokenBucket       Allow(now)                    whether a token was taken; NextAllow(now)                   none
//	eviction/pressure.Manager  Step(now, obs, pods, stats)   Result: Decision (Evict with Reason, Message),              none: the next Step's observations;
//	                                                         Conditions, NodeEvent; Next                                 Reclaimed(fresh) after a node-level reclaim
//	shutdown.Manager           Start(now, pods), Step(now),  Step: Kills, Events, Phases, inhibitor lock,                PodTerminated(now, key)
//	                           Cancel(now)                   ReadyChanged; Next
//	lease.Heartbeat            Step(now)                     HeartbeatStep: Op (Get, Create, Update, Wait), Lease; Next  Done(now, outcome, lease read or written)
//	lease.Elector              Step(now), Release(now)       ElectionStep: Op, Record, Leading, MustStopBy; Next         Done(now, outcome, record, resource version)
//	gc.PodGC                   Step(now, input)              PodGCPlan: Deletions with Reason and Message; Next; error   none: the next Step's input
//	cri.ProbeWorker            Step(now, observation)        ProbeStep: Probe, Result, Changed, Why; Next                Report(outcome) of a probe it asked for
//	nodelifecycle.Controller   Step(now), StepAll(now)       Ready: Actions (Kind, Reason, Message) in order; Next       Failed(action) for a write that failed; UpsertNode,
//	                                                         (now: paused after writes, call again)                      UpsertLease, RenewLease, SetRenewals (a lease
//	                                                                                                                     schedule read lazily), UpsertPod, the Deletes
//	admission.NodeInfo         Admit(pod)                    Decision: Admit, Reason, Message, pods to preempt           AddPod(pod), RemovePod(uid)
//	topology.Manager           Admit(pod)                    Admission: Admit, Reason, Message, container hints; error   RemoveContainer(pod, container)
//	cloud.RangeAllocator       Sync(node)                    PodCIDRUpdate to write; error                               Abort(update) when the write failed, Delete(node)
//	sim/sched.Scheduler        Step(now)                     Round: Bound (pod, node, GPUs), Failed (pod, reason); Next  Add(now, pod), Delete(now, name),
//	                                                                                                                     AddNode(now, node), SetTaints(now, node, taints)
//
// The planners (stateless):
//
//	planner                      call                                               returns
//	shutdown.Config              Plan(pods)                                         Plan: phases, each pod's grace period; error
//	shutdown.OutOfServiceConfig  Plan(now, node, pods, volumes)                     OutOfServicePlan: force deletions, volume detaches
//	eviction.Config              PlanZones(prev, counts), PlanDisruption(...)       DisruptionPlan: zone states, rates, full disruption; error
//	eviction.NoExecuteConfig     Plan(now, taints, pod, scheduled), PlanNode(...)   NoExecuteDecision: evict now, schedule, keep, cancel
//	eviction/pressure            Rank(signal, layout, pods, stats, opts)            []Ranked, the kubelet's eviction order; error
//	eviction/pressure            PlanEvictions(threshold, observation, ranked)      Plan: how many pods must go
//	gc                           PlanImages(now, policy, records, fs, began)        ImagePlan: images to remove, least recently used first; error
//	gc                           PlanContainers(now, policy, input)                 ContainerPlan: dead containers and sandboxes to remove; error
//	gc                           PlanCascade(objects, target, policy, opts)         CascadeResult: deletes and patches in rounds; error
//	gc                           PlanJobTTL(now, jobs), PlanCSRCleanup(now, csrs)   the Jobs and CSRs to delete, each with its reason
//	gc                           PlanNodeLeases(now, cfg, leases, nodes)            NodeLeasePlan: the leases to delete
//	lease                        PlanIdentityLeaseGC(now, leases)                   []GCDecision
//	cri.BackoffConfig            Decide(now, entry, finishedAt)                     BackoffDecision: restart now or when; error
//	cloud                        PlanInitialization, PlanRoutes, DecideLifecycle    InitPlan, RoutePlan, LifecycleDecision
//	readiness                    PlanNode(rules, node, ...), PlanRule(...)          NodePlan, RulePlan: taints added, removed, adopted
//	remediation.Config           Check(now, cfg, input)                             Plan: verdicts, the gate, remediations started, timed out, ended; when next; error
//	taints                       ReconcileConditionTaints(now, taints, conds, ...)  the taints to add and remove
//
// now comes first in every call that takes it, as in x/time/rate. Each
// config type's zero value, and each machine's, is documented where the
// type is declared; most configs start from a DefaultXxx function.
//
// # Rules every package follows
//
//  1. Time is an argument. Planners take now time.Time as their first
//     argument and durations are config fields; nothing reads the clock,
//     sleeps, or starts goroutines.
//  2. Decide, don't do. Planners return plans, values listing actions in
//     order with a machine-readable Reason and a human Message; state
//     machines are synchronous. The caller performs the I/O.
//  3. Randomness is injected, so the same inputs give the same outputs.
//  4. Order is deterministic: rankings end in a total tie-break and no output
//     depends on map iteration order.
//  5. Types are small and use upstream's names: field names, constants and
//     string values match k8s.io/api/core/v1, so converting from the real
//     API objects is a field copy. Inputs are never modified.
//  6. Upstream behaviour is the default. Where upstream changed, or has a
//     known bug, the other behaviour is an explicit, documented option that
//     cites the upstream issue.
//  7. Configs validate and report every problem at once, naming the field.
//     A config's doc states its zero value, which is one of two things:
//     upstream's behaviour in the current release (every switch off, a
//     switch being named for the upstream gate it turns off, Disable<Gate>,
//     or for the older or fixed behaviour it selects; a zero period or
//     count taken as upstream's default where the field says so), or not
//     usable, with the constructor or DefaultXxx to start from. No zero
//     value selects a fix upstream never made, and none an older release:
//     ProfileFor does.
//  8. Errors carry the package's prefix and wrap sentinels callers can test
//     with errors.Is; no input makes the library panic.
//  9. Hot paths allocate nothing and planners are O(n log n) at worst.
package nodelife
