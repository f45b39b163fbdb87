package shutdown

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/coretest"
	"github.com/nodelife/nodelife/taints"
)

func oosPod(name string, created float64, deleting bool, phase core.PodPhase) core.Pod {
	p := core.Pod{Namespace: "ns", Name: name, UID: "uid-" + name, Phase: phase, CreationTimestamp: at(created)}
	if deleting {
		del := at(1000)
		p.DeletionTimestamp = &del
	}
	return p
}

var oosTaint = taints.Taint{Key: "node.kubernetes.io/out-of-service", Value: "nodeshutdown", Effect: taints.TaintEffectNoExecute}

func forceNames(fs []ForceDeletion) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Pod.Name)
	}
	return out
}

func TestOutOfServiceForceDelete(t *testing.T) {
	evicted := oosPod("evicted", 50, true, core.PodFailed)
	evicted.Reason = "Evicted"
	pods := []core.Pod{
		oosPod("young", 30, true, core.PodRunning),
		oosPod("old", 10, true, core.PodRunning),
		oosPod("alive", 5, false, core.PodRunning), // not terminating: left to the taint eviction controller
		evicted,
		oosPod("b-same-age", 20, true, core.PodSucceeded),
		oosPod("a-same-age", 20, true, core.PodFailed),
	}
	down := core.Node{Name: "n1", Conditions: coretest.Ready(conditions.Unknown), Taints: []taints.Taint{oosTaint}}
	tests := []struct {
		name string
		node core.Node
		want []string
	}{
		{"upstream order: evicted, then oldest, then name", down, []string{"evicted", "old", "a-same-age", "b-same-age", "young"}},
		{"NotReady False counts", core.Node{Conditions: coretest.Ready(conditions.False), Taints: []taints.Taint{oosTaint}}, []string{"evicted", "old", "a-same-age", "b-same-age", "young"}},
		{"no Ready condition counts as not ready", core.Node{Taints: []taints.Taint{oosTaint}}, []string{"evicted", "old", "a-same-age", "b-same-age", "young"}},
		{"only the key counts: NoSchedule, other value", core.Node{Conditions: coretest.Ready(conditions.Unknown), Taints: []taints.Taint{{Key: "node.kubernetes.io/out-of-service", Effect: taints.TaintEffectNoSchedule}}}, []string{"evicted", "old", "a-same-age", "b-same-age", "young"}},
		{"Ready node: nothing", core.Node{Conditions: coretest.Ready(conditions.True), Taints: []taints.Taint{oosTaint}}, nil},
		{"no taint: nothing", core.Node{Conditions: coretest.Ready(conditions.Unknown), Taints: []taints.Taint{{Key: "node.kubernetes.io/unreachable", Effect: taints.TaintEffectNoExecute}}}, nil},
	}
	for _, tt := range tests {
		p := OutOfServiceConfig{}.Plan(at(2000), tt.node, pods, nil)
		if diff := cmp.Diff(tt.want, forceNames(p.ForceDelete)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	p := OutOfServiceConfig{}.Plan(at(2000), down, pods, nil)
	failed := map[string]bool{}
	for _, f := range p.ForceDelete {
		failed[f.Pod.Name] = f.SetFailed
	}
	want := map[string]bool{"evicted": false, "old": true, "a-same-age": false, "b-same-age": false, "young": true}
	if diff := cmp.Diff(want, failed); diff != "" {
		t.Errorf("SetFailed: phase Failed first unless Succeeded or Failed (-want +got):\n%s", diff)
	}
	if !p.OutOfService || !p.NotReady {
		t.Errorf("plan flags %+v", p)
	}
}

// The seed: pods are force deleted "if there are no matching tolerations";
// upstream's pod GC ignores tolerations. SkipTolerating follows the seed.
func TestOutOfServiceTolerations(t *testing.T) {
	tol := oosPod("tolerates", 1, true, core.PodRunning)
	tol.Tolerations = []taints.Toleration{{Key: "node.kubernetes.io/out-of-service", Operator: taints.TolerationOpExists}}
	other := oosPod("other", 2, true, core.PodRunning)
	node := core.Node{Conditions: coretest.Ready(conditions.Unknown), Taints: []taints.Taint{oosTaint}}
	if got := forceNames(OutOfServiceConfig{}.Plan(at(0), node, []core.Pod{tol, other}, nil).ForceDelete); !cmp.Equal(got, []string{"tolerates", "other"}) {
		t.Errorf("upstream: %v, want both", got)
	}
	if got := forceNames(OutOfServiceConfig{SkipTolerating: true}.Plan(at(0), node, []core.Pod{tol, other}, nil).ForceDelete); !cmp.Equal(got, []string{"other"}) {
		t.Errorf("SkipTolerating: %v, want [other]", got)
	}
}

func TestOutOfServiceVolumes(t *testing.T) {
	pods := []core.Pod{oosPod("db", 1, true, core.PodRunning), oosPod("web", 2, false, core.PodRunning)}
	vols := []AttachedVolume{
		{Name: "db-data", MountedByNode: true, Pods: []string{"ns/db"}},
		{Name: "web-data", MountedByNode: true, Pods: []string{"ns/web"}},
		{Name: "gone-unmounted", Pods: []string{"ns/gone"}},
		{Name: "gone-mounted", MountedByNode: true, Pods: []string{"ns/gone"}, UnneededSince: at(0)},
		{Name: "gone-mounted-long", MountedByNode: true, Pods: []string{"ns/gone"}, UnneededSince: at(-361)},
		{Name: "gone-mounted-exactly-6m", MountedByNode: true, Pods: []string{"ns/gone"}, UnneededSince: at(-360)},
		{Name: "shared", MountedByNode: true, Pods: []string{"ns/db", "ns/web"}},
	}
	oos := core.Node{Conditions: coretest.Ready(conditions.Unknown), Taints: []taints.Taint{oosTaint}}
	unhealthy := core.Node{Conditions: coretest.Ready(conditions.Unknown)}
	healthy := core.Node{Conditions: coretest.Ready(conditions.True)}
	now := at(0)
	tests := []struct {
		name string
		cfg  OutOfServiceConfig
		node core.Node
		want []VolumeDecision
	}{
		{"out of service: detach at once", OutOfServiceConfig{}, oos, []VolumeDecision{
			{"db-data", VolumeDetachNow, time.Time{}, ReasonOutOfService},
			{"web-data", VolumeKeep, time.Time{}, ReasonVolumeInUse},
			{"gone-unmounted", VolumeDetachNow, time.Time{}, ReasonVolumeUnmounted},
			{"gone-mounted", VolumeDetachNow, time.Time{}, ReasonOutOfService},
			{"gone-mounted-long", VolumeDetachNow, time.Time{}, ReasonOutOfService},
			{"gone-mounted-exactly-6m", VolumeDetachNow, time.Time{}, ReasonOutOfService},
			{"shared", VolumeKeep, time.Time{}, ReasonVolumeInUse},
		}},
		{"unhealthy without the taint: 6 minute force-detach timeout", OutOfServiceConfig{}, unhealthy, []VolumeDecision{
			{"db-data", VolumeKeep, time.Time{}, ReasonVolumeInUse}, // not force deleted: db still exists
			{"web-data", VolumeKeep, time.Time{}, ReasonVolumeInUse},
			{"gone-unmounted", VolumeDetachNow, time.Time{}, ReasonVolumeUnmounted},
			{"gone-mounted", VolumeDetachAfter, at(360), ReasonForceDetachTimeout},
			{"gone-mounted-long", VolumeDetachNow, at(-1), ReasonForceDetachTimeout},
			{"gone-mounted-exactly-6m", VolumeDetachAfter, at(0), ReasonForceDetachTimeout}, // elapsed must exceed 6m
			{"shared", VolumeKeep, time.Time{}, ReasonVolumeInUse},
		}},
		{"healthy node: wait for the unmount", OutOfServiceConfig{}, healthy, []VolumeDecision{
			{"db-data", VolumeKeep, time.Time{}, ReasonVolumeInUse},
			{"web-data", VolumeKeep, time.Time{}, ReasonVolumeInUse},
			{"gone-unmounted", VolumeDetachNow, time.Time{}, ReasonVolumeUnmounted},
			{"gone-mounted", VolumeWaitForUnmount, time.Time{}, ReasonNodeHealthy},
			{"gone-mounted-long", VolumeWaitForUnmount, time.Time{}, ReasonNodeHealthy},
			{"gone-mounted-exactly-6m", VolumeWaitForUnmount, time.Time{}, ReasonNodeHealthy},
			{"shared", VolumeKeep, time.Time{}, ReasonVolumeInUse},
		}},
		{"--disable-force-detach-on-timeout", OutOfServiceConfig{DisableForceDetachOnTimeout: true}, unhealthy, []VolumeDecision{
			{"db-data", VolumeKeep, time.Time{}, ReasonVolumeInUse},
			{"web-data", VolumeKeep, time.Time{}, ReasonVolumeInUse},
			{"gone-unmounted", VolumeDetachNow, time.Time{}, ReasonVolumeUnmounted},
			{"gone-mounted", VolumeWaitForUnmount, time.Time{}, ReasonForceDetachOff},
			{"gone-mounted-long", VolumeWaitForUnmount, time.Time{}, ReasonForceDetachOff},
			{"gone-mounted-exactly-6m", VolumeWaitForUnmount, time.Time{}, ReasonForceDetachOff},
			{"shared", VolumeKeep, time.Time{}, ReasonVolumeInUse},
		}},
		{"custom wait, zero UnneededSince means now", OutOfServiceConfig{MaxWaitForUnmount: time.Minute}, unhealthy, []VolumeDecision{
			{"db-data", VolumeKeep, time.Time{}, ReasonVolumeInUse},
			{"web-data", VolumeKeep, time.Time{}, ReasonVolumeInUse},
			{"gone-unmounted", VolumeDetachNow, time.Time{}, ReasonVolumeUnmounted},
			{"gone-mounted", VolumeDetachAfter, at(60), ReasonForceDetachTimeout},
			{"gone-mounted-long", VolumeDetachNow, at(-301), ReasonForceDetachTimeout},
			{"gone-mounted-exactly-6m", VolumeDetachNow, at(-300), ReasonForceDetachTimeout},
			{"shared", VolumeKeep, time.Time{}, ReasonVolumeInUse},
		}},
	}
	for _, tt := range tests {
		p := tt.cfg.Plan(now, tt.node, pods, vols)
		if diff := cmp.Diff(tt.want, p.Volumes); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// "gone-mounted" with no UnneededSince on the unhealthy node: the
	// timeout counts from now.
	p := OutOfServiceConfig{}.Plan(now, unhealthy, nil, []AttachedVolume{{Name: "v", MountedByNode: true}})
	if got := p.Volumes[0]; got.Action != VolumeDetachAfter || !got.At.Equal(at(360)) {
		t.Errorf("zero UnneededSince: %+v", got)
	}
}
