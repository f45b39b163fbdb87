package cloud_test

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/nodelife/nodelife/cloud"
	"github.com/nodelife/nodelife/cloud/fake"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

func ExampleCIDRSet() {
	s, _ := cloud.NewCIDRSet(netip.MustParsePrefix("10.244.0.0/16"), 24)
	a, _ := s.AllocateNext()
	b, _ := s.AllocateNext()
	_ = s.Release(a)
	c, _ := s.AllocateNext() // the cursor has moved on: a is reused later
	fmt.Println(a, b, c, s.Free(), "of", s.Max(), "free")
	// Output: 10.244.0.0/24 10.244.1.0/24 10.244.2.0/24 254 of 256 free
}

func ExampleRangeAllocator() {
	cfg := cloud.RangeAllocatorConfig{ClusterCIDRs: []netip.Prefix{
		netip.MustParsePrefix("10.244.0.0/16"), netip.MustParsePrefix("fd00:10:244::/56"),
	}}
	existing := []core.Node{{Name: "old", PodCIDRs: []string{"10.244.0.0/24", "fd00:10:244::/64"}}}
	a, _ := cloud.NewRangeAllocator(cfg, existing)
	u, _ := a.Sync(core.Node{Name: "new"})
	fmt.Println(u.Reason, u.Strings())
	// Output: CIDRAssigned [10.244.1.0/24 fd00:10:244:1::/64]
}

func ExamplePlanInitialization() {
	node := core.Node{Name: "worker-1", Taints: []taints.Taint{{Key: taints.TaintExternalCloudProvider, Value: "true", Effect: taints.TaintEffectNoSchedule}},
		Addresses: []conditions.NodeAddress{{Type: conditions.NodeHostName, Address: "worker-1"}}}
	meta := &cloud.InstanceMetadata{ProviderID: "fake://eu-1b/i-42", InstanceType: "c6.large", Zone: "eu-1b", Region: "eu-1",
		NodeAddresses: fake.Addresses("InternalIP", "10.0.3.7")}
	p := cloud.PlanInitialization(node, meta, nil)
	fmt.Println(p.Reason, p.ProviderID, p.Labels[cloud.LabelZone], p.Labels[cloud.LabelZoneBeta], len(p.Taints))
	fmt.Println(p.Addresses)

	// The kubelet asked for --node-ip 10.0.3.9, which the cloud does not report.
	node.Annotations = map[string]string{cloud.AnnotationProvidedNodeIP: "10.0.3.9"}
	p = cloud.PlanInitialization(node, meta, nil)
	fmt.Println(p.Initialize, p.Reason)
	// Output:
	// Initialized fake://eu-1b/i-42 eu-1b eu-1b 0
	// [{InternalIP 10.0.3.7} {Hostname worker-1}]
	// false InvalidNodeIP
}

func ExamplePlanAddressSync() {
	node := core.Node{Name: "n", Annotations: map[string]string{cloud.AnnotationProvidedNodeIP: "fd00::7,10.0.3.7"},
		Addresses: fake.Addresses("InternalIP", "10.0.3.7")}
	addrs, changed, _ := cloud.PlanAddressSync(node, fake.Addresses("InternalIP", "10.0.3.7", "InternalIP", "fd00::7", "ExternalIP", "203.0.113.7"))
	fmt.Println(changed, addrs)
	// Output: true [{InternalIP fd00::7} {InternalIP 10.0.3.7} {ExternalIP 203.0.113.7}]
}

func ExampleReconcileLabels() {
	n := core.Node{Labels: map[string]string{cloud.LabelZoneBeta: "eu-1b", cloud.LabelZone: "eu-1a"}}
	fmt.Println(cloud.ReconcileLabels(n))
	// Output: map[topology.kubernetes.io/zone:eu-1b]
}

func ExampleInitialize() {
	c := fake.New()
	c.Add("worker-1", fake.Instance{Metadata: cloud.InstanceMetadata{ProviderID: "fake://i-1", Zone: "eu-1a"}})
	node := core.Node{Name: "worker-1", Taints: []taints.Taint{{Key: taints.TaintExternalCloudProvider, Effect: taints.TaintEffectNoSchedule}}}
	fmt.Println(cloud.Initialize(context.Background(), c, node).Reason)
	c.Fail("InstanceMetadata", nil)
	fmt.Println(cloud.Initialize(context.Background(), c, node).Reason)
	// Output:
	// Initialized
	// MetadataUnavailable
}

func ExampleDecideLifecycle() {
	notReady := core.Node{Name: "n1", Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.Unknown}}}
	fmt.Println(cloud.DecideLifecycle(notReady, cloud.Probe{Exists: true, Shutdown: true}).Action)
	fmt.Println(cloud.DecideLifecycle(notReady, cloud.Probe{Exists: false}).Message)
	fmt.Println(cloud.DecideLifecycle(notReady, cloud.Probe{ExistsErr: fmt.Errorf("timeout")}).Action)
	// Output:
	// AddShutdownTaint
	// Deleting node n1 because it does not exist in the cloud provider
	// None
}

func ExampleMonitorNodes() {
	c := fake.New()
	c.Add("running", fake.Instance{})
	c.Add("stopped", fake.Instance{Shutdown: true})
	unknown := []conditions.Condition{{Type: conditions.Ready, Status: conditions.Unknown}}
	nodes := []core.Node{
		{Name: "ready", Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}}},
		{Name: "running", Conditions: unknown}, {Name: "stopped", Conditions: unknown}, {Name: "vanished", Conditions: unknown},
	}
	for _, d := range cloud.MonitorNodes(context.Background(), c, nodes) {
		fmt.Println(d.Node, d.Action, d.Reason)
	}
	fmt.Println("InstanceExists calls:", c.Calls["InstanceExists"])
	// Output:
	// ready None ShutdownTaintAbsent
	// running None Running
	// stopped AddShutdownTaint InstanceShutdown
	// vanished DeleteNode DeletingNode
	// InstanceExists calls: 3
}

func ExamplePlanRoutes() {
	cfg := cloud.RouteConfig{ClusterCIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}}
	nodes := []core.Node{{Name: "a", UID: "uid-a", PodCIDRs: []string{"10.244.0.0/24"}}, {Name: "b", UID: "uid-b", PodCIDRs: []string{"10.244.1.0/24"}}}
	routes := []cloud.Route{
		{Name: "k-uid-a", TargetNode: "a", DestinationCIDR: "10.244.0.0/24"},
		{Name: "k-uid-z", TargetNode: "z", DestinationCIDR: "10.244.9.0/24"},
		{Name: "other-cluster", TargetNode: "q", DestinationCIDR: "10.99.0.0/24"},
	}
	p, err := cloud.PlanRoutes(cfg, nodes, routes)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range p.Delete {
		fmt.Println("delete", d.Route.Name, d.Reason)
	}
	for _, c := range p.Create {
		fmt.Println("create", c.Route.DestinationCIDR, "->", c.Route.TargetNode, c.NameHint)
	}
	for _, n := range p.Nodes {
		fmt.Println(n.Node, "waits for", n.Pending)
	}
	// Output:
	// delete k-uid-z NodeGone
	// create 10.244.1.0/24 -> b uid-b
	// a waits for []
	// b waits for [10.244.1.0/24]
}

func ExampleNetworkUnavailable() {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	c, write := cloud.NetworkUnavailable(now, nil, true)
	fmt.Println(write, c.Status, c.Reason, c.Message)
	_, write = cloud.NetworkUnavailable(now.Add(time.Minute), []conditions.Condition{c}, true)
	fmt.Println(write)
	// Output:
	// true False RouteCreated RouteController created a route
	// false
}

func ExampleLoadBalancerNodes() {
	nodes := []core.Node{
		{Name: "a"},
		{Name: "b", Labels: map[string]string{cloud.LabelExcludeFromLoadBalancers: "true"}},
		{Name: "c", Taints: []taints.Taint{{Key: cloud.TaintToBeDeletedByClusterAutoscaler, Effect: taints.TaintEffectNoSchedule}}},
		{Name: "d", Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.False}}},
	}
	fmt.Println(cloud.LoadBalancerNodes(nodes, cloud.LoadBalancerOptions{}))
	fmt.Println(cloud.LoadBalancerNodes(nodes, cloud.LoadBalancerOptions{RequireReady: true}))
	// Output:
	// [a d]
	// []
}

func ExampleShouldSyncUpdatedNode() {
	old := core.Node{Name: "a", ProviderID: "fake://i-1"}
	cur := old
	cur.Conditions = []conditions.Condition{{Type: conditions.Ready, Status: conditions.False}}
	fmt.Println(cloud.ShouldSyncUpdatedNode(old, cur))
	cur.ProviderID = "fake://i-2"
	fmt.Println(cloud.ShouldSyncUpdatedNode(old, cur))
	// Output:
	// false
	// true
}

func ExampleParseProvidedNodeIP() {
	ips, err := cloud.ParseProvidedNodeIP("fd00::7,10.0.3.7")
	fmt.Println(ips, err)
	_, err = cloud.ParseProvidedNodeIP("10.0.3.7,10.0.3.8")
	fmt.Println(err)
	// Output:
	// [fd00::7 10.0.3.7] <nil>
	// cloud: invalid provided node IP: failed to parse node IP "10.0.3.7,10.0.3.8": conditions: invalid node IP: --node-ip "10.0.3.7,10.0.3.8" must contain either a single IP or a dual-stack pair of IPs
}

func ExampleLoadBalancerHostsChanged() {
	a := core.Node{Name: "a", ProviderID: "fake://i-1"}
	b := core.Node{Name: "b", ProviderID: "fake://i-2"}
	notReady := b
	notReady.Conditions = []conditions.Condition{{Type: conditions.Ready, Status: conditions.False}}
	fmt.Println(cloud.LoadBalancerHostsChanged([]core.Node{a, b}, []core.Node{notReady, a}, cloud.LoadBalancerOptions{}))
	fmt.Println(cloud.LoadBalancerHostsChanged([]core.Node{a, b}, []core.Node{a}, cloud.LoadBalancerOptions{}))
	// Output:
	// false
	// true
}

func ExampleIncludedInLoadBalancers() {
	for _, v := range []string{"true", "false", "0", "", "yes"} {
		n := core.Node{Labels: map[string]string{cloud.LabelExcludeFromLoadBalancers: v}}
		fmt.Printf("%q:%v ", v, cloud.IncludedInLoadBalancers(&n))
	}
	fmt.Println()
	// Output: "true":false "false":true "0":true "":false "yes":false
}

func ExampleShutdownTaint() {
	n := core.Node{Name: "n", Taints: []taints.Taint{{Key: taints.TaintExternalCloudProvider, Effect: taints.TaintEffectNoSchedule}}}
	fmt.Println(cloud.ShutdownTaint(), cloud.Uninitialized(&n))
	// Output: node.cloudprovider.kubernetes.io/shutdown:NoSchedule true
}
