package topology

import (
	"math/bits"
)

// setBits is the largest machine (in NUMA nodes) mergeSets handles: its
// tables have 2^setBits entries.
const setBits = 16

// The merge's answer depends only on which merged hints occur, not on the
// order they occur in: upstream's comparison, on distinct merged hints,
// behaves as a fixed choice. Preferred beats non-preferred; among
// preferred hints the least by the mask order wins (narrowest: fewer
// nodes, then smaller value; closest: fewer nodes, then smaller average
// distance, then smaller value: different sizes always go by size). Among
// non-preferred hints with b the largest "narrowest hint" size of the
// resources, a current hint of size b is only replaced by a lesser one of
// size b; one below b only by a larger one below b, or one of size b; one
// above b by any lesser one by the mask order, so the first hint not above
// b ends that phase. So the winner is the least hint of size b if there is
// one, else the least of the largest size below b, else the least of all.
//
// mergeSets computes which merged affinities occur without walking the
// combinations: the set of ANDs after each resource's list, kept as a
// table over the subsets of the machine's nodes (compressed to its k
// nodes), extended by the next list either pair by pair or, when that is
// dearer, by counting: with F(m) the number of masks of a set containing
// m (a superset sum), the pairs whose AND contains m number FA(m)·FB(m),
// and inverting the superset sum gives the pairs whose AND is exactly m,
// all in O(k·2^k). The preferred merged hints are the masks every list
// offers as a preferred hint (or to which it offers a preferred "any").
func (m merger) mergeSets(lists [][]Hint) Hint {
	def := m.info.DefaultAffinity()
	k := def.Count()
	// compress maps a mask of the machine's nodes to k bits.
	var nodes []uint
	for d := uint64(def); d != 0; d &= d - 1 {
		nodes = append(nodes, uint(bits.TrailingZeros64(d)))
	}
	contiguous := def == BitMask(1)<<uint(k)-1 // nodes 0..k-1: no compression
	compress := func(x BitMask) uint32 {
		if contiguous {
			return uint32(x & def)
		}
		var c uint32
		for i, n := range nodes {
			if x&(1<<n) != 0 {
				c |= 1 << uint(i)
			}
		}
		return c
	}
	expand := func(c uint32) BitMask {
		if contiguous {
			return BitMask(c)
		}
		var x BitMask
		for i, n := range nodes {
			if c&(1<<uint(i)) != 0 {
				x |= 1 << n
			}
		}
		return x
	}
	size := 1 << uint(k)
	full := uint32(size - 1)

	// The preferred merged hints: masks offered preferred by every list
	// (or with a preferred "any" in that list), and the machine when every
	// list has a preferred "any". Their merged affinity is the mask within
	// the machine.
	var best *Hint
	consider := func(h Hint) {
		if h.Affinity.Count() == 0 {
			return
		}
		if best == nil || m.less(h.Affinity, best.Affinity) {
			best = &h
		}
	}
	// Lists with a preferred "any" accept every mask; the others only the
	// masks they offer preferred.
	var strict []map[BitMask]bool
	union := map[BitMask]bool{}
	for _, l := range lists {
		hasAny := false
		mine := map[BitMask]bool{}
		for _, h := range l {
			switch {
			case !h.Preferred:
			case h.Any:
				hasAny = true
			default:
				mine[h.Affinity] = true
				union[h.Affinity] = true
			}
		}
		if !hasAny {
			strict = append(strict, mine)
		}
	}
	if len(strict) == 0 {
		consider(Hint{Affinity: def, Preferred: true}) // every list "any"
		for x := range union {
			consider(Hint{Affinity: x & def, Preferred: true})
		}
	} else {
		smallest := strict[0]
		for _, set := range strict[1:] {
			if len(set) < len(smallest) {
				smallest = set
			}
		}
	candidates:
		for x := range smallest {
			for _, set := range strict {
				if !set[x] {
					continue candidates
				}
			}
			consider(Hint{Affinity: x & def, Preferred: true})
		}
	}
	if best != nil {
		return *best
	}

	// No preferred hint: which merged affinities occur at all. The ANDs
	// reachable so far, as a table and as a list.
	cur := make([]bool, size)
	cur[full] = true
	curList := []uint32{full}
	var fa, fb []int64
	for _, l := range lists {
		// The list's distinct masks within the machine ("any": all of it).
		seen := make([]bool, size)
		var masks []uint32
		for _, h := range l {
			c := full
			if !h.Any {
				c = compress(h.Affinity)
			}
			if !seen[c] {
				seen[c] = true
				masks = append(masks, c)
			}
		}
		next := make([]bool, size)
		var nextList []uint32
		if len(curList)*len(masks) <= 4*k*size+size {
			for _, a := range curList {
				for _, c := range masks {
					if x := a & c; !next[x] {
						next[x] = true
						nextList = append(nextList, x)
					}
				}
			}
		} else {
			if fa == nil {
				fa, fb = make([]int64, size), make([]int64, size)
			}
			for i := range fa {
				fa[i], fb[i] = 0, 0
				if cur[i] {
					fa[i] = 1
				}
				if seen[i] {
					fb[i] = 1
				}
			}
			supersetSum(fa, k)
			supersetSum(fb, k)
			for i := range fa {
				fa[i] *= fb[i]
			}
			supersetDiff(fa, k)
			for i, n := range fa {
				if n > 0 {
					next[i] = true
					nextList = append(nextList, uint32(i))
				}
			}
		}
		cur, curList = next, nextList
	}

	// The non-preferred rule.
	b := m.bestNonPreferred
	var atB, below, above BitMask // 0: none yet
	for _, c := range curList {
		x := expand(c)
		switch n := x.Count(); {
		case n == 0:
		case n == b:
			if atB == 0 || m.less(x, atB) {
				atB = x
			}
		case n < b:
			if below == 0 || n > below.Count() || (n == below.Count() && m.less(x, below)) {
				below = x
			}
		default:
			if above == 0 || m.less(x, above) {
				above = x
			}
		}
	}
	for _, x := range []BitMask{atB, below, above} {
		if x != 0 {
			return Hint{Affinity: x}
		}
	}
	return Hint{Affinity: def}
}

// less is the mask order of the comparison: fewer nodes first; then, with
// prefer-closest, the smaller average distance; then the smaller value.
func (m merger) less(a, b BitMask) bool {
	if ca, cb := a.Count(), b.Count(); ca != cb {
		return ca < cb
	}
	if m.closest {
		if da, db := m.info.AverageDistance(a), m.info.AverageDistance(b); da != db {
			return da < db
		}
	}
	return a < b
}

// supersetSum turns f into F(m) = the sum of f over the supersets of m, on
// k bits.
func supersetSum(f []int64, k int) {
	for i := 0; i < k; i++ {
		bit := 1 << uint(i)
		for m := range f {
			if m&bit == 0 {
				f[m] += f[m|bit]
			}
		}
	}
}

// supersetDiff inverts supersetSum.
func supersetDiff(f []int64, k int) {
	for i := 0; i < k; i++ {
		bit := 1 << uint(i)
		for m := range f {
			if m&bit == 0 {
				f[m] -= f[m|bit]
			}
		}
	}
}
