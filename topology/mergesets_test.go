package topology

import (
	"fmt"
	"math/rand"
	"testing"
)

// randomLists draws hint lists on the machine's nodes (and at times a
// node outside it): nil-like "any" hints, preferred or not, full lists of
// every mask on small machines, single-node preferred hints, empty lists.
func randomLists(r *rand.Rand, nodes []int) [][]Hint {
	var all BitMask
	for _, n := range nodes {
		all |= 1 << uint(n)
	}
	mask := func() BitMask {
		var x BitMask
		for x == 0 {
			for _, n := range nodes {
				if r.Intn(3) == 0 {
					x |= 1 << uint(n)
				}
			}
			if r.Intn(20) == 0 {
				x |= 1 << 63 // a node the machine lacks
			}
		}
		return x
	}
	var lists [][]Hint
	for i := r.Intn(4); i > 0; i-- {
		var l []Hint
		switch r.Intn(8) {
		case 0: // empty: impossible
		case 1: // every mask, the narrowest preferred (small machines)
			if len(nodes) <= 10 {
				for x := all; x != 0; x = (x - 1) & all { // every subset, largest value first
					l = append(l, Hint{Affinity: x, Preferred: x.Count() == 1})
				}
				break
			}
			fallthrough
		default:
			for j := 1 + r.Intn(12); j > 0; j-- {
				if r.Intn(10) == 0 {
					l = append(l, Hint{Any: true, Preferred: r.Intn(2) == 0})
					continue
				}
				x := mask()
				if r.Intn(3) == 0 {
					x = 1 << uint(nodes[r.Intn(len(nodes))])
				}
				l = append(l, Hint{Affinity: x, Preferred: r.Intn(3) == 0})
			}
		}
		lists = append(lists, l)
	}
	return lists
}

// mergeSets, which reasons from the set of merged hints, agrees with
// mergeLayered, which folds upstream's comparison over them in product
// order, on random machines of 1-16 nodes (ids spread over 0-62, so the
// node compression is exercised), both mask orders, any best
// non-preferred size: 30,000 cases.
func TestMergeSetsMatchesLayered(t *testing.T) {
	r := rand.New(rand.NewSource(16))
	for i := 0; i < 30000; i++ {
		var nodes []int
		used := map[int]bool{}
		for n := 1 + r.Intn(setBits); len(nodes) < n; {
			id := r.Intn(63)
			if r.Intn(2) == 0 {
				id = len(nodes)
			}
			if !used[id] {
				used[id] = true
				nodes = append(nodes, id)
			}
		}
		info := NUMAInfo{Nodes: nodes, Distances: map[int][]uint64{}}
		for _, a := range nodes {
			row := make([]uint64, 64)
			for _, b := range nodes {
				row[b] = 10
				if a != b {
					row[b] = 11 + uint64(r.Intn(3))*10
				}
			}
			info.Distances[a] = row
		}
		lists := randomLists(r, nodes)
		m := merger{info: info, closest: r.Intn(2) == 0, bestNonPreferred: maxOfMinCounts(lists)}
		if r.Intn(4) == 0 {
			m.bestNonPreferred = r.Intn(len(nodes) + 2)
		}
		got, want := m.mergeSets(lists), m.mergeLayered(lists)
		if got != want {
			t.Fatalf("case %d, nodes %v, closest %v, b %d, lists %v: mergeSets %v, mergeLayered %v", i, nodes, m.closest, m.bestNonPreferred, fmt.Sprint(lists), got, want)
		}
	}
}
