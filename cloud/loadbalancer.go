package cloud

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
)

// LoadBalancerOptions select the node-set rules.
//
// The zero value is upstream's node set.
type LoadBalancerOptions struct {
	// RequireReady also drops nodes that are not Ready, as the service
	// controller did before KEP-3458's stable load-balancer node set
	// (StableLoadBalancerNodeSet, kubernetes#115204; GA in v1.30), which
	// stopped resyncing every load balancer on each readiness flap.
	RequireReady bool
}

// IncludedInLoadBalancers is the service controller's nodeIncludedPredicate:
// a node without the node.kubernetes.io/exclude-from-external-load-balancers
// label is included; with it, only when its value parses as false
// (strconv.ParseBool: "false", "0", "f", "F", "FALSE", "False"). Any other
// value, "" included, excludes it. A nil node is not included.
func IncludedInLoadBalancers(n *core.Node) bool {
	if n == nil {
		return false
	}
	v, ok := n.Labels[LabelExcludeFromLoadBalancers]
	if !ok {
		return true
	}
	b, err := strconv.ParseBool(v)
	return err == nil && !b
}

// inLoadBalancerSet applies the stable node set's predicates (not being
// deleted, included, not tainted ToBeDeletedByClusterAutoscaler) and, with
// RequireReady, Ready=True.
func inLoadBalancerSet(n *core.Node, opts LoadBalancerOptions) bool {
	if n.Deleting() || !IncludedInLoadBalancers(n) {
		return false
	}
	for i := range n.Taints {
		if n.Taints[i].Key == TaintToBeDeletedByClusterAutoscaler {
			return false
		}
	}
	return !opts.RequireReady || readyStatus(n) == conditions.True
}

// LoadBalancerNodes returns the names of the nodes that belong behind a
// Service load balancer, sorted, as the service controller's
// stableNodeSetPredicates (k8s.io/cloud-provider controllers/service): not
// being deleted, not excluded by label, not tainted
// ToBeDeletedByClusterAutoscaler. Readiness does not count (see
// LoadBalancerOptions.RequireReady); neither does the uninitialized taint
// nor a missing provider ID: upstream keeps such nodes in the set, and only
// a change of provider ID triggers a resync (ShouldSyncUpdatedNode).
func LoadBalancerNodes(nodes []core.Node, opts LoadBalancerOptions) []string {
	var out []string
	for i := range nodes {
		if inLoadBalancerSet(&nodes[i], opts) {
			out = append(out, nodes[i].Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ShouldSyncUpdatedNode reports whether a node update makes the service
// controller resync every load balancer: the node's inclusion by label
// changed, or its provider ID did. Other changes (readiness, the
// autoscaler's taint) wait for the next periodic sync.
func ShouldSyncUpdatedNode(old, updated core.Node) bool {
	return IncludedInLoadBalancers(&old) != IncludedInLoadBalancers(&updated) || old.ProviderID != updated.ProviderID
}

// LoadBalancerHostsChanged reports whether a Service's load balancer must be
// updated: the node set (with its provider IDs) differs between the nodes it
// was last synced with and the current ones, both filtered by the node-set
// rules (upstream's nodesSufficientlyEqual, negated).
func LoadBalancerHostsChanged(lastSynced, current []core.Node, opts LoadBalancerOptions) bool {
	distill := func(nodes []core.Node) [][2]string {
		var out [][2]string
		for i := range nodes {
			if inLoadBalancerSet(&nodes[i], opts) {
				out = append(out, [2]string{nodes[i].Name, nodes[i].ProviderID})
			}
		}
		slices.SortFunc(out, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
		return out
	}
	return !slices.Equal(distill(lastSynced), distill(current))
}
