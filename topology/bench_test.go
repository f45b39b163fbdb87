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
// memory, one hugepage size) on an empty machine, upstream's worst case.
func BenchmarkMergeFullLists(b *testing.B) {
	for _, c := range []struct{ nodes, lists int }{{4, 3}, {8, 2}, {8, 3}} {
		b.Run(fmt.Sprintf("numa=%d/lists=%d", c.nodes, c.lists), func(b *testing.B) {
			info := nodesInfo(c.nodes)
			var providers []topology.ProviderHints
			for i := 0; i < c.lists; i++ {
				providers = append(providers, topology.ProviderHints{fmt.Sprint("r", i): allMasks(c.nodes)})
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
