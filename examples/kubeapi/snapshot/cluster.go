package snapshot

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/examples/sim"
	"github.com/nodelife/nodelife/taints"
)

// Cluster converts the snapshot into the simulator's explicit cluster:
// nodes with their labels (zones), taints and Ready status; pods with
// their tolerations (admission's defaults are already in the objects),
// priority, priority class, grace period, memory request, static and
// mirror marks, and their workload: the controller owner reference, with
// a ReplicaSet named "<deployment>-<pod-template-hash>" read as its
// Deployment.
//
// Values that repeat across objects are shared, not copied: strings
// (namespaces, node names, owners, label keys and values), label maps,
// toleration lists and resource lists (the pods of a workload ask for the
// same), so that a cluster of a million pods takes a fraction of the
// memory. The shared values are never written to: the simulator and the
// admission checks only read them.
//
// A snapshot read with Options.ReplayOnly has its pods in this form
// already; Cluster converts only its nodes then.
func (s *Snapshot) Cluster() *sim.Cluster {
	in := s.in
	if in == nil {
		in = newInterner()
	}
	c := &sim.Cluster{Nodes: make([]sim.Node, 0, len(s.Nodes)), Pods: s.replayPods, Refused: s.Refused}
	for _, n := range s.Nodes {
		c.Nodes = append(c.Nodes, sim.Node{Name: in.str(n.Name), Labels: in.labels(n.Labels), Taints: kubeapi.Taints(n.Spec.Taints),
			Ready: kubeapi.ReadyStatus(n), Created: n.CreationTimestamp.Time, Allocatable: in.list(kubeapi.Node(n).Allocatable)})
	}
	if c.Pods == nil {
		c.Pods = make([]sim.Pod, 0, len(s.Pods))
		for _, p := range s.Pods {
			c.Pods = append(c.Pods, in.pod(p))
		}
	}
	return c
}

// pod converts p into the simulator's form, its values shared.
func (in *interner) pod(p *corev1.Pod) sim.Pod {
	owner := Workload(p)
	owner.Kind, owner.Name = in.str(owner.Kind), in.str(owner.Name)
	tols := in.tolerations(kubeapi.Tolerations(p.Spec.Tolerations))
	sp := sim.Pod{Namespace: in.str(p.Namespace), Name: p.Name, UID: string(p.UID), Node: in.str(p.Spec.NodeName), Phase: in.str(string(p.Status.Phase)),
		Owner: owner, Tolerations: tols, PriorityClassName: in.str(p.Spec.PriorityClassName),
		Created: p.CreationTimestamp.Time, MemoryRequest: MemoryRequest(p)}
	if v := p.Spec.Priority; v != nil {
		sp.Priority = in.int32(*v)
	}
	if g := p.Spec.TerminationGracePeriodSeconds; g != nil {
		sp.TerminationGracePeriodSeconds = in.int64(*g)
	}
	_, sp.Mirror = p.Annotations[corev1.MirrorPodAnnotationKey]
	if src, ok := p.Annotations["kubernetes.io/config.source"]; ok && src != "api" {
		sp.Static = true
	}
	spec := kubeapi.Pod(p)
	spec.Namespace, spec.Name, spec.UID, spec.NodeName = sp.Namespace, sp.Name, sp.UID, sp.Node
	spec.PriorityClassName, spec.Tolerations, spec.Priority = sp.PriorityClassName, tols, sp.Priority
	spec.Labels = in.labels(spec.Labels)
	spec.Annotations = in.labels(admissionAnnotations(spec.Annotations))
	spec.NodeSelector = in.labels(spec.NodeSelector)
	spec.Overhead = in.list(spec.Overhead)
	spec.InitContainers = in.containers(spec.InitContainers)
	spec.Containers = in.containers(spec.Containers)
	if r := spec.Resources; r != nil {
		r.Requests, r.Limits = in.list(r.Requests), in.list(r.Limits)
	}
	sp.Spec = &spec
	return sp
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
	strs  map[string]string
	maps  map[string]map[string]string
	lists map[string]core.ResourceList
	tols  map[string][]taints.Toleration
	ctrs  map[string][]core.Container
	i32   map[int32]*int32
	i64   map[int64]*int64
	key   []byte // scratch for building keys
}

func newInterner() *interner {
	return &interner{strs: map[string]string{}, maps: map[string]map[string]string{}, lists: map[string]core.ResourceList{},
		tols: map[string][]taints.Toleration{}, ctrs: map[string][]core.Container{}, i32: map[int32]*int32{}, i64: map[int64]*int64{}}
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

// Workload is the pod's workload: its controller owner reference (the
// first owner reference when none is marked controller), with a
// ReplicaSet whose name is "<name>-<pod-template-hash label>" read as
// the Deployment <name>. A pod without owners has none.
func Workload(p *corev1.Pod) sim.Owner {
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
		return sim.Owner{}
	}
	if ref.Kind == "ReplicaSet" {
		if hash := p.Labels["pod-template-hash"]; hash != "" {
			if name, ok := strings.CutSuffix(ref.Name, "-"+hash); ok && name != "" {
				return sim.Owner{Kind: "Deployment", Name: name}
			}
		}
	}
	return sim.Owner{Kind: ref.Kind, Name: ref.Name}
}

// MemoryRequest is the pod's memory request in bytes as the scheduler
// counts it: the larger of the regular containers' sum (with sidecars) and
// the largest init container's; pod-level resources
// (spec.resources.requests.memory), when set, replace the containers';
// the overhead is added to a request that is not zero.
func MemoryRequest(p *corev1.Pod) int64 {
	var sum, sidecars, initMax int64
	for _, c := range p.Spec.InitContainers {
		m := c.Resources.Requests.Memory().Value()
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars += m
			continue
		}
		initMax = max(initMax, sidecars+m)
	}
	for _, c := range p.Spec.Containers {
		sum += c.Resources.Requests.Memory().Value()
	}
	req := max(sum+sidecars, initMax)
	if r := p.Spec.Resources; r != nil {
		if m, ok := r.Requests[corev1.ResourceMemory]; ok {
			req = m.Value()
		}
	}
	if req > 0 {
		req += p.Spec.Overhead.Memory().Value()
	}
	return req
}
