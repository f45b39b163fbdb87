package nodelifetest

import (
	"fmt"
	"slices"
	"time"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/lease"
	"github.com/nodelife/nodelife/taints"
)

// ConditionTypes returns the node condition types the kubelet posts, a
// new slice on each call.
func ConditionTypes() []conditions.Type {
	return []conditions.Type{conditions.Ready, conditions.MemoryPressure, conditions.DiskPressure, conditions.PIDPressure, conditions.NetworkUnavailable}
}

// Statuses returns the three condition statuses, a new slice on each call.
func Statuses() []conditions.Status {
	return []conditions.Status{conditions.True, conditions.False, conditions.Unknown}
}

// Conditions draws one node condition of a kubelet type: any status, a
// heartbeat up to 90 s before o.Now and a transition up to an hour before
// the heartbeat, a reason for Ready. Without o.Valid about one in eight
// has an empty or unknown type or status.
func Conditions(o Options) *rapid.Generator[conditions.Condition] {
	return rapid.Custom(func(t *rapid.T) conditions.Condition {
		c := conditions.Condition{Type: rapid.SampledFrom(ConditionTypes()).Draw(t, "type"), Status: rapid.SampledFrom(Statuses()).Draw(t, "status")}
		if !o.Valid && rare(t, 8, "odd") {
			c.Type = rapid.SampledFrom([]conditions.Type{"", "Bogus", c.Type}).Draw(t, "oddType")
			c.Status = rapid.SampledFrom([]conditions.Status{"", "Maybe", c.Status}).Draw(t, "oddStatus")
		}
		c.LastHeartbeatTime = ago(t, o.now(), 90, "heartbeatAgo")
		c.LastTransitionTime = ago(t, c.LastHeartbeatTime, 3600, "transitionAgo")
		if c.Type == conditions.Ready {
			c.Reason = rapid.SampledFrom([]string{conditions.ReasonKubeletReady, "KubeletNotReady", conditions.ReasonNodeStatusUnknown}).Draw(t, "reason")
		}
		return c
	})
}

// zoneNames are the zones nodes are spread over, in order.
var zoneNames = []string{"a", "b", "c", "d", "e", "f", "g", "h"}

func (o Options) zones(t *rapid.T) []string {
	n := o.Zones
	if n <= 0 {
		n = rapid.IntRange(1, 3).Draw(t, "zones")
	}
	if n > len(zoneNames) {
		n = len(zoneNames)
	}
	return zoneNames[:n]
}

// Nodes draws lists of 1 to o.MaxNodes nodes as the node lifecycle
// controller takes them, named n0, n1, ..., spread over o's zones in
// region r, created up to an hour before o.Now (half of them within two
// minutes, in reach of the startup grace). About one in eight has no zone
// label and one in ten is excluded from disruption; the Ready condition is missing on one in
// eight (a node that never posted), otherwise any status with a heartbeat
// up to 90 s old; some carry MemoryPressure, the controller's own taints,
// a user's NoExecute taint, or are cordoned.
func Nodes(o Options) *rapid.Generator[[]core.Node] {
	return rapid.Custom(func(t *rapid.T) []core.Node {
		zones := o.zones(t)
		nodes := make([]core.Node, rapid.IntRange(1, o.maxNodes()).Draw(t, "nodes"))
		for i := range nodes {
			nodes[i] = drawNode(t, o, fmt.Sprintf("n%d", i), zones)
		}
		return nodes
	})
}

func drawNode(t *rapid.T, o Options, name string, zones []string) core.Node {
	now := o.now()
	n := core.Node{Name: name, UID: "uid-" + name, CreationTimestamp: ago(t, now, 3600, "age")}
	if rapid.Bool().Draw(t, "young") {
		n.CreationTimestamp = ago(t, now, 120, "youngAge") // within reach of the startup grace
	}
	switch {
	case rare(t, 8, "unlabeled"):
	case rare(t, 10, "excluded"):
		n.Labels = map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: rapid.SampledFrom(zones).Draw(t, "zone"), eviction.LabelNodeExcludeDisruption: ""}
	default:
		n.Labels = map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: rapid.SampledFrom(zones).Draw(t, "zone")}
	}
	if !rare(t, 8, "neverPosted") {
		st := rapid.SampledFrom(Statuses()).Draw(t, "ready")
		hb := ago(t, now, 90, "heartbeatAgo")
		n.Conditions = []conditions.Condition{{Type: conditions.Ready, Status: st, LastHeartbeatTime: hb, LastTransitionTime: hb.Add(-time.Minute)}}
		if rare(t, 4, "memoryPressure") {
			n.Conditions = append(n.Conditions, conditions.Condition{Type: conditions.MemoryPressure, Status: conditions.True, LastHeartbeatTime: hb, LastTransitionTime: hb})
		}
	}
	for _, tt := range []taints.Taint{
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute},
		{Key: taints.TaintNodeNotReady, Effect: taints.TaintEffectNoExecute},
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoSchedule},
		{Key: taints.TaintNodeNotReady, Effect: taints.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "db", Effect: taints.TaintEffectNoExecute},
	} {
		if rare(t, 6, "taint "+tt.Key+string(tt.Effect)) {
			tt.TimeAdded = ago(t, now, 60, "taintAgo")
			n.Taints = append(n.Taints, tt)
		}
	}
	n.Unschedulable = rare(t, 6, "unschedulable")
	return n
}

// OneNode draws one node as Nodes does, named from names (n0 when there
// are none), so that a sequence of draws upserts the same nodes again.
func OneNode(o Options, names ...string) *rapid.Generator[core.Node] {
	if len(names) == 0 {
		names = []string{"n0"}
	}
	return rapid.Custom(func(t *rapid.T) core.Node {
		return drawNode(t, o, rapid.SampledFrom(names).Draw(t, "name"), o.zones(t))
	})
}

// Leases draws kube-node-lease Lease objects as the lease package reads
// them: a holder, duration and renew time on most, each field missing on
// some, durations of 0 and negative without o.Valid, renewals up to two
// minutes before o.Now.
func Leases(o Options) *rapid.Generator[lease.Lease] {
	return rapid.Custom(func(t *rapid.T) lease.Lease {
		name := fmt.Sprintf("n%d", rapid.IntRange(0, 9).Draw(t, "node"))
		l := lease.Lease{Namespace: lease.NodeLeaseNamespace, Name: name}
		if !rare(t, 8, "noHolder") {
			l.HolderIdentity = ptr(name)
		}
		if !rare(t, 8, "noDuration") {
			lo := int32(1)
			if !o.Valid {
				lo = -5
			}
			l.LeaseDurationSeconds = ptr(rapid.SampledFrom([]int32{lo, 0, 1, 15, 40, 60}).Draw(t, "duration"))
		}
		if !rare(t, 8, "neverRenewed") {
			l.RenewTime = ptr(ago(t, o.now(), 120, "renewAgo"))
			l.AcquireTime = ptr(ago(t, *l.RenewTime, 3600, "acquireAgo"))
		}
		return l
	})
}

// ZoneNodes draws the nodes the disruption planner counts: up to o.MaxNodes
// (9 by default) named n0, n1, ..., in zone "" (unlabeled) or one of
// three, Ready True, False, Unknown or missing (""), about one in ten
// excluded from disruption.
func ZoneNodes(o Options) *rapid.Generator[[]eviction.ZoneNode] {
	return rapid.Custom(func(t *rapid.T) []eviction.ZoneNode {
		nodes := make([]eviction.ZoneNode, rapid.IntRange(0, o.maxNodes()).Draw(t, "nodes"))
		for i := range nodes {
			nodes[i] = eviction.ZoneNode{Name: fmt.Sprintf("n%d", i), Zone: rapid.SampledFrom([]string{"", "a", "b", "c"}).Draw(t, "zone"),
				Ready:    rapid.SampledFrom(append(slices.Clone(Statuses()), "")).Draw(t, "ready"),
				Excluded: rare(t, 10, "excluded")}
		}
		return nodes
	})
}

// Schedules draws the taint eviction planner's existing schedule for a
// pod: none half the time, else created up to 200 s after o.Now and due
// 0-600 s after its creation.
func Schedules(o Options) *rapid.Generator[*eviction.Scheduled] {
	return rapid.Custom(func(t *rapid.T) *eviction.Scheduled {
		if !rapid.Bool().Draw(t, "scheduled") {
			return nil
		}
		c := o.now().Add(time.Duration(rapid.IntRange(0, 200).Draw(t, "created")) * time.Second)
		return &eviction.Scheduled{CreatedAt: c, At: c.Add(time.Duration(rapid.IntRange(0, 600).Draw(t, "delay")) * time.Second)}
	})
}

// NoExecuteConfigs draws the taint eviction planner's options: either
// anchor, re-planning on toleration edits or not.
func NoExecuteConfigs() *rapid.Generator[eviction.NoExecuteConfig] {
	return rapid.Custom(func(t *rapid.T) eviction.NoExecuteConfig {
		return eviction.NoExecuteConfig{Anchor: rapid.SampledFrom([]eviction.Anchor{eviction.AnchorObserved, eviction.AnchorTaintAdded}).Draw(t, "anchor"),
			Replan: rapid.Bool().Draw(t, "replan")}
	})
}
