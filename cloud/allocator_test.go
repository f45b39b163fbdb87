package cloud

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/core"
)

func cidrs(u PodCIDRUpdate) string { return strings.Join(u.Strings(), ",") }

// pkg/controller/nodeipam/ipam/range_allocator.go: one block per cluster
// CIDR, in the configured order (the first is the node's primary family).
func TestRangeAllocatorDualStack(t *testing.T) {
	for _, tc := range []struct {
		name     string
		clusters []netip.Prefix
		want     []string
	}{
		{"IPv4 primary", []netip.Prefix{mp("10.0.0.0/16"), mp("fd00::/48")},
			[]string{"10.0.0.0/24,fd00::/64", "10.0.1.0/24,fd00:0:0:1::/64"}},
		{"IPv6 primary", []netip.Prefix{mp("fd00::/48"), mp("10.0.0.0/16")},
			[]string{"fd00::/64,10.0.0.0/24", "fd00:0:0:1::/64,10.0.1.0/24"}},
		{"single stack", []netip.Prefix{mp("10.244.0.0/16")}, []string{"10.244.0.0/24", "10.244.1.0/24"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewRangeAllocator(RangeAllocatorConfig{ClusterCIDRs: tc.clusters}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, n := range []string{"a", "b"} {
				u, err := a.Sync(core.Node{Name: n})
				if err != nil || u.Reason != "CIDRAssigned" || cidrs(u) != tc.want[i] {
					t.Fatalf("node %s: %q %s %v, want %q", n, cidrs(u), u.Reason, err, tc.want[i])
				}
			}
		})
	}
}

func TestRangeAllocatorLifecycle(t *testing.T) {
	existing := []core.Node{{Name: "old", PodCIDRs: []string{"10.0.0.0/24"}}, {Name: "fresh"}}
	a, err := NewRangeAllocator(RangeAllocatorConfig{ClusterCIDRs: []netip.Prefix{mp("10.0.0.0/22")}}, existing)
	if err != nil {
		t.Fatal(err)
	}
	// The existing node's block is taken at start; the next node gets the
	// following one.
	u, _ := a.Sync(core.Node{Name: "n1"})
	if cidrs(u) != "10.0.1.0/24" {
		t.Fatalf("n1 got %q", cidrs(u))
	}
	// A node that has CIDRs (our own write, seen again) only occupies.
	if u, err := a.Sync(core.Node{Name: "n1", PodCIDRs: u.Strings()}); err != nil || u.PodCIDRs != nil || u.Reason != "CIDROccupied" {
		t.Fatalf("resync: %+v %v", u, err)
	}
	if u, _ := a.Sync(core.Node{Name: "gone", DeletionTimestamp: &time.Time{}}); u.Reason != "NodeDeleting" || u.PodCIDRs != nil {
		t.Fatalf("deleting node: %+v", u)
	}
	u2, _ := a.Sync(core.Node{Name: "n2"})
	u3, _ := a.Sync(core.Node{Name: "n3"})
	if cidrs(u2) != "10.0.2.0/24" || cidrs(u3) != "10.0.3.0/24" {
		t.Fatalf("n2 %q n3 %q", cidrs(u2), cidrs(u3))
	}
	if u, err := a.Sync(core.Node{Name: "n4"}); !errors.Is(err, ErrCIDRExhausted) || u.Reason != "CIDRNotAvailable" || !strings.Contains(err.Error(), `"n4"`) {
		t.Fatalf("n4: %+v %v", u, err)
	}
	// Deleting n1 frees its block for the next node.
	if err := a.Delete(core.Node{Name: "n1", PodCIDRs: []string{"10.0.1.0/24"}}); err != nil {
		t.Fatal(err)
	}
	if u, _ := a.Sync(core.Node{Name: "n4"}); cidrs(u) != "10.0.1.0/24" {
		t.Fatalf("n4 after release got %q", cidrs(u))
	}
	// A failed patch gives the block back.
	_ = a.Delete(core.Node{Name: "n4", PodCIDRs: []string{"10.0.1.0/24"}})
	u5, _ := a.Sync(core.Node{Name: "n5"})
	if err := a.Abort(u5); err != nil || a.Sets()[0].Free() != 1 {
		t.Fatalf("abort: %v, Free %d", err, a.Sets()[0].Free())
	}
}

func TestRangeAllocatorServiceCIDR(t *testing.T) {
	// The Service range 10.0.0.0/20 overlaps the cluster CIDR: its 16 blocks
	// are never given to nodes. A Service range elsewhere is ignored.
	a, err := NewRangeAllocator(RangeAllocatorConfig{ClusterCIDRs: []netip.Prefix{mp("10.0.0.0/16")},
		ServiceCIDRs: []netip.Prefix{mp("10.0.0.0/20"), mp("172.16.0.0/16"), mp("fd00::/108")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := a.Sync(core.Node{Name: "n"}); cidrs(u) != "10.0.16.0/24" {
		t.Fatalf("got %q, want 10.0.16.0/24", cidrs(u))
	}
}

// Upstream allocates family by family; when the second is exhausted the
// first family's block stays taken. ReleaseOnPartialFailure gives it back.
func TestRangeAllocatorPartialFailure(t *testing.T) {
	for _, release := range []bool{false, true} {
		cfg := RangeAllocatorConfig{ClusterCIDRs: []netip.Prefix{mp("fd00::/48"), mp("10.0.0.0/24")}, ReleaseOnPartialFailure: release}
		a, _ := NewRangeAllocator(cfg, nil)
		if _, err := a.Sync(core.Node{Name: "first"}); err != nil {
			t.Fatal(err)
		}
		_, err := a.Sync(core.Node{Name: "second"})
		if !errors.Is(err, ErrCIDRExhausted) || !strings.Contains(err.Error(), "10.0.0.0/24") {
			t.Fatalf("second: %v", err)
		}
		want := 2 // upstream: fd00:0:0:1::/64 leaked
		if release {
			want = 1
		}
		if got := a.Sets()[0].Allocated(); got != want {
			t.Errorf("ReleaseOnPartialFailure=%v: IPv6 blocks in use %d, want %d", release, got, want)
		}
	}
}

func TestRangeAllocatorErrors(t *testing.T) {
	cfg := RangeAllocatorConfig{ClusterCIDRs: []netip.Prefix{mp("10.0.0.0/16")}}
	for _, tc := range []struct {
		node core.Node
		want string
	}{
		{core.Node{Name: "n", PodCIDRs: []string{"10.0.300.0/24"}}, `pod CIDR "10.0.300.0/24" does not parse`},
		{core.Node{Name: "n", PodCIDRs: []string{"192.168.0.0/24"}}, "192.168.0.0/24 is out of the range of cluster CIDR 10.0.0.0/16"},
		{core.Node{Name: "n", PodCIDRs: []string{"10.0.0.0/24", "fd00::/64"}}, "at index 1, which does not exist"},
	} {
		if _, err := NewRangeAllocator(cfg, []core.Node{tc.node}); !errors.Is(err, ErrInvalidCIDR) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("start with %v: %v, want %q", tc.node.PodCIDRs, err, tc.want)
		}
		a, _ := NewRangeAllocator(cfg, nil)
		if _, err := a.Sync(tc.node); !errors.Is(err, ErrInvalidCIDR) {
			t.Errorf("sync %v: %v", tc.node.PodCIDRs, err)
		}
		if err := a.Delete(tc.node); !errors.Is(err, ErrInvalidCIDR) {
			t.Errorf("delete %v: %v", tc.node.PodCIDRs, err)
		}
	}
	err := RangeAllocatorConfig{ClusterCIDRs: []netip.Prefix{mp("10.0.0.0/16"), mp("10.1.0.0/16"), mp("fd00::/48")},
		NodeMaskSizeIPv4: -1, ServiceCIDRs: []netip.Prefix{{}}}.Validate()
	for _, want := range []string{"has 3 CIDRs", "NodeMaskSizeIPv4 -1", "ServiceCIDRs[0]"} {
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want %q", err, want)
		}
	}
	err = RangeAllocatorConfig{ClusterCIDRs: []netip.Prefix{mp("10.0.0.0/16"), mp("10.1.0.0/16")}}.Validate()
	if err == nil || !strings.Contains(err.Error(), "are of one IP family") {
		t.Errorf("same family: %v", err)
	}
	if _, err := NewRangeAllocator(RangeAllocatorConfig{}, nil); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("empty: %v", err)
	}
	if _, err := NewRangeAllocator(RangeAllocatorConfig{ClusterCIDRs: []netip.Prefix{mp("10.0.0.0/16")}, NodeMaskSizeIPv4: 8}, nil); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("mask shorter than the cluster: %v", err)
	}
	if !slices.Equal((PodCIDRUpdate{}).Strings(), []string{}) {
		t.Error("empty update")
	}
}
