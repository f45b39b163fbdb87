package cgroup

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/quantity"
	"github.com/nodelife/nodelife/release"
)

// QOSOptions holds the feature switches the QoS and resource computations
// depend on.
//
// The zero value is upstream v1.37 with its default feature gates;
// QOSOptionsFor gives an earlier release's.
type QOSOptions struct {
	// DisablePodLevelResources turns the PodLevelResources feature gate
	// off, as on clusters before 1.34 (where it was alpha and off):
	// spec.resources is then ignored. By default, as upstream since 1.34
	// (beta, on), a pod's spec.resources cpu and memory decide.
	DisablePodLevelResources bool
	// DisablePodLevelResourcesFixKubeletQOSClass turns the gate
	// PodLevelResourcesFixKubeletQOSClass off (it is beta and on since
	// 1.37): spec.resources then decides the class whenever it is set, even
	// to an empty value or to resources the pod level does not honour, as
	// in 1.34 to 1.36 (an empty spec.resources made the pod BestEffort
	// whatever its containers asked). On: only when core.Pod.PodLevelResourcesSet.
	DisablePodLevelResourcesFixKubeletQOSClass bool
	// DisableInPlacePodLevelResourcesVerticalScaling turns that gate off
	// (alpha and off in 1.35, beta and on since 1.36): the pod-level
	// status (core.ResizeStatus.Allocated and Actuated) is then not read by
	// EffectivePodRequests and EffectivePodLimits.
	DisableInPlacePodLevelResourcesVerticalScaling bool
	// ResizePerContainer computes EffectivePodRequests and
	// EffectivePodLimits as upstream did before 1.37: the larger of spec,
	// allocated and actuated per container (only for the regular and
	// sidecar containers whose status reports resources), then summed. Off:
	// the larger of the sums, as 1.37's resource helper.
	ResizePerContainer bool
	// SumContainersQOS computes the class from requests and limits summed
	// over the containers, as upstream did before 1.37: per-container
	// mismatches could cancel out in the sums (a container with cpu 1/2
	// beside one with 2/1 made a Guaranteed pod). Off: each container is
	// classed on its own, as 1.37's ComputePodQOS.
	SumContainersQOS bool
}

// QOSOptionsFor returns the QoS switches of Kubernetes release v (taken as
// release.Oldest or release.Current when outside them): PodLevelResources
// off before 1.34, InPlacePodLevelResourcesVerticalScaling off before 1.36,
// the per-container QoS rule, the FixKubeletQOSClass gate and the sums of
// a resize taken whole from 1.37.
func QOSOptionsFor(v release.Version) QOSOptions {
	v = v.Clamp()
	return QOSOptions{
		DisablePodLevelResources:                       !v.AtLeast(release.V1_34),
		DisablePodLevelResourcesFixKubeletQOSClass:     !v.AtLeast(release.V1_37),
		SumContainersQOS:                               !v.AtLeast(release.V1_37),
		ResizePerContainer:                             !v.AtLeast(release.V1_37),
		DisableInPlacePodLevelResourcesVerticalScaling: !v.AtLeast(release.V1_36),
	}
}

// podLevel reports whether the pod's spec.resources count under opts for
// the requests and limits it sets.
func (o QOSOptions) podLevel(p core.Pod) bool {
	return !o.DisablePodLevelResources && p.Resources != nil
}

// podLevelQOS reports whether the pod's spec.resources decide its class.
func (o QOSOptions) podLevelQOS(p core.Pod) bool {
	return o.podLevel(p) && (o.DisablePodLevelResourcesFixKubeletQOSClass || p.PodLevelResourcesSet())
}

// PodQOS returns p.QOSClass when set, otherwise ComputeQOS(p, opts), as
// upstream's GetPodQOS.
func PodQOS(p core.Pod, opts QOSOptions) core.PodQOSClass {
	if p.QOSClass != "" {
		return p.QOSClass
	}
	return ComputeQOS(p, opts)
}

// ComputeQOS computes a pod's class the way upstream does. Only cpu and
// memory count. With the PodLevelResources gate on (the default) and
// spec.resources setting cpu, memory or huge pages (or set at all, with
// DisablePodLevelResourcesFixKubeletQOSClass), spec.resources alone
// decides, as one container would; otherwise every init and regular
// container is classed on its own, as upstream v1.37's ComputePodQOS:
//
//   - A container (or pod level) with no requests and no limits at all is
//     BestEffort. Otherwise, for cpu and for memory, a request that differs
//     from its limit (a missing one counting as zero) is Burstable, both
//     zero is BestEffort, both equal and not zero is Guaranteed; its class
//     is that common answer, or Burstable when the two differ.
//   - The pod is Burstable when any container is, or when BestEffort and
//     Guaranteed containers are mixed; otherwise their common class
//     (BestEffort for a pod without containers).
//
// With SumContainersQOS (upstream before 1.37), positive requests and
// limits are summed over the containers instead: nothing set is
// BestEffort; every container with both a cpu and a memory limit, every
// summed request equal to its limit and as many requests as limits is
// Guaranteed; anything else Burstable.
//
// Requests are taken as given: the API server copies a missing request
// from its limit before the kubelet sees a pod, so a pod built by hand with
// limits only is Burstable here unless DefaultRequests is applied first.
func ComputeQOS(p core.Pod, opts QOSOptions) core.PodQOSClass {
	if opts.SumContainersQOS {
		return summedQOS(p, opts)
	}
	if opts.podLevelQOS(p) {
		return requirementsQOS(*p.Resources)
	}
	var class core.PodQOSClass
	for _, cs := range [2][]core.Container{p.InitContainers, p.Containers} {
		for i := range cs {
			switch c := requirementsQOS(cs[i].Resources); {
			case c == core.PodQOSBurstable:
				return core.PodQOSBurstable
			case class == "":
				class = c
			case class != c:
				return core.PodQOSBurstable
			}
		}
	}
	if class == "" {
		return core.PodQOSBestEffort
	}
	return class
}

// requirementsQOS classes one container's (or the pod level's) resources
// by upstream v1.37's rule, cpu and memory each on its own.
func requirementsQOS(r core.ResourceRequirements) core.PodQOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return core.PodQOSBestEffort
	}
	var class core.PodQOSClass
	for _, name := range [2]core.ResourceName{core.ResourceCPU, core.ResourceMemory} {
		req, lim := r.Requests[name], r.Limits[name]
		c := core.PodQOSGuaranteed
		switch {
		case req.Cmp(lim) != 0:
			return core.PodQOSBurstable
		case req.IsZero():
			c = core.PodQOSBestEffort
		}
		if class != "" && class != c {
			return core.PodQOSBurstable
		}
		class = c
	}
	return class
}

// summedQOS is ComputeQOS before 1.37: requests and limits summed over
// the containers (or spec.resources, when it decides).
func summedQOS(p core.Pod, opts QOSOptions) core.PodQOSClass {
	var reqs, lims qosSums
	guaranteed := true
	if opts.podLevelQOS(p) {
		reqs.add(p.Resources.Requests)
		if lims.add(p.Resources.Limits) != bothQOSResources {
			guaranteed = false
		}
	} else {
		for _, cs := range [2][]core.Container{p.Containers, p.InitContainers} {
			for i := range cs {
				reqs.add(cs[i].Resources.Requests)
				if lims.add(cs[i].Resources.Limits) != bothQOSResources {
					guaranteed = false
				}
			}
		}
	}
	if reqs.count() == 0 && lims.count() == 0 {
		return core.PodQOSBestEffort
	}
	if guaranteed {
		for i := 0; i < 2; i++ {
			if reqs.set[i] && (!lims.set[i] || reqs.q[i].Cmp(lims.q[i]) != 0) {
				guaranteed = false
			}
		}
	}
	if guaranteed && reqs.count() == lims.count() {
		return core.PodQOSGuaranteed
	}
	return core.PodQOSBurstable
}

// qosSums sums the positive cpu ([0]) and memory ([1]) quantities of
// resource lists without allocating a map.
type qosSums struct {
	q   [2]resource.Quantity
	set [2]bool
}

const bothQOSResources = 3

// add adds the positive cpu and memory quantities of l and returns a bit
// set of which of the two l had (1 cpu, 2 memory).
func (s *qosSums) add(l core.ResourceList) int {
	found := 0
	for name, q := range l {
		i := -1
		switch name {
		case core.ResourceCPU:
			i = 0
		case core.ResourceMemory:
			i = 1
		}
		if i < 0 || q.Sign() <= 0 {
			continue
		}
		found |= 1 << i
		if s.set[i] {
			s.q[i].Add(q)
		} else {
			s.q[i] = q.DeepCopy()
			s.set[i] = true
		}
	}
	return found
}

func (s *qosSums) count() int {
	n := 0
	for _, b := range s.set {
		if b {
			n++
		}
	}
	return n
}

// DefaultRequests returns a copy of p in which every container request
// that is missing but has a limit takes the limit's value, which is what
// API defaulting does before a kubelet ever sees the pod. p is not
// modified.
func DefaultRequests(p core.Pod) core.Pod {
	out := p
	out.InitContainers = defaultContainers(p.InitContainers)
	out.Containers = defaultContainers(p.Containers)
	if p.Resources != nil {
		r := core.ResourceRequirements{Requests: defaultList(p.Resources.Requests, p.Resources.Limits), Limits: p.Resources.Limits}
		out.Resources = &r
	}
	return out
}

func defaultContainers(cs []core.Container) []core.Container {
	if cs == nil {
		return nil
	}
	out := make([]core.Container, len(cs))
	for i, c := range cs {
		out[i] = c
		out[i].Resources.Requests = defaultList(c.Resources.Requests, c.Resources.Limits)
	}
	return out
}

func defaultList(reqs, lims core.ResourceList) core.ResourceList {
	if len(lims) == 0 {
		return reqs
	}
	out := make(core.ResourceList, len(reqs)+len(lims))
	for k, v := range reqs {
		out[k] = v
	}
	for k, v := range lims {
		if _, ok := out[k]; !ok {
			out[k] = v.DeepCopy()
		}
	}
	return out
}

// PodRequests returns the effective requests of p as upstream's
// resource helper computes them for the kubelet:
//
//   - the regular containers' requests are summed;
//   - sidecar (restartable) init containers run beside them, so theirs are
//     added to the sum, and each later init container runs next to the
//     sidecars started before it;
//   - the pod needs the larger of that sum and the largest init-time
//     peak, per resource;
//   - with pod-level resources, spec.resources.requests replaces cpu,
//     memory and huge pages (the resources upstream supports at pod level);
//   - spec.overhead is added.
func PodRequests(p core.Pod, opts QOSOptions) core.ResourceList {
	return PodRequestsInto(core.ResourceList{}, p, opts)
}

// PodRequestsInto is PodRequests written into dst, which it clears first,
// as upstream's PodResourcesOptions.Reuse: a caller that sizes many pods
// reuses one list and allocates nothing per pod. It returns dst (a new list
// when dst is nil).
func PodRequestsInto(dst core.ResourceList, p core.Pod, opts QOSOptions) core.ResourceList {
	if dst == nil {
		dst = core.ResourceList{}
	}
	clear(dst)
	aggregate(dst, p, func(c *core.Container, _ bool) core.ResourceList { return c.Resources.Requests }, nil)
	if opts.podLevel(p) {
		setPodLevel(dst, p.Resources.Requests)
	}
	addList(dst, p.Overhead)
	return dst
}

// PodLimits returns the effective limits of p, aggregated like
// PodRequests; pod-level limits replace cpu and memory, and the overhead
// is added only to the limits that are set.
func PodLimits(p core.Pod, opts QOSOptions) core.ResourceList {
	return podLimits(p, opts, nil)
}

// podLimits is PodLimits telling each, for every container in turn, whether
// the limits it counts with have no cpu and no memory (see aggregate).
func podLimits(p core.Pod, opts QOSOptions, each func(cpuZero, memZero bool)) core.ResourceList {
	out := aggregate(core.ResourceList{}, p, func(c *core.Container, _ bool) core.ResourceList { return c.Resources.Limits }, each)
	if opts.podLevel(p) {
		setPodLevel(out, p.Resources.Limits)
	}
	addOverheadToLimits(out, p.Overhead)
	return out
}

// addOverheadToLimits adds the pod overhead to the limits in out that are
// set and not zero, as component-helpers' PodLimits (an explicit zero
// limit stays zero).
func addOverheadToLimits(out, overhead core.ResourceList) {
	for name, q := range overhead {
		if v, ok := out[name]; ok && !v.IsZero() {
			v.Add(q)
			out[name] = v
		}
	}
}

// setPodLevel replaces the pod-level resources of dst (core.PodLevelResource)
// with the values in src.
func setPodLevel(dst, src core.ResourceList) {
	for name, q := range src {
		if core.PodLevelResource(name) {
			dst[name] = q.DeepCopy()
		}
	}
}

// aggregate sums what pick takes from each container (told whether it is
// an init container) as upstream's resource helper does; each, when set, learns for every container whether
// the list it counts with lacks a cpu and a memory quantity (it gets
// booleans rather than the list, so that the lists stay off the heap).
func aggregate(out core.ResourceList, p core.Pod, pick func(c *core.Container, init bool) core.ResourceList, each func(cpuZero, memZero bool)) core.ResourceList {
	for i := range p.Containers {
		l := pick(&p.Containers[i], false)
		if each != nil {
			each(zeroCPUMem(l))
		}
		addList(out, l)
	}
	sidecars := core.ResourceList{}
	peak := core.ResourceList{}
	for i := range p.InitContainers {
		c := &p.InitContainers[i]
		l := pick(c, true)
		var running core.ResourceList
		if c.RestartPolicy == core.ContainerRestartPolicyAlways {
			addList(out, l)
			addList(sidecars, l)
			running = sidecars
		} else {
			running = core.ResourceList{}
			addList(running, l)
			addList(running, sidecars)
		}
		if each != nil {
			// As component-helpers' AggregateContainerLimits, an init
			// container is seen with the sidecars started before it (a
			// sidecar with itself and those before it).
			each(zeroCPUMem(running))
		}
		maxList(peak, running)
	}
	maxList(out, peak)
	return out
}

// zeroCPUMem reports whether l's cpu and memory quantities are zero (or
// missing).
func zeroCPUMem(l core.ResourceList) (cpuZero, memZero bool) {
	c, m := l[core.ResourceCPU], l[core.ResourceMemory]
	return c.IsZero(), m.IsZero()
}

func addList(dst, src core.ResourceList) {
	for name, q := range src {
		if v, ok := dst[name]; ok {
			v.Add(q)
			dst[name] = v
		} else {
			dst[name] = q.DeepCopy()
		}
	}
}

func maxList(dst, src core.ResourceList) {
	for name, q := range src {
		if v, ok := dst[name]; !ok || q.Cmp(v) > 0 {
			dst[name] = q.DeepCopy()
		}
	}
}

// sortedNames returns the keys of l in order.
func sortedNames(l core.ResourceList) []core.ResourceName {
	names := make([]core.ResourceName, 0, len(l))
	for name := range l {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// HugePageLimits maps page size in bytes to the bytes requested of it, from
// the "hugepages-<size>" entries of l (what the kubelet writes to the pod's
// hugetlb limits). Entries whose size does not parse are skipped, as are
// sizes with a decimal exponent beyond ±1000 (internal/quantity: parsing
// them would not end).
func HugePageLimits(l core.ResourceList) map[int64]int64 {
	out := map[int64]int64{}
	for name, q := range l {
		size, ok := strings.CutPrefix(string(name), core.ResourceHugePagesPrefix)
		if !ok {
			continue
		}
		ps, err := quantity.Parse(size)
		if err != nil || ps.Sign() <= 0 {
			continue
		}
		out[ps.Value()] += q.Value()
	}
	return out
}
