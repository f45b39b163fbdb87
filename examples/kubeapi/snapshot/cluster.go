package snapshot

import (
	"encoding/binary"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/sim"
	"github.com/nodelife/nodelife/taints"
)

// Cluster converts the snapshot into the simulator's explicit cluster, in
// the library's own types: nodes with their labels (zones), taints,
// creation time, allocatable and Ready condition; pods as kubeapi.Pod
// converts them, with two things left out: the annotations other than the
// ones the kubelet's admission reads (a static pod's source, a mirror
// pod's hash), and of the owner references all but the pod's workload
// (sim.WorkloadOf: the controller, or the first), without its UID.
//
// Values that repeat across objects are shared, not copied: strings
// (namespaces, node names, label keys and values), label maps, owner
// references, toleration lists, container lists and resource lists (the
// pods of a workload ask for the same), so that a cluster of a million
// pods takes a fraction of the memory. The shared values are never written
// to: the simulator and the admission checks only read them.
//
// A snapshot read with Options.ReplayOnly has its pods in this form
// already; Cluster converts only its nodes then.
func (s *Snapshot) Cluster() *sim.Cluster {
	in := s.in
	if in == nil {
		in = newInterner()
	}
	c := &sim.Cluster{Nodes: make([]core.Node, 0, len(s.Nodes)), Pods: s.replayPods, Refused: s.Refused}
	for _, n := range s.Nodes {
		c.Nodes = append(c.Nodes, in.node(n))
	}
	if c.Pods == nil {
		c.Pods = make([]core.Pod, 0, len(s.Pods))
		for _, p := range s.Pods {
			c.Pods = append(c.Pods, in.pod(p))
		}
	}
	return c
}

// node converts n as kubeapi.Node does, its name, labels and allocatable
// shared.
func (in *interner) node(n *corev1.Node) core.Node {
	out := kubeapi.Node(n)
	out.Name, out.Labels, out.Allocatable = in.str(out.Name), in.labels(out.Labels), in.list(out.Allocatable)
	return out
}

// pod converts p into the library's pod, its values shared.
func (in *interner) pod(p *corev1.Pod) core.Pod {
	out := kubeapi.Pod(p)
	out.Namespace, out.NodeName = in.str(p.Namespace), in.str(p.Spec.NodeName)
	out.Phase = core.PodPhase(in.str(string(p.Status.Phase)))
	out.PriorityClassName = in.str(p.Spec.PriorityClassName)
	out.Tolerations = in.tolerations(out.Tolerations)
	if v := p.Spec.Priority; v != nil {
		out.Priority = in.int32(*v)
	}
	if g := p.Spec.TerminationGracePeriodSeconds; g != nil {
		out.TerminationGracePeriodSeconds = in.int64(*g)
	}
	out.OwnerReferences = in.owner(p)
	out.Labels = in.labels(out.Labels)
	out.Annotations = in.labels(admissionAnnotations(out.Annotations))
	out.NodeSelector = in.labels(out.NodeSelector)
	out.Overhead = in.list(out.Overhead)
	out.InitContainers = in.containers(out.InitContainers)
	out.Containers = in.containers(out.Containers)
	if r := out.Resources; r != nil {
		r.Requests, r.Limits = in.list(r.Requests), in.list(r.Limits)
	}
	return out
}

// admissionAnnotations keeps the annotations the kubelet's admission reads
// (a static pod's source, a mirror pod's hash); the rest (last applied
// configurations, say) can be large and is not read.
func admissionAnnotations(a map[string]string) map[string]string {
	var out map[string]string
	for _, k := range []string{core.ConfigSourceAnnotation, core.ConfigMirrorAnnotation, core.ConfigHashAnnotation} {
		if v, ok := a[k]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// interner shares equal values: each distinct value is kept once, under a
// key that spells it out.
type interner struct {
	strs   map[string]string
	maps   map[string]map[string]string
	lists  map[string]core.ResourceList
	tols   map[string][]taints.Toleration
	ctrs   map[string][]core.Container
	i32    map[int32]*int32
	i64    map[int64]*int64
	owners map[string][]metav1.OwnerReference
	yes    bool   // true: what every shared owner reference's Controller points to
	key    []byte // scratch for building keys
}

func newInterner() *interner {
	return &interner{strs: map[string]string{}, maps: map[string]map[string]string{}, lists: map[string]core.ResourceList{},
		tols: map[string][]taints.Toleration{}, ctrs: map[string][]core.Container{}, i32: map[int32]*int32{}, i64: map[int64]*int64{},
		owners: map[string][]metav1.OwnerReference{}, yes: true}
}

func (in *interner) str(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := in.strs[s]; ok {
		return v
	}
	in.strs[s] = s
	return s
}

// labels shares a string map (labels, selectors), keys and values too.
func (in *interner) labels(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	key := in.key[:0]
	for _, k := range keys {
		key = keyField(keyField(key, k), m[k])
	}
	in.key = key
	if v, ok := in.maps[string(key)]; ok {
		return v
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[in.str(k)] = in.str(v)
	}
	in.maps[string(key)] = out
	return out
}

// list shares a resource list.
func (in *interner) list(l core.ResourceList) core.ResourceList {
	l, _ = in.listKeyed(l)
	return l
}

// listKeyed shares a resource list and returns the key that spells it out
// (names sorted, each with its quantity; "" for none).
func (in *interner) listKeyed(l core.ResourceList) (core.ResourceList, string) {
	if l == nil {
		return nil, ""
	}
	var names [8]string
	ns := names[:0]
	for n := range l {
		ns = append(ns, string(n))
	}
	slices.Sort(ns)
	key := in.key[:0]
	for _, n := range ns {
		q := l[core.ResourceName(n)]
		key = keyField(keyField(key, n), q.String())
	}
	in.key = key
	if v, ok := in.lists[string(key)]; ok {
		return v, in.str(string(key))
	}
	k := string(key)
	in.lists[k] = l
	return l, in.str(k)
}

// tolerations shares a toleration list.
func (in *interner) tolerations(ts []taints.Toleration) []taints.Toleration {
	if ts == nil {
		return nil
	}
	// Field by field: an empty key and a literal "*" differ.
	key := in.key[:0]
	for _, t := range ts {
		key = keyField(keyField(keyField(keyField(key, t.Key), string(t.Operator)), t.Value), string(t.Effect))
		seconds := "nil"
		if t.TolerationSeconds != nil {
			seconds = strconv.FormatInt(*t.TolerationSeconds, 10)
		}
		key = keyField(key, seconds)
	}
	in.key = key
	if v, ok := in.tols[string(key)]; ok {
		return v
	}
	in.tols[string(key)] = ts
	return ts
}

// containers shares a container list (names, resources, restart
// policies), its resource lists too.
func (in *interner) containers(cs []core.Container) []core.Container {
	if cs == nil {
		return nil
	}
	var key []byte
	for i := range cs {
		c := &cs[i]
		c.Name, c.RestartPolicy = in.str(c.Name), in.str(c.RestartPolicy)
		var req, lim string
		c.Resources.Requests, req = in.listKeyed(c.Resources.Requests)
		c.Resources.Limits, lim = in.listKeyed(c.Resources.Limits)
		key = keyField(keyField(keyField(keyField(key, c.Name), c.RestartPolicy), req), lim)
	}
	if v, ok := in.ctrs[string(key)]; ok {
		return v
	}
	in.ctrs[string(key)] = cs
	return cs
}

func (in *interner) int32(v int32) *int32 { return sharedPtr(in.i32, v) }

func (in *interner) int64(v int64) *int64 { return sharedPtr(in.i64, v) }

// keyField appends s to a key, its length first, so that no two sequences of
// fields make the same key whatever bytes they hold.
func keyField(key []byte, s string) []byte {
	return append(binary.AppendUvarint(key, uint64(len(s))), s...)
}

// sharedPtr returns the one pointer to v kept in m.
func sharedPtr[T comparable](m map[T]*T, v T) *T {
	if p, ok := m[v]; ok {
		return p
	}
	p := &v
	m[v] = p
	return p
}

// owner shares the owner reference of a pod's workload (its controller,
// or its first when none is marked controller, as sim.WorkloadOf reads
// them), without its UID; nil for a pod without owners.
func (in *interner) owner(p *corev1.Pod) []metav1.OwnerReference {
	var ref *metav1.OwnerReference
	for i := range p.OwnerReferences {
		if r := &p.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			ref = r
			break
		}
	}
	if ref == nil && len(p.OwnerReferences) > 0 {
		ref = &p.OwnerReferences[0]
	}
	if ref == nil {
		return nil
	}
	controller := ref.Controller != nil && *ref.Controller
	key := keyField(keyField(keyField(in.key[:0], ref.APIVersion), ref.Kind), ref.Name)
	if controller {
		key = append(key, 'c')
	}
	in.key = key
	if v, ok := in.owners[string(key)]; ok {
		return v
	}
	out := []metav1.OwnerReference{{APIVersion: in.str(ref.APIVersion), Kind: in.str(ref.Kind), Name: in.str(ref.Name)}}
	if controller {
		out[0].Controller = &in.yes
	}
	in.owners[string(key)] = out
	return out
}
