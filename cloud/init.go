package cloud

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"unicode"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// InitPlan is the cloud node controller's decision for one node: the update
// that initializes it, or why it stays uninitialized.
type InitPlan struct {
	// Node is the node's name.
	Node string
	// Initialize is true when the node carries the uninitialized taint and
	// the plan removes it; false when the node is left as it is (Reason
	// says why) or was initialized already (then only Labels may be set, by
	// the GA/beta label reconcile).
	Initialize bool
	// ProviderID, when not empty, is written to spec.providerID (only when
	// the node has none).
	ProviderID string
	// Labels are the labels to set, in addition to the node's.
	Labels map[string]string
	// Addresses, when not nil, are the node's new status.addresses,
	// written after the update (upstream patches the status once the taint
	// is gone).
	Addresses []conditions.NodeAddress
	// Taints are the node's taints after the update: its own without the
	// uninitialized taint (nil when Initialize is false).
	Taints []taints.Taint
	// Reason is a machine-readable reason: "Initialized",
	// "LabelsReconciled", "UpToDate", "MetadataUnavailable",
	// "MetadataNotReady", "NoProviderID" or "InvalidNodeIP".
	Reason string
	// Message is a sentence for logs and events.
	Message string
	// Err is the error behind a Reason that keeps the taint (the controller
	// retries).
	Err error
}

// PlanInitialization decides what the cloud node controller does with n,
// given the instance metadata the cloud returned for it (meta, err), as
// k8s.io/cloud-provider's controllers/node syncNode:
//
//   - a node without the uninitialized taint only has its GA and beta
//     topology labels reconciled (ReconcileLabels);
//   - a lookup error keeps the taint (MetadataUnavailable); so does nil
//     metadata (MetadataNotReady: the provider is not ready to say);
//   - no provider ID on the node or from the cloud keeps it (NoProviderID);
//   - a provided-node-ip annotation that does not parse, or that names an IP
//     the cloud does not report, keeps it (InvalidNodeIP);
//   - otherwise the update sets the provider ID when the node has none, the
//     instance type, zone and region labels under both their GA and beta
//     names (each only when the cloud knows it), the additional labels
//     except those in a kubernetes.io or k8s.io namespace and those the node
//     already has, removes the taint, and then sets the addresses as
//     PlanAddressSync does.
func PlanInitialization(n core.Node, meta *InstanceMetadata, err error) InitPlan {
	p := InitPlan{Node: n.Name}
	if !Uninitialized(&n) {
		p.Labels = ReconcileLabels(n)
		p.Reason, p.Message = "UpToDate", "node "+n.Name+" is initialized; its labels are consistent"
		if len(p.Labels) > 0 {
			p.Reason, p.Message = "LabelsReconciled", "node "+n.Name+" is initialized; copying beta topology labels to their GA names"
		}
		return p
	}
	switch {
	case err != nil:
		p.Reason, p.Err = "MetadataUnavailable", err
		p.Message = "failed to get instance metadata for node " + n.Name + ": " + err.Error() + "; it stays uninitialized"
		return p
	case meta == nil:
		p.Reason = "MetadataNotReady"
		p.Message = "the cloud returned no instance metadata for node " + n.Name + " yet; it stays uninitialized"
		return p
	case meta.ProviderID == "" && n.ProviderID == "":
		p.Reason, p.Err = "NoProviderID", wrap(ErrNoProviderID, "node "+quote(n.Name))
		p.Message = "the cloud provider does not set a provider ID for node " + n.Name + "; it stays uninitialized"
		return p
	}
	if _, ipErr := addressesFromNodeIP(n, meta.NodeAddresses); ipErr != nil {
		p.Reason, p.Err = "InvalidNodeIP", ipErr
		p.Message = "provided node ip for node " + quote(n.Name) + " is not valid: " + ipErr.Error() + "; it stays uninitialized"
		return p
	}
	p.Initialize = true
	if n.ProviderID == "" {
		p.ProviderID = meta.ProviderID
	}
	p.Labels = map[string]string{}
	if meta.InstanceType != "" {
		p.Labels[LabelInstanceTypeBeta] = meta.InstanceType
		p.Labels[LabelInstanceType] = meta.InstanceType
	}
	if meta.Zone != "" {
		p.Labels[LabelZoneBeta] = meta.Zone
		p.Labels[LabelZone] = meta.Zone
	}
	if meta.Region != "" {
		p.Labels[LabelRegionBeta] = meta.Region
		p.Labels[LabelRegion] = meta.Region
	}
	for k, v := range meta.AdditionalLabels {
		if inKubernetesNamespace(k) {
			continue
		}
		if _, ok := n.Labels[k]; ok {
			continue // the node's own value wins
		}
		if _, ok := p.Labels[k]; ok {
			continue
		}
		p.Labels[k] = v
	}
	p.Taints = taints.Filter(n.Taints, func(t taints.Taint) bool { return t.Key != taints.TaintExternalCloudProvider })
	if p.Taints == nil {
		p.Taints = []taints.Taint{}
	}
	initialized := n
	initialized.Taints = p.Taints
	if addrs, changed, _ := PlanAddressSync(initialized, meta.NodeAddresses); changed {
		p.Addresses = addrs
	}
	p.Reason, p.Message = "Initialized", "node "+n.Name+" initialized from the cloud provider's instance metadata"
	return p
}

// inKubernetesNamespace reports whether a label key's prefix is kubernetes.io
// or k8s.io or a subdomain of them (upstream's (^|\.)(kubernetes|k8s)\.io/
// match, which also catches such a name anywhere before a "/"). It is not
// conditions.IsKubernetesLabel, NodeRestriction's rule, which looks only at
// the part before the first "/".
func inKubernetesNamespace(key string) bool {
	for _, ns := range []string{"kubernetes.io/", "k8s.io/"} {
		for i := 0; ; {
			j := strings.Index(key[i:], ns)
			if j < 0 {
				break
			}
			if at := i + j; at == 0 || key[at-1] == '.' {
				return true
			}
			i += j + 1
		}
	}
	return false
}

// PlanAddressSync computes a node's addresses from the cloud's, as the cloud
// node controller's periodic sync (updateNodeAddress): nothing while the node
// is uninitialized or when the cloud reports no address; otherwise the
// cloud's addresses, the node's own Hostname addresses appended when the
// cloud reports none, reordered by the provided-node-ip annotation
// (addressesFromNodeIP). changed is false when the result holds the same
// address per type as the node has; err is set, and nothing changes, when the
// annotation is invalid.
func PlanAddressSync(n core.Node, cloud []conditions.NodeAddress) (addrs []conditions.NodeAddress, changed bool, err error) {
	if Uninitialized(&n) || len(cloud) == 0 {
		return nil, false, nil
	}
	addrs = slices.Clone(cloud)
	if !slices.ContainsFunc(addrs, func(a conditions.NodeAddress) bool { return a.Type == conditions.NodeHostName }) {
		for _, a := range n.Addresses {
			if a.Type == conditions.NodeHostName {
				addrs = append(addrs, a)
			}
		}
	}
	addrs, err = addressesFromNodeIP(n, addrs)
	if err != nil {
		return nil, false, err
	}
	return addrs, addressesChanged(n.Addresses, addrs), nil
}

// addressesChanged is upstream's nodeAddressesChangeDetected: a different
// count, or an address of b whose type maps to another address in a (the
// last address of each type in a counts).
func addressesChanged(a, b []conditions.NodeAddress) bool {
	if len(a) != len(b) {
		return true
	}
	byType := make(map[conditions.NodeAddressType]string, len(a))
	for _, x := range a {
		byType[x.Type] = x.Address
	}
	for _, y := range b {
		if byType[y.Type] != y.Address {
			return true
		}
	}
	return false
}

// addressesFromNodeIP applies the kubelet's provided-node-ip annotation to
// the cloud's addresses (k8s.io/cloud-provider node/helpers
// GetNodeAddressesFromNodeIP): without the annotation the addresses are
// returned as they are; with it, for each node IP in the annotation's order
// every cloud address equal to it (keeping its type), then the cloud
// addresses of the types no node IP matched. Addresses of a matched type that
// are not node IPs are dropped. A node IP the cloud does not report is
// ErrInvalidNodeIP.
func addressesFromNodeIP(n core.Node, cloud []conditions.NodeAddress) ([]conditions.NodeAddress, error) {
	v, ok := n.Annotations[AnnotationProvidedNodeIP]
	if !ok {
		return cloud, nil
	}
	ips, err := ParseProvidedNodeIP(v)
	if err != nil {
		return nil, err
	}
	var out []conditions.NodeAddress
	matchedTypes := map[conditions.NodeAddressType]bool{}
	for _, ip := range ips {
		matched := false
		for _, a := range cloud {
			if ca, err := netip.ParseAddr(a.Address); err == nil && ca.Zone() == "" && ca.Unmap() == ip {
				out = append(out, a)
				matchedTypes[a.Type] = true
				matched = true
			}
		}
		if !matched {
			return nil, wrap(ErrInvalidNodeIP, "failed to get node address from cloud provider that matches ip: "+ip.String())
		}
	}
	for _, a := range cloud {
		if !matchedTypes[a.Type] {
			out = append(out, a)
		}
	}
	return out, nil
}

// ParseProvidedNodeIP parses the alpha.kubernetes.io/provided-node-ip
// annotation as upstream's ParseNodeIPAnnotation: the kubelet's --node-ip
// rules (conditions.ParseNodeIPs: one IP or a dual-stack pair, no
// unspecified address in a pair, no leading-zero IPv4 octets, no zones),
// but strict where the flag is lenient: the value may not be empty and may
// hold no spaces. Errors wrap ErrInvalidNodeIP and name the value.
func ParseProvidedNodeIP(v string) ([]netip.Addr, error) {
	if v == "" || strings.IndexFunc(v, unicode.IsSpace) >= 0 {
		return nil, wrap(ErrInvalidNodeIP, "failed to parse node IP "+quote(v)+": empty, or with spaces")
	}
	ips, err := conditions.ParseNodeIPs(v)
	if err != nil {
		return nil, fmt.Errorf("%w: failed to parse node IP %s: %w", ErrInvalidNodeIP, quote(v), err)
	}
	return ips, nil
}

// labelPairs are the topology labels the cloud node controller keeps in
// step on initialized nodes. The beta label is still the source of truth
// upstream: its value is copied to the GA name when the GA label differs,
// and when it is missing (ensureSecondaryExists, true for all three).
var labelPairs = [][2]string{
	{LabelZoneBeta, LabelZone},
	{LabelRegionBeta, LabelRegion},
	{LabelInstanceTypeBeta, LabelInstanceType},
}

// ReconcileLabels returns the labels the cloud node controller sets on an
// initialized node (reconcileNodeLabels): for each beta topology label the
// node has (zone, region, instance type), its value under the GA name when
// that differs or is missing. A GA label without its beta twin is left
// alone. nil when nothing changes.
func ReconcileLabels(n core.Node) map[string]string {
	var out map[string]string
	for _, p := range labelPairs {
		v, ok := n.Labels[p[0]]
		if !ok {
			continue
		}
		if w, ok := n.Labels[p[1]]; !ok || w != v {
			if out == nil {
				out = map[string]string{}
			}
			out[p[1]] = v
		}
	}
	return out
}

// Initialize asks the provider for n's metadata and plans its
// initialization. It calls the provider only for an uninitialized node; a
// nil provider is a failed lookup (ErrNoProvider).
func Initialize(ctx context.Context, p Instances, n core.Node) InitPlan {
	if !Uninitialized(&n) {
		return PlanInitialization(n, nil, nil)
	}
	if p == nil {
		return PlanInitialization(n, nil, ErrNoProvider)
	}
	meta, err := p.InstanceMetadata(ctx, &n)
	return PlanInitialization(n, meta, err)
}
