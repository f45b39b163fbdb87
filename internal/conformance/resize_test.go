package conformance

import (
	"fmt"
	"maps"
	"math/rand"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/examples/kubeapi"
)

// randomResizeStatus gives pod the status of an in-place resize: each
// container's status reports nothing, its allocated requests, its actuated
// resources (requests and limits, either possibly absent) or both, one in
// four pods has pod-level allocated and actuated values, and the
// PodResizePending condition is Infeasible one time in four, Deferred one
// in eight.
func randomResizeStatus(r *rand.Rand, pod *v1.Pod) {
	statuses := func(cs []v1.Container) []v1.ContainerStatus {
		var out []v1.ContainerStatus
		for _, c := range cs {
			s := v1.ContainerStatus{Name: c.Name}
			switch r.Intn(4) {
			case 0:
				continue
			case 1:
				s.AllocatedResources = resources(r, containerResources).Requests
			case 2:
				rr := resources(r, containerResources)
				s.Resources = &rr
			case 3:
				s.AllocatedResources = resources(r, containerResources).Requests
				rr := resources(r, containerResources)
				s.Resources = &rr
			}
			out = append(out, s)
		}
		return out
	}
	pod.Status.ContainerStatuses = statuses(pod.Spec.Containers)
	pod.Status.InitContainerStatuses = statuses(pod.Spec.InitContainers)
	if r.Intn(4) == 0 {
		podLevel := []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, "hugepages-2Mi"}
		pod.Status.AllocatedResources = resources(r, podLevel).Requests
		rr := resources(r, podLevel)
		pod.Status.Resources = &rr
	}
	switch r.Intn(8) {
	case 0, 1:
		pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: v1.PodReasonInfeasible}}
	case 2:
		pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: v1.PodReasonDeferred}}
	}
}

// The requests and limits of a pod mid-resize, nodelife's
// EffectivePodRequests and EffectivePodLimits against component-helpers'
// PodRequests and PodLimits with status resources (as the scheduler
// framework's NodeInfo counts the pods the kubelet admits against), with
// InPlacePodLevelResourcesVerticalScaling on (its default) and off.
func TestDifferentialResizeResources(t *testing.T) {
	n := inputs(t)
	const tried = "the pods of TestDifferentialPodResources with random resize statuses: per container nothing, allocated requests, actuated requests and limits (either absent) or both; pod-level allocated and actuated values one in four; Infeasible one in four, Deferred one in eight"
	for _, gate := range []bool{true, false} {
		t.Run(fmt.Sprintf("InPlacePodLevelResourcesVerticalScaling=%v", gate), func(t *testing.T) {
			suffix, gateName := "", fmt.Sprintf(" (UseStatusResources, InPlacePodLevelResourcesVerticalScaling=%v)", gate)
			opts := cgroup.QOSOptionsFor(upstreamRelease)
			if !gate {
				opts.DisableInPlacePodLevelResourcesVerticalScaling = true
				suffix = " (DisableInPlacePodLevelResourcesVerticalScaling)"
			}
			requests := compare(t, "cgroup.EffectivePodRequests"+suffix, "component-helpers/resource.PodRequests"+gateName, tried)
			limits := compare(t, "cgroup.EffectivePodLimits"+suffix, "component-helpers/resource.PodLimits"+gateName, tried)
			ro := resourcehelper.PodResourcesOptions{UseStatusResources: true, InPlacePodLevelResourcesVerticalScalingEnabled: gate}
			r := rand.New(rand.NewSource(2))
			infeasible, differs := 0, 0
			for i := 0; i < n; i++ {
				pod := randomPod(r, i)
				randomResizeStatus(r, pod)
				np := kubeapi.Pod(pod)
				st, _ := kubeapi.ResizeStatus(pod)
				if st.Infeasible {
					infeasible++
				}
				up, nl := quantityMap(resourcehelper.PodRequests(pod, ro)), quantityMap(fromCgroup(cgroup.EffectivePodRequests(np, st, opts)))
				if !maps.Equal(up, nl) {
					requests.disagree("requests %v/%v\n%s%s", up, nl, describe(pod), describeStatus(pod))
				} else {
					requests.agree()
				}
				if !maps.Equal(nl, quantityMap(fromCgroup(cgroup.PodRequests(np, opts)))) {
					differs++
				}
				up, nl = quantityMap(resourcehelper.PodLimits(pod, ro)), quantityMap(fromCgroup(cgroup.EffectivePodLimits(np, st, opts)))
				if !maps.Equal(up, nl) {
					limits.disagree("limits %v/%v\n%s%s", up, nl, describe(pod), describeStatus(pod))
				} else {
					limits.agree()
				}
			}
			t.Logf("%d pods (%d Infeasible, %d whose requests differ from the spec's)", n, infeasible, differs)
		})
	}
}

// describeStatus prints a pod's resize status compactly, for a failure
// message.
func describeStatus(p *v1.Pod) string {
	out := ""
	for _, list := range [][]v1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range list {
			out += fmt.Sprintf("  status %s: allocated %v", cs.Name, quantityMap(cs.AllocatedResources))
			if cs.Resources != nil {
				out += fmt.Sprintf(" actuated req %v lim %v", quantityMap(cs.Resources.Requests), quantityMap(cs.Resources.Limits))
			}
			out += "\n"
		}
	}
	if p.Status.Resources != nil || p.Status.AllocatedResources != nil {
		out += fmt.Sprintf("  pod status: allocated %v", quantityMap(p.Status.AllocatedResources))
		if p.Status.Resources != nil {
			out += fmt.Sprintf(" actuated req %v lim %v", quantityMap(p.Status.Resources.Requests), quantityMap(p.Status.Resources.Limits))
		}
		out += "\n"
	}
	for _, c := range p.Status.Conditions {
		out += fmt.Sprintf("  %s %s\n", c.Type, c.Reason)
	}
	return out
}
