package cloud

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

var mp = netip.MustParsePrefix

// pkg/controller/nodeipam/ipam/cidrset/cidr_set.go: a /16 cluster CIDR with
// /24 nodes holds 2^(24-16) = 256 blocks, handed out in address order from
// 10.0.0.0/24 to 10.0.255.0/24; the 257th allocation fails.
func TestCIDRSetSlash16Slash24Exhausts(t *testing.T) {
	s, err := NewCIDRSet(mp("10.0.0.0/16"), 24)
	if err != nil {
		t.Fatal(err)
	}
	if s.Max() != 256 || s.Free() != 256 {
		t.Fatalf("Max %d Free %d, want 256 256", s.Max(), s.Free())
	}
	for i := 0; i < 256; i++ {
		got, err := s.AllocateNext()
		want := mp(fmt.Sprintf("10.0.%d.0/24", i))
		if err != nil || got != want {
			t.Fatalf("allocation %d: %v, %v; want %v", i, got, err, want)
		}
	}
	if s.Free() != 0 || s.Allocated() != 256 {
		t.Fatalf("Free %d Allocated %d, want 0 256", s.Free(), s.Allocated())
	}
	if _, err := s.AllocateNext(); !errors.Is(err, ErrCIDRExhausted) || !strings.Contains(err.Error(), "10.0.0.0/16") {
		t.Fatalf("257th allocation: %v, want ErrCIDRExhausted naming the cluster CIDR", err)
	}
	// Release one and the next allocation finds it (the cursor wrapped to
	// 0 after block 255 and scans forward to the free block 5).
	if err := s.Release(mp("10.0.5.0/24")); err != nil || s.Free() != 1 {
		t.Fatalf("release: %v, Free %d", err, s.Free())
	}
	if got, err := s.AllocateNext(); err != nil || got != mp("10.0.5.0/24") {
		t.Fatalf("re-allocation: %v, %v; want 10.0.5.0/24", got, err)
	}
}

// AllocateNext moves its cursor past every allocation: a block released
// behind the cursor is reused only when the cursor comes round again.
func TestCIDRSetCursor(t *testing.T) {
	s, _ := NewCIDRSet(mp("10.1.0.0/22"), 24) // 4 blocks
	for i := 0; i < 3; i++ {
		_, _ = s.AllocateNext() // blocks 0, 1, 2; cursor at 3
	}
	_ = s.Release(mp("10.1.1.0/24"))
	want := []string{"10.1.3.0/24", "10.1.1.0/24"} // 3 first, then wrap to 1
	for _, w := range want {
		if got, err := s.AllocateNext(); err != nil || got != mp(w) {
			t.Fatalf("got %v, %v; want %s", got, err, w)
		}
	}
	if _, err := s.AllocateNext(); !errors.Is(err, ErrCIDRExhausted) {
		t.Fatalf("full set: %v", err)
	}
}

func TestCIDRSetOccupyRelease(t *testing.T) {
	s, _ := NewCIDRSet(mp("10.0.0.0/16"), 24)
	// A /20 inside the cluster touches 16 blocks (10.0.16.0 .. 10.0.31.0).
	if err := s.Occupy(mp("10.0.16.0/20")); err != nil || s.Allocated() != 16 {
		t.Fatalf("occupy /20: %v, Allocated %d", err, s.Allocated())
	}
	if !s.InUse(mp("10.0.31.0/24")) || s.InUse(mp("10.0.32.0/24")) {
		t.Fatal("the /20 should cover 10.0.31.0/24 and not 10.0.32.0/24")
	}
	// A /25 marks the whole /24 it lies in; occupying twice counts once.
	_ = s.Occupy(mp("10.0.40.128/25"))
	_ = s.Occupy(mp("10.0.40.0/24"))
	if s.Allocated() != 17 {
		t.Fatalf("Allocated %d, want 17", s.Allocated())
	}
	// A CIDR larger than the cluster covers every block.
	if err := s.Occupy(mp("10.0.0.0/8")); err != nil || s.Free() != 0 {
		t.Fatalf("occupy /8: %v, Free %d", err, s.Free())
	}
	if err := s.Release(mp("10.0.0.0/15")); err != nil || s.Free() != 256 {
		t.Fatalf("release /15: %v, Free %d", err, s.Free())
	}
	// An unmasked prefix is masked first, as upstream's ParseCIDR does.
	if err := s.Occupy(mp("10.0.7.9/24")); err != nil || !s.InUse(mp("10.0.7.0/24")) {
		t.Fatalf("unmasked: %v", err)
	}
	for _, bad := range []netip.Prefix{mp("10.1.0.0/24"), mp("192.168.0.0/16"), mp("fd00::/64"), {}} {
		err := s.Occupy(bad)
		if !errors.Is(err, ErrInvalidCIDR) || (bad.IsValid() && !strings.Contains(err.Error(), bad.String())) {
			t.Errorf("occupy %v: %v, want ErrInvalidCIDR naming it", bad, err)
		}
		if err := s.Release(bad); !errors.Is(err, ErrInvalidCIDR) {
			t.Errorf("release %v: %v", bad, err)
		}
	}
}

// IPv6: the block number lands in the address bits just above the node mask.
func TestCIDRSetIPv6(t *testing.T) {
	s, err := NewCIDRSet(mp("fd00:1234::/48"), 64) // 65,536 blocks
	if err != nil || s.Max() != 65536 {
		t.Fatalf("%v, Max %d", err, s.Max())
	}
	for _, want := range []string{"fd00:1234::/64", "fd00:1234:0:1::/64", "fd00:1234:0:2::/64"} {
		if got, _ := s.AllocateNext(); got != mp(want) {
			t.Fatalf("got %v, want %s", got, want)
		}
	}
	// Node mask beyond 64 bits: 2001:db8:1234::/112 with /120 nodes, block 1
	// is 2001:db8:1234::100/120.
	s, _ = NewCIDRSet(mp("2001:db8:1234::/112"), 120)
	_, _ = s.AllocateNext()
	if got, _ := s.AllocateNext(); got != mp("2001:db8:1234::100/120") {
		t.Fatalf("got %v", got)
	}
	// A node block straddling the 64-bit halves: /60 cluster, /68 nodes, so
	// block i adds i << 60; 17 = 0b10001 sets bit 64 (the high half's
	// lowest) and bit 60: fd00:0:0:10::/60 + 17<<60 = fd00:0:0:11:1000::/68.
	s, _ = NewCIDRSet(mp("fd00:0:0:10::/60"), 68)
	if err := s.Occupy(mp("fd00:0:0:11:1000::/68")); err != nil || s.Allocated() != 1 {
		t.Fatalf("occupy: %v", err)
	}
	if got := s.block(17); got != mp("fd00:0:0:11:1000::/68") {
		t.Fatalf("block 17 = %v", got)
	}
	if got := s.index(mp("fd00:0:0:11:1000::/68").Addr()); got != 17 {
		t.Fatalf("index = %d, want 17", got)
	}
}

func TestNewCIDRSetErrors(t *testing.T) {
	for _, tc := range []struct {
		cluster string
		mask    int
		want    string
	}{
		{"10.0.0.0/16", 15, "mask size 15 is outside 16..32"},
		{"10.0.0.0/16", 33, "mask size 33 is outside 16..32"},
		{"fd00::/48", 65, "more than 16 bits longer"}, // upstream: ErrCIDRSetSubNetTooBig
		{"fd00::/48", 129, "outside 48..128"},
	} {
		_, err := NewCIDRSet(mp(tc.cluster), tc.mask)
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s /%d: %v, want %q", tc.cluster, tc.mask, err, tc.want)
		}
	}
	if _, err := NewCIDRSet(netip.Prefix{}, 24); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("zero prefix: %v", err)
	}
	// Equal sizes are allowed: one block, the cluster CIDR itself.
	s, err := NewCIDRSet(mp("10.0.0.0/24"), 24)
	if err != nil || s.Max() != 1 {
		t.Fatalf("%v", err)
	}
	if got, _ := s.AllocateNext(); got != mp("10.0.0.0/24") {
		t.Fatalf("got %v", got)
	}
	// An IPv4 cluster may be split into 2^24 blocks (upstream: no limit);
	// the bitmap grows only as far as blocks are used.
	s, err = NewCIDRSet(mp("0.0.0.0/0"), 24)
	if err != nil || s.Max() != 1<<24 {
		t.Fatalf("%v, Max %d", err, s.Max())
	}
	_ = s.Occupy(mp("1.0.0.0/24")) // block 65,536: 1,025 words of 64 bits
	if len(s.used) != 1025 || s.Allocated() != 1 {
		t.Fatalf("bitmap words %d, Allocated %d", len(s.used), s.Allocated())
	}
	if _, err := NewCIDRSet(mp("0.0.0.0/0"), 25); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "more than 24 bits") {
		t.Fatalf("2^25 blocks: %v", err)
	}
}
