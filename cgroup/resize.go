package cgroup

import "github.com/nodelife/nodelife/core"

// containerStatus returns the status of the container named name; nil when st reports none.
func containerStatus(st *core.ResizeStatus, name string) *core.ContainerResizeStatus {
	for i := range st.Containers {
		if st.Containers[i].Name == name {
			return &st.Containers[i]
		}
	}
	return nil
}

// readBefore137 returns the status of c that upstream read before 1.37:
// a regular or sidecar container's, when it reports actuated resources;
// nil otherwise.
func readBefore137(st *core.ResizeStatus, c *core.Container, init bool) *core.ContainerResizeStatus {
	if init && c.RestartPolicy != core.ContainerRestartPolicyAlways {
		return nil
	}
	if cs := containerStatus(st, c.Name); cs != nil && cs.Actuated != nil {
		return cs
	}
	return nil
}

// podLevelStatus reports whether the pod-level status counts under opts.
func podLevelStatus(st *core.ResizeStatus, opts QOSOptions) bool {
	return !opts.DisableInPlacePodLevelResourcesVerticalScaling && st.Actuated != nil
}

// EffectivePodRequests returns the requests p takes on its node while its
// status reports st, as upstream's resource helper with status resources
// (PodRequests with UseStatusResources). A resize moves a pod between its
// old and new values, so it is counted at the larger of the spec's
// (the new, desired values, unless the resize is Infeasible), the
// allocated and the actuated (runtime-reported) requests:
//
//   - by default, as 1.37: each of the three is aggregated as PodRequests
//     aggregates the spec (sidecars and init containers included), and the
//     larger per resource is taken. A container without an allocated value
//     counts with its spec requests, one without an actuated value with its
//     allocated ones, or its spec ones (none when Infeasible). The
//     pod-level status, when it reports both allocated and actuated
//     requests (and InPlacePodLevelResourcesVerticalScaling is on), replaces
//     the containers' aggregates;
//   - with opts.ResizePerContainer, as before 1.37: the larger of the three
//     is taken per regular and sidecar container whose status reports
//     actuated resources, and those are summed; other containers, and every
//     non-sidecar init container, count with their spec requests.
//
// Containers resized in opposite directions make the difference: one going
// from 2 to 1 CPU beside one going from 1 to 2 counts 4 CPUs summed per
// container and 3 as 1.37 counts. Pod-level requests
// (spec.resources.requests) replace cpu, memory and huge pages, taken at
// the larger of spec, actuated and allocated pod-level values when the
// pod-level status reports actuated ones; the overhead is added. With st's
// zero value the answer is PodRequests'.
func EffectivePodRequests(p core.Pod, st core.ResizeStatus, opts QOSOptions) core.ResourceList {
	var out core.ResourceList
	if opts.ResizePerContainer {
		out = aggregate(core.ResourceList{}, p, func(c *core.Container, init bool) core.ResourceList {
			cs := readBefore137(&st, c, init)
			if cs == nil {
				return c.Resources.Requests
			}
			if st.Infeasible {
				return maxLists(cs.Actuated.Requests, cs.Allocated)
			}
			return maxLists(c.Resources.Requests, cs.Actuated.Requests, cs.Allocated)
		}, nil)
	} else {
		spec := aggregate(core.ResourceList{}, p, func(c *core.Container, _ bool) core.ResourceList { return c.Resources.Requests }, nil)
		var allocated, actuated core.ResourceList
		if podLevelStatus(&st, opts) && st.Allocated != nil && st.Actuated.Requests != nil {
			allocated, actuated = st.Allocated, st.Actuated.Requests
		} else {
			allocated = aggregate(core.ResourceList{}, p, func(c *core.Container, _ bool) core.ResourceList {
				if cs := containerStatus(&st, c.Name); cs != nil && cs.Allocated != nil {
					return cs.Allocated
				}
				return specUnlessInfeasible(&st, c.Resources.Requests)
			}, nil)
			actuated = aggregate(core.ResourceList{}, p, func(c *core.Container, _ bool) core.ResourceList {
				cs := containerStatus(&st, c.Name)
				switch {
				case cs != nil && cs.Actuated != nil && cs.Actuated.Requests != nil:
					return cs.Actuated.Requests
				case cs != nil && cs.Allocated != nil:
					return cs.Allocated
				}
				return specUnlessInfeasible(&st, c.Resources.Requests)
			}, nil)
		}
		out = maxLists(specUnlessInfeasible(&st, spec), actuated, allocated)
	}
	if opts.podLevel(p) && podLevelSet(p.Resources.Requests) {
		spec := p.Resources.Requests
		switch {
		case !podLevelStatus(&st, opts):
			setPodLevel(out, spec)
		case opts.ResizePerContainer:
			// before 1.37 the spec's names are taken from the larger
			// list, zero when it lacks one
			setPodLevelFrom(out, spec, maxLists(specUnlessInfeasible(&st, spec), st.Actuated.Requests, st.Allocated))
		default:
			setPodLevel(out, maxLists(specUnlessInfeasible(&st, spec), st.Actuated.Requests, st.Allocated))
		}
	}
	addList(out, p.Overhead)
	return out
}

// EffectivePodLimits returns the limits p runs with while its status
// reports st, as upstream's resource helper with status resources
// (PodLimits with UseStatusResources): the larger of the spec's (none when
// the resize is Infeasible) and the actuated limits, aggregated as
// PodLimits aggregates the spec, a container without actuated limits
// counting with its spec ones (none when Infeasible), the pod-level
// status's actuated limits replacing the containers' aggregate when
// reported. With opts.ResizePerContainer (before 1.37) the larger of the
// two is taken per regular and sidecar container whose status reports
// actuated resources (only the actuated ones when Infeasible) and summed.
// Pod-level limits (spec.resources.limits) replace cpu, memory and huge
// pages, taken at the larger of spec and actuated pod-level values when
// the pod-level status reports them; the overhead is added to the limits
// that are set and not zero.
func EffectivePodLimits(p core.Pod, st core.ResizeStatus, opts QOSOptions) core.ResourceList {
	var out core.ResourceList
	if opts.ResizePerContainer {
		out = aggregate(core.ResourceList{}, p, func(c *core.Container, init bool) core.ResourceList {
			cs := readBefore137(&st, c, init)
			if cs == nil {
				return c.Resources.Limits
			}
			if st.Infeasible {
				return cs.Actuated.Limits
			}
			return maxLists(c.Resources.Limits, cs.Actuated.Limits)
		}, nil)
	} else {
		spec := aggregate(core.ResourceList{}, p, func(c *core.Container, _ bool) core.ResourceList { return c.Resources.Limits }, nil)
		var actuated core.ResourceList
		if podLevelStatus(&st, opts) && st.Actuated.Limits != nil {
			actuated = st.Actuated.Limits
		} else {
			actuated = aggregate(core.ResourceList{}, p, func(c *core.Container, _ bool) core.ResourceList {
				if cs := containerStatus(&st, c.Name); cs != nil && cs.Actuated != nil && cs.Actuated.Limits != nil {
					return cs.Actuated.Limits
				}
				return specUnlessInfeasible(&st, c.Resources.Limits)
			}, nil)
		}
		out = maxLists(specUnlessInfeasible(&st, spec), actuated)
	}
	if opts.podLevel(p) && p.PodLevelResourcesSet() {
		spec := p.Resources.Limits
		switch {
		case !podLevelStatus(&st, opts), opts.ResizePerContainer && st.Infeasible && st.Actuated.Limits == nil:
			setPodLevel(out, spec)
		case opts.ResizePerContainer:
			setPodLevelFrom(out, spec, maxLists(specUnlessInfeasible(&st, spec), st.Actuated.Limits))
		default:
			setPodLevel(out, maxLists(specUnlessInfeasible(&st, spec), st.Actuated.Limits))
		}
	}
	addOverheadToLimits(out, p.Overhead)
	return out
}

// specUnlessInfeasible returns l, or nil when the resize is Infeasible
// (the spec's values are then not counted).
func specUnlessInfeasible(st *core.ResizeStatus, l core.ResourceList) core.ResourceList {
	if st.Infeasible {
		return nil
	}
	return l
}

// maxLists returns a new list with, per resource, the largest quantity of
// the lists (nil lists are skipped).
func maxLists(lists ...core.ResourceList) core.ResourceList {
	out := core.ResourceList{}
	for _, l := range lists {
		maxList(out, l)
	}
	return out
}

// podLevelSet reports whether l names a resource upstream honours at pod
// level (component-helpers' IsPodLevelRequestsSet, for the requests).
func podLevelSet(l core.ResourceList) bool {
	for name := range l {
		if core.PodLevelResource(name) {
			return true
		}
	}
	return false
}

// setPodLevelFrom sets, for each pod-level resource named in names, dst's
// value to from's (zero when from lacks it), as upstream before 1.37 did
// with the effective pod-level values.
func setPodLevelFrom(dst, names, from core.ResourceList) {
	for name := range names {
		if core.PodLevelResource(name) {
			dst[name] = from[name].DeepCopy()
		}
	}
}
