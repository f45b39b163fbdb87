package nodelifetest

import (
	"fmt"
	"net/netip"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/cloud"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
)

// CIDRSpace is a cluster CIDR and the block size node IPAM hands out.
type CIDRSpace struct {
	Cluster  netip.Prefix
	NodeBits int
}

// CIDRSpaces draws node IPAM spaces: an IPv4 cluster CIDR of /10 to /30
// or, half the time, an IPv6 one of /48 to /120, and node blocks 0-8 bits
// longer than the cluster's (never past the address length).
func CIDRSpaces() *rapid.Generator[CIDRSpace] {
	return rapid.Custom(func(t *rapid.T) CIDRSpace {
		var cluster netip.Prefix
		if rapid.Bool().Draw(t, "v6") {
			cluster = netip.PrefixFrom(netip.MustParseAddr("fd00:1234:5678::"), rapid.IntRange(48, 120).Draw(t, "clusterBits")).Masked()
		} else {
			cluster = netip.PrefixFrom(netip.MustParseAddr("10.64.0.0"), rapid.IntRange(10, 30).Draw(t, "clusterBits")).Masked()
		}
		return CIDRSpace{Cluster: cluster, NodeBits: rapid.IntRange(cluster.Bits(), min(cluster.Bits()+8, cluster.Addr().BitLen())).Draw(t, "nodeBits")}
	})
}

// PrefixesIn draws prefixes overlapping cluster: an address inside it and
// a length from two bits shorter than the cluster's (covering it) to the
// address length.
func PrefixesIn(cluster netip.Prefix) *rapid.Generator[netip.Prefix] {
	return rapid.Custom(func(t *rapid.T) netip.Prefix {
		b := cluster.Addr().AsSlice()
		host := cluster.Addr().BitLen() - cluster.Bits()
		for bit := 0; bit < host; bit++ {
			if rapid.Bool().Draw(t, "bit") {
				b[len(b)-1-bit/8] |= 1 << (bit % 8)
			}
		}
		a, _ := netip.AddrFromSlice(b)
		bits := rapid.IntRange(max(cluster.Bits()-2, 0), a.BitLen()).Draw(t, "bits")
		return netip.PrefixFrom(a, bits).Masked()
	})
}

// RouteWorld is a cluster's nodes and the routes its cloud lists, with the
// route controller's config.
type RouteWorld struct {
	Config cloud.RouteConfig
	Nodes  []core.Node
	Routes []cloud.Route
}

// RouteWorlds draws up to 8 nodes (unique names, single- or dual-stack pod
// CIDRs or none, internal IPs that collide) in the cluster CIDRs
// 10.0.0.0/16 and fd00::/48, and up to 10 routes a cloud might list for
// them: current, stale, blackholed, of another cluster, of nodes gone, of
// no node, at most one per node and CIDR (with two, upstream's answer
// depends on the cloud's listing order).
func RouteWorlds() *rapid.Generator[RouteWorld] {
	internal := func(t *rapid.T, label string) []conditions.NodeAddress {
		return []conditions.NodeAddress{{Type: conditions.NodeInternalIP, Address: fmt.Sprintf("192.168.0.%d", rapid.IntRange(1, 3).Draw(t, label))}}
	}
	return rapid.Custom(func(t *rapid.T) RouteWorld {
		w := RouteWorld{Config: cloud.RouteConfig{ClusterCIDRs: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/16"), netip.MustParsePrefix("fd00::/48")}}}
		for i := rapid.IntRange(0, 8).Draw(t, "nodes"); i > 0; i-- {
			n := core.Node{Name: fmt.Sprintf("n%d", i), UID: fmt.Sprintf("u%d", i), Addresses: internal(t, "address")}
			switch rapid.IntRange(0, 2).Draw(t, "stack") {
			case 1:
				n.PodCIDRs = []string{fmt.Sprintf("10.0.%d.0/24", i)}
			case 2:
				n.PodCIDRs = []string{fmt.Sprintf("10.0.%d.0/24", i), fmt.Sprintf("fd00:0:0:%x::/64", i)}
			}
			w.Nodes = append(w.Nodes, n)
		}
		seen := map[[2]string]bool{}
		for i := rapid.IntRange(0, 10).Draw(t, "routes"); i > 0; i-- {
			r := cloud.Route{Name: fmt.Sprintf("r%d", i), TargetNode: fmt.Sprintf("n%d", rapid.IntRange(0, 10).Draw(t, "target")),
				Blackhole: rare(t, 6, "blackhole"), EnableNodeAddresses: rapid.Bool().Draw(t, "enableNodeAddresses"),
				TargetNodeAddresses: internal(t, "routeAddress")}
			switch rapid.IntRange(0, 3).Draw(t, "cidr") {
			case 0:
				r.DestinationCIDR = fmt.Sprintf("10.0.%d.0/24", rapid.IntRange(0, 10).Draw(t, "c"))
			case 1:
				r.DestinationCIDR = fmt.Sprintf("fd00:0:0:%x::/64", rapid.IntRange(0, 10).Draw(t, "c"))
			case 2:
				r.DestinationCIDR = fmt.Sprintf("172.16.%d.0/24", rapid.IntRange(0, 3).Draw(t, "c")) // another cluster
			default:
				r.TargetNode, r.DestinationCIDR = "", "10.0.200.0/24"
			}
			if k := [2]string{r.TargetNode, r.DestinationCIDR}; !seen[k] {
				seen[k] = true
				w.Routes = append(w.Routes, r)
			}
		}
		return w
	})
}
