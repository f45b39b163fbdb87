package topology_test

import (
	"fmt"

	"github.com/nodelife/nodelife/topology"
)

// A Guaranteed pod on a two-node machine: the CPU manager can place its
// cpus on node 0 or node 1 (or across both, not preferred); node 1 has no
// free memory left for it, so the memory manager offers node 0 or both.
// Every policy merges the same hints: node 0 is the only preferred
// combination. When the cpus fit only on node 1 (or across both), no
// combination is preferred: best-effort admits the pod with the
// narrowest non-preferred hint (node 0: the AND of "both" for cpu and
// node 0 for memory), single-numa-node refuses it (its hints of one node,
// 1 for cpu and 0 for memory, share nothing).
func ExampleMerge() {
	info := topology.NUMAInfo{Nodes: []int{0, 1}}
	n0, _ := topology.NewBitMask(0)
	n1, _ := topology.NewBitMask(1)
	both, _ := topology.NewBitMask(0, 1)
	cpu := topology.ProviderHints{"cpu": {{Affinity: n0, Preferred: true}, {Affinity: n1, Preferred: true}, {Affinity: both}}}
	memory := topology.ProviderHints{"memory": {{Affinity: n0, Preferred: true}, {Affinity: both}}}
	for _, p := range []topology.Policy{topology.PolicyBestEffort, topology.PolicySingleNUMANode} {
		hint, admit, _ := topology.Merge(p, info, topology.PolicyOptions{}, []topology.ProviderHints{cpu, memory})
		fmt.Println(p, hint, "admit:", admit)
	}
	short := topology.ProviderHints{"cpu": {{Affinity: n1, Preferred: true}, {Affinity: both}}}
	for _, p := range []topology.Policy{topology.PolicyBestEffort, topology.PolicySingleNUMANode} {
		hint, admit, _ := topology.Merge(p, info, topology.PolicyOptions{}, []topology.ProviderHints{short, memory})
		fmt.Println(p, hint, "admit:", admit)
	}
	// Output:
	// best-effort {NUMA node 0, preferred} admit: true
	// single-numa-node {NUMA node 0, preferred} admit: true
	// best-effort {NUMA node 0} admit: true
	// single-numa-node {any} admit: false
}

// ParsePolicyOptions reads --topology-manager-policy-options and refuses
// what the kubelet refuses.
func ExampleParsePolicyOptions() {
	opts, err := topology.ParsePolicyOptions(map[string]string{"prefer-closest-numa-nodes": "true", "max-allowable-numa-nodes": "16"})
	fmt.Println(opts, err)
	_, err = topology.ParsePolicyOptions(map[string]string{"max-allowable-numa-nodes": "4"})
	fmt.Println(err)
	// Output:
	// {true 16} <nil>
	// topology: invalid input: option "max-allowable-numa-nodes" is 4, below the minimum 8
}

// NewBitMask, String (a node list) and Bits (upstream's binary form, two
// digits at least, the highest node on the left).
func ExampleNewBitMask() {
	m, _ := topology.NewBitMask(0, 2)
	fmt.Println(m, "|", m.Bits(), m.Count(), m.Nodes())
	one, _ := topology.NewBitMask(1)
	fmt.Println(one, "|", one.Bits())
	_, err := topology.NewBitMask(64)
	fmt.Println(err)
	// Output:
	// NUMA nodes 0,2 | 0101 2 [0 2]
	// NUMA node 1 | 10
	// topology: invalid input: NUMA node 64 is outside 0-63
}

// EachMask visits the subsets of NUMA nodes in the order the CPU and
// Memory Managers list their hints: by size, then by position.
func ExampleEachMask() {
	topology.EachMask([]int{0, 1, 3}, func(m topology.BitMask) { fmt.Print(m.Nodes(), " ") })
	fmt.Println()
	// Output:
	// [0] [1] [3] [0 1] [0 3] [1 3] [0 1 3]
}

// Explain on demands a caller gathered: 20 CPUs under restricted on four
// NUMA nodes of 8 need three nodes (16 < 20 <= 24); the three freest hold
// 8+4+3 = 15.
func ExampleExplain() {
	d := topology.Demand{Resource: "cpu", Asked: 20,
		Free:     map[int]int64{0: 8, 1: 2, 2: 3, 3: 4},
		Capacity: map[int]int64{0: 8, 1: 8, 2: 8, 3: 8}}
	fmt.Println(topology.Explain(topology.PolicyRestricted, []int{0, 1, 2, 3}, []topology.Demand{d}))
	// Output:
	// cpu: 20 asked, at most 15 free on 3 NUMA nodes (NUMA nodes 0,2,3), the fewest whose capacity holds 20; restricted admits only a preferred placement, on as few NUMA nodes as each resource needs
}
