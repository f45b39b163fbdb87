package nodelifetest

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/gc"
)

// ImagePolicies draws image garbage-collection policies: a high threshold
// of 1-100 %, a low one below it, a minimum age of 0-10 minutes and, half
// the time, a maximum age above it.
func ImagePolicies() *rapid.Generator[gc.ImagePolicy] {
	return rapid.Custom(func(t *rapid.T) gc.ImagePolicy {
		high := rapid.IntRange(1, 100).Draw(t, "high")
		p := gc.ImagePolicy{HighThresholdPercent: high, LowThresholdPercent: rapid.IntRange(0, high-1).Draw(t, "low"),
			MinAge: time.Duration(rapid.IntRange(0, 10).Draw(t, "minAgeMin")) * time.Minute}
		if rapid.Bool().Draw(t, "maxAgeOn") {
			p.MaxAge = p.MinAge + time.Duration(rapid.IntRange(1, 30).Draw(t, "maxAgeExtraMin"))*time.Minute
		}
		return p
	})
}

// ImageRecords draws up to 25 image records (IDs img00, img01, ...):
// sizes 0-300, pinned ones, first detected up to 40 minutes before o.Now
// or centuries before (times outside UnixNano's range), never used, in
// use at o.Now, or last used up to 40 minutes before.
func ImageRecords(o Options) *rapid.Generator[[]gc.ImageRecord] {
	return rapid.Custom(func(t *rapid.T) []gc.ImageRecord {
		now := o.now()
		rs := make([]gc.ImageRecord, rapid.IntRange(0, 25).Draw(t, "images"))
		for i := range rs {
			r := gc.ImageRecord{ID: fmt.Sprintf("img%02d", i), Size: rapid.Int64Range(0, 300).Draw(t, "size"),
				Pinned: rare(t, 6, "pinned"), FirstDetected: ago(t, now, 40*60, "detectedAgo")}
			if rare(t, 10, "farDetected") {
				r.FirstDetected = now.AddDate(rapid.IntRange(-700, -300).Draw(t, "farYears"), 0, 0)
			}
			switch rapid.IntRange(0, 3).Draw(t, "use") {
			case 0: // never used
			case 1:
				r.LastUsed, r.InUse = now, true
			default:
				r.LastUsed = ago(t, now, 40*60, "lastUsedAgo")
			}
			rs[i] = r
		}
		return rs
	})
}

// ContainerGC is a container garbage collection input with its policy.
type ContainerGC struct {
	Policy gc.ContainerPolicy
	Input  gc.ContainerGCInput
}

// ContainerGCs draws dead-container collection inputs: a policy (minimum
// age 0-5 minutes, per-pod and total limits, -1 meaning none), up to 30
// containers and 10 sandboxes of five pods (p0-p3 known in any state, p4
// unknown), in any state, created up to 15 minutes before o.Now.
func ContainerGCs(o Options) *rapid.Generator[ContainerGC] {
	return rapid.Custom(func(t *rapid.T) ContainerGC {
		now := o.now()
		p := gc.ContainerPolicy{MinAge: time.Duration(rapid.IntRange(0, 5).Draw(t, "minAgeMin")) * time.Minute,
			MaxPerPodContainer: rapid.IntRange(-1, 3).Draw(t, "maxPer"), MaxContainers: rapid.IntRange(-1, 12).Draw(t, "max")}
		uids := []string{"p0", "p1", "p2", "p3", "p4"}
		in := gc.ContainerGCInput{Pods: map[string]gc.PodState{}, PodsSynced: rapid.Bool().Draw(t, "synced"),
			AllSourcesReady: rapid.Bool().Draw(t, "ready"), EvictNonDeletedPods: rapid.Bool().Draw(t, "evictNonDeleted")}
		for _, u := range uids[:4] {
			in.Pods[u] = gc.PodState(rapid.IntRange(0, 2).Draw(t, "podState"))
		}
		for i, n := 0, rapid.IntRange(0, 30).Draw(t, "containers"); i < n; i++ {
			uid := rapid.SampledFrom(uids).Draw(t, "uid")
			in.Containers = append(in.Containers, gc.Container{ID: fmt.Sprintf("c%02d", i), PodUID: uid,
				Name: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "name"), SandboxID: fmt.Sprintf("s-%s-%d", uid, rapid.IntRange(0, 2).Draw(t, "sandbox")),
				State: gc.ContainerState(rapid.IntRange(0, 3).Draw(t, "state")), CreatedAt: ago(t, now, 15*60, "createdAgo")})
		}
		for i, n := 0, rapid.IntRange(0, 10).Draw(t, "sandboxes"); i < n; i++ {
			uid := rapid.SampledFrom(uids).Draw(t, "sandboxUID")
			in.Sandboxes = append(in.Sandboxes, gc.Sandbox{ID: fmt.Sprintf("s-%s-%d", uid, i), PodUID: uid,
				State: gc.SandboxState(rapid.IntRange(0, 1).Draw(t, "sandboxState")), CreatedAt: ago(t, now, 15*60, "sandboxCreatedAgo")})
		}
		return ContainerGC{Policy: p, Input: in}
	})
}

type ownerKind struct{ apiVersion, kind string }

var ownerKinds = []ownerKind{{"v1", "ConfigMap"}, {"v1", "Pod"}, {"apps/v1", "ReplicaSet"}, {"v1", "Node"}}

// OwnerGraphs draws snapshots of 1-10 objects for the owner-reference
// garbage collector: unique coordinates and UIDs (u0, u1, ...), 0-3 owner
// references each to existing objects (cycles and self-references
// included), to ghosts (dangling owners), at slightly wrong coordinates,
// to unknown kinds, with empty UIDs; blocking or not; any finalizers and
// deletion state. With o.Valid everything is live, finalizer-free and
// namespaced in "a", and references are well formed (to existing objects
// or ghosts, never to the object itself).
func OwnerGraphs(o Options) *rapid.Generator[[]gc.Object] {
	return rapid.Custom(func(t *rapid.T) []gc.Object { return drawOwnerObjects(t, o.Valid) })
}

func drawOwnerObjects(t *rapid.T, plain bool) []gc.Object {
	n := rapid.IntRange(1, 10).Draw(t, "objects")
	objs := make([]gc.Object, n)
	for i := range objs {
		k := ownerKinds[rapid.IntRange(0, len(ownerKinds)-1).Draw(t, "kind")]
		if plain && k.kind == "Node" {
			k = ownerKinds[0]
		}
		ns := ""
		if k.kind != "Node" {
			ns = "a"
			if !plain && rare(t, 4, "otherNamespace") {
				ns = "b"
			}
		}
		objs[i] = gc.Object{APIVersion: k.apiVersion, Kind: k.kind, Namespace: ns, Name: fmt.Sprintf("o%d", i), UID: types.UID(fmt.Sprintf("u%d", i))}
		if !plain && rapid.Bool().Draw(t, "resourceVersion") {
			objs[i].ResourceVersion = fmt.Sprint(rapid.IntRange(1, 99).Draw(t, "resourceVersionValue"))
		}
	}
	for i := range objs {
		for k := rapid.IntRange(0, 3).Draw(t, "refs"); k > 0; k-- {
			owner := &objs[rapid.IntRange(0, n-1).Draw(t, "owner")]
			r := metav1.OwnerReference{APIVersion: owner.APIVersion, Kind: owner.Kind, Name: owner.Name, UID: owner.UID}
			variant := 0
			if plain {
				variant = rapid.SampledFrom([]int{0, 0, 0, 0, 1}).Draw(t, "plainVariant")
			} else {
				variant = rapid.IntRange(0, 12).Draw(t, "variant")
			}
			switch variant {
			case 1:
				r.UID = types.UID(fmt.Sprintf("ghost%d", rapid.IntRange(0, 3).Draw(t, "ghost")))
			case 2:
				r.Name += "x"
			case 3:
				r.Kind = strings.ToLower(r.Kind)
			case 4:
				r.APIVersion, r.Kind = "example.com/v1", "Widget"
			case 5:
				r.UID = ""
			case 6:
				r.APIVersion, r.Kind = "v1", "Secret"
			}
			if plain && r.UID == objs[i].UID {
				// A self-owner deleted in the foreground waits on itself
				// forever: left to the unconstrained draw.
				r.UID = "ghost-self"
			}
			if rapid.Bool().Draw(t, "blocking") {
				r.BlockOwnerDeletion = ptr(true)
			} else if rapid.Bool().Draw(t, "explicitFalse") {
				r.BlockOwnerDeletion = ptr(false)
			}
			if !plain && rare(t, 4, "controller") {
				r.Controller = ptr(true)
			}
			objs[i].OwnerReferences = append(objs[i].OwnerReferences, r)
		}
		if plain {
			continue
		}
		var fins []string
		for _, f := range []string{gc.FinalizerOrphan, gc.FinalizerForeground, "example.com/x"} {
			if rare(t, 4, "finalizer") {
				fins = append(fins, f)
			}
		}
		objs[i].Finalizers = fins
		if rare(t, 3, "deleting") {
			objs[i].DeletionTimestamp = &metav1.Time{}
		}
	}
	return objs
}

// GCPods draws up to 30 pods as the pod garbage collector takes them (IDs
// p00, p01, ... in namespace "ns"): bound to one of nodes or to none, in
// any phase (empty included), created up to five minutes before o.Now or,
// about once in twenty, at a time far from it (the zero time and years
// UnixNano cannot hold), Failed ones evicted, half of them terminating.
func GCPods(o Options, nodes []string) *rapid.Generator[[]core.Pod] {
	return rapid.Custom(func(t *rapid.T) []core.Pod {
		now := o.now()
		var pods []core.Pod
		for i, n := 0, rapid.IntRange(0, 30).Draw(t, "pods"); i < n; i++ {
			p := core.Pod{Namespace: "ns", Name: fmt.Sprintf("p%02d", i), UID: fmt.Sprint(i),
				NodeName:          rapid.SampledFrom(append([]string{""}, nodes...)).Draw(t, "node"),
				Phase:             rapid.SampledFrom([]core.PodPhase{"", core.PodPending, core.PodRunning, core.PodSucceeded, core.PodFailed, core.PodUnknown}).Draw(t, "phase"),
				CreationTimestamp: ago(t, now, 5*60, "createdAgo")}
			if rare(t, 20, "farCreated") {
				p.CreationTimestamp = time.Time{}.AddDate(rapid.IntRange(0, 1500).Draw(t, "year"), 0, 0)
			}
			if p.Phase == core.PodFailed && rapid.Bool().Draw(t, "evicted") {
				p.Reason = "Evicted"
			}
			if rapid.Bool().Draw(t, "terminating") {
				p.DeletionTimestamp = ptr(now)
			}
			pods = append(pods, p)
		}
		return pods
	})
}
