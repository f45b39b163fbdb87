package gc_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/gc"
)

var yes = true

// chain is Deployment web -> ReplicaSet web-5d8f -> Pods web-5d8f-a and
// web-5d8f-b, with the blocking controller references the workload
// controllers write.
func chain() []gc.Object {
	ctl := func(apiVersion, kind, name, uid string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: k8stypes.UID(uid), Controller: &yes, BlockOwnerDeletion: &yes}}
	}
	return []gc.Object{
		{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "web", UID: "d-1"},
		{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "default", Name: "web-5d8f", UID: "rs-1",
			OwnerReferences: ctl("apps/v1", "Deployment", "web", "d-1")},
		{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "web-5d8f-a", UID: "pod-a",
			OwnerReferences: ctl("apps/v1", "ReplicaSet", "web-5d8f", "rs-1")},
		{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "web-5d8f-b", UID: "pod-b",
			OwnerReferences: ctl("apps/v1", "ReplicaSet", "web-5d8f", "rs-1")},
	}
}

// Background (kubectl's default): the API server removes the Deployment
// at once, then each level's owner reference dangles in turn.
func ExamplePlanCascade() {
	res, err := gc.PlanCascade(chain(), "d-1", metav1.DeletePropagationBackground, gc.OwnerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Steps {
		fmt.Println(s)
	}
	// Output:
	// round 0: Delete Deployment default/web (Background): delete requested with Background propagation
	// round 0: Removed Deployment default/web
	// round 1: Delete ReplicaSet default/web-5d8f (Background): all 1 owner reference(s) dangling: delete with Background propagation
	// round 1: Removed ReplicaSet default/web-5d8f
	// round 2: Delete Pod default/web-5d8f-a (Background): all 1 owner reference(s) dangling: delete with Background propagation
	// round 2: Removed Pod default/web-5d8f-a
	// round 2: Delete Pod default/web-5d8f-b (Background): all 1 owner reference(s) dangling: delete with Background propagation
	// round 2: Removed Pod default/web-5d8f-b
}

// Foreground: the Deployment stays (foregroundDeletion) until its blocking
// ReplicaSet is gone, which stays until its pods are gone.
func ExamplePlanCascade_foreground() {
	res, err := gc.PlanCascade(chain(), "d-1", metav1.DeletePropagationForeground, gc.OwnerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Steps {
		fmt.Println(s)
	}
	// Output:
	// round 0: Delete Deployment default/web (Foreground): delete requested with Foreground propagation
	// round 1: Delete ReplicaSet default/web-5d8f (Foreground): no solid owner, 1 owner(s) deleting in the foreground and the object has dependents: delete in the foreground
	// round 2: Delete Pod default/web-5d8f-a (Background): no solid owner and 1 owner(s) deleting in the foreground: delete with Background propagation
	// round 2: Removed Pod default/web-5d8f-a
	// round 2: Delete Pod default/web-5d8f-b (Background): no solid owner and 1 owner(s) deleting in the foreground: delete with Background propagation
	// round 2: Removed Pod default/web-5d8f-b
	// round 3: RemoveFinalizer ReplicaSet default/web-5d8f foregroundDeletion: deleting in the foreground and no dependent blocks owner deletion: remove the foregroundDeletion finalizer
	// round 3: Removed ReplicaSet default/web-5d8f
	// round 4: RemoveFinalizer Deployment default/web foregroundDeletion: deleting in the foreground and no dependent blocks owner deletion: remove the foregroundDeletion finalizer
	// round 4: Removed Deployment default/web
}

// Orphan: the ReplicaSet loses its owner reference, the orphan finalizer
// comes off and only the Deployment goes.
func ExamplePlanCascade_orphan() {
	res, err := gc.PlanCascade(chain(), "d-1", metav1.DeletePropagationOrphan, gc.OwnerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Steps {
		fmt.Println(s)
	}
	for _, o := range res.Remaining {
		fmt.Printf("remaining: %s with %d owner reference(s)\n", o.Ref(), len(o.OwnerReferences))
	}
	// Output:
	// round 0: Delete Deployment default/web (Orphan): delete requested with Orphan propagation
	// round 1: RemoveRefs ReplicaSet default/web-5d8f [d-1]: owner Deployment default/web is being deleted with the orphan finalizer: remove its owner reference
	// round 1: RemoveFinalizer Deployment default/web orphan: being deleted with the orphan finalizer: remove its owner reference from 1 dependent(s), then the finalizer
	// round 1: Removed Deployment default/web
	// remaining: ReplicaSet default/web-5d8f with 0 owner reference(s)
	// remaining: Pod default/web-5d8f-a with 1 owner reference(s)
	// remaining: Pod default/web-5d8f-b with 1 owner reference(s)
}

// One snapshot, one plan: a ReplicaSet whose Deployment is gone, a pod
// pointing at an owner in another namespace (the event), and a pod kept by
// its ReplicaSet.
func ExampleNewOwnerGraph() {
	objs := chain()[1:]
	objs = append(objs, gc.Object{APIVersion: "v1", Kind: "Pod", Namespace: "other", Name: "stray", UID: "pod-s",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f", UID: "rs-1"}}})
	g, err := gc.NewOwnerGraph(objs, gc.OwnerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := g.Plan()
	for _, d := range p.Deletions {
		fmt.Printf("delete %s (%s, precondition uid %s): %s\n", d.Object, d.Policy, d.Preconditions.UID, d.Reason)
	}
	for _, e := range p.Events {
		fmt.Printf("event on %s: %s %s: %s\n", e.Object, e.Type, e.Reason, e.Message)
	}
	// Output:
	// delete ReplicaSet default/web-5d8f (Background, precondition uid rs-1): AllOwnersGone
	// delete Pod other/stray (Background, precondition uid pod-s): AllOwnersGone
	// event on Pod other/stray: Warning OwnerRefInvalidNamespace: ownerRef [apps/v1/ReplicaSet, namespace: other, name: web-5d8f, uid: rs-1] does not exist in namespace "other"
}

// Explain a ReplicaSet held by a foreground deletion of its Deployment.
func ExampleOwnerGraph_Explain() {
	objs := chain()
	objs[0].DeletionTimestamp = &metav1.Time{}
	objs[0].Finalizers = []string{gc.FinalizerForeground}
	g, err := gc.NewOwnerGraph(objs, gc.OwnerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	e, _ := g.Explain("rs-1")
	fmt.Print(e)
	e, _ = g.Explain("d-1")
	fmt.Print(e)
	// Output:
	// ReplicaSet default/web-5d8f (uid rs-1): Delete (Foreground) OwnersDeletingDependents: no solid owner, 1 owner(s) deleting in the foreground and the object has dependents: delete in the foreground
	//   owner apps/v1/Deployment web (uid d-1, blocking): Waiting: Deployment default/web is deleting its dependents in the foreground
	//   dependent Pod default/web-5d8f-a (blocks owner deletion)
	//   dependent Pod default/web-5d8f-b (blocks owner deletion)
	//   blocks: Deployment default/web
	// Deployment default/web (uid d-1): AwaitDependents AwaitingBlockingDependents: deleting in the foreground: waiting for ReplicaSet default/web-5d8f
	//   dependent ReplicaSet default/web-5d8f (blocks owner deletion)
	//   blocked by: ReplicaSet default/web-5d8f
}

// Two ConfigMaps that own each other are never collected; a foreground
// delete of both at once never finishes.
func ExampleOwnerGraph_Cycles() {
	a := gc.Object{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "a", UID: "a",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "b", UID: "b", BlockOwnerDeletion: &yes}}}
	b := gc.Object{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "b", UID: "b",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "a", UID: "a", BlockOwnerDeletion: &yes}}}
	g, _ := gc.NewOwnerGraph([]gc.Object{a, b}, gc.OwnerOptions{})
	fmt.Println("cycles:", g.Cycles())
	for _, o := range []*gc.Object{&a, &b} {
		o.DeletionTimestamp = &metav1.Time{}
		o.Finalizers = []string{gc.FinalizerForeground}
	}
	g, _ = gc.NewOwnerGraph([]gc.Object{a, b}, gc.OwnerOptions{})
	fmt.Println("deadlocks:", g.Deadlocks())
	// Output:
	// cycles: [[ConfigMap ns/a ConfigMap ns/b]]
	// deadlocks: [[ConfigMap ns/a ConfigMap ns/b]]
}

func ExampleFromMeta() {
	pod := &metav1.ObjectMeta{Namespace: "default", Name: "web-5d8f-a", UID: "pod-a",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d8f", UID: "rs-1"}}}
	o := gc.FromMeta("v1", "Pod", pod)
	fmt.Println(o.Ref(), o.UID, len(o.OwnerReferences))
	// Output: Pod default/web-5d8f-a pod-a 1
}

func ExampleKindScopes_Lookup() {
	scopes := gc.DefaultKindScopes()
	scopes[gc.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}] = gc.ScopeNamespaced
	fmt.Println(scopes.Lookup("v1", "Node"), scopes.Lookup("example.com/v1", "Widget"), scopes.Lookup("extensions/v1beta1", "Deployment"))
	// Output: Cluster Namespaced Unknown
}
