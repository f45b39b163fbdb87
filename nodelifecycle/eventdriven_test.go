package nodelifecycle_test

import (
	"fmt"
	"hash/fnv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/taints"
)

// drawnRules reads a node's NodeRules from its "rules" label, a bit mask:
// 1 KeepPodsReady, 2 NoExecuteExempt, 4 ExcludeFromDisruption, 8 Bind
// for ever, 16 Bind for 30 s, 32 the zone "pool".
var drawnRules = nodelifecycle.NodePolicyFunc(func(n *core.Node) nodelifecycle.NodeRules {
	var m int
	fmt.Sscan(n.Labels["rules"], &m)
	r := nodelifecycle.NodeRules{KeepPodsReady: m&1 != 0, NoExecuteExempt: m&2 != 0, ExcludeFromDisruption: m&4 != 0, Bind: m&(8|16) != 0}
	if m&16 != 0 {
		s := int64(30)
		r.BindSeconds = &s
	}
	if m&32 != 0 {
		r.Zone = "pool"
	}
	return r
})

// refusing refuses every every'th eviction and pods-not-ready write
// (hashed as failing does, salted apart), and passes the others to next.
func refusing(every uint32, next nodelifecycle.Apply) nodelifecycle.Apply {
	if every == 0 {
		return next
	}
	return func(a nodelifecycle.Action) error {
		if a.Kind == nodelifecycle.KindEvict || a.Kind == nodelifecycle.KindPodsNotReady {
			h := fnv.New32a()
			fmt.Fprintf(h, "refuse|%s|%s|%s|%s", a.At.Format(time.RFC3339Nano), a.Kind, a.Node, a.Pod.Key())
			if h.Sum32()%every == 0 {
				return nodelifecycle.ErrRefuse
			}
		}
		if next == nil {
			return nil
		}
		return next(a)
	}
}

// A kubelet of the property below: it renews on a schedule while up, and
// posts Ready when it comes back.
type drawnKubelet struct {
	up    bool
	sched nodelifecycle.Periodic
}

// The event-driven pass (the default) and the every-node pass
// (EveryNodePass) take the same actions at the same times, byte for byte,
// over long runs of kubelets that renew on schedules (SetRenewals) or one
// renewal at a time, stop, come back, flap their Ready condition, and
// leases renewed again without a status, nodes that come and go, with pods that tolerate the taints for a while,
// writes that fail at random, and Steps at the times asked for or later.
// The runs are long enough that most nodes sit idle for many passes.
func TestPropertyEventDrivenMatchesEveryNode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := nodelifecycle.DefaultConfig()
		cfg.NodeMonitorPeriod = time.Duration(rapid.IntRange(1, 10).Draw(t, "period")) * time.Second
		cfg.NodeMonitorGracePeriod = time.Duration(rapid.IntRange(8, 60).Draw(t, "grace")) * time.Second
		cfg.NodeEvictionRate = rapid.SampledFrom([]float64{0.1, 1, 10}).Draw(t, "rate")
		cfg.LargeClusterSizeThreshold = rapid.IntRange(0, 6).Draw(t, "largeCluster")
		cfg.TaintOnObservedReady = rapid.Bool().Draw(t, "observedReady")
		cfg.KeepProbesOnExit = rapid.Bool().Draw(t, "keepProbes")
		if rapid.Bool().Draw(t, "anchorTaintAdded") {
			cfg.NoExecute.Anchor = eviction.AnchorTaintAdded
		}
		cfg.NoTaintEviction = rapid.IntRange(0, 5).Draw(t, "noTaintEviction") == 0
		cfg.NoScheduleOnly = rapid.IntRange(0, 5).Draw(t, "noScheduleOnly") == 0
		cfg.ConditionChangeIsHeartbeat = rapid.Bool().Draw(t, "changeIsHeartbeat")
		apply := refusing(rapid.SampledFrom([]uint32{0, 0, 3, 7}).Draw(t, "refuseEvery"),
			failing(rapid.SampledFrom([]uint32{0, 0, 5, 11}).Draw(t, "failEvery")))
		policy := rapid.Bool().Draw(t, "policy")
		if policy {
			cfg.NodePolicy = drawnRules
			rate, threshold := rapid.SampledFrom([]float64{0, 0.5, 2}).Draw(t, "poolRate"), float32(0.3)
			cfg.Zones = []eviction.ZoneOverride{{Zone: "pool", NodeEvictionRate: &rate, UnhealthyZoneThreshold: &threshold}}
		}
		every := cfg
		every.EveryNodePass = true
		var ctls [2]*nodelifecycle.Controller
		for k, c := range []nodelifecycle.Config{cfg, every} {
			var err error
			if ctls[k], err = nodelifecycle.New(c); err != nil {
				t.Fatal(err)
			}
		}
		machines := []nodelifecycle.Machine{nodelifecycle.Applying(ctls[0]), nodelifecycle.Applying(ctls[1])}
		both := func(f func(c *nodelifecycle.Controller)) {
			for _, c := range ctls {
				f(c)
			}
		}

		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		names := propNodes[:rapid.IntRange(1, len(propNodes)).Draw(t, "nodes")]
		zones := rapid.IntRange(1, 3).Draw(t, "zones")
		kubelets := map[string]*drawnKubelet{}
		renewEvery := rapid.SampledFrom([]time.Duration{time.Second, 4 * time.Second, 10 * time.Second, 13 * time.Second}).Draw(t, "renewEvery")
		version := uint64(100)
		nodeOf := func(i int, name string, status conditions.Status) core.Node {
			labels := map[string]string{"topology.kubernetes.io/zone": fmt.Sprint("z", i%zones)}
			if policy {
				labels["rules"] = fmt.Sprint(rapid.IntRange(0, 63).Draw(t, "rules"))
			}
			return core.Node{Name: name, UID: "uid-" + name, CreationTimestamp: now.Add(-time.Hour), Labels: labels,
				Conditions: []conditions.Condition{{Type: conditions.Ready, Status: status, LastHeartbeatTime: now, LastTransitionTime: now}}}
		}
		// start brings a kubelet up at now: it posts its status and renews
		// now and then on its schedule, or renews once if it renews by
		// hand.
		start := func(i int, name string) {
			k := kubelets[name]
			k.up = true
			version += 1000
			k.sched = nodelifecycle.Periodic{First: now, Every: renewEvery, Version: version}
			n := nodeOf(i, name, conditions.True)
			both(func(c *nodelifecycle.Controller) {
				c.UpsertNode(n)
				if ref, ok := c.LeaseRef(name); ok {
					c.SetRenewals(ref, k.sched)
				}
			})
		}
		for i, name := range names {
			kubelets[name] = &drawnKubelet{}
			start(i, name)
		}
		for i := range rapid.IntRange(0, 6).Draw(t, "pods") {
			p := core.Pod{Namespace: "ns", Name: fmt.Sprint("p", i), UID: fmt.Sprint("uid-p", i), NodeName: rapid.SampledFrom(names).Draw(t, "podNode"),
				Conditions: []core.PodCondition{{Type: core.PodReady, Status: conditions.True}}}
			if secs := rapid.IntRange(-1, 120).Draw(t, "tolerationSeconds"); secs >= 0 {
				s := int64(secs)
				p.Tolerations = []taints.Toleration{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &s}}
			}
			both(func(c *nodelifecycle.Controller) { c.UpsertPod(p) })
		}

		var next time.Time
		for step := range rapid.IntRange(20, 400).Draw(t, "steps") {
			if rapid.IntRange(0, 9).Draw(t, "change") == 0 {
				i := rapid.IntRange(0, len(names)-1).Draw(t, "node")
				name := names[i]
				k := kubelets[name]
				switch rapid.IntRange(0, 7).Draw(t, "what") {
				case 0, 1: // the kubelet stops, or comes back
					if k.up {
						k.up = false
						k.sched.Until = now.Add(time.Duration(rapid.IntRange(1, 3000).Draw(t, "stopIn")) * time.Millisecond)
						both(func(c *nodelifecycle.Controller) {
							if ref, ok := c.LeaseRef(name); ok {
								c.SetRenewals(ref, k.sched)
							}
						})
					} else {
						start(i, name)
					}
				case 2: // a renewal by hand, which ends the schedule
					l := nodelifecycle.Lease{Node: name, RenewTime: now, ResourceVersion: fmt.Sprint(version)}
					version++
					k.up = false
					both(func(c *nodelifecycle.Controller) { c.UpsertLease(l) })
				case 3: // the kubelet posts Ready False
					n := nodeOf(i, name, conditions.False)
					both(func(c *nodelifecycle.Controller) { c.UpsertNode(n) })
				case 4: // the node goes, or comes back
					if _, ok := ctls[0].Node(name); ok {
						both(func(c *nodelifecycle.Controller) { c.DeleteNode(name) })
						k.up = false
					} else {
						start(i, name)
					}
				case 5:
					both(func(c *nodelifecycle.Controller) { c.ViewRestored(now) })
				case 7: // the node's rules change
					if n, ok := ctls[0].Node(name); ok && policy {
						labels := map[string]string{}
						for k, v := range n.Labels {
							labels[k] = v
						}
						labels["rules"] = fmt.Sprint(rapid.IntRange(0, 63).Draw(t, "rules"))
						n.Labels = labels
						both(func(c *nodelifecycle.Controller) { c.UpsertNode(n) })
					}
				case 6: // the lease is renewed again, but no status is posted
					if !k.up {
						k.up = true
						version += 1000
						k.sched = nodelifecycle.Periodic{First: now.Add(time.Second), Every: renewEvery, Version: version}
						both(func(c *nodelifecycle.Controller) {
							if ref, ok := c.LeaseRef(name); ok {
								c.SetRenewals(ref, k.sched)
							}
						})
					}
				}
			}
			if !next.IsZero() && rapid.IntRange(0, 4).Draw(t, "late") > 0 {
				now = next
			} else {
				now = now.Add(time.Duration(rapid.IntRange(0, 30000).Draw(t, "advance")) * time.Millisecond)
			}
			var got [2]nodelifecycle.Ready
			for k, m := range machines {
				got[k] = m.Step(now, apply)
			}
			if diff := cmp.Diff(got[1], got[0], cmpopts.IgnoreUnexported(nodelifecycle.Action{})); diff != "" {
				t.Fatalf("step %d at %v: event-driven (+) differs from every-node (-):\n%s", step, now, diff)
			}
			next = got[0].Next
		}
		if a, b := ctls[0].Passes(), ctls[1].Passes(); a != b {
			t.Fatalf("event-driven passes %d, every-node %d", a, b)
		}
	})
}
