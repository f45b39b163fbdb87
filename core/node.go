package core

import (
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/taints"
)

// Node is a node, the fields of k8s.io/api/core/v1.Node that the library's
// planners read, flattened out of metadata, spec and status. A planner's
// doc says which fields it reads; the others may be left zero.
//
// The zero value is a node with no name and no conditions: it is not
// Ready (ReadyStatus is ""), and has no taints.
type Node struct {
	// Name and UID are metadata.name and metadata.uid.
	Name, UID string
	// Labels and Annotations are metadata.labels and metadata.annotations.
	Labels, Annotations map[string]string
	// CreationTimestamp is metadata.creationTimestamp.
	CreationTimestamp time.Time
	// DeletionTimestamp is metadata.deletionTimestamp; nil while the node
	// is not being deleted.
	DeletionTimestamp *time.Time

	// Taints are spec.taints.
	Taints []taints.Taint
	// Unschedulable is spec.unschedulable (a cordoned node).
	Unschedulable bool
	// ProviderID is spec.providerID, e.g. "aws:///us-east-1a/i-0abc"; ""
	// until the cloud controller manager (or the kubelet) sets it.
	ProviderID string
	// PodCIDRs are spec.podCIDRs, one per IP family, primary first.
	PodCIDRs []string

	// Conditions are status.conditions; of each type the first counts, as
	// the API's helpers read them.
	Conditions []conditions.Condition
	// Addresses are status.addresses, in order.
	Addresses []conditions.NodeAddress
	// Capacity is status.capacity: the node's total resources, before
	// what the system reserves.
	Capacity ResourceList
	// Allocatable is status.allocatable: what pods may request.
	Allocatable ResourceList
	// Features is status.features.
	Features NodeFeatures
}

// NodeFeatures is a node's status.features: what its kubelet supports.
type NodeFeatures struct {
	// SupplementalGroupsPolicy is status.features.supplementalGroupsPolicy;
	// nil counts as false.
	SupplementalGroupsPolicy *bool
}

// Deleting reports whether metadata.deletionTimestamp is set.
func (n *Node) Deleting() bool { return n.DeletionTimestamp != nil }

// ReadyStatus returns the status of the node's first Ready condition, or ""
// when it has none.
func (n *Node) ReadyStatus() conditions.Status {
	c, ok := conditions.Find(n.Conditions, conditions.Ready)
	if !ok {
		return ""
	}
	return c.Status
}

// Ready reports whether the node's Ready condition is True, as upstream's
// IsNodeReady: a node with no Ready condition is not ready.
func (n *Node) Ready() bool { return n.ReadyStatus() == conditions.True }

// HasTaintKey reports whether one of the node's taints has the key, with
// any value and effect.
func (n *Node) HasTaintKey(key string) bool {
	for i := range n.Taints {
		if n.Taints[i].Key == key {
			return true
		}
	}
	return false
}
