package nodelifecycle

import (
	"testing"
	"time"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/taints"
)

// Karmada's cluster taint manager decides, for a binding on a cluster,
// whether to evict it now, after a time, or never: its table
// (karmada-io/karmada pkg/controllers/cluster/taint_manager_test.go,
// TestNoExecuteTaintManager_needEvictionWithCurrentTime; rows named as
// there) ported against the Controller, a cluster as a node and a binding
// as a pod bound to it, with tolerationSeconds counted from the taint's
// TimeAdded (eviction.AnchorTaintAdded, Karmada's). Karmada's "evict now"
// (true, 0) is a KindEvict at once, "wait" (false, d) a KindSchedule due
// d later, "tolerated" (false, -1) no action. Its
// --enable-no-execute-taint-eviction off is NoTaintEviction. Three rows
// test Karmada's reading of its applied-placement annotation (missing,
// malformed, empty: errors); nodelife takes the tolerations as they are
// and has no such rows.
func TestKarmadaNeedEvictionWithCurrentTime(t *testing.T) {
	const src = "karmada taint_manager_test.go TestNoExecuteTaintManager_needEvictionWithCurrentTime"
	fixed := time.Date(2025, 9, 23, 12, 0, 0, 0, time.UTC)
	ago, later := fixed.Add(-time.Second), fixed.Add(time.Second)
	secs := func(n int64) *int64 { return &n }
	taint := func(key string, effect taints.Effect, added time.Time) taints.Taint {
		return taints.Taint{Key: key, Effect: effect, TimeAdded: added}
	}
	tol := func(key string, s *int64) taints.Toleration {
		return taints.Toleration{Key: key, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: s}
	}
	const never = time.Duration(-1)
	rows := []struct {
		name          string
		noCluster     bool
		taints        []taints.Taint
		tolerations   []taints.Toleration
		evictionOff   bool
		needEviction  bool
		tolerationFor time.Duration
	}{
		{name: "cluster not found", noCluster: true, tolerationFor: never},
		{name: "no execute taint eviction disabled", taints: []taints.Taint{taint("test-key", taints.TaintEffectNoExecute, time.Time{})}, evictionOff: true, tolerationFor: never},
		{name: "cluster has no NoExecute taints", taints: []taints.Taint{taint("test-key", taints.TaintEffectNoSchedule, time.Time{})}, tolerationFor: never},
		{name: "taint not tolerated - immediate eviction", taints: []taints.Taint{taint("test-key", taints.TaintEffectNoExecute, ago)}, needEviction: true},
		{name: "taint tolerated with zero toleration seconds - immediate eviction", taints: []taints.Taint{taint("test-key", taints.TaintEffectNoExecute, ago)},
			tolerations: []taints.Toleration{tol("test-key", secs(0))}, needEviction: true},
		{name: "taint tolerated with positive toleration seconds - wait for toleration time", taints: []taints.Taint{taint("test-key", taints.TaintEffectNoExecute, ago)},
			tolerations: []taints.Toleration{tol("test-key", secs(60))}, tolerationFor: 59 * time.Second},
		{name: "taint tolerated forever - no eviction", taints: []taints.Taint{taint("test-key", taints.TaintEffectNoExecute, ago)},
			tolerations: []taints.Toleration{tol("test-key", nil)}, tolerationFor: never},
		{name: "multiple taints with mixed tolerations", taints: []taints.Taint{taint("tolerated-key", taints.TaintEffectNoExecute, later), taint("not-tolerated-key", taints.TaintEffectNoExecute, ago)},
			tolerations: []taints.Toleration{tol("tolerated-key", secs(30))}, needEviction: true},
		{name: "toleration time expired - immediate eviction", taints: []taints.Taint{taint("test-key", taints.TaintEffectNoExecute, fixed.Add(-2*time.Second))},
			tolerations: []taints.Toleration{tol("test-key", secs(1))}, needEviction: true},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.NoExecute.Anchor = eviction.AnchorTaintAdded
			cfg.NoTaintEviction = r.evictionOff
			c := newScenario(t, cfg)
			if !r.noCluster {
				c.UpsertNode(core.Node{Name: "test-cluster", Conditions: readyAt(fixed), Taints: r.taints})
				c.UpsertLease(Lease{Node: "test-cluster", RenewTime: fixed})
			}
			c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "binding", UID: "u", NodeName: "test-cluster", Tolerations: r.tolerations}))
			var need bool
			wait := never
			for _, a := range c.StepAll(fixed).Actions {
				switch a.Kind {
				case KindEvict:
					need, wait = true, 0
				case KindSchedule:
					wait = a.Due.Sub(fixed)
				}
			}
			if need != r.needEviction || wait != r.tolerationFor {
				t.Errorf("%s: needEviction %v, toleration %v; want %v, %v", src, need, wait, r.needEviction, r.tolerationFor)
			}
		})
	}
}
