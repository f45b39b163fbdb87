package topology_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/topology"
)

// TestMergeRefuses: what the kubelet refuses at start (more NUMA nodes
// than max-allowable-numa-nodes, except under none; an option below 8; an
// unknown policy), and NUMA info the merge cannot use, each error naming
// the value.
func TestMergeRefuses(t *testing.T) {
	nine := topology.NUMAInfo{Nodes: []int{0, 1, 2, 3, 4, 5, 6, 7, 8}}
	for _, tc := range []struct {
		name   string
		policy topology.Policy
		info   topology.NUMAInfo
		opts   topology.PolicyOptions
		want   string // "" means accepted
	}{
		{"nine nodes, default limit", topology.PolicyBestEffort, nine, topology.PolicyOptions{}, "9 NUMA nodes [0 1 2 3 4 5 6 7 8], more than MaxAllowableNUMANodes 8"},
		{"nine nodes, limit raised", topology.PolicyBestEffort, nine, topology.PolicyOptions{MaxAllowableNUMANodes: 9}, ""},
		{"nine nodes under none", topology.PolicyNone, nine, topology.PolicyOptions{}, ""},
		{"limit below 8", topology.PolicyBestEffort, twoNodes, topology.PolicyOptions{MaxAllowableNUMANodes: 4}, "MaxAllowableNUMANodes 4 is below the minimum 8"},
		{"unknown policy", "strict", twoNodes, topology.PolicyOptions{}, `policy "strict" is not none`},
		{"node 64", topology.PolicyBestEffort, topology.NUMAInfo{Nodes: []int{0, 64}}, topology.PolicyOptions{}, "NUMA node 64 is outside 0-63"},
		{"node twice", topology.PolicyBestEffort, topology.NUMAInfo{Nodes: []int{1, 1}}, topology.PolicyOptions{}, "NUMA node 1 listed twice"},
		{"closest without distances", topology.PolicyRestricted, topology.NUMAInfo{Nodes: []int{0, 1}}, topology.PolicyOptions{PreferClosestNUMA: true}, "NUMA node 0 has no distances"},
		{"closest, short row", topology.PolicyRestricted, topology.NUMAInfo{Nodes: []int{0, 3}, Distances: map[int][]uint64{0: {10, 20}, 3: {20, 10, 0, 0}}}, topology.PolicyOptions{PreferClosestNUMA: true}, "NUMA node 0 has 2 distances, node IDs reach 3"},
		{"no distances needed without closest", topology.PolicyRestricted, topology.NUMAInfo{Nodes: []int{0, 1}}, topology.PolicyOptions{}, ""},
	} {
		_, _, err := topology.Merge(tc.policy, tc.info, tc.opts, nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !errors.Is(err, topology.ErrInvalid) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want an ErrInvalid naming %q", tc.name, err, tc.want)
		}
	}
	for opt, want := range map[string]string{
		"prefer-closest-numa-nodes=maybe": `bad value "maybe" for option "prefer-closest-numa-nodes"`,
		"max-allowable-numa-nodes=x":      `option "max-allowable-numa-nodes" is not an integer: "x"`,
		"spread=true":                     `unknown Topology Manager Policy option "spread"`,
	} {
		name, value, _ := strings.Cut(opt, "=")
		if _, err := topology.ParsePolicyOptions(map[string]string{name: value}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", opt, err, want)
		}
	}
}
