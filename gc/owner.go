package gc

import (
	"cmp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/internal/compact"
)

// The finalizers and propagation policies of cascading deletion, as the
// API server and kube-controller-manager's garbage collector use them.
const (
	// FinalizerOrphan is metav1.FinalizerOrphanDependents: an object being
	// deleted with it waits until the collector has removed its UID from
	// every dependent's owner references.
	FinalizerOrphan = metav1.FinalizerOrphanDependents
	// FinalizerForeground is metav1.FinalizerDeleteDependents: an object
	// being deleted with it waits until no dependent that blocks owner
	// deletion remains.
	FinalizerForeground = metav1.FinalizerDeleteDependents
)

// Object is what the owner-reference collector knows of one API object:
// its identity, its owner references and its deletion state (metadata
// only, as upstream's collector watches). Field names follow
// metav1.ObjectMeta, so FromMeta or a field copy converts a real object.
type Object struct {
	// APIVersion and Kind are the object's type, e.g. "apps/v1" and
	// "ReplicaSet".
	APIVersion, Kind string
	// Namespace is empty for a cluster-scoped object.
	Namespace string
	// Name is metadata.name.
	Name string
	// UID is metadata.uid; it must be non-empty and unique in a graph.
	UID types.UID
	// ResourceVersion is metadata.resourceVersion; the collector's deletes
	// carry it as a precondition when it is non-empty.
	ResourceVersion string
	// OwnerReferences is metadata.ownerReferences. Only the UID identifies
	// the owner; the other fields locate it.
	OwnerReferences []metav1.OwnerReference
	// DeletionTimestamp is metadata.deletionTimestamp: non-nil once
	// deletion started. Only whether it is set matters here.
	DeletionTimestamp *metav1.Time
	// Finalizers is metadata.finalizers.
	Finalizers []string
}

// String prints the object's set fields on one line, its owner references'
// Controller and BlockOwnerDeletion as true or false rather than as
// addresses.
func (o Object) String() string { return compact.Sprint(o) }

// GoString is String, for %#v.
func (o Object) GoString() string { return o.String() }

// FromMeta builds an Object from any metav1.Object (a typed object, an
// unstructured one, or a metav1.PartialObjectMetadata) and its type. The
// slices are shared with m, which the collector never modifies.
func FromMeta(apiVersion, kind string, m metav1.Object) Object {
	if m == nil {
		return Object{APIVersion: apiVersion, Kind: kind}
	}
	return Object{
		APIVersion:        apiVersion,
		Kind:              kind,
		Namespace:         m.GetNamespace(),
		Name:              m.GetName(),
		UID:               m.GetUID(),
		ResourceVersion:   m.GetResourceVersion(),
		OwnerReferences:   m.GetOwnerReferences(),
		DeletionTimestamp: m.GetDeletionTimestamp(),
		Finalizers:        m.GetFinalizers(),
	}
}

// Ref returns the object's identity.
func (o *Object) Ref() ObjectRef {
	return ObjectRef{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, UID: o.UID}
}

// beingDeleted: the deletion timestamp is set (upstream's beingDeleted).
func (o *Object) beingDeleted() bool { return o.DeletionTimestamp != nil }

// deletingDependents: being deleted in the foreground (deletion timestamp
// and the foregroundDeletion finalizer), upstream's deletingDependents.
func (o *Object) deletingDependents() bool {
	return o.DeletionTimestamp != nil && hasString(o.Finalizers, FinalizerForeground)
}

// blocks reports whether r has blockOwnerDeletion=true.
func blocks(r *metav1.OwnerReference) bool {
	return r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ObjectRef identifies an object: upstream's objectReference (the owner
// reference coordinates plus a namespace).
type ObjectRef struct {
	// APIVersion and Kind are the object's type; for a virtual owner,
	// those its reference names.
	APIVersion, Kind string
	// Namespace is empty for a cluster-scoped object (upstream gives a
	// virtual owner its first dependent's namespace, and so does Explain).
	Namespace string
	Name      string
	UID       types.UID
}

// String prints the reference as "Kind namespace/name" ("Kind name" for a
// cluster-scoped object).
func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// compareRefs is the total order of every owner-collector output:
// namespace, name, kind, apiVersion, then UID (unique in a graph).
func compareRefs(a, b *ObjectRef) int {
	if c := cmp.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if c := cmp.Compare(a.APIVersion, b.APIVersion); c != 0 {
		return c
	}
	return cmp.Compare(a.UID, b.UID)
}

// Scope is whether objects of a kind live in a namespace.
type Scope uint8

// The scopes. The zero value is ScopeUnknown.
const (
	// ScopeUnknown: the apiVersion/kind is not served (upstream's REST
	// mapping error). A reference to it pins its dependent: the collector
	// retries forever and never deletes it.
	ScopeUnknown Scope = iota
	// ScopeNamespaced: objects of the kind live in a namespace.
	ScopeNamespaced
	// ScopeCluster: objects of the kind are cluster-scoped.
	ScopeCluster
)

// String returns "Unknown", "Namespaced" or "Cluster".
func (s Scope) String() string {
	switch s {
	case ScopeNamespaced:
		return "Namespaced"
	case ScopeCluster:
		return "Cluster"
	}
	return "Unknown"
}

// ScopeLookup answers, for an owner reference's apiVersion and kind,
// whether the kind is served and namespaced: the piece of the REST mapper
// the collector needs. It is called once per owner reference and must not
// depend on anything but its arguments.
type ScopeLookup func(apiVersion, kind string) Scope

// GroupVersionKind names a served version of a kind; Group is "" for the
// core group.
type GroupVersionKind struct {
	Group, Version, Kind string
}

// KindScopes is a static ScopeLookup: the scope of each served version of
// each kind. Lookup also accepts the all-lowercase kind, as the discovery
// REST mapper does ("pod" resolves, "pOd" does not).
type KindScopes map[GroupVersionKind]Scope

// Lookup is the ScopeLookup of the table. An apiVersion that does not
// parse, or a version or kind not in the table, is ScopeUnknown.
func (k KindScopes) Lookup(apiVersion, kind string) Scope {
	group, version, ok := parseAPIVersion(apiVersion)
	if !ok || kind == "" {
		return ScopeUnknown
	}
	if s, ok := k[GroupVersionKind{group, version, kind}]; ok {
		return s
	}
	// Two kinds that differ only in case would make the lowercase form
	// ambiguous: answer Unknown then, whatever the map order.
	found := ScopeUnknown
	for gvk, s := range k {
		if gvk.Group == group && gvk.Version == version && lowerEqual(kind, gvk.Kind) {
			if found != ScopeUnknown && found != s {
				return ScopeUnknown
			}
			found = s
		}
	}
	return found
}

// lowerEqual reports whether lower is the ASCII lowercase of kind.
func lowerEqual(lower, kind string) bool {
	if len(lower) != len(kind) {
		return false
	}
	for i := 0; i < len(kind); i++ {
		c := kind[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if lower[i] != c {
			return false
		}
	}
	return true
}

// DefaultKindScopes returns the scopes of the built-in kinds that own or
// are owned by others in a stock cluster (core, apps, batch,
// coordination, discovery, policy, rbac, networking, storage,
// certificates, apiextensions). Add custom resources to the map a caller
// passes as OwnerOptions.Scopes.
func DefaultKindScopes() KindScopes {
	k := KindScopes{}
	add := func(group, version string, s Scope, kinds ...string) {
		for _, kind := range kinds {
			k[GroupVersionKind{group, version, kind}] = s
		}
	}
	add("", "v1", ScopeNamespaced, "Pod", "ConfigMap", "Secret", "Service", "ServiceAccount",
		"Endpoints", "PersistentVolumeClaim", "ReplicationController", "Event", "LimitRange",
		"ResourceQuota", "PodTemplate")
	add("", "v1", ScopeCluster, "Node", "Namespace", "PersistentVolume")
	add("apps", "v1", ScopeNamespaced, "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet",
		"ControllerRevision")
	add("batch", "v1", ScopeNamespaced, "Job", "CronJob")
	add("coordination.k8s.io", "v1", ScopeNamespaced, "Lease")
	add("discovery.k8s.io", "v1", ScopeNamespaced, "EndpointSlice")
	add("policy", "v1", ScopeNamespaced, "PodDisruptionBudget")
	add("rbac.authorization.k8s.io", "v1", ScopeNamespaced, "Role", "RoleBinding")
	add("rbac.authorization.k8s.io", "v1", ScopeCluster, "ClusterRole", "ClusterRoleBinding")
	add("networking.k8s.io", "v1", ScopeNamespaced, "Ingress", "NetworkPolicy")
	add("networking.k8s.io", "v1", ScopeCluster, "IngressClass")
	add("storage.k8s.io", "v1", ScopeCluster, "StorageClass", "CSINode", "CSIDriver", "VolumeAttachment")
	add("certificates.k8s.io", "v1", ScopeCluster, "CertificateSigningRequest")
	add("apiextensions.k8s.io", "v1", ScopeCluster, "CustomResourceDefinition")
	add("autoscaling", "v2", ScopeNamespaced, "HorizontalPodAutoscaler")
	return k
}

// parseAPIVersion splits "group/version" or "version" (the core group).
// Like the API server's owner-reference validation it rejects an empty
// version, an empty group before a slash and more than one slash.
func parseAPIVersion(apiVersion string) (group, version string, ok bool) {
	i := strings.IndexByte(apiVersion, '/')
	if i < 0 {
		return "", apiVersion, apiVersion != ""
	}
	group, version = apiVersion[:i], apiVersion[i+1:]
	if group == "" || version == "" || strings.IndexByte(version, '/') >= 0 {
		return "", "", false
	}
	return group, version, true
}

// apiGroup is the group of an apiVersion ("" for "v1" and for anything
// that does not parse).
func apiGroup(apiVersion string) string {
	if i := strings.IndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}
