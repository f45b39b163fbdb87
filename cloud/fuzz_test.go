package cloud

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
)

// FuzzCIDRSet: any cluster CIDR, node mask and sequence of operations on
// parsed (or unparsable) CIDRs: no panic, blocks inside the cluster CIDR,
// counts in range.
func FuzzCIDRSet(f *testing.F) {
	f.Add("10.0.0.0/16", 24, "10.0.5.0/24,10.0.0.0/8,a,r10.0.5.0/24", []byte{0, 1, 2, 0})
	f.Add("fd00::/48", 64, "fd00:0:0:7::/64,fd00::/40,10.0.0.0/8", []byte{2, 0, 1})
	f.Add("0.0.0.0/0", 24, "255.255.255.255/2,1.0.0.0/8", []byte{1, 0, 2, 0})
	f.Add("fd00::/120", 128, "fd00::ff/128,::/0", []byte{1, 2, 0})
	f.Fuzz(func(t *testing.T, clusterStr string, mask int, cidrList string, ops []byte) {
		cluster, err := netip.ParsePrefix(clusterStr)
		if err != nil {
			return
		}
		s, err := NewCIDRSet(cluster, mask)
		if err != nil {
			return
		}
		if len(ops) > 64 {
			ops = ops[:64]
		}
		cidrs := strings.Split(cidrList, ",")
		for i, op := range ops {
			p, _ := netip.ParsePrefix(strings.TrimPrefix(cidrs[i%len(cidrs)], "r"))
			switch op % 3 {
			case 0:
				if b, err := s.AllocateNext(); err == nil {
					if !s.cluster.Contains(b.Addr()) || b.Bits() != mask {
						t.Fatalf("block %v outside %v", b, s.cluster)
					}
				}
			case 1:
				_ = s.Occupy(p)
			case 2:
				_ = s.Release(p)
			}
			if s.Allocated() < 0 || s.Allocated() > s.Max() {
				t.Fatalf("allocated %d of %d", s.Allocated(), s.Max())
			}
		}
	})
}

// FuzzAddressRules: any provided-node-ip annotation and cloud addresses: no
// panic; on success the node IPs come first, in the annotation's order, and
// every address returned is one the cloud reported.
func FuzzAddressRules(f *testing.F) {
	f.Add("10.0.0.5", "InternalIP=10.0.0.5;ExternalIP=1.2.3.4;Hostname=h")
	f.Add("fd00::5,10.0.0.5", "InternalIP=10.0.0.5;InternalIP=fd00::5;InternalIP=10.0.0.6")
	f.Add("010.0.0.5", "InternalIP=10.0.0.5")
	f.Add("::ffff:10.0.0.5", "InternalIP=10.0.0.5;InternalIP=::ffff:10.0.0.5")
	f.Fuzz(func(t *testing.T, annotation, cloudSpec string) {
		var cloud []conditions.NodeAddress
		for _, item := range strings.Split(cloudSpec, ";") {
			typ, addr, _ := strings.Cut(item, "=")
			cloud = append(cloud, conditions.NodeAddress{Type: conditions.NodeAddressType(typ), Address: addr})
		}
		n := core.Node{Name: "n", Annotations: map[string]string{AnnotationProvidedNodeIP: annotation}, Addresses: cloud[:len(cloud)/2]}
		got, err := addressesFromNodeIP(n, cloud)
		if err != nil {
			return
		}
		ips, perr := ParseProvidedNodeIP(annotation)
		if perr != nil {
			t.Fatalf("addresses accepted an annotation the parser refuses: %v", perr)
		}
		if len(got) < len(ips) {
			t.Fatalf("%d addresses for %d node IPs", len(got), len(ips))
		}
		for _, a := range got {
			found := false
			for _, c := range cloud {
				found = found || c == a
			}
			if !found {
				t.Fatalf("%v is not a cloud address", a)
			}
		}
		first, _ := netip.ParseAddr(got[0].Address)
		if first.Unmap() != ips[0] {
			t.Fatalf("first address %v, want node IP %v", got[0], ips[0])
		}
		_, _, _ = PlanAddressSync(n, cloud)
		_ = PlanInitialization(n, &InstanceMetadata{ProviderID: "p", NodeAddresses: cloud}, nil)
	})
}
