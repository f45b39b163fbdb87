package gc

import (
	"errors"
	"hash/maphash"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ---- builders ----

// mk builds an object with the given owner references.
func mk(apiVersion, kind, ns, name, uid string, refs ...metav1.OwnerReference) Object {
	return Object{APIVersion: apiVersion, Kind: kind, Namespace: ns, Name: name, UID: types.UID(uid), OwnerReferences: refs}
}

// ownedBy is a non-blocking owner reference.
func ownedBy(apiVersion, kind, name, uid string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(uid)}
}

// blockedBy is a controller reference with blockOwnerDeletion=true, as
// the workload controllers set.
func blockedBy(apiVersion, kind, name, uid string) metav1.OwnerReference {
	r := ownedBy(apiVersion, kind, name, uid)
	r.BlockOwnerDeletion, r.Controller = ptr(true), ptr(true)
	return r
}

// deletingWith marks o as being deleted with the finalizers.
func deletingWith(o Object, finalizers ...string) Object {
	o.DeletionTimestamp = &metav1.Time{}
	o.Finalizers = finalizers
	return o
}

// withFinalizers sets finalizers on a live object.
func withFinalizers(o Object, finalizers ...string) Object {
	o.Finalizers = finalizers
	return o
}

func mustGraph(t *testing.T, objs []Object, opts OwnerOptions) *OwnerGraph {
	t.Helper()
	g, err := NewOwnerGraph(objs, opts)
	mustNil(t, err)
	return g
}

// summary is a plan reduced to what the tests pin, with hand-written
// expectations: "delete <name> <policy>", "patch <name> -<uids>" or
// "patch <name> unblock", "finalizer <name> <finalizer>", "hold <name>
// <action>".
func summary(p OwnerPlan) []string {
	var out []string
	for _, x := range p.Patches {
		if x.Unblock {
			out = append(out, "patch "+x.Object.Name+" unblock")
			continue
		}
		var u []string
		for _, id := range x.RemoveOwners {
			u = append(u, string(id))
		}
		out = append(out, "patch "+x.Object.Name+" -"+strings.Join(u, ","))
	}
	for _, x := range p.FinalizerRemovals {
		out = append(out, "finalizer "+x.Object.Name+" "+x.Finalizer)
	}
	for _, x := range p.Deletions {
		out = append(out, "delete "+x.Object.Name+" "+string(x.Policy))
	}
	for _, x := range p.Held {
		out = append(out, "hold "+x.Object.Name+" "+x.Action.String())
	}
	return out
}

func names(refs []ObjectRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return out
}

// rbacScopes serves Role in v1 and v1beta1 on top of the defaults.
func rbacScopes() KindScopes {
	k := DefaultKindScopes()
	k[GroupVersionKind{"rbac.authorization.k8s.io", "v1beta1", "Role"}] = ScopeNamespaced
	return k
}

// ---- upstream's conflicting-data cases (garbagecollector_test.go TestConflictingData) ----

func TestOwnerConflictingData(t *testing.T) {
	node1 := mk("v1", "Node", "", "nodename", "nodeuid1")
	deployment1 := mk("apps/v1", "Deployment", "ns1", "deployment1", "deploymentuid1")
	tests := []struct {
		name   string
		objs   []Object
		scopes KindScopes
		want   []string
		events []string
	}{{
		name: "good child in ns1 -> cluster-scoped owner (pod -> node): kept",
		objs: []Object{node1, mk("v1", "Pod", "ns1", "podname1", "poduid1", ownedBy("v1", "Node", "nodename", "nodeuid1"))},
	}, {
		name: "bad child in ns1 -> owner in ns2: event, deleted",
		objs: []Object{
			mk("v1", "Pod", "ns2", "podname2", "poduid2"),
			mk("v1", "Pod", "ns1", "podname1", "poduid1", ownedBy("v1", "Pod", "podname2", "poduid2")),
		},
		want:   []string{"delete podname1 Background"},
		events: []string{`podname1 Warning OwnerRefInvalidNamespace ownerRef [v1/Pod, namespace: ns1, name: podname2, uid: poduid2] does not exist in namespace "ns1"`},
	}, {
		name: "bad cluster-scoped child -> owner in ns1 (node -> namespaced owner): event, never collected",
		objs: []Object{
			mk("v1", "Pod", "ns1", "podname1", "poduid1"),
			mk("v1", "Node", "", "nodename", "nodeuid1", ownedBy("v1", "Pod", "podname1", "poduid1")),
		},
		want:   []string{"hold nodename Unresolvable"},
		events: []string{`nodename Warning OwnerRefInvalidNamespace ownerRef [v1/Pod, namespace: , name: podname1, uid: poduid1] does not exist in namespace ""`},
	}, {
		name: "bad cluster-scoped child -> namespaced owner that does not exist: no event, never collected",
		objs: []Object{mk("v1", "Node", "", "nodename", "nodeuid1", ownedBy("v1", "Pod", "podname1", "poduid1"))},
		want: []string{"hold nodename Unresolvable"},
	}, {
		name: "good child -> existing owner with non-preferred accessible API version: kept",
		objs: []Object{
			mk("rbac.authorization.k8s.io/v1", "Role", "ns1", "role1", "roleuid1"),
			mk("v1", "Pod", "ns1", "podname1", "poduid1", ownedBy("rbac.authorization.k8s.io/v1beta1", "Role", "role1", "roleuid1")),
		},
		scopes: rbacScopes(),
	}, {
		name:   "child -> owner via non-preferred API version, owner deleted: collected",
		objs:   []Object{mk("v1", "Pod", "ns1", "podname1", "poduid1", ownedBy("rbac.authorization.k8s.io/v1beta1", "Role", "role1", "roleuid1"))},
		scopes: rbacScopes(),
		want:   []string{"delete podname1 Background"},
	}, {
		name: "child -> existing owner with inaccessible API version: pinned",
		objs: []Object{deployment1, mk("v1", "Pod", "ns1", "podname1", "poduid1", ownedBy("extensions/v1beta1", "Deployment", "deployment1", "deploymentuid1"))},
		want: []string{"hold podname1 Pinned"},
	}, {
		name: "child -> non-existent owner with inaccessible API version: pinned; its sibling via a served version is collected",
		objs: []Object{
			mk("v1", "Pod", "ns1", "podname1", "poduid1", ownedBy("extensions/v1beta1", "Deployment", "deployment1", "deploymentuid1")),
			mk("v1", "Pod", "ns1", "podname2", "poduid2", ownedBy("apps/v1", "Deployment", "deployment1", "deploymentuid1")),
		},
		want: []string{"delete podname2 Background", "hold podname1 Pinned"},
	}, {
		name: "bad secret reference carrying a deployment's UID: dangling; the good child is kept",
		objs: []Object{
			deployment1,
			mk("v1", "Pod", "ns1", "goodpod", "goodpoduid", ownedBy("apps/v1", "Deployment", "deployment1", "deploymentuid1")),
			mk("v1", "Pod", "ns1", "badpod", "badpoduid", ownedBy("v1", "Secret", "secretname", "deploymentuid1")),
		},
		want: []string{"delete badpod Background"},
	}, {
		name: "owner name reused with a new UID: dangling",
		objs: []Object{
			mk("apps/v1", "ReplicaSet", "ns1", "rs1", "rs-new"),
			mk("v1", "Pod", "ns1", "p", "p1", ownedBy("apps/v1", "ReplicaSet", "rs1", "rs-old")),
		},
		want: []string{"delete p Background"},
	}, {
		name: "lowercase kind resolves like the discovery mapper",
		objs: []Object{
			mk("apps/v1", "ReplicaSet", "ns1", "rs1", "rs1"),
			mk("v1", "Pod", "ns1", "p", "p1", ownedBy("apps/v1", "replicaset", "rs1", "rs1")),
		},
	}, {
		name: "mixed-case kind is not served: pinned",
		objs: []Object{
			mk("apps/v1", "ReplicaSet", "ns1", "rs1", "rs1"),
			mk("v1", "Pod", "ns1", "p", "p1", ownedBy("apps/v1", "replicaSet", "rs1", "rs1")),
		},
		want: []string{"hold p Pinned"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := OwnerOptions{}
			if tt.scopes != nil {
				opts.Scopes = tt.scopes.Lookup
			}
			p := mustGraph(t, tt.objs, opts).Plan()
			if diff := cmp.Diff(tt.want, summary(p)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			var events []string
			for _, e := range p.Events {
				events = append(events, e.Object.Name+" "+e.Type+" "+e.Reason+" "+e.Message)
			}
			if diff := cmp.Diff(tt.events, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// ---- attemptToDelete, rule by rule ----

func TestOwnerDecisionRules(t *testing.T) {
	rs := mk("apps/v1", "ReplicaSet", "ns", "rs", "rs")
	rs2 := mk("apps/v1", "ReplicaSet", "ns", "rs2", "rs2")
	toRS := ownedBy("apps/v1", "ReplicaSet", "rs", "rs")
	toRSBlocking := blockedBy("apps/v1", "ReplicaSet", "rs", "rs")
	toRS2 := ownedBy("apps/v1", "ReplicaSet", "rs2", "rs2")
	toGone := ownedBy("apps/v1", "ReplicaSet", "gone", "gone")
	tests := []struct {
		name string
		objs []Object
		opts OwnerOptions
		want []string
	}{{
		name: "no owner references: not the collector's",
		objs: []Object{mk("v1", "Pod", "ns", "p", "p")},
	}, {
		name: "one solid owner: kept",
		objs: []Object{rs, mk("v1", "Pod", "ns", "p", "p", toRS)},
	}, {
		name: "solid and dangling owners: kept, one patch removes the dangling reference",
		objs: []Object{rs, mk("v1", "Pod", "ns", "p", "p", toRS, toGone)},
		want: []string{"patch p -gone"},
	}, {
		name: "solid and waiting owners: kept, the waiting reference goes too",
		objs: []Object{rs, deletingWith(rs2, FinalizerForeground), mk("v1", "Pod", "ns", "p", "p", toRS, toRS2, toGone)},
		want: []string{"patch p -rs2,gone", "finalizer rs2 foregroundDeletion"},
	}, {
		name: "all owners dangling: background delete",
		objs: []Object{mk("v1", "Pod", "ns", "p", "p", toGone)},
		want: []string{"delete p Background"},
	}, {
		name: "all owners dangling, own orphan finalizer: orphan delete",
		objs: []Object{withFinalizers(mk("v1", "Pod", "ns", "p", "p", toGone), FinalizerOrphan)},
		want: []string{"delete p Orphan"},
	}, {
		name: "all owners dangling, own foregroundDeletion finalizer: foreground delete",
		objs: []Object{withFinalizers(mk("v1", "Pod", "ns", "p", "p", toGone), "example.com/keep", FinalizerForeground)},
		want: []string{"delete p Foreground"},
	}, {
		name: "owner waiting, no dependents: delete with its own policy",
		objs: []Object{deletingWith(rs, FinalizerForeground), mk("v1", "Pod", "ns", "p", "p", toRS)},
		want: []string{"finalizer rs foregroundDeletion", "delete p Background"},
	}, {
		name: "owner waiting and the object has dependents: foreground delete",
		objs: []Object{
			deletingWith(rs, FinalizerForeground),
			mk("v1", "Pod", "ns", "p", "p", toRSBlocking),
			mk("v1", "ConfigMap", "ns", "c", "c", ownedBy("v1", "Pod", "p", "p")),
		},
		want: []string{"delete p Foreground", "hold rs AwaitDependents"},
	}, {
		name: "cycle heuristic: a dependent deletes in the foreground too: unblock first, no delete yet",
		objs: []Object{
			deletingWith(rs, FinalizerForeground),
			mk("v1", "Pod", "ns", "p", "p", toRSBlocking),
			deletingWith(mk("v1", "ConfigMap", "ns", "c", "c", ownedBy("v1", "Pod", "p", "p")), FinalizerForeground),
		},
		want: []string{"patch p unblock", "finalizer c foregroundDeletion", "hold rs AwaitDependents"},
	}, {
		name: "cycle heuristic with no blocking reference left: foreground delete",
		objs: []Object{
			deletingWith(rs, FinalizerForeground),
			mk("v1", "Pod", "ns", "p", "p", toRS),
			deletingWith(mk("v1", "ConfigMap", "ns", "c", "c", ownedBy("v1", "Pod", "p", "p")), FinalizerForeground),
		},
		want: []string{"finalizer c foregroundDeletion", "finalizer rs foregroundDeletion", "delete p Foreground"},
	}, {
		name: "being deleted without foregroundDeletion: the collector waits",
		objs: []Object{deletingWith(mk("v1", "Pod", "ns", "p", "p", toGone), "example.com/keep")},
	}, {
		name: "deleting in the foreground, blocking dependents remain: held",
		objs: []Object{deletingWith(rs, FinalizerForeground), mk("v1", "Pod", "ns", "p", "p", toRSBlocking), mk("v1", "Pod", "ns", "q", "q", toRS)},
		want: []string{"delete p Background", "delete q Background", "hold rs AwaitDependents"},
	}, {
		name: "deleting in the foreground, only non-blocking dependents: finalizer goes",
		objs: []Object{deletingWith(rs, FinalizerForeground), mk("v1", "Pod", "ns", "q", "q", toRS)},
		want: []string{"finalizer rs foregroundDeletion", "delete q Background"},
	}, {
		name: "being deleted with orphan: dependents patched, then the finalizer",
		objs: []Object{deletingWith(rs, FinalizerOrphan), mk("v1", "Pod", "ns", "p", "p", toRSBlocking), mk("v1", "Pod", "ns", "q", "q", toRS, toRS2), rs2},
		want: []string{"patch p -rs", "patch q -rs", "finalizer rs orphan"},
	}, {
		name: "owner being deleted without foregroundDeletion is solid",
		objs: []Object{deletingWith(rs, "example.com/keep"), mk("v1", "Pod", "ns", "p", "p", toRS)},
	}, {
		name: "classification stops at the first error: dangling then unknown kind pins",
		objs: []Object{mk("v1", "Pod", "ns", "p", "p", toGone, ownedBy("example.com/v1", "Widget", "w", "w"))},
		want: []string{"hold p Pinned"},
	}, {
		name: "unknown kind before a cluster-to-namespaced reference: pinned (the first error wins)",
		objs: []Object{mk("v1", "Node", "", "n", "n", ownedBy("example.com/v1", "Widget", "w", "w"), ownedBy("v1", "Pod", "p", "p"))},
		want: []string{"hold n Pinned"},
	}, {
		name: "ForegroundBlockingOnly: a non-blocking dependent of a foreground-deleting owner stays",
		objs: []Object{deletingWith(rs, FinalizerForeground), mk("v1", "Pod", "ns", "p", "p", toRSBlocking), mk("v1", "Pod", "ns", "q", "q", toRS)},
		opts: OwnerOptions{ForegroundBlockingOnly: true},
		want: []string{"delete p Background", "hold rs AwaitDependents"},
	}, {
		name: "custom kinds through the scope lookup",
		objs: []Object{
			mk("example.com/v1", "Widget", "ns", "w", "w"),
			mk("v1", "ConfigMap", "ns", "c", "c", ownedBy("example.com/v1", "Widget", "w", "w")),
			mk("v1", "ConfigMap", "ns", "d", "d", ownedBy("example.com/v1", "Widget", "w2", "w2")),
		},
		opts: OwnerOptions{Scopes: func(apiVersion, kind string) Scope {
			if apiVersion == "example.com/v1" && kind == "Widget" {
				return ScopeNamespaced
			}
			return DefaultKindScopes().Lookup(apiVersion, kind)
		}},
		want: []string{"delete d Background"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summary(mustGraph(t, tt.objs, tt.opts).Plan())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOwnerDeletionPreconditions(t *testing.T) {
	withRV := mk("v1", "Pod", "ns", "a", "a", ownedBy("v1", "Pod", "gone", "gone"))
	withRV.ResourceVersion = "42"
	noRV := mk("v1", "Pod", "ns", "b", "b", ownedBy("v1", "Pod", "gone", "gone"))
	p := mustGraph(t, []Object{noRV, withRV}, OwnerOptions{}).Plan()
	want := []Preconditions{{UID: "a", ResourceVersion: "42"}, {UID: "b"}}
	var got []Preconditions
	for _, d := range p.Deletions {
		got = append(got, d.Preconditions)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("preconditions (-want +got):\n%s", diff)
	}
	if p.Deletions[0].Reason != OwnerReasonAllOwnersGone {
		t.Errorf("reason %q, want %q", p.Deletions[0].Reason, OwnerReasonAllOwnersGone)
	}
}

func TestOwnerHoldBlockedBy(t *testing.T) {
	objs := []Object{
		deletingWith(mk("apps/v1", "ReplicaSet", "ns", "rs", "rs"), FinalizerForeground),
		deletingWith(mk("v1", "Pod", "ns", "p2", "p2", blockedBy("apps/v1", "ReplicaSet", "rs", "rs")), "example.com/keep"),
		mk("v1", "Pod", "ns", "p1", "p1", blockedBy("apps/v1", "ReplicaSet", "rs", "rs"), blockedBy("apps/v1", "ReplicaSet", "rs", "rs")),
	}
	p := mustGraph(t, objs, OwnerOptions{}).Plan()
	if len(p.Held) != 1 {
		t.Fatalf("held %v, want one", summary(p))
	}
	if diff := cmp.Diff([]string{"p1", "p2"}, names(p.Held[0].BlockedBy)); diff != "" {
		t.Errorf("blocked by (-want +got):\n%s", diff)
	}
}

// ---- bad input ----

func TestOwnerBadInput(t *testing.T) {
	t.Run("duplicate UIDs", func(t *testing.T) {
		_, err := NewOwnerGraph([]Object{mk("v1", "Pod", "ns", "b", "u"), mk("v1", "Pod", "ns", "a", "u"), mk("v1", "Pod", "ns", "c", "v"), mk("v1", "Pod", "ns", "d", "v")}, OwnerOptions{})
		if !errors.Is(err, ErrInvalidInput) {
			t.Fatalf("err %v, want ErrInvalidInput", err)
		}
		want := `gc: invalid input: UID "u" is held by 2 objects (Pod ns/a, Pod ns/b) and 1 more UIDs are duplicated`
		if err.Error() != want {
			t.Errorf("err %q, want %q", err, want)
		}
	})
	t.Run("empty UID", func(t *testing.T) {
		_, err := NewOwnerGraph([]Object{mk("v1", "Pod", "ns", "a", "")}, OwnerOptions{})
		if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), "object 0 (Pod ns/a) has an empty UID") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("invalid references pin and warn", func(t *testing.T) {
		objs := []Object{
			mk("v1", "Pod", "ns", "a", "a", ownedBy("v1", "Pod", "x", "")),
			mk("v1", "Pod", "ns", "b", "b", ownedBy("v1", "", "x", "x")),
			mk("v1", "Pod", "ns", "c", "c", ownedBy("apps/", "ReplicaSet", "x", "x")),
			mk("v1", "Pod", "ns", "d", "d", ownedBy("a/b/c", "ReplicaSet", "", "x")),
		}
		g := mustGraph(t, objs, OwnerOptions{})
		if diff := cmp.Diff([]string{"hold a Pinned", "hold b Pinned", "hold c Pinned", "hold d Pinned"}, summary(g.Plan())); diff != "" {
			t.Errorf("plan (-want +got):\n%s", diff)
		}
		var got []string
		for _, w := range g.Warnings() {
			got = append(got, w.Object.Name+" "+string(w.Reason)+" "+w.Message)
		}
		want := []string{
			`a InvalidOwnerReference owner reference v1/Pod x (uid "") is invalid (empty uid); the object is never collected`,
			`b InvalidOwnerReference owner reference v1/ x (uid "x") is invalid (empty kind); the object is never collected`,
			`c InvalidOwnerReference owner reference apps//ReplicaSet x (uid "x") is invalid (apiVersion "apps/" does not parse); the object is never collected`,
			`d InvalidOwnerReference owner reference a/b/c/ReplicaSet  (uid "x") is invalid (apiVersion "a/b/c" does not parse, empty name); the object is never collected`,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
	})
	t.Run("self-ownership is a warning and a cycle, never a deletion", func(t *testing.T) {
		g := mustGraph(t, []Object{mk("v1", "ConfigMap", "ns", "me", "me", ownedBy("v1", "ConfigMap", "me", "me"))}, OwnerOptions{})
		p := g.Plan()
		if len(summary(p)) != 0 {
			t.Errorf("plan %v, want nothing", summary(p))
		}
		if len(p.Warnings) != 1 || p.Warnings[0].Reason != OwnerReasonSelfOwner {
			t.Errorf("warnings %+v, want one SelfOwnerReference", p.Warnings)
		}
		if len(p.Cycles) != 1 || !cmp.Equal(names(p.Cycles[0]), []string{"me"}) {
			t.Errorf("cycles %v, want [[me]]", p.Cycles)
		}
	})
	t.Run("two controller references", func(t *testing.T) {
		g := mustGraph(t, []Object{
			mk("v1", "Pod", "ns", "p", "p", blockedBy("v1", "Pod", "x", "x"), blockedBy("v1", "Pod", "y", "y")),
		}, OwnerOptions{})
		w := g.Warnings()
		if len(w) != 1 || w[0].Reason != OwnerReasonMultipleControllers || w[0].Message != "2 owner references have controller=true; the API server allows one" {
			t.Errorf("warnings %+v", w)
		}
	})
	t.Run("unknown kind warns", func(t *testing.T) {
		w := mustGraph(t, []Object{mk("v1", "Pod", "ns", "p", "p", ownedBy("example.com/v1", "Widget", "w", "w"))}, OwnerOptions{}).Warnings()
		if len(w) != 1 || w[0].Reason != OwnerReasonUnknownOwnerKind {
			t.Errorf("warnings %+v", w)
		}
	})
}

func TestKindScopesLookup(t *testing.T) {
	k := DefaultKindScopes()
	tests := []struct {
		apiVersion, kind string
		want             Scope
	}{
		{"v1", "Pod", ScopeNamespaced},
		{"v1", "pod", ScopeNamespaced},
		{"v1", "POD", ScopeUnknown},
		{"v1", "PodList", ScopeUnknown},
		{"v1", "Node", ScopeCluster},
		{"apps/v1", "ReplicaSet", ScopeNamespaced},
		{"apps/v1beta2", "ReplicaSet", ScopeUnknown},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", ScopeCluster},
		{"", "Pod", ScopeUnknown},
		{"apps/", "ReplicaSet", ScopeUnknown},
		{"/v1", "Pod", ScopeUnknown},
		{"v1", "", ScopeUnknown},
	}
	for _, tt := range tests {
		if got := k.Lookup(tt.apiVersion, tt.kind); got != tt.want {
			t.Errorf("Lookup(%q, %q) = %v, want %v", tt.apiVersion, tt.kind, got, tt.want)
		}
	}
	ambiguous := KindScopes{{"x", "v1", "Thing"}: ScopeNamespaced, {"x", "v1", "THING"}: ScopeCluster}
	if got := ambiguous.Lookup("x/v1", "thing"); got != ScopeUnknown {
		t.Errorf("ambiguous lowercase kind: %v, want Unknown", got)
	}
}

func TestFromMeta(t *testing.T) {
	m := &metav1.ObjectMeta{
		Namespace: "ns", Name: "web-1", UID: "u1", ResourceVersion: "7",
		OwnerReferences:   []metav1.OwnerReference{blockedBy("apps/v1", "ReplicaSet", "web", "rs1")},
		DeletionTimestamp: &metav1.Time{}, Finalizers: []string{FinalizerForeground},
	}
	got := FromMeta("v1", "Pod", m)
	want := Object{
		APIVersion: "v1", Kind: "Pod", Namespace: "ns", Name: "web-1", UID: "u1", ResourceVersion: "7",
		OwnerReferences: m.OwnerReferences, DeletionTimestamp: m.DeletionTimestamp, Finalizers: m.Finalizers,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FromMeta (-want +got):\n%s", diff)
	}
	if got := FromMeta("v1", "Pod", nil); got.Kind != "Pod" || got.UID != "" {
		t.Errorf("FromMeta(nil) = %+v", got)
	}
}

// TestOwnerGraphHashCollisions forces every UID onto one hash: the
// index's tags all match, so duplicates, lookups and the classifying
// pass's re-lookup must compare the UIDs themselves.
func TestOwnerGraphHashCollisions(t *testing.T) {
	saved := hashUID
	defer func() { hashUID = saved }()
	for _, h := range []uint64{0, 42 << 40} {
		hashUID = func(maphash.Seed, types.UID) uint64 { return h }
		objs := append(deploymentChain(), mk("v1", "Pod", "default", "stray", "ps", ownedBy("apps/v1", "ReplicaSet", "gone", "gone")))
		g := mustGraph(t, objs, OwnerOptions{})
		if diff := cmp.Diff([]string{"delete stray Background"}, summary(g.Plan())); diff != "" {
			t.Errorf("hash %x: plan (-want +got):\n%s", h, diff)
		}
		for _, o := range objs {
			if i, ok := g.lookup(o.UID); !ok || g.objs[i].UID != o.UID {
				t.Errorf("hash %x: lookup(%s) = %d, %v", h, o.UID, i, ok)
			}
		}
		if e, _ := g.Explain("rs1"); len(e.Dependents) != 2 {
			t.Errorf("hash %x: rs1 dependents %v", h, e.Dependents)
		}
		if _, err := NewOwnerGraph(append(objs, mk("v1", "Pod", "default", "twin", "pa")), OwnerOptions{}); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("hash %x: duplicate not detected: %v", h, err)
		}
	}
}
