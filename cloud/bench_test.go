package cloud

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/nodelife/nodelife/core"
)

// Allocate every /24 of a /8 (65,536 node CIDRs), then release them all:
// one op is the whole cycle.
func BenchmarkCIDRSetAllocateRelease(b *testing.B) {
	b.Run("cluster=/8/node=/24/n=65536", func(b *testing.B) {
		b.ReportAllocs()
		blocks := make([]netip.Prefix, 0, 1<<16)
		for i := 0; i < b.N; i++ {
			s, err := NewCIDRSet(mp("10.0.0.0/8"), 24)
			if err != nil {
				b.Fatal(err)
			}
			blocks = blocks[:0]
			for j := 0; j < 1<<16; j++ {
				p, err := s.AllocateNext()
				if err != nil {
					b.Fatal(err)
				}
				blocks = append(blocks, p)
			}
			for _, p := range blocks {
				if err := s.Release(p); err != nil {
					b.Fatal(err)
				}
			}
			if s.Allocated() != 0 {
				b.Fatal("not all released")
			}
		}
	})
}

// routeBench builds n nodes with one pod CIDR each and the routes a cloud
// lists: all but 1% of the nodes have theirs, plus 1% stale routes.
func routeBench(n int) (RouteConfig, []core.Node, []Route) {
	cfg := RouteConfig{ClusterCIDRs: []netip.Prefix{mp("10.0.0.0/8")}}
	nodes := make([]core.Node, n)
	var routes []Route
	for i := range nodes {
		cidr := fmt.Sprintf("10.%d.%d.0/24", i>>8, i&255)
		nodes[i] = core.Node{Name: fmt.Sprintf("node-%06d", i), UID: fmt.Sprintf("uid-%d", i), PodCIDRs: []string{cidr},
			Addresses: addrs("InternalIP", fmt.Sprintf("172.16.%d.%d", i>>8, i&255))}
		if i%100 != 0 {
			routes = append(routes, Route{Name: "c-" + nodes[i].UID, TargetNode: nodes[i].Name, DestinationCIDR: cidr})
		} else {
			routes = append(routes, Route{Name: fmt.Sprintf("c-stale-%d", i), TargetNode: fmt.Sprintf("gone-%d", i), DestinationCIDR: fmt.Sprintf("10.255.%d.0/24", i%256)})
		}
	}
	return cfg, nodes, routes
}

func BenchmarkPlanRoutes(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		cfg, nodes, routes := routeBench(n)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				p, err := PlanRoutes(cfg, nodes, routes)
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Create) != n/100 || len(p.Delete) != n/100 {
					b.Fatalf("create %d delete %d", len(p.Create), len(p.Delete))
				}
			}
		})
	}
}

func BenchmarkLoadBalancerNodes(b *testing.B) {
	_, nodes, _ := routeBench(10000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(LoadBalancerNodes(nodes, LoadBalancerOptions{})) != 10000 {
			b.Fatal("set")
		}
	}
}
