package topology_test

import (
	"sort"
	"testing"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/topology"
)

// naiveMerge is upstream's merge read literally: filter the providers,
// walk every combination of one hint per list in the cartesian order, fold
// the comparison. It is exponential in the number of lists.
func naiveMerge(policy topology.Policy, info topology.NUMAInfo, opts topology.PolicyOptions, providers []topology.ProviderHints) (topology.Hint, bool) {
	if policy == topology.PolicyNone {
		return topology.Hint{}, true
	}
	var lists [][]topology.Hint
	for _, p := range providers {
		if len(p) == 0 {
			lists = append(lists, []topology.Hint{{Any: true, Preferred: true}})
			continue
		}
		var names []string
		for n := range p {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			switch {
			case p[n] == nil:
				lists = append(lists, []topology.Hint{{Any: true, Preferred: true}})
			case len(p[n]) == 0:
				lists = append(lists, []topology.Hint{{Any: true}})
			default:
				lists = append(lists, p[n])
			}
		}
	}
	if policy == topology.PolicySingleNUMANode {
		for i, l := range lists {
			var kept []topology.Hint
			for _, h := range l {
				if h.Preferred && (h.Any || h.Affinity.Count() == 1) {
					kept = append(kept, h)
				}
			}
			lists[i] = kept
		}
	}
	b := 0
	for _, l := range lists {
		var narrowest *topology.Hint
		for i := range l {
			if l[i].Any {
				continue
			}
			if narrowest == nil || l[i].Affinity.IsNarrowerThan(narrowest.Affinity) {
				narrowest = &l[i]
			}
		}
		if narrowest != nil && narrowest.Affinity.Count() > b {
			b = narrowest.Affinity.Count()
		}
	}
	closest := opts.PreferClosestNUMA && policy != topology.PolicySingleNUMANode
	masks := func(current, candidate *topology.Hint) *topology.Hint {
		if candidate.Affinity == current.Affinity {
			return current
		}
		best := info.Narrowest(current.Affinity, candidate.Affinity)
		if closest {
			best = info.Closest(current.Affinity, candidate.Affinity)
		}
		if best == current.Affinity {
			return current
		}
		return candidate
	}
	compare := func(current, candidate *topology.Hint) *topology.Hint {
		cc := candidate.Affinity.Count()
		if cc == 0 {
			return current
		}
		if current == nil {
			return candidate
		}
		if !current.Preferred && candidate.Preferred {
			return candidate
		}
		if current.Preferred && !candidate.Preferred {
			return current
		}
		if current.Preferred && candidate.Preferred {
			return masks(current, candidate)
		}
		cur := current.Affinity.Count()
		if cur > b {
			return masks(current, candidate)
		}
		if cur == b {
			if cc != b {
				return current
			}
			return masks(current, candidate)
		}
		if cc > b {
			return current
		}
		if cc == b {
			return candidate
		}
		if cc > cur {
			return candidate
		}
		if cc < cur {
			return current
		}
		return masks(current, candidate)
	}
	def := info.DefaultAffinity()
	var best *topology.Hint
	var walk func(i int, acc []topology.Hint)
	walk = func(i int, acc []topology.Hint) {
		if i == len(lists) {
			merged := topology.Hint{Affinity: def, Preferred: true}
			var first *topology.BitMask
			for k := range acc {
				h := acc[k]
				if !h.Any {
					merged.Affinity &= h.Affinity
					if first == nil {
						first = &acc[k].Affinity
					} else if *first != h.Affinity {
						merged.Preferred = false
					}
				}
				if !h.Preferred {
					merged.Preferred = false
				}
			}
			best = compare(best, &merged)
			return
		}
		for _, h := range lists[i] {
			walk(i+1, append(acc, h))
		}
	}
	walk(0, nil)
	result := topology.Hint{Affinity: def}
	if best != nil {
		result = *best
	}
	switch policy {
	case topology.PolicyBestEffort:
		return result, true
	case topology.PolicySingleNUMANode:
		if !result.Any && result.Affinity == def {
			result = topology.Hint{Any: true, Preferred: result.Preferred}
		}
	}
	return result, result.Preferred
}

// TestPropertyMergeMatchesNaive: on random hint sets over 2, 4 and 8 NUMA
// nodes, every policy, with and without prefer-closest, Merge gives the
// naive cartesian fold's hint and admission.
func TestPropertyMergeMatchesNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		info := nodelifetest.NUMAMachines().Draw(t, "info")
		policy := rapid.SampledFrom([]topology.Policy{topology.PolicyNone, topology.PolicyBestEffort, topology.PolicyRestricted, topology.PolicySingleNUMANode}).Draw(t, "policy")
		opts := topology.PolicyOptions{PreferClosestNUMA: rapid.Bool().Draw(t, "closest")}
		providers := nodelifetest.ProviderHintSets(len(info.Nodes)).Draw(t, "providers")
		got, admit, err := topology.Merge(policy, info, opts, providers)
		if err != nil {
			t.Fatal(err)
		}
		want, wantAdmit := naiveMerge(policy, info, opts, providers)
		if got != want || admit != wantAdmit {
			t.Fatalf("Merge %v %v, naive %v %v", got, admit, want, wantAdmit)
		}
	})
}
