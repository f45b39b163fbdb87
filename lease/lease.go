package lease

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/internal/compact"
)

// Lease is a coordination.k8s.io/v1 Lease: the object metadata the planners
// read and the spec, field for field (pointers where the API has optional
// fields).
type Lease struct {
	// Namespace and Name identify the lease.
	Namespace, Name string
	// Labels are metadata.labels.
	Labels map[string]string
	// HolderIdentity is spec.holderIdentity.
	HolderIdentity *string
	// LeaseDurationSeconds is spec.leaseDurationSeconds.
	LeaseDurationSeconds *int32
	// AcquireTime and RenewTime are spec.acquireTime and spec.renewTime
	// (MicroTime upstream).
	AcquireTime, RenewTime *time.Time
	// LeaseTransitions is spec.leaseTransitions.
	LeaseTransitions *int32
	// OwnerReferences is metadata.ownerReferences: a node lease names its
	// Node (NodeOwnerReference), so that deleting the Node collects it.
	OwnerReferences []metav1.OwnerReference
}

// String prints the fields that are set on one line, pointers as their
// values.
func (l Lease) String() string { return compact.Sprint(l) }

// GoString is String, so that %#v (rapid's form for drawn values) prints
// no addresses.
func (l Lease) GoString() string { return l.String() }

// NodeOwnerReference is the owner reference the kubelet puts on its node
// lease: apiVersion v1, kind Node, the node's name and UID.
func NodeOwnerReference(nodeName string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "Node", Name: nodeName, UID: uid}
}

// Holder returns the holder identity, "" when unset.
func (l Lease) Holder() string {
	if l.HolderIdentity == nil {
		return ""
	}
	return *l.HolderIdentity
}

// ExpiresAt returns renewTime + leaseDurationSeconds; ok is false when
// either is unset.
func (l Lease) ExpiresAt() (t time.Time, ok bool) {
	if l.RenewTime == nil || l.LeaseDurationSeconds == nil {
		return time.Time{}, false
	}
	return l.RenewTime.Add(time.Duration(*l.LeaseDurationSeconds) * time.Second), true
}

// Expired reports whether the lease has expired at now, as upstream's
// API server identity lease GC decides: a lease without renewTime or
// without leaseDurationSeconds is expired, as is one whose renewTime +
// leaseDurationSeconds is before now.
func (l Lease) Expired(now time.Time) bool {
	t, ok := l.ExpiresAt()
	return !ok || t.Before(now)
}

func ptrTo[T any](v T) *T { return &v }
