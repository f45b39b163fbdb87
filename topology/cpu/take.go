package cpu

import (
	"fmt"
	"math"
	"slices"

	"github.com/nodelife/nodelife/topology/cpuset"
)

// Sorting is how CPUs are ordered within the chosen sockets once whole
// cores no longer fit (upstream's CPUSortingStrategy).
type Sorting int

const (
	// Packed fills a core's threads before the next core's, and takes
	// whole cores first (upstream's default).
	Packed Sorting = iota
	// Spread orders CPUs by ID within each socket, so that threads of
	// different cores come first, and takes no whole cores
	// (distribute-cpus-across-cores).
	Spread
)

// TakeOptions tune TakePacked and TakeDistributed. The zero value is
// upstream's default taking: Packed, no policy option, and v1.36.3's
// free-core count.
type TakeOptions struct {
	Sorting Sorting
	// PreferUncoreCache tries whole and then partly free uncore (L3)
	// caches before whole cores (prefer-align-cpus-by-uncorecache);
	// TakeDistributed ignores it, as upstream does.
	PreferUncoreCache bool
	// KeepBestCombination makes TakeDistributed take the CPUs from the
	// combination of NUMA nodes it found best. v1.36.3 (and, as of this
	// writing, upstream's main branch) keeps that combination in a slice
	// that later combinations overwrite, so with four or more nodes it can
	// take CPUs from nodes it never chose (see TakeDistributed); off by
	// default, as upstream. No upstream issue tracks it yet.
	KeepBestCombination bool

	// ExactFreeCores counts a core as free when all its CPUs are, rather
	// than when as many CPUs as NumCPUs/NumCores are: upstream's fix of
	// kubernetes#140495 (#140498, after v1.36.3). By default, as v1.36.3,
	// on a machine whose cores differ in threads (hybrid P- and E-cores,
	// offline CPUs) a partly held core can count as free, and taking it
	// whole hands out a CPU that is not free.
	ExactFreeCores bool

	// AlignBySocket is v1.37's align-by-socket in TakeDistributed (the
	// static policy passes its option since v1.37): the NUMA nodes'
	// combinations that lie in one socket win over any that spans
	// sockets, a combination stops the search only when it balances
	// perfectly within one socket, and each node's even share is capped to
	// the whole groups it has free, so a node with fewer free CPUs than the
	// share can still take part. TakePacked ignores it.
	AlignBySocket bool
}

// TakePacked returns n CPUs of available as the static policy picks them
// by default (upstream's takeByTopologyNUMAPacked): whole NUMA nodes or
// sockets first (the upper level of the two first), then, with
// PreferUncoreCache, whole uncore caches and one partly free cache that
// holds what is left, then whole cores, then single CPUs, each level
// walked from its groups with the fewest free CPUs (a group's ID breaks
// ties) within the order of the level above. CPUs of available the
// machine does not have are ignored. n ≤ 0 returns the empty set; more
// than the machine's free CPUs is an error, as is an allocation that
// cannot be completed (upstream's "failed to allocate cpus").
func (m *Machine) TakePacked(available cpuset.CPUSet, n int, opts TakeOptions) (cpuset.CPUSet, error) {
	r, err := m.takePacked(m.fromCPUSet(available), available.Size(), n, opts)
	if err != nil {
		return cpuset.CPUSet{}, err
	}
	return m.toCPUSet(r), nil
}

// TakeDistributed returns n CPUs of available spread evenly over as few
// NUMA nodes as hold them (upstream's takeByTopologyNUMADistributed, the
// distribute-cpus-across-numa option), in groups of groupSize CPUs (the
// CPUs per core under full-pcpus-only, else 1). It tries 1, 2, ... NUMA
// nodes; among the combinations of one size that can each give an equal
// share, it keeps the first whose free CPUs after the allocation have the
// smallest standard deviation (rounded to three decimals as upstream),
// the leftover groups going to the subset of those nodes that balances
// best. A request that is not a multiple of groupSize, or that no
// combination can share, is packed (TakePacked). groupSize must be at
// least 1.
//
// Upstream builds each combination by appending to a shared slice and
// keeps the best one by reference, so a combination of four or more nodes
// can have its tail overwritten by the combinations tried after it; the
// CPUs are then taken from the overwritten nodes (97 CPUs on an empty
// 8-node machine of 32 CPUs per node come from nodes 0, 1, 2 and 7 while
// nodes 0-3 were chosen). TakeDistributed reproduces that;
// TakeOptions.KeepBestCombination takes the chosen nodes instead. Where upstream would loop forever handing out
// leftover groups (a subset whose free CPUs cannot hold them in whole
// groups), that subset is skipped, as upstream does since
// kubernetes#140730: see the package documentation.
func (m *Machine) TakeDistributed(available cpuset.CPUSet, n, groupSize int, opts TakeOptions) (cpuset.CPUSet, error) {
	if groupSize < 1 {
		return cpuset.CPUSet{}, fmt.Errorf("%w: CPU group size %d is below 1", ErrInvalid, groupSize)
	}
	r, err := m.takeDistributed(m.fromCPUSet(available), available.Size(), n, groupSize, opts, nil)
	if err != nil {
		return cpuset.CPUSet{}, err
	}
	return m.toCPUSet(r), nil
}

// UpstreamDistributeLoops reports whether k8s.io/kubernetes'
// takeByTopologyNUMADistributed never returns for this request (the
// kubelet then hangs in admission), in v1.36.3 and still in v1.37.2 (whose
// cap of each node's share changes nothing here): TakeDistributed with
// the same arguments reaches a subset of NUMA nodes whose free CPUs cannot
// take the leftover groups, which it skips as upstream's main branch does
// since kubernetes#140730 and both releases loop on. It answers for upstream's behaviour, so opts must
// not set the fixes upstream lacks (KeepBestCombination, ExactFreeCores);
// with them it reports the path TakeDistributed takes. An invalid
// groupSize gives false.
func (m *Machine) UpstreamDistributeLoops(available cpuset.CPUSet, n, groupSize int, opts TakeOptions) bool {
	if groupSize < 1 {
		return false
	}
	loops := false
	_, _ = m.takeDistributed(m.fromCPUSet(available), available.Size(), n, groupSize, opts, &loops)
	return loops
}

// accumulator is upstream's cpuAccumulator over bit sets: free holds the
// CPUs still available, result those taken.
type accumulator struct {
	m            *Machine
	free, result set
	needed       int
	spread       bool
	exactCores   bool
	seen         []bool
	// counts holds each level's free CPUs per group, valid until the next
	// take.
	counts [levels][]int
	valid  [levels]bool
}

func (m *Machine) newAccumulator(free set, n int, opts TakeOptions) *accumulator {
	f := m.newSet()
	copy(f, free)
	return &accumulator{m: m, free: f, result: m.newSet(), needed: n, spread: opts.Sorting == Spread, exactCores: opts.ExactFreeCores}
}

func (a *accumulator) satisfied() bool { return a.needed < 1 }

// take adds s (a whole group of the machine, or single CPUs) to the
// result and counts all of it against the need, as upstream does even
// when part of s was not free.
func (a *accumulator) take(s set) {
	for i, w := range s {
		a.result[i] |= w
		a.free[i] &^= a.result[i]
	}
	a.needed -= s.count()
	a.valid = [levels]bool{}
}

// freeIn returns the free CPUs of each group of l, by group index.
func (a *accumulator) freeIn(l *level) []int {
	if a.valid[l.kind] {
		return a.counts[l.kind]
	}
	c := a.counts[l.kind]
	if cap(c) < len(l.groups) {
		c = make([]int, len(l.groups))
	}
	c = c[:len(l.groups)]
	clear(c)
	a.free.eachAnd(a.free, func(cpu int) { c[l.of[cpu]]++ })
	a.counts[l.kind], a.valid[l.kind] = c, true
	return c
}

// groupsIn returns the indexes of l's groups that hold a free CPU of
// within, ordered by their free CPUs, then ID (upstream's sort of a
// details query).
func (a *accumulator) groupsIn(l *level, within set) []int {
	if cap(a.seen) < len(l.groups) {
		a.seen = make([]bool, len(l.groups))
	}
	seen := a.seen[:len(l.groups)]
	clear(seen)
	out := make([]int, 0, len(l.groups))
	a.free.eachAnd(within, func(c int) {
		if g := int(l.of[c]); !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	})
	a.sortGroups(l, out)
	return out
}

// sortGroups orders group indexes by free CPUs, then by group ID (the
// index order).
func (a *accumulator) sortGroups(l *level, gs []int) {
	if len(gs) < 2 {
		return
	}
	counts := a.freeIn(l)
	slices.SortFunc(gs, func(x, y int) int {
		if c := counts[x] - counts[y]; c != 0 {
			return c
		}
		return x - y
	})
}

func (a *accumulator) sortNUMA() []int {
	m := a.m
	if m.numaFirst {
		return a.groupsIn(&m.numa, m.all)
	}
	out := make([]int, 0, len(m.numa.groups))
	for _, s := range a.sortSockets() {
		out = append(out, a.groupsIn(&m.numa, m.socket.groups[s].cpus)...)
	}
	return out
}

func (a *accumulator) sortSockets() []int {
	m := a.m
	if !m.numaFirst {
		return a.groupsIn(&m.socket, m.all)
	}
	out := make([]int, 0, len(m.socket.groups))
	for _, n := range a.sortNUMA() {
		out = append(out, a.groupsIn(&m.socket, m.numa.groups[n].cpus)...)
	}
	return out
}

func (a *accumulator) sortCores() []int {
	m := a.m
	out := make([]int, 0, len(m.core.groups))
	if m.numaFirst {
		for _, s := range a.sortSockets() {
			out = append(out, a.groupsIn(&m.core, m.socket.groups[s].cpus)...)
		}
		return out
	}
	for _, n := range a.sortNUMA() {
		out = append(out, a.groupsIn(&m.core, m.numa.groups[n].cpus)...)
	}
	return out
}

func (a *accumulator) sortUncores() []int {
	out := make([]int, 0, len(a.m.uncore.groups))
	for _, n := range a.sortNUMA() {
		out = append(out, a.groupsIn(&a.m.uncore, a.m.numa.groups[n].cpus)...)
	}
	return out
}

// sortCPUs lists the free CPUs core by core (Packed) or socket by socket
// (Spread), ascending within each.
func (a *accumulator) sortCPUs() []int {
	out := make([]int, 0, a.free.count())
	add := func(s set) { a.free.eachAnd(s, func(c int) { out = append(out, c) }) }
	if a.spread {
		for _, s := range a.sortSockets() {
			add(a.m.socket.groups[s].cpus)
		}
		return out
	}
	for _, c := range a.sortCores() {
		add(a.m.core.groups[c].cpus)
	}
	return out
}

// takeFull takes every group of order that is free (its free CPUs number
// want, or the whole group when want is negative) and no larger than the
// need.
func (a *accumulator) takeFull(l *level, order []int, want int) {
	var free []int
	counts := a.freeIn(l)
	for _, g := range order {
		size := want
		if size < 0 {
			size = l.groups[g].size
		}
		if counts[g] == size {
			free = append(free, g)
		}
	}
	for _, g := range free {
		if a.needed >= l.groups[g].size {
			a.take(l.groups[g].cpus)
		}
	}
}

func (a *accumulator) takeFullNUMA() { a.takeFull(&a.m.numa, a.sortNUMA(), -1) }

func (a *accumulator) takeFullSockets() {
	a.takeFull(&a.m.socket, a.sortSockets(), a.m.topo.CPUsPerSocket())
}

func (a *accumulator) takeFullUncores() { a.takeFull(&a.m.uncore, a.sortUncores(), -1) }

func (a *accumulator) takeFullCores() {
	want := a.m.topo.CPUsPerCore()
	if a.exactCores {
		want = -1
	}
	a.takeFull(&a.m.core, a.sortCores(), want)
}

// takePartialUncore takes the free CPUs of the first cores (by ID) of
// uncore cache u that hold a free CPU, as many cores as the need takes,
// one CPU fewer for an odd need on a machine with threads; only if they
// make exactly the need.
func (a *accumulator) takePartialUncore(u int) {
	m := a.m
	perCore := m.topo.CPUsPerCore()
	cores := a.groupsIn(&m.core, m.uncore.groups[u].cpus)
	slices.Sort(cores)
	if want := (a.needed + perCore - 1) / perCore; len(cores) > want {
		cores = cores[:want]
	}
	cpus := m.newSet()
	for _, c := range cores {
		a.free.eachAnd(m.core.groups[c].cpus, cpus.add)
	}
	n := cpus.count()
	if a.needed%2 != 0 && perCore > 1 && n > a.needed {
		// Drop the highest CPU.
		last := -1
		cpus.eachAnd(cpus, func(c int) { last = c })
		cpus[last>>6] &^= 1 << (last & 63)
		n--
	}
	if n == a.needed {
		a.take(cpus)
	}
}

func (a *accumulator) takeUncores() {
	perUncore := a.m.topo.CPUsPerUncore()
	for _, u := range a.sortUncores() {
		if a.needed >= perUncore {
			a.takeFullUncores()
		}
		if a.satisfied() {
			return
		}
		a.takePartialUncore(u)
		if a.satisfied() {
			return
		}
	}
}

func (a *accumulator) takeRemaining() {
	one := a.m.newSet()
	for _, c := range a.sortCPUs() {
		clear(one)
		one.add(c)
		a.take(one)
		if a.satisfied() {
			return
		}
	}
}

// takePacked is TakePacked on a set; availableSize is the size of the
// caller's set, which upstream's error reports.
func (m *Machine) takePacked(free set, availableSize, n int, opts TakeOptions) (set, error) {
	a := m.newAccumulator(free, n, opts)
	if a.satisfied() {
		return a.result, nil
	}
	if a.needed > a.free.count() {
		return nil, fmt.Errorf("not enough cpus available to satisfy request: requested=%d, available=%d", n, availableSize)
	}
	if m.numaFirst {
		a.takeFullNUMA()
	} else {
		a.takeFullSockets()
	}
	if a.satisfied() {
		return a.result, nil
	}
	if m.numaFirst {
		a.takeFullSockets()
	} else {
		a.takeFullNUMA()
	}
	if a.satisfied() {
		return a.result, nil
	}
	if opts.PreferUncoreCache {
		a.takeUncores()
		if a.satisfied() {
			return a.result, nil
		}
	}
	if !a.spread {
		a.takeFullCores()
		if a.satisfied() {
			return a.result, nil
		}
	}
	a.takeRemaining()
	if a.satisfied() {
		return a.result, nil
	}
	return nil, fmt.Errorf("failed to allocate cpus")
}

// growInts appends v as Go's append does for a short []int: in place
// when there is room, else into a new array of twice the capacity (one at
// first). Upstream's combination walk keeps its best combination by
// reference; appending this way makes the kept one alias exactly the
// arrays upstream's does.
func growInts(s []int, v int) []int {
	if len(s) < cap(s) {
		return append(s, v)
	}
	out := make([]int, len(s)+1, max(1, 2*cap(s)))
	copy(out, s)
	out[len(s)] = v
	return out
}

// combinations calls f on each k-element combination of n in
// lexicographic order of positions until f returns false. Unless fresh,
// the combinations share arrays as upstream's do (growInts).
func combinations(n []int, k int, fresh bool, f func([]int) bool) {
	if k < 1 {
		return
	}
	var walk func(start, k int, acc []int) bool
	walk = func(start, k int, acc []int) bool {
		if k == 0 {
			return f(acc)
		}
		for i := start; i <= len(n)-k; i++ {
			next := growInts(acc, n[i])
			if fresh {
				next = append(slices.Clone(acc), n[i])
			}
			if !walk(i+1, k-1, next) {
				return false
			}
		}
		return true
	}
	walk(0, k, []int{})
}

// roundMilli rounds as upstream's balance score does.
func roundMilli(x float64) float64 { return math.Round(x*1000) / 1000 }

// balance is upstream's standardDeviation of the free CPUs per NUMA node,
// its mean and result rounded to three decimals; values in NUMA order.
func balance(xs []int) float64 {
	var sum float64
	for _, x := range xs {
		sum += float64(x)
	}
	mean := roundMilli(sum / float64(len(xs)))
	var sq float64
	for _, x := range xs {
		d := float64(x) - mean
		sq += d * d
	}
	return roundMilli(math.Sqrt(sq / float64(len(xs))))
}

// takeDistributed is TakeDistributed on a set; it sets *loops (when not
// nil) if it skips a subset where upstream loops forever.
func (m *Machine) takeDistributed(free set, availableSize, n, groupSize int, opts TakeOptions, loops *bool) (set, error) {
	opts.PreferUncoreCache = false
	if n%groupSize != 0 {
		return m.takePacked(free, availableSize, n, opts)
	}
	a := m.newAccumulator(free, n, opts)
	if a.satisfied() {
		return a.result, nil
	}
	if a.needed > a.free.count() {
		return nil, fmt.Errorf("not enough cpus available to satisfy request: requested=%d, available=%d", n, availableSize)
	}
	numas := a.sortNUMA()
	freeOn := func(g int) int { return a.free.countAnd(m.numa.groups[g].cpus) }

	// The range of NUMA node counts to try (upstream's
	// rangeNUMANodesNeededToSatisfy).
	groupsTotal := (len(m.cpus)-1)/groupSize + 1
	groupsPerNUMA := (groupsTotal-1)/len(m.numa.groups) + 1
	groupsNeeded := (n-1)/groupSize + 1
	minNUMAs := (groupsNeeded-1)/groupsPerNUMA + 1
	availableNUMAs := len(a.groupsIn(&m.numa, m.all))
	maxNUMAs := min(groupsNeeded, availableNUMAs)

	// after holds the free CPUs per NUMA node (by group index) of the
	// nodes in numas; present marks them, for the balance in NUMA order.
	present := make([]bool, len(m.numa.groups))
	for _, g := range numas {
		present[g] = true
	}
	values := func(after []int) []int {
		var xs []int
		for g, ok := range present {
			if ok {
				xs = append(xs, after[g])
			}
		}
		return xs
	}

	// capShare lowers an even share to the whole groups each node of combo
	// has free (v1.37).
	capShare := func(share int, combo []int) int {
		for _, g := range combo {
			share = min(share, freeOn(g)/groupSize*groupSize)
		}
		return share
	}
	for k := minNUMAs; k <= maxNUMAs; k++ {
		best := math.MaxFloat64
		var bestCombo, bestRemainder []int
		bestInOneSocket := false
		combinations(numas, k, opts.KeepBestCombination, func(combo []int) bool {
			if best == 0 && (!opts.AlignBySocket || bestInOneSocket) {
				return false
			}
			total, groups := 0, 0
			for _, g := range combo {
				total += freeOn(g)
				groups += freeOn(g) / groupSize
			}
			// Upstream counts the free CPUs of the combination's distinct
			// nodes but the groups of each listed one.
			total = a.free.countAnd(m.unionNUMA(combo))
			if total < n || groups*groupSize < n {
				return true
			}
			share := (n / len(combo) / groupSize) * groupSize
			if opts.AlignBySocket {
				share = capShare(share, combo)
			}
			for _, g := range combo {
				if freeOn(g) < share {
					return true
				}
			}
			after := make([]int, len(m.numa.groups))
			for _, g := range numas {
				after[g] = freeOn(g)
			}
			for _, g := range combo {
				after[g] -= share
			}
			remainder := n - share*len(combo)
			var candidates []int
			for _, g := range combo {
				if after[g] >= groupSize {
					candidates = append(candidates, g)
				}
			}
			localBest := math.MaxFloat64
			var localRemainder []int
			if remainder == 0 {
				localBest = balance(values(after))
			}
			for j := len(candidates); remainder > 0 && j >= 1; j-- {
				combinations(candidates, j, opts.KeepBestCombination, func(subset []int) bool {
					left := slices.Clone(after)
					sum := 0
					for _, g := range subset {
						sum += left[g]
					}
					if sum < remainder {
						return true
					}
					if !spreadRemainder(left, subset, remainder, groupSize) {
						if loops != nil {
							*loops = true
						}
						return true // upstream loops forever here
					}
					if b := balance(values(left)); b < localBest {
						localBest, localRemainder = b, subset
					}
					return true
				})
			}
			better := localBest < best
			inOneSocket := false
			if opts.AlignBySocket {
				if inOneSocket = m.numaInOneSocket(combo); inOneSocket != bestInOneSocket {
					better = inOneSocket
				}
			}
			if better {
				best, bestRemainder, bestCombo = localBest, localRemainder, combo
				bestInOneSocket = inOneSocket
			}
			return true
		})
		if bestCombo == nil {
			continue
		}
		// Since v1.37 the share is capped to each chosen node's whole free
		// groups; without AlignBySocket the search above has already kept
		// the share within them, so the cap changes nothing there.
		share := capShare((n/len(bestCombo)/groupSize)*groupSize, bestCombo)
		for _, g := range bestCombo {
			got, _ := m.takePacked(m.onNUMA(a.free, g), 0, share, opts)
			a.takeSet(got)
		}
		remainder := n - share*len(bestCombo)
		for remainder > 0 {
			progress := false
			for _, g := range bestRemainder {
				if remainder == 0 {
					break
				}
				if freeOn(g) < groupSize {
					continue
				}
				got, _ := m.takePacked(m.onNUMA(a.free, g), 0, groupSize, opts)
				a.takeSet(got)
				remainder -= groupSize
				progress = true
			}
			if !progress {
				if loops != nil {
					*loops = true
				}
				break // upstream loops forever here
			}
		}
		if a.needed > 0 {
			return nil, fmt.Errorf("accounting error, not enough CPUs allocated, remaining: %v", a.needed)
		}
		if a.needed < 0 {
			return nil, fmt.Errorf("accounting error, too many CPUs allocated, remaining: %v", a.needed)
		}
		return a.result, nil
	}
	return m.takePacked(free, availableSize, n, opts)
}

// spreadRemainder hands remainder CPUs out of left, groupSize at a time
// from each node of subset in turn that has as many; false when a round
// gives nothing while some remain (where upstream never ends).
func spreadRemainder(left, subset []int, remainder, groupSize int) bool {
	for remainder > 0 {
		gave := false
		for _, g := range subset {
			if remainder == 0 {
				break
			}
			if left[g] < groupSize {
				continue
			}
			left[g] -= groupSize
			remainder -= groupSize
			gave = true
		}
		if !gave {
			return false
		}
	}
	return true
}

// takeSet takes s (possibly nil).
func (a *accumulator) takeSet(s set) {
	if s != nil {
		a.take(s)
	}
}

// unionNUMA returns the CPUs of the NUMA node groups gs.
func (m *Machine) unionNUMA(gs []int) set {
	out := m.newSet()
	for _, g := range gs {
		for i, w := range m.numa.groups[g].cpus {
			out[i] |= w
		}
	}
	return out
}

// numaInOneSocket reports whether the NUMA node groups gs hold CPUs of one
// socket at most (upstream's AreNUMANodesInSameSocket, over the whole
// machine, free or not).
func (m *Machine) numaInOneSocket(gs []int) bool {
	sock := -1
	for _, g := range gs {
		s := m.numaSocket[g]
		switch {
		case s == spansSockets:
			return false
		case s == noSocket:
		case sock == -1:
			sock = s
		case s != sock:
			return false
		}
	}
	return true
}

// onNUMA returns the CPUs of free on NUMA node group g.
func (m *Machine) onNUMA(free set, g int) set {
	out := m.newSet()
	for i, w := range m.numa.groups[g].cpus {
		out[i] = w & free[i]
	}
	return out
}
