package nodelifetest_test

import (
	"net/netip"
	"strconv"
	"testing"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/taints"
)

func TestDistributionPools(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	o := nodelifetest.Options{Keys: []string{"a", "b"}, Values: []string{"", "1"}}
	ta, to := draw(nodelifetest.Taints(o)), draw(nodelifetest.Tolerations(o))
	checkShares(t, "Taints(Keys, Values)",
		share{"key from the pool", func(i int) bool { k := ta(i).Key; return k == "a" || k == "b" }, 1, 1},
		share{"value from the pool", func(i int) bool { v := ta(i).Value; return v == "" || v == "1" }, 1, 1},
		share{"key a", func(i int) bool { return ta(i).Key == "a" }, 0.2, 0.9})
	checkShares(t, "Tolerations(Keys, Values)",
		share{"key from the pool or empty", func(i int) bool { k := to(i).Key; return k == "" || k == "a" || k == "b" }, 1, 1},
		share{"Equal", func(i int) bool { return to(i).Operator == taints.TolerationOpEqual }, 0.1, 0.9})
	n := draw(nodelifetest.IntegerStrings())
	checkShares(t, "IntegerStrings",
		share{"parses as int64", func(i int) bool { _, err := strconv.ParseInt(n(i), 10, 64); return err == nil }, 0.3, 1},
		share{"canonical", func(i int) bool {
			v, err := strconv.ParseInt(n(i), 10, 64)
			return err == nil && strconv.FormatInt(v, 10) == n(i)
		}, 0.2, 0.9})
}

func TestDistributionLease(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	b := draw(nodelifetest.Backoffs())
	checkShares(t, "Backoffs",
		share{"valid", func(i int) bool { return b(i).Validate() == nil }, 1, 1},
		share{"jitter", func(i int) bool { return b(i).Jitter > 0 }, 0.3, 1},
		share{"cap equals initial", func(i int) bool { x := b(i); return x.Cap == x.Initial }, 0.01, 0.6})
	h := draw(nodelifetest.HeartbeatConfigs("n1"))
	checkShares(t, "HeartbeatConfigs",
		share{"valid", func(i int) bool { return h(i).Validate() == nil }, 1, 1},
		share{"lease under 10s", func(i int) bool { return h(i).LeaseDurationSeconds < 10 }, 0.05, 0.8})
	e := draw(nodelifetest.ElectionConfigs("e1"))
	checkShares(t, "ElectionConfigs",
		share{"valid", func(i int) bool { return e(i).Validate() == nil }, 1, 1},
		share{"release on cancel", func(i int) bool { return e(i).ReleaseOnCancel }, 0.2, 0.8})
}

func TestDistributionKubelet(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	by := draw(nodelifetest.Bytes(1 << 30))
	checkShares(t, "Bytes",
		share{"in range", func(i int) bool { return by(i) >= 0 && by(i) <= 1<<30 }, 1, 1},
		share{"a page edge", func(i int) bool { v := by(i); return v >= 4095 && v <= 4097 }, 0.05, 0.6})
	an := draw(nodelifetest.AdmissionNodes(any0))
	checkShares(t, "AdmissionNodes",
		share{"pods allocatable set", func(i int) bool { _, ok := an(i).Allocatable[core.ResourcePods]; return ok }, 1, 1},
		share{"huge pages listed", func(i int) bool { _, ok := an(i).Allocatable["hugepages-2Mi"]; return ok }, 0.3, 0.95},
		share{"no cpu listed", func(i int) bool { _, ok := an(i).Allocatable[core.ResourceCPU]; return !ok }, 0.05, 0.6})
	one := draw(nodelifetest.OnePod(any0))
	checkShares(t, "OnePod (admission)",
		share{"a host port", func(i int) bool { return len(one(i).HostPorts) > 0 }, 0.05, 0.6},
		share{"an extended resource", func(i int) bool {
			for _, c := range one(i).Containers {
				if _, ok := c.Resources.Requests["example.com/gpu"]; ok {
					return true
				}
			}
			return false
		}, 0.02, 0.6})
	sp := draw(nodelifetest.SyncPods(any0))
	checkShares(t, "SyncPods",
		share{"a sidecar", func(i int) bool {
			for _, c := range sp(i).Pod.InitContainers {
				if c.RestartPolicy == core.ContainerRestartPolicyAlways {
					return true
				}
			}
			return false
		}, 0.05, 0.8},
		share{"an exited container", func(i int) bool {
			for _, c := range sp(i).Status.Containers {
				if c.State == cri.ContainerExited {
					return true
				}
			}
			return false
		}, 0.1, 0.95},
		share{"no sandbox", func(i int) bool { return len(sp(i).Status.Sandboxes) == 0 }, 0.1, 0.8})
	cb := draw(nodelifetest.CrashBackoffs())
	checkShares(t, "CrashBackoffs",
		share{"max above initial", func(i int) bool { return cb(i).Max > cb(i).Initial }, 0.3, 1})
	ip := draw(nodelifetest.ImagePlans())
	checkShares(t, "ImagePlans",
		share{"a spare", func(i int) bool { return len(ip(i).Plan.Spare) > 0 }, 0.1, 0.9},
		share{"an age deletion", func(i int) bool {
			for _, d := range ip(i).Plan.Deletions {
				if d.Reason == gc.ImageReasonAge {
					return true
				}
			}
			return false
		}, 0.05, 0.9})
	gp := draw(nodelifetest.GCPods(any0, []string{"ready", "gone"}))
	checkShares(t, "GCPods",
		share{"an evicted pod", func(i int) bool {
			for _, p := range gp(i) {
				if p.Reason == "Evicted" {
					return true
				}
			}
			return false
		}, 0.05, 0.9},
		share{"an unbound pod", func(i int) bool {
			for _, p := range gp(i) {
				if p.NodeName == "" {
					return true
				}
			}
			return false
		}, 0.1, 0.95})
}

func TestDistributionController(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	on := draw(nodelifetest.OneNode(any0, "n1", "n2"))
	checkShares(t, "OneNode",
		share{"named from the pool", func(i int) bool { return on(i).Name == "n1" || on(i).Name == "n2" }, 1, 1},
		share{"created within 2 minutes", func(i int) bool { return nodelifetest.Epoch().Sub(on(i).CreationTimestamp) <= 120e9 }, 0.3, 0.9})
	zn := draw(nodelifetest.ZoneNodes(any0))
	checkShares(t, "ZoneNodes",
		share{"a node without Ready", func(i int) bool {
			for _, n := range zn(i) {
				if n.Ready == "" {
					return true
				}
			}
			return false
		}, 0.05, 0.9},
		share{"every node not ready", func(i int) bool {
			x := zn(i)
			for _, n := range x {
				if n.Ready == "True" {
					return false
				}
			}
			return len(x) > 0
		}, 0.02, 0.6})
	sc := draw(nodelifetest.Schedules(any0))
	checkShares(t, "Schedules",
		share{"none", func(i int) bool { return sc(i) == nil }, 0.2, 0.8},
		share{"due at creation", func(i int) bool { s := sc(i); return s != nil && s.At.Equal(s.CreatedAt) }, 0.01, 0.5})
	nc := draw(nodelifetest.NoExecuteConfigs())
	checkShares(t, "NoExecuteConfigs",
		share{"anchored at TimeAdded", func(i int) bool { return nc(i).Anchor == eviction.AnchorTaintAdded }, 0.2, 0.8})
}

func TestDistributionCloud(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	cs := draw(nodelifetest.CIDRSpaces())
	checkShares(t, "CIDRSpaces",
		share{"IPv6", func(i int) bool { return cs(i).Cluster.Addr().Is6() }, 0.2, 0.8},
		share{"node blocks inside", func(i int) bool {
			x := cs(i)
			return x.NodeBits >= x.Cluster.Bits() && x.NodeBits <= x.Cluster.Addr().BitLen()
		}, 1, 1})
	cluster := netip.MustParsePrefix("10.64.0.0/16")
	pi := draw(nodelifetest.PrefixesIn(cluster))
	checkShares(t, "PrefixesIn(10.64.0.0/16)",
		share{"overlaps the cluster", func(i int) bool { return pi(i).Overlaps(cluster) }, 1, 1},
		share{"covers the cluster", func(i int) bool { return pi(i).Bits() < 16 }, 0.01, 0.6})
	rw := draw(nodelifetest.RouteWorlds())
	checkShares(t, "RouteWorlds",
		share{"a blackholed route", func(i int) bool {
			for _, r := range rw(i).Routes {
				if r.Blackhole {
					return true
				}
			}
			return false
		}, 0.05, 0.9},
		share{"a dual-stack node", func(i int) bool {
			for _, n := range rw(i).Nodes {
				if len(n.PodCIDRs) == 2 {
					return true
				}
			}
			return false
		}, 0.05, 0.95})
}

func TestDistributionTopology(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	mc := draw(nodelifetest.NUMAMachines())
	checkShares(t, "NUMAMachines",
		share{"8 nodes", func(i int) bool { return len(mc(i).Nodes) == 8 }, 0.1, 0.7},
		share{"valid with distances", func(i int) bool { return mc(i).Validate(true) == nil }, 1, 1})
	hs := draw(nodelifetest.Hints(4))
	checkShares(t, "Hints(4)",
		share{"nil", func(i int) bool { return hs(i) == nil }, 0.02, 0.4},
		share{"a preferred hint", func(i int) bool {
			for _, h := range hs(i) {
				if h.Preferred {
					return true
				}
			}
			return false
		}, 0.3, 0.95},
		share{"masks within the 4 nodes", func(i int) bool {
			for _, h := range hs(i) {
				if h.Affinity >= 1<<4 {
					return false
				}
			}
			return true
		}, 1, 1})
	ps := draw(nodelifetest.ProviderHintSets(4))
	checkShares(t, "ProviderHintSets(4)",
		share{"no provider", func(i int) bool { return len(ps(i)) == 0 }, 0.05, 0.6},
		share{"a provider of two resources", func(i int) bool {
			for _, p := range ps(i) {
				if len(p) >= 2 {
					return true
				}
			}
			return false
		}, 0.05, 0.8})
}
