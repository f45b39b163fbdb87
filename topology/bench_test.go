package topology_test

import (
	"fmt"
	"testing"

	"github.com/nodelife/nodelife/topology"
)

// allMasks is what a provider returns for a resource on an empty machine
// of n NUMA nodes: every non-empty mask, the narrowest ones preferred.
func allMasks(n int) []topology.Hint {
	var hs []topology.Hint
	for m := topology.BitMask(1); m < 1<<uint(n); m++ {
		hs = append(hs, topology.Hint{Affinity: m, Preferred: m.Count() == 1})
	}
	return hs
}

func nodesInfo(n int) topology.NUMAInfo {
	info := topology.NUMAInfo{Distances: map[int][]uint64{}}
	for i := 0; i < n; i++ {
		info.Nodes = append(info.Nodes, i)
		row := make([]uint64, n)
		for j := range row {
			row[j] = 10
			if i != j {
				row[j] = 20 + uint64((i^j)%4)
			}
		}
		info.Distances[i] = row
	}
	return info
}

// BenchmarkMergeFullLists: best-effort merge of lists of every mask (cpu,
// memory, one hugepage size) on an empty machine, upstream's worst case;
// "nonpreferred": the same lists with no hint preferred (a machine too
// full for any narrow placement), where every merged affinity must be
// found.
func BenchmarkMergeFullLists(b *testing.B) {
	for _, c := range []struct {
		nodes, lists int
		nonpreferred bool
	}{{4, 3, false}, {8, 2, false}, {8, 3, false}, {8, 3, true}, {16, 3, false}, {16, 3, true}} {
		name := fmt.Sprintf("numa=%d/lists=%d", c.nodes, c.lists)
		if c.nonpreferred {
			name += "/nonpreferred"
		}
		b.Run(name, func(b *testing.B) {
			info := nodesInfo(c.nodes)
			var providers []topology.ProviderHints
			for i := 0; i < c.lists; i++ {
				hs := allMasks(c.nodes)
				if c.nonpreferred {
					for j := range hs {
						hs[j].Preferred = false
					}
				}
				providers = append(providers, topology.ProviderHints{fmt.Sprint("r", i): hs})
			}
			opts := topology.PolicyOptions{MaxAllowableNUMANodes: 64}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, _, err := topology.Merge(topology.PolicyBestEffort, info, opts, providers); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
