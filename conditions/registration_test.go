package conditions

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidateNodeName(t *testing.T) {
	for _, ok := range []string{"n1", "ip-10-0-0-1.ec2.internal", strings.Repeat("a", 253)} {
		if err := ValidateNodeName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Node1", "node_1", "-n", "n.", strings.Repeat("a", 254), "a b"} {
		err := ValidateNodeName(bad)
		if !errors.Is(err, ErrInvalidNodeName) || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestParseNodeIPs(t *testing.T) {
	v4, v6 := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("fd00::1")
	tests := []struct {
		flag string
		want []netip.Addr
		ok   bool
	}{
		{"", nil, true},
		{"10.0.0.1", []netip.Addr{v4}, true},
		{"fd00::1", []netip.Addr{v6}, true},
		{"10.0.0.1,fd00::1", []netip.Addr{v4, v6}, true},
		{"fd00::1, 10.0.0.1", []netip.Addr{v6, v4}, true},
		{"0.0.0.0", []netip.Addr{netip.MustParseAddr("0.0.0.0")}, true},
		{"::", []netip.Addr{netip.MustParseAddr("::")}, true},
		{"::ffff:10.0.0.1", []netip.Addr{v4}, true},
		{"10.0.0.1,10.0.0.2", nil, false},
		{"fd00::1,fd00::2", nil, false},
		{"10.0.0.1,fd00::1,10.0.0.2", nil, false},
		{"0.0.0.0,fd00::1", nil, false},
		{"10.0.0.1,::", nil, false},
		{"10.0.0", nil, false},
		{"010.0.0.1", nil, false},
		{"10.0.0.1,", nil, false},
		{"fe80::1%eth0", nil, false},
		{"host.example", nil, false},
	}
	for _, tc := range tests {
		got, err := ParseNodeIPs(tc.flag)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrInvalidNodeIP)) {
			t.Errorf("ParseNodeIPs(%q) error = %v, want ok=%v", tc.flag, err, tc.ok)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("error %q does not name %q", err, tc.flag)
		}
		if d := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); d != "" {
			t.Errorf("ParseNodeIPs(%q) (-want +got):\n%s", tc.flag, d)
		}
	}
}

// GetNodeHostIPs: InternalIP before ExternalIP, first of each family.
func TestNodeHostIPs(t *testing.T) {
	a := func(ty NodeAddressType, s string) NodeAddress { return NodeAddress{Type: ty, Address: s} }
	ip := netip.MustParseAddr
	tests := []struct {
		name  string
		addrs []NodeAddress
		want  []netip.Addr
	}{
		{"single internal", []NodeAddress{a(NodeHostName, "n1"), a(NodeInternalIP, "10.0.0.1")}, []netip.Addr{ip("10.0.0.1")}},
		{"internal beats external", []NodeAddress{a(NodeExternalIP, "1.2.3.4"), a(NodeInternalIP, "10.0.0.1")}, []netip.Addr{ip("10.0.0.1")}},
		{"one per family, primary first", []NodeAddress{a(NodeInternalIP, "fd00::1"), a(NodeInternalIP, "fd00::2"), a(NodeInternalIP, "10.0.0.1")}, []netip.Addr{ip("fd00::1"), ip("10.0.0.1")}},
		{"second family from external", []NodeAddress{a(NodeInternalIP, "10.0.0.1"), a(NodeExternalIP, "2001:db8::1")}, []netip.Addr{ip("10.0.0.1"), ip("2001:db8::1")}},
		{"unparsable skipped", []NodeAddress{a(NodeInternalIP, "bogus"), a(NodeExternalIP, "1.2.3.4")}, []netip.Addr{ip("1.2.3.4")}},
		// net.ParseIP, under upstream's ParseIPSloppy, refuses zones.
		{"zoned IPv6 skipped", []NodeAddress{a(NodeInternalIP, "fe80::1%eth0"), a(NodeExternalIP, "1.2.3.4")}, []netip.Addr{ip("1.2.3.4")}},
		// An IPv4-mapped IPv6 address is IPv4 to upstream (To4 != nil).
		{"IPv4-mapped is IPv4", []NodeAddress{a(NodeInternalIP, "::ffff:10.0.0.4"), a(NodeInternalIP, "10.0.0.5"), a(NodeInternalIP, "fd00::1")}, []netip.Addr{ip("10.0.0.4"), ip("fd00::1")}},
	}
	for _, tc := range tests {
		got, err := NodeHostIPs(tc.addrs)
		if err != nil || !cmp.Equal(got, tc.want, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })) {
			t.Errorf("%s: got %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := NodeHostIPs([]NodeAddress{a(NodeHostName, "n1"), a(NodeInternalDNS, "n1.internal")}); !errors.Is(err, ErrNoNodeAddress) {
		t.Errorf("no IP: %v", err)
	}
}

// NodeRestriction: the labels a kubelet may set on itself.
func TestIsKubeletLabel(t *testing.T) {
	tests := map[string]bool{
		"kubernetes.io/hostname":                   true,
		"topology.kubernetes.io/zone":              true,
		"node.kubernetes.io/instance-type":         true,
		"node.kubernetes.io/anything":              true,
		"kubelet.kubernetes.io/anything":           true,
		"foo.node.kubernetes.io/x":                 true,
		"foo.kubelet.kubernetes.io/x":              true,
		"beta.kubernetes.io/arch":                  true,
		"failure-domain.beta.kubernetes.io/region": true,
		"node-role.kubernetes.io/control-plane":    false,
		"kubernetes.io/role":                       false,
		"k8s.io/anything":                          false,
		"xnode.kubernetes.io/x":                    false,
		"example.com/role":                         false,
		"role":                                     false,
	}
	for key, want := range tests {
		if got := IsKubeletLabel(key); got != want {
			t.Errorf("IsKubeletLabel(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestValidateNodeLabels(t *testing.T) {
	if err := ValidateNodeLabels(map[string]string{"example.com/tier": "edge", "node.kubernetes.io/pool": "a", "kubernetes.io/os": "linux", "plain": ""}); err != nil {
		t.Fatal(err)
	}
	err := ValidateNodeLabels(map[string]string{
		"node-role.kubernetes.io/worker": "",
		"sub.k8s.io/x":                   "y",
		"bad key":                        "v",
		"ok":                             "bad value",
	})
	if !errors.Is(err, ErrInvalidNodeLabel) {
		t.Fatalf("got %v", err)
	}
	for _, part := range []string{`key "bad key"`, `value "bad value" of key "ok"`, `"node-role.kubernetes.io/worker,sub.k8s.io/x"`} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error lacks %s:\n%v", part, err)
		}
	}
	if n := len(strings.Split(err.Error(), "\n")); n != 3 {
		t.Errorf("%d lines, want 3:\n%v", n, err)
	}
}

// The kubelet's validateNodeIP rules and its family preference when
// --node-ip is unset or unspecified.
func TestChooseNodeIP(t *testing.T) {
	ip := netip.MustParseAddr
	for _, tc := range []struct {
		bad string
		why string
	}{
		{"127.0.0.1", "loopback"}, {"::1", "loopback"}, {"224.0.0.1", "multicast"},
		{"169.254.1.1", "link-local"}, {"fe80::1", "link-local"}, {"0.0.0.0", "all zeros"}, {"::", "all zeros"},
	} {
		err := ValidateNodeIP(ip(tc.bad))
		if !errors.Is(err, ErrInvalidNodeIP) || !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), tc.bad) {
			t.Errorf("ValidateNodeIP(%s) = %v", tc.bad, err)
		}
	}
	if err := ValidateNodeIP(netip.Addr{}); !errors.Is(err, ErrInvalidNodeIP) {
		t.Errorf("zero Addr: %v", err)
	}
	cands := []netip.Addr{ip("127.0.1.1"), ip("fd00::7"), ip("10.0.0.7"), ip("10.0.0.8")}
	tests := []struct {
		name   string
		cands  []netip.Addr
		nodeIP netip.Addr
		want   netip.Addr
		ok     bool
	}{
		{"unset: first usable IPv4", cands, netip.Addr{}, ip("10.0.0.7"), true},
		{"0.0.0.0: IPv4 preferred", cands, ip("0.0.0.0"), ip("10.0.0.7"), true},
		{"'::': IPv6 preferred", cands, ip("::"), ip("fd00::7"), true},
		{"only the other family: fall back", []netip.Addr{ip("fd00::7")}, netip.Addr{}, ip("fd00::7"), true},
		{"specified nodeIP wins", cands, ip("192.168.1.5"), ip("192.168.1.5"), true},
		{"specified loopback is refused", cands, ip("127.0.0.1"), netip.Addr{}, false},
		{"nothing usable", []netip.Addr{ip("127.0.0.1"), ip("fe80::1")}, netip.Addr{}, netip.Addr{}, false},
	}
	for _, tc := range tests {
		got, err := ChooseNodeIP(tc.cands, tc.nodeIP)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%s: got %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}
