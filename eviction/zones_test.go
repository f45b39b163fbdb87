package eviction

import (
	"errors"
	"strings"
	"testing"
)

// A zone of its own: "edge" judges its nodes with a threshold of 0.9, taints
// at 0.5 node/s and has a large-cluster threshold of 2; "cloud" keeps the
// defaults (0.55, 0.1, 50). Both have 3 of 5 nodes not ready (60%). Worked
// out: cloud is PartialDisruption (at least 55% and more than two), and,
// with 5 nodes not more than 50, stops tainting (rate 0); edge is Normal
// (60% < 90%), tainting at its own 0.5. Then edge, 5 of 5 not ready, is
// fully disrupted (cloud is not, so its rate is its NodeEvictionRate,
// 0.5); with 4 of 5 (80% < 90%) it would be Normal again.
func TestZoneOverrides(t *testing.T) {
	half, ninety, two := 0.5, float32(0.9), 2
	cfg := DefaultConfig()
	cfg.Zones = []ZoneOverride{{Zone: "edge", NodeEvictionRate: &half, UnhealthyZoneThreshold: &ninety, LargeClusterSizeThreshold: &two}}
	p, err := cfg.PlanZones(nil, []ZoneCount{{Zone: "cloud", Ready: 2, NotReady: 3}, {Zone: "edge", Ready: 2, NotReady: 3}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ZoneStatus{"cloud": {StatePartialDisruption, 0}, "edge": {StateNormal, 0.5}}
	for z, w := range want {
		if got := p.Next[z]; got != w {
			t.Errorf("zone %s: %+v, want %+v", z, got, w)
		}
	}
	p, _ = cfg.PlanZones(p.Next, []ZoneCount{{Zone: "cloud", Ready: 2, NotReady: 3}, {Zone: "edge", Ready: 0, NotReady: 5}})
	if got := p.Next["edge"]; got != (ZoneStatus{StateFullDisruption, 0.5}) {
		t.Errorf("edge fully down: %+v", got)
	}
	// With edge's threshold at 0.5, 3 of its 4 nodes not ready (75%, more
	// than two) is PartialDisruption; 4 nodes are more than its own
	// large-cluster threshold of 2: the secondary rate, the Config's 0.01.
	low := float32(0.5)
	cfg.Zones[0].UnhealthyZoneThreshold = &low
	p, _ = cfg.PlanZones(nil, []ZoneCount{{Zone: "cloud", Ready: 5}, {Zone: "edge", Ready: 1, NotReady: 3}})
	if got := p.Next["edge"]; got != (ZoneStatus{StatePartialDisruption, 0.01}) {
		t.Errorf("edge partially down: %+v", got)
	}
	// The tainter's new queue of edge starts at edge's rate.
	tn, err := NewNoExecuteTainter(cfg, QueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := tn.Queue("edge").Rate(); r != 0.5 {
		t.Errorf("edge queue rate %v", r)
	}
	if r := tn.Queue("cloud").Rate(); r != float64(float32(0.1)) { // the limiter keeps float32, as upstream's
		t.Errorf("cloud queue rate %v", r)
	}
}

func TestZoneOverridesValidate(t *testing.T) {
	neg, nan, big, negN := -1.0, float32(1.5), float32(2), -3
	cfg := DefaultConfig()
	cfg.Zones = []ZoneOverride{
		{Zone: "a", NodeEvictionRate: &neg, UnhealthyZoneThreshold: &nan},
		{Zone: "a"},
		{Zone: "b", LargeClusterSizeThreshold: &negN, UnhealthyZoneThreshold: &big, SecondaryNodeEvictionRate: &neg},
	}
	err := cfg.Validate()
	if !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("%v", err)
	}
	for _, w := range []string{"Zones[0].NodeEvictionRate -1", "Zones[0].UnhealthyZoneThreshold 1.5", `Zones[1] zone "a" is already Zones[0]'s`,
		"Zones[2].LargeClusterSizeThreshold -3", "Zones[2].UnhealthyZoneThreshold 2", "Zones[2].SecondaryNodeEvictionRate -1"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v\nwants %q", err, w)
		}
	}
}
