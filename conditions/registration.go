package conditions

import (
	"errors"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ValidateNodeName checks that name is a valid Node name: a DNS subdomain
// (RFC 1123: at most 253 characters of lower-case alphanumerics, '-' and
// '.', starting and ending alphanumeric), as the Nodes page requires.
func ValidateNodeName(name string) error {
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return wrap(ErrInvalidNodeName, strconv.Quote(name)+": "+strings.Join(msgs, "; "))
	}
	return nil
}

// ParseNodeIPs parses the kubelet's --node-ip flag: empty, one IP, or a
// comma-separated dual-stack pair (one IPv4 and one IPv6, in either order;
// the first is the primary). Spaces around items are ignored. As upstream, a
// dual-stack pair may not contain an unspecified address ("0.0.0.0", "::").
// Unlike upstream's sloppy parser, IPv4 octets with leading zeros are
// rejected (they are ambiguous: octal or decimal). Errors name the value.
func ParseNodeIPs(flag string) ([]netip.Addr, error) {
	if strings.TrimSpace(flag) == "" {
		return nil, nil
	}
	var ips []netip.Addr
	for _, item := range strings.Split(flag, ",") {
		item = strings.TrimSpace(item)
		ip, err := netip.ParseAddr(item)
		if err != nil || ip.Zone() != "" {
			return nil, wrap(ErrInvalidNodeIP, "could not parse "+strconv.Quote(item)+" in --node-ip "+strconv.Quote(flag))
		}
		ips = append(ips, ip.Unmap())
	}
	switch {
	case len(ips) > 2 || (len(ips) == 2 && ips[0].Is4() == ips[1].Is4()):
		return nil, wrap(ErrInvalidNodeIP, "--node-ip "+strconv.Quote(flag)+" must contain either a single IP or a dual-stack pair of IPs")
	case len(ips) == 2 && (ips[0].IsUnspecified() || ips[1].IsUnspecified()):
		return nil, wrap(ErrInvalidNodeIP, "dual-stack --node-ip "+strconv.Quote(flag)+" cannot include '0.0.0.0' or '::'")
	}
	return ips, nil
}

// ValidateNodeIP checks that ip may be a node IP, with the kubelet's rules
// and messages: not loopback, multicast, link-local unicast or unspecified.
// Whether the address belongs to one of the host's interfaces is for the
// caller to check.
func ValidateNodeIP(ip netip.Addr) error {
	var why string
	switch {
	case !ip.IsValid():
		why = "nodeIP must be a valid IP address"
	case ip.IsLoopback():
		why = "nodeIP can't be loopback address"
	case ip.IsMulticast():
		why = "nodeIP can't be a multicast address"
	case ip.IsLinkLocalUnicast():
		why = "nodeIP can't be a link-local unicast address"
	case ip.IsUnspecified():
		why = "nodeIP can't be an all zeros address"
	default:
		return nil
	}
	return wrap(ErrInvalidNodeIP, strconv.Quote(ip.String())+": "+why)
}

// ChooseNodeIP picks the node's primary IP when --node-ip names none, as the
// kubelet's address setter does without a cloud provider: a specified
// nodeIP is used as it is (after ValidateNodeIP); otherwise, among
// candidates (the addresses the node's name resolves to, in order), the
// first one that passes ValidateNodeIP and is IPv4 wins, or IPv6 when nodeIP
// is "::"; failing that, the first usable one of the other family. Pass the
// zero Addr for an unset --node-ip. No usable candidate gives
// ErrNoNodeAddress (the kubelet then falls back to the default-route
// interface, which is the caller's to look up).
func ChooseNodeIP(candidates []netip.Addr, nodeIP netip.Addr) (netip.Addr, error) {
	if nodeIP.IsValid() && !nodeIP.IsUnspecified() {
		if err := ValidateNodeIP(nodeIP.Unmap()); err != nil {
			return netip.Addr{}, err
		}
		return nodeIP.Unmap(), nil
	}
	preferV6 := nodeIP.IsValid() && nodeIP.Is6() && !nodeIP.Is4In6()
	var fallback netip.Addr
	for _, c := range candidates {
		c = c.Unmap()
		if ValidateNodeIP(c) != nil {
			continue
		}
		if c.Is6() == preferV6 {
			return c, nil
		}
		if !fallback.IsValid() {
			fallback = c
		}
	}
	if fallback.IsValid() {
		return fallback, nil
	}
	return netip.Addr{}, wrap(ErrNoNodeAddress, "none of "+strconv.Itoa(len(candidates))+" candidate addresses is usable as a node IP")
}

// NodeAddressType is the type of a node address, as
// k8s.io/api/core/v1.NodeAddressType.
type NodeAddressType string

// The node address types.
const (
	NodeHostName    NodeAddressType = "Hostname"
	NodeInternalIP  NodeAddressType = "InternalIP"
	NodeExternalIP  NodeAddressType = "ExternalIP"
	NodeInternalDNS NodeAddressType = "InternalDNS"
	NodeExternalDNS NodeAddressType = "ExternalDNS"
)

// NodeAddress is one entry of node.status.addresses.
type NodeAddress struct {
	Type    NodeAddressType
	Address string
}

// NodeHostIPs returns the node's IPs as upstream's GetNodeHostIPs: InternalIP
// addresses first, then ExternalIP, unparsable ones (IPv6 with a zone
// included) skipped; the first is the primary, and the first address of the
// other family, if any, is added. So there is at most one address per
// family. A node with no usable address gives ErrNoNodeAddress.
func NodeHostIPs(addrs []NodeAddress) ([]netip.Addr, error) {
	var primary netip.Addr
	for _, want := range []NodeAddressType{NodeInternalIP, NodeExternalIP} {
		for _, a := range addrs {
			if a.Type != want {
				continue
			}
			ip, err := netip.ParseAddr(a.Address)
			if err != nil || ip.Zone() != "" {
				// Upstream's parser has no IPv6 zones: "fe80::1%eth0"
				// is no address to it either.
				continue
			}
			ip = ip.Unmap()
			if !primary.IsValid() {
				primary = ip
				continue
			}
			if ip.Is4() != primary.Is4() {
				return []netip.Addr{primary, ip}, nil
			}
		}
	}
	if !primary.IsValid() {
		return nil, wrap(ErrNoNodeAddress, "no parsable InternalIP or ExternalIP among "+strconv.Itoa(len(addrs))+" addresses")
	}
	return []netip.Addr{primary}, nil
}

// kubeletLabels are the labels in Kubernetes namespaces that a kubelet may
// set on its own Node (k8s.io/kubelet well-known labels, NodeRestriction).
var kubeletLabels = []string{
	"kubernetes.io/hostname",
	"topology.kubernetes.io/zone",
	"topology.kubernetes.io/region",
	"failure-domain.beta.kubernetes.io/zone",
	"failure-domain.beta.kubernetes.io/region",
	"beta.kubernetes.io/instance-type",
	"node.kubernetes.io/instance-type",
	"kubernetes.io/os",
	"kubernetes.io/arch",
	"beta.kubernetes.io/os",
	"beta.kubernetes.io/arch",
}

// kubeletLabelNamespaces are the namespaces (and their subdomains) a kubelet
// may use freely.
var kubeletLabelNamespaces = []string{"kubelet.kubernetes.io", "node.kubernetes.io"}

// KubeletLabels returns the Kubernetes-namespaced label keys a kubelet may
// set on its own Node.
func KubeletLabels() []string { return slices.Clone(kubeletLabels) }

// KubeletLabelNamespaces returns the label namespaces a kubelet may use
// freely: "kubelet.kubernetes.io" and "node.kubernetes.io", and their
// subdomains.
func KubeletLabelNamespaces() []string { return slices.Clone(kubeletLabelNamespaces) }

// IsKubeletLabel reports whether a kubelet may set label key on its own Node
// under the NodeRestriction rules: one of KubeletLabels, or a key whose
// prefix is one of KubeletLabelNamespaces or a subdomain of one.
func IsKubeletLabel(key string) bool {
	if slices.Contains(kubeletLabels, key) {
		return true
	}
	ns := labelNamespace(key)
	for _, allowed := range kubeletLabelNamespaces {
		if ns == allowed || strings.HasSuffix(ns, "."+allowed) {
			return true
		}
	}
	return false
}

// IsKubernetesLabel reports whether key is in a namespace Kubernetes
// reserves: kubernetes.io or k8s.io, or a subdomain of either.
func IsKubernetesLabel(key string) bool {
	ns := labelNamespace(key)
	for _, reserved := range []string{"kubernetes.io", "k8s.io"} {
		if ns == reserved || strings.HasSuffix(ns, "."+reserved) {
			return true
		}
	}
	return false
}

func labelNamespace(key string) string {
	if ns, _, ok := strings.Cut(key, "/"); ok {
		return ns
	}
	return ""
}

// ValidateNodeLabels checks the kubelet's --node-labels as the kubelet does at
// start-up: every key a qualified name, every value a label value, and no key
// in a Kubernetes namespace (IsKubernetesLabel) unless the kubelet may set it
// (IsKubeletLabel). All problems are returned at once, in key order.
func ValidateNodeLabels(labels map[string]string) error {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var errs []error
	var forbidden []string
	for _, k := range keys {
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			errs = append(errs, wrap(ErrInvalidNodeLabel, "key "+strconv.Quote(k)+": "+strings.Join(msgs, "; ")))
		}
		if msgs := validation.IsValidLabelValue(labels[k]); len(msgs) > 0 {
			errs = append(errs, wrap(ErrInvalidNodeLabel, "value "+strconv.Quote(labels[k])+" of key "+strconv.Quote(k)+": "+strings.Join(msgs, "; ")))
		}
		if IsKubernetesLabel(k) && !IsKubeletLabel(k) {
			forbidden = append(forbidden, k)
		}
	}
	if len(forbidden) > 0 {
		errs = append(errs, wrap(ErrInvalidNodeLabel, "unknown 'kubernetes.io' or 'k8s.io' labels "+strconv.Quote(strings.Join(forbidden, ","))+
			": labels in the 'kubernetes.io' namespace must begin with an allowed prefix ("+strings.Join(kubeletLabelNamespaces, ", ")+
			") or be in the specifically allowed set ("+strings.Join(kubeletLabels, ", ")+")"))
	}
	return errors.Join(errs...)
}
