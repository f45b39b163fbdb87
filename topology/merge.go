package topology

import (
	"fmt"
	"sort"
	"strconv"
)

// Hint is a topology hint: a NUMA affinity a resource could be allocated
// on, and whether it is preferred (upstream's TopologyHint). Any is the
// hint without an affinity (upstream's nil NUMANodeAffinity: the resource
// does not care); Affinity is then ignored.
type Hint struct {
	Affinity  BitMask
	Any       bool
	Preferred bool
}

// String prints the hint as "{NUMA node 0, preferred}", "{NUMA nodes
// 0,1}" or "{any}". Bits gives upstream's form.
func (h Hint) String() string {
	s := h.Affinity.String()
	if h.Any {
		s = "any"
	}
	if h.Preferred {
		return "{" + s + ", preferred}"
	}
	return "{" + s + "}"
}

// GoString is String, so that %#v (rapid's form for drawn values) names
// the NUMA nodes instead of printing the mask in hexadecimal.
func (h Hint) GoString() string { return h.String() }

// Bits prints the hint as upstream's kubelet logs it: "{01 (preferred)}"
// (the affinity in binary, BitMask.Bits) or "{any}".
func (h Hint) Bits() string {
	s := h.Affinity.Bits()
	if h.Any {
		s = "any"
	}
	if h.Preferred {
		return "{" + s + " (preferred)}"
	}
	return "{" + s + "}"
}

// ProviderHints is what one hint provider (the CPU, memory or device
// manager) returns: hints per resource name. A nil list means the provider
// has no preference for that resource; an empty non-nil list means no
// affinity can satisfy it. A provider that returns no entries at all has no
// preference.
type ProviderHints map[string][]Hint

// Policy is a topology manager policy (--topology-manager-policy).
type Policy string

// The policies.
const (
	// PolicyNone merges nothing and admits every pod.
	PolicyNone Policy = "none"
	// PolicyBestEffort merges the hints and admits every pod.
	PolicyBestEffort Policy = "best-effort"
	// PolicyRestricted admits a pod only when the merged hint is
	// preferred.
	PolicyRestricted Policy = "restricted"
	// PolicySingleNUMANode keeps only hints of one NUMA node (and
	// preferred "any" hints) and admits only a preferred result.
	PolicySingleNUMANode Policy = "single-numa-node"
)

// PolicyOptions are --topology-manager-policy-options. The zero value is
// the kubelet's default: no option set, DefaultMaxAllowableNUMANodes.
type PolicyOptions struct {
	// PreferClosestNUMA is prefer-closest-numa-nodes (GA): among masks of
	// the same size, the merge prefers the one with the smallest average
	// distance (not under single-numa-node).
	PreferClosestNUMA bool
	// MaxAllowableNUMANodes is max-allowable-numa-nodes (GA): machines
	// with more NUMA nodes are refused. 0 means
	// DefaultMaxAllowableNUMANodes; upstream refuses a value below 8.
	MaxAllowableNUMANodes int
}

// Validate returns the problems of o: a MaxAllowableNUMANodes below 8 (and
// not 0), as the kubelet refuses it.
func (o PolicyOptions) Validate() error {
	if o.MaxAllowableNUMANodes != 0 && o.MaxAllowableNUMANodes < DefaultMaxAllowableNUMANodes {
		return fmt.Errorf("%w: MaxAllowableNUMANodes %d is below the minimum %d", ErrInvalid, o.MaxAllowableNUMANodes, DefaultMaxAllowableNUMANodes)
	}
	return nil
}

func (o PolicyOptions) maxNodes() int {
	if o.MaxAllowableNUMANodes == 0 {
		return DefaultMaxAllowableNUMANodes
	}
	return o.MaxAllowableNUMANodes
}

// Merge merges the providers' hints under policy on the machine info, as
// the kubelet's topology manager does for one container (container scope)
// or one pod (pod scope), and reports whether the pod is admitted. It
// returns an ErrInvalid error for an unknown policy, invalid options or
// NUMA info, or more NUMA nodes than MaxAllowableNUMANodes (the kubelet
// refuses to start then).
//
// The result is upstream's: every combination of one hint per resource is
// merged (the AND of the affinities; preferred only if every hint is and
// all affinities are equal, kubernetes#108052) and the best combination
// kept by upstream's comparison (preferred first; among non-preferred,
// the affinity size closest to the largest of the resources' narrowest
// hints; then the narrowest mask, or with PreferClosestNUMA the closest).
// Upstream walks the cartesian product; Merge reasons from the set of
// merged hints, which gives the same answer at a fraction of the cost (see
// the package documentation). Since that answer does not depend on the
// order of the combinations, upstream's Go map order over a provider's
// resources does not change it either.
func Merge(policy Policy, info NUMAInfo, opts PolicyOptions, providers []ProviderHints) (Hint, bool, error) {
	if err := opts.Validate(); err != nil {
		return Hint{}, false, err
	}
	if err := info.Validate(opts.PreferClosestNUMA && policy != PolicyNone); err != nil {
		return Hint{}, false, err
	}
	if n := len(info.Nodes); policy != PolicyNone && n > opts.maxNodes() {
		return Hint{}, false, fmt.Errorf("%w: %d NUMA nodes %v, more than MaxAllowableNUMANodes %d", ErrInvalid, n, info.sortedNodes(), opts.maxNodes())
	}
	switch policy {
	case PolicyNone:
		return Hint{}, true, nil
	case PolicyBestEffort, PolicyRestricted, PolicySingleNUMANode:
	default:
		return Hint{}, false, fmt.Errorf("%w: policy %q is not none, best-effort, restricted or single-numa-node", ErrInvalid, policy)
	}
	lists := filterProviders(providers)
	if policy == PolicySingleNUMANode {
		lists = filterSingleNUMA(lists)
	}
	m := merger{info: info, closest: opts.PreferClosestNUMA && policy != PolicySingleNUMANode, bestNonPreferred: maxOfMinCounts(lists)}
	best := m.merge(lists)
	switch policy {
	case PolicyBestEffort:
		return best, true, nil
	case PolicySingleNUMANode:
		if !best.Any && best.Affinity == info.DefaultAffinity() {
			best = Hint{Any: true, Preferred: best.Preferred}
		}
	}
	return best, best.Preferred, nil
}

// filterProviders turns the providers' maps into one hint list per
// resource: a provider with no entries, or a nil list, gives the list of
// one preferred "any" hint; an empty list gives one non-preferred "any"
// hint. Resources are taken in name order (upstream: map order, which
// does not change the answer).
func filterProviders(providers []ProviderHints) [][]Hint {
	var lists [][]Hint
	for _, p := range providers {
		if len(p) == 0 {
			lists = append(lists, []Hint{{Any: true, Preferred: true}})
			continue
		}
		names := make([]string, 0, len(p))
		for name := range p {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			switch hints := p[name]; {
			case hints == nil:
				lists = append(lists, []Hint{{Any: true, Preferred: true}})
			case len(hints) == 0:
				lists = append(lists, []Hint{{Any: true}})
			default:
				lists = append(lists, hints)
			}
		}
	}
	return lists
}

// filterSingleNUMA keeps, of each list, the preferred hints that are "any"
// or of exactly one node.
func filterSingleNUMA(lists [][]Hint) [][]Hint {
	out := make([][]Hint, len(lists))
	for i, l := range lists {
		var kept []Hint
		for _, h := range l {
			if h.Preferred && (h.Any || h.Affinity.Count() == 1) {
				kept = append(kept, h)
			}
		}
		out[i] = kept
	}
	return out
}

// maxOfMinCounts is, over the lists with an affinity hint, the largest
// size of a list's narrowest affinity.
func maxOfMinCounts(lists [][]Hint) int {
	best := 0
	for _, l := range lists {
		narrowest := -1
		for _, h := range l {
			if !h.Any && (narrowest < 0 || h.Affinity.Count() < narrowest) {
				narrowest = h.Affinity.Count()
			}
		}
		best = max(best, narrowest)
	}
	return best
}

// merger holds what the comparison of merged hints needs.
type merger struct {
	info             NUMAInfo
	closest          bool
	bestNonPreferred int
}

// state is a prefix of a combination, as far as its merge can tell: the
// AND of the affinities so far (with the default affinity), whether it can
// still be preferred, and, while it can, the affinity every hint so far
// had (set once one had an affinity).
type state struct {
	and    BitMask
	common BitMask
	pref   bool
	seen   bool
}

func (s state) extend(h Hint) state {
	if !h.Preferred {
		s.pref = false
	}
	if !h.Any {
		s.and &= h.Affinity
		if s.pref {
			if !s.seen {
				s.common, s.seen = h.Affinity, true
			} else if s.common != h.Affinity {
				s.pref = false
			}
		}
	}
	if !s.pref {
		s.common, s.seen = 0, false // no longer matters: fewer distinct states
	}
	return s
}

// merge picks the best merged hint: by mergeSets on machines of up to
// setBits nodes, else by mergeLayered.
func (m merger) merge(lists [][]Hint) Hint {
	if m.info.DefaultAffinity().Count() <= setBits {
		return m.mergeSets(lists)
	}
	return m.mergeLayered(lists)
}

// mergeLayered is merge for machines of more than setBits nodes, whose
// tables mergeSets would not hold. It folds the comparison over the
// distinct merged hints in the order of their first combination in the
// cartesian product (lexicographic in the lists' indexes). Each layer
// keeps the distinct states of the prefixes in the order of their first
// prefix; extending them in that order, hint by hint, meets every new
// state first at its smallest prefix. A merged hint met again never
// changes the fold's result (the comparison keeps the current hint
// against an equal one, and no two hints each beat the other), so the
// first occurrences are enough.
func (m merger) mergeLayered(lists [][]Hint) Hint {
	def := m.info.DefaultAffinity()
	layer := []state{{and: def, pref: true}}
	// met holds the states a layer has met (machines over 16 nodes only
	// come here, so a map: their masks do not fit a table).
	met := map[state]struct{}{}
	add := func(s state) bool {
		if _, ok := met[s]; ok {
			return false
		}
		met[s] = struct{}{}
		return true
	}
	for _, l := range lists {
		next := make([]state, 0, len(layer))
		clear(met)
		for _, s := range layer {
			for _, h := range l {
				t := s.extend(h)
				if add(t) {
					next = append(next, t)
				}
			}
		}
		layer = next
	}
	var best *Hint
	clear(met)
	for _, s := range layer {
		// Merged hints are (AND, preferred): key them as states whose
		// common affinity is the AND.
		if !add(state{and: s.and, pref: s.pref, seen: s.pref, common: s.and}) {
			continue
		}
		cand := Hint{Affinity: s.and, Preferred: s.pref}
		best = m.compare(best, &cand)
	}
	if best == nil {
		return Hint{Affinity: def}
	}
	return *best
}

// compare is upstream's HintMerger.compare: it returns the better of the
// current best and a candidate merged hint.
func (m merger) compare(current, candidate *Hint) *Hint {
	cc := candidate.Affinity.Count()
	switch {
	case cc == 0:
		return current
	case current == nil:
		return candidate
	case !current.Preferred && candidate.Preferred:
		return candidate
	case current.Preferred && !candidate.Preferred:
		return current
	case current.Preferred && candidate.Preferred:
		return m.masks(current, candidate)
	}
	b, cur := m.bestNonPreferred, current.Affinity.Count()
	switch {
	case cur > b:
		return m.masks(current, candidate)
	case cur == b:
		if cc != b {
			return current
		}
		return m.masks(current, candidate)
	case cc > b:
		return current
	case cc == b:
		return candidate
	case cc > cur:
		return candidate
	case cc < cur:
		return current
	}
	return m.masks(current, candidate)
}

// masks picks between two hints by their masks: the current on equal
// masks, else the narrowest (or with prefer-closest the closest).
func (m merger) masks(current, candidate *Hint) *Hint {
	if candidate.Affinity == current.Affinity {
		return current
	}
	var best BitMask
	if m.closest {
		best = m.info.Closest(current.Affinity, candidate.Affinity)
	} else {
		best = m.info.Narrowest(current.Affinity, candidate.Affinity)
	}
	if best == current.Affinity {
		return current
	}
	return candidate
}

// The --topology-manager-policy-options names.
const (
	OptionPreferClosestNUMANodes = "prefer-closest-numa-nodes"
	OptionMaxAllowableNUMANodes  = "max-allowable-numa-nodes"
)

// ParsePolicyOptions reads --topology-manager-policy-options as the kubelet
// does: prefer-closest-numa-nodes (a boolean) and max-allowable-numa-nodes
// (an integer, at least 8); anything else is refused, naming the option.
// Options are read in name order, so the first error is the same every
// run.
func ParsePolicyOptions(options map[string]string) (PolicyOptions, error) {
	opts := PolicyOptions{MaxAllowableNUMANodes: DefaultMaxAllowableNUMANodes}
	names := make([]string, 0, len(options))
	for name := range options {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		value := options[name]
		switch name {
		case OptionPreferClosestNUMANodes:
			v, err := strconv.ParseBool(value)
			if err != nil {
				return opts, fmt.Errorf("%w: bad value %q for option %q", ErrInvalid, value, name)
			}
			opts.PreferClosestNUMA = v
		case OptionMaxAllowableNUMANodes:
			v, err := strconv.Atoi(value)
			if err != nil {
				return opts, fmt.Errorf("%w: option %q is not an integer: %q", ErrInvalid, name, value)
			}
			if v < DefaultMaxAllowableNUMANodes {
				return opts, fmt.Errorf("%w: option %q is %d, below the minimum %d", ErrInvalid, name, v, DefaultMaxAllowableNUMANodes)
			}
			opts.MaxAllowableNUMANodes = v
		default:
			return opts, fmt.Errorf("%w: unknown Topology Manager Policy option %q", ErrInvalid, name)
		}
	}
	return opts, nil
}
