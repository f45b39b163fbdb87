package eviction

import (
	"slices"
	"strconv"
	"strings"

	"github.com/nodelife/nodelife/conditions"
)

// ZoneNode is what the disruption planner needs to know about one node in a
// monitor pass.
type ZoneNode struct {
	// Name is the node's name.
	Name string
	// Zone is the node's zone key (ZoneKey of its labels).
	Zone string
	// Ready is the node's Ready status after this pass's health update
	// (conditions.Health.CurrentReady); "" when the node has no Ready
	// condition, which counts as not ready.
	Ready conditions.Status
	// Excluded leaves the node out of its zone's counts: set it when the
	// node carries LabelNodeExcludeDisruption, or when its health update
	// failed in this pass (upstream skips such a node). Excluded nodes are
	// still covered by StripNoExecuteTaints and ResetProbes.
	Excluded bool
}

// ZoneStatus is what the planner remembers about a zone between passes.
type ZoneStatus struct {
	// State is the zone's state after the pass.
	State ZoneState
	// Rate is the tainting rate, in nodes per second, the zone's queue is
	// set to; 0 means stopped.
	Rate float64
}

// Transition names a change of the cluster-wide disruption mode.
type Transition string

// Transitions of the cluster-wide disruption mode.
const (
	// TransitionNone: the mode did not change; rates change only in zones
	// whose state changed.
	TransitionNone Transition = ""
	// TransitionEnterFullDisruption: every zone is now fully disrupted and
	// was not before ("master disruption mode"): the control plane is more
	// likely cut off than every node dead, so tainting stops everywhere and
	// the NoExecute taints come off every node.
	TransitionEnterFullDisruption Transition = "EnterFullDisruption"
	// TransitionExitFullDisruption: some zone has a ready node again after
	// all were fully disrupted: every zone gets the rate of its new state
	// and every node a fresh probe timestamp (unless KeepProbesOnExit).
	TransitionExitFullDisruption Transition = "ExitFullDisruption"
	// TransitionStayFullDisruption: all zones were and are fully disrupted;
	// nothing changes.
	TransitionStayFullDisruption Transition = "StayFullDisruption"
)

// ZonePlan is the planner's verdict for one zone with counted nodes.
type ZonePlan struct {
	// Zone is the zone key.
	Zone string
	// Size is the number of counted nodes; NotReady how many of them are
	// not ready.
	Size, NotReady int
	// Previous is the zone's state before the pass, StateInitial for a
	// zone not seen before.
	Previous ZoneState
	// State is the zone's state after the pass. While the cluster is fully
	// disrupted it is FullDisruption for every zone.
	State ZoneState
	// Rate is the tainting rate the zone's queue must run at after the
	// pass, in nodes per second; 0 means stopped.
	Rate float64
	// SetRate is true when upstream swaps the zone's limiter in this pass
	// (RateLimitedQueue.SetRate). Upstream leaves the limiter alone while
	// the state holds, even if the zone's size crosses the large-cluster
	// threshold.
	SetRate bool
	// Reason is machine-readable: the Transition for mode changes,
	// "StateChanged" or "StateUnchanged" otherwise.
	Reason string
	// Message says the same for people.
	Message string
}

// DisruptionPlan is the result of one disruption pass.
type DisruptionPlan struct {
	// Zones has one entry per zone with counted nodes, sorted by key.
	Zones []ZonePlan
	// Removed lists, sorted, the zones of prev that have no counted node in
	// this pass; they are forgotten (upstream forgets them over one or more
	// passes, in map order; see PlanDisruption).
	Removed []string
	// Transition is the change of disruption mode in this pass, if any.
	Transition Transition
	// StripNoExecuteTaints asks the caller to remove the not-ready and
	// unreachable NoExecute taints from every node passed in, and to take
	// each out of its zone's tainting queue (NoExecuteTainter.MarkReachable).
	// Set when entering full disruption.
	StripNoExecuteTaints bool
	// ResetProbes asks the caller to set every node's probe and ready
	// transition timestamps to now (conditions.Monitor.ResetProbes). Set
	// when leaving full disruption, unless Config.KeepProbesOnExit.
	ResetProbes bool
	// Next is the zone memory to pass as prev to the next pass.
	Next map[string]ZoneStatus
	// Reason is the Transition, or "ZoneStates" when the mode did not
	// change.
	Reason string
	// Message says the same for people.
	Message string
}

// Zone returns the plan of zone key and whether the pass counted nodes in it.
func (p DisruptionPlan) Zone(key string) (ZonePlan, bool) {
	i, ok := slices.BinarySearchFunc(p.Zones, key, func(z ZonePlan, k string) int { return strings.Compare(z.Zone, k) })
	if !ok {
		return ZonePlan{}, false
	}
	return p.Zones[i], true
}

// PlanDisruption runs the node lifecycle controller's disruption handling
// (handleDisruption) for one monitor pass. prev is the zone memory returned
// by the previous pass (nil at start); nodes is every node of the cluster.
// Inputs are not modified.
//
// The counted nodes of each zone give its state (ComputeZoneState). Then:
//
//   - if every zone with counted nodes is FullDisruption now and was not
//     before, the cluster enters full disruption: every zone's rate becomes
//     0 and its state FullDisruption, and every node loses its NoExecute
//     taints (StripNoExecuteTaints);
//   - if some zone is not FullDisruption now and all were before, the
//     cluster leaves it: every zone is set to the rate of its new state,
//     and every node gets a fresh probe timestamp (ResetProbes);
//   - if all zones are and were FullDisruption, nothing changes;
//   - otherwise, each zone whose state changed (a new zone counts as
//     changed from Initial) is set to the rate of its new state (ZoneRate).
//
// A cluster with no counted node at all is "all fully disrupted" and so
// changes nothing. Zones of prev without counted nodes are dropped and
// listed in Removed. Upstream stops dropping them at the first zone that
// was not fully disrupted, in map order, so some linger for a pass or more;
// that never changes a remaining zone's state or rate, and nodelife always
// drops them at once (the order in which upstream meets the dropped zones
// first). A pass that finds nodes in a zone it holds no state for gives it
// a new, empty queue: NoExecuteTainter.ResetZone.
//
// It returns an error only for an invalid c.
func (c Config) PlanDisruption(prev map[string]ZoneStatus, nodes []ZoneNode) (DisruptionPlan, error) {
	if err := c.Validate(); err != nil {
		return DisruptionPlan{}, err
	}
	counts, clusterSize := countZones(nodes)
	return c.planCounts(prev, counts, clusterSize), nil
}

// ZoneCount is how many of a zone's counted nodes are Ready and how many
// are not, for callers that keep the counts themselves.
type ZoneCount struct {
	// Zone is the zone key (ZoneKey).
	Zone string
	// Ready and NotReady count the zone's counted nodes (not excluded, and
	// whose health update did not fail) by their Ready status after the
	// pass: True, or anything else.
	Ready, NotReady int
}

// PlanZones is PlanDisruption over zone counts instead of nodes, for a
// caller that counts as it observes the nodes (nodelifecycle does): the
// same plan, without a pass over the nodes and without a map. counts may
// be in any order and name a zone more than once (the counts add up);
// zones with no counted node are left out, as PlanDisruption leaves them.
// counts is not modified. It returns an error only for an invalid c.
func (c Config) PlanZones(prev map[string]ZoneStatus, counts []ZoneCount) (DisruptionPlan, error) {
	if err := c.Validate(); err != nil {
		return DisruptionPlan{}, err
	}
	zs := make([]zoneCount, 0, len(counts))
	total := 0
	for _, zc := range counts {
		if zc.Ready < 0 || zc.NotReady < 0 || zc.Ready+zc.NotReady == 0 {
			continue
		}
		zs = append(zs, zoneCount{zone: zc.Zone, ready: zc.Ready, notReady: zc.NotReady})
		total += zc.Ready + zc.NotReady
	}
	slices.SortFunc(zs, func(a, b zoneCount) int { return strings.Compare(a.zone, b.zone) })
	merged := zs[:0]
	for _, zc := range zs {
		if n := len(merged); n > 0 && merged[n-1].zone == zc.zone {
			merged[n-1].ready += zc.ready
			merged[n-1].notReady += zc.notReady
			continue
		}
		merged = append(merged, zc)
	}
	return c.planCounts(prev, merged, total), nil
}

// planCounts is the disruption handling over the zones' counts, sorted by
// zone key, and the cluster's counted nodes.
func (c Config) planCounts(prev map[string]ZoneStatus, counts []zoneCount, clusterSize int) DisruptionPlan {
	plan := DisruptionPlan{Zones: make([]ZonePlan, len(counts)), Next: make(map[string]ZoneStatus, len(counts))}

	allAre, allWas := true, true
	for i, zc := range counts {
		zp := ZonePlan{Zone: zc.zone, Size: zc.ready + zc.notReady, NotReady: zc.notReady, Previous: StateInitial}
		zcfg := c.zoneConfig(zc.zone)
		zp.State = zoneState(zc.ready, zc.notReady, zcfg.UnhealthyZoneThreshold)
		rate := zcfg.NodeEvictionRate // a new zone's queue starts at the normal rate
		if st, ok := prev[zc.zone]; ok {
			zp.Previous, rate = st.State, st.Rate
		}
		zp.Rate = rate
		if zp.State != StateFullDisruption {
			allAre = false
		}
		if zp.Previous != StateFullDisruption {
			allWas = false
		}
		plan.Zones[i] = zp
	}
	for k := range prev {
		if _, ok := slices.BinarySearchFunc(counts, k, func(z zoneCount, k string) int { return strings.Compare(z.zone, k) }); !ok {
			plan.Removed = append(plan.Removed, k)
		}
	}
	slices.Sort(plan.Removed)

	switch {
	case allAre && allWas:
		plan.Transition = TransitionStayFullDisruption
		for i := range plan.Zones {
			zp := &plan.Zones[i]
			zp.Reason = "StateUnchanged"
			zp.Message = c.zoneMessage(zp, "stays fully disrupted with the rest of the cluster")
		}
		plan.Reason = string(TransitionStayFullDisruption)
		plan.Message = "all zones are still fully disrupted; tainting stays stopped"
	case allAre:
		plan.Transition = TransitionEnterFullDisruption
		plan.StripNoExecuteTaints = true
		for i := range plan.Zones {
			zp := &plan.Zones[i]
			zp.State, zp.Rate, zp.SetRate = StateFullDisruption, 0, true
			zp.Reason = string(TransitionEnterFullDisruption)
			zp.Message = c.zoneMessage(zp, "tainting stops: every zone is fully disrupted")
		}
		plan.Reason = string(TransitionEnterFullDisruption)
		plan.Message = "all nodes are not ready: entering full disruption mode, stopping all tainting and removing NoExecute taints from every node"
	case allWas:
		plan.Transition = TransitionExitFullDisruption
		plan.ResetProbes = !c.KeepProbesOnExit
		for i := range plan.Zones {
			zp := &plan.Zones[i]
			zcfg := c.zoneConfig(zp.Zone)
			zp.Rate, zp.SetRate = zcfg.ZoneRate(zp.State, c.rateSize(zp.Size, clusterSize)), true
			zp.Reason = string(TransitionExitFullDisruption)
			zp.Message = c.zoneMessage(zp, "rate reset for its state: the cluster is leaving full disruption")
		}
		plan.Reason = string(TransitionExitFullDisruption)
		plan.Message = "some nodes are ready again: leaving full disruption mode"
		if plan.ResetProbes {
			plan.Message += " and resetting every node's probe timestamp"
		}
	default:
		for i := range plan.Zones {
			zp := &plan.Zones[i]
			if zp.State == zp.Previous {
				zp.Reason = "StateUnchanged"
				zp.Message = c.zoneMessage(zp, "state unchanged, rate kept")
				continue
			}
			zcfg := c.zoneConfig(zp.Zone)
			zp.Rate, zp.SetRate = zcfg.ZoneRate(zp.State, c.rateSize(zp.Size, clusterSize)), true
			zp.Reason = "StateChanged"
			zp.Message = c.zoneMessage(zp, "state changed")
		}
		plan.Reason = "ZoneStates"
		plan.Message = "zone states evaluated"
	}
	for _, zp := range plan.Zones {
		plan.Next[zp.Zone] = ZoneStatus{State: zp.State, Rate: zp.Rate}
	}
	return plan
}

// zoneConfig is ForZone without the copy when there are no overrides.
func (c *Config) zoneConfig(zone string) *Config {
	if len(c.Zones) == 0 {
		return c
	}
	z := c.ForZone(zone)
	return &z
}

// rateSize is the size ZoneRate compares with the large-cluster threshold.
func (c Config) rateSize(zoneSize, clusterSize int) int {
	if c.LargeClusterSizeBy == SizeCluster {
		return clusterSize
	}
	return zoneSize
}

// zoneMessage says what happened to a zone in a pass, for people. It is
// written out with strconv rather than fmt.Sprintf: every zone gets
// a message on every monitor pass, and formatting was a seventh of a
// simulation's time. The text is what "zone %q: %d of %d nodes not ready,
// %s -> %s, %s; tainting rate %g nodes/s" would print.
func (c Config) zoneMessage(zp *ZonePlan, what string) string {
	b := make([]byte, 0, 96+len(zp.Zone)+len(what))
	b = append(b, "zone "...)
	b = strconv.AppendQuote(b, ZoneName(zp.Zone))
	b = append(b, ": "...)
	b = strconv.AppendInt(b, int64(zp.NotReady), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(zp.Size), 10)
	b = append(b, " nodes not ready, "...)
	b = append(b, string(zp.Previous)...)
	b = append(b, " -> "...)
	b = append(b, string(zp.State)...)
	b = append(b, ", "...)
	b = append(b, what...)
	b = append(b, "; tainting rate "...)
	b = strconv.AppendFloat(b, zp.Rate, 'g', -1, 64)
	b = append(b, " nodes/s"...)
	return string(b)
}

// zoneCount is the ready and not-ready count of one zone.
type zoneCount struct {
	zone            string
	ready, notReady int
}

// countZones counts the counted nodes per zone and returns the zones sorted
// by key, and the number of counted nodes.
func countZones(nodes []ZoneNode) ([]zoneCount, int) {
	index := make(map[string]int)
	var counts []zoneCount
	total := 0
	for i := range nodes {
		n := &nodes[i]
		if n.Excluded {
			continue
		}
		total++
		j, ok := index[n.Zone]
		if !ok {
			j = len(counts)
			index[n.Zone] = j
			counts = append(counts, zoneCount{zone: n.Zone})
		}
		if n.Ready == conditions.True {
			counts[j].ready++
		} else {
			counts[j].notReady++
		}
	}
	slices.SortFunc(counts, func(a, b zoneCount) int { return strings.Compare(a.zone, b.zone) })
	return counts, total
}
