package trace

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"time"
)

// IndependentFault is the type of a node's own generated failure
// (FaultModel.MTBF).
func IndependentFault() FaultType {
	return FaultType{Level: "Generated", Class: "Node", Desc: "independent failure"}
}

// CorrelatedFault is the type of a generated group outage, all its nodes
// at once (FaultModel.Groups): a rack's switch, a zone's power.
func CorrelatedFault() FaultType {
	return FaultType{Level: "Generated", Class: "Group", Desc: "correlated outage"}
}

// MaintenanceFault is the type of a planned maintenance: the node is
// cordoned and drained at Start, then down until End, when it is
// uncordoned. A replay treats it apart from the others
// (sched.Replay.Faults).
func MaintenanceFault() FaultType {
	return FaultType{Level: "Maintenance", Class: "Drain", Desc: "cordon, drain and repair"}
}

// MaxGeneratedFaults bounds the windows Generate draws: a model that
// would draw more (a mean time between failures of nanoseconds over a
// year) is refused rather than left to fill the memory.
const MaxGeneratedFaults = 10_000_000

// ErrInvalidFaultModel is wrapped by FaultModel.Validate's errors.
var ErrInvalidFaultModel = errors.New("trace: invalid fault model")

// FaultModel describes faults to generate where no trace has them, in
// three kinds that may be combined; each kind's zero value generates none
// of it.
type FaultModel struct {
	// MTBF and MTTR are each node's own failures: up for an exponentially
	// distributed time of mean MTBF, then down for one of mean MTTR, and
	// again (an alternating renewal process per node, independent of the
	// other nodes).
	MTBF, MTTR time.Duration
	// Groups are sets of nodes that fail together (racks, zones, power
	// domains), each a renewal process of its own with means GroupMTBF and
	// GroupMTTR: all its nodes go down at once and come back at once.
	Groups               [][]string
	GroupMTBF, GroupMTTR time.Duration
	// MaintenanceEvery and MaintenanceFor are planned maintenance: every
	// node is taken down once in each period of MaintenanceEvery, at a time
	// drawn uniformly in the period (so that the nodes' maintenances are
	// spread out), for MaintenanceFor (MaintenanceFault).
	MaintenanceEvery, MaintenanceFor time.Duration
}

// Validate returns every problem of m, joined, each naming the field and
// its value; nodes are the cluster's node names, which Groups must be
// among.
func (m FaultModel) Validate(nodes []string) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidFaultModel}, args...)...))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"MTBF", m.MTBF}, {"MTTR", m.MTTR}, {"GroupMTBF", m.GroupMTBF}, {"GroupMTTR", m.GroupMTTR},
		{"MaintenanceEvery", m.MaintenanceEvery}, {"MaintenanceFor", m.MaintenanceFor}} {
		if d.v < 0 {
			bad("%s %v must not be negative", d.name, d.v)
		}
	}
	if (m.MTBF > 0) != (m.MTTR > 0) {
		bad("MTBF %v and MTTR %v: set both or neither", m.MTBF, m.MTTR)
	}
	if (m.GroupMTBF > 0) != (m.GroupMTTR > 0) {
		bad("GroupMTBF %v and GroupMTTR %v: set both or neither", m.GroupMTBF, m.GroupMTTR)
	}
	if len(m.Groups) > 0 && m.GroupMTBF == 0 {
		bad("%d Groups without GroupMTBF and GroupMTTR", len(m.Groups))
	}
	if (m.MaintenanceEvery > 0) != (m.MaintenanceFor > 0) || m.MaintenanceFor > m.MaintenanceEvery {
		bad("MaintenanceEvery %v and MaintenanceFor %v: set both, the second no longer than the first, or neither", m.MaintenanceEvery, m.MaintenanceFor)
	}
	known := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		known[n] = true
	}
	for g, group := range m.Groups {
		for _, n := range group {
			if !known[n] {
				bad("Groups[%d]: node %q is not one of the cluster's", g, n)
			}
		}
	}
	return errors.Join(errs...)
}

// Generate draws m's faults on nodes over span (from 0), seeded: the same
// arguments give the same windows. A window that starts within span and
// ends after it is Ongoing. The windows are in the order of their starts
// (then node names, then types).
func (m FaultModel) Generate(nodes []string, span time.Duration, seed int64) ([]FaultWindow, error) {
	if err := m.Validate(nodes); err != nil {
		return nil, err
	}
	if span < 0 {
		return nil, fmt.Errorf("%w: span %v must not be negative", ErrInvalidFaultModel, span)
	}
	// The windows to expect, refused above the bound before any is drawn.
	expect := 0.0
	if m.MTBF > 0 {
		expect += float64(len(nodes)) * float64(span) / float64(m.MTBF+m.MTTR)
	}
	if m.GroupMTBF > 0 {
		for _, g := range m.Groups {
			expect += float64(len(g)) * float64(span) / float64(m.GroupMTBF+m.GroupMTTR)
		}
	}
	if m.MaintenanceEvery > 0 {
		expect += float64(len(nodes)) * (float64(span)/float64(m.MaintenanceEvery) + 1)
	}
	if expect > MaxGeneratedFaults {
		return nil, fmt.Errorf("%w: about %.3g windows over %v for %d nodes (MTBF %v, GroupMTBF %v, MaintenanceEvery %v), more than %d: make the faults rarer or the span shorter",
			ErrInvalidFaultModel, expect, span, len(nodes), m.MTBF, m.GroupMTBF, m.MaintenanceEvery, MaxGeneratedFaults)
	}
	rnd := rand.New(rand.NewSource(seed))
	var out []FaultWindow
	add := func(node string, start, end time.Duration, typ FaultType) {
		if len(out) >= MaxGeneratedFaults {
			return
		}
		w := FaultWindow{Node: node, Start: start, End: end, Type: typ}
		if end > span {
			w.End, w.Ongoing = 0, true
		}
		out = append(out, w)
	}
	// exp draws an exponential time of the given mean, at least 1 ns.
	exp := func(mean time.Duration) time.Duration {
		d := rnd.ExpFloat64() * float64(mean)
		if d >= math.MaxInt64/2 {
			return math.MaxInt64 / 2
		}
		return max(time.Duration(d), 1)
	}
	alternate := func(mtbf, mttr time.Duration, down func(start, end time.Duration)) {
		for t := exp(mtbf); t < span && len(out) < MaxGeneratedFaults; {
			end := t + exp(mttr)
			down(t, end)
			t = end + exp(mtbf)
		}
	}
	if m.MTBF > 0 {
		for _, n := range nodes {
			alternate(m.MTBF, m.MTTR, func(s, e time.Duration) { add(n, s, e, IndependentFault()) })
		}
	}
	if m.GroupMTBF > 0 {
		for _, g := range m.Groups {
			alternate(m.GroupMTBF, m.GroupMTTR, func(s, e time.Duration) {
				for _, n := range g {
					add(n, s, e, CorrelatedFault())
				}
			})
		}
	}
	if m.MaintenanceEvery > 0 {
		for _, n := range nodes {
			for p := time.Duration(0); p < span && len(out) < MaxGeneratedFaults; p += m.MaintenanceEvery {
				s := p + time.Duration(rnd.Int63n(int64(m.MaintenanceEvery-m.MaintenanceFor)+1))
				if s < span {
					add(n, s, s+m.MaintenanceFor, MaintenanceFault())
				}
			}
		}
	}
	if len(out) >= MaxGeneratedFaults {
		// the draws ran far above their expectation
		return nil, fmt.Errorf("%w: more than %d windows over %v for %d nodes: make the faults rarer or the span shorter",
			ErrInvalidFaultModel, MaxGeneratedFaults, span, len(nodes))
	}
	slices.SortStableFunc(out, func(a, b FaultWindow) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), strings.Compare(a.Node, b.Node),
			strings.Compare(a.Type.Level, b.Type.Level), strings.Compare(a.Type.Class, b.Type.Class))
	})
	return out, nil
}
