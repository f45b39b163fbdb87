package eviction

import (
	"testing"
	"time"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// Karmada's cluster taint manager counts tolerationSeconds from the
// taint's TimeAdded, nodelife's AnchorTaintAdded. Its helper's own table
// (karmada-io/karmada pkg/util/helper/taint_test.go,
// TestGetMinTolerationTimeWithCurrentTime; each row is named as there) is
// ported against Plan: Karmada's -1 (tolerated for ever) is no eviction,
// its 0 an eviction now, a positive time an eviction scheduled that much
// later. Karmada's rows list only the tolerations that match ("used"); a
// pod here has those. One row differs: Karmada skips a taint without
// TimeAdded (its code says this "should not happen") and so tolerates it
// for ever, where nodelife counts its seconds from the observation, as
// upstream's taint manager counts every taint's.
func TestKarmadaMinTolerationTime(t *testing.T) {
	now := time.Date(2025, 9, 23, 12, 0, 0, 0, time.UTC)
	secs := func(n int64) *int64 { return &n }
	taint := func(key string, added time.Time) taints.Taint {
		return taints.Taint{Key: key, Value: "v", Effect: taints.TaintEffectNoExecute, TimeAdded: added}
	}
	tol := func(key string, s *int64) taints.Toleration {
		return taints.Toleration{Key: key, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: s}
	}
	cfg := NoExecuteConfig{Anchor: AnchorTaintAdded}
	for _, c := range []struct {
		name   string
		taints []taints.Taint
		tols   []taints.Toleration
		action NoExecuteAction
		at     time.Time
	}{
		{"no noExecuteTaints", nil, []taints.Toleration{tol("key", secs(60))}, NoExecuteNone, time.Time{}},
		{"no usedTolerations", []taints.Taint{taint("key", now)}, nil, NoExecuteEvictNow, now},
		{"with noExecuteTaints and usedTolerations", []taints.Taint{taint("key", now)}, []taints.Toleration{tol("key", secs(60))}, NoExecuteSchedule, now.Add(time.Minute)},
		{"usedTolerantion.TolerationSeconds is nil", []taints.Taint{taint("key", now)}, []taints.Toleration{tol("key", nil)}, NoExecuteNone, time.Time{}},
		// Karmada: -1, tolerated for ever; nodelife: 60 s from now.
		{"noExecuteTaints.TimeAdded is nil", []taints.Taint{taint("key", time.Time{})}, []taints.Toleration{tol("key", secs(60))}, NoExecuteSchedule, now.Add(time.Minute)},
		{"find the latest trigger time", []taints.Taint{taint("key1", now), taint("key2", now)},
			[]taints.Toleration{tol("key1", secs(120)), tol("key2", secs(60))}, NoExecuteSchedule, now.Add(time.Minute)},
		{"trigger time is up", []taints.Taint{taint("key", now.Add(-2*time.Minute))}, []taints.Toleration{tol("key", secs(60))}, NoExecuteEvictNow, now},
	} {
		d := cfg.Plan(now, c.taints, core.Pod{Namespace: "ns", Name: "p", UID: "u", Tolerations: c.tols}, nil)
		if d.Action != c.action || !d.At.Equal(c.at) {
			t.Errorf("karmada %q: %s at %v (%s), want %s at %v", c.name, d.Action, d.At, d.Reason, c.action, c.at)
		}
	}
}
