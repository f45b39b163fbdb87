package nodelifetest

import (
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/topology"
)

// UpstreamNUMAMachines returns, fresh each call, the NUMA machines of
// upstream's topology manager tests (commonNUMAInfoTwoNodes, FourNodes and
// EightNodes in pkg/kubelet/cm/topologymanager/policy_test.go): 2, 4 and 8
// nodes with their distance matrices, the 8-node one with upstream's
// asymmetric last row.
func UpstreamNUMAMachines() []topology.NUMAInfo {
	return []topology.NUMAInfo{
		{Nodes: []int{0, 1}, Distances: map[int][]uint64{0: {10, 11}, 1: {11, 10}}},
		{Nodes: []int{0, 1, 2, 3}, Distances: map[int][]uint64{0: {10, 11, 12, 12}, 1: {11, 10, 12, 12}, 2: {12, 12, 10, 11}, 3: {12, 12, 11, 10}}},
		{Nodes: []int{0, 1, 2, 3, 4, 5, 6, 7}, Distances: map[int][]uint64{
			0: {10, 11, 12, 12, 30, 30, 30, 30}, 1: {11, 10, 12, 12, 30, 30, 30, 30},
			2: {12, 12, 10, 11, 30, 30, 30, 30}, 3: {12, 12, 11, 10, 30, 30, 30, 30},
			4: {30, 30, 30, 30, 10, 11, 12, 12}, 5: {30, 30, 30, 30, 11, 10, 12, 12},
			6: {30, 30, 30, 30, 12, 12, 10, 11}, 7: {30, 30, 30, 30, 12, 12, 13, 10}}},
	}
}

// NUMAMachines draws one of UpstreamNUMAMachines.
func NUMAMachines() *rapid.Generator[topology.NUMAInfo] {
	return rapid.Custom(func(t *rapid.T) topology.NUMAInfo {
		ms := UpstreamNUMAMachines()
		return ms[rapid.IntRange(0, len(ms)-1).Draw(t, "machine")]
	})
}

// Hints draws one resource's topology hints on a machine of nodes NUMA
// nodes (clamped to 1-64): nil (no preference) or empty (impossible) about once in ten
// each, else 1-8 hints of random non-empty masks, preferred or not, a hint
// without affinity ("any") about once in ten.
func Hints(nodes int) *rapid.Generator[[]topology.Hint] {
	return rapid.Custom(func(t *rapid.T) []topology.Hint {
		switch rapid.IntRange(0, 9).Draw(t, "shape") {
		case 0:
			return nil
		case 1:
			return []topology.Hint{}
		}
		var hs []topology.Hint
		for i := rapid.IntRange(1, 8).Draw(t, "hints"); i > 0; i-- {
			if rare(t, 10, "any") {
				hs = append(hs, topology.Hint{Any: true, Preferred: rapid.Bool().Draw(t, "preferred")})
				continue
			}
			m := topology.BitMask(rapid.Uint64Range(1, allNodes(nodes)).Draw(t, "mask"))
			hs = append(hs, topology.Hint{Affinity: m, Preferred: rapid.Bool().Draw(t, "preferred")})
		}
		return hs
	})
}

// ProviderHintSets draws what 0-3 hint providers return for a pod on a
// machine of nodes NUMA nodes: 0-2 of cpu, memory, hugepages-2Mi and
// example.com/gpu each (a provider with none has no preference), their
// hints as Hints draws them.
func ProviderHintSets(nodes int) *rapid.Generator[[]topology.ProviderHints] {
	return rapid.Custom(func(t *rapid.T) []topology.ProviderHints {
		var out []topology.ProviderHints
		for p := rapid.IntRange(0, 3).Draw(t, "providers"); p > 0; p-- {
			ph := topology.ProviderHints{}
			for r := rapid.IntRange(0, 2).Draw(t, "resources"); r > 0; r-- {
				ph[rapid.SampledFrom([]string{"cpu", "memory", "hugepages-2Mi", "example.com/gpu"}).Draw(t, "resource")] = Hints(nodes).Draw(t, "hints")
			}
			out = append(out, ph)
		}
		return out
	})
}

// CheckTopologyMerge checks a topology manager's merge result against its
// policy: none admits everything with an empty hint; restricted and
// single-numa-node admit only a preferred hint; an admitted
// single-numa-node hint has no affinity or one of exactly one node; no
// affinity leaves the machine's nodes.
func CheckTopologyMerge(policy topology.Policy, info topology.NUMAInfo, h topology.Hint, admit bool) error {
	switch {
	case policy == topology.PolicyNone && (!admit || h != topology.Hint{}):
		return checkErr("none gave %v, admit %v", h, admit)
	case (policy == topology.PolicyRestricted || policy == topology.PolicySingleNUMANode) && admit && !h.Preferred:
		return checkErr("%s admitted the non-preferred %v", policy, h)
	case policy == topology.PolicySingleNUMANode && admit && !h.Any && h.Affinity.Count() != 1:
		return checkErr("single-numa-node admitted %v, of %d nodes", h, h.Affinity.Count())
	case !h.Any && h.Affinity&^info.DefaultAffinity() != 0:
		return checkErr("%s gave %v, outside the machine's nodes %v", policy, h, info.Nodes)
	case policy == topology.PolicyBestEffort && !admit:
		return checkErr("best-effort refused %v", h)
	}
	return nil
}

// allNodes is the mask of nodes 0..n-1, n clamped to 1-64.
func allNodes(n int) uint64 {
	switch {
	case n <= 1:
		return 1
	case n >= 64:
		return ^uint64(0)
	}
	return 1<<uint(n) - 1
}
