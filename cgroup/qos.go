package cgroup

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/internal/compact"
	mapkeys "github.com/nodelife/nodelife/internal/keys"
	"github.com/nodelife/nodelife/internal/quantity"
	"github.com/nodelife/nodelife/release"
)

// ResourceName names a resource as core/v1 does ("cpu", "memory",
// "hugepages-2Mi", ...).
type ResourceName string

// Resource names used here.
const (
	ResourceCPU              ResourceName = "cpu"
	ResourceMemory           ResourceName = "memory"
	ResourceEphemeralStorage ResourceName = "ephemeral-storage"
	ResourcePods             ResourceName = "pods"
	ResourcePIDs             ResourceName = "pid"
	// ResourceHugePagesPrefix starts the name of every huge page resource
	// ("hugepages-2Mi", "hugepages-1Gi").
	ResourceHugePagesPrefix = "hugepages-"
)

// ResourceList maps resource names to quantities, as core/v1's
// ResourceList.
type ResourceList map[ResourceName]resource.Quantity

// String prints the list as "{cpu:500m memory:1Gi}": names sorted,
// quantities as kubectl writes them.
func (l ResourceList) String() string {
	parts := make([]string, 0, len(l))
	for _, name := range mapkeys.Sorted(l) {
		q := l[name]
		parts = append(parts, string(name)+":"+q.String())
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// GoString is String, so that %#v (rapid's form for drawn values) prints
// quantities as kubectl writes them, not field by field.
func (l ResourceList) GoString() string { return l.String() }

// Resources holds requests and limits, as core/v1's ResourceRequirements.
type Resources struct {
	Requests ResourceList
	Limits   ResourceList
}

// String prints the requests and limits that are set, on one line
// ("cgroup.Resources{Requests:{cpu:500m} Limits:{cpu:1}}").
func (r Resources) String() string { return compact.Sprint(r) }

// GoString is String, for %#v.
func (r Resources) GoString() string { return r.String() }

// ContainerRestartPolicyAlways marks an init container as a sidecar
// (restartable init container): it keeps running next to the regular
// containers.
const ContainerRestartPolicyAlways = "Always"

// Container is the part of a core/v1 Container the cgroup decisions read.
type Container struct {
	Name      string
	Resources Resources
	// RestartPolicy is "Always" for a sidecar init container and empty
	// otherwise.
	RestartPolicy string
}

// QOSClass is a pod's quality-of-service class, with core/v1's values.
type QOSClass string

// The three QoS classes.
const (
	Guaranteed QOSClass = "Guaranteed"
	Burstable  QOSClass = "Burstable"
	BestEffort QOSClass = "BestEffort"
)

// Pod is the part of a core/v1 Pod the cgroup decisions read.
type Pod struct {
	UID string
	// QOSClass is status.qosClass. Once set it is immutable upstream, and
	// PodQOS returns it instead of computing the class again.
	QOSClass       QOSClass
	InitContainers []Container
	Containers     []Container
	// Resources is spec.resources, the pod-level requests and limits
	// (PodLevelResources); nil when not set.
	Resources *Resources
	// Overhead is spec.overhead (RuntimeClass pod overhead).
	Overhead ResourceList
	// Priority is spec.priority; Static and Mirror say whether the pod comes
	// from a manifest file or is the API mirror of one. All three make a
	// pod critical (see Critical).
	Priority       int32
	Static, Mirror bool
}

// SystemCriticalPriority is the priority from which a pod is critical
// (2 * 10^9, the system-cluster-critical priority class).
const SystemCriticalPriority int32 = 2000000000

// Critical reports whether the kubelet treats p as critical: a static or
// mirror pod, or a priority of at least SystemCriticalPriority.
func (p Pod) Critical() bool {
	return p.Static || p.Mirror || p.Priority >= SystemCriticalPriority
}

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
	// whatever its containers asked). On: only when PodLevelResourcesSet.
	DisablePodLevelResourcesFixKubeletQOSClass bool
	// DisableInPlacePodLevelResourcesVerticalScaling turns that gate off
	// (alpha and off in 1.35, beta and on since 1.36): the pod-level
	// status (ResizeStatus.Allocated and Actuated) is then not read by
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
func (o QOSOptions) podLevel(p Pod) bool { return !o.DisablePodLevelResources && p.Resources != nil }

// podLevelQOS reports whether the pod's spec.resources decide its class.
func (o QOSOptions) podLevelQOS(p Pod) bool {
	return o.podLevel(p) && (o.DisablePodLevelResourcesFixKubeletQOSClass || p.PodLevelResourcesSet())
}

func qosResource(name ResourceName) bool { return name == ResourceCPU || name == ResourceMemory }

// PodQOS returns p.QOSClass when set, otherwise ComputeQOS(p, opts), as
// upstream's GetPodQOS.
func PodQOS(p Pod, opts QOSOptions) QOSClass {
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
func ComputeQOS(p Pod, opts QOSOptions) QOSClass {
	if opts.SumContainersQOS {
		return summedQOS(p, opts)
	}
	if opts.podLevelQOS(p) {
		return requirementsQOS(*p.Resources)
	}
	var class QOSClass
	for _, cs := range [2][]Container{p.InitContainers, p.Containers} {
		for i := range cs {
			switch c := requirementsQOS(cs[i].Resources); {
			case c == Burstable:
				return Burstable
			case class == "":
				class = c
			case class != c:
				return Burstable
			}
		}
	}
	if class == "" {
		return BestEffort
	}
	return class
}

// requirementsQOS classes one container's (or the pod level's) resources
// by upstream v1.37's rule, cpu and memory each on its own.
func requirementsQOS(r Resources) QOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return BestEffort
	}
	var class QOSClass
	for _, name := range [2]ResourceName{ResourceCPU, ResourceMemory} {
		req, lim := r.Requests[name], r.Limits[name]
		c := Guaranteed
		switch {
		case req.Cmp(lim) != 0:
			return Burstable
		case req.IsZero():
			c = BestEffort
		}
		if class != "" && class != c {
			return Burstable
		}
		class = c
	}
	return class
}

// summedQOS is ComputeQOS before 1.37: requests and limits summed over
// the containers (or spec.resources, when it decides).
func summedQOS(p Pod, opts QOSOptions) QOSClass {
	var reqs, lims qosSums
	guaranteed := true
	if opts.podLevelQOS(p) {
		reqs.add(p.Resources.Requests)
		if lims.add(p.Resources.Limits) != bothQOSResources {
			guaranteed = false
		}
	} else {
		for _, cs := range [2][]Container{p.Containers, p.InitContainers} {
			for i := range cs {
				reqs.add(cs[i].Resources.Requests)
				if lims.add(cs[i].Resources.Limits) != bothQOSResources {
					guaranteed = false
				}
			}
		}
	}
	if reqs.count() == 0 && lims.count() == 0 {
		return BestEffort
	}
	if guaranteed {
		for i := 0; i < 2; i++ {
			if reqs.set[i] && (!lims.set[i] || reqs.q[i].Cmp(lims.q[i]) != 0) {
				guaranteed = false
			}
		}
	}
	if guaranteed && reqs.count() == lims.count() {
		return Guaranteed
	}
	return Burstable
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
func (s *qosSums) add(l ResourceList) int {
	found := 0
	for name, q := range l {
		i := -1
		switch name {
		case ResourceCPU:
			i = 0
		case ResourceMemory:
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
func DefaultRequests(p Pod) Pod {
	out := p
	out.InitContainers = defaultContainers(p.InitContainers)
	out.Containers = defaultContainers(p.Containers)
	if p.Resources != nil {
		r := Resources{Requests: defaultList(p.Resources.Requests, p.Resources.Limits), Limits: p.Resources.Limits}
		out.Resources = &r
	}
	return out
}

func defaultContainers(cs []Container) []Container {
	if cs == nil {
		return nil
	}
	out := make([]Container, len(cs))
	for i, c := range cs {
		out[i] = c
		out[i].Resources.Requests = defaultList(c.Resources.Requests, c.Resources.Limits)
	}
	return out
}

func defaultList(reqs, lims ResourceList) ResourceList {
	if len(lims) == 0 {
		return reqs
	}
	out := make(ResourceList, len(reqs)+len(lims))
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
func PodRequests(p Pod, opts QOSOptions) ResourceList {
	return PodRequestsInto(ResourceList{}, p, opts)
}

// PodRequestsInto is PodRequests written into dst, which it clears first,
// as upstream's PodResourcesOptions.Reuse: a caller that sizes many pods
// reuses one list and allocates nothing per pod. It returns dst (a new list
// when dst is nil).
func PodRequestsInto(dst ResourceList, p Pod, opts QOSOptions) ResourceList {
	if dst == nil {
		dst = ResourceList{}
	}
	clear(dst)
	aggregate(dst, p, func(c *Container, _ bool) ResourceList { return c.Resources.Requests }, nil)
	if opts.podLevel(p) {
		setPodLevel(dst, p.Resources.Requests)
	}
	addList(dst, p.Overhead)
	return dst
}

// PodLimits returns the effective limits of p, aggregated like
// PodRequests; pod-level limits replace cpu and memory, and the overhead
// is added only to the limits that are set.
func PodLimits(p Pod, opts QOSOptions) ResourceList {
	return podLimits(p, opts, nil)
}

// podLimits is PodLimits telling each, for every container in turn, whether
// the limits it counts with have no cpu and no memory (see aggregate).
func podLimits(p Pod, opts QOSOptions, each func(cpuZero, memZero bool)) ResourceList {
	out := aggregate(ResourceList{}, p, func(c *Container, _ bool) ResourceList { return c.Resources.Limits }, each)
	if opts.podLevel(p) {
		setPodLevel(out, p.Resources.Limits)
	}
	addOverheadToLimits(out, p.Overhead)
	return out
}

// addOverheadToLimits adds the pod overhead to the limits in out that are
// set and not zero, as component-helpers' PodLimits (an explicit zero
// limit stays zero).
func addOverheadToLimits(out, overhead ResourceList) {
	for name, q := range overhead {
		if v, ok := out[name]; ok && !v.IsZero() {
			v.Add(q)
			out[name] = v
		}
	}
}

// PodLevelResource reports whether upstream honours name in a pod's
// spec.resources (component-helpers' IsSupportedPodLevelResource): cpu,
// memory and huge pages.
func PodLevelResource(name ResourceName) bool {
	return qosResource(name) || strings.HasPrefix(string(name), ResourceHugePagesPrefix)
}

// PodLevelResourcesSet reports whether p sets a pod-level resource
// upstream honours (component-helpers' IsPodLevelResourcesSet): a
// PodLevelResource in spec.resources' requests or limits.
func (p Pod) PodLevelResourcesSet() bool {
	if p.Resources == nil {
		return false
	}
	for _, l := range []ResourceList{p.Resources.Requests, p.Resources.Limits} {
		for name := range l {
			if PodLevelResource(name) {
				return true
			}
		}
	}
	return false
}

// setPodLevel replaces the pod-level resources of dst (PodLevelResource)
// with the values in src.
func setPodLevel(dst, src ResourceList) {
	for name, q := range src {
		if PodLevelResource(name) {
			dst[name] = q.DeepCopy()
		}
	}
}

// aggregate sums what pick takes from each container (told whether it is
// an init container) as upstream's resource helper does; each, when set, learns for every container whether
// the list it counts with lacks a cpu and a memory quantity (it gets
// booleans rather than the list, so that the lists stay off the heap).
func aggregate(out ResourceList, p Pod, pick func(c *Container, init bool) ResourceList, each func(cpuZero, memZero bool)) ResourceList {
	for i := range p.Containers {
		l := pick(&p.Containers[i], false)
		if each != nil {
			each(zeroCPUMem(l))
		}
		addList(out, l)
	}
	sidecars := ResourceList{}
	peak := ResourceList{}
	for i := range p.InitContainers {
		c := &p.InitContainers[i]
		l := pick(c, true)
		var running ResourceList
		if c.RestartPolicy == ContainerRestartPolicyAlways {
			addList(out, l)
			addList(sidecars, l)
			running = sidecars
		} else {
			running = ResourceList{}
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
func zeroCPUMem(l ResourceList) (cpuZero, memZero bool) {
	c, m := l.quantity(ResourceCPU), l.quantity(ResourceMemory)
	return c.IsZero(), m.IsZero()
}

func addList(dst, src ResourceList) {
	for name, q := range src {
		if v, ok := dst[name]; ok {
			v.Add(q)
			dst[name] = v
		} else {
			dst[name] = q.DeepCopy()
		}
	}
}

func maxList(dst, src ResourceList) {
	for name, q := range src {
		if v, ok := dst[name]; !ok || q.Cmp(v) > 0 {
			dst[name] = q.DeepCopy()
		}
	}
}

// quantity returns l[name] or zero.
func (l ResourceList) quantity(name ResourceName) resource.Quantity {
	if q, ok := l[name]; ok {
		return q
	}
	return resource.Quantity{}
}

// MilliCPU returns the cpu quantity in milliCPU (0 when absent).
func (l ResourceList) MilliCPU() int64 {
	q := l.quantity(ResourceCPU)
	return q.MilliValue()
}

// Memory returns the memory quantity in bytes (0 when absent).
func (l ResourceList) Memory() int64 {
	q := l.quantity(ResourceMemory)
	return q.Value()
}

// sortedNames returns the keys of l in order.
func (l ResourceList) sortedNames() []ResourceName {
	names := make([]ResourceName, 0, len(l))
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
func HugePageLimits(l ResourceList) map[int64]int64 {
	out := map[int64]int64{}
	for name, q := range l {
		size, ok := strings.CutPrefix(string(name), ResourceHugePagesPrefix)
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
