package gc

import (
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The naive reference of the owner-graph property tests (which draw from
// nodelifetest and so live in package gc_test) and of FuzzOwnerGraph.

type genKind struct{ apiVersion, kind string }

// ---- the naive reference: upstream's attemptToDelete read literally ----

// naiveOwners answers the collector's questions the way upstream does:
// a GET at a reference's coordinates (linear scan), then a UID compare.
type naiveOwners struct {
	objs []Object
	opts OwnerOptions
}

func (w naiveOwners) scope(apiVersion, kind string) Scope {
	if w.opts.Scopes != nil {
		return w.opts.Scopes(apiVersion, kind)
	}
	return DefaultKindScopes().Lookup(apiVersion, kind)
}

// get returns the object at (group, kind, namespace, name), matching the
// kind exactly or as its lowercase form.
func (w naiveOwners) get(apiVersion, kind, ns, name string) *Object {
	group := ""
	if parts := strings.Split(apiVersion, "/"); len(parts) == 2 {
		group = parts[0]
	}
	for i := range w.objs {
		o := &w.objs[i]
		oGroup := ""
		if parts := strings.Split(o.APIVersion, "/"); len(parts) == 2 {
			oGroup = parts[0]
		}
		if oGroup == group && (o.Kind == kind || strings.ToLower(o.Kind) == kind) && o.Namespace == ns && o.Name == name {
			return o
		}
	}
	return nil
}

func naiveValid(r metav1.OwnerReference) bool {
	parts := strings.Split(r.APIVersion, "/")
	okVersion := (len(parts) == 1 && parts[0] != "") || (len(parts) == 2 && parts[0] != "" && parts[1] != "")
	return okVersion && r.Kind != "" && r.Name != "" && r.UID != ""
}

func isBlocking(r metav1.OwnerReference) bool {
	return r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion
}

func (w naiveOwners) classify(d *Object, r metav1.OwnerReference) RefState {
	if !naiveValid(r) {
		return RefInvalid
	}
	s := w.scope(r.APIVersion, r.Kind)
	if s == ScopeUnknown {
		return RefUnknownKind
	}
	ns := ""
	if s == ScopeNamespaced {
		if d.Namespace == "" {
			return RefUnresolvable
		}
		ns = d.Namespace
	}
	o := w.get(r.APIVersion, r.Kind, ns, r.Name)
	if o == nil || o.UID != r.UID {
		return RefDangling
	}
	if o.DeletionTimestamp != nil && hasString(o.Finalizers, FinalizerForeground) {
		if w.opts.ForegroundBlockingOnly && !isBlocking(r) {
			return RefSolid
		}
		return RefWaiting
	}
	return RefSolid
}

// dependents returns the objects with a reference to uid, and whether any
// of those references blocks.
func (w naiveOwners) dependents(uid types.UID) (deps []*Object, blocking bool) {
	for i := range w.objs {
		refers := false
		for _, r := range w.objs[i].OwnerReferences {
			if r.UID == uid {
				refers = true
				blocking = blocking || isBlocking(r)
			}
		}
		if refers {
			deps = append(deps, &w.objs[i])
		}
	}
	return deps, blocking
}

type naiveEntry struct{ key, reason, text string }

func objKey(o *Object) string {
	return strings.Join([]string{o.Namespace, o.Name, o.Kind, o.APIVersion, string(o.UID)}, "\x00")
}

// plan returns the plan in summary form, ordered like Plan.
func (w naiveOwners) plan() []string {
	var patches, fins, dels, holds []naiveEntry
	for i := range w.objs {
		o := &w.objs[i]
		k := objKey(o)
		if o.DeletionTimestamp != nil {
			deps, blocking := w.dependents(o.UID)
			switch {
			case hasString(o.Finalizers, FinalizerOrphan):
				for _, d := range deps {
					patches = append(patches, naiveEntry{objKey(d), "OrphanDependent" + string(o.UID), "patch " + d.Name + " -" + string(o.UID)})
				}
				fins = append(fins, naiveEntry{k, "", "finalizer " + o.Name + " orphan"})
			case !hasString(o.Finalizers, FinalizerForeground):
			case blocking:
				holds = append(holds, naiveEntry{k, "", "hold " + o.Name + " AwaitDependents"})
			default:
				fins = append(fins, naiveEntry{k, "", "finalizer " + o.Name + " foregroundDeletion"})
			}
			continue
		}
		if len(o.OwnerReferences) == 0 {
			continue
		}
		var solid, waiting int
		var stale []string
		held := ""
		for _, r := range o.OwnerReferences {
			switch w.classify(o, r) {
			case RefSolid:
				solid++
			case RefWaiting:
				waiting++
				stale = appendNew(stale, string(r.UID))
			case RefDangling:
				stale = appendNew(stale, string(r.UID))
			case RefUnresolvable:
				held = "Unresolvable"
			default:
				held = "Pinned"
			}
			if held != "" {
				break
			}
		}
		deps, _ := w.dependents(o.UID)
		switch {
		case held != "":
			holds = append(holds, naiveEntry{k, "", "hold " + o.Name + " " + held})
		case solid > 0:
			if len(stale) > 0 {
				patches = append(patches, naiveEntry{k, "StaleOwnerReferences", "patch " + o.Name + " -" + strings.Join(stale, ",")})
			}
		case waiting > 0 && len(deps) > 0:
			depDeleting, ownBlocking := false, false
			for _, d := range deps {
				depDeleting = depDeleting || (d.DeletionTimestamp != nil && hasString(d.Finalizers, FinalizerForeground))
			}
			for _, r := range o.OwnerReferences {
				ownBlocking = ownBlocking || isBlocking(r)
			}
			if depDeleting && ownBlocking {
				patches = append(patches, naiveEntry{k, "UnblockPossibleCycle", "patch " + o.Name + " unblock"})
			} else {
				dels = append(dels, naiveEntry{k, "", "delete " + o.Name + " Foreground"})
			}
		default:
			policy := "Background"
			if hasString(o.Finalizers, FinalizerOrphan) {
				policy = "Orphan"
			} else if hasString(o.Finalizers, FinalizerForeground) {
				policy = "Foreground"
			}
			dels = append(dels, naiveEntry{k, "", "delete " + o.Name + " " + policy})
		}
	}
	var out []string
	for _, list := range [][]naiveEntry{patches, fins, dels, holds} {
		sort.Slice(list, func(a, b int) bool {
			if list[a].key != list[b].key {
				return list[a].key < list[b].key
			}
			return list[a].reason < list[b].reason
		})
		for _, e := range list {
			out = append(out, e.text)
		}
	}
	return out
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
