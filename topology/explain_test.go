package topology_test

import (
	"testing"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
)

// The explanations, each worked out by hand from the rule in Explain's
// doc: single-numa-node places on one node, restricted on the fewest
// nodes whose capacity holds the request; the best placement is the
// nodes with the most free, the lower ID first among equals.
func TestExplain(t *testing.T) {
	const gi = int64(1) << 30
	single := "single-numa-node keeps a container's resources on one NUMA node"
	restricted := "restricted admits only a preferred placement, on as few NUMA nodes as each resource needs"
	for _, tc := range []struct {
		name    string
		policy  topology.Policy
		nodes   []int
		demands []topology.Demand
		want    string
	}{
		{"40 CPUs, 24 free at best", topology.PolicySingleNUMANode, []int{0, 1},
			[]topology.Demand{{Resource: "cpu", Asked: 40, Free: map[int]int64{0: 23, 1: 24}, Capacity: map[int]int64{0: 24, 1: 24}}},
			"cpu: 40 asked, at most 24 free on one NUMA node (NUMA node 1); " + single},
		// 20 CPUs need 3 nodes of 8; the 3 freest hold 8+4+3 = 15.
		{"restricted, the narrowest size", topology.PolicyRestricted, []int{0, 1, 2, 3},
			[]topology.Demand{{Resource: "cpu", Asked: 20, Free: map[int]int64{0: 8, 1: 2, 2: 3, 3: 4}, Capacity: map[int]int64{0: 8, 1: 8, 2: 8, 3: 8}}},
			"cpu: 20 asked, at most 15 free on 3 NUMA nodes (NUMA nodes 0,2,3), the fewest whose capacity holds 20; " + restricted},
		{"each fits alone", topology.PolicySingleNUMANode, []int{0, 1}, []topology.Demand{
			{Resource: "cpu", Asked: 4, Free: map[int]int64{0: 2, 1: 6}, Capacity: map[int]int64{0: 8, 1: 8}},
			{Resource: "memory", Asked: 4 * gi, Free: map[int]int64{0: 8 * gi, 1: gi}, Capacity: map[int]int64{0: 16 * gi, 1: 16 * gi}, Bytes: true}},
			"each resource fits on its own (cpu on NUMA node 1; memory on NUMA node 0), but no NUMA node holds them all; " + single},
		// Node 1 has 6 CPUs and 2Gi: both fit there.
		{"both fit on one node", topology.PolicySingleNUMANode, []int{0, 1}, []topology.Demand{
			{Resource: "cpu", Asked: 4, Free: map[int]int64{0: 2, 1: 6}},
			{Resource: "memory", Asked: 2 * gi, Free: map[int]int64{0: 8 * gi, 1: 2 * gi}, Bytes: true}},
			"every resource fits on NUMA node 1: the refusal comes from another provider or from hints that leave that node out"},
		// 6 CPUs need one node of 8; 4Gi one of 16: both fit, on different nodes.
		{"restricted, each fits", topology.PolicyRestricted, []int{0, 1}, []topology.Demand{
			{Resource: "cpu", Asked: 6, Free: map[int]int64{0: 2, 1: 6}, Capacity: map[int]int64{0: 8, 1: 8}},
			{Resource: "memory", Asked: 4 * gi, Free: map[int]int64{0: 8 * gi, 1: gi}, Capacity: map[int]int64{0: 16 * gi, 1: 16 * gi}, Bytes: true}},
			"each resource fits on its own (cpu on NUMA node 1; memory on NUMA node 0), but the placement must be preferred for every resource at once; " + restricted},
		{"memory short, a tie goes to the lower ID", topology.PolicySingleNUMANode, []int{0, 1}, []topology.Demand{
			{Resource: "memory", Asked: 10 * gi, Free: map[int]int64{0: 6 * gi, 1: 6 * gi}, Capacity: map[int]int64{0: 16 * gi, 1: 16 * gi}, Bytes: true}},
			"memory: 10Gi asked, at most 6Gi free on one NUMA node (NUMA node 0); " + single},
		{"two short, in order", topology.PolicySingleNUMANode, []int{0, 1}, []topology.Demand{
			{Resource: "cpu", Asked: 10, Free: map[int]int64{0: 2, 1: 6}},
			{Resource: "hugepages-1Gi", Asked: 4 * gi, Free: map[int]int64{0: 2 * gi}, Bytes: true}},
			"cpu: 10 asked, at most 6 free on one NUMA node (NUMA node 1); hugepages-1Gi: 4Gi asked, at most 2Gi free on one NUMA node (NUMA node 0); " + single},
		// No capacity given: restricted's placement is both nodes (2+1 free),
		// and nothing is claimed about capacity.
		{"restricted without capacity", topology.PolicyRestricted, []int{0, 1},
			[]topology.Demand{{Resource: "cpu", Asked: 4, Free: map[int]int64{0: 2, 1: 1}}},
			"cpu: 4 asked, at most 3 free on 2 NUMA nodes (NUMA nodes 0,1); " + restricted},
		{"no node at all", topology.PolicySingleNUMANode, nil,
			[]topology.Demand{{Resource: "cpu", Asked: 4}},
			"cpu: 4 asked, none free on any NUMA node; " + single},
		{"best-effort refuses nothing for locality", topology.PolicyBestEffort, []int{0, 1},
			[]topology.Demand{{Resource: "cpu", Asked: 40, Free: map[int]int64{0: 1}}}, ""},
		{"nothing asked", topology.PolicySingleNUMANode, []int{0, 1},
			[]topology.Demand{{Resource: "cpu", Asked: 0}}, ""},
		{"no demands", topology.PolicyRestricted, []int{0, 1}, nil, ""},
	} {
		if got := topology.Explain(tc.policy, tc.nodes, tc.demands); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// The Manager explains a refusal in the pod scope from the providers'
// demands for the whole pod (container ""), and leaves Why empty when it
// admits.
func TestManagerWhy(t *testing.T) {
	var asked []string
	p := topology.Provider{Name: "gpu",
		Hints:    func(core.Pod, string) (topology.ProviderHints, error) { return nil, nil },
		PodHints: func(core.Pod) (topology.ProviderHints, error) { return topology.ProviderHints{"gpu": {}}, nil },
		Allocate: func(core.Pod, string, topology.Hint) error { return nil },
		Demands: func(_ core.Pod, container string) []topology.Demand {
			asked = append(asked, container)
			return []topology.Demand{{Resource: "example.com/gpu", Asked: 3, Free: map[int]int64{0: 2, 1: 1}}}
		},
	}
	m, err := topology.NewManager(topology.ManagerConfig{Policy: topology.PolicySingleNUMANode, Scope: topology.ScopePod,
		NUMA: topology.NUMAInfo{Nodes: []int{0, 1}}, Providers: []topology.Provider{p}})
	if err != nil {
		t.Fatal(err)
	}
	pod := core.Pod{UID: "u", Containers: []core.Container{{Name: "app"}}}
	a, err := m.Admit(pod)
	if err != nil || a.Admit || a.Reason != topology.ReasonTopologyAffinity {
		t.Fatalf("admission %+v, %v: want a TopologyAffinityError", a, err)
	}
	want := "example.com/gpu: 3 asked, at most 2 free on one NUMA node (NUMA node 0); single-numa-node keeps a container's resources on one NUMA node"
	if a.Why != want || len(asked) != 1 || asked[0] != "" {
		t.Errorf("Why %q (demands asked for %q), want %q for the pod", a.Why, asked, want)
	}
	p.PodHints = func(core.Pod) (topology.ProviderHints, error) { return nil, nil }
	m, _ = topology.NewManager(topology.ManagerConfig{Policy: topology.PolicySingleNUMANode, Scope: topology.ScopePod,
		NUMA: topology.NUMAInfo{Nodes: []int{0, 1}}, Providers: []topology.Provider{p}})
	if a, err := m.Admit(pod); err != nil || !a.Admit || a.Why != "" {
		t.Errorf("admitted pod: %+v, %v", a, err)
	}
}
