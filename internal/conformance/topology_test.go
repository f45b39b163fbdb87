package conformance

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager/bitmask"

	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/topology"
)

// The NUMA machines of upstream's policy tests, the merge's inputs'
// machines.
var topologyMachines = nodelifetest.UpstreamNUMAMachines()

var topologyPolicies = []topology.Policy{topology.PolicyNone, topology.PolicyBestEffort, topology.PolicyRestricted, topology.PolicySingleNUMANode}

func upstreamPolicy(p topology.Policy, info topology.NUMAInfo, closest bool) topologymanager.Policy {
	ui := &topologymanager.NUMAInfo{Nodes: info.Nodes, NUMADistances: topologymanager.NUMADistances{}}
	for id, row := range info.Distances {
		ui.NUMADistances[id] = row
	}
	opts := topologymanager.PolicyOptions{PreferClosestNUMA: closest, MaxAllowableNUMANodes: 8}
	switch p {
	case topology.PolicyBestEffort:
		return topologymanager.NewBestEffortPolicy(ui, opts)
	case topology.PolicyRestricted:
		return topologymanager.NewRestrictedPolicy(ui, opts)
	case topology.PolicySingleNUMANode:
		return topologymanager.NewSingleNumaNodePolicy(ui, opts)
	}
	return topologymanager.NewNonePolicy()
}

func upstreamHints(providers []topology.ProviderHints) []map[string][]topologymanager.TopologyHint {
	var out []map[string][]topologymanager.TopologyHint
	for _, p := range providers {
		m := map[string][]topologymanager.TopologyHint{}
		for name, hs := range p {
			if hs == nil {
				m[name] = nil
				continue
			}
			uh := []topologymanager.TopologyHint{}
			for _, h := range hs {
				t := topologymanager.TopologyHint{Preferred: h.Preferred}
				if !h.Any {
					t.NUMANodeAffinity, _ = bitmask.NewBitMask(h.Affinity.Nodes()...)
				}
				uh = append(uh, t)
			}
			m[name] = uh
		}
		out = append(out, m)
	}
	return out
}

func fromUpstreamHint(h topologymanager.TopologyHint) topology.Hint {
	if h.NUMANodeAffinity == nil {
		return topology.Hint{Any: true, Preferred: h.Preferred}
	}
	m, _ := topology.NewBitMask(h.NUMANodeAffinity.GetBits()...)
	return topology.Hint{Affinity: m, Preferred: h.Preferred}
}

// randomHints draws one resource's hints on n nodes: nil, empty, every
// mask with the narrowest preferred (an empty machine), or up to 6 random
// masks, preferred or not, an "any" hint at times.
func randomHints(r *rand.Rand, n int) []topology.Hint {
	switch r.Intn(12) {
	case 0:
		return nil
	case 1:
		return []topology.Hint{}
	case 2:
		if n <= 4 {
			var hs []topology.Hint
			for m := topology.BitMask(1); m < 1<<uint(n); m++ {
				hs = append(hs, topology.Hint{Affinity: m, Preferred: m.Count() == 1})
			}
			return hs
		}
	}
	var hs []topology.Hint
	for i := 1 + r.Intn(6); i > 0; i-- {
		if r.Intn(10) == 0 {
			hs = append(hs, topology.Hint{Any: true, Preferred: r.Intn(2) == 0})
			continue
		}
		hs = append(hs, topology.Hint{Affinity: topology.BitMask(1 + r.Int63n(1<<uint(n)-1)), Preferred: r.Intn(2) == 0})
	}
	return hs
}

// reorder renames each provider's resources so that name order follows
// perm (one permutation per provider of its names, sorted), to see what
// nodelife answers when a provider's resources come in another order.
func reorder(providers []topology.ProviderHints, perms [][]int) []topology.ProviderHints {
	out := make([]topology.ProviderHints, len(providers))
	for i, p := range providers {
		names := make([]string, 0, len(p))
		for n := range p {
			names = append(names, n)
		}
		sort.Strings(names)
		q := topology.ProviderHints{}
		for rank, j := range perms[i] {
			q[fmt.Sprintf("%02d-%s", rank, names[j])] = p[names[j]]
		}
		if p != nil && len(p) == 0 {
			q = topology.ProviderHints{}
		}
		out[i] = q
	}
	return out
}

func permutations(n int) [][]int {
	if n <= 1 {
		return [][]int{make([]int, n)[:n:n]}
	}
	var out [][]int
	for _, rest := range permutations(n - 1) {
		for pos := 0; pos <= len(rest); pos++ {
			p := append(append(append([]int{}, rest[:pos]...), n-1), rest[pos:]...)
			out = append(out, p)
		}
	}
	return out
}

// orderAnswers is every answer nodelife gives when the providers'
// resources are taken in each possible order.
func orderAnswers(policy topology.Policy, info topology.NUMAInfo, opts topology.PolicyOptions, providers []topology.ProviderHints) []topology.Hint {
	var choices [][][]int
	for _, p := range providers {
		choices = append(choices, permutations(len(p)))
	}
	var out []topology.Hint
	var walk func(i int, acc [][]int)
	walk = func(i int, acc [][]int) {
		if i == len(choices) {
			h, _, _ := topology.Merge(policy, info, opts, reorder(providers, acc))
			out = append(out, h)
			return
		}
		for _, c := range choices[i] {
			walk(i+1, append(acc, c))
		}
	}
	walk(0, nil)
	return out
}

// TestDifferentialTopologyMerge compares topology.Merge with v1.36.3's
// policies' Merge on generated hint sets over 2, 4 and 8 NUMA nodes, every
// policy, with and without prefer-closest-numa-nodes.
func TestDifferentialTopologyMerge(t *testing.T) {
	c := compare(t, "topology.Merge", "topologymanager.{None,BestEffort,Restricted,SingleNumaNode}Policy.Merge",
		"hint sets of 0-3 providers with 0-2 resources each (nil, empty, every mask, or up to 6 random masks) on upstream's 2-, 4- and 8-node test machines, every policy, prefer-closest on and off")
	r := rand.New(rand.NewSource(37))
	logger := logr.Discard()
	for i := 0; i < inputs(t); i++ {
		info := topologyMachines[r.Intn(len(topologyMachines))]
		policy := topologyPolicies[r.Intn(len(topologyPolicies))]
		closest := r.Intn(2) == 0
		var providers []topology.ProviderHints
		for p := r.Intn(4); p > 0; p-- {
			ph := topology.ProviderHints{}
			for k := r.Intn(3); k > 0; k-- {
				ph[[]string{"cpu", "memory", "hugepages-2Mi", "example.com/gpu"}[r.Intn(4)]] = randomHints(r, len(info.Nodes))
			}
			providers = append(providers, ph)
		}
		opts := topology.PolicyOptions{PreferClosestNUMA: closest}
		got, admit, err := topology.Merge(policy, info, opts, providers)
		if err != nil {
			c.disagree("input %d: %v", i, err)
			continue
		}
		uh, uadmit := upstreamPolicy(policy, info, closest).Merge(logger, upstreamHints(providers))
		want := fromUpstreamHint(uh)
		if policy == topology.PolicyNone {
			want = topology.Hint{} // upstream's zero hint: nil affinity, not preferred
		}
		switch {
		case got == want && admit == uadmit:
			c.agree()
		case admit == uadmit || want.Preferred == uadmit:
			// Upstream visits a provider's resources in map order: its
			// answer is one of those nodelife gives for some order.
			found := false
			for _, h := range orderAnswers(policy, info, opts, providers) {
				found = found || h == want
			}
			if found {
				c.deviate("hint-map-order")
			} else {
				c.disagree("input %d (%s, %v nodes, closest %v): nodelife %v %v, upstream %v %v; providers %v", i, policy, info.Nodes, closest, got, admit, want, uadmit, describeHints(providers))
			}
		default:
			c.disagree("input %d (%s): nodelife %v %v, upstream %v %v; providers %v", i, policy, got, admit, want, uadmit, describeHints(providers))
		}
	}
}

func describeHints(providers []topology.ProviderHints) string {
	var b strings.Builder
	for _, p := range providers {
		names := make([]string, 0, len(p))
		for n := range p {
			names = append(names, n)
		}
		sort.Strings(names)
		b.WriteString("{")
		for _, n := range names {
			fmt.Fprintf(&b, "%s: %v ", n, p[n])
		}
		b.WriteString("} ")
	}
	return b.String()
}
