// Package cloud holds the cloud controller manager's node decisions as
// plain functions and one state machine, with the cloud provider injected as
// two small interfaces (Instances, Routes; see the fake subpackage). Nodes
// are core.Node: the decisions read their names, labels, annotations,
// taints, provider ID, pod CIDRs, deletion timestamp, conditions (Ready and
// NetworkUnavailable) and addresses.
//
//   - node initialization (the cloud node controller): for a node that
//     carries node.cloudprovider.kubernetes.io/uninitialized,
//     PlanInitialization says what to write (provider ID, instance-type,
//     zone and region labels under their GA and beta names, the provider's
//     additional labels, the addresses) and removes the taint, or says why
//     the node stays uninitialized; PlanAddressSync is the periodic address
//     sync and ReconcileLabels the label reconcile of initialized nodes;
//   - the cloud node lifecycle controller: DecideLifecycle and MonitorNodes
//     remove the shutdown taint from Ready nodes, taint nodes whose instance
//     is shut down, and delete nodes whose instance is gone;
//   - node IPAM: CIDRSet, the node-sized blocks of one cluster CIDR, and
//     RangeAllocator, the range allocator over nodes (dual-stack: one block
//     per cluster CIDR), which returns the pod CIDRs to write;
//   - routes: PlanRoutes, the route controller's reconcile plan (routes to
//     delete and create, the NetworkUnavailable condition of each node),
//     and NetworkUnavailable, the condition to write;
//   - the load-balancer node set: LoadBalancerNodes, ShouldSyncUpdatedNode,
//     LoadBalancerHostsChanged.
//
// Nothing here reads a clock, calls the API server or starts a goroutine;
// MonitorNodes and Initialize call the Instances they are given, nothing
// else.
//
// # Usage
//
// A node controller's loop, per node event:
//
//	plan := cloud.Initialize(ctx, provider, node)
//	if plan.Initialize { update spec.providerID, labels, taints; then status.addresses }
//	u, err := alloc.Sync(node) // pod CIDRs to patch, or ErrCIDRExhausted
//
// and every node-monitor-period (5s) and route-reconcile-period (10s):
//
//	for _, d := range cloud.MonitorNodes(ctx, provider, nodes) { act on d.Action }
//	routes, _ := provider.ListRoutes(ctx, clusterName)
//	plan, err := cloud.PlanRoutes(cloud.RouteConfig{ClusterCIDRs: cidrs}, nodes, routes)
//
// # Semantics
//
// Sources (read, not copied): k8s.io/cloud-provider v0.36.3
// controllers/node/node_controller.go (syncNode, getNodeModifiersFromCloudProvider,
// updateNodeAddress, reconcileNodeLabels), node/helpers/address.go
// (GetNodeAddressesFromNodeIP), controllers/nodelifecycle/node_lifecycle_controller.go
// (MonitorNodes), controllers/route/route_controller.go (reconcile,
// getRouteAction, isResponsibleForRoute, updateNetworkingCondition),
// controllers/service/controller.go (stableNodeSetPredicates,
// shouldSyncUpdatedNode, nodesSufficientlyEqual); k8s.io/kubernetes v1.37.2
// pkg/controller/nodeipam/ipam/cidrset/cidr_set.go and range_allocator.go.
//
// Initialization keeps the taint on any lookup error, on nil metadata, on a
// missing provider ID, and when the provided-node-ip annotation names an IP
// the cloud does not report. The beta topology labels are still the source
// of truth when labels are reconciled. Addresses with a provided node IP:
// the node IPs first, in the annotation's order (so a dual-stack pair keeps
// its primary family first), each with the type the cloud gave it; then
// the cloud's addresses of the other types; addresses of a matched type that
// are not node IPs are dropped.
//
// The lifecycle controller only looks at nodes that are not Ready, and asks
// whether the instance is shut down only when it exists. A provider error
// never deletes a node.
//
// A CIDR set hands out blocks from a cursor that moves past each allocation
// and wraps, so a released block is reused only after the cursor comes
// round again. Occupy and Release mark every block a CIDR touches; a CIDR
// as large as the cluster CIDR marks them all. A dual-stack allocator gives
// each node one block per cluster CIDR in the configured order.
//
// The route plan touches only routes whose CIDR starts or ends inside a
// cluster CIDR, so routes of other clusters in the same network stay.
// Applied by a provider that does not fail, a plan leaves nothing to do on
// the next pass (with RecreateBlackholes; upstream needs a second pass for a
// blackholed route to a current pod CIDR).
//
// # Options
//
//   - RangeAllocatorConfig.ReleaseOnPartialFailure: give back the first
//     family's block when the second family is exhausted (upstream keeps it
//     until the controller restarts).
//   - RouteConfig.RecreateBlackholes: replace a blackholed route to a current
//     pod CIDR in the same pass (upstream deletes it and recreates it on the
//     next pass, reporting the node's routes as created meanwhile).
//   - LoadBalancerOptions.RequireReady: the load-balancer node set before
//     KEP-3458 (kubernetes#115204), which also dropped nodes that were not
//     Ready.
package cloud
