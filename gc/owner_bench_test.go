package gc

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// benchOwnerGraph returns about n objects: ReplicaSets with 10 Pods
// each, in 100 namespaces, every Pod with a blocking controller
// reference; 1% of the Pods refer to a ReplicaSet that is gone.
func benchOwnerGraph(n int) []Object {
	owners := n / 11
	objs := make([]Object, 0, owners*11)
	namespaces := make([]string, 100)
	for k := range namespaces {
		namespaces[k] = fmt.Sprintf("team-%02d", k)
	}
	refs := make([]metav1.OwnerReference, owners*10)
	yes := true
	for o := 0; o < owners; o++ {
		ns := namespaces[o%len(namespaces)]
		rsName := fmt.Sprintf("web-%07d", o)
		rsUID := types.UID(fmt.Sprintf("rs-%07d", o))
		objs = append(objs, Object{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: ns, Name: rsName, UID: rsUID, ResourceVersion: "1"})
		for p := 0; p < 10; p++ {
			k := o*10 + p
			r := &refs[k]
			*r = metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rsName, UID: rsUID, Controller: &yes, BlockOwnerDeletion: &yes}
			if k%100 == 0 {
				r.UID = types.UID(fmt.Sprintf("gone-%07d", o))
			}
			objs = append(objs, Object{
				APIVersion: "v1", Kind: "Pod", Namespace: ns, Name: fmt.Sprintf("%s-%d", rsName, p),
				UID: types.UID(fmt.Sprintf("pod-%07d-%d", o, p)), ResourceVersion: "1",
				OwnerReferences: refs[k : k+1 : k+1],
			})
		}
	}
	return objs
}

// BenchmarkOwnerPlan builds the graph (interning, classification) and
// plans every object: the collector's whole decision for a snapshot.
func BenchmarkOwnerPlan(b *testing.B) {
	for _, n := range []int{10000, 100000, 1000000} {
		objs := benchOwnerGraph(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				g, err := NewOwnerGraph(objs, OwnerOptions{})
				if err != nil {
					b.Fatal(err)
				}
				// Pods k = 0, 100, 200, ... of the len(objs)/11*10 refer to a gone owner.
				if p, want := g.Plan(), (len(objs)/11*10+99)/100; len(p.Deletions) != want {
					b.Fatalf("%d deletions, want %d", len(p.Deletions), want)
				}
			}
		})
	}
}

// BenchmarkOwnerCascade: a foreground delete of one ReplicaSet in a graph
// of n objects, run to the end (five rounds, each a full rebuild).
func BenchmarkOwnerCascade(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		objs := benchOwnerGraph(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := PlanCascade(objs, objs[11].UID, metav1.DeletePropagationForeground, OwnerOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
