package cloud_test

import (
	"math/rand"
	"net/netip"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/cloud"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifetest"
)

// oracle is a deliberately naive CIDR set: one bool per block, blocks as
// prefixes built with netip arithmetic on the cluster's first address.
type oracle struct {
	cluster  netip.Prefix
	nodeBits int
	used     []bool
	next     int
}

func (o *oracle) blockPrefix(i int) netip.Prefix {
	a := o.cluster.Addr()
	step := a.BitLen() - o.nodeBits
	// Add i << step one bit at a time, on the byte array.
	b := a.AsSlice()
	for bit := 0; bit < 32 && i>>bit != 0; bit++ {
		if i>>bit&1 == 1 {
			pos := step + bit // bit position from the right
			byteIdx := len(b) - 1 - pos/8
			b[byteIdx] |= 1 << (pos % 8)
		}
	}
	addr, _ := netip.AddrFromSlice(b)
	return netip.PrefixFrom(addr, o.nodeBits)
}

func (o *oracle) allocate() (netip.Prefix, bool) {
	for k := 0; k < len(o.used); k++ {
		i := (o.next + k) % len(o.used)
		if !o.used[i] {
			o.used[i] = true
			o.next = (i + 1) % len(o.used)
			return o.blockPrefix(i), true
		}
	}
	return netip.Prefix{}, false
}

// mark sets every block that overlaps p.
func (o *oracle) mark(p netip.Prefix, on bool) {
	for i := range o.used {
		if o.blockPrefix(i).Overlaps(p) {
			o.used[i] = on
		}
	}
}

func (o *oracle) count() int {
	n := 0
	for _, u := range o.used {
		if u {
			n++
		}
	}
	return n
}

// The CIDR set never hands out an overlapping or out-of-cluster block under
// any sequence of allocate, occupy and release, agrees with the naive
// bitmap on every allocation, and its free count is exact.
func TestPropertyCIDRSetAgainstOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		space := nodelifetest.CIDRSpaces().Draw(t, "space")
		cluster, nodeBits := space.Cluster, space.NodeBits
		s, err := cloud.NewCIDRSet(cluster, nodeBits)
		if err != nil {
			t.Fatal(err)
		}
		o := &oracle{cluster: cluster, nodeBits: nodeBits, used: make([]bool, 1<<(nodeBits-cluster.Bits()))}
		handed := map[netip.Prefix]bool{}
		for step := rapid.IntRange(1, 80).Draw(t, "steps"); step > 0; step-- {
			switch kind := rapid.IntRange(0, 3).Draw(t, "op"); kind {
			case 0, 1:
				got, err := s.AllocateNext()
				want, ok := o.allocate()
				if (err == nil) != ok || got != want {
					t.Fatalf("allocate: %v %v, oracle %v %v", got, err, want, ok)
				}
				if ok {
					if !cluster.Contains(got.Addr()) || !cluster.Contains(cloud.LastAddr(got)) || got.Bits() != nodeBits {
						t.Fatalf("%v is not a block of %v", got, cluster)
					}
					for h := range handed {
						if h.Overlaps(got) {
							t.Fatalf("%v overlaps %v, handed out before and not released", got, h)
						}
					}
					handed[got] = true
				}
			case 2, 3:
				p := nodelifetest.PrefixesIn(cluster).Draw(t, "prefix")
				occupy, op := kind == 2, s.Release
				if occupy {
					op = s.Occupy
				}
				if err := op(p); err != nil {
					t.Fatalf("occupy=%v %v: %v", occupy, p, err)
				}
				o.mark(p, occupy)
				for h := range handed {
					if h.Overlaps(p) {
						delete(handed, h) // occupied or released again: no longer ours alone
					}
				}
			}
			if s.Allocated() != o.count() || s.Free() != len(o.used)-o.count() {
				t.Fatalf("allocated %d free %d, oracle %d of %d", s.Allocated(), s.Free(), o.count(), len(o.used))
			}
		}
	})
}

func routeWorld(t *rapid.T) (cloud.RouteConfig, []core.Node, []cloud.Route) {
	w := nodelifetest.RouteWorlds().Draw(t, "world")
	return w.Config, w.Nodes, w.Routes
}

// apply runs a plan against a route table as a provider that never fails.
func apply(routes []cloud.Route, p cloud.RoutePlan, enableAddrs bool) []cloud.Route {
	out := slices.DeleteFunc(slices.Clone(routes), func(r cloud.Route) bool {
		return slices.ContainsFunc(p.Delete, func(c cloud.RouteChange) bool { return cmp.Equal(c.Route, r) })
	})
	for _, c := range p.Create {
		r := c.Route
		r.Name, r.EnableNodeAddresses = "c-"+c.NameHint+"-"+r.DestinationCIDR, enableAddrs
		out = append(out, r)
	}
	return out
}

// Applying the plan reaches the fixed point in one step with
// RecreateBlackholes: planning again deletes and creates nothing, and no node
// waits for a route. With upstream's rule a blackholed route to a current
// pod CIDR is deleted and only recreated by the second pass: the second plan
// creates exactly those and the third is empty. Routes outside the cluster
// CIDRs are never deleted.
func TestPropertyRoutePlanFixedPoint(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, nodes, routes := routeWorld(t)
		cfg.RecreateBlackholes = rapid.Bool().Draw(t, "recreateBlackholes")
		enableAddrs := rapid.Bool().Draw(t, "enableAddrs")
		p := cloud.MustPlan(t, cfg, nodes, routes)
		for _, d := range p.Delete {
			if !cloud.ResponsibleFor(cfg.ClusterCIDRs, d.Route.DestinationCIDR) {
				t.Fatalf("deletes %v, outside the cluster CIDRs", d.Route)
			}
		}
		after := apply(routes, p, enableAddrs)
		again := cloud.MustPlan(t, cfg, nodes, after)
		if !cfg.RecreateBlackholes {
			// Only the routes a blackhole hid come back, then nothing.
			for _, c := range again.Create {
				hidden := slices.ContainsFunc(routes, func(r cloud.Route) bool {
					return r.Blackhole && r.TargetNode == c.Route.TargetNode && r.DestinationCIDR == c.Route.DestinationCIDR
				})
				if !hidden || c.Reason != "NoRoute" {
					t.Fatalf("second pass creates %+v, which no blackhole hid", c)
				}
			}
			if len(again.Delete) != 0 {
				t.Fatalf("second pass deletes %+v", again.Delete)
			}
			after = apply(after, again, enableAddrs)
			again = cloud.MustPlan(t, cfg, nodes, after)
		}
		if len(again.Delete) != 0 || len(again.Create) != 0 {
			t.Fatalf("plan after applying not empty: %+v", again)
		}
		for _, rn := range again.Nodes {
			if len(rn.Pending) != 0 {
				t.Fatalf("node %s still waits for %v", rn.Node, rn.Pending)
			}
		}
	})
}

// Plans do not depend on the order of nodes or routes.
func TestPropertyPlansIgnoreOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, nodes, routes := routeWorld(t)
		r := rand.New(rand.NewSource(rapid.Int64().Draw(t, "seed")))
		n2, r2 := slices.Clone(nodes), slices.Clone(routes)
		r.Shuffle(len(n2), func(i, j int) { n2[i], n2[j] = n2[j], n2[i] })
		r.Shuffle(len(r2), func(i, j int) { r2[i], r2[j] = r2[j], r2[i] })
		if d := cmp.Diff(cloud.MustPlan(t, cfg, nodes, routes), cloud.MustPlan(t, cfg, n2, r2)); d != "" {
			t.Fatalf("route plan depends on order:\n%s", d)
		}
		for i := range n2 {
			if rapid.Bool().Draw(t, "exclude") {
				n2[i].Labels = map[string]string{cloud.LabelExcludeFromLoadBalancers: "true"}
			}
			if rapid.Bool().Draw(t, "ready") {
				n2[i].Conditions = []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}}
			}
		}
		n3 := slices.Clone(n2)
		r.Shuffle(len(n3), func(i, j int) { n3[i], n3[j] = n3[j], n3[i] })
		for _, opts := range []cloud.LoadBalancerOptions{{}, {RequireReady: true}} {
			if a, b := cloud.LoadBalancerNodes(n2, opts), cloud.LoadBalancerNodes(n3, opts); !slices.Equal(a, b) {
				t.Fatalf("load-balancer set depends on order: %v vs %v", a, b)
			}
			if cloud.LoadBalancerHostsChanged(n2, n3, opts) {
				t.Fatal("a reordering changed the hosts")
			}
		}
		// The allocator: the same nodes in another order take the same
		// number of blocks, and every node gets distinct ones.
		a1, _ := cloud.NewRangeAllocator(cloud.RangeAllocatorConfig{ClusterCIDRs: []netip.Prefix{cloud.MP("10.1.0.0/16")}}, nil)
		got := map[netip.Prefix]string{}
		for _, n := range n3 {
			u, err := a1.Sync(core.Node{Name: n.Name})
			if err != nil {
				t.Fatal(err)
			}
			if prev, dup := got[u.PodCIDRs[0]]; dup {
				t.Fatalf("%v given to %s and %s", u.PodCIDRs[0], prev, n.Name)
			}
			got[u.PodCIDRs[0]] = n.Name
		}
	})
}
