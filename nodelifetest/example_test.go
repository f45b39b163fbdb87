package nodelifetest_test

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"

	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/taints"
)

// A kubelet config checked against generated pods. Its authors believe two
// things of it: production pods (priority 1000 and up) get 30 s to stop
// when the node shuts down, and under memory pressure the kubelet evicts
// every batch pod before any production pod. The first holds on every
// generated pod list; the second does not, and the search finds a
// counterexample and shrinks it (dropping pods while it still fails): the
// kubelet ranks pods whose memory use exceeds their request before
// priority, so a production pod over its request goes before a batch pod
// within its own. (Pods without a usage reading, which the kubelet ranks
// before all others, and critical pods, which it never evicts, are left
// out of the search.)
func Example_kubeletConfig() {
	shutdownCfg := shutdown.Config{ShutdownGracePeriodByPodPriority: []shutdown.PhaseConfig{
		{Priority: 0, ShutdownGracePeriodSeconds: 10},
		{Priority: 1000, ShutdownGracePeriodSeconds: 30},
		{Priority: core.SystemCriticalPriority, ShutdownGracePeriodSeconds: 10},
	}}
	opts := nodelifetest.Options{MinPriority: 0, MaxPriority: 1999, MaxPods: 6}
	type drawn struct {
		pods  []core.Pod
		stats pressure.Stats // usage readings by pod UID
	}
	lists := rapid.Custom(func(t *rapid.T) drawn {
		pods := nodelifetest.Pods(opts).Draw(t, "pods")
		return drawn{pods, nodelifetest.PodStats(pods).Draw(t, "stats")}
	})
	production := func(p *core.Pod) bool { return p.Priority != nil && *p.Priority >= 1000 }

	// Claim 1: every production pod is killed in a phase of 30 s.
	shutdownHolds := true
	for seed := 0; seed < 2000; seed++ {
		plan, _ := shutdownCfg.Plan(lists.Example(seed).pods)
		for _, ph := range plan.Phases {
			for _, pp := range ph.Pods {
				if pp.Priority >= 1000 && ph.ShutdownGracePeriodSeconds < 30 {
					shutdownHolds = false
				}
			}
		}
	}
	fmt.Println("production pods get 30 s at shutdown in 2000 generated pod lists:", shutdownHolds)

	// Claim 2: the first pod evicted for memory.available is a batch pod
	// whenever there is one.
	for seed := 0; ; seed++ {
		d := lists.Example(seed)
		rank := func(ps []core.Pod) []pressure.Ranked {
			ranked, _ := pressure.Rank(pressure.SignalMemoryAvailable, pressure.LayoutSingle, ps, d.stats, pressure.RankOptions{})
			return ranked
		}
		fails := func(ps []core.Pod) bool {
			ranked := rank(ps)
			hasBatch := slices.ContainsFunc(ps, func(p core.Pod) bool { return !production(&p) && !p.IsCritical() })
			return hasBatch && len(ranked) > 0 && production(ranked[0].Pod)
		}
		var ps []core.Pod
		for _, p := range d.pods {
			if !p.IsCritical() && d.stats[p.UID] != nil { // critical pods are never evicted; pods without a reading go first anyway
				ps = append(ps, p)
			}
		}
		if !fails(ps) {
			continue
		}
		for shrunk := true; shrunk; {
			shrunk = false
			for i := range ps {
				if smaller := slices.Delete(slices.Clone(ps), i, i+1); fails(smaller) {
					ps, shrunk = smaller, true
					break
				}
			}
		}
		ranked := rank(ps)
		fmt.Println("counterexample: evicted first under memory pressure, in order:")
		for _, r := range ranked {
			if r.Stats == nil {
				fmt.Printf("  %s priority %d, no usage reading\n", r.Pod.Key(), r.Priority)
				continue
			}
			fmt.Printf("  %s priority %d, memory request %d bytes, working set %d bytes\n",
				r.Pod.Key(), r.Priority, r.Request/1000, r.Usage/1000)
		}
		return
	}
	// Output:
	// production pods get 30 s at shutdown in 2000 generated pod lists: true
	// counterexample: evicted first under memory pressure, in order:
	//   b/p0 priority 1957, memory request 0 bytes, working set 104857600 bytes
	//   a/p1 priority 196, memory request 1025 bytes, working set 1 bytes
}

// A custom toleration policy checked against generated outages. The
// policy gives every pod 600 s of unreachable:NoExecute, meaning "no pod
// is evicted within ten minutes of its node's trouble". Run through the
// node lifecycle controller over generated scenarios, it fails: a node
// that shuts down posts Ready=False, the controller taints it
// not-ready:NoExecute, which the policy forgot, and the pods go at once.
// With not-ready added the claim holds over every generated scenario.
func Example_tolerationPolicy() {
	ten := int64(600)
	policy := func(withNotReady bool) []taints.Toleration {
		tols := []taints.Toleration{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &ten}}
		if withNotReady {
			tols = append(tols, taints.Toleration{Key: taints.TaintNodeNotReady, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &ten})
		}
		return tols
	}
	scenarios := nodelifetest.Scenarios(nodelifetest.Options{Zones: 3, MaxNodes: 6})
	check := func(withNotReady bool, cases int) (string, bool) {
		for seed := 0; seed < cases; seed++ {
			s := scenarios.Example(seed)
			for i := range s.Pods {
				s.Pods[i].Tolerations = policy(withNotReady)
			}
			h, err := s.Run(nodelifecycle.DefaultConfig(), nodelifetest.RunOptions{})
			if err != nil {
				return err.Error(), false
			}
			for _, e := range h.Evictions {
				// The node's trouble began with the earliest outage or
				// shutdown that started before the eviction; the message
				// names every one that had.
				at := e.At.Sub(s.Start)
				began := time.Duration(-1)
				var troubles []string
				for _, f := range s.Faults {
					if (f.Kind == nodelifetest.FaultOutage || f.Kind == nodelifetest.FaultShutdown) && slices.Contains(f.Nodes, e.Node) && f.From <= at {
						troubles = append(troubles, f.String())
						if began < 0 || f.From < began {
							began = f.From
						}
					}
				}
				if began < 0 || at-began < 10*time.Minute {
					return fmt.Sprintf("%s evicted from %s at +%v, after %s", e.Pod, e.Node, at, strings.Join(troubles, " and ")), false
				}
			}
		}
		return "", true
	}
	msg, ok := check(false, 500)
	fmt.Println("unreachable only:", ok, msg)
	_, ok = check(true, 500)
	fmt.Println("unreachable and not-ready:", ok)
	// Output:
	// unreachable only: false a/p1 evicted from b-0 at +5s, after Shutdown [b-0] +2s..+23s
	// unreachable and not-ready: true
}

// A hand-written scenario: zone b's only node loses the API server from
// +10 s to +200 s. Its pod tolerates unreachable for 30 s. The node's last
// renewal is at +0 s; the monitor pass at +55 s is the first more than the
// 50 s grace later and marks it Unknown (with the unreachable:NoSchedule
// condition taint); the tainting pass of the same instant (its 100 ms ticks
// fall on every monitor pass, which nodelife runs first) finds zone b's
// token and adds unreachable:NoExecute, and the pod goes 30 s after that,
// at +85 s. At +200 s the kubelet posts
// Ready=True and both taints come off; every check holds.
func ExampleScenario_Run() {
	thirty := int64(30)
	s := nodelifetest.Scenario{
		Cluster:  nodelifetest.Clusters(nodelifetest.Options{Zones: 2, MaxNodes: 2}).Example(0),
		Faults:   []nodelifetest.Fault{{Kind: nodelifetest.FaultOutage, Nodes: []string{"b-0"}, From: 10 * time.Second, To: 200 * time.Second}},
		Duration: 5 * time.Minute,
	}
	s.Pods = []core.Pod{{Namespace: "shop", Name: "web", UID: "u1", NodeName: "b-0", Phase: core.PodRunning,
		Conditions:  []core.PodCondition{{Type: core.PodReady, Status: conditions.True}},
		Tolerations: []taints.Toleration{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &thirty}}}}
	cfg := nodelifecycle.DefaultConfig()
	h, err := s.Run(cfg, nodelifetest.RunOptions{})
	if err != nil {
		panic(err)
	}
	for _, c := range h.Taints[len(s.Nodes):] {
		fmt.Printf("+%v %s %v\n", c.At.Sub(s.Start), c.Node, c.Taints)
	}
	for _, e := range h.Evictions {
		fmt.Printf("+%v evicted %s\n", e.At.Sub(s.Start), e.Pod)
	}
	fmt.Println(nodelifetest.CheckLifecycle(h, cfg.NodeMonitorGracePeriod), nodelifetest.CheckRecovered(h))
	// Output:
	// +55s b-0 [node.kubernetes.io/unreachable:NoSchedule]
	// +55s b-0 [node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute]
	// +3m20s b-0 [node.kubernetes.io/unreachable:NoSchedule]
	// +3m20s b-0 []
	// +1m25s evicted shop/web
	// <nil> <nil>
}

// CheckTolerations on a planted violation: the pod tolerates unreachable
// for 30 s but goes 20 s after the taint.
func ExampleCheckTolerations() {
	t0 := nodelifetest.Epoch()
	thirty := int64(30)
	taint := taints.Taint{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute}
	h := nodelifetest.History{
		Taints: []nodelifetest.TaintChange{{At: t0, Node: "n1"}, {At: t0.Add(60 * time.Second), Node: "n1", Taints: []taints.Taint{taint}}},
		Evictions: []nodelifetest.Eviction{{At: t0.Add(80 * time.Second), Node: "n1", Pod: "shop/web",
			Tolerations: []taints.Toleration{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &thirty}}}},
	}
	fmt.Println(nodelifetest.CheckTolerations(h))
	// Output:
	// nodelifetest: invariant violated: at 2026-01-01T00:01:20Z: pod shop/web evicted from node n1 20s after its NoExecute taints [node.kubernetes.io/unreachable:NoExecute] appeared at 2026-01-01T00:01:00Z; its tolerations allow 30s
}

// One drawn pod, the library's one pod type that every planner takes:
// the generators are deterministic for a seed (rapid's Example), so the
// same pod comes back every run.
func ExampleOnePod() {
	p := nodelifetest.OnePod(nodelifetest.Options{MaxPods: 1}).Example(7)
	fmt.Println(p.Key(), cgroup.ComputeQOS(p, cgroup.QOSOptions{}), "critical:", p.IsCritical())
	fmt.Println(len(p.Tolerations), "tolerations,", p.Phase)
	// Output:
	// a/p0 Burstable critical: false
	// 2 tolerations, Running
}

// CheckShutdownPlan on the planner's own plan for a two-phase config: the
// database (priority 1000) in the 30 s phase, everything else in the
// first; the check holds, and a plan with the database moved into the
// 10 s phase is caught: its 30 s kill no longer fits.
func ExampleCheckShutdownPlan() {
	cfg := shutdown.Config{ShutdownGracePeriodByPodPriority: []shutdown.PhaseConfig{
		{Priority: 0, ShutdownGracePeriodSeconds: 10}, {Priority: 1000, ShutdownGracePeriodSeconds: 30}}}
	prio := int32(1000)
	pods := []core.Pod{{Namespace: "shop", Name: "db", Priority: &prio, Phase: core.PodRunning}, {Namespace: "shop", Name: "web", Phase: core.PodRunning}}
	plan, _ := cfg.Plan(pods)
	fmt.Println(nodelifetest.CheckShutdownPlan(cfg, pods, plan))
	plan.Phases[0].Pods = append(plan.Phases[0].Pods, plan.Phases[1].Pods...)
	plan.Phases[1].Pods = nil
	fmt.Println(nodelifetest.CheckShutdownPlan(cfg, pods, plan))
	// Output:
	// <nil>
	// nodelifetest: invariant violated: pod shop/db killed with 30s in phase 0 of 10s
}

// Upstream's test machines, for tables of one's own: the 256-CPU, 8-NUMA
// box of upstream's CPU manager tests, and its allocation of 64 CPUs
// (upstream's cpu_assignment_test row: 30 whole cores from the first three
// NUMA nodes, then two from the fourth).
func ExampleUpstreamCPUTopologies() {
	topo := nodelifetest.UpstreamCPUTopologies()["topoDualSocketMultiNumaPerSocketHT"]
	m, err := cpu.NewMachine(topo)
	if err != nil {
		fmt.Println(err)
		return
	}
	got, err := m.TakePacked(m.CPUs(), 64, cpu.TakeOptions{})
	fmt.Println(topo.NumCPUs, "CPUs,", topo.NumNUMANodes, "NUMA nodes:", got, err)
	// Output:
	// 80 CPUs, 4 NUMA nodes: 0-31,40-71 <nil>
}

// CheckMemoryState on a planted violation: a node reserving more than it
// can give.
func ExampleCheckMemoryState() {
	st := checkpoint.MemoryState{MachineState: map[int]*checkpoint.NUMANodeState{0: {
		MemoryMap: map[string]*checkpoint.MemoryTable{"memory": {TotalMemSize: 8 << 30, Allocatable: 7 << 30, Free: 1 << 30, Reserved: 7 << 30}},
		Cells:     []int{0}}}}
	fmt.Println(nodelifetest.CheckMemoryState(st))
	// Output:
	// nodelifetest: invariant violated: NUMA node 0 memory: free 1073741824 + reserved 7516192768 is not the allocatable 7516192768
}
