package eviction

import (
	"errors"
	"fmt"

	"github.com/nodelife/nodelife/internal/enum"
)

// Upstream defaults of the kube-controller-manager flags that govern
// eviction rates (cmd/kube-controller-manager, nodelifecycle config).
const (
	// DefaultNodeEvictionRate is --node-eviction-rate: nodes tainted per
	// second in a zone that is Normal, or fully disrupted while another
	// zone is not.
	DefaultNodeEvictionRate = 0.1
	// DefaultSecondaryNodeEvictionRate is --secondary-node-eviction-rate:
	// nodes tainted per second in a partially disrupted large zone.
	DefaultSecondaryNodeEvictionRate = 0.01
	// DefaultLargeClusterSizeThreshold is --large-cluster-size-threshold:
	// a partially disrupted zone with more counted nodes than this is
	// tainted at the secondary rate; a smaller one not at all.
	DefaultLargeClusterSizeThreshold = 50
	// DefaultUnhealthyZoneThreshold is --unhealthy-zone-threshold: the
	// not-ready fraction at which a zone of three or more not-ready nodes
	// is PartialDisruption.
	DefaultUnhealthyZoneThreshold float32 = 0.55
)

// SizeBasis says which node count LargeClusterSizeThreshold is compared with.
type SizeBasis int

const (
	// SizeZone compares the zone's counted nodes with the threshold, as
	// upstream does despite the flag's name (kubernetes#102908,
	// kubernetes#119499; upstream changed the help text in PR #119500).
	SizeZone SizeBasis = iota
	// SizeCluster compares the counted nodes of the whole cluster, as the
	// flag's name suggests.
	SizeCluster
)

// String returns "zone" or "cluster".
func (b SizeBasis) String() string { return enum.Name(b, "SizeBasis", "zone", "cluster") }

// Config holds the node lifecycle controller's eviction settings. The zero
// value is not useful (every rate is 0); start from DefaultConfig.
type Config struct {
	// NodeEvictionRate is the tainting rate, in nodes per second per zone,
	// of a Normal zone and of a fully disrupted zone while some other zone
	// is not (--node-eviction-rate, 0.1). 0 stops tainting.
	NodeEvictionRate float64
	// SecondaryNodeEvictionRate is the rate of a partially disrupted zone
	// larger than LargeClusterSizeThreshold (--secondary-node-eviction-rate,
	// 0.01).
	SecondaryNodeEvictionRate float64
	// LargeClusterSizeThreshold (--large-cluster-size-threshold, 50): a
	// partially disrupted zone is tainted at the secondary rate only when
	// its size is strictly greater, else not at all.
	LargeClusterSizeThreshold int
	// LargeClusterSizeBy selects the size compared with the threshold:
	// SizeZone (upstream) or SizeCluster.
	LargeClusterSizeBy SizeBasis
	// UnhealthyZoneThreshold is the not-ready fraction, in [0, 1], that
	// makes a zone with more than two not-ready nodes PartialDisruption
	// (--unhealthy-zone-threshold, 0.55).
	UnhealthyZoneThreshold float32
	// KeepProbesOnExit, when true, leaves the nodes' probe timestamps alone
	// when the cluster leaves full disruption. Upstream resets every node's
	// probe and transition timestamps to now, which grants dead nodes a
	// fresh grace period and lets a flapping cluster postpone their
	// tainting indefinitely (openyurtio/openyurt#2713).
	KeepProbesOnExit bool
	// Zones overrides the rates and thresholds above for some zones, each
	// named by its zone key (ZoneKey, or a key of the caller's own such as
	// an edge node pool's name); the other zones use the fields above.
	// Upstream has one set for the whole cluster.
	// (With it, Config cannot be compared with ==.)
	Zones []ZoneOverride
}

// ZoneOverride is one zone's own rates and thresholds; a nil field keeps
// the Config's.
type ZoneOverride struct {
	// Zone is the zone's key.
	Zone                      string
	NodeEvictionRate          *float64
	SecondaryNodeEvictionRate *float64
	LargeClusterSizeThreshold *int
	UnhealthyZoneThreshold    *float32
}

// ForZone returns the config zone's nodes are judged by: c with zone's
// override applied, and no overrides.
func (c Config) ForZone(zone string) Config {
	zs := c.Zones
	c.Zones = nil
	for i := range zs {
		o := &zs[i]
		if o.Zone != zone {
			continue
		}
		if o.NodeEvictionRate != nil {
			c.NodeEvictionRate = *o.NodeEvictionRate
		}
		if o.SecondaryNodeEvictionRate != nil {
			c.SecondaryNodeEvictionRate = *o.SecondaryNodeEvictionRate
		}
		if o.LargeClusterSizeThreshold != nil {
			c.LargeClusterSizeThreshold = *o.LargeClusterSizeThreshold
		}
		if o.UnhealthyZoneThreshold != nil {
			c.UnhealthyZoneThreshold = *o.UnhealthyZoneThreshold
		}
		break
	}
	return c
}

// DefaultConfig returns the upstream defaults.
func DefaultConfig() Config {
	return Config{
		NodeEvictionRate:          DefaultNodeEvictionRate,
		SecondaryNodeEvictionRate: DefaultSecondaryNodeEvictionRate,
		LargeClusterSizeThreshold: DefaultLargeClusterSizeThreshold,
		LargeClusterSizeBy:        SizeZone,
		UnhealthyZoneThreshold:    DefaultUnhealthyZoneThreshold,
	}
}

// Validate returns every problem with c, each naming its field and value,
// joined; nil if c is usable.
func (c Config) Validate() error {
	var errs []error
	if err := checkRate("NodeEvictionRate", c.NodeEvictionRate); err != nil {
		errs = append(errs, err)
	}
	if err := checkRate("SecondaryNodeEvictionRate", c.SecondaryNodeEvictionRate); err != nil {
		errs = append(errs, err)
	}
	if c.LargeClusterSizeThreshold < 0 {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("LargeClusterSizeThreshold %d is negative", c.LargeClusterSizeThreshold)))
	}
	if c.LargeClusterSizeBy != SizeZone && c.LargeClusterSizeBy != SizeCluster {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("LargeClusterSizeBy %v is neither SizeZone nor SizeCluster", c.LargeClusterSizeBy)))
	}
	if t := c.UnhealthyZoneThreshold; !(t >= 0 && t <= 1) {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("UnhealthyZoneThreshold %v is not a fraction in [0, 1]", t)))
	}
	seen := map[string]int{}
	for i, o := range c.Zones {
		f := fmt.Sprintf("Zones[%d]", i)
		if j, ok := seen[o.Zone]; ok {
			errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("%s zone %q is already Zones[%d]'s", f, ZoneName(o.Zone), j)))
			continue
		}
		seen[o.Zone] = i
		if o.NodeEvictionRate != nil {
			if err := checkRate(f+".NodeEvictionRate", *o.NodeEvictionRate); err != nil {
				errs = append(errs, err)
			}
		}
		if o.SecondaryNodeEvictionRate != nil {
			if err := checkRate(f+".SecondaryNodeEvictionRate", *o.SecondaryNodeEvictionRate); err != nil {
				errs = append(errs, err)
			}
		}
		if o.LargeClusterSizeThreshold != nil && *o.LargeClusterSizeThreshold < 0 {
			errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("%s.LargeClusterSizeThreshold %d is negative", f, *o.LargeClusterSizeThreshold)))
		}
		if o.UnhealthyZoneThreshold != nil {
			if t := *o.UnhealthyZoneThreshold; !(t >= 0 && t <= 1) {
				errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("%s.UnhealthyZoneThreshold %v is not a fraction in [0, 1]", f, t)))
			}
		}
	}
	return errors.Join(errs...)
}

// checkRate rejects rates that are negative, NaN or infinite.
func checkRate(field string, r float64) error {
	if validRate(r) {
		return nil
	}
	return wrap(ErrInvalidConfig, fmt.Sprintf("%s %v must be a finite number of nodes per second >= 0", field, r))
}

// ZoneRate returns the tainting rate, in nodes per second, of a zone in
// state, as upstream's setLimiterInZone with its default rate functions:
//
//   - Normal: NodeEvictionRate;
//   - PartialDisruption: SecondaryNodeEvictionRate if size is greater than
//     LargeClusterSizeThreshold, else 0 (tainting stops);
//   - FullDisruption: NodeEvictionRate, so that a dead zone's pods move
//     elsewhere quickly (PR #112502, which proposed 0, was closed);
//   - Initial: NodeEvictionRate, the rate a new zone's queue starts with.
//
// size is the zone's counted nodes, or the cluster's under SizeCluster.
// This is the rate while some zone is not fully disrupted; when all are,
// PlanDisruption sets every zone to 0.
func (c Config) ZoneRate(state ZoneState, size int) float64 {
	if state == StatePartialDisruption {
		if size > c.LargeClusterSizeThreshold {
			return c.SecondaryNodeEvictionRate
		}
		return 0
	}
	return c.NodeEvictionRate
}
