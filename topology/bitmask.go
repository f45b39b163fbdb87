package topology

import (
	"fmt"
	"math/bits"
	"strconv"
)

// BitMask is a set of NUMA node IDs 0-63, as the kubelet's bitmask
// package keeps them: bit i set means node i is in the set.
type BitMask uint64

// NewBitMask returns the mask of nodes; it refuses an ID outside 0-63,
// naming it.
func NewBitMask(nodes ...int) (BitMask, error) {
	var m BitMask
	for _, n := range nodes {
		if n < 0 || n >= 64 {
			return 0, fmt.Errorf("%w: NUMA node %d is outside 0-63", ErrInvalid, n)
		}
		m |= 1 << uint(n)
	}
	return m, nil
}

// Count returns the number of nodes in m.
func (m BitMask) Count() int { return bits.OnesCount64(uint64(m)) }

// IsSet reports whether node is in m (false for an ID outside 0-63).
func (m BitMask) IsSet(node int) bool { return node >= 0 && node < 64 && m&(1<<uint(node)) != 0 }

// Nodes returns the IDs in m, ascending.
func (m BitMask) Nodes() []int {
	out := make([]int, 0, m.Count())
	for v := uint64(m); v != 0; v &= v - 1 {
		out = append(out, bits.TrailingZeros64(v))
	}
	return out
}

// IsNarrowerThan reports whether m has fewer nodes than o or, as many, a
// smaller value (upstream's IsNarrowerThan: the total order the merge's
// ties fall back to).
func (m BitMask) IsNarrowerThan(o BitMask) bool {
	if c, d := m.Count(), o.Count(); c != d {
		return c < d
	}
	return m < o
}

// String prints m as a person reads it: "NUMA node 1", "NUMA nodes 0,2",
// "no NUMA node" for the empty mask. Bits gives upstream's binary form.
func (m BitMask) String() string {
	switch m.Count() {
	case 0:
		return "no NUMA node"
	case 1:
		return "NUMA node " + strconv.Itoa(bits.TrailingZeros64(uint64(m)))
	}
	b := make([]byte, 0, 32)
	b = append(b, "NUMA nodes "...)
	for i, n := range m.Nodes() {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return string(b)
}

// Bits prints m in binary as upstream's kubelet logs it: the shortest
// even number of digits (at least two) that shows the value when it is
// above the corresponding power of two, the highest node on the left,
// e.g. "01" for node 0, "0101" for nodes 0 and 2, "10" for node 1.
func (m BitMask) Bits() string {
	const grouping = 2
	for shift := 64 - grouping; shift > 0; shift -= grouping {
		if uint64(m) > 1<<uint(shift) {
			return fmt.Sprintf("%0"+strconv.Itoa(shift+grouping)+"b", uint64(m))
		}
	}
	return fmt.Sprintf("%0"+strconv.Itoa(grouping)+"b", uint64(m))
}

// EachMask calls f on every non-empty subset of nodes, the smallest
// subsets first and, within a size, in lexicographic order of the nodes'
// positions in the list (upstream's bitmask.IterateBitMasks): the order
// the CPU and Memory Managers list their hints in. IDs outside 0-63 are
// left out of the masks.
func EachMask(nodes []int, f func(BitMask)) {
	var walk func(start, left int, mask BitMask)
	walk = func(start, left int, mask BitMask) {
		if left == 0 {
			f(mask)
			return
		}
		for i := start; i <= len(nodes)-left; i++ {
			m := mask
			if n := nodes[i]; n >= 0 && n < 64 {
				m |= 1 << uint(n)
			}
			walk(i+1, left-1, m)
		}
	}
	for size := 1; size <= len(nodes); size++ {
		walk(0, size, 0)
	}
}
