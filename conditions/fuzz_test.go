package conditions

import (
	"errors"
	"net/netip"
	"testing"
)

// FuzzParseNodeIPs: no panic; an accepted flag gives one IP, or one IP of
// each family without unspecified addresses; a rejected one wraps
// ErrInvalidNodeIP.
func FuzzParseNodeIPs(f *testing.F) {
	for _, s := range []string{"", "10.0.0.1", "10.0.0.1,fd00::1", "::", "0.0.0.0,::1", "a,b,c", "fe80::1%eth0", " 10.0.0.1 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, flag string) {
		ips, err := ParseNodeIPs(flag)
		if err != nil {
			if !errors.Is(err, ErrInvalidNodeIP) || ips != nil {
				t.Fatalf("%q: %v, %v", flag, ips, err)
			}
			return
		}
		switch len(ips) {
		case 0, 1:
		case 2:
			if ips[0].Is4() == ips[1].Is4() || ips[0].IsUnspecified() || ips[1].IsUnspecified() {
				t.Fatalf("%q: accepted %v", flag, ips)
			}
		default:
			t.Fatalf("%q: %d IPs", flag, len(ips))
		}
		for _, ip := range ips {
			if !ip.IsValid() || ip.Zone() != "" || ip.Is4In6() {
				t.Fatalf("%q: bad address %v", flag, ip)
			}
		}
	})
}

// FuzzNodeRegistration feeds node names, addresses and labels: no panic, and
// the results keep their promises.
func FuzzNodeRegistration(f *testing.F) {
	f.Add("n1", "10.0.0.1", "fd00::1", "node.kubernetes.io/pool", "a")
	f.Add("", "bogus", "", "kubernetes.io/role", "")
	f.Add("A_B", "::ffff:1.2.3.4", "1.2.3.5", "x.k8s.io/y", "-")
	f.Fuzz(func(t *testing.T, name, addr1, addr2, labelKey, labelValue string) {
		_ = ValidateNodeName(name)
		ips, err := NodeHostIPs([]NodeAddress{{NodeInternalIP, addr1}, {NodeExternalIP, addr2}})
		if err == nil && (len(ips) == 0 || len(ips) > 2 || (len(ips) == 2 && ips[0].Is4() == ips[1].Is4())) {
			t.Fatalf("NodeHostIPs(%q, %q) = %v", addr1, addr2, ips)
		}
		var cands []netip.Addr
		for _, s := range []string{addr1, addr2} {
			if a, err := netip.ParseAddr(s); err == nil {
				cands = append(cands, a)
			}
		}
		if ip, err := ChooseNodeIP(cands, netip.Addr{}); err == nil && ValidateNodeIP(ip) != nil {
			t.Fatalf("ChooseNodeIP(%v) chose unusable %v", cands, ip)
		}
		err = ValidateNodeLabels(map[string]string{labelKey: labelValue})
		if err == nil && IsKubernetesLabel(labelKey) && !IsKubeletLabel(labelKey) {
			t.Fatalf("accepted forbidden label %q", labelKey)
		}
		if err != nil && !errors.Is(err, ErrInvalidNodeLabel) {
			t.Fatalf("label error %v does not wrap ErrInvalidNodeLabel", err)
		}
	})
}
