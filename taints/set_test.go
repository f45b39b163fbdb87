package taints

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	tA  = Taint{Key: "a", Value: "1", Effect: TaintEffectNoSchedule}
	tA2 = Taint{Key: "a", Value: "2", Effect: TaintEffectNoSchedule}
	tAX = Taint{Key: "a", Value: "1", Effect: TaintEffectNoExecute}
	tB  = Taint{Key: "b", Effect: TaintEffectNoExecute}
	tC  = Taint{Key: "c", Effect: TaintEffectPreferNoSchedule}
)

// TaintExists, DeleteTaint, DeleteTaintsByKey, TaintSetDiff and
// AddOrUpdateTaint of pkg/util/taints compare by (key, effect).
func TestSetHelpers(t *testing.T) {
	ts := []Taint{tA, tAX, tB}
	if !Exists(ts, tA2) {
		t.Error("Exists ignores the value: a=2:NoSchedule should be found")
	}
	if Exists(ts, tC) {
		t.Error("c:PreferNoSchedule found in a list without it")
	}

	got, removed := Delete(ts, tA2)
	if !removed || !cmp.Equal(got, []Taint{tAX, tB}) {
		t.Errorf("Delete(a:NoSchedule) = %v, %v", got, removed)
	}
	got, removed = Delete(ts, tC)
	if removed || !cmp.Equal(got, ts) {
		t.Errorf("Delete of an absent taint = %v, %v", got, removed)
	}
	got, removed = DeleteByKey(ts, "a")
	if !removed || !cmp.Equal(got, []Taint{tB}) {
		t.Errorf("DeleteByKey(a) = %v, %v", got, removed)
	}
	got, removed = DeleteByKey([]Taint{tA}, "a")
	if !removed || got != nil {
		t.Errorf("deleting the only taint = %#v, %v; want nil, true", got, removed)
	}
	if !cmp.Equal(ts, []Taint{tA, tAX, tB}) {
		t.Errorf("input was modified: %v", ts)
	}
	if got := Filter(ts, func(x Taint) bool { return x.Effect == TaintEffectNoExecute }); !cmp.Equal(got, []Taint{tAX, tB}) {
		t.Errorf("Filter(NoExecute) = %v", got)
	}
}

func TestAddOrUpdate(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	withTime := tB
	withTime.TimeAdded = t0
	tests := []struct {
		name    string
		in      []Taint
		add     Taint
		want    []Taint
		updated bool
	}{
		{"add to empty", nil, tA, []Taint{tA}, true},
		{"append a new key", []Taint{tB}, tA, []Taint{tB, tA}, true},
		{"same key, other effect is a new taint", []Taint{tA}, tAX, []Taint{tA, tAX}, true},
		{"replace the value in place", []Taint{tB, tA, tC}, tA2, []Taint{tB, tA2, tC}, true},
		{"identical taint: no update", []Taint{tB, tA}, tA, []Taint{tB, tA}, false},
		{"a new TimeAdded is an update", []Taint{tB}, withTime, []Taint{withTime}, true},
		{"the same instant in another zone is not an update", []Taint{withTime}, Taint{Key: "b", Effect: TaintEffectNoExecute, TimeAdded: t0.In(time.FixedZone("x", 3600))}, []Taint{withTime}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]Taint(nil), tc.in...)
			got, updated := AddOrUpdate(tc.in, tc.add)
			if updated != tc.updated {
				t.Errorf("updated = %v, want %v", updated, tc.updated)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if !cmp.Equal(in, tc.in) {
				t.Errorf("input modified")
			}
		})
	}
}

func TestDiffAndApply(t *testing.T) {
	tests := []struct {
		name        string
		old, new    []Taint
		add, remove []Taint
	}{
		{"both empty", nil, nil, nil, nil},
		{"all new", nil, []Taint{tA, tB}, []Taint{tA, tB}, nil},
		{"all gone", []Taint{tA, tB}, nil, nil, []Taint{tA, tB}},
		{"value change is not a difference (key, effect)", []Taint{tA}, []Taint{tA2}, nil, nil},
		{"effect change is remove + add", []Taint{tA}, []Taint{tAX}, []Taint{tAX}, []Taint{tA}},
		{"mixed, each list in its own order", []Taint{tC, tA, tB}, []Taint{tB, tAX, tA}, []Taint{tAX}, []Taint{tC}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			add, remove := Diff(tc.old, tc.new)
			if d := cmp.Diff(tc.add, add); d != "" {
				t.Errorf("add (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.remove, remove); d != "" {
				t.Errorf("remove (-want +got):\n%s", d)
			}
		})
	}

	// Apply with a key-only removal (ParseTaints "a-") drops every effect.
	got := Apply([]Taint{tA, tB, tAX}, []Taint{tC}, []Taint{{Key: "a"}})
	if d := cmp.Diff([]Taint{tB, tC}, got); d != "" {
		t.Errorf("Apply(a-, +c) (-want +got):\n%s", d)
	}
	// Removal, then addition: removing and re-adding the same taint keeps it.
	got = Apply([]Taint{tA}, []Taint{tA2}, []Taint{tA})
	if d := cmp.Diff([]Taint{tA2}, got); d != "" {
		t.Errorf("Apply(remove a, add a=2) (-want +got):\n%s", d)
	}
}
