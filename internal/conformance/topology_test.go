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
	opts := topologymanager.PolicyOptions{PreferClosestNUMA: closest, MaxAllowableNUMANodes: max(8, len(info.Nodes))}
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

// machine16 is a 16-node machine: two sockets of eight nodes, distance 10
// to itself, 12 within a socket's half, 16 within the socket, 32 across.
var machine16 = func() topology.NUMAInfo {
	info := topology.NUMAInfo{Distances: map[int][]uint64{}}
	for a := 0; a < 16; a++ {
		info.Nodes = append(info.Nodes, a)
		row := make([]uint64, 16)
		for b := range row {
			switch {
			case a == b:
				row[b] = 10
			case a/4 == b/4:
				row[b] = 12
			case a/8 == b/8:
				row[b] = 16
			default:
				row[b] = 32
			}
		}
		info.Distances[a] = row
	}
	return info
}()

// TestDifferentialTopologyMerge compares topology.Merge with v1.36.3's
// policies' Merge on generated hint sets over 2, 4 and 8 NUMA nodes, every
// policy, with and without prefer-closest-numa-nodes.
func TestDifferentialTopologyMerge(t *testing.T) {
	c := compare(t, "topology.Merge", "topologymanager.{None,BestEffort,Restricted,SingleNumaNode}Policy.Merge",
		"hint sets of 0-3 providers with 0-2 resources each (nil, empty, every mask, or up to 6 random masks) on upstream's 2-, 4- and 8-node test machines, and of 0-2 providers on a 16-node machine (max-allowable-numa-nodes=16), every policy, prefer-closest on and off")
	r := rand.New(rand.NewSource(37))
	logger := logr.Discard()
	for i := 0; i < inputs(t); i++ {
		info := topologyMachines[r.Intn(len(topologyMachines))]
		maxProviders := 4
		if r.Intn(5) == 0 {
			info, maxProviders = machine16, 3 // up to 6^4 combinations for upstream
		}
		policy := topologyPolicies[r.Intn(len(topologyPolicies))]
		closest := r.Intn(2) == 0
		var providers []topology.ProviderHints
		for p := r.Intn(maxProviders); p > 0; p-- {
			ph := topology.ProviderHints{}
			for k := r.Intn(3); k > 0; k-- {
				ph[[]string{"cpu", "memory", "hugepages-2Mi", "example.com/gpu"}[r.Intn(4)]] = randomHints(r, len(info.Nodes))
			}
			providers = append(providers, ph)
		}
		opts := topology.PolicyOptions{PreferClosestNUMA: closest, MaxAllowableNUMANodes: max(8, len(info.Nodes))}
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
		if got != want || admit != uadmit {
			c.disagree("input %d (%s, %v nodes, closest %v): nodelife %v %v, upstream %v %v; providers %v", i, policy, info.Nodes, closest, got, admit, want, uadmit, describeHints(providers))
			continue
		}
		c.agree()
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
