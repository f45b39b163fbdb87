package cloud

import (
	"cmp"
	"errors"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
)

// Route is a cloud route to a node's pod CIDR (k8s.io/cloud-provider.Route).
type Route struct {
	// Name is the cloud's name for the route.
	Name string
	// TargetNode is the node the route sends traffic to; empty for a route
	// whose node is unknown.
	TargetNode string
	// TargetNodeAddresses are the node's addresses when the route was made
	// (only compared when EnableNodeAddresses).
	TargetNodeAddresses []conditions.NodeAddress
	// DestinationCIDR is the pod CIDR.
	DestinationCIDR string
	// Blackhole: the route's target no longer exists; such routes are
	// deleted.
	Blackhole bool
	// EnableNodeAddresses: the provider routes by node address, so a route
	// whose addresses differ from the node's is recreated.
	EnableNodeAddresses bool
}

// RouteChange is one route to create or delete, with the reason.
type RouteChange struct {
	// Route is the route.
	Route Route
	// NameHint is the node's UID, passed to CreateRoute.
	NameHint string
	// Reason is "NoRoute", "AddressesChanged", "Blackhole" (create, with
	// RecreateBlackholes), or "Blackhole",
	// "NodeGone" (no such node, or no target), "CIDRNotAssigned" (the
	// node has no such pod CIDR), "AddressesChanged" (delete).
	Reason string
}

// RoutePlan is the route controller's reconcile plan: the deletions, to run
// first, then the creations, and for each node what NetworkUnavailable
// becomes once they have run.
type RoutePlan struct {
	// Delete are the routes to delete, sorted by target node, CIDR and name.
	Delete []RouteChange
	// Create are the routes to create, sorted by node name in the order of
	// each node's pod CIDRs.
	Create []RouteChange
	// Nodes are the nodes whose NetworkUnavailable condition the controller
	// sets, sorted by name.
	Nodes []RouteNode
}

// RouteNode says how the route controller settles one node's
// NetworkUnavailable condition.
type RouteNode struct {
	// Node is the node's name.
	Node string
	// Pending are the pod CIDRs whose routes the plan creates; when every
	// one is created the node gets NetworkUnavailable=False
	// (RouteCreated), otherwise True (NoRouteCreated).
	Pending []string
	// NoPodCIDRs is true for a node that has routes but no pod CIDR: it
	// gets NetworkUnavailable=True (NoRouteCreated) whatever happens.
	NoPodCIDRs bool
}

// RoutesCreated reports whether the node ends with NetworkUnavailable=False
// given the CIDRs whose creation failed.
func (r RouteNode) RoutesCreated(failed map[string]bool) bool {
	if r.NoPodCIDRs {
		return false
	}
	for _, c := range r.Pending {
		if failed[c] {
			return false
		}
	}
	return true
}

// RouteConfig configures PlanRoutes.
//
// The zero value has no cluster CIDR, so the
// controller touches no route.
type RouteConfig struct {
	// ClusterCIDRs are the cluster CIDRs (--cluster-cidr): the controller
	// touches only routes whose CIDR has its first or last address in one
	// of them, so routes of other clusters sharing the cloud network stay.
	ClusterCIDRs []netip.Prefix
	// RecreateBlackholes replaces a blackholed route to a node's current
	// pod CIDR in the same pass. Upstream's getRouteAction does not look at
	// Blackhole: such a route counts as present, so the pass deletes it,
	// creates nothing, and reports the node's routes as created; the route
	// comes back on the next pass (10s later by default). Off by default; no
	// upstream issue tracks it.
	RecreateBlackholes bool
}

// Validate reports every cluster CIDR that is not a valid prefix, naming its
// index and value (errors.Join); an empty list is allowed and makes the
// controller touch no route.
func (c RouteConfig) Validate() error {
	var errs []error
	for i, p := range c.ClusterCIDRs {
		if !p.IsValid() {
			errs = append(errs, wrap(ErrInvalidConfig, "ClusterCIDRs["+strconv.Itoa(i)+"] "+quote(p.String())+" is not a valid prefix"))
		}
	}
	return errors.Join(errs...)
}

// PlanRoutes is the route controller's reconcile (k8s.io/cloud-provider
// controllers/route reconcile) on the nodes and on the routes the provider
// listed for this cluster:
//
//   - a node's pod CIDR with a route to it is kept, unless the route
//     records node addresses (EnableNodeAddresses) that differ from the
//     node's, which replaces it (delete, then create);
//   - a pod CIDR without a route gets one, named after the node's UID;
//   - a route in the cluster CIDRs is deleted when it is a blackhole, its
//     node is not among nodes with pod CIDRs, or its CIDR is not one of the
//     node's pod CIDRs; a route outside the cluster CIDRs is never touched;
//   - a node with pod CIDRs, or with routes but no pod CIDR, has its
//     NetworkUnavailable condition settled (RouteNode).
//
// The plan does not depend on the order of nodes or routes, except where the
// cloud lists two routes to one node with the same CIDR: then, as upstream,
// the first decides. An invalid cfg is an error (RouteConfig.Validate) and no
// plan.
func PlanRoutes(cfg RouteConfig, nodes []core.Node, routes []Route) (RoutePlan, error) {
	if err := cfg.Validate(); err != nil {
		return RoutePlan{}, err
	}
	// The routes of each target node, as a range of an index sorted by
	// target (stable, so the cloud's order within a node is kept).
	byTarget := make([]int, len(routes))
	for i := range byTarget {
		byTarget[i] = i
	}
	slices.SortStableFunc(byTarget, func(a, b int) int { return cmp.Compare(routes[a].TargetNode, routes[b].TargetNode) })
	spans := make(map[string][2]int, len(nodes))
	for i := 0; i < len(byTarget); {
		j := i
		for j < len(byTarget) && routes[byTarget[j]].TargetNode == routes[byTarget[i]].TargetNode {
			j++
		}
		if t := routes[byTarget[i]].TargetNode; t != "" {
			spans[t] = [2]int{i, j}
		}
		i = j
	}
	routesTo := func(node string) []int {
		sp := spans[node]
		return byTarget[sp[0]:sp[1]]
	}

	order := make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(nodes[a].Name, nodes[b].Name) })

	type key struct{ node, cidr string }
	actions := make(map[key]string, len(nodes)) // "keep", "add" or "update"
	withCIDRs := make(map[string]bool, len(nodes))
	var plan RoutePlan
	for k, i := range order {
		n := &nodes[i]
		if k > 0 && nodes[order[k-1]].Name == n.Name {
			continue // a duplicate name: the first in name order counts
		}
		mine := routesTo(n.Name)
		if len(n.PodCIDRs) == 0 {
			if len(mine) > 0 {
				plan.Nodes = append(plan.Nodes, RouteNode{Node: n.Name, NoPodCIDRs: true})
			}
			withCIDRs[n.Name] = false
			continue
		}
		withCIDRs[n.Name] = true
		rn := RouteNode{Node: n.Name}
		for _, cidr := range n.PodCIDRs {
			if _, done := actions[key{n.Name, cidr}]; done {
				continue
			}
			a := routeAction(routes, mine, cidr, n.Addresses, cfg.RecreateBlackholes)
			actions[key{n.Name, cidr}] = a
			if a == "keep" {
				continue
			}
			reason := "NoRoute"
			if a == "update" {
				reason = "AddressesChanged"
			} else if slices.ContainsFunc(mine, func(r int) bool { return routes[r].DestinationCIDR == cidr && routes[r].Blackhole }) {
				reason = "Blackhole"
			}
			plan.Create = append(plan.Create, RouteChange{
				Route:    Route{TargetNode: n.Name, TargetNodeAddresses: slices.Clone(n.Addresses), DestinationCIDR: cidr},
				NameHint: n.UID, Reason: reason,
			})
			rn.Pending = append(rn.Pending, cidr)
		}
		plan.Nodes = append(plan.Nodes, rn)
	}
	for _, r := range routes {
		if !responsibleFor(cfg.ClusterCIDRs, r.DestinationCIDR) {
			continue
		}
		hasCIDRs, exists := withCIDRs[r.TargetNode]
		a, has := actions[key{r.TargetNode, r.DestinationCIDR}]
		reason := ""
		switch {
		case r.Blackhole:
			reason = "Blackhole"
		case !exists:
			reason = "NodeGone"
		case !hasCIDRs || !has:
			reason = "CIDRNotAssigned"
		case a == "update":
			reason = "AddressesChanged"
		}
		if reason != "" {
			plan.Delete = append(plan.Delete, RouteChange{Route: r, Reason: reason})
		}
	}
	slices.SortStableFunc(plan.Delete, func(a, b RouteChange) int {
		return cmp.Or(cmp.Compare(a.Route.TargetNode, b.Route.TargetNode), cmp.Compare(a.Route.DestinationCIDR, b.Route.DestinationCIDR),
			cmp.Compare(a.Route.Name, b.Route.Name))
	})
	return plan, nil
}

// routeAction is upstream's getRouteAction: the first route to the node with
// this CIDR decides (blackholes are skipped when skipBlackholes).
func routeAction(all []Route, mine []int, cidr string, addrs []conditions.NodeAddress, skipBlackholes bool) string {
	for _, i := range mine {
		if r := &all[i]; r.DestinationCIDR == cidr && !(skipBlackholes && r.Blackhole) {
			if !r.EnableNodeAddresses || sameAddresses(addrs, r.TargetNodeAddresses) {
				return "keep"
			}
			return "update"
		}
	}
	return "add"
}

// sameAddresses is upstream's equalNodeAddrs: the same length and every
// address of a found in b.
func sameAddresses(a, b []conditions.NodeAddress) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// responsibleFor is upstream's isResponsibleForRoute: the route's CIDR parses
// and its first or last address lies in a cluster CIDR.
func responsibleFor(clusterCIDRs []netip.Prefix, cidr string) bool {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return false
	}
	p = p.Masked()
	first, last := p.Addr(), lastAddr(p)
	for _, c := range clusterCIDRs {
		if c.Contains(first) || c.Contains(last) {
			return true
		}
	}
	return false
}

// Route controller condition reasons and messages.
const (
	ReasonRouteCreated    = "RouteCreated"
	MessageRouteCreated   = "RouteController created a route"
	ReasonNoRouteCreated  = "NoRouteCreated"
	MessageNoRouteCreated = "RouteController failed to create a route"
)

// NetworkUnavailable returns the NetworkUnavailable condition the route
// controller writes for a node whose routes are all created (or not), and
// whether it writes at all: not when the node already has False/RouteCreated
// (True/NoRouteCreated). The transition time is now, as upstream sets it on
// every write.
func NetworkUnavailable(now time.Time, current []conditions.Condition, routesCreated bool) (conditions.Condition, bool) {
	c := conditions.Condition{Type: conditions.NetworkUnavailable, Status: conditions.True, Reason: ReasonNoRouteCreated,
		Message: MessageNoRouteCreated, LastTransitionTime: now}
	if routesCreated {
		c.Status, c.Reason, c.Message = conditions.False, ReasonRouteCreated, MessageRouteCreated
	}
	if old, ok := conditions.Find(current, conditions.NetworkUnavailable); ok && old.Status == c.Status && old.Reason == c.Reason {
		return old, false
	}
	return c, true
}
