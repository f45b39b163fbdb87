package cloud

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// Well-known names the cloud controllers read and write, with upstream's
// values (k8s.io/api/core/v1 and k8s.io/cloud-provider/api).
const (
	// AnnotationProvidedNodeIP is set by a kubelet started with
	// --cloud-provider=external and --node-ip: the cloud node controller
	// must make these IPs the node's first addresses.
	AnnotationProvidedNodeIP = "alpha.kubernetes.io/provided-node-ip"

	// LabelInstanceType and LabelInstanceTypeBeta carry the instance type.
	LabelInstanceType     = "node.kubernetes.io/instance-type"
	LabelInstanceTypeBeta = "beta.kubernetes.io/instance-type"
	// LabelZone and LabelZoneBeta carry the failure zone.
	LabelZone     = "topology.kubernetes.io/zone"
	LabelZoneBeta = "failure-domain.beta.kubernetes.io/zone"
	// LabelRegion and LabelRegionBeta carry the region.
	LabelRegion     = "topology.kubernetes.io/region"
	LabelRegionBeta = "failure-domain.beta.kubernetes.io/region"
	// LabelExcludeFromLoadBalancers keeps a node out of every Service load
	// balancer when its value parses as true (or does not parse at all).
	LabelExcludeFromLoadBalancers = "node.kubernetes.io/exclude-from-external-load-balancers"

	// TaintToBeDeletedByClusterAutoscaler is the cluster autoscaler's taint on
	// a node it is about to remove; such nodes leave the load balancers.
	TaintToBeDeletedByClusterAutoscaler = "ToBeDeletedByClusterAutoscaler"
)

// Uninitialized reports whether n still carries the
// node.cloudprovider.kubernetes.io/uninitialized taint the kubelet registers
// with under --cloud-provider=external. A nil node is not.
func Uninitialized(n *core.Node) bool {
	if n == nil {
		return false
	}
	for i := range n.Taints {
		if n.Taints[i].Key == taints.TaintExternalCloudProvider {
			return true
		}
	}
	return false
}

// readyStatus is the status of n's Ready condition, Unknown when it has none.
func readyStatus(n *core.Node) conditions.Status {
	if c, ok := conditions.Find(n.Conditions, conditions.Ready); ok {
		return c.Status
	}
	return conditions.Unknown
}

// InstanceMetadata is what the cloud knows of a node's instance
// (k8s.io/cloud-provider.InstanceMetadata).
type InstanceMetadata struct {
	// ProviderID is the instance's provider ID; empty when the cloud does not
	// set one.
	ProviderID string
	// InstanceType is the machine type ("m5.large"); empty: unknown.
	InstanceType string
	// Zone and Region are the instance's failure zone and region; empty:
	// unknown.
	Zone, Region string
	// NodeAddresses are the instance's addresses, in the cloud's order.
	NodeAddresses []conditions.NodeAddress
	// AdditionalLabels are extra labels the provider wants on the node.
	AdditionalLabels map[string]string
}

// Instances is the part of a cloud provider the node decisions need
// (k8s.io/cloud-provider.InstancesV2). Every method may fail; an error
// changes nothing for that node.
type Instances interface {
	// InstanceExists reports whether the node's instance still exists.
	InstanceExists(ctx context.Context, node *core.Node) (bool, error)
	// InstanceShutdown reports whether the node's instance is shut down.
	InstanceShutdown(ctx context.Context, node *core.Node) (bool, error)
	// InstanceMetadata returns the node's instance metadata; nil with no
	// error means "nothing to do yet".
	InstanceMetadata(ctx context.Context, node *core.Node) (*InstanceMetadata, error)
}

// Routes is the part of a cloud provider the route controller needs
// (k8s.io/cloud-provider.Routes).
type Routes interface {
	// ListRoutes lists the routes of the cluster named clusterName (the
	// provider filters by its naming prefix).
	ListRoutes(ctx context.Context, clusterName string) ([]Route, error)
	// CreateRoute creates r; nameHint (the node's UID) may be used to name it.
	CreateRoute(ctx context.Context, clusterName, nameHint string, r Route) error
	// DeleteRoute deletes r.
	DeleteRoute(ctx context.Context, clusterName string, r Route) error
}

// Errors callers branch on.
var (
	// ErrInvalidCIDR: a CIDR does not parse, is of the wrong family, or lies
	// outside the cluster CIDR.
	ErrInvalidCIDR = errors.New("cloud: invalid CIDR")
	// ErrCIDRExhausted: every node CIDR of the cluster CIDR is in use
	// (upstream's ErrCIDRRangeNoCIDRsRemaining).
	ErrCIDRExhausted = errors.New("cloud: CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range")
	// ErrInvalidConfig: a configuration value is out of range.
	ErrInvalidConfig = errors.New("cloud: invalid configuration")
	// ErrInvalidNodeIP: the provided-node-ip annotation does not parse, or
	// names an IP the cloud does not report for the instance.
	ErrInvalidNodeIP = errors.New("cloud: invalid provided node IP")
	// ErrNoProvider: a nil Instances was given; every question to it fails.
	ErrNoProvider = errors.New("cloud: no cloud provider (nil Instances)")
	// ErrNoProviderID: neither the node nor the cloud has a provider ID.
	ErrNoProviderID = errors.New("cloud: cloud provider does not set node provider ID")
)

func wrap(sentinel error, msg string) error { return fmt.Errorf("%w: %s", sentinel, msg) }

func quote(s string) string { return strconv.Quote(s) }
