package admission

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/release"
)

// A pod mid-resize on a 4-cpu node: container a shrinks from 2 cpus to 1,
// b grows from 1 to 2, both allocated and neither actuated yet. v1.37
// counts the larger of the sums, 3 cpus, and admits a new pod asking 1;
// v1.36 counts the larger per container, 2 + 2, and refuses it with
// OutOfcpu (requested 1000, used 4000, capacity 4000).
func TestAdmitCountsResizeStatus(t *testing.T) {
	cpu := func(v string) core.ResourceList {
		return core.ResourceList{core.ResourceCPU: resource.MustParse(v)}
	}
	resized := &core.Pod{Namespace: "ns", Name: "resized", UID: "resized",
		Containers: []core.Container{{Name: "a", Resources: core.ResourceRequirements{Requests: cpu("1")}},
			{Name: "b", Resources: core.ResourceRequirements{Requests: cpu("2")}}},
		Resize: &core.ResizeStatus{Containers: []core.ContainerResizeStatus{
			{Name: "a", Allocated: cpu("1"), Actuated: &core.ResourceRequirements{Requests: cpu("2")}},
			{Name: "b", Allocated: cpu("2"), Actuated: &core.ResourceRequirements{Requests: cpu("1")}}}}}
	node := core.Node{Name: "n", Allocatable: core.ResourceList{core.ResourceCPU: resource.MustParse("4"),
		core.ResourcePods: resource.MustParse("110")}}
	newPod := &core.Pod{Namespace: "ns", Name: "new", UID: "new",
		Containers: []core.Container{{Name: "c", Resources: core.ResourceRequirements{Requests: cpu("1")}}}}
	for _, tc := range []struct {
		opts    Options
		used    int64
		admit   bool
		reason  string
		message string
	}{
		{Options{}, 3000, true, "", ""},
		{OptionsFor(release.V1_36), 4000, false, "OutOfcpu", "Node didn't have enough resource: cpu, requested: 1000, used: 4000, capacity: 4000"},
	} {
		ni := NewNodeInfo(node, tc.opts, resized)
		d := ni.Admit(newPod)
		if d.Admit != tc.admit || d.Reason != tc.reason || d.Message != tc.message {
			t.Errorf("ResizePerContainer=%v: Admit %v %q %q, want %v %q %q", tc.opts.ResizePerContainer,
				d.Admit, d.Reason, d.Message, tc.admit, tc.reason, tc.message)
		}
		if got, _ := ni.Requested(core.ResourceCPU); got != tc.used {
			t.Errorf("ResizePerContainer=%v: Requested(cpu) = %d, want %d", tc.opts.ResizePerContainer, got, tc.used)
		}
		if !ni.RemovePod("resized") {
			t.Fatal("RemovePod: not found")
		}
		if got, _ := ni.Requested(core.ResourceCPU); got != 0 {
			t.Errorf("ResizePerContainer=%v: Requested(cpu) after the removal = %d, want 0", tc.opts.ResizePerContainer, got)
		}
	}
}

func TestOptionsFor(t *testing.T) {
	if got := OptionsFor(release.V1_37); got != (Options{}) {
		t.Errorf("OptionsFor(1.37) = %+v, want the zero value", got)
	}
	want := Options{QOSOptions: cgroup.QOSOptions{DisablePodLevelResourcesFixKubeletQOSClass: true, SumContainersQOS: true, ResizePerContainer: true}}
	if got := OptionsFor(release.V1_36); got != want {
		t.Errorf("OptionsFor(1.36) = %+v, want %+v", got, want)
	}
}
