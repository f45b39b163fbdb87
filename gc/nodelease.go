package gc

import (
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeLeaseNamespace is the namespace of the kubelets' heartbeat Leases.
const NodeLeaseNamespace = "kube-node-lease"

// NodeLease is what the collector looks at in a node heartbeat Lease
// (namespace kube-node-lease, named after its node).
type NodeLease struct {
	// Name is the Lease's name, the node's name.
	Name string
	// OwnerReferences is metadata.ownerReferences. The kubelet points it
	// at its Node (apiVersion v1, kind Node, the node's name and UID) as
	// soon as the Node exists.
	OwnerReferences []metav1.OwnerReference
	// RenewTime is spec.renewTime; nil if never renewed.
	RenewTime *time.Time
}

// NodeRef identifies a Node that exists.
type NodeRef struct {
	// Name and UID are the Node's.
	Name, UID string
}

// NodeLeaseConfig configures PlanNodeLeases. The zero value is upstream's
// behaviour.
type NodeLeaseConfig struct {
	// OwnerlessAfter, when positive, also deletes a Lease that has no
	// owner reference, whose node does not exist and that has not been
	// renewed for longer than this (or never). Upstream never collects
	// such a Lease: the garbage collector only follows owner references.
	OwnerlessAfter time.Duration
}

// NodeLeaseReason says why a node Lease is deleted or kept.
type NodeLeaseReason string

// The node Lease reasons.
const (
	// NodeLeaseOwnerGone: every owner reference is to a Node that does not
	// exist (by name and UID): the garbage collector deletes it
	// (background).
	NodeLeaseOwnerGone NodeLeaseReason = "OwnerGone"
	// NodeLeaseOwnerExists: an owner reference resolves to an existing
	// Node; kept.
	NodeLeaseOwnerExists NodeLeaseReason = "OwnerExists"
	// NodeLeaseOwnerUnverified: an owner reference is to something other
	// than a v1 Node, which this collector cannot check; kept.
	NodeLeaseOwnerUnverified NodeLeaseReason = "OwnerUnverified"
	// NodeLeaseNoOwner: no owner reference; kept (upstream), or deleted
	// under NodeLeaseConfig.OwnerlessAfter.
	NodeLeaseNoOwner NodeLeaseReason = "NoOwner"
)

// NodeLeaseDecision is the decision for one node Lease.
type NodeLeaseDecision struct {
	// Lease is the Lease.
	Lease NodeLease
	// Delete reports that the Lease goes.
	Delete bool
	// Reason and Message say why.
	Reason  NodeLeaseReason
	Message string
}

// NodeLeasePlan is the collection of node Leases at one time.
type NodeLeasePlan struct {
	// Delete lists the Leases to delete, by name.
	Delete []NodeLeaseDecision
	// Keep lists the Leases kept, by name, with the reason.
	Keep []NodeLeaseDecision
	// Next is when an ownerless Lease becomes due under OwnerlessAfter;
	// zero when none will.
	Next time.Time
}

// PlanNodeLeases decides which node heartbeat Leases go at now, given the
// Nodes that exist. Node Leases of deleted Nodes are collected by the
// garbage collector through their owner reference: a reference counts as
// absent when no Node has its name, or the Node with its name has another
// UID (the name was reused); a Lease goes when every reference is absent.
func PlanNodeLeases(now time.Time, cfg NodeLeaseConfig, leases []NodeLease, nodes []NodeRef) NodeLeasePlan {
	byName := make(map[string]string, len(nodes))
	for _, n := range nodes {
		byName[n.Name] = n.UID
	}
	var p NodeLeasePlan
	for _, l := range leases {
		d := decideNodeLease(cfg, l, byName, now)
		if d.Delete {
			p.Delete = append(p.Delete, d)
			continue
		}
		p.Keep = append(p.Keep, d)
		if d.Reason == NodeLeaseNoOwner && cfg.OwnerlessAfter > 0 && l.RenewTime != nil {
			if _, exists := byName[l.Name]; !exists {
				if due := l.RenewTime.Add(cfg.OwnerlessAfter + 1); p.Next.IsZero() || due.Before(p.Next) {
					p.Next = due
				}
			}
		}
	}
	byLease := func(a, b NodeLeaseDecision) int { return strings.Compare(a.Lease.Name, b.Lease.Name) }
	slices.SortFunc(p.Delete, byLease)
	slices.SortFunc(p.Keep, byLease)
	return p
}

func decideNodeLease(cfg NodeLeaseConfig, l NodeLease, nodes map[string]string, now time.Time) NodeLeaseDecision {
	d := NodeLeaseDecision{Lease: l}
	if len(l.OwnerReferences) == 0 {
		d.Reason = NodeLeaseNoOwner
		_, exists := nodes[l.Name]
		switch {
		case cfg.OwnerlessAfter <= 0 || exists:
			d.Message = "no owner reference; the garbage collector only follows owner references"
		case l.RenewTime == nil || now.Sub(*l.RenewTime) > cfg.OwnerlessAfter:
			d.Delete = true
			d.Message = fmt.Sprintf("no owner reference, node %s does not exist and the lease was not renewed for more than %v", l.Name, cfg.OwnerlessAfter)
		default:
			d.Message = fmt.Sprintf("no owner reference and node %s does not exist, but the lease was renewed within %v", l.Name, cfg.OwnerlessAfter)
		}
		return d
	}
	for _, ref := range l.OwnerReferences {
		if ref.APIVersion != "v1" || ref.Kind != "Node" {
			d.Reason = NodeLeaseOwnerUnverified
			d.Message = fmt.Sprintf("owner %s %s %s is not a v1 Node", ref.APIVersion, ref.Kind, ref.Name)
			return d
		}
		if uid, ok := nodes[ref.Name]; ok && uid == string(ref.UID) {
			d.Reason = NodeLeaseOwnerExists
			d.Message = fmt.Sprintf("node %s (uid %s) exists", ref.Name, ref.UID)
			return d
		}
	}
	d.Delete, d.Reason = true, NodeLeaseOwnerGone
	ref := l.OwnerReferences[0]
	d.Message = fmt.Sprintf("owner node %s (uid %s) no longer exists", ref.Name, ref.UID)
	return d
}
