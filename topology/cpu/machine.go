package cpu

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/nodelife/nodelife/topology/cpuset"
)

// ErrInvalid is wrapped by every error about a malformed Topology, machine
// description, option or pod.
var ErrInvalid = errors.New("cpu: invalid input")

// CPUInfo places one logical CPU (a hardware thread) in the machine:
// upstream's topology.CPUInfo.
type CPUInfo struct {
	NUMANodeID    int
	SocketID      int
	CoreID        int
	UncoreCacheID int
}

// Topology is the machine as the CPU Manager sees it (upstream's
// topology.CPUTopology). The counts are kept as given, not recomputed from
// CPUs: upstream derives "CPUs per core" (NumCPUs/NumCores), "per socket"
// and "per uncore cache" from them, and a core or socket counts as free
// when that many of its CPUs are, so a machine whose counts disagree with
// its CPUs is allocated as upstream allocates it. Discover computes them
// as the kubelet does.
type Topology struct {
	NumCPUs        int
	NumCores       int
	NumUncoreCache int
	NumSockets     int
	// NumNUMANodes is only read by align-by-socket (NUMA nodes per socket)
	// and to choose whether sockets or NUMA nodes are the upper level.
	NumNUMANodes int
	// CPUs maps each CPU ID (0-65535) to its place.
	CPUs map[int]CPUInfo
}

// Validate returns every problem of t at once, each naming the field and
// the value: an empty CPU map, a CPU ID outside 0-65535, a NUMA node
// outside 0-63 (the Topology Manager's masks), a negative count, and
// NumCores or NumSockets of zero or NumCPUs below NumCores (upstream
// divides by CPUs per core and NUMA nodes per socket; they must be at
// least 1).
func (t Topology) Validate() error {
	var errs []error
	if len(t.CPUs) == 0 {
		errs = append(errs, fmt.Errorf("%w: Topology.CPUs is empty", ErrInvalid))
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"NumCPUs", t.NumCPUs}, {"NumCores", t.NumCores}, {"NumUncoreCache", t.NumUncoreCache}, {"NumSockets", t.NumSockets}, {"NumNUMANodes", t.NumNUMANodes}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("%w: Topology.%s %d is negative", ErrInvalid, f.name, f.v))
		}
	}
	if t.NumCores == 0 {
		errs = append(errs, fmt.Errorf("%w: Topology.NumCores is 0", ErrInvalid))
	} else if t.NumCores > 0 && t.NumCPUs < t.NumCores {
		errs = append(errs, fmt.Errorf("%w: Topology.NumCPUs %d is below NumCores %d (no CPU per core)", ErrInvalid, t.NumCPUs, t.NumCores))
	}
	if t.NumSockets == 0 {
		errs = append(errs, fmt.Errorf("%w: Topology.NumSockets is 0", ErrInvalid))
	}
	ids := make([]int, 0, len(t.CPUs))
	for id := range t.CPUs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		info := t.CPUs[id]
		if id < 0 || id > cpuset.MaxCPU {
			errs = append(errs, fmt.Errorf("%w: CPU %d is outside 0-%d", ErrInvalid, id, cpuset.MaxCPU))
		}
		if info.NUMANodeID < 0 || info.NUMANodeID > 63 {
			errs = append(errs, fmt.Errorf("%w: CPU %d is on NUMA node %d, outside 0-63", ErrInvalid, id, info.NUMANodeID))
		}
	}
	return errors.Join(errs...)
}

// CPUsPerCore is NumCPUs/NumCores (0 when NumCores is 0), as upstream.
func (t Topology) CPUsPerCore() int { return perGroup(t.NumCPUs, t.NumCores) }

// CPUsPerSocket is NumCPUs/NumSockets (0 when NumSockets is 0).
func (t Topology) CPUsPerSocket() int { return perGroup(t.NumCPUs, t.NumSockets) }

// CPUsPerUncore is NumCPUs/NumUncoreCache (0 when NumUncoreCache is 0).
func (t Topology) CPUsPerUncore() int { return perGroup(t.NumCPUs, t.NumUncoreCache) }

func perGroup(n, groups int) int {
	if groups == 0 {
		return 0
	}
	return n / groups
}

// NUMANode, Socket, Core and Thread describe a machine as cAdvisor reports
// it (MachineInfo.Topology): NUMA nodes holding cores, each core its
// threads (logical CPU IDs), its socket and its L3 (uncore) caches.
type NUMANode struct {
	ID    int
	Cores []Core
}

// Core is one physical core of a NUMANode.
type Core struct {
	// ID is the core ID cAdvisor reports; upstream ignores it and names
	// the core by its lowest thread.
	ID       int
	SocketID int
	Threads  []int
	// UncoreCaches are the IDs of the core's L3 caches; only the first is
	// read. Without one the socket ID stands in.
	UncoreCaches []int
}

// Discover builds the Topology the kubelet builds from cAdvisor's machine
// description (upstream's topology.Discover): every thread of a core gets
// the core's lowest thread as core ID, the NUMA node it is listed under,
// the core's socket and first uncore cache (else the socket ID); NumCPUs
// and NumSockets are as cAdvisor counts them (numCPUs must not be 0),
// NumCores the number of cores listed, NumNUMANodes and NumUncoreCache the
// distinct IDs. A core without threads or with a thread listed twice is
// refused, as upstream refuses it. The result is validated.
func Discover(numCPUs, numSockets int, nodes []NUMANode) (Topology, error) {
	if numCPUs == 0 {
		return Topology{}, fmt.Errorf("%w: could not detect number of cpus (numCPUs is 0)", ErrInvalid)
	}
	t := Topology{NumCPUs: numCPUs, NumSockets: numSockets, CPUs: map[int]CPUInfo{}}
	numas, uncores := map[int]bool{}, map[int]bool{}
	for _, n := range nodes {
		t.NumCores += len(n.Cores)
		for _, c := range n.Cores {
			if len(c.Threads) == 0 {
				return Topology{}, fmt.Errorf("%w: core %d of socket %d lists no threads", ErrInvalid, c.ID, c.SocketID)
			}
			low := c.Threads[0]
			seen := map[int]bool{}
			for _, th := range c.Threads {
				if seen[th] {
					return Topology{}, fmt.Errorf("%w: core %d of socket %d lists thread %d twice", ErrInvalid, c.ID, c.SocketID, th)
				}
				seen[th] = true
				low = min(low, th)
			}
			uncore := c.SocketID
			if len(c.UncoreCaches) > 0 {
				uncore = c.UncoreCaches[0]
			}
			for _, th := range c.Threads {
				t.CPUs[th] = CPUInfo{NUMANodeID: n.ID, SocketID: c.SocketID, CoreID: low, UncoreCacheID: uncore}
			}
		}
	}
	for _, info := range t.CPUs {
		numas[info.NUMANodeID] = true
		uncores[info.UncoreCacheID] = true
	}
	t.NumNUMANodes, t.NumUncoreCache = len(numas), len(uncores)
	if err := t.Validate(); err != nil {
		return Topology{}, err
	}
	return t, nil
}

// set is a set of CPU IDs as bits, one word per 64 IDs; every set of one
// machine has the same number of words.
type set []uint64

func (s set) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// countAnd returns |s ∩ o|.
func (s set) countAnd(o set) int {
	n := 0
	for i, w := range s {
		n += bits.OnesCount64(w & o[i])
	}
	return n
}

func (s set) has(c int) bool { return c>>6 < len(s) && s[c>>6]&(1<<(c&63)) != 0 }

func (s set) add(c int) { s[c>>6] |= 1 << (c & 63) }

// each calls f on the IDs of s ∩ o in ascending order.
func (s set) eachAnd(o set, f func(int)) {
	for i, w := range s {
		for v := w & o[i]; v != 0; v &= v - 1 {
			f(i<<6 | bits.TrailingZeros64(v))
		}
	}
}

// group is one NUMA node, socket, core or uncore cache: its ID and CPUs.
type group struct {
	id   int
	cpus set
	size int
}

// level indexes a machine's groups of one kind.
type level struct {
	kind   int // levelNUMA, levelSocket, levelCore or levelUncore
	groups []group
	of     []int32 // CPU ID -> index in groups (-1 for no CPU)
}

// The levels, for the accumulator's counts.
const (
	levelNUMA = iota
	levelSocket
	levelCore
	levelUncore
	levels
)

// Machine is a validated Topology compiled for allocation: sets of CPUs
// per NUMA node, socket, core and uncore cache. It is immutable and safe
// for concurrent use.
type Machine struct {
	topo                       Topology
	words                      int
	all                        set
	cpus                       []int // the CPU IDs, ascending
	numa, socket, core, uncore level
	// numaFirst: NUMA nodes are the upper level (NumSockets >= NumNUMANodes).
	numaFirst bool
	// numaIDs are the NUMA node IDs ascending, and numaMask their mask.
	numaIDs []int
	// numaSocket is, per NUMA node group, the socket group index of its
	// CPUs, spansSockets when they are in several, noSocket when none.
	numaSocket []int
}

// The numaSocket values that are not a socket.
const (
	spansSockets = -2
	noSocket     = -3
)

// NewMachine validates t and compiles it.
func NewMachine(t Topology) (*Machine, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	m := &Machine{topo: t, numaFirst: t.NumSockets >= t.NumNUMANodes}
	m.topo.CPUs = make(map[int]CPUInfo, len(t.CPUs))
	maxID := 0
	for id, info := range t.CPUs {
		m.topo.CPUs[id] = info
		m.cpus = append(m.cpus, id)
		maxID = max(maxID, id)
	}
	slices.Sort(m.cpus)
	m.words = maxID>>6 + 1
	m.all = m.newSet()
	for _, c := range m.cpus {
		m.all.add(c)
	}
	m.numa = m.buildLevel(levelNUMA, maxID, func(i CPUInfo) int { return i.NUMANodeID })
	m.socket = m.buildLevel(levelSocket, maxID, func(i CPUInfo) int { return i.SocketID })
	m.core = m.buildLevel(levelCore, maxID, func(i CPUInfo) int { return i.CoreID })
	m.uncore = m.buildLevel(levelUncore, maxID, func(i CPUInfo) int { return i.UncoreCacheID })
	for _, g := range m.numa.groups {
		m.numaIDs = append(m.numaIDs, g.id)
		sock := noSocket
		g.cpus.eachAnd(g.cpus, func(c int) {
			switch s := int(m.socket.of[c]); {
			case sock == noSocket:
				sock = s
			case sock != s:
				sock = spansSockets
			}
		})
		m.numaSocket = append(m.numaSocket, sock)
	}
	return m, nil
}

func (m *Machine) buildLevel(kind, maxID int, key func(CPUInfo) int) level {
	ids := map[int]int{}
	var order []int
	for _, c := range m.cpus {
		k := key(m.topo.CPUs[c])
		if _, ok := ids[k]; !ok {
			ids[k] = 0
			order = append(order, k)
		}
	}
	slices.Sort(order)
	l := level{kind: kind, groups: make([]group, len(order)), of: make([]int32, maxID+1)}
	for i, k := range order {
		ids[k] = i
		l.groups[i] = group{id: k, cpus: m.newSet()}
	}
	for i := range l.of {
		l.of[i] = -1
	}
	for _, c := range m.cpus {
		g := ids[key(m.topo.CPUs[c])]
		l.of[c] = int32(g)
		l.groups[g].cpus.add(c)
		l.groups[g].size++
	}
	return l
}

func (m *Machine) newSet() set { return make(set, m.words) }

// Topology returns the machine's topology (a copy).
func (m *Machine) Topology() Topology {
	t := m.topo
	t.CPUs = make(map[int]CPUInfo, len(m.topo.CPUs))
	for id, info := range m.topo.CPUs {
		t.CPUs[id] = info
	}
	return t
}

// CPUs returns every CPU of the machine.
func (m *Machine) CPUs() cpuset.CPUSet { return m.toCPUSet(m.all) }

// Info returns the place of CPU id, and whether the machine has it.
func (m *Machine) Info(id int) (CPUInfo, bool) {
	info, ok := m.topo.CPUs[id]
	return info, ok
}

// NUMANodes returns the NUMA node IDs of the machine's CPUs, ascending.
func (m *Machine) NUMANodes() []int { return slices.Clone(m.numaIDs) }

// fromCPUSet returns the machine's CPUs in s (others are dropped, as
// upstream's KeepOnly drops them).
func (m *Machine) fromCPUSet(s cpuset.CPUSet) set {
	out := m.newSet()
	for c := s.Next(0); c >= 0 && c>>6 < m.words; c = s.Next(c + 1) {
		if m.all.has(c) {
			out.add(c)
		}
		if c == cpuset.MaxCPU {
			break
		}
	}
	return out
}

// toCPUSet converts; every ID of s is a valid CPU ID.
func (m *Machine) toCPUSet(s set) cpuset.CPUSet {
	ids := make([]int, 0, s.count())
	for i, w := range s {
		for v := w; v != 0; v &= v - 1 {
			ids = append(ids, i<<6|bits.TrailingZeros64(v))
		}
	}
	out, _ := cpuset.New(ids...)
	return out
}

// numaOf returns the NUMA node of CPU c.
func (m *Machine) numaOf(c int) int {
	if c < len(m.numa.of) && m.numa.of[c] >= 0 {
		return m.numa.groups[m.numa.of[c]].id
	}
	// Upstream reads a missing CPU's info as the zero CPUInfo: NUMA node 0.
	return 0
}
