package core

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/taints"
)

// The first Ready condition counts, as upstream's GetNodeCondition finds
// it; the statuses other than True are all not ready (IsNodeReady).
func TestNodeReady(t *testing.T) {
	ready := func(s conditions.Status) conditions.Condition {
		return conditions.Condition{Type: conditions.Ready, Status: s}
	}
	for _, tc := range []struct {
		name   string
		conds  []conditions.Condition
		status conditions.Status
		ready  bool
	}{
		{"none", nil, "", false},
		{"other types only", []conditions.Condition{{Type: conditions.MemoryPressure, Status: conditions.True}}, "", false},
		{"True", []conditions.Condition{ready(conditions.True)}, conditions.True, true},
		{"False", []conditions.Condition{ready(conditions.False)}, conditions.False, false},
		{"Unknown", []conditions.Condition{ready(conditions.Unknown)}, conditions.Unknown, false},
		{"a status the API does not know", []conditions.Condition{ready("Maybe")}, "Maybe", false},
		{"first of two counts", []conditions.Condition{{Type: conditions.DiskPressure, Status: conditions.False}, ready(conditions.False), ready(conditions.True)}, conditions.False, false},
	} {
		n := Node{Conditions: tc.conds}
		if got := n.ReadyStatus(); got != tc.status {
			t.Errorf("%s: ReadyStatus %q, want %q", tc.name, got, tc.status)
		}
		if got := n.Ready(); got != tc.ready {
			t.Errorf("%s: Ready %v, want %v", tc.name, got, tc.ready)
		}
	}
}

func TestNodeHasTaintKey(t *testing.T) {
	n := Node{Taints: []taints.Taint{{Key: "a", Effect: taints.TaintEffectNoExecute}, {Key: "b", Value: "v", Effect: taints.TaintEffectNoSchedule}}}
	for key, want := range map[string]bool{"a": true, "b": true, "v": false, "": false, "A": false} {
		if got := n.HasTaintKey(key); got != want {
			t.Errorf("HasTaintKey(%q) = %v, want %v", key, got, want)
		}
	}
	if (&Node{}).HasTaintKey("") {
		t.Error("a node without taints has the empty key")
	}
}

func TestPod(t *testing.T) {
	del := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		pod                      Pod
		key                      string
		deleting, evicted, ended bool
	}{
		{Pod{}, "/", false, false, false},
		{Pod{Namespace: "ns", Name: "p", Phase: PodRunning, DeletionTimestamp: &del}, "ns/p", true, false, false},
		{Pod{Namespace: "ns", Name: "p", Phase: PodFailed, Reason: "Evicted"}, "ns/p", false, true, true},
		{Pod{Namespace: "ns", Name: "p", Phase: PodFailed, Reason: "evicted"}, "ns/p", false, false, true},
		{Pod{Namespace: "ns", Name: "p", Phase: PodSucceeded, Reason: "Evicted"}, "ns/p", false, false, true},
		{Pod{Namespace: "ns", Name: "p", Phase: PodUnknown}, "ns/p", false, false, false},
		{Pod{Namespace: "ns", Name: "p", Phase: ""}, "ns/p", false, false, false},
	} {
		p := tc.pod
		if got := p.Key(); got != tc.key {
			t.Errorf("%+v: Key %q, want %q", p, got, tc.key)
		}
		if got := p.Deleting(); got != tc.deleting {
			t.Errorf("%+v: Deleting %v", p, got)
		}
		if got := p.Evicted(); got != tc.evicted {
			t.Errorf("%+v: Evicted %v", p, got)
		}
		if got := p.Phase.Terminated(); got != tc.ended {
			t.Errorf("%+v: Terminated %v", p, got)
		}
	}
}

// TestIsCritical pins the kubelet's IsCriticalPod: a static pod (a config
// source other than the API server), a mirror pod, or a priority of at
// least 2 * 10^9.
func TestIsCritical(t *testing.T) {
	prio := func(v int32) *int32 { return &v }
	for _, tc := range []struct {
		p    Pod
		want bool
	}{
		{Pod{}, false},
		{Pod{Annotations: map[string]string{ConfigSourceAnnotation: SourceFile}}, true},
		{Pod{Annotations: map[string]string{ConfigSourceAnnotation: SourceHTTP}}, true},
		{Pod{Annotations: map[string]string{ConfigSourceAnnotation: SourceAPIServer}}, false},
		{Pod{Annotations: map[string]string{ConfigMirrorAnnotation: ""}}, true},
		{Pod{Priority: prio(1999999999)}, false},
		{Pod{Priority: prio(2000000000)}, true},
		{Pod{Priority: prio(2000001000)}, true},
	} {
		if got := tc.p.IsCritical(); got != tc.want {
			t.Errorf("%+v: IsCritical %v, want %v", tc.p, got, tc.want)
		}
	}
}

// TestLocalEphemeral pins upstream's IsLocalEphemeralVolume: gitRepo,
// configMap, and emptyDir on the default medium only.
func TestLocalEphemeral(t *testing.T) {
	for _, tc := range []struct {
		v    Volume
		want bool
	}{
		{Volume{}, false},
		{Volume{Source: VolumeGitRepo}, true},
		{Volume{Source: VolumeConfigMap}, true},
		{Volume{Source: VolumeEmptyDir}, true},
		{Volume{Source: VolumeEmptyDir, EmptyDir: &EmptyDirVolumeSource{}}, true},
		{Volume{Source: VolumeEmptyDir, EmptyDir: &EmptyDirVolumeSource{Medium: StorageMediumMemory}}, false},
		{Volume{Source: VolumeEmptyDir, EmptyDir: &EmptyDirVolumeSource{Medium: StorageMediumHugePages}}, false},
		{Volume{Source: VolumeHostPath}, false}, // on the node's disk, but not the pod's: the eviction manager adds it itself
		{Volume{Source: "secret"}, false},
		{Volume{Source: "persistentVolumeClaim"}, false},
	} {
		if got := tc.v.LocalEphemeral(); got != tc.want {
			t.Errorf("%+v: LocalEphemeral %v, want %v", tc.v, got, tc.want)
		}
	}
}

// TestPodLevelResourcesSet pins component-helpers' IsPodLevelResourcesSet:
// cpu, memory or a huge page size in the pod-level requests or limits.
func TestPodLevelResourcesSet(t *testing.T) {
	one := resource.MustParse("1")
	for _, tc := range []struct {
		r    *ResourceRequirements
		want bool
	}{
		{nil, false},
		{&ResourceRequirements{}, false},
		{&ResourceRequirements{Requests: ResourceList{ResourceCPU: one}}, true},
		{&ResourceRequirements{Limits: ResourceList{ResourceMemory: one}}, true},
		{&ResourceRequirements{Limits: ResourceList{"hugepages-2Mi": one}}, true},
		{&ResourceRequirements{Requests: ResourceList{ResourceEphemeralStorage: one}}, false},
		{&ResourceRequirements{Requests: ResourceList{"nvidia.com/gpu": one}}, false},
	} {
		p := Pod{Resources: tc.r}
		if got := p.PodLevelResourcesSet(); got != tc.want {
			t.Errorf("%v: PodLevelResourcesSet %v, want %v", tc.r, got, tc.want)
		}
	}
}

// The huge pages of a list are its hugepages-* entries of every size;
// memory and other resources do not count, and the sum saturates.
func TestHugePagesBytes(t *testing.T) {
	q := resource.MustParse
	for _, tc := range []struct {
		list ResourceList
		want int64
	}{
		{nil, 0},
		{ResourceList{ResourceMemory: q("8Gi"), ResourceCPU: q("4")}, 0},
		{ResourceList{"hugepages-2Mi": q("1Gi"), "hugepages-1Gi": q("2Gi"), ResourceMemory: q("8Gi")}, 3 << 30},
		{ResourceList{"hugepages-2Mi": q("4Ei"), "hugepages-1Gi": q("4Ei")}, 1<<63 - 1},
	} {
		if got := tc.list.HugePagesBytes(); got != tc.want {
			t.Errorf("%v: HugePagesBytes = %d, want %d", tc.list, got, tc.want)
		}
	}
}

// A pod's controller is the owner reference marked so, wherever it is in
// the list; an owner not marked controller is not one.
func TestControllerRef(t *testing.T) {
	yes, no := true, false
	p := Pod{OwnerReferences: []metav1.OwnerReference{{Kind: "ConfigMap", Name: "c", Controller: &no}, {Kind: "ReplicaSet", Name: "rs", Controller: &yes}}}
	if r := p.ControllerRef(); r == nil || r.Name != "rs" {
		t.Errorf("ControllerRef = %+v, want the ReplicaSet", r)
	}
	p.OwnerReferences = p.OwnerReferences[:1]
	if r := p.ControllerRef(); r != nil {
		t.Errorf("ControllerRef = %+v, want none", r)
	}
}
