package scenario

import (
	"context"
	"maps"
	"net/netip"
	"slices"
	"time"

	"github.com/nodelife/nodelife/cloud"
	"github.com/nodelife/nodelife/cloud/fake"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// CloudNode follows one node through the cloud controller manager: it joins
// a dual-stack cluster with the uninitialized taint and a --node-ip, is
// initialized from its instance's metadata, gets its pod CIDRs and routes,
// joins the load balancers, is shut down in the cloud (shutdown taint), and
// is finally deleted from the cloud: the Node goes, its CIDRs are released
// and its routes removed. The cloud is the fake provider.
func CloudNode(Options) (Report, error) {
	r := Report{Name: "cloud-node", Title: "a node is initialized by the cloud controller manager, routed, shut down, then deleted from the cloud"}
	ctx := context.Background()
	const clusterName = "kind"
	clusterCIDRs := []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16"), netip.MustParsePrefix("fd00:10:244::/56")}

	provider := fake.New()
	provider.Add("cp-1", fake.Instance{Metadata: cloud.InstanceMetadata{ProviderID: "fake://eu-1a/i-0c1"}})
	provider.Add("worker-1", fake.Instance{Metadata: cloud.InstanceMetadata{
		ProviderID: "fake://eu-1a/i-0b7", InstanceType: "c6.large", Zone: "eu-1a", Region: "eu-1",
		NodeAddresses:    fake.Addresses("InternalIP", "10.0.1.8", "InternalIP", "10.0.1.7", "ExternalIP", "198.51.100.7"),
		AdditionalLabels: map[string]string{"example.com/pool": "general", "node.kubernetes.io/pool": "ignored"},
	}})
	ready := []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}}
	cp := core.Node{Name: "cp-1", UID: "uid-cp-1", ProviderID: "fake://eu-1a/i-0c1", Conditions: ready,
		Labels:   map[string]string{cloud.LabelExcludeFromLoadBalancers: "true"},
		PodCIDRs: []string{"10.244.0.0/24", "fd00:10:244::/64"}, Addresses: fake.Addresses("InternalIP", "10.0.1.2")}
	for _, cidr := range cp.PodCIDRs {
		provider.AddRoute(cloud.Route{Name: clusterName + "-uid-cp-1-" + cidr, TargetNode: "cp-1", DestinationCIDR: cidr})
	}
	provider.AddRoute(cloud.Route{Name: "prod-uid-x-10.8.0.0/24", TargetNode: "prod-x", DestinationCIDR: "10.8.0.0/24"})

	alloc, err := cloud.NewRangeAllocator(cloud.RangeAllocatorConfig{ClusterCIDRs: clusterCIDRs,
		ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/12")}}, []core.Node{cp})
	if err != nil {
		return r, err
	}
	r.fact("cloud", "", "", "cluster %s: cluster CIDRs %v, node masks /24 and /64; cp-1 holds %v", clusterName, clusterCIDRs, cp.PodCIDRs)

	// +0s: the kubelet registers with --cloud-provider=external --node-ip=10.0.1.7.
	w := core.Node{Name: "worker-1", UID: "uid-worker-1", Conditions: ready,
		Taints:      []taints.Taint{{Key: taints.TaintExternalCloudProvider, Value: "true", Effect: taints.TaintEffectNoSchedule}},
		Annotations: map[string]string{cloud.AnnotationProvidedNodeIP: "10.0.1.7"},
		Labels:      map[string]string{"kubernetes.io/hostname": "worker-1"}, Addresses: fake.Addresses("Hostname", "worker-1")}
	r.at(0, "cloud", w.Name, "", "worker-1 registers with taint %s and %s=%s", taints.TaintExternalCloudProvider, cloud.AnnotationProvidedNodeIP, "10.0.1.7")

	plan := cloud.Initialize(ctx, provider, w)
	if !plan.Initialize {
		return r, plan.Err
	}
	w.ProviderID = plan.ProviderID
	w.Labels = maps.Clone(w.Labels)
	maps.Copy(w.Labels, plan.Labels)
	w.Taints = plan.Taints
	if plan.Addresses != nil {
		w.Addresses = plan.Addresses
	}
	var labels []string
	for k := range plan.Labels {
		labels = append(labels, k)
	}
	slices.Sort(labels)
	r.at(0, "cloud", w.Name, plan.Reason, "initialized: providerID %s, %d labels %v, taints %v", w.ProviderID, len(labels), labels, w.Taints)
	r.at(0, "cloud", w.Name, plan.Reason, "  addresses %v (the --node-ip first; 10.0.1.8, another InternalIP, dropped)", w.Addresses)

	u, err := alloc.Sync(w)
	if err != nil {
		return r, err
	}
	w.PodCIDRs = u.Strings()
	r.at(0, "ipam", w.Name, u.Reason, "pod CIDRs %v", w.PodCIDRs)

	// +10s: the route controller's reconcile.
	routeCfg := cloud.RouteConfig{ClusterCIDRs: clusterCIDRs}
	created, deleted := 0, 0
	reconcile := func(at time.Duration, nodes []core.Node) error {
		routes, err := provider.ListRoutes(ctx, clusterName)
		if err != nil {
			return err
		}
		p, err := cloud.PlanRoutes(routeCfg, nodes, routes)
		if err != nil {
			return err
		}
		for _, d := range p.Delete {
			if err := provider.DeleteRoute(ctx, clusterName, d.Route); err != nil {
				return err
			}
			deleted++
			r.at(at, "route", d.Route.TargetNode, d.Reason, "route %s deleted (%s)", d.Route.Name, d.Reason)
		}
		for _, c := range p.Create {
			if err := provider.CreateRoute(ctx, clusterName, c.NameHint, c.Route); err != nil {
				return err
			}
			created++
			r.at(at, "route", c.Route.TargetNode, c.Reason, "route %s -> %s created", c.Route.DestinationCIDR, c.Route.TargetNode)
		}
		for _, n := range p.Nodes {
			i := slices.IndexFunc(nodes, func(x core.Node) bool { return x.Name == n.Node })
			cond, write := cloud.NetworkUnavailable(Start.Add(at), nodes[i].Conditions, n.RoutesCreated(nil))
			if write {
				nodes[i].Conditions, _ = conditions.Set(Start.Add(at), nodes[i].Conditions, cond)
				r.at(at, "route", n.Node, cond.Reason, "%s NetworkUnavailable=%s (%s)", n.Node, cond.Status, cond.Reason)
			}
		}
		return nil
	}
	nodes := []core.Node{cp, w}
	if err := reconcile(10*time.Second, nodes); err != nil {
		return r, err
	}
	r.at(10*time.Second, "lb", "", "", "load-balancer nodes: %v (cp-1 is excluded by label)", cloud.LoadBalancerNodes(nodes, cloud.LoadBalancerOptions{}))

	// +120s: the instance stops; the kubelet with it. Its last status
	// was at +120s: the node lifecycle controller's 5s passes find it
	// older than the 50s grace period at +175s and set Ready=Unknown.
	provider.SetShutdown("worker-1", true)
	r.at(120*time.Second, "cloud", w.Name, "", "the cloud stops instance %s", nodes[1].ProviderID)
	nodes[1].Conditions, _ = conditions.Set(Start.Add(175*time.Second), nodes[1].Conditions, conditions.Condition{Type: conditions.Ready, Status: conditions.Unknown,
		Reason: conditions.ReasonNodeStatusUnknown, Message: conditions.MessageNodeStatusUnknown})
	r.at(175*time.Second, "cloud", w.Name, conditions.ReasonNodeStatusUnknown, "node lifecycle controller: worker-1 Ready=Unknown")
	monitor := func(at time.Duration) {
		for _, d := range cloud.MonitorNodes(ctx, provider, nodes) {
			switch d.Action {
			case cloud.LifecycleAddShutdownTaint:
				i := slices.IndexFunc(nodes, func(x core.Node) bool { return x.Name == d.Node })
				nodes[i].Taints, _ = taints.AddOrUpdate(nodes[i].Taints, cloud.ShutdownTaint())
				r.at(at, "cloud", d.Node, d.Reason, "cloud node lifecycle: %s; taints %v", d.Action, nodes[i].Taints)
			case cloud.LifecycleDeleteNode:
				i := slices.IndexFunc(nodes, func(x core.Node) bool { return x.Name == d.Node })
				gone := nodes[i]
				nodes = slices.Delete(nodes, i, i+1)
				r.at(at, "cloud", d.Node, d.Reason, "cloud node lifecycle: %s", d.Message)
				if err := alloc.Delete(gone); err == nil {
					r.at(at, "ipam", d.Node, "CIDRReleased", "pod CIDRs %v released: %d of %d IPv4 blocks free", gone.PodCIDRs,
						alloc.Sets()[0].Free(), alloc.Sets()[0].Max())
				}
			}
		}
	}
	monitor(175 * time.Second)
	r.at(175*time.Second, "lb", "", "", "load-balancer nodes: %v (readiness does not count since KEP-3458)", cloud.LoadBalancerNodes(nodes, cloud.LoadBalancerOptions{}))

	// +300s: the instance is terminated.
	provider.Remove("worker-1")
	r.at(300*time.Second, "cloud", w.Name, "", "the cloud terminates instance fake://eu-1a/i-0b7")
	monitor(300 * time.Second)
	if err := reconcile(310*time.Second, nodes); err != nil {
		return r, err
	}
	r.at(310*time.Second, "lb", "", "", "load-balancer nodes: %v", cloud.LoadBalancerNodes(nodes, cloud.LoadBalancerOptions{}))
	var other []string
	for _, rt := range provider.Routes() {
		other = append(other, rt.Name)
	}
	r.at(310*time.Second, "route", "", "", "routes left in the cloud: %v", other)
	r.figure("routes created", int64(created))
	r.figure("routes deleted", int64(deleted))
	r.figure("IPv4 blocks in use", int64(alloc.Sets()[0].Allocated()))
	return r, nil
}
