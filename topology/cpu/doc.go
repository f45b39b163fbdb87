// Package cpu is the kubelet's CPU Manager static policy as a pure,
// synchronous state machine, as k8s.io/kubernetes v1.37.2
// pkg/kubelet/cm/cpumanager decides it: the machine's CPU topology, the
// reserved CPUs, exclusive CPUs for the containers of Guaranteed pods with
// whole-CPU requests, the shared pool, topology hints, allocation packed
// or distributed over NUMA nodes with every policy option of v1.37 (v1.36 with ConfigFor), init
// containers and sidecars, and release.
//
// # Usage
//
// Describe the machine (Discover builds the Topology from what cAdvisor
// reports; a Topology can also be written by hand), compile it, and create
// the policy with the kubelet's reservation and options:
//
//	topo, err := cpu.Discover(numCPUs, numSockets, nodes)
//	m, err := cpu.NewMachine(topo)
//	opts, err := cpu.ParseOptions(map[string]string{"full-pcpus-only": "true"}, cpu.OptionGates{})
//	p, err := cpu.NewStatic(cpu.Config{Machine: m, NumReserved: 2, Options: opts})
//	err = p.Start(restored) // checkpoint.ReadCPU's state, or the zero state
//
// Then, for each pod the kubelet admits, per container (the topology
// manager's container scope) or once per pod (pod scope): collect
// p.Hints (or p.PodHints) with the other providers', merge them with
// topology.Merge, and call p.Allocate with the merged hint; on container
// removal call p.RemoveContainer. p.State is what the checkpoint keeps
// (checkpoint.MarshalCPU). The allocators are also usable alone:
// Machine.TakePacked and Machine.TakeDistributed pick n CPUs from any set,
// as the policy does.
//
// # Semantics
//
// A container gets exclusive CPUs when its pod's QoS class is Guaranteed
// and its cpu request is a whole number; every other container runs in the
// shared pool (the default CPU set). The reserved CPUs (--reserved-cpus,
// or ceil(kube-reserved + system-reserved) CPUs taken by topology from the
// lowest cores) stay in the shared pool and are never handed out;
// strict-cpu-reservation takes them out of the pool too.
//
// Allocation takes whole NUMA nodes and sockets first (whichever is the
// larger unit first), then whole cores, then single threads, always from
// the groups with the fewest free CPUs; prefer-align-cpus-by-uncorecache
// tries whole and partly free L3 caches before cores;
// distribute-cpus-across-cores orders threads across cores and takes no
// whole cores; distribute-cpus-across-numa spreads a request that needs
// several NUMA nodes evenly (KEP-2902); full-pcpus-only hands out whole
// cores only. The CPUs of the topology manager's hint come first.
//
// Upstream's quirks are kept. A core (socket) counts as free when as many
// of its CPUs are free as NumCPUs/NumCores (NumSockets) says, so on a
// machine whose cores or sockets differ in size (hybrid P- and E-cores,
// offline CPUs, counts that disagree with the CPUs) a partly held core or
// socket can be taken whole, handing out a CPU that is not free
// (kubernetes#140495); Options.ExactFreeCores applies upstream's later
// fix for cores (#140498). The distributed allocator's kept combination
// may have its tail overwritten by the combinations tried after it, as
// upstream's, so that CPUs come from NUMA nodes it did not choose (see
// TakeDistributed; Options.KeepBestCombination takes the chosen ones; no
// upstream issue tracks this yet).
//
// One case differs, because upstream never returns: distributing the CPUs
// left after the even share over a subset of NUMA nodes whose free CPUs
// cannot hold them in whole groups, upstream loops forever (with
// full-pcpus-only and distribute-cpus-across-numa, when a node's free CPUs
// are not a multiple of the threads per core); TakeDistributed skips that
// subset, as upstream's main branch does since kubernetes#140730 (not in
// v1.36.3 nor v1.37.2); Machine.UpstreamDistributeLoops says whether those
// releases would hang on a request.
//
// Not modelled: the PodLevelResourceManagers gate (beta and off in v1.37; a pod
// with pod-level resources runs in the shared pool, as upstream with the
// gate off), the reconcile loop that writes cpusets through the CRI, and
// the none policy (which does nothing).
package cpu
