package eviction

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/conditions"
)

// Upstream's topology.GetZoneKey: beta labels win by presence, region and zone are
// chosen separately, and no labels means zone "".
func TestZoneKey(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   string
	}{
		{"nil labels", nil, ""},
		{"no zone labels", map[string]string{"kubernetes.io/hostname": "n1"}, ""},
		{"GA labels", map[string]string{LabelTopologyRegion: "eu-west-1", LabelTopologyZone: "eu-west-1a"}, "eu-west-1:\x00:eu-west-1a"},
		{"beta labels", map[string]string{LabelFailureDomainBetaRegion: "r", LabelFailureDomainBetaZone: "z"}, "r:\x00:z"},
		{"beta wins over GA", map[string]string{LabelFailureDomainBetaZone: "bz", LabelTopologyZone: "gz", LabelFailureDomainBetaRegion: "br", LabelTopologyRegion: "gr"}, "br:\x00:bz"},
		{"empty beta label still wins", map[string]string{LabelFailureDomainBetaZone: "", LabelTopologyZone: "gz"}, ""},
		{"region and zone chosen separately", map[string]string{LabelFailureDomainBetaRegion: "br", LabelTopologyZone: "gz"}, "br:\x00:gz"},
		{"zone only", map[string]string{LabelTopologyZone: "z"}, ":\x00:z"},
		{"region only", map[string]string{LabelTopologyRegion: "r"}, "r:\x00:"},
		{"colon in names does not collide", map[string]string{LabelTopologyRegion: "a:", LabelTopologyZone: "b"}, "a::\x00:b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ZoneKey(tc.labels); got != tc.want {
				t.Fatalf("ZoneKey = %q, want %q", got, tc.want)
			}
		})
	}
	if got := ZoneName("r:\x00:z"); got != "r/z" {
		t.Fatalf("ZoneName = %q", got)
	}
	if got := ZoneName("plain"); got != "plain" {
		t.Fatalf("ZoneName of a foreign key = %q", got)
	}
}

func TestIsExcludedFromDisruption(t *testing.T) {
	if !IsExcludedFromDisruption(map[string]string{LabelNodeExcludeDisruption: ""}) {
		t.Fatal("presence with an empty value must exclude")
	}
	if IsExcludedFromDisruption(nil) || IsExcludedFromDisruption(map[string]string{"node.kubernetes.io/exclude-from-external-load-balancers": ""}) {
		t.Fatal("excluded without the label")
	}
}

// statuses returns ready True statuses followed by notReady of the given
// not-ready status.
func statuses(ready, notReady int, s conditions.Status) []conditions.Status {
	out := make([]conditions.Status, 0, ready+notReady)
	for i := 0; i < ready; i++ {
		out = append(out, conditions.True)
	}
	for i := 0; i < notReady; i++ {
		out = append(out, s)
	}
	return out
}

// ComputeZoneState boundaries (reference §1.4).
func TestComputeZoneState(t *testing.T) {
	const th = DefaultUnhealthyZoneThreshold
	for _, tc := range []struct {
		name      string
		ready     []conditions.Status
		threshold float32
		notReady  int
		want      ZoneState
	}{
		{"empty zone is Normal", nil, th, 0, StateNormal},
		{"one ready node", statuses(1, 0, ""), th, 0, StateNormal},
		{"one node, False: Full", statuses(0, 1, conditions.False), th, 1, StateFullDisruption},
		{"Unknown and missing count as not ready", []conditions.Status{conditions.Unknown, ""}, th, 2, StateFullDisruption},
		{"unrecognised status counts as not ready", []conditions.Status{"Bogus", conditions.True}, th, 1, StateNormal},
		{"2 nodes, 1 down: never Partial", statuses(1, 1, conditions.False), th, 1, StateNormal},
		{"3 nodes with 2 not ready is Normal (needs more than 2)", statuses(1, 2, conditions.Unknown), th, 2, StateNormal},
		{"3 nodes all not ready is Full", statuses(0, 3, conditions.Unknown), th, 3, StateFullDisruption},
		{"4 nodes with 3 not ready is Partial (0.75)", statuses(1, 3, conditions.Unknown), th, 3, StatePartialDisruption},
		{"20 with 11 is Partial at 0.55 (float32, inclusive)", statuses(9, 11, conditions.False), th, 11, StatePartialDisruption},
		{"20 with 10 is Normal (0.5)", statuses(10, 10, conditions.False), th, 10, StateNormal},
		{"5 with 3 is Partial (0.6)", statuses(2, 3, conditions.False), th, 3, StatePartialDisruption},
		{"100 with 54 is Normal (0.54)", statuses(46, 54, conditions.False), th, 54, StateNormal},
		{"threshold 0: any 3 not ready is Partial", statuses(97, 3, conditions.False), 0, 3, StatePartialDisruption},
		{"threshold 1: 4 of 5 is Normal", statuses(1, 4, conditions.False), 1, 4, StateNormal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, s := ComputeZoneState(tc.ready, tc.threshold)
			if n != tc.notReady || s != tc.want {
				t.Fatalf("ComputeZoneState = (%d, %s), want (%d, %s)", n, s, tc.notReady, tc.want)
			}
		})
	}
}

// The 0.55 boundary holds only in float32: in float64, 11/20 = 0.55 is
// below float32(0.55) = 0.550000011920929.
func TestComputeZoneStateFloat32(t *testing.T) {
	if float64(11)/20 >= float64(DefaultUnhealthyZoneThreshold) {
		t.Fatal("test premise: float64 division would already pass")
	}
	if _, s := ComputeZoneState(statuses(9, 11, conditions.Unknown), DefaultUnhealthyZoneThreshold); s != StatePartialDisruption {
		t.Fatalf("got %s", s)
	}
}

// setLimiterInZone with the default rate functions (reference §1.5).
func TestZoneRate(t *testing.T) {
	c := DefaultConfig()
	for _, tc := range []struct {
		name  string
		state ZoneState
		size  int
		want  float64
	}{
		{"Normal: --node-eviction-rate", StateNormal, 10, 0.1},
		{"Partial, zone larger than 50: secondary rate", StatePartialDisruption, 51, 0.01},
		{"Partial, zone of exactly 50: stop (strict >)", StatePartialDisruption, 50, 0},
		{"Partial, small zone: stop", StatePartialDisruption, 4, 0},
		{"Full while others are not: normal rate (PR #112502 closed)", StateFullDisruption, 3, 0.1},
		{"Initial: the rate a new queue starts with", StateInitial, 0, 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.ZoneRate(tc.state, tc.size); got != tc.want {
				t.Fatalf("ZoneRate = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	c := Config{NodeEvictionRate: -1, SecondaryNodeEvictionRate: nan(), LargeClusterSizeThreshold: -5, LargeClusterSizeBy: 7, UnhealthyZoneThreshold: 1.5}
	err := c.Validate()
	if !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"NodeEvictionRate -1", "SecondaryNodeEvictionRate NaN", "LargeClusterSizeThreshold -5", "LargeClusterSizeBy SizeBasis(7)", "UnhealthyZoneThreshold 1.5"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if _, err := c.PlanDisruption(nil, nil); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("PlanDisruption with an invalid config: %v", err)
	}
}

// zoneNodes builds n nodes of zone z, the first notReady of them with the
// given status and the rest True.
func zoneNodes(z string, n, notReady int, s conditions.Status) []ZoneNode {
	out := make([]ZoneNode, n)
	for i := range out {
		out[i] = ZoneNode{Name: z + "-" + string(rune('a'+i/26)) + string(rune('a'+i%26)), Zone: z, Ready: conditions.True}
		if i < notReady {
			out[i].Ready = s
		}
	}
	return out
}

func cluster(parts ...[]ZoneNode) []ZoneNode {
	var out []ZoneNode
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// zoneSummary is the part of a ZonePlan the tables check.
type zoneSummary struct {
	Zone            string
	Previous, State ZoneState
	Rate            float64
	SetRate         bool
}

func summarize(p DisruptionPlan) []zoneSummary {
	var out []zoneSummary
	for _, z := range p.Zones {
		out = append(out, zoneSummary{z.Zone, z.Previous, z.State, z.Rate, z.SetRate})
	}
	return out
}

func mustPlan(t *testing.T, c Config, prev map[string]ZoneStatus, nodes []ZoneNode) DisruptionPlan {
	t.Helper()
	p, err := c.PlanDisruption(prev, nodes)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A scripted sequence through every branch of handleDisruption.
func TestPlanDisruptionSequence(t *testing.T) {
	c := DefaultConfig()
	steps := []struct {
		name       string
		nodes      []ZoneNode
		transition Transition
		strip      bool
		reset      bool
		want       []zoneSummary
	}{
		{"first pass: new zones go Initial -> Normal and are set to 0.1",
			cluster(zoneNodes("a", 60, 0, ""), zoneNodes("b", 60, 0, "")), TransitionNone, false, false,
			[]zoneSummary{{"a", StateInitial, StateNormal, 0.1, true}, {"b", StateInitial, StateNormal, 0.1, true}}},
		{"zone b of 60 is partially disrupted: secondary rate 0.01; a untouched",
			cluster(zoneNodes("a", 60, 0, ""), zoneNodes("b", 60, 40, conditions.Unknown)), TransitionNone, false, false,
			[]zoneSummary{{"a", StateNormal, StateNormal, 0.1, false}, {"b", StateNormal, StatePartialDisruption, 0.01, true}}},
		{"zone b still partial but down to 50 nodes: the limiter is not touched",
			cluster(zoneNodes("a", 60, 0, ""), zoneNodes("b", 50, 40, conditions.Unknown)), TransitionNone, false, false,
			[]zoneSummary{{"a", StateNormal, StateNormal, 0.1, false}, {"b", StatePartialDisruption, StatePartialDisruption, 0.01, false}}},
		{"zone b fully disrupted while a is not: b tainted at the normal rate",
			cluster(zoneNodes("a", 60, 0, ""), zoneNodes("b", 50, 50, conditions.Unknown)), TransitionNone, false, false,
			[]zoneSummary{{"a", StateNormal, StateNormal, 0.1, false}, {"b", StatePartialDisruption, StateFullDisruption, 0.1, true}}},
		{"every zone fully disrupted: enter full disruption, all rates 0, strip taints",
			cluster(zoneNodes("a", 60, 60, conditions.Unknown), zoneNodes("b", 50, 50, conditions.Unknown)), TransitionEnterFullDisruption, true, false,
			[]zoneSummary{{"a", StateNormal, StateFullDisruption, 0, true}, {"b", StateFullDisruption, StateFullDisruption, 0, true}}},
		{"still all fully disrupted: nothing changes",
			cluster(zoneNodes("a", 60, 60, conditions.Unknown), zoneNodes("b", 50, 50, conditions.False)), TransitionStayFullDisruption, false, false,
			[]zoneSummary{{"a", StateFullDisruption, StateFullDisruption, 0, false}, {"b", StateFullDisruption, StateFullDisruption, 0, false}}},
		{"a recovers: leave full disruption, every zone set for its state, probes reset",
			cluster(zoneNodes("a", 60, 0, ""), zoneNodes("b", 50, 50, conditions.False)), TransitionExitFullDisruption, false, true,
			[]zoneSummary{{"a", StateFullDisruption, StateNormal, 0.1, true}, {"b", StateFullDisruption, StateFullDisruption, 0.1, true}}},
		{"b recovers: back to Normal at 0.1",
			cluster(zoneNodes("a", 60, 0, ""), zoneNodes("b", 50, 0, "")), TransitionNone, false, false,
			[]zoneSummary{{"a", StateNormal, StateNormal, 0.1, false}, {"b", StateFullDisruption, StateNormal, 0.1, true}}},
	}
	var prev map[string]ZoneStatus
	for _, st := range steps {
		p := mustPlan(t, c, prev, st.nodes)
		if p.Transition != st.transition || p.StripNoExecuteTaints != st.strip || p.ResetProbes != st.reset {
			t.Fatalf("%s: transition %q strip %v reset %v", st.name, p.Transition, p.StripNoExecuteTaints, p.ResetProbes)
		}
		if d := cmp.Diff(st.want, summarize(p)); d != "" {
			t.Fatalf("%s (-want +got):\n%s", st.name, d)
		}
		prev = p.Next
	}
}

// A partially disrupted zone of 50 nodes or fewer stops tainting.
func TestPlanDisruptionSmallPartialZoneStops(t *testing.T) {
	c := DefaultConfig()
	p := mustPlan(t, c, nil, cluster(zoneNodes("a", 10, 0, ""), zoneNodes("b", 50, 30, conditions.False)))
	if z, _ := p.Zone("b"); z.State != StatePartialDisruption || z.Rate != 0 || !z.SetRate {
		t.Fatalf("zone b: %+v", z)
	}
	if _, ok := p.Zone("c"); ok {
		t.Fatal("Zone found a zone that has no nodes")
	}
}

// kubernetes#102908: the large-cluster threshold is compared with the zone's
// size; SizeCluster compares the cluster's.
func TestPlanDisruptionLargeClusterSizeBy(t *testing.T) {
	nodes := cluster(zoneNodes("a", 30, 0, ""), zoneNodes("b", 30, 20, conditions.Unknown), zoneNodes("c", 30, 0, ""))
	c := DefaultConfig()
	if z, _ := mustPlan(t, c, nil, nodes).Zone("b"); z.State != StatePartialDisruption || z.Rate != 0 {
		t.Fatalf("SizeZone: %+v", z)
	}
	c.LargeClusterSizeBy = SizeCluster
	if z, _ := mustPlan(t, c, nil, nodes).Zone("b"); z.Rate != 0.01 {
		t.Fatalf("SizeCluster (90 nodes > 50): %+v", z)
	}
}

// kubernetes#128528: a ready control-plane node keeps its zone out of full
// disruption; excluding it with the label lets the zone go Full, and a
// single Full zone enters full disruption.
func TestPlanDisruptionExcludedNodes(t *testing.T) {
	c := DefaultConfig()
	nodes := []ZoneNode{
		{Name: "cp", Zone: "z", Ready: conditions.True},
		{Name: "w1", Zone: "z", Ready: conditions.Unknown},
		{Name: "w2", Zone: "z", Ready: conditions.Unknown},
	}
	prev := map[string]ZoneStatus{"z": {StateNormal, 0.1}}
	if p := mustPlan(t, c, prev, nodes); p.Transition != TransitionNone || p.Zones[0].State != StateNormal {
		t.Fatalf("with the control plane counted: %+v", p)
	}
	nodes[0].Excluded = true
	p := mustPlan(t, c, prev, nodes)
	if p.Transition != TransitionEnterFullDisruption || p.Zones[0].Size != 2 || p.Zones[0].NotReady != 2 {
		t.Fatalf("with the control plane excluded: %+v", p)
	}
}

// Vanished zones are forgotten; a new zone that appears fully disrupted
// while every other zone already is re-enters full disruption, because a
// new zone starts Initial (upstream quirk).
func TestPlanDisruptionZoneBookkeeping(t *testing.T) {
	c := DefaultConfig()
	prev := map[string]ZoneStatus{"a": {StateFullDisruption, 0}, "gone": {StateNormal, 0.1}}
	p := mustPlan(t, c, prev, cluster(zoneNodes("a", 3, 3, conditions.Unknown), zoneNodes("new", 2, 2, conditions.Unknown)))
	if d := cmp.Diff([]string{"gone"}, p.Removed); d != "" {
		t.Fatalf("Removed (-want +got):\n%s", d)
	}
	if _, ok := p.Next["gone"]; ok {
		t.Fatal("vanished zone kept in Next")
	}
	if p.Transition != TransitionEnterFullDisruption || !p.StripNoExecuteTaints {
		t.Fatalf("transition %q", p.Transition)
	}
	// No counted node at all: "all fully disrupted" before and now, nothing
	// to do.
	p = mustPlan(t, c, nil, []ZoneNode{{Name: "x", Zone: "a", Excluded: true}})
	if p.Transition != TransitionStayFullDisruption || len(p.Zones) != 0 || len(p.Next) != 0 {
		t.Fatalf("no counted nodes: %+v", p)
	}
}

// openyurtio/openyurt#2713: KeepProbesOnExit leaves probes alone when
// leaving full disruption.
func TestPlanDisruptionKeepProbesOnExit(t *testing.T) {
	c := DefaultConfig()
	c.KeepProbesOnExit = true
	prev := map[string]ZoneStatus{"a": {StateFullDisruption, 0}}
	p := mustPlan(t, c, prev, zoneNodes("a", 3, 0, ""))
	if p.Transition != TransitionExitFullDisruption || p.ResetProbes {
		t.Fatalf("%+v", p)
	}
	if !strings.Contains(p.Zones[0].Message, `zone "a": 0 of 3 nodes not ready, FullDisruption -> Normal`) {
		t.Fatalf("message %q", p.Zones[0].Message)
	}
}

func TestEnumStrings(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{SizeZone.String(), "zone"}, {SizeCluster.String(), "cluster"}, {SizeBasis(-1).String(), "SizeBasis(-1)"},
		{AnchorObserved.String(), "observed"}, {AnchorTaintAdded.String(), "taint-added"}, {Anchor(9).String(), "Anchor(9)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
