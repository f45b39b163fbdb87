package topology

import (
	"cmp"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/nodelife/nodelife/internal/quantity"
)

// Demand is what a container (or, in the pod scope, a pod) asks of one
// resource and what each NUMA node holds of it: what a provider tells the
// Manager so that a refusal can be explained in terms of the machine.
// cpu.Static and memory.Static give theirs through Provider.Demands.
type Demand struct {
	// Resource names the resource: "cpu", "memory", "hugepages-1Gi".
	Resource string
	// Asked is the amount requested: CPUs, or bytes when Bytes is set.
	Asked int64
	// Free is what each NUMA node (by ID) could give now.
	Free map[int]int64
	// Capacity is what each NUMA node could ever give. The providers call
	// a hint preferred when it has as few nodes as the smallest set whose
	// capacity covers the request; restricted admits only such a hint.
	// Without it (or when no set covers the request) Explain takes every
	// node as restricted's placement and says nothing of capacity.
	Capacity map[int]int64
	// Bytes says Asked, Free and Capacity count bytes (printed as
	// quantities: 4Gi).
	Bytes bool
}

// amount prints v in the demand's unit.
func (d Demand) amount(v int64) string {
	if d.Bytes {
		return quantity.Bytes(v)
	}
	return strconv.FormatInt(v, 10)
}

// Explain says, for people, why policy refuses demands on a machine whose
// NUMA node IDs are nodes: for each resource that no allowed placement can
// hold, the amount asked and the most any allowed placement has free
// (where), and the policy's rule that forbids spreading further. Under
// single-numa-node a placement is one NUMA node; under restricted it is a
// set of as few nodes as the resource's capacity needs (the providers'
// preferred size). When every resource fits on its own, it names where
// each fits best and what keeps them apart: under single-numa-node that no
// node holds them all (or, when one does, that the refusal came from
// elsewhere: another provider, or hints that leave that node out); under
// restricted that the placement must be preferred for every resource.
//
// It returns "" when there is nothing to explain: best-effort and none
// refuse nothing for locality, and demands without an amount ask nothing.
// The explanation stands beside upstream's Reason and Message, which stay
// as they are for machines to read.
func Explain(policy Policy, nodes []int, demands []Demand) string {
	if policy != PolicySingleNUMANode && policy != PolicyRestricted {
		return ""
	}
	var short, fits []string
	asked := 0
	for _, d := range demands {
		if d.Asked <= 0 {
			continue
		}
		asked++
		size := 1
		if policy == PolicyRestricted {
			size = narrowest(nodes, d)
		}
		// The sums are additive, so the placement of size nodes with the
		// most free is the size nodes with the most free each.
		best := top(nodes, d.Free, size)
		free := sum(best, d.Free)
		if free >= d.Asked {
			fits = append(fits, d.Resource+" on "+best.String())
			continue
		}
		if free == 0 {
			short = append(short, d.Resource+": "+d.amount(d.Asked)+" asked, none free on any NUMA node")
			continue
		}
		s := d.Resource + ": " + d.amount(d.Asked) + " asked, at most " + d.amount(free) + " free on "
		if size == 1 {
			s += "one NUMA node"
		} else {
			s += strconv.Itoa(size) + " NUMA nodes"
		}
		s += " (" + best.String() + ")"
		if policy == PolicyRestricted && size > 1 && sum(top(nodes, d.Capacity, size), d.Capacity) >= d.Asked {
			s += ", the fewest whose capacity holds " + d.amount(d.Asked)
		}
		short = append(short, s)
	}
	if asked == 0 {
		return ""
	}
	rule := "single-numa-node keeps a container's resources on one NUMA node"
	if policy == PolicyRestricted {
		rule = "restricted admits only a preferred placement, on as few NUMA nodes as each resource needs"
	}
	if len(short) > 0 {
		return strings.Join(short, "; ") + "; " + rule
	}
	each := "each resource fits on its own (" + strings.Join(fits, "; ") + ")"
	if policy == PolicyRestricted {
		return each + ", but the placement must be preferred for every resource at once; " + rule
	}
	if n, ok := common(nodes, demands); ok {
		return "every resource fits on NUMA node " + strconv.Itoa(n) + ": the refusal comes from another provider or from hints that leave that node out"
	}
	return each + ", but no NUMA node holds them all; " + rule
}

// common returns the first node with room for every demand.
func common(nodes []int, demands []Demand) (int, bool) {
	for _, n := range nodes {
		all := true
		for _, d := range demands {
			if d.Asked > 0 && d.Free[n] < d.Asked {
				all = false
				break
			}
		}
		if all {
			return n, true
		}
	}
	return 0, false
}

// narrowest returns the fewest nodes whose capacity covers d.Asked (all
// of them when none does), as the providers size a preferred hint.
func narrowest(nodes []int, d Demand) int {
	for k := 1; k < len(nodes); k++ {
		if sum(top(nodes, d.Capacity, k), d.Capacity) >= d.Asked {
			return k
		}
	}
	return len(nodes)
}

// top returns the k nodes (IDs 0-63) with the largest amounts, the lower
// ID first among equals.
func top(nodes []int, per map[int]int64, k int) BitMask {
	ids := make([]int, 0, len(nodes))
	for _, id := range nodes {
		if id >= 0 && id < 64 {
			ids = append(ids, id)
		}
	}
	slices.SortStableFunc(ids, func(a, b int) int {
		if c := cmp.Compare(per[b], per[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var m BitMask
	for _, id := range ids[:min(k, len(ids))] {
		m |= 1 << uint(id)
	}
	return m
}

// sum adds up per-node amounts over the nodes of m.
func sum(m BitMask, per map[int]int64) int64 {
	var t int64
	for v := uint64(m); v != 0; v &= v - 1 {
		t += per[bits.TrailingZeros64(v)]
	}
	return t
}
