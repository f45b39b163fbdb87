// Package topology is the kubelet's node topology managers as pure
// planners. It holds the Topology Manager: NUMA bitmasks, topology hints,
// the merge of the hint providers' hints under each
// --topology-manager-policy (none, best-effort, restricted,
// single-numa-node) with the policy options prefer-closest-numa-nodes and
// max-allowable-numa-nodes, and the admission that runs the merge for each
// container or the whole pod (--topology-manager-scope) and has the
// providers allocate on its result (Manager), as k8s.io/kubernetes v1.37.2
// pkg/kubelet/cm/topologymanager decides them. Its subpackages hold the
// hint providers and their state: the CPU Manager's static policy (cpu),
// the Memory Manager's (memory), the kubelet's CPU lists as bitsets
// (cpuset) and both managers' checkpoint files (checkpoint). EachMask is
// the order in which both managers list their hints.
//
// # Usage
//
// The caller collects each provider's hints (the CPU manager's for "cpu",
// the memory manager's for "memory" and each huge-page size, the device
// manager's for each device) and merges them:
//
//	info := topology.NUMAInfo{Nodes: []int{0, 1}}
//	hint, admit, err := topology.Merge(topology.PolicySingleNUMANode, info, topology.PolicyOptions{}, providers)
//
// admit false is the kubelet's TopologyAffinityError: the pod is rejected.
//
// A Manager does the whole admission as the kubelet's admit handler runs
// it, with the providers' own hint and allocation functions (the CPU
// Manager's cpu.Static.Provider, the Memory Manager's
// memory.Static.Provider, a caller's for devices, in the kubelet's order:
// devices, cpu, memory):
//
//	m, err := topology.NewManager(topology.ManagerConfig{
//		Policy: topology.PolicySingleNUMANode, Scope: topology.ScopeContainer,
//		NUMA: info, Providers: []topology.Provider{cpus.Provider(), mem.Provider()},
//	})
//	a, err := m.Admit(pod) // a.Admit, a.Reason, a.Message: the pod's admission
//
// Under container scope each container (init containers first) is merged
// and then allocated by every provider on its hint; under pod scope the
// pod's hints are merged once and every container allocated on that hint;
// under the none policy nothing is merged. The first refusal ends the
// admission (TopologyAffinityError for a merge, the provider's error for
// an allocation) and, as upstream, leaves the containers allocated before
// it to the caller to release.
//
// A refusal for locality carries upstream's Reason and Message, which say
// nothing about the machine. Admission.Why says it for people, from the
// providers' Demands (cpu.Static and memory.Static give theirs): the
// resource, the amount asked and the most any allowed placement has free,
// where, and the policy that forbade spreading ("cpu: 40 asked, at most 24
// free on one NUMA node (NUMA node 1); single-numa-node keeps a
// container's resources on one NUMA node"). Explain is the same for
// demands a caller gathers itself.
//
// Masks and hints print as node lists ("NUMA nodes 0,1", "{NUMA node 1,
// preferred}"). Upstream's kubelet logs them in binary, the highest node
// on the left ("11", "{10 (preferred)}"); BitMask.Bits and Hint.Bits give
// that form.
//
// # Semantics
//
// A provider's nil hint list means "no preference" (one preferred hint
// without affinity), an empty list "no affinity can satisfy this" (one
// non-preferred hint without affinity), and a provider with no entries has
// no preference. Every combination of one hint per resource is merged:
// the affinity is the AND of the hints' affinities (and the machine's
// nodes); it is preferred only when every hint is and all their
// affinities are equal (kubernetes#108052). The best merged hint is kept
// by upstream's comparison: preferred before non-preferred; among
// preferred ones, the narrowest mask (fewest nodes, then the smallest
// value) or, with prefer-closest-numa-nodes outside single-numa-node, the
// one with the smallest average NUMA distance; among non-preferred ones,
// masks of the size of the largest "narrowest hint" of the resources
// first, then smaller sizes from the largest down, then larger ones by
// mask. An empty merged affinity never wins; with no winner the result is
// the machine's nodes, not preferred. best-effort admits every pod,
// restricted and single-numa-node only a preferred result;
// single-numa-node first keeps only preferred hints of one node (or
// without affinity) and reports a result covering every node as "any".
//
// Upstream walks the cartesian product of the hint lists, which is
// (2^N-1)^R combinations for R resources on N NUMA nodes (about 10 s and
// 3 GB for one pod on an empty 8-node machine with cpu, memory and one
// huge-page size). Merge does not: the comparison, applied to the
// distinct merged hints, always ends on the same one whatever their
// order (preferred first; among preferred, the least by the mask order;
// among the rest, the least of the size of the largest "narrowest hint",
// else of the largest size below it, else of all), so it only needs to
// know which merged hints occur. The preferred ones are the masks every
// list offers preferred; the others are the ANDs reachable list by list,
// kept as a table over the machine's node subsets and extended pair by
// pair or, for long lists, by superset sums and their inversion in
// O(N·2^N). The 8-node case takes microseconds, a 16-node machine with
// three full lists a few milliseconds. Machines of more than 16 nodes use
// a walk over the distinct prefix states instead. A test checks the two
// against each other, and a property and the conformance comparison check
// Merge against the cartesian fold. The same argument shows that
// upstream's answer does not depend on the Go map order in which it reads
// a provider's resources, so Merge's is upstream's exactly.
package topology
