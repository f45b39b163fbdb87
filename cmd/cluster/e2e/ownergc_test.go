package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
	"github.com/nodelife/nodelife/cmd/cluster/ownergc"
	"github.com/nodelife/nodelife/gc"
)

// gcEnv is one owner GC test: a namespace of its own, the collector, and
// the clients to make and read objects.
type gcEnv struct {
	t      *testing.T
	ctx    context.Context
	client kubernetes.Interface
	dyn    dynamic.Interface
	ns     string
	c      *ownergc.Collector
	last   ownergc.Result // the last sync's
}

func newGCEnv(t *testing.T, ns string) *gcEnv {
	s := testcluster.Shared(t)
	meta, err := metadata.NewForConfig(s.Config)
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(s.Config)
	require.NoError(t, err)
	c, err := ownergc.New(s.Client.Discovery(), meta, s.Client.CoreV1(), ownergc.Options{})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	newNamespace(t, s, ns)
	return &gcEnv{t: t, ctx: context.Background(), client: s.Client, dyn: dyn, ns: ns, c: c}
}

func ref(kind, name string, uid types.UID, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: kind, Name: name, UID: uid, BlockOwnerDeletion: &block}
}

// configMap creates a ConfigMap with owners and finalizers.
func (e *gcEnv) configMap(name string, finalizers []string, owners ...metav1.OwnerReference) *corev1.ConfigMap {
	cm, err := e.client.CoreV1().ConfigMaps(e.ns).Create(e.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name,
		OwnerReferences: owners, Finalizers: finalizers}}, metav1.CreateOptions{})
	require.NoError(e.t, err)
	return cm
}

// get returns the ConfigMap, nil when it is gone.
func (e *gcEnv) get(name string) *corev1.ConfigMap {
	cm, err := e.client.CoreV1().ConfigMaps(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	return orGone(e.t, cm, err)
}

// orGone returns what a GET read, nil when the object is gone (any other
// error fails t).
func orGone[T any](t *testing.T, v *T, err error) *T {
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(t, err)
	return v
}

// newNamespace creates namespace ns on the shared API server.
func newNamespace(t *testing.T, s *testcluster.Server, ns string) {
	_, err := s.Client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
}

func (e *gcEnv) delete(name string, policy metav1.DeletionPropagation) {
	require.NoError(e.t, e.client.CoreV1().ConfigMaps(e.ns).Delete(e.ctx, name, metav1.DeleteOptions{PropagationPolicy: &policy}))
}

// sync runs one Sync and returns (and keeps in e.last) what it did in
// this test's namespace. A write refused because the informer's copy was
// behind (a conflict) or left because a live read found an owner the
// informer had not seen yet is fine: the next Sync does it.
func (e *gcEnv) sync() ownergc.Result {
	res, err := e.c.Sync(e.ctx)
	require.NoError(e.t, err)
	require.Empty(e.t, res.Errors)
	keep := func(refs []gc.ObjectRef) []gc.ObjectRef {
		return slices.DeleteFunc(refs, func(r gc.ObjectRef) bool { return r.Namespace != e.ns })
	}
	res.Deleted, res.Patched, res.Finalized = keep(res.Deleted), keep(res.Patched), keep(res.Finalized)
	e.last = res
	return res
}

// syncUntil syncs until done holds (the informers learn of a write a
// moment after it is made), at most 100 times, and returns what the syncs
// wrote in this test's namespace, each list in name order.
func (e *gcEnv) syncUntil(what string, done func() bool) ownergc.Result {
	var all ownergc.Result
	for i := 0; i < 100; i++ {
		res := e.sync()
		all.Deleted = append(all.Deleted, res.Deleted...)
		all.Patched = append(all.Patched, res.Patched...)
		all.Finalized = append(all.Finalized, res.Finalized...)
		if done() {
			// A pass behind the deletion of its own earlier pass deletes
			// again and finds the object gone: count each object once.
			for _, l := range []*[]gc.ObjectRef{&all.Deleted, &all.Patched, &all.Finalized} {
				slices.SortFunc(*l, func(a, b gc.ObjectRef) int { return strings.Compare(string(a.UID), string(b.UID)) })
				*l = slices.CompactFunc(*l, func(a, b gc.ObjectRef) bool { return a.UID == b.UID })
			}
			return all
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("after 100 syncs: %s", what)
	return all
}

func names(refs []gc.ObjectRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return out
}

// An owner deleted in the background: its dependent goes at the next
// Sync, and not before.
func TestOwnerGCBackground(t *testing.T) {
	e := newGCEnv(t, "gc-background")
	owner := e.configMap("owner", nil)
	e.configMap("dep", nil, ref("ConfigMap", "owner", owner.UID, false))
	res := e.sync()
	require.Empty(t, res.Deleted, "the owner is there")
	require.NotNil(t, e.get("dep"))

	e.delete("owner", metav1.DeletePropagationBackground)
	require.Nil(t, e.get("owner"))
	res = e.syncUntil("dep is gone", func() bool { return e.get("dep") == nil })
	require.Equal(t, []string{"dep"}, names(res.Deleted))
}

// An owner deleted in the foreground stays, with deletionTimestamp and
// the foregroundDeletion finalizer, until its blocking dependent is gone;
// then the collector removes the finalizer and the owner goes.
func TestOwnerGCForeground(t *testing.T) {
	e := newGCEnv(t, "gc-foreground")
	owner := e.configMap("owner", nil)
	e.configMap("dep", nil, ref("ConfigMap", "owner", owner.UID, true))
	e.delete("owner", metav1.DeletePropagationForeground)
	o := e.get("owner")
	require.NotNil(t, o)
	require.NotNil(t, o.DeletionTimestamp)
	require.Contains(t, o.Finalizers, metav1.FinalizerDeleteDependents)

	res := e.syncUntil("dep is gone", func() bool { return e.get("dep") == nil })
	require.Equal(t, []string{"dep"}, names(res.Deleted))
	require.NotNil(t, e.get("owner"), "the owner goes only once its dependent is gone")
	e.syncUntil("the owner is gone", func() bool { return e.get("owner") == nil })
}

// An owner deleted with the orphan policy: the dependent loses its
// reference and stays; the owner's orphan finalizer goes, then the owner.
func TestOwnerGCOrphan(t *testing.T) {
	e := newGCEnv(t, "gc-orphan")
	owner := e.configMap("owner", nil)
	other := e.configMap("other", nil)
	e.configMap("dep", nil, ref("ConfigMap", "owner", owner.UID, true), ref("ConfigMap", "other", other.UID, false))
	e.delete("owner", metav1.DeletePropagationOrphan)
	require.Contains(t, e.get("owner").Finalizers, metav1.FinalizerOrphanDependents)

	res := e.syncUntil("the owner is gone", func() bool { return e.get("owner") == nil })
	require.Equal(t, []string{"dep"}, names(res.Patched))
	require.Equal(t, []string{"owner"}, names(res.Finalized))
	dep := e.get("dep")
	require.NotNil(t, dep)
	require.Equal(t, []metav1.OwnerReference{ref("ConfigMap", "other", other.UID, false)}, dep.OwnerReferences)
	require.Empty(t, e.sync().Deleted, "the remaining owner keeps the dependent")
}

// blockOwnerDeletion: a foreground deletion waits for a blocking
// dependent that cannot go yet (a finalizer of its own holds it), and
// finishes once it is gone.
func TestOwnerGCBlockOwnerDeletion(t *testing.T) {
	e := newGCEnv(t, "gc-block")
	owner := e.configMap("owner", nil)
	e.configMap("held", []string{"example.com/hold"}, ref("ConfigMap", "owner", owner.UID, true))
	e.delete("owner", metav1.DeletePropagationForeground)
	e.syncUntil("the collector deleted the dependent", func() bool { return e.get("held").DeletionTimestamp != nil })
	e.sync()
	held := e.get("held")
	require.NotNil(t, held, "its own finalizer holds the dependent")
	o := e.get("owner")
	require.NotNil(t, o, "the owner waits for its blocking dependent")
	require.Contains(t, o.Finalizers, metav1.FinalizerDeleteDependents)

	held.Finalizers = nil
	_, err := e.client.CoreV1().ConfigMaps(e.ns).Update(e.ctx, held, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.Nil(t, e.get("held"))
	e.syncUntil("the owner is gone", func() bool { return e.get("owner") == nil })
}

// Two objects owning each other are never collected (the plan reports
// the cycle); once one is deleted, the other's owner is gone and it goes.
func TestOwnerGCCycle(t *testing.T) {
	e := newGCEnv(t, "gc-cycle")
	a := e.configMap("a", nil)
	b := e.configMap("b", nil, ref("ConfigMap", "a", a.UID, false))
	a.OwnerReferences = []metav1.OwnerReference{ref("ConfigMap", "b", b.UID, false)}
	_, err := e.client.CoreV1().ConfigMaps(e.ns).Update(e.ctx, a, metav1.UpdateOptions{})
	require.NoError(t, err)

	var cycle []string
	res := e.syncUntil("the plan reports the cycle", func() bool {
		for _, c := range e.last.Plan.Cycles {
			if len(c) > 0 && c[0].Namespace == e.ns {
				cycle = names(c)
			}
		}
		return cycle != nil
	})
	require.Equal(t, []string{"a", "b"}, cycle)
	require.Empty(t, res.Deleted)

	e.delete("a", metav1.DeletePropagationBackground)
	res = e.syncUntil("b is gone", func() bool { return e.get("b") == nil })
	require.Equal(t, []string{"b"}, names(res.Deleted))
}

// A dependent whose owner never existed (a UID nobody has) goes; one whose
// owner is in another namespace (owner references never cross
// namespaces) goes too, with an OwnerRefInvalidNamespace event on it.
func TestOwnerGCDanglingOwner(t *testing.T) {
	e := newGCEnv(t, "gc-dangling")
	elsewhere := newGCEnv(t, "gc-dangling-other")
	far := elsewhere.configMap("far", nil)
	e.configMap("ghost-child", nil, ref("ConfigMap", "ghost", "00000000-0000-4000-8000-00000000dead", false))
	e.configMap("far-child", nil, ref("ConfigMap", "far", far.UID, false))

	res := e.syncUntil("both children are gone", func() bool { return e.get("ghost-child") == nil && e.get("far-child") == nil })
	require.Equal(t, []string{"far-child", "ghost-child"}, names(res.Deleted))
	require.NotNil(t, elsewhere.get("far"), "the owner in the other namespace stays")
	evs, err := e.client.CoreV1().Events(e.ns).List(e.ctx, metav1.ListOptions{})
	require.NoError(t, err)
	var reasons []string
	for _, ev := range evs.Items {
		reasons = append(reasons, ev.InvolvedObject.Name+" "+ev.Reason)
	}
	require.Equal(t, []string{"far-child " + gc.EventOwnerRefInvalidNamespace}, reasons)
}

// A namespaced dependent of a cluster-scoped owner (a ConfigMap owned by
// a Node) stays while the Node is there and goes with it.
func TestOwnerGCClusterScopedOwner(t *testing.T) {
	e := newGCEnv(t, "gc-cluster-owner")
	node, err := e.client.CoreV1().Nodes().Create(e.ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gc-owner-node"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	e.configMap("on-node", nil, ref("Node", node.Name, node.UID, false))
	require.Empty(t, e.sync().Deleted)
	require.NoError(t, e.client.CoreV1().Nodes().Delete(e.ctx, node.Name, metav1.DeleteOptions{}))
	res := e.syncUntil("on-node is gone", func() bool { return e.get("on-node") == nil })
	require.Equal(t, []string{"on-node"}, names(res.Deleted))
}

// Custom resources: a Widget (a CRD made for the test, found by the next
// Sync's discovery) owning a ConfigMap, and a ConfigMap owning a Widget;
// deleting the owners collects the dependents of either kind.
func TestOwnerGCCustomResource(t *testing.T) {
	e := newGCEnv(t, "gc-custom")
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.gc.example.com"},
		"spec": map[string]any{
			"group": "gc.example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}}
	_, err := e.dyn.Resource(crds).Create(e.ctx, crd, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = e.dyn.Resource(crds).Delete(context.Background(), "widgets.gc.example.com", metav1.DeleteOptions{})
	})
	widgets := schema.GroupVersionResource{Group: "gc.example.com", Version: "v1", Resource: "widgets"}
	widget := func(name string, owners ...metav1.OwnerReference) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "gc.example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": name, "namespace": e.ns}}}
		u.SetOwnerReferences(owners)
		var out *unstructured.Unstructured
		var err error
		for i := 0; i < 100; i++ { // the CRD is served a moment after it is created
			if out, err = e.dyn.Resource(widgets).Namespace(e.ns).Create(e.ctx, u, metav1.CreateOptions{}); err == nil {
				return out
			}
			time.Sleep(100 * time.Millisecond)
		}
		require.NoError(t, err)
		return nil
	}
	w := widget("w")
	e.configMap("of-widget", nil, metav1.OwnerReference{APIVersion: "gc.example.com/v1", Kind: "Widget", Name: "w", UID: w.GetUID()})
	cm := e.configMap("cm", nil)
	widget("of-cm", ref("ConfigMap", "cm", cm.UID, false))

	require.Empty(t, e.sync().Deleted, "both owners are there")
	require.NoError(t, e.dyn.Resource(widgets).Namespace(e.ns).Delete(e.ctx, "w", metav1.DeleteOptions{}))
	e.delete("cm", metav1.DeletePropagationBackground)
	res := e.syncUntil("both dependents are gone", func() bool {
		_, err := e.dyn.Resource(widgets).Namespace(e.ns).Get(e.ctx, "of-cm", metav1.GetOptions{})
		return e.get("of-widget") == nil && apierrors.IsNotFound(err)
	})
	require.Equal(t, []string{"of-cm", "of-widget"}, names(res.Deleted))
}
