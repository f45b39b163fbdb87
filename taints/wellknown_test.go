package taints

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Keys and values of k8s.io/api/core/v1 well_known_taints.go and
// k8s.io/cloud-provider/api, spelled out so that a typo in the constants fails.
func TestWellKnownKeys(t *testing.T) {
	want := map[string]string{
		TaintNodeNotReady:           "node.kubernetes.io/not-ready",
		TaintNodeUnreachable:        "node.kubernetes.io/unreachable",
		TaintNodeUnschedulable:      "node.kubernetes.io/unschedulable",
		TaintNodeMemoryPressure:     "node.kubernetes.io/memory-pressure",
		TaintNodeDiskPressure:       "node.kubernetes.io/disk-pressure",
		TaintNodeNetworkUnavailable: "node.kubernetes.io/network-unavailable",
		TaintNodePIDPressure:        "node.kubernetes.io/pid-pressure",
		TaintNodeOutOfService:       "node.kubernetes.io/out-of-service",
		TaintExternalCloudProvider:  "node.cloudprovider.kubernetes.io/uninitialized",
		TaintNodeShutdown:           "node.cloudprovider.kubernetes.io/shutdown",
	}
	for got, w := range want {
		if got != w {
			t.Errorf("constant %q, want %q", got, w)
		}
		if err := (Taint{Key: got, Effect: TaintEffectNoSchedule}).Validate(); err != nil {
			t.Errorf("well-known key %q does not validate: %v", got, err)
		}
	}
	if len(want) != 10 {
		t.Errorf("duplicate constant values: %d distinct", len(want))
	}
}

// The DefaultTolerationSeconds admission plugin
// (plugin/pkg/admission/defaulttolerationseconds).
func TestWithDefaultTolerationSeconds(t *testing.T) {
	notReady300 := Toleration{Key: TaintNodeNotReady, Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: i64(300)}
	unreach300 := Toleration{Key: TaintNodeUnreachable, Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: i64(300)}
	own := Toleration{Key: "app", Operator: TolerationOpEqual, Value: "x", Effect: TaintEffectNoSchedule}
	tests := []struct {
		name string
		in   []Toleration
		want []Toleration
	}{
		{"no tolerations: both added with 300s", nil, []Toleration{notReady300, unreach300}},
		{"unrelated toleration kept first", []Toleration{own}, []Toleration{own, notReady300, unreach300}},
		{"own not-ready NoExecute is kept, unreachable added",
			[]Toleration{{Key: TaintNodeNotReady, Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: i64(60)}},
			[]Toleration{{Key: TaintNodeNotReady, Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: i64(60)}, unreach300}},
		{"not-ready with empty effect covers it",
			[]Toleration{{Key: TaintNodeNotReady, Operator: TolerationOpExists}},
			[]Toleration{{Key: TaintNodeNotReady, Operator: TolerationOpExists}, unreach300}},
		{"empty key and effect covers both", []Toleration{{Operator: TolerationOpExists}}, []Toleration{{Operator: TolerationOpExists}}},
		{"empty key, NoExecute covers both (operator not looked at)", []Toleration{{Value: "x", Effect: TaintEffectNoExecute}}, []Toleration{{Value: "x", Effect: TaintEffectNoExecute}}},
		{"not-ready NoSchedule does not cover NoExecute",
			[]Toleration{{Key: TaintNodeNotReady, Operator: TolerationOpExists, Effect: TaintEffectNoSchedule}},
			[]Toleration{{Key: TaintNodeNotReady, Operator: TolerationOpExists, Effect: TaintEffectNoSchedule}, notReady300, unreach300}},
		{"empty key NoSchedule covers neither",
			[]Toleration{{Operator: TolerationOpExists, Effect: TaintEffectNoSchedule}},
			[]Toleration{{Operator: TolerationOpExists, Effect: TaintEffectNoSchedule}, notReady300, unreach300}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := WithDefaultTolerationSeconds(tc.in, 300, 300)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	got := WithDefaultTolerationSeconds(nil, 30, 45)
	if *got[0].TolerationSeconds != 30 || *got[1].TolerationSeconds != 45 {
		t.Errorf("custom seconds not used: %d, %d", *got[0].TolerationSeconds, *got[1].TolerationSeconds)
	}
	if d := cmp.Diff([]Toleration{notReady300, unreach300}, DefaultNoExecuteTolerations()); d != "" {
		t.Errorf("DefaultNoExecuteTolerations (-want +got):\n%s", d)
	}
	a, b := DefaultNoExecuteTolerations(), DefaultNoExecuteTolerations()
	if a[0].TolerationSeconds == b[0].TolerationSeconds {
		t.Error("DefaultNoExecuteTolerations shares pointers between calls")
	}
}

// AddOrUpdateDaemonPodTolerations (pkg/controller/daemon/util).
func TestDaemonSetTolerations(t *testing.T) {
	exists := func(key string, e Effect) Toleration {
		return Toleration{Key: key, Operator: TolerationOpExists, Effect: e}
	}
	want := []Toleration{
		exists(TaintNodeNotReady, TaintEffectNoExecute),
		exists(TaintNodeUnreachable, TaintEffectNoExecute),
		exists(TaintNodeDiskPressure, TaintEffectNoSchedule),
		exists(TaintNodeMemoryPressure, TaintEffectNoSchedule),
		exists(TaintNodePIDPressure, TaintEffectNoSchedule),
		exists(TaintNodeUnschedulable, TaintEffectNoSchedule),
	}
	if d := cmp.Diff(want, DaemonSetTolerations(false)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	want = append(want, exists(TaintNodeNetworkUnavailable, TaintEffectNoSchedule))
	if d := cmp.Diff(want, DaemonSetTolerations(true)); d != "" {
		t.Errorf("hostNetwork (-want +got):\n%s", d)
	}
	for _, tol := range want {
		if tol.TolerationSeconds != nil {
			t.Errorf("daemon toleration %v is not infinite", tol)
		}
	}
}

func TestAddOrUpdateToleration(t *testing.T) {
	a60 := Toleration{Key: "a", Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: i64(60)}
	a90 := Toleration{Key: "a", Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: i64(90)}
	b := Toleration{Key: "b", Value: "x"}
	got, updated := AddOrUpdateToleration([]Toleration{b, a60}, a90)
	if !updated || !cmp.Equal(got, []Toleration{b, a90}) {
		t.Errorf("replacing seconds: %v, %v", got, updated)
	}
	got, updated = AddOrUpdateToleration([]Toleration{b, a60}, Toleration{Key: "a", Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: i64(60)})
	if updated || !cmp.Equal(got, []Toleration{b, a60}) {
		t.Errorf("equal toleration (by value of seconds): %v, %v", got, updated)
	}
	got, updated = AddOrUpdateToleration([]Toleration{b}, a60)
	if !updated || !cmp.Equal(got, []Toleration{b, a60}) {
		t.Errorf("append: %v, %v", got, updated)
	}
	if (Toleration{Key: "a", TolerationSeconds: i64(1)}).Equal(Toleration{Key: "a"}) {
		t.Error("nil and non-nil seconds compared equal")
	}
}
