package eviction_test

import (
	"fmt"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/taints"
)

var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ExampleZoneKey() {
	fmt.Printf("%q\n", eviction.ZoneKey(map[string]string{
		eviction.LabelTopologyRegion: "eu-west-1",
		eviction.LabelTopologyZone:   "eu-west-1a",
	}))
	// The deprecated beta label wins when present.
	fmt.Println(eviction.ZoneName(eviction.ZoneKey(map[string]string{
		eviction.LabelFailureDomainBetaZone: "old-zone",
		eviction.LabelTopologyZone:          "new-zone",
	})))
	fmt.Printf("%q\n", eviction.ZoneKey(nil))
	// Output:
	// "eu-west-1:\x00:eu-west-1a"
	// /old-zone
	// ""
}

func ExampleZoneName() {
	fmt.Println(eviction.ZoneName("eu-west-1:\x00:eu-west-1a"))
	// Output: eu-west-1/eu-west-1a
}

func ExampleIsExcludedFromDisruption() {
	fmt.Println(eviction.IsExcludedFromDisruption(map[string]string{eviction.LabelNodeExcludeDisruption: ""}))
	// Output: true
}

func ExampleComputeZoneState() {
	T, U := conditions.True, conditions.Unknown
	for _, zone := range [][]conditions.Status{
		{T, U, U},    // 2 not ready: never Partial
		{T, U, U, U}, // 3 of 4 not ready
		{U, U},       // nobody ready
	} {
		notReady, state := eviction.ComputeZoneState(zone, eviction.DefaultUnhealthyZoneThreshold)
		fmt.Println(len(zone), notReady, state)
	}
	// Output:
	// 3 2 Normal
	// 4 3 PartialDisruption
	// 2 2 FullDisruption
}

func ExampleConfig_ZoneRate() {
	c := eviction.DefaultConfig()
	fmt.Println(c.ZoneRate(eviction.StateNormal, 10))
	fmt.Println(c.ZoneRate(eviction.StatePartialDisruption, 51))
	fmt.Println(c.ZoneRate(eviction.StatePartialDisruption, 50))
	fmt.Println(c.ZoneRate(eviction.StateFullDisruption, 3))
	// Output:
	// 0.1
	// 0.01
	// 0
	// 0.1
}

func ExampleConfig_PlanDisruption() {
	c := eviction.DefaultConfig()
	nodes := func(zone string, n, down int) []eviction.ZoneNode {
		var out []eviction.ZoneNode
		for i := 0; i < n; i++ {
			s := conditions.True
			if i < down {
				s = conditions.Unknown
			}
			out = append(out, eviction.ZoneNode{Name: fmt.Sprintf("%s-%d", zone, i), Zone: zone, Ready: s})
		}
		return out
	}
	// Pass 1: two healthy zones. Pass 2: zone b loses 40 of 60 nodes.
	// Pass 3: both zones are down.
	var prev map[string]eviction.ZoneStatus
	for _, pass := range [][]eviction.ZoneNode{
		append(nodes("a", 60, 0), nodes("b", 60, 0)...),
		append(nodes("a", 60, 0), nodes("b", 60, 40)...),
		append(nodes("a", 60, 60), nodes("b", 60, 60)...),
	} {
		plan, err := c.PlanDisruption(prev, pass)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, z := range plan.Zones {
			fmt.Printf("%s: %s -> %s, rate %g, set %v\n", z.Zone, z.Previous, z.State, z.Rate, z.SetRate)
		}
		fmt.Println(plan.Reason, "strip taints:", plan.StripNoExecuteTaints)
		prev = plan.Next
	}
	// Output:
	// a: Initial -> Normal, rate 0.1, set true
	// b: Initial -> Normal, rate 0.1, set true
	// ZoneStates strip taints: false
	// a: Normal -> Normal, rate 0.1, set false
	// b: Normal -> PartialDisruption, rate 0.01, set true
	// ZoneStates strip taints: false
	// a: Normal -> FullDisruption, rate 0, set true
	// b: PartialDisruption -> FullDisruption, rate 0, set true
	// EnterFullDisruption strip taints: true
}

func ExampleConfig_Validate() {
	c := eviction.DefaultConfig()
	c.UnhealthyZoneThreshold = 1.5
	fmt.Println(c.Validate())
	// Output: eviction: invalid config: UnhealthyZoneThreshold 1.5 is not a fraction in [0, 1]
}

func ExampleTokenBucket() {
	b, _ := eviction.NewTokenBucket(0.1, 1) // --node-eviction-rate
	for _, s := range []int{0, 5, 10} {
		fmt.Println(s, b.Allow(start.Add(time.Duration(s)*time.Second)))
	}
	next, _ := b.NextAllow(start.Add(10 * time.Second))
	fmt.Println("next token after", next.Sub(start))
	// Output:
	// 0 true
	// 5 false
	// 10 true
	// next token after 20s
}

func ExampleRateLimitedQueue() {
	q, _ := eviction.NewRateLimitedQueue(0.1, eviction.FixedQueueOptions())
	for _, n := range []string{"node-a", "node-b"} {
		q.Add(start, n, "")
	}
	fmt.Println("add node-a again:", q.Add(start, "node-a", ""))
	for _, s := range []int{0, 5, 10} {
		now := start.Add(time.Duration(s) * time.Second)
		q.Try(now, func(it eviction.Item) (bool, time.Duration) {
			fmt.Printf("%ds: taint %s\n", s, it.Name)
			return true, 0
		})
	}
	fmt.Println("add node-a after processing:", q.Add(start.Add(20*time.Second), "node-a", ""))
	q.Remove("node-a") // the node was Ready again
	fmt.Println("add node-a after Remove:", q.Add(start.Add(20*time.Second), "node-a", ""))
	// Output:
	// add node-a again: false
	// 0s: taint node-a
	// 10s: taint node-b
	// add node-a after processing: false
	// add node-a after Remove: true
}

func ExampleRateLimitedQueue_SetRate() {
	// kubernetes#104639: upstream's stopped limiter reports rate 1, so a
	// later SetRate(1) is skipped; RestartStopped fixes it.
	for _, opts := range []eviction.QueueOptions{{RestartStopped: true}, {}} {
		q, _ := eviction.NewRateLimitedQueue(0.1, opts)
		_ = q.SetRate(start, 0)
		_ = q.SetRate(start, 1)
		fmt.Println("stopped:", q.Stopped())
	}
	// Output:
	// stopped: false
	// stopped: true
}

func ExampleNoExecuteTainter() {
	t, _ := eviction.NewNoExecuteTainter(eviction.DefaultConfig(), eviction.FixedQueueOptions())
	node := eviction.TaintNode{Name: "n1", Zone: "z"}
	// Monitor pass: the node was observed Unknown.
	a := t.Observe(start, node, conditions.Unknown)
	fmt.Println(a.Kind, a.Node+":", a.Message)
	// Tainting pass: the zone's limiter lets it through.
	for _, u := range t.Step(start, func(string) (conditions.Status, bool) { return conditions.Unknown, true }) {
		fmt.Printf("%s: add %s, remove %s: %s (%s)\n", u.Node, u.Add, u.Remove, u.Reason, u.Message)
		node.Taints = append(node.Taints, u.Add)
	}
	// The node is Ready again.
	a = t.Observe(start.Add(time.Minute), node, conditions.True)
	fmt.Println(a.Kind, a.Remove)
	// Output:
	// Queued n1: Ready is Unknown, queued for the node.kubernetes.io/unreachable:NoExecute taint in zone "z"
	// n1: add node.kubernetes.io/unreachable:NoExecute, remove node.kubernetes.io/not-ready:NoExecute: NodeUnreachable (Ready is Unknown)
	// Untaint [node.kubernetes.io/unreachable:NoExecute]
}

func ExampleNoExecuteConfig_Plan() {
	unreachable := taints.Taint{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute, TimeAdded: start}
	pod := core.Pod{Namespace: "default", Name: "web", Tolerations: taints.DefaultNoExecuteTolerations()}
	var cfg eviction.NoExecuteConfig // upstream behaviour

	d := cfg.Plan(start, []taints.Taint{unreachable}, pod, nil)
	fmt.Println(d.Action, d.Message())

	// Later the pod's toleration is shortened: upstream keeps the deadline.
	pod.Tolerations = []taints.Toleration{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: new60()}}
	d = cfg.Plan(start.Add(10*time.Second), []taints.Taint{unreachable}, pod, &d.Scheduled)
	fmt.Println(d.Action, d.At.Sub(start))

	// At the deadline the pod is evicted with the DisruptionTarget condition.
	d = cfg.Plan(start.Add(300*time.Second), []taints.Taint{unreachable}, pod, &d.Scheduled)
	fmt.Println(d.Action, d.Condition.Reason, d.EventMessage())
	// Output:
	// Schedule pod default/web tolerates node.kubernetes.io/unreachable:NoExecute until 2026-03-01T12:05:00Z: evict at 2026-03-01T12:05:00Z
	// Keep 5m0s
	// EvictNow DeletionByTaintManager Marking for deletion Pod default/web
}

func new60() *int64 { s := int64(60); return &s }

func ExampleNoExecuteConfig_PlanNode() {
	node := []taints.Taint{
		{Key: "dedicated", Value: "db", Effect: taints.TaintEffectNoSchedule},
		{Key: taints.TaintNodeNotReady, Effect: taints.TaintEffectNoExecute},
	}
	pods := []core.Pod{
		{Namespace: "b", Name: "cache"},
		{Namespace: "a", Name: "api", Tolerations: taints.DefaultNoExecuteTolerations()},
		{Namespace: "a", Name: "agent", Tolerations: []taints.Toleration{{Operator: taints.TolerationOpExists}}},
	}
	for _, d := range (eviction.NoExecuteConfig{}).PlanNode(start, node, pods, nil) {
		fmt.Println(d.Pod.Key(), d.Action, d.Reason)
	}
	// Output:
	// a/agent None ToleratedForever
	// a/api Schedule TolerationSeconds
	// b/cache EvictNow UntoleratedTaint
}

func ExampleNoExecuteConfig_Validate() {
	fmt.Println(eviction.NoExecuteConfig{Anchor: eviction.AnchorTaintAdded}.Validate())
	fmt.Println(eviction.NoExecuteConfig{Anchor: 5}.Validate())
	// Output:
	// <nil>
	// eviction: invalid config: Anchor Anchor(5) is neither AnchorObserved nor AnchorTaintAdded
}

// A caller that counts its nodes per zone as it observes them plans from
// the counts: zone b has no Ready node while a has, so b is fully
// disrupted and keeps tainting at the normal rate.
func ExampleConfig_PlanZones() {
	a := eviction.ZoneKey(map[string]string{eviction.LabelTopologyZone: "a"})
	b := eviction.ZoneKey(map[string]string{eviction.LabelTopologyZone: "b"})
	plan, err := eviction.DefaultConfig().PlanZones(nil, []eviction.ZoneCount{
		{Zone: b, NotReady: 40}, {Zone: a, Ready: 50}, {Zone: b, NotReady: 10},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, zp := range plan.Zones {
		fmt.Printf("%s: %d of %d not ready, %s -> %s, rate %g/s\n", eviction.ZoneName(zp.Zone), zp.NotReady, zp.Size, zp.Previous, zp.State, zp.Rate)
	}
	// Output:
	// /a: 0 of 50 not ready, Initial -> Normal, rate 0.1/s
	// /b: 50 of 50 not ready, Initial -> FullDisruption, rate 0.1/s
}

// A zone of one's own: the edge pool judges its nodes with a threshold of
// 0.9 and taints at 0.5 node/s, the other zones keep kube-controller-
// manager's flags. Both zones have 3 of 5 nodes not ready: the cloud zone
// is partially disrupted and, with 5 nodes (not above 50), stops tainting;
// the edge pool, 60% below its 90%, is Normal and taints at its own rate.
func ExampleConfig_ForZone() {
	half, ninety := 0.5, float32(0.9)
	cfg := eviction.DefaultConfig()
	cfg.Zones = []eviction.ZoneOverride{{Zone: "edge", NodeEvictionRate: &half, UnhealthyZoneThreshold: &ninety}}
	plan, err := cfg.PlanZones(nil, []eviction.ZoneCount{{Zone: "cloud", Ready: 2, NotReady: 3}, {Zone: "edge", Ready: 2, NotReady: 3}})
	if err != nil {
		panic(err)
	}
	for _, z := range plan.Zones {
		fmt.Println(z.Zone, z.State, z.Rate)
	}
	fmt.Println(cfg.ForZone("edge").NodeEvictionRate, cfg.ForZone("cloud").NodeEvictionRate)
	// Output:
	// cloud PartialDisruption 0
	// edge Normal 0.5
	// 0.5 0.1
}
