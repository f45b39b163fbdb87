package nodelifetest

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/internal/coretest"
)

// owners are the controllers drawn pods belong to, by kind: the
// controller owner reference each carries (a bare pod has none).
var owners = map[string]metav1.OwnerReference{
	"ReplicaSet":  {APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "uid-rs"},
	"DaemonSet":   {APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", UID: "uid-ds"},
	"StatefulSet": {APIVersion: "apps/v1", Kind: "StatefulSet", Name: "sts", UID: "uid-sts"},
	"Job":         {APIVersion: "batch/v1", Kind: "Job", Name: "job", UID: "uid-job"},
}

// ownedBy returns the controller owner reference of a pod of that kind,
// none for "".
func ownedBy(kind string) []metav1.OwnerReference {
	if kind == "" {
		return nil
	}
	ref := owners[kind]
	ref.Controller = new(bool)
	*ref.Controller = true
	return []metav1.OwnerReference{ref}
}

// sourceAnnotations marks a static pod's source, and a mirror pod's, as
// the kubelet sees them.
func sourceAnnotations(static, mirror bool) map[string]string {
	switch {
	case mirror:
		return map[string]string{core.ConfigSourceAnnotation: "file", core.ConfigMirrorAnnotation: "mirror"}
	case static:
		return map[string]string{core.ConfigSourceAnnotation: "file"}
	}
	return nil
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
// two namespaces, each as the library's one pod type, running (phase
// Running, its Ready condition True or False) and bound to no node
// (PodsOn binds them). Pods have 0-3 containers, shaped Guaranteed (cpu
// and memory requests equal to limits), BestEffort (none) or mixed (cpu,
// memory and ephemeral-storage requests and limits drawn apart, so near
// misses of each class are common), init containers and sidecars on a
// quarter, overhead and pod-level resources on a tenth each, priorities
// from o (the critical values included), static and mirror pods, a
// controller owner of the usual kinds (ReplicaSet, DaemonSet,
// StatefulSet, Job) on most, NoExecuteTolerations, grace periods, emptyDir
// volumes, and a deletion timestamp on about one in eight. QOSClass is
// left empty, so that the planners compute it. PodStats draws their usage.
func Pods(o Options) *rapid.Generator[[]core.Pod] {
	return rapid.Custom(func(t *rapid.T) []core.Pod {
		n := rapid.IntRange(0, o.maxPods()).Draw(t, "pods")
		pods := make([]core.Pod, n)
		for i := range pods {
			pods[i] = drawPod(t, o, i)
		}
		return pods
	})
}

// OnePod draws a single pod as Pods does, named p0.
func OnePod(o Options) *rapid.Generator[core.Pod] {
	return rapid.Custom(func(t *rapid.T) core.Pod { return drawPod(t, o, 0) })
}

// drawPod draws one pod. Counts (containers, init containers, volumes)
// are lists rapid can shorten element by element, and every optional part
// is drawn whether it is kept or not, so that a shrunk pod keeps only what
// the failure needs: no containers, no init containers, huge pages,
// extended resources, overhead, pod-level resources, host ports, grace
// period or volumes unless they matter.
func drawPod(t *rapid.T, o Options, i int) core.Pod {
	p := core.Pod{Namespace: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "ns"), Name: fmt.Sprintf("p%d", i), UID: fmt.Sprintf("uid-%d", i),
		Phase: core.PodRunning}
	p.OwnerReferences = ownedBy(rapid.SampledFrom([]string{"", "ReplicaSet", "ReplicaSet", "DaemonSet", "StatefulSet", "Job"}).Draw(t, "owner"))
	p.Priority = o.priority(t)
	p.Conditions = coretest.PodReady(!rare(t, 4, "notReady"))
	p.DeletionTimestamp = coretest.Deleting(rare(t, 8, "terminating"))
	if p.Priority != nil {
		switch *p.Priority {
		case core.SystemCriticalPriority:
			p.PriorityClassName = "system-cluster-critical"
		case core.SystemCriticalPriority + 1000:
			p.PriorityClassName = "system-node-critical"
		}
	}
	static := rare(t, 10, "static")
	mirror := rare(t, 10, "mirror")
	p.Annotations = sourceAnnotations(static, !static && mirror)
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
		p.Volumes = append(p.Volumes, core.Volume{Name: fmt.Sprintf("v%d", v), Source: core.VolumeEmptyDir})
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

// PodStats draws the usage the kubelet's summary API reports for the
// pods, keyed by UID as eviction/pressure takes it: a reading for about
// five pods in six (the pod's working set and process count, each
// container's working set, root filesystem and logs by the container's
// name, each emptyDir volume's use by the volume's name), any figure of
// which may be missing. Pods without a reading have no entry.
func PodStats(pods []core.Pod) *rapid.Generator[pressure.Stats] {
	return rapid.Custom(func(t *rapid.T) pressure.Stats {
		_ = rapid.Bool().Draw(t, "readings") // a draw even for no pods
		out := pressure.Stats{}
		for i := range pods {
			has := usually(t, 6, "stats")
			st := drawStats(t, &pods[i])
			if has {
				out[pods[i].UID] = st
			}
		}
		return out
	})
}

func drawStats(t *rapid.T, p *core.Pod) *pressure.PodStats {
	st := &pressure.PodStats{WorkingSetBytes: optUsage(t, "ws"), ProcessCount: optUsage(t, "procs")}
	for _, c := range p.Containers {
		st.Containers = append(st.Containers, pressure.ContainerStats{Name: c.Name, WorkingSetBytes: optUsage(t, "cws"),
			Rootfs: &pressure.FsUsage{UsedBytes: optUsage(t, "rootfs"), InodesUsed: optUsage(t, "rootfsInodes")},
			Logs:   &pressure.FsUsage{UsedBytes: optUsage(t, "logs"), InodesUsed: optUsage(t, "logsInodes")}})
	}
	for _, v := range p.Volumes {
		if v.Source != core.VolumeEmptyDir {
			continue
		}
		st.Volumes = append(st.Volumes, pressure.VolumeStats{Name: v.Name, FsUsage: pressure.FsUsage{UsedBytes: optUsage(t, "vol"), InodesUsed: optUsage(t, "volInodes")}})
	}
	return st
}

// PodsOn spreads pods over the named nodes: each pod is bound to one of
// them, drawn, or left unbound about once in ten; with no nodes every pod
// stays unbound. The pods are copied; the input is not changed.
func PodsOn(pods []core.Pod, nodes []string) *rapid.Generator[[]core.Pod] {
	return rapid.Custom(func(t *rapid.T) []core.Pod {
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
