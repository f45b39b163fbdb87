package nodelifecycle_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/taints"
)

// A three-zone cluster of two nodes per zone, one pod on each node that
// tolerates unreachable and not-ready for 30s. Zone b's kubelets lose the
// API server after their lease renewal at +10s and come back at +120s.
// The driver plays the kubelets on a virtual clock: every node renews its
// lease every 10s while it can reach the API server, and Step runs at
// every Next the controller asks for.
func Example() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c, err := nodelifecycle.New(nodelifecycle.DefaultConfig())
	if err != nil {
		panic(err)
	}
	ready := func(at time.Time) []conditions.Condition {
		return []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, Reason: conditions.ReasonKubeletReady,
			LastHeartbeatTime: at, LastTransitionTime: at}}
	}
	var names []string
	for _, zone := range []string{"a", "b", "c"} {
		for i := 1; i <= 2; i++ {
			name := fmt.Sprintf("%s-%d", zone, i)
			names = append(names, name)
			c.UpsertNode(core.Node{Name: name, CreationTimestamp: start.Add(-time.Hour), Conditions: ready(start),
				Labels: map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: zone}})
			c.UpsertPod(core.Pod{Namespace: "shop", Name: "web-" + name, UID: "uid-" + name, NodeName: name,
				Conditions:  []core.PodCondition{{Type: core.PodReady, Status: conditions.True}},
				Tolerations: taints.WithDefaultTolerationSeconds(nil, 30, 30)})
		}
	}
	cut := func(node string, at time.Time) bool {
		d := at.Sub(start)
		return node[0] == 'b' && d > 10*time.Second && d < 120*time.Second
	}
	for t := start; !t.After(start.Add(125 * time.Second)); {
		d := t.Sub(start)
		for _, name := range names {
			if !cut(name, t) && d%(10*time.Second) == 0 {
				c.UpsertLease(nodelifecycle.Lease{Node: name, RenewTime: t})
			}
		}
		if d == 120*time.Second {
			// zone b's kubelets are back and post Ready=True.
			for _, name := range []string{"b-1", "b-2"} {
				n, _ := c.Node(name)
				n.Conditions = ready(t)
				c.UpsertNode(n)
			}
		}
		r := c.StepAll(t)
		for _, a := range r.Actions {
			if a.Kind == nodelifecycle.KindSchedule {
				fmt.Printf("%+5.0fs Schedule %s due %+.0fs\n", d.Seconds(), a.Pod.Key(), a.Due.Sub(start).Seconds())
				continue
			}
			fmt.Printf("%+5.0fs %s\n", d.Seconds(), a)
		}
		next := start.Add((d/(10*time.Second) + 1) * 10 * time.Second) // the next lease renewal
		if r.Next.Before(next) {
			next = r.Next
		}
		t = next
	}
	// Output:
	//    +0s Zone r/a: Initial -> Normal, 0 of 2 not ready, tainting rate 0.1/s
	//    +0s Zone r/b: Initial -> Normal, 0 of 2 not ready, tainting rate 0.1/s
	//    +0s Zone r/c: Initial -> Normal, 0 of 2 not ready, tainting rate 0.1/s
	//   +65s NodeStatus b-1: no heartbeat for 50s: Ready=Unknown
	//   +65s NodeStatus b-2: no heartbeat for 50s: Ready=Unknown
	//   +65s PodsNotReady b-1: Node is not ready
	//   +65s PodsNotReady b-2: Node is not ready
	//   +65s Zone r/b: Normal -> FullDisruption, 2 of 2 not ready, tainting rate 0.1/s
	//   +65s Taint b-1 node.kubernetes.io/unreachable:NoSchedule: condition taints follow the node's conditions
	//   +65s Taint b-2 node.kubernetes.io/unreachable:NoSchedule: condition taints follow the node's conditions
	//   +65s Taint b-1 node.kubernetes.io/unreachable:NoExecute: Ready is Unknown
	//   +65s Schedule shop/web-b-1 due +95s
	//   +75s Taint b-2 node.kubernetes.io/unreachable:NoExecute: Ready is Unknown
	//   +75s Schedule shop/web-b-2 due +105s
	//   +95s Evict b-1 pod shop/web-b-1: tolerated the node's NoExecute taints for 30s
	//  +105s Evict b-2 pod shop/web-b-2: tolerated the node's NoExecute taints for 30s
	//  +120s Untaint b-1 node.kubernetes.io/unreachable:NoExecute: marked reachable: its NoExecute taints come off
	//  +120s Untaint b-2 node.kubernetes.io/unreachable:NoExecute: marked reachable: its NoExecute taints come off
	//  +120s Zone r/b: FullDisruption -> Normal, 0 of 2 not ready, tainting rate 0.1/s
	//  +120s Untaint b-1 node.kubernetes.io/unreachable:NoSchedule: condition taints follow the node's conditions
	//  +120s Untaint b-2 node.kubernetes.io/unreachable:NoSchedule: condition taints follow the node's conditions
}

// Validate names every bad field at once.
func ExampleConfig_Validate() {
	cfg := nodelifecycle.DefaultConfig()
	cfg.NodeMonitorPeriod = 0
	cfg.NodeEvictionRate = -1
	cfg.UnhealthyZoneThreshold = 1.5
	fmt.Println(cfg.Validate())
	_, err := nodelifecycle.New(cfg)
	fmt.Println(errors.Is(err, nodelifecycle.ErrInvalidConfig))
	// Output:
	// nodelifecycle: invalid config: NodeMonitorPeriod 0s must be > 0
	// nodelifecycle: invalid config: NodeEvictionRate -1 must be a finite number of nodes per second >= 0
	// nodelifecycle: invalid config: UnhealthyZoneThreshold 1.5 is not a fraction in [0, 1]
	// true
}

// A write reported with Failed changes what follows, as upstream's error
// paths do. Node b-1 falls silent after its lease renewal at +0s; at +55s
// (the first pass after the 50s grace period) its status write fails: the
// Step pauses after the write (its Next is its own time), the failure is
// reported, and the Step carries on without the node: it is left out of
// its zone's counts for that pass, so zone b has no counted node and is
// dropped. At +60s the write is tried again and succeeds: zone b comes
// back fully disrupted, the node is tainted.
func ExampleController_Failed() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c, _ := nodelifecycle.New(nodelifecycle.DefaultConfig())
	for _, z := range []string{"a", "b"} {
		c.UpsertNode(core.Node{Name: z + "-1", CreationTimestamp: start.Add(-time.Hour),
			Labels:     map[string]string{eviction.LabelTopologyZone: z},
			Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, LastHeartbeatTime: start, LastTransitionTime: start}}})
		c.UpsertLease(nodelifecycle.Lease{Node: z + "-1", RenewTime: start})
	}
	failures := 1
	for t := start; !t.After(start.Add(60 * time.Second)); {
		c.UpsertLease(nodelifecycle.Lease{Node: "a-1", RenewTime: t}) // a-1 keeps renewing
		r := c.Step(t)
		for _, a := range r.Actions {
			outcome := ""
			if a.Kind == nodelifecycle.KindNodeStatus && failures > 0 {
				failures--
				_ = c.Failed(a)
				outcome = " (failed)"
			}
			fmt.Printf("+%v %s%s\n", t.Sub(start), a, outcome)
		}
		if r.Next.Equal(t) {
			fmt.Printf("+%v paused\n", t.Sub(start))
		}
		t = r.Next
	}
	// Output:
	// +0s Zone /a: Initial -> Normal, 0 of 1 not ready, tainting rate 0.1/s
	// +0s Zone /b: Initial -> Normal, 0 of 1 not ready, tainting rate 0.1/s
	// +55s NodeStatus b-1: no heartbeat for 50s: Ready=Unknown (failed)
	// +55s paused
	// +1m0s NodeStatus b-1: no heartbeat for 50s: Ready=Unknown
	// +1m0s paused
	// +1m0s PodsNotReady b-1: Node is not ready
	// +1m0s paused
	// +1m0s Zone /b: Initial -> FullDisruption, 1 of 1 not ready, tainting rate 0.1/s
	// +1m0s Taint b-1 node.kubernetes.io/unreachable:NoSchedule: condition taints follow the node's conditions
	// +1m0s paused
	// +1m0s Taint b-1 node.kubernetes.io/unreachable:NoExecute: Ready is Unknown
	// +1m0s paused
}

// The controller's view can be read back: the node as it left it, a pod's
// pending eviction, a zone's state. A pod deleted before its eviction is
// no longer pending.
func ExampleController_Scheduled() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c, _ := nodelifecycle.New(nodelifecycle.DefaultConfig())
	c.UpsertNode(core.Node{Name: "n1", Labels: map[string]string{eviction.LabelTopologyZone: "a"},
		Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, LastHeartbeatTime: start}},
		Taints:     []taints.Taint{{Key: "dedicated", Value: "db", Effect: taints.TaintEffectNoExecute}}})
	sixty := int64(60)
	c.UpsertPod(core.Pod{Namespace: "shop", Name: "db-0", UID: "u1", NodeName: "n1",
		Tolerations: []taints.Toleration{{Key: "dedicated", Operator: taints.TolerationOpEqual, Value: "db",
			Effect: taints.TaintEffectNoExecute, TolerationSeconds: &sixty}}})
	r := c.StepAll(start)
	s, ok := c.Scheduled("shop", "db-0")
	fmt.Println(ok, s.At.Sub(start), r.Next.Sub(start))
	state, _ := c.ZoneState(eviction.ZoneKey(map[string]string{eviction.LabelTopologyZone: "a"}))
	n, _ := c.Node("n1")
	fmt.Println(state, len(n.Taints), c.Passes())

	c.DeletePod("shop", "db-0")
	r = c.StepAll(start.Add(time.Second))
	_, ok = c.Scheduled("shop", "db-0")
	fmt.Println(ok, len(r.Actions), r.Next.Sub(start))
	fmt.Println(r.Actions[0])
	// Output:
	// true 1m0s 5s
	// Normal 1 1
	// false 1 5s
	// Cancel n1 pod shop/db-0: pod shop/db-0 is gone from the node: its eviction is cancelled
}

// A controller whose own view was cut (its watch of the leases failed)
// from +10s to +70s: it saw node n1 renew last at +10s. Judged on that
// stale view, the first pass after the gap would find n1 silent for 60s,
// over the 50s grace, and write Unknown; after ViewRestored it times n1
// from +70s and the relisted lease keeps it Ready.
func ExampleController_ViewRestored() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, restore := range []bool{false, true} {
		c, _ := nodelifecycle.New(nodelifecycle.DefaultConfig())
		c.UpsertNode(core.Node{Name: "n1", CreationTimestamp: start, Conditions: []conditions.Condition{{Type: conditions.Ready,
			Status: conditions.True, LastHeartbeatTime: start, LastTransitionTime: start}}})
		c.UpsertLease(nodelifecycle.Lease{Node: "n1", RenewTime: start.Add(10 * time.Second)})
		c.StepAll(start.Add(10 * time.Second))
		back := start.Add(70 * time.Second)
		if restore {
			c.ViewRestored(back)
		}
		r := c.StepAll(back)
		n, _ := c.Node("n1")
		var kinds []string
		for _, a := range r.Actions {
			kinds = append(kinds, string(a.Kind))
		}
		fmt.Printf("restored %v: Ready %s, actions %v\n", restore, n.Conditions[0].Status, kinds)
	}
	// Output:
	// restored false: Ready Unknown, actions [NodeStatus PodsNotReady Zone Taints]
	// restored true: Ready True, actions []
}

// staleCache is a lease view whose cache stopped at resource version 120
// while the kubelet kept renewing: the live lease of every node is at 180.
type staleCache struct{}

func (staleCache) LiveLease(node string) (string, bool, error) { return "180", true, nil }
func (staleCache) CacheResourceVersion() string                { return "120" }

// The lease circuit breaker of v1.37: n-1 and n-2 renewed their leases
// at +0s (resource version 120) and, as far as the cache shows, never
// since. At +55s both are past the grace period; the controller reads
// n-1's live lease, finds it newer, and holds every node until the cache
// catches up instead of marking them Unknown.
func ExampleController_SetLiveLeases() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c, _ := nodelifecycle.New(nodelifecycle.DefaultConfig())
	c.SetLiveLeases(staleCache{})
	for _, n := range []string{"n-1", "n-2"} {
		c.UpsertNode(core.Node{Name: n, Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True,
			LastHeartbeatTime: start, LastTransitionTime: start}}})
		c.UpsertLease(nodelifecycle.Lease{Node: n, RenewTime: start, ResourceVersion: "120"})
	}
	for d := time.Duration(0); d <= 55*time.Second; d += 5 * time.Second {
		for _, a := range c.StepAll(start.Add(d)).Actions {
			if a.Kind == nodelifecycle.KindHold {
				fmt.Printf("+%v %v\n", d, a)
			}
		}
	}
	// Output:
	// +55s Hold n-1: the live lease (resource version 180) is not the cached one (120): node health waits until the lease cache reaches 180
	// +55s Hold: 1 node(s) held: the lease cache is at resource version 120, behind the live lease's 180
}

// Release presets: the grace period, the tainting decision's input and
// the lease circuit breaker each changed in one release.
func ExampleConfigFor() {
	for _, v := range []release.Version{release.V1_28, release.V1_31, release.V1_36, release.V1_37} {
		cfg := nodelifecycle.ConfigFor(v)
		fmt.Println(v, cfg.NodeMonitorGracePeriod, cfg.TaintOnObservedReady, cfg.LeaseCircuitBreaker)
	}
	// Output:
	// 1.28 40s true false
	// 1.31 40s false false
	// 1.36 50s false false
	// 1.37 50s false true
}

// A driver renewing many leases looks each node up once: node a renews
// through its LeaseRef every 10 s, node b never renews after the start.
// The first monitor pass (+0s) takes both leases as probes; b is past the
// 50 s grace period at the first pass after +50s, at +55s.
func ExampleController_RenewLease() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c, err := nodelifecycle.New(nodelifecycle.DefaultConfig())
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"a", "b"} {
		c.UpsertNode(core.Node{Name: name, CreationTimestamp: start.Add(-time.Hour),
			Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, LastHeartbeatTime: start, LastTransitionTime: start}},
			Labels:     map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: "z"}})
		c.UpsertLease(nodelifecycle.Lease{Node: name, RenewTime: start})
	}
	a, _ := c.LeaseRef("a")
	for d := time.Duration(0); d <= time.Minute; d += 5 * time.Second {
		t := start.Add(d)
		if d > 0 && d%(10*time.Second) == 0 {
			c.RenewLease(a, t, fmt.Sprint(d/time.Second))
		}
		for _, act := range c.StepAll(t).Actions {
			if act.Kind == nodelifecycle.KindNodeStatus {
				fmt.Printf("%+.0fs %s\n", d.Seconds(), act)
			}
		}
	}
	// Output:
	// +55s NodeStatus b: no heartbeat for 50s: Ready=Unknown
}

// Two kubelets renew their leases on schedules instead of one renewal at
// a time: a-1 every 10s from the start until +95s, when it stops; a-2 for
// ever. From v1.37's defaults (a monitor pass every 5s, a grace period of
// 50s): a-1's last renewal, at +90s, is read by the pass at +90s, so it
// times out at the first pass after +140s: Ready=Unknown at +145s (2m25s),
// its pods marked NotReady (it has none), the unreachable:NoSchedule taint of its condition, and, one node of two
// being too few to change the zone's rate, the unreachable:NoExecute
// taint at once from a full bucket. Of the 30 passes up to +145s, only the
// first looks at the two nodes, and the one at +145s at a-1: 3 visits,
// where an every-node pass (Config.EveryNodePass) makes 60. In between,
// each node waits for the first pass that could find it timed out; the
// Controller then catches its lease up with its schedule (a-2's at +55s
// and +105s, a-1's at +55s, +105s and +145s).
func ExampleController_SetRenewals() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c, err := nodelifecycle.New(nodelifecycle.DefaultConfig())
	if err != nil {
		panic(err)
	}
	for i, name := range []string{"a-1", "a-2"} {
		c.UpsertNode(core.Node{Name: name, CreationTimestamp: start.Add(-time.Hour),
			Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, LastHeartbeatTime: start, LastTransitionTime: start}}})
		kubelet := nodelifecycle.Periodic{First: start, Every: 10 * time.Second, Version: uint64(1000 * (i + 1))}
		if name == "a-1" {
			kubelet.Until = start.Add(95 * time.Second)
		}
		ref, _ := c.LeaseRef(name)
		c.SetRenewals(ref, kubelet)
	}
	for now := start; now.Before(start.Add(150 * time.Second)); {
		r := c.StepAll(now)
		for _, a := range r.Actions {
			fmt.Printf("+%v %s\n", now.Sub(start), a)
		}
		now = r.Next
	}
	fmt.Println("passes:", c.Passes(), "visits:", c.Visits())
	// Output:
	// +0s Zone "": Initial -> Normal, 0 of 2 not ready, tainting rate 0.1/s
	// +2m25s NodeStatus a-1: no heartbeat for 50s: Ready=Unknown
	// +2m25s PodsNotReady a-1: Node is not ready
	// +2m25s Taint a-1 node.kubernetes.io/unreachable:NoSchedule: condition taints follow the node's conditions
	// +2m25s Taint a-1 node.kubernetes.io/unreachable:NoExecute: Ready is Unknown
	// passes: 30 visits: 3
}
