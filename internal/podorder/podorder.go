// Package podorder holds the pod orders two or more packages share: the
// order in which the control plane force deletes pods (the pod GC of
// package gc and the out-of-service planner of package shutdown), and the
// namespace/name/UID tie-break that makes the eviction orders of packages
// eviction and eviction/pressure total.
package podorder

import (
	"strings"
	"time"
)

// Key is what the order looks at in a pod.
type Key struct {
	// Evicted is phase Failed with reason Evicted.
	Evicted bool
	// Created is metadata.creationTimestamp.
	Created time.Time
	// Name, Namespace and UID identify the pod.
	Name, Namespace, UID string
}

// Compare is upstream's byEvictionAndCreationTimestamp: evicted pods first,
// then older, then by name; namespace and UID make the order total.
func Compare(a, b Key) int {
	if a.Evicted != b.Evicted {
		if a.Evicted {
			return -1
		}
		return 1
	}
	if c := a.Created.Compare(b.Created); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.UID, b.UID)
}

// CompareIdentity orders two pods by namespace, then name, then UID.
func CompareIdentity(aNamespace, aName, aUID, bNamespace, bName, bUID string) int {
	if c := strings.Compare(aNamespace, bNamespace); c != 0 {
		return c
	}
	if c := strings.Compare(aName, bName); c != 0 {
		return c
	}
	return strings.Compare(aUID, bUID)
}
