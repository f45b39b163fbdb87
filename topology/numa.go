package topology

import (
	"errors"
	"fmt"
	"slices"

	"github.com/nodelife/nodelife/internal/compact"
)

// ErrInvalid is wrapped by the errors about malformed input: a NUMA node ID
// outside 0-63, more nodes than MaxAllowableNUMANodes, a distance row that
// is missing or too short, an unknown policy.
var ErrInvalid = errors.New("topology: invalid input")

// DefaultMaxAllowableNUMANodes is the kubelet's default
// max-allowable-numa-nodes: a machine with more NUMA nodes is refused
// unless the option raises the limit.
const DefaultMaxAllowableNUMANodes = 8

// NUMAInfo is the machine's NUMA nodes and, for prefer-closest-numa-nodes,
// the distance matrix (cadvisor's node distances: Distances[a][b] is the
// distance from node a to the node at index b of the machine's node
// list, which upstream indexes by node ID).
type NUMAInfo struct {
	// Nodes are the NUMA node IDs (0-63), in the machine's order.
	Nodes []int
	// Distances holds each node's row of distances; only read with
	// PolicyOptions.PreferClosestNUMA.
	Distances map[int][]uint64
}

// String prints the nodes and their distances on one line, in decimal.
func (n NUMAInfo) String() string { return compact.Sprint(n) }

// GoString is String, for %#v (Go's own prints the distances in
// hexadecimal).
func (n NUMAInfo) GoString() string { return n.String() }

// Validate checks the node IDs (0-63, no duplicate) and, when distances
// are needed, that each node has a row reaching every node ID; it returns
// every problem, each naming the node.
func (n NUMAInfo) Validate(needDistances bool) error {
	var errs []error
	seen := map[int]bool{}
	maxID := -1
	for _, id := range n.Nodes {
		if id < 0 || id >= 64 {
			errs = append(errs, fmt.Errorf("%w: NUMA node %d is outside 0-63", ErrInvalid, id))
			continue
		}
		if seen[id] {
			errs = append(errs, fmt.Errorf("%w: NUMA node %d listed twice", ErrInvalid, id))
		}
		seen[id] = true
		maxID = max(maxID, id)
	}
	if needDistances {
		for _, id := range n.Nodes {
			if row, ok := n.Distances[id]; !ok {
				errs = append(errs, fmt.Errorf("%w: NUMA node %d has no distances", ErrInvalid, id))
			} else if len(row) <= maxID {
				errs = append(errs, fmt.Errorf("%w: NUMA node %d has %d distances, node IDs reach %d", ErrInvalid, id, len(row), maxID))
			}
		}
	}
	return errors.Join(errs...)
}

// DefaultAffinity is the mask of every node (upstream's
// DefaultAffinityMask); IDs outside 0-63 are left out.
func (n NUMAInfo) DefaultAffinity() BitMask {
	var m BitMask
	for _, id := range n.Nodes {
		if id >= 0 && id < 64 {
			m |= 1 << uint(id)
		}
	}
	return m
}

// Narrowest returns the narrower of a and b (IsNarrowerThan), b on a tie.
func (n NUMAInfo) Narrowest(a, b BitMask) BitMask {
	if a.IsNarrowerThan(b) {
		return a
	}
	return b
}

// Closest returns, of two masks of the same size, the one whose nodes are
// closer together on average (AverageDistance), the smaller value on a
// tie; of masks of different sizes, the narrower.
func (n NUMAInfo) Closest(a, b BitMask) BitMask {
	if a.Count() != b.Count() {
		return n.Narrowest(a, b)
	}
	da, db := n.AverageDistance(a), n.AverageDistance(b)
	switch {
	case da == db:
		if a < b {
			return a
		}
		return b
	case da < db:
		return a
	}
	return b
}

// AverageDistance is the mean of Distances[i][j] over every ordered pair
// of nodes i, j of m (a node with itself included), 0 for an empty mask.
// A missing row or column counts as distance 0, as upstream's lookup of a
// nil row would panic instead; Validate refuses such a NUMAInfo first.
func (n NUMAInfo) AverageDistance(m BitMask) float64 {
	if m == 0 {
		return 0
	}
	var sum, count float64
	nodes := m.Nodes()
	for _, a := range nodes {
		row := n.Distances[a]
		for _, b := range nodes {
			if b < len(row) {
				sum += float64(row[b])
			}
			count++
		}
	}
	return sum / count
}

// sortedNodes returns the node IDs ascending (for messages).
func (n NUMAInfo) sortedNodes() []int {
	s := slices.Clone(n.Nodes)
	slices.Sort(s)
	return s
}
