package eviction

import (
	"strings"

	"github.com/nodelife/nodelife/conditions"
)

// Node labels that place a node in a failure zone (k8s.io/api/core/v1).
const (
	// LabelTopologyZone is the GA zone label.
	LabelTopologyZone = "topology.kubernetes.io/zone"
	// LabelTopologyRegion is the GA region label.
	LabelTopologyRegion = "topology.kubernetes.io/region"
	// LabelFailureDomainBetaZone is the deprecated beta zone label. When
	// present it wins over LabelTopologyZone, even with an empty value.
	LabelFailureDomainBetaZone = "failure-domain.beta.kubernetes.io/zone"
	// LabelFailureDomainBetaRegion is the deprecated beta region label. When
	// present it wins over LabelTopologyRegion, even with an empty value.
	LabelFailureDomainBetaRegion = "failure-domain.beta.kubernetes.io/region"
	// LabelNodeExcludeDisruption, when present on a node with any value,
	// leaves the node out of its zone's disruption counts.
	LabelNodeExcludeDisruption = "node.kubernetes.io/exclude-disruption"
)

// ZoneKey returns the key of the failure zone a node with these labels
// belongs to, as upstream's topology.GetZoneKey: region + ":\x00:" + zone,
// where the zone is the beta label's value if that label is present and the
// GA label's otherwise, and the region likewise, each chosen on its own. It
// returns "" when both are empty, so every unlabeled node shares zone "".
//
// The NUL byte keeps a region or zone that contains a colon from colliding
// with another pair; use ZoneName to print a key.
func ZoneKey(labels map[string]string) string {
	zone, ok := labels[LabelFailureDomainBetaZone]
	if !ok {
		zone = labels[LabelTopologyZone]
	}
	region, ok := labels[LabelFailureDomainBetaRegion]
	if !ok {
		region = labels[LabelTopologyRegion]
	}
	if region == "" && zone == "" {
		return ""
	}
	return region + zoneKeySep + zone
}

const zoneKeySep = ":\x00:"

// ZoneName returns a zone key in printable form, "region/zone", or "" for
// the zone of unlabeled nodes. A key that ZoneKey did not make is returned
// unchanged.
func ZoneName(key string) string {
	if i := strings.Index(key, zoneKeySep); i >= 0 {
		return key[:i] + "/" + key[i+len(zoneKeySep):]
	}
	return key
}

// IsExcludedFromDisruption reports whether a node with these labels carries
// LabelNodeExcludeDisruption, which keeps it out of zone-state counts
// (upstream's isNodeExcludedFromDisruptionChecks). Excluded nodes are still
// tainted and their pods still evicted.
func IsExcludedFromDisruption(labels map[string]string) bool {
	_, ok := labels[LabelNodeExcludeDisruption]
	return ok
}

// ZoneState is the health of a zone as the node lifecycle controller sees
// it; the values are upstream's.
type ZoneState string

// Zone states.
const (
	// StateInitial is the state of a zone seen for the first time, before
	// its first evaluation.
	StateInitial ZoneState = "Initial"
	// StateNormal: the zone is not disrupted.
	StateNormal ZoneState = "Normal"
	// StatePartialDisruption: more than two nodes and at least the
	// unhealthy-zone threshold of the zone's nodes are not ready.
	StatePartialDisruption ZoneState = "PartialDisruption"
	// StateFullDisruption: no node of the zone is ready.
	StateFullDisruption ZoneState = "FullDisruption"
)

// ComputeZoneState returns how many of a zone's nodes are not ready and the
// zone's state, as upstream's ComputeZoneState. ready holds one Ready
// status per counted node: True is ready; False, Unknown and "" (no Ready
// condition) are not. The rules, in order:
//
//  1. FullDisruption when no node is ready and at least one is not;
//  2. PartialDisruption when more than two nodes are not ready and the
//     not-ready fraction, in float32 as upstream, is at least
//     unhealthyThreshold (--unhealthy-zone-threshold, 0.55);
//  3. Normal otherwise, including for an empty zone.
//
// So a zone of one or two nodes is never PartialDisruption: it stays Normal
// until its last node fails, then goes FullDisruption.
func ComputeZoneState(ready []conditions.Status, unhealthyThreshold float32) (notReady int, state ZoneState) {
	for _, s := range ready {
		if s != conditions.True {
			notReady++
		}
	}
	return notReady, zoneState(len(ready)-notReady, notReady, unhealthyThreshold)
}

// zoneState applies ComputeZoneState's rules to counts.
func zoneState(readyCount, notReady int, unhealthyThreshold float32) ZoneState {
	switch {
	case readyCount == 0 && notReady > 0:
		return StateFullDisruption
	case notReady > 2 && float32(notReady)/float32(notReady+readyCount) >= unhealthyThreshold:
		return StatePartialDisruption
	}
	return StateNormal
}
