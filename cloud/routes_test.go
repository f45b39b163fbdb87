package cloud

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

var routeCfg = RouteConfig{ClusterCIDRs: []netip.Prefix{mp("10.0.0.0/16")}}

// mustPlan is PlanRoutes for configurations known to be valid.
func mustPlan(t interface{ Fatalf(string, ...any) }, cfg RouteConfig, nodes []core.Node, routes []Route) RoutePlan {
	p, err := PlanRoutes(cfg, nodes, routes)
	if err != nil {
		t.Fatalf("PlanRoutes: %v", err)
	}
	return p
}

// An invalid cluster CIDR is refused with its index named, rather than
// silently covering no route.
func TestRouteConfigValidate(t *testing.T) {
	_, err := PlanRoutes(RouteConfig{ClusterCIDRs: []netip.Prefix{mp("10.0.0.0/16"), {}}}, nil, nil)
	if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "ClusterCIDRs[1]") {
		t.Fatalf("%v", err)
	}
	if err := (RouteConfig{}).Validate(); err != nil {
		t.Fatalf("empty config: %v", err)
	}
}

// controllers/route/route_controller.go reconcile, worked by hand.
func TestPlanRoutes(t *testing.T) {
	nodes := []core.Node{
		{Name: "n2", UID: "u2", PodCIDRs: []string{"10.0.1.0/24"}, Addresses: addrs("InternalIP", "10.1.0.2")},
		{Name: "n1", UID: "u1", PodCIDRs: []string{"10.0.0.0/24"}, Addresses: addrs("InternalIP", "10.1.0.1")},
		{Name: "n3", UID: "u3"}, // no pod CIDR yet
	}
	routes := []Route{
		{Name: "c-u1", TargetNode: "n1", DestinationCIDR: "10.0.0.0/24"},     // kept
		{Name: "c-old", TargetNode: "n9", DestinationCIDR: "10.0.9.0/24"},    // node gone
		{Name: "other", TargetNode: "x1", DestinationCIDR: "192.168.0.0/24"}, // another cluster's
		{Name: "c-bh", TargetNode: "n1", DestinationCIDR: "10.0.7.0/24", Blackhole: true},
		{Name: "c-wrong", TargetNode: "n2", DestinationCIDR: "10.0.5.0/24"}, // not n2's CIDR
		{Name: "c-n3", TargetNode: "n3", DestinationCIDR: "10.0.6.0/24"},    // n3 has no CIDR
		{Name: "c-none", DestinationCIDR: "10.0.8.0/24"},                    // no target
		{Name: "c-bad", TargetNode: "n1", DestinationCIDR: "not-a-cidr"},    // not ours to judge
	}
	got := mustPlan(t, routeCfg, nodes, routes)
	want := RoutePlan{
		Delete: []RouteChange{
			{Route: routes[6], Reason: "NodeGone"},
			{Route: routes[3], Reason: "Blackhole"},
			{Route: routes[4], Reason: "CIDRNotAssigned"},
			{Route: routes[5], Reason: "CIDRNotAssigned"},
			{Route: routes[1], Reason: "NodeGone"},
		},
		Create: []RouteChange{
			{Route: Route{TargetNode: "n2", TargetNodeAddresses: addrs("InternalIP", "10.1.0.2"), DestinationCIDR: "10.0.1.0/24"}, NameHint: "u2", Reason: "NoRoute"},
		},
		Nodes: []RouteNode{{Node: "n1"}, {Node: "n2", Pending: []string{"10.0.1.0/24"}}, {Node: "n3", NoPodCIDRs: true}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got)\n%s", d)
	}
	if !got.Nodes[1].RoutesCreated(nil) || got.Nodes[1].RoutesCreated(map[string]bool{"10.0.1.0/24": true}) || got.Nodes[2].RoutesCreated(nil) {
		t.Error("RoutesCreated")
	}
}

// With EnableNodeAddresses a route whose recorded addresses differ from the
// node's is replaced; without it, addresses do not matter.
func TestPlanRoutesAddresses(t *testing.T) {
	n := core.Node{Name: "n1", UID: "u1", PodCIDRs: []string{"10.0.0.0/24", "fd00::/64"}, Addresses: addrs("InternalIP", "10.1.0.1")}
	stale := Route{Name: "c-1", TargetNode: "n1", DestinationCIDR: "10.0.0.0/24", EnableNodeAddresses: true, TargetNodeAddresses: addrs("InternalIP", "10.1.0.99")}
	cfg := RouteConfig{ClusterCIDRs: []netip.Prefix{mp("10.0.0.0/16"), mp("fd00::/48")}}
	p := mustPlan(t, cfg, []core.Node{n}, []Route{stale, {Name: "c-2", TargetNode: "n1", DestinationCIDR: "fd00::/64", TargetNodeAddresses: addrs("InternalIP", "10.1.0.99")}})
	if len(p.Delete) != 1 || p.Delete[0].Reason != "AddressesChanged" || len(p.Create) != 1 || p.Create[0].Reason != "AddressesChanged" ||
		p.Create[0].Route.DestinationCIDR != "10.0.0.0/24" || !slices.Equal(p.Nodes[0].Pending, []string{"10.0.0.0/24"}) {
		t.Fatalf("%+v", p)
	}
}

// updateNetworkingCondition: no write when the condition already says so.
func TestNetworkUnavailable(t *testing.T) {
	now := time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)
	created := conditions.Condition{Type: conditions.NetworkUnavailable, Status: conditions.False, Reason: ReasonRouteCreated, Message: MessageRouteCreated}
	if _, write := NetworkUnavailable(now, []conditions.Condition{created}, true); write {
		t.Error("already RouteCreated: wrote")
	}
	c, write := NetworkUnavailable(now, []conditions.Condition{created}, false)
	want := conditions.Condition{Type: conditions.NetworkUnavailable, Status: conditions.True, Reason: ReasonNoRouteCreated,
		Message: "RouteController failed to create a route", LastTransitionTime: now}
	if !write || c != want {
		t.Errorf("got %+v %v", c, write)
	}
	c, write = NetworkUnavailable(now, nil, true)
	if !write || c.Status != conditions.False || c.Reason != "RouteCreated" || c.Message != "RouteController created a route" {
		t.Errorf("got %+v %v", c, write)
	}
}

// controllers/service/controller.go stableNodeSetPredicates.
func TestLoadBalancerNodes(t *testing.T) {
	tbd := []taints.Taint{{Key: TaintToBeDeletedByClusterAutoscaler, Value: "1700000000", Effect: taints.TaintEffectNoSchedule}}
	nodes := []core.Node{
		{Name: "plain", Conditions: ready(conditions.True)},
		{Name: "notready", Conditions: ready(conditions.False)},
		{Name: "uninit", Taints: []taints.Taint{uninitialized}, Conditions: ready(conditions.True)},
		{Name: "excluded", Labels: map[string]string{LabelExcludeFromLoadBalancers: "true"}},
		{Name: "excl-empty", Labels: map[string]string{LabelExcludeFromLoadBalancers: ""}},
		{Name: "excl-yes", Labels: map[string]string{LabelExcludeFromLoadBalancers: "yes"}},
		{Name: "excl-false", Labels: map[string]string{LabelExcludeFromLoadBalancers: "false"}},
		{Name: "excl-0", Labels: map[string]string{LabelExcludeFromLoadBalancers: "0"}},
		{Name: "scaling-down", Taints: tbd},
		{Name: "deleting", DeletionTimestamp: &time.Time{}},
	}
	got := LoadBalancerNodes(nodes, LoadBalancerOptions{})
	if want := []string{"excl-0", "excl-false", "notready", "plain", "uninit"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	got = LoadBalancerNodes(nodes, LoadBalancerOptions{RequireReady: true})
	if want := []string{"plain", "uninit"}; !slices.Equal(got, want) {
		t.Errorf("RequireReady: got %v, want %v", got, want)
	}

	a := core.Node{Name: "a", ProviderID: "p1"}
	b := a
	b.Conditions = ready(conditions.False)
	b.Taints = tbd
	if ShouldSyncUpdatedNode(a, b) {
		t.Error("readiness and the autoscaler taint must not trigger a resync")
	}
	c := a
	c.ProviderID = "p2"
	e := a
	e.Labels = map[string]string{LabelExcludeFromLoadBalancers: "true"}
	if !ShouldSyncUpdatedNode(a, c) || !ShouldSyncUpdatedNode(a, e) {
		t.Error("a provider ID or exclusion change must trigger a resync")
	}
	if LoadBalancerHostsChanged([]core.Node{a}, []core.Node{a, {Name: "d", DeletionTimestamp: &time.Time{}}}, LoadBalancerOptions{}) {
		t.Error("a deleting node is not a host")
	}
	if !LoadBalancerHostsChanged([]core.Node{a}, []core.Node{c}, LoadBalancerOptions{}) || !LoadBalancerHostsChanged([]core.Node{a}, nil, LoadBalancerOptions{}) {
		t.Error("changed provider ID or a lost host must count")
	}
	if LoadBalancerHostsChanged([]core.Node{a, c}, []core.Node{c, a}, LoadBalancerOptions{}) {
		t.Error("order must not count")
	}
}

// getRouteAction does not look at Blackhole: a blackholed route to a current
// pod CIDR counts as present, so the pass deletes it and creates nothing.
// RecreateBlackholes plans the replacement in the same pass.
func TestPlanRoutesBlackholeOnCurrentCIDR(t *testing.T) {
	n := core.Node{Name: "n1", UID: "u1", PodCIDRs: []string{"10.0.0.0/24"}}
	bh := Route{Name: "c-1", TargetNode: "n1", DestinationCIDR: "10.0.0.0/24", Blackhole: true}
	p := mustPlan(t, routeCfg, []core.Node{n}, []Route{bh})
	if len(p.Delete) != 1 || len(p.Create) != 0 || len(p.Nodes[0].Pending) != 0 {
		t.Fatalf("upstream: %+v", p)
	}
	cfg := routeCfg
	cfg.RecreateBlackholes = true
	p = mustPlan(t, cfg, []core.Node{n}, []Route{bh})
	if len(p.Delete) != 1 || len(p.Create) != 1 || p.Create[0].Reason != "Blackhole" || !slices.Equal(p.Nodes[0].Pending, []string{"10.0.0.0/24"}) {
		t.Fatalf("RecreateBlackholes: %+v", p)
	}
}

func TestNilNodesAndProvider(t *testing.T) {
	var n *core.Node
	if Uninitialized(n) || IncludedInLoadBalancers(nil) {
		t.Error("a nil node is neither uninitialized nor included")
	}
	d := MonitorNodes(context.Background(), nil, []core.Node{{Name: "a"}})
	if d[0].Action != LifecycleNone || !errors.Is(d[0].Err, ErrNoProvider) {
		t.Errorf("nil provider: %+v", d[0])
	}
	p := Initialize(context.Background(), nil, core.Node{Name: "a", Taints: []taints.Taint{uninitialized}})
	if p.Initialize || !errors.Is(p.Err, ErrNoProvider) {
		t.Errorf("nil provider: %+v", p)
	}
}
