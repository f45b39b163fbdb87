package taints

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/conditions"
)

func noSched(key string) Taint { return Taint{Key: key, Effect: TaintEffectNoSchedule} }

// The §1.8 table of doNoScheduleTaintingPass.
func TestFromConditions(t *testing.T) {
	c := func(ty conditions.Type, s conditions.Status) conditions.Condition {
		return conditions.Condition{Type: ty, Status: s}
	}
	tests := []struct {
		name          string
		conds         []conditions.Condition
		unschedulable bool
		want          []Taint
	}{
		{"healthy node", []conditions.Condition{c(conditions.Ready, conditions.True), c(conditions.MemoryPressure, conditions.False)}, false, nil},
		{"Ready False: not-ready", []conditions.Condition{c(conditions.Ready, conditions.False)}, false, []Taint{noSched(TaintNodeNotReady)}},
		{"Ready Unknown: unreachable", []conditions.Condition{c(conditions.Ready, conditions.Unknown)}, false, []Taint{noSched(TaintNodeUnreachable)}},
		{"MemoryPressure True", []conditions.Condition{c(conditions.MemoryPressure, conditions.True)}, false, []Taint{noSched(TaintNodeMemoryPressure)}},
		{"DiskPressure True", []conditions.Condition{c(conditions.DiskPressure, conditions.True)}, false, []Taint{noSched(TaintNodeDiskPressure)}},
		{"PIDPressure True", []conditions.Condition{c(conditions.PIDPressure, conditions.True)}, false, []Taint{noSched(TaintNodePIDPressure)}},
		{"NetworkUnavailable True", []conditions.Condition{c(conditions.NetworkUnavailable, conditions.True)}, false, []Taint{noSched(TaintNodeNetworkUnavailable)}},
		{"pressure Unknown gives nothing", []conditions.Condition{c(conditions.DiskPressure, conditions.Unknown)}, false, nil},
		{"unknown type or status gives nothing", []conditions.Condition{c("KernelDeadlock", conditions.True), c(conditions.Ready, "Maybe")}, false, nil},
		{"unschedulable comes last", []conditions.Condition{c(conditions.PIDPressure, conditions.True)}, true, []Taint{noSched(TaintNodePIDPressure), noSched(TaintNodeUnschedulable)}},
		{"condition order is kept", []conditions.Condition{c(conditions.DiskPressure, conditions.True), c(conditions.Ready, conditions.Unknown)}, false,
			[]Taint{noSched(TaintNodeDiskPressure), noSched(TaintNodeUnreachable)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, FromConditions(tc.conds, tc.unschedulable)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestReconcileConditionTaints(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	node := []Taint{
		noSched(TaintNodeNotReady),                                                 // stale: Ready is now Unknown
		{Key: TaintNodeNotReady, Effect: TaintEffectNoExecute},                     // NoExecute: not this pass's business
		{Key: "example.com/dedicated", Value: "db", Effect: TaintEffectNoSchedule}, // foreign key: untouched
		{Key: TaintNodeDiskPressure, Value: "x", Effect: TaintEffectNoSchedule},    // value ignored: kept
	}
	conds := []conditions.Condition{{Type: conditions.Ready, Status: conditions.Unknown}, {Type: conditions.DiskPressure, Status: conditions.True}}
	add, remove := ReconcileConditionTaints(now, node, conds, true)
	wantAdd := []Taint{{Key: TaintNodeUnreachable, Effect: TaintEffectNoSchedule, TimeAdded: now}, {Key: TaintNodeUnschedulable, Effect: TaintEffectNoSchedule, TimeAdded: now}}
	if d := cmp.Diff(wantAdd, add); d != "" {
		t.Errorf("add (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]Taint{noSched(TaintNodeNotReady)}, remove); d != "" {
		t.Errorf("remove (-want +got):\n%s", d)
	}
	if add, remove := ReconcileConditionTaints(now, Apply(node, add, remove), conds, true); add != nil || remove != nil {
		t.Errorf("not idempotent: %v %v", add, remove)
	}
}
