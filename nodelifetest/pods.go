package nodelifetest

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/internal/coretest"
	"github.com/nodelife/nodelife/taints"
)

// Pod is one drawn pod in every shape a package of the library takes: the
// generators draw it once and its methods give the cgroup, admission,
// kubelet-eviction, shutdown, taint-eviction and node-lifecycle views of
// the same pod, so that one counterexample can be fed to every planner.
type Pod struct {
	// Namespace, Name and UID identify the pod; drawn lists have unique
	// namespace/name pairs and UIDs.
	Namespace, Name, UID string
	// OwnerKind is the kind of the pod's controller ("ReplicaSet",
	// "DaemonSet", "StatefulSet", "Job"), or "" for a bare pod.
	OwnerKind string
	// NodeName is the node the pod is bound to ("" when unbound).
	NodeName string
	// Priority is spec.priority (nil when unset); PriorityClassName names
	// its class for the well-known critical values.
	Priority          *int32
	PriorityClassName string
	// Static and Mirror mark a static pod and its mirror.
	Static, Mirror bool
	// InitContainers (sidecars among them, RestartPolicy Always) and
	// Containers carry cpu, memory and ephemeral-storage requests and
	// limits; Overhead and Resources (pod-level) are set on some pods.
	InitContainers, Containers []core.Container
	Overhead                   core.ResourceList
	Resources                  *core.ResourceRequirements
	// HostPorts are the host ports its containers ask for (on some pods).
	HostPorts []core.ContainerPort
	// Tolerations are the pod's tolerations.
	Tolerations []taints.Toleration
	// TerminationGracePeriodSeconds is spec.terminationGracePeriodSeconds.
	TerminationGracePeriodSeconds *int64
	// Ready and Terminating are the pod's Ready condition and whether it
	// has a deletion timestamp.
	Ready, Terminating bool
	// Stats is the pod's usage as the kubelet's summary reports it (nil
	// for a pod without a reading); container names match Containers.
	Stats *pressure.PodStats
	// LocalVolumes names the pod's emptyDir volumes, which Stats.Volumes
	// report.
	LocalVolumes []string
}

// Key returns "namespace/name".
func (p Pod) Key() string { return p.Namespace + "/" + p.Name }

// Core returns the pod as the library's one pod type, running on its node:
// what the cgroup computations, graceful shutdown, admission, the NoExecute
// taint-eviction planner and the node lifecycle controller take (its Ready
// condition True or False as Ready, a deletion timestamp when
// Terminating). Its QOSClass is left empty, so that cgroup computes it.
func (p Pod) Core() core.Pod {
	return core.Pod{Namespace: p.Namespace, Name: p.Name, UID: p.UID, Annotations: p.annotations(), NodeName: p.NodeName,
		Priority: p.Priority, PriorityClassName: p.PriorityClassName, TerminationGracePeriodSeconds: p.TerminationGracePeriodSeconds,
		Tolerations: p.Tolerations, InitContainers: p.InitContainers, Containers: p.Containers, Resources: p.Resources,
		Overhead: p.Overhead, HostPorts: p.HostPorts, Volumes: p.volumes(), Phase: core.PodRunning, Conditions: coretest.PodReady(p.Ready), DeletionTimestamp: coretest.Deleting(p.Terminating)}
}

// QOSClass returns the pod's QoS class as the kubelet computes it.
func (p Pod) QOSClass() core.PodQOSClass { return cgroup.ComputeQOS(p.Core(), cgroup.QOSOptions{}) }

// Critical reports whether the kubelet treats the pod as critical: static,
// mirror, or of priority at least core.SystemCriticalPriority.
func (p Pod) Critical() bool { c := p.Core(); return c.IsCritical() }

// annotations marks a static pod's source as the kubelet sees it.
func (p Pod) annotations() map[string]string {
	switch {
	case p.Mirror:
		return map[string]string{core.ConfigSourceAnnotation: "file", core.ConfigMirrorAnnotation: "mirror"}
	case p.Static:
		return map[string]string{core.ConfigSourceAnnotation: "file"}
	}
	return nil
}

// Pressure returns pods as the kubelet's node-pressure eviction takes
// them: each pod's Core, and their Stats readings by UID (a pod whose
// Stats is nil has no entry).
func Pressure(pods []Pod) ([]core.Pod, pressure.Stats) {
	out := make([]core.Pod, len(pods))
	stats := pressure.Stats{}
	for i := range pods {
		out[i] = pods[i].Core()
		if pods[i].Stats != nil {
			stats[pods[i].UID] = pods[i].Stats
		}
	}
	return out, stats
}

// volumes returns the pod's LocalVolumes as emptyDir volumes on the node's
// disk.
func (p Pod) volumes() []core.Volume {
	var out []core.Volume
	for _, v := range p.LocalVolumes {
		out = append(out, core.Volume{Name: v, Source: core.VolumeEmptyDir})
	}
	return out
}

// priorities are the values policies key on, the edge just below critical
// included.
var priorities = []int32{-100, 0, 0, 10, 1000, 100000, 1000000000, core.SystemCriticalPriority - 1, core.SystemCriticalPriority, core.SystemCriticalPriority + 1000}

func (o Options) priority(t *rapid.T) *int32 {
	none := rare(t, 4, "noPriority")
	var v int32
	if o.MaxPriority > o.MinPriority {
		v = rapid.Int32Range(o.MinPriority, o.MaxPriority).Draw(t, "priority")
	} else {
		v = rapid.SampledFrom(priorities).Draw(t, "priority")
	}
	if none {
		return nil
	}
	return &v
}

// quantities are the amounts drawn for memory and storage, in bytes.
var quantities = []int64{0, 1, 1 << 10, 64 << 20, 100 << 20, 128 * 1000 * 1000, 1 << 30, 2 << 30}

func drawQuantity(t *rapid.T, name core.ResourceName, label string) resource.Quantity {
	if name == core.ResourceCPU {
		return *resource.NewMilliQuantity(rapid.SampledFrom([]int64{0, 1, 100, 250, 500, 1000, 1500, 2000, 4000}).Draw(t, label), resource.DecimalSI)
	}
	return *resource.NewQuantity(rapid.SampledFrom(quantities).Draw(t, label), resource.BinarySI)
}

var podResources = []core.ResourceName{core.ResourceCPU, core.ResourceMemory, core.ResourceEphemeralStorage}

// scalarResources are the huge-page and extended resources drawn on some
// containers, requests equal to limits as the API server requires.
var scalarResources = []core.ResourceName{"hugepages-2Mi", "example.com/gpu"}

// drawResources draws requests and limits of cpu, memory and ephemeral
// storage, and on some containers of 2 MiB huge pages and an extended
// resource (example.com/gpu). Requests often equal the limit (and are then left out half the
// time, as the API server defaults them), so that Guaranteed pods and
// their near misses are common.
//
// Every amount is drawn whether it is kept or not, here and in drawPod, so
// that switching a part off while shrinking leaves the draws after it
// where they were and the rest of the counterexample intact.
func drawResources(t *rapid.T, label string) core.ResourceRequirements {
	r := core.ResourceRequirements{Requests: core.ResourceList{}, Limits: core.ResourceList{}}
	for _, name := range scalarResources {
		on := rare(t, 6, label+"scalar"+string(name))
		q := drawQuantity(t, name, label+"scalarq"+string(name))
		if on {
			r.Limits[name], r.Requests[name] = q, q.DeepCopy() // the API server wants them equal
		}
	}
	for _, name := range podResources {
		limit := rapid.IntRange(0, 3).Draw(t, label+"lim"+string(name)) > 0
		lq := drawQuantity(t, name, label+"limq"+string(name))
		if limit {
			r.Limits[name] = lq
		}
		req := rapid.IntRange(0, 4).Draw(t, label+"req"+string(name))
		rq := drawQuantity(t, name, label+"reqq"+string(name))
		switch req {
		case 1:
			r.Requests[name] = rq
		case 2, 3:
			if q, ok := r.Limits[name]; ok {
				r.Requests[name] = q.DeepCopy()
			}
		}
	}
	return r
}

// Pods draws lists of up to o.MaxPods pods with unique names and UIDs in
// two namespaces. Pods have 0-3 containers, shaped Guaranteed (cpu and
// memory requests equal to limits), BestEffort (none) or mixed (cpu,
// memory and ephemeral-storage requests and limits drawn apart, so near
// misses of each class are common), init
// containers and sidecars on a quarter, overhead and pod-level resources
// on a tenth each, priorities from o (the critical values included),
// static and mirror pods, owners of the usual kinds, NoExecuteTolerations,
// grace periods, and a usage reading (Stats) on most.
func Pods(o Options) *rapid.Generator[[]Pod] {
	return rapid.Custom(func(t *rapid.T) []Pod {
		n := rapid.IntRange(0, o.maxPods()).Draw(t, "pods")
		pods := make([]Pod, n)
		for i := range pods {
			pods[i] = drawPod(t, o, i)
		}
		return pods
	})
}

// OnePod draws a single pod as Pods does, named p0.
func OnePod(o Options) *rapid.Generator[Pod] {
	return rapid.Custom(func(t *rapid.T) Pod { return drawPod(t, o, 0) })
}

// drawPod draws one pod. Counts (containers, init containers, volumes)
// are lists rapid can shorten element by element, and every optional part
// is drawn whether it is kept or not, so that a shrunk pod keeps only what
// the failure needs: no containers, no init containers, huge pages,
// extended resources, overhead, pod-level resources, host ports, grace
// period, volumes or usage reading unless they matter.
func drawPod(t *rapid.T, o Options, i int) Pod {
	p := Pod{Namespace: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "ns"), Name: fmt.Sprintf("p%d", i), UID: fmt.Sprintf("uid-%d", i),
		OwnerKind: rapid.SampledFrom([]string{"", "ReplicaSet", "ReplicaSet", "DaemonSet", "StatefulSet", "Job"}).Draw(t, "owner"),
		Priority:  o.priority(t), Ready: !rare(t, 4, "notReady"), Terminating: rare(t, 8, "terminating")}
	if p.Priority != nil {
		switch *p.Priority {
		case core.SystemCriticalPriority:
			p.PriorityClassName = "system-cluster-critical"
		case core.SystemCriticalPriority + 1000:
			p.PriorityClassName = "system-node-critical"
		}
	}
	p.Static = rare(t, 10, "static")
	mirror := rare(t, 10, "mirror")
	p.Mirror = !p.Static && mirror
	shape := rapid.IntRange(0, 3).Draw(t, "shape") // 0: Guaranteed-shaped, 1: BestEffort-shaped, else mixed
	container := rapid.Custom(func(t *rapid.T) core.Container {
		var ct core.Container
		mixed := drawResources(t, "c") // drawn for every shape: a container draws something
		switch shape {
		case 0:
			ct.Resources = core.ResourceRequirements{Requests: core.ResourceList{}, Limits: core.ResourceList{}}
			for _, name := range []core.ResourceName{core.ResourceCPU, core.ResourceMemory} {
				q := drawQuantity(t, name, "g"+string(name))
				ct.Resources.Limits[name], ct.Resources.Requests[name] = q, q.DeepCopy()
			}
		case 1:
		default:
			ct.Resources = mixed
		}
		return ct
	})
	p.Containers = rapid.SliceOfN(container, 0, 3).Draw(t, "containers")
	for k := range p.Containers {
		p.Containers[k].Name = fmt.Sprintf("c%d", len(p.Containers)-k)
	}
	hasInits := rare(t, 4, "init")
	inits := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) core.Container {
		ic := core.Container{Resources: drawResources(t, "i")}
		if rapid.Bool().Draw(t, "sidecar") {
			ic.RestartPolicy = core.ContainerRestartPolicyAlways
		}
		return ic
	}), 1, 2).Draw(t, "inits")
	if hasInits {
		for k := range inits {
			inits[k].Name = fmt.Sprintf("i%d", len(inits)-k)
		}
		p.InitContainers = inits
	}
	hasOverhead := rare(t, 10, "overhead")
	overhead := core.ResourceList{core.ResourceCPU: drawQuantity(t, core.ResourceCPU, "ohcpu"),
		core.ResourceMemory: drawQuantity(t, core.ResourceMemory, "ohmem")}
	if hasOverhead {
		p.Overhead = overhead
	}
	hasPodLevel := rare(t, 10, "podLevel")
	podLevel := drawResources(t, "pod")
	if hasPodLevel {
		p.Resources = &podLevel
	}
	hasHostPort := rare(t, 4, "hostPort")
	port := core.ContainerPort{HostPort: rapid.Int32Range(79, 81).Draw(t, "port"), HostIP: rapid.SampledFrom([]string{"", "10.0.0.1"}).Draw(t, "hostIP")}
	if hasHostPort {
		p.HostPorts = []core.ContainerPort{port}
	}
	p.Tolerations = NoExecuteTolerations().Draw(t, "tolerations")
	hasGrace := rapid.Bool().Draw(t, "hasGrace")
	grace := int64(rapid.SampledFrom([]int{0, 1, 10, 30, 60, 120, 400}).Draw(t, "grace"))
	if hasGrace {
		p.TerminationGracePeriodSeconds = &grace
	}
	volumes := rapid.IntRange(0, 2).Draw(t, "volumes")
	for v := volumes; v > 0; v-- {
		p.LocalVolumes = append(p.LocalVolumes, fmt.Sprintf("v%d", v))
	}
	hasStats := usually(t, 6, "stats")
	stats := drawStats(t, p)
	if hasStats {
		p.Stats = stats
	}
	return p
}

// usage values, in bytes or counts; nil (no reading) about once in ten.
func optUsage(t *rapid.T, label string) *uint64 {
	none := rare(t, 10, label+"?")
	v := rapid.SampledFrom([]uint64{0, 1, 1000, 1 << 10, 1 << 20, 100 << 20, 1 << 30, 3 << 30}).Draw(t, label)
	if none {
		return nil
	}
	return &v
}

func drawStats(t *rapid.T, p Pod) *pressure.PodStats {
	st := &pressure.PodStats{WorkingSetBytes: optUsage(t, "ws"), ProcessCount: optUsage(t, "procs")}
	for _, c := range p.Containers {
		st.Containers = append(st.Containers, pressure.ContainerStats{Name: c.Name, WorkingSetBytes: optUsage(t, "cws"),
			Rootfs: &pressure.FsUsage{UsedBytes: optUsage(t, "rootfs"), InodesUsed: optUsage(t, "rootfsInodes")},
			Logs:   &pressure.FsUsage{UsedBytes: optUsage(t, "logs"), InodesUsed: optUsage(t, "logsInodes")}})
	}
	for _, v := range p.LocalVolumes {
		st.Volumes = append(st.Volumes, pressure.VolumeStats{Name: v, FsUsage: pressure.FsUsage{UsedBytes: optUsage(t, "vol"), InodesUsed: optUsage(t, "volInodes")}})
	}
	return st
}

// PodsOn spreads pods over the named nodes: each pod is bound to one of
// them, drawn, or left unbound about once in ten; with no nodes every pod
// stays unbound.
func PodsOn(pods []Pod, nodes []string) *rapid.Generator[[]Pod] {
	return rapid.Custom(func(t *rapid.T) []Pod {
		_ = rapid.Bool().Draw(t, "spread") // a draw even for no pods
		out := slices.Clone(pods)
		for i := range out {
			out[i].NodeName = ""
			if len(nodes) > 0 && !rare(t, 10, "unbound") {
				out[i].NodeName = rapid.SampledFrom(nodes).Draw(t, "node")
			}
		}
		return out
	})
}

// AdmissionNodes draws nodes as kubelet admission takes them, named n1:
// allocatable cpu, memory, ephemeral storage, 2 MiB huge pages and
// example.com/gpu, each listed on about two nodes in three (amounts from
// the same values pods request), and 0-12 pods.
func AdmissionNodes(o Options) *rapid.Generator[core.Node] {
	return rapid.Custom(func(t *rapid.T) core.Node {
		alloc := core.ResourceList{}
		for _, name := range append(slices.Clone(podResources), scalarResources...) {
			if !rare(t, 3, "unlisted "+string(name)) {
				alloc[name] = drawQuantity(t, name, "allocatable "+string(name))
			}
		}
		alloc[core.ResourcePods] = *resource.NewQuantity(rapid.Int64Range(0, 12).Draw(t, "pods"), resource.DecimalSI)
		return core.Node{Name: "n1", UID: "uid-n1", Allocatable: alloc}
	})
}
