package cgroup

import (
	"testing"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/release"
)

// status builds a container's status: allocated requests, actuated
// requests and limits (nil lists stay nil; act false: no actuated
// resources reported).
func status(name string, alloc core.ResourceList, act bool, actReqs, actLims core.ResourceList) core.ContainerResizeStatus {
	cs := core.ContainerResizeStatus{Name: name, Allocated: alloc}
	if act {
		cs.Actuated = &core.ResourceRequirements{Requests: actReqs, Limits: actLims}
	}
	return cs
}

// The resize-aware sums on both presets, worked out from the reference's
// admission row (component-helpers' resource helper with status
// resources): 1.37 takes the larger of the aggregated spec, allocated and
// actuated lists; 1.36 the larger per regular or sidecar container whose
// status reports actuated resources, then sums. Quantities are cpu in
// milliCPU and memory in bytes.
func TestEffectivePodRequests(t *testing.T) {
	twoOpposite := core.Pod{Overhead: rl("cpu", "100m"), Containers: []core.Container{
		ctr("a", rl("cpu", "1"), nil), ctr("b", rl("cpu", "2"), nil)}}
	grow := core.Pod{Containers: []core.Container{ctr("a", rl("cpu", "2"), nil), ctr("b", rl("cpu", "1"), nil)}}
	for _, tc := range []struct {
		name           string
		pod            core.Pod
		st             core.ResizeStatus
		cpu137, cpu136 int64
		mem137, mem136 int64
	}{
		// a shrinks 2 -> 1 and b grows 1 -> 2, both allocated, neither
		// actuated: 1.37 max(1+2, 1+2, 2+1) = 3; 1.36 max(1,1,2) +
		// max(2,2,1) = 4; plus the 100m overhead
		{"opposite directions", twoOpposite, core.ResizeStatus{Containers: []core.ContainerResizeStatus{
			status("a", rl("cpu", "1"), true, rl("cpu", "2"), nil),
			status("b", rl("cpu", "2"), true, rl("cpu", "1"), nil)}}, 3100, 4100, 0, 0},
		// a asks 2, was allocated and runs with 1 (deferred): 1.37
		// max(3, 2, 2) = 3; 1.36 max(2,1,1) + 1 = 3
		{"a deferred grow", grow, core.ResizeStatus{Containers: []core.ContainerResizeStatus{
			status("a", rl("cpu", "1"), true, rl("cpu", "1"), nil),
			status("b", rl("cpu", "1"), true, rl("cpu", "1"), nil)}}, 3000, 3000, 0, 0},
		// the same grow Infeasible: the spec does not count: 1.37
		// max(1+1, 1+1) = 2; 1.36 max(1,1) + max(1,1) = 2
		{"an infeasible grow", grow, core.ResizeStatus{Infeasible: true, Containers: []core.ContainerResizeStatus{
			status("a", rl("cpu", "1"), true, rl("cpu", "1"), nil),
			status("b", rl("cpu", "1"), true, rl("cpu", "1"), nil)}}, 2000, 2000, 0, 0},
		// a reports an allocation but no actuated resources, b nothing:
		// 1.37 allocated 1 + spec 1, actuated falls back the same way:
		// max(3, 2, 2) = 3; 1.36 counts both by spec: 3
		{"statuses partly missing", grow, core.ResizeStatus{Containers: []core.ContainerResizeStatus{
			status("a", rl("cpu", "1"), false, nil, nil)}}, 3000, 3000, 0, 0},
		// the same Infeasible: 1.37 counts no spec at all, b has nothing
		// else, a its allocation: max(1, 1) = 1; 1.36 still counts both
		// by spec (a reports no actuated resources): 3
		{"infeasible, statuses partly missing", grow, core.ResizeStatus{Infeasible: true, Containers: []core.ContainerResizeStatus{
			status("a", rl("cpu", "1"), false, nil, nil)}}, 1000, 3000, 0, 0},
		// a plain init container's status: 1.37 reads it (actuated 4 >
		// its spec 3), 1.36 never does: max(1, 3) = 3
		{"an init container's status", core.Pod{InitContainers: []core.Container{ctr("i", rl("cpu", "3"), nil)},
			Containers: []core.Container{ctr("a", rl("cpu", "1"), nil)}},
			core.ResizeStatus{Containers: []core.ContainerResizeStatus{status("i", rl("cpu", "1"), true, rl("cpu", "4"), nil)}},
			4000, 3000, 0, 0},
		// pod-level requests set only cpu (2); the pod-level status
		// reports allocated cpu 2 and actuated cpu 1 and memory 1Gi: 1.37
		// applies every pod-level resource of max(spec, actuated,
		// allocated) = {cpu 2, memory 1Gi}; 1.36 only the spec's names:
		// cpu 2, memory from the containers (none)
		{"pod-level status", core.Pod{Resources: &core.ResourceRequirements{Requests: rl("cpu", "2")},
			Containers: []core.Container{ctr("a", rl("cpu", "1"), nil)}},
			core.ResizeStatus{Allocated: rl("cpu", "2"), Actuated: &core.ResourceRequirements{Requests: rl("cpu", "1", "memory", "1Gi")}},
			2000, 2000, 1 << 30, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []struct {
				opts     QOSOptions
				cpu, mem int64
			}{{QOSOptions{}, tc.cpu137, tc.mem137}, {QOSOptionsFor(release.V1_36), tc.cpu136, tc.mem136}} {
				got := EffectivePodRequests(tc.pod, tc.st, v.opts)
				if got.MilliCPU() != v.cpu || got.Memory() != v.mem {
					t.Errorf("ResizePerContainer=%v: cpu %dm memory %d, want %dm %d", v.opts.ResizePerContainer, got.MilliCPU(), got.Memory(), v.cpu, v.mem)
				}
			}
		})
	}
}

// The limits on both presets: 1.37 max(Σspec, Σactuated), 1.36 the
// larger per container; Infeasible drops the spec.
func TestEffectivePodLimits(t *testing.T) {
	two := core.Pod{Containers: []core.Container{ctr("a", nil, rl("cpu", "1")), ctr("b", nil, rl("cpu", "2"))}}
	for _, tc := range []struct {
		name           string
		pod            core.Pod
		st             core.ResizeStatus
		cpu137, cpu136 int64
	}{
		// actuated limits 2 and 1 against the spec's 1 and 2: 1.37
		// max(3, 3) = 3; 1.36 max(1,2) + max(2,1) = 4
		{"opposite directions", two, core.ResizeStatus{Containers: []core.ContainerResizeStatus{
			status("a", nil, true, nil, rl("cpu", "2")),
			status("b", nil, true, nil, rl("cpu", "1"))}}, 3000, 4000},
		// Infeasible, a reports actuated resources without limits, b
		// nothing: 1.37 counts neither spec, so no cpu limit; 1.36 takes
		// a's (none) and b's spec (2)
		{"infeasible without actuated limits", two, core.ResizeStatus{Infeasible: true, Containers: []core.ContainerResizeStatus{
			status("a", nil, true, rl("cpu", "1"), nil)}}, 0, 2000},
		// pod-level limits cpu 4, actuated at pod level 3: both presets
		// keep the larger, 4; Infeasible: the actuated 3
		{"pod-level limits", core.Pod{Resources: &core.ResourceRequirements{Limits: rl("cpu", "4")}, Containers: []core.Container{ctr("a", nil, nil)}},
			core.ResizeStatus{Actuated: &core.ResourceRequirements{Limits: rl("cpu", "3")}}, 4000, 4000},
		{"pod-level limits, infeasible", core.Pod{Resources: &core.ResourceRequirements{Limits: rl("cpu", "4")}, Containers: []core.Container{ctr("a", nil, nil)}},
			core.ResizeStatus{Infeasible: true, Actuated: &core.ResourceRequirements{Limits: rl("cpu", "3")}}, 3000, 3000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []struct {
				opts QOSOptions
				cpu  int64
			}{{QOSOptions{}, tc.cpu137}, {QOSOptionsFor(release.V1_36), tc.cpu136}} {
				if got := EffectivePodLimits(tc.pod, tc.st, v.opts).MilliCPU(); got != v.cpu {
					t.Errorf("ResizePerContainer=%v: cpu %dm, want %dm", v.opts.ResizePerContainer, got, v.cpu)
				}
			}
		})
	}
}

// With nothing in the status, the effective values are the spec's.
func TestEffectiveWithoutStatus(t *testing.T) {
	pod := core.Pod{Overhead: rl("cpu", "50m"), Resources: &core.ResourceRequirements{Requests: rl("memory", "2Gi"), Limits: rl("memory", "3Gi")},
		InitContainers: []core.Container{{Name: "s", RestartPolicy: core.ContainerRestartPolicyAlways, Resources: core.ResourceRequirements{Requests: rl("cpu", "100m"), Limits: rl("cpu", "200m")}},
			ctr("i", rl("cpu", "500m"), rl("cpu", "1"))},
		Containers: []core.Container{ctr("a", rl("cpu", "300m"), rl("cpu", "400m"))}}
	// requests: max(100m+300m, 100m+500m) = 600m + 50m; limits: max(200m+400m,
	// 200m+1) = 1200m + 50m; memory from the pod level
	for _, opts := range []QOSOptions{{}, QOSOptionsFor(release.V1_36)} {
		r, l := EffectivePodRequests(pod, core.ResizeStatus{}, opts), EffectivePodLimits(pod, core.ResizeStatus{}, opts)
		if r.MilliCPU() != 650 || r.Memory() != 2<<30 || l.MilliCPU() != 1250 || l.Memory() != 3<<30 {
			t.Errorf("ResizePerContainer=%v: requests %dm %d, limits %dm %d; want 650m %d, 1250m %d",
				opts.ResizePerContainer, r.MilliCPU(), r.Memory(), l.MilliCPU(), l.Memory(), int64(2<<30), int64(3<<30))
		}
	}
}
