package gc

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// FuzzOwnerGraph feeds arbitrary objects (free-form names, kinds, UIDs
// that repeat or are empty, any references and deletion state) to the
// owner collector: it never panics, the plan agrees with the naive
// reference, no planned delete has a verified owner, Explain answers for
// every object, and a cascade from the first object settles.
func FuzzOwnerGraph(f *testing.F) {
	f.Add([]byte{3, 0, 1, 2, 1, 0, 1, 2, 3, 0, 0, 1, 1, 1, 2, 2, 2})
	f.Add([]byte{2, 1, 1, 0, 0, 4, 0, 1, 1, 1, 0, 0, 3, 0, 9})
	f.Add([]byte("owner-graph\x00\xff\x10cycles"))
	kinds := []genKind{{"v1", "Pod"}, {"v1", "Node"}, {"apps/v1", "ReplicaSet"}, {"v1", "pod"}, {"example.com/v1", "Widget"}, {"apps/", "ReplicaSet"}, {"", ""}, {"v1", "ConfigMap"}}
	names := []string{"a", "b", "c", ""}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &byteReader{data}
		n := int(r.next() % 12)
		objs := make([]Object, n)
		for i := range objs {
			k := kinds[r.next()%uint8(len(kinds))]
			ns := []string{"", "x", "y"}[r.next()%3]
			objs[i] = Object{APIVersion: k.apiVersion, Kind: k.kind, Namespace: ns, Name: names[r.next()%4], UID: types.UID(fmt.Sprintf("u%d", r.next()%16))}
			for m := r.next() % 4; m > 0; m-- {
				rk := kinds[r.next()%uint8(len(kinds))]
				ref := metav1.OwnerReference{APIVersion: rk.apiVersion, Kind: rk.kind, Name: names[r.next()%4], UID: types.UID(fmt.Sprintf("u%d", r.next()%18))}
				if ref.UID == "u17" {
					ref.UID = ""
				}
				flags := r.next()
				if flags&1 != 0 {
					ref.BlockOwnerDeletion = ptr(flags&2 != 0)
				}
				if flags&4 != 0 {
					ref.Controller = ptr(true)
				}
				objs[i].OwnerReferences = append(objs[i].OwnerReferences, ref)
			}
			state := r.next()
			if state&1 != 0 {
				objs[i].DeletionTimestamp = &metav1.Time{}
			}
			if state&2 != 0 {
				objs[i].Finalizers = append(objs[i].Finalizers, FinalizerOrphan)
			}
			if state&4 != 0 {
				objs[i].Finalizers = append(objs[i].Finalizers, FinalizerForeground)
			}
			if state&8 != 0 {
				objs[i].Finalizers = append(objs[i].Finalizers, "example.com/x")
			}
		}
		opts := OwnerOptions{ForegroundBlockingOnly: r.next()&1 != 0}
		g, err := NewOwnerGraph(objs, opts)
		if err != nil {
			if !strings.Contains(err.Error(), "duplicated") && !strings.Contains(err.Error(), "is held by") {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		p := g.Plan()
		w := naiveOwners{objs, opts}
		// Two objects at the same coordinates cannot exist in a cluster;
		// the naive GET then sees only the first, so compare only
		// snapshots without such twins (safety is checked on all).
		coords := map[string]bool{}
		twins := false
		for i := range objs {
			k := apiGroup(objs[i].APIVersion) + "/" + strings.ToLower(objs[i].Kind) + "/" + objs[i].Namespace + "/" + objs[i].Name
			twins = twins || coords[k]
			coords[k] = true
		}
		if got, want := summary(p), w.plan(); !twins && fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("plan %v, naive %v\nobjects %+v", got, want, objs)
		}
		for _, d := range p.Deletions {
			i, _ := g.lookup(d.Object.UID)
			for _, ref := range objs[i].OwnerReferences {
				if w.classify(&objs[i], ref) == RefSolid {
					t.Fatalf("%s deleted with a verified owner", d.Object)
				}
			}
		}
		for i := range objs {
			if _, ok := g.Explain(objs[i].UID); !ok {
				t.Fatalf("no explanation for %s", objs[i].UID)
			}
		}
		if n > 0 {
			if _, err := PlanCascade(objs, objs[0].UID, metav1.DeletePropagationForeground, opts); err != nil {
				t.Fatalf("cascade: %v", err)
			}
		}
	})
}
