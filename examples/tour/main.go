// Command tour walks through what nodelife decides, on built-in data, and
// prints a readable report. Run it with:
//
//	go run ./examples/tour
//
// Today it covers the taints, conditions, eviction, shutdown, gc (cascading deletion) and
// cgroup packages; each package adds its scenario here as it lands. The output is the same on every run.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apitypes "k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/taints"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tour:", err)
		os.Exit(1)
	}
}

// pod is the little a scenario needs to know about a pod.
type pod struct {
	name        string
	daemonSet   bool
	tolerations []taints.Toleration
}

func run(w io.Writer) error {
	if err := tourTaints(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := tourConditions(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := tourEviction(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := tourShutdown(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := tourCascade(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return tourCgroup(w)
}

// tourCascade deletes a Deployment under each propagation policy and
// prints the garbage collector's cascade round by round.
func tourCascade(w io.Writer) error {
	fmt.Fprintln(w, "== gc: kubectl delete deployment web --cascade=<policy> (web -> ReplicaSet web-5d8f -> pods web-5d8f-a, web-5d8f-b)")
	yes := true
	ctl := func(apiVersion, kind, name, uid string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: apitypes.UID(uid), Controller: &yes, BlockOwnerDeletion: &yes}}
	}
	objs := []gc.Object{
		{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", UID: "d-1"},
		{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "shop", Name: "web-5d8f", UID: "rs-1", OwnerReferences: ctl("apps/v1", "Deployment", "web", "d-1")},
		{APIVersion: "v1", Kind: "Pod", Namespace: "shop", Name: "web-5d8f-a", UID: "pod-a", OwnerReferences: ctl("apps/v1", "ReplicaSet", "web-5d8f", "rs-1")},
		{APIVersion: "v1", Kind: "Pod", Namespace: "shop", Name: "web-5d8f-b", UID: "pod-b", OwnerReferences: ctl("apps/v1", "ReplicaSet", "web-5d8f", "rs-1")},
	}
	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan} {
		res, err := gc.PlanCascade(objs, "d-1", policy, gc.OwnerOptions{})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %s (%d collector rounds):\n", policy, res.Rounds)
		for _, s := range res.Steps {
			detail := ""
			switch s.Op {
			case gc.OpDelete:
				detail = fmt.Sprintf(" (%s) %s", s.Policy, s.Reason)
			case gc.OpRemoveFinalizer:
				detail = " " + s.Finalizer
			case gc.OpRemoveRefs:
				detail = fmt.Sprintf(" %v", s.Owners)
			}
			fmt.Fprintf(w, "    round %d: %s %s%s\n", s.Round, s.Op, s.Object, detail)
		}
		kept := []string{"nothing"}
		if len(res.Remaining) > 0 {
			kept = kept[:0]
		}
		for _, o := range res.Remaining {
			kept = append(kept, o.Ref().String())
		}
		fmt.Fprintf(w, "    left: %s\n", strings.Join(kept, ", "))
	}
	return nil
}

func tourTaints(w io.Writer) error {
	fmt.Fprintln(w, "== taints: a node registers, is tainted, and pods are checked against it")

	// 1. The kubelet registers with --register-with-taints.
	const flag = "example.com/dedicated=db:NoSchedule,example.com/maintenance:PreferNoSchedule"
	nodeTaints, err := taints.Parse(flag)
	if err != nil {
		return err
	}
	if err := taints.ValidateTaints(nodeTaints); err != nil {
		return err
	}
	fmt.Fprintf(w, "kubelet --register-with-taints=%s\n  node taints: %v\n", flag, nodeTaints)

	// 2. The node stops answering: the node lifecycle controller adds the
	// unreachable taints (NoSchedule at once, NoExecute rate-limited).
	for _, t := range []taints.Taint{
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoSchedule},
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute},
	} {
		nodeTaints, _ = taints.AddOrUpdate(nodeTaints, t)
	}
	fmt.Fprintf(w, "node controller marks the node unreachable\n  node taints: %v\n", nodeTaints)

	// 3. An operator edits taints the way `kubectl taint` does.
	specs := []string{"example.com/maintenance-", "example.com/dedicated=cache:NoSchedule"}
	add, remove, err := taints.ParseTaints(specs)
	if err != nil {
		return err
	}
	before := nodeTaints
	nodeTaints = taints.Apply(nodeTaints, add, remove)
	plus, minus := taints.Diff(before, nodeTaints)
	fmt.Fprintf(w, "kubectl taint nodes n1 %s %s\n  added %v, removed %v (values changed in place are not in a diff)\n  node taints: %v\n",
		specs[0], specs[1], plus, minus, nodeTaints)

	// 4. Pods, with the tolerations admission gives them.
	sixty := int64(60)
	pods := []pod{
		{name: "web", tolerations: nil},
		{name: "cache", tolerations: []taints.Toleration{
			{Key: "example.com/dedicated", Operator: taints.TolerationOpEqual, Value: "cache", Effect: taints.TaintEffectNoSchedule},
			{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &sixty},
		}},
		{name: "node-exporter", daemonSet: true},
		{name: "debug", tolerations: []taints.Toleration{{Operator: taints.TolerationOpExists}}},
	}
	hard := func(t taints.Taint) bool { return t.Effect != taints.TaintEffectPreferNoSchedule }
	fmt.Fprintln(w, "pods against the node:")
	for _, p := range pods {
		tols := p.tolerations
		if p.daemonSet {
			for _, t := range taints.DaemonSetTolerations(false) {
				tols, _ = taints.AddOrUpdateToleration(tols, t)
			}
		}
		tols = taints.WithDefaultTolerationSeconds(tols, taints.DefaultTolerationSeconds, taints.DefaultTolerationSeconds)
		fmt.Fprintf(w, "  %-14s schedule: %-45s run: %s\n", p.name, verdict(nodeTaints, tols, hard), evictVerdict(nodeTaints, tols))
	}
	return nil
}

// verdict says whether the scheduler would place the pod on the node.
func verdict(nodeTaints []taints.Taint, tols []taints.Toleration, filter func(taints.Taint) bool) string {
	if t, found := taints.FindMatchingUntoleratedTaint(nodeTaints, tols, filter); found {
		return "no, untolerated " + t.String()
	}
	return "yes"
}

// evictVerdict says what the taint eviction controller does to the pod if
// it runs on the node (eviction.NoExecuteConfig.Plan, upstream defaults).
func evictVerdict(nodeTaints []taints.Taint, tols []taints.Toleration) string {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	d := eviction.NoExecuteConfig{}.Plan(nodeTaints, eviction.Pod{Tolerations: tols}, nil, now)
	switch d.Action {
	case eviction.NoExecuteEvictNow:
		return "evicted at once (" + d.Reason + " " + d.Taint.String() + ")"
	case eviction.NoExecuteSchedule:
		return fmt.Sprintf("evicted after %ds", int(d.At.Sub(now).Seconds()))
	}
	return "stays"
}

// tourConditions follows one node through the node lifecycle controller's
// monitor: it posts Ready and renews its lease, goes silent at +10s, turns
// Unknown after the 50s grace period, gets the unreachable NoSchedule taint,
// and comes back.
func tourConditions(w io.Writer) error {
	fmt.Fprintln(w, "== conditions: a node goes silent and comes back (monitor every 5s, grace 50s)")
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	monitor, err := conditions.NewMonitor(conditions.DefaultMonitorConfig())
	if err != nil {
		return err
	}
	kubelet := conditions.KubeletInput{Ready: conditions.ReadyInput{Capacity: []string{"cpu", "memory", "pods"}}}
	node := conditions.Node{Name: "node-b1", CreationTimestamp: start.Add(-time.Hour)}
	var nodeTaints []taints.Taint
	for s := 0; s <= 100; s += 5 {
		now := start.Add(time.Duration(s) * time.Second)
		silent := s > 10 && s < 80
		if !silent { // the kubelet posts status and renews its lease
			node.Conditions, _ = conditions.SetKubeletConditions(node.Conditions, kubelet, now)
			node.HasLease, node.LeaseRenewTime = true, now
		}
		for _, u := range monitor.Pass([]conditions.Node{node}, now) {
			if u.Health.Write {
				node.Conditions = u.Health.Conditions
			}
			if u.Health.Event != nil {
				fmt.Fprintf(w, "  +%3ds event %s; mark pods NotReady: %v\n", s, u.Health.Event.Reason, u.Health.MarkPodsNotReady)
			}
		}
		add, remove := taints.ReconcileConditionTaints(nodeTaints, node.Conditions, false, now)
		nodeTaints = taints.Apply(nodeTaints, add, remove)
		ready, _ := conditions.Find(node.Conditions, conditions.Ready)
		if len(add) > 0 || len(remove) > 0 || s == 0 || s == 10 {
			fmt.Fprintf(w, "  +%3ds Ready=%-7s %-18s taints %v\n", s, ready.Status, ready.Reason, nodeTaints)
		}
	}
	return nil
}

// tourEviction follows a zone outage through the eviction package: three
// zones of 50 nodes, zone b unreachable from the pass at +105s (its last
// heartbeat at +50s, grace 50s). The zone is FullDisruption while a and c
// are healthy, so it is tainted at the normal 0.1 nodes/s; each tainted
// node's pods are then evicted when their tolerationSeconds run out.
func tourEviction(w io.Writer) error {
	fmt.Fprintln(w, "== eviction: zone b of three goes dark (rate 0.1 nodes/s, pods tolerate 300s)")
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	cfg := eviction.DefaultConfig()
	zoneOf := func(z string) string {
		return eviction.ZoneKey(map[string]string{eviction.LabelTopologyRegion: "eu", eviction.LabelTopologyZone: z})
	}
	var nodes []eviction.ZoneNode
	for _, z := range []string{"a", "b", "c"} {
		for i := 0; i < 50; i++ {
			nodes = append(nodes, eviction.ZoneNode{Name: fmt.Sprintf("%s-%02d", z, i), Zone: zoneOf(z), Ready: conditions.True})
		}
	}
	report := func(s int, plan eviction.DisruptionPlan) {
		for _, z := range plan.Zones {
			if z.SetRate {
				fmt.Fprintf(w, "  +%3ds zone %s: %s -> %s, tainting rate %g/s\n", s, eviction.ZoneName(z.Zone), z.Previous, z.State, z.Rate)
			}
		}
	}
	plan, err := cfg.PlanDisruption(nil, nodes)
	if err != nil {
		return err
	}
	report(0, plan)
	tainter, err := eviction.NewNoExecuteTainter(cfg, eviction.QueueOptions{})
	if err != nil {
		return err
	}
	tainter.ApplyPlan(plan, nil, at(0))

	// +105s: the monitor rewrites zone b's Ready to Unknown.
	for i := range nodes {
		if nodes[i].Zone == zoneOf("b") {
			nodes[i].Ready = conditions.Unknown
		}
	}
	if plan, err = cfg.PlanDisruption(plan.Next, nodes); err != nil {
		return err
	}
	report(105, plan)
	tainter.ApplyPlan(plan, nil, at(105))

	// +110s: the next pass observes Unknown and queues the nodes; the
	// tainting pass runs every 100ms.
	for _, n := range nodes {
		if n.Zone == zoneOf("b") {
			tainter.Observe(eviction.TaintNode{Name: n.Name, Zone: n.Zone}, conditions.Unknown, at(110))
		}
	}
	pod := eviction.Pod{Namespace: "shop", Tolerations: taints.DefaultNoExecuteTolerations()}
	fast := eviction.Pod{Namespace: "shop", Name: "checkout-b-00", Tolerations: []taints.Toleration{{
		Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: ptr(30)}}}
	unreachable := func(string) (conditions.Status, bool) { return conditions.Unknown, true }
	tainted := 0
	for now := at(110); now.Before(at(141)); now = now.Add(eviction.NodeTaintPassPeriod) {
		for _, u := range tainter.Pass(now, unreachable) {
			tainted++
			pod.Name = "web-" + u.Node
			d := eviction.NoExecuteConfig{}.Plan([]taints.Taint{u.Add}, pod, nil, now)
			fmt.Fprintf(w, "  +%3ds %s tainted %s; pod %s evicted at +%ds\n", int(now.Sub(start).Seconds()), u.Node, u.Add.Key, d.Pod.Key(), int(d.At.Sub(start).Seconds()))
			if u.Node == "b-00" {
				d = eviction.NoExecuteConfig{}.Plan([]taints.Taint{u.Add}, fast, nil, now)
				fmt.Fprintf(w, "        pod %s tolerates 30s: evicted at +%ds\n", fast.Key(), int(d.At.Sub(start).Seconds()))
			}
		}
	}
	next, _ := tainter.NextPass(at(141))
	fmt.Fprintf(w, "  ... %d of 50 nodes tainted by +140s; the next at +%ds, the last at +%ds\n",
		tainted, int(next.Sub(start).Seconds()), 110+49*10)

	// Then zones a and c go dark too: every zone is down, which looks like a
	// control-plane outage, so all tainting stops and the taints come off.
	for i := range nodes {
		nodes[i].Ready = conditions.Unknown
	}
	if plan, err = cfg.PlanDisruption(plan.Next, nodes); err != nil {
		return err
	}
	fmt.Fprintf(w, "  +%3ds every zone FullDisruption: %s (strip NoExecute taints: %v)\n", 200, plan.Reason, plan.StripNoExecuteTaints)
	report(200, plan)
	return nil
}

func tourShutdown(w io.Writer) error {
	fmt.Fprintln(w, "== shutdown: a node shuts down with the seed's priority classes (a 10s, b 180s, c 120s, rest 60s)")
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	cfg := shutdown.Config{ShutdownGracePeriodByPodPriority: []shutdown.PhaseConfig{
		{Priority: 100000, ShutdownGracePeriodSeconds: 10},
		{Priority: 10000, ShutdownGracePeriodSeconds: 180},
		{Priority: 1000, ShutdownGracePeriodSeconds: 120},
		{Priority: 0, ShutdownGracePeriodSeconds: 60},
	}}
	m, err := shutdown.NewManager(cfg)
	if err != nil {
		return err
	}
	d := shutdown.DecideInhibitDelay(shutdown.DefaultInhibitDelayMax, m.InhibitDelay())
	fmt.Fprintf(w, "  inhibit delay %v: logind allows %v, write %s (%s)\n", d.Required, d.Current, d.Path, strings.TrimSpace(strings.Split(d.DropIn, "\n")[2]))
	prio := func(v int32) *int32 { return &v }
	pods := []shutdown.Pod{
		{Namespace: "shop", Name: "web"},
		{Namespace: "shop", Name: "cron", TerminationGracePeriodSeconds: ptr(10)},
		{Namespace: "shop", Name: "batch", Priority: prio(1000)},
		{Namespace: "shop", Name: "search", Priority: prio(10000), TerminationGracePeriodSeconds: ptr(30)},
		{Namespace: "shop", Name: "payments", Priority: prio(100000), TerminationGracePeriodSeconds: ptr(30)},
	}
	show := func(st shutdown.Step) {
		var kills []string
		for _, k := range st.Kills {
			kills = append(kills, fmt.Sprintf("%s (%ds)", k.Pod.Key(), k.GracePeriodSeconds))
		}
		var end time.Time
		for _, p := range st.Phases {
			end = p.At
			verb := map[shutdown.PhaseEventKind]string{shutdown.PhaseStarted: "started", shutdown.PhaseSkipped: "skipped",
				shutdown.PhaseCompleted: "completed: all its pods are gone", shutdown.PhaseTimedOut: "timed out"}[p.Kind]
			line := fmt.Sprintf("  +%3ds phase %d %s", int(p.At.Sub(start).Seconds()), p.Priority, verb)
			if p.Kind == shutdown.PhaseStarted {
				line += ": kill " + strings.Join(kills, ", ")
			}
			fmt.Fprintln(w, line)
		}
		if st.ReleaseInhibitor {
			fmt.Fprintf(w, "  +%3ds inhibitor lock released; the node powers off (worst case was +%v)\n", int(end.Sub(start).Seconds()), m.Plan().Total)
		}
	}
	st := m.Start(at(0), pods)
	fmt.Fprintf(w, "  +  0s Ready=False %q; new pods rejected: %s\n", m.ShutdownStatus(), m.Admit(shutdown.Pod{}).Reason)
	show(st)
	// When each pod is gone; batch ignores SIGTERM and runs out its phase.
	gone := []struct {
		key string
		s   int
	}{{"shop/cron", 8}, {"shop/web", 45}, {"shop/search", 185}, {"shop/payments", 190}}
	for _, g := range gone {
		for !st.Next.IsZero() && !st.Next.After(at(g.s)) {
			st = m.Tick(st.Next)
			show(st)
		}
		st = m.PodTerminated(at(g.s), g.key)
		show(st)
	}
	return nil
}

func ptr(v int64) *int64 { return &v }

func tourCgroup(w io.Writer) error {
	fmt.Fprintln(w, "== cgroup: a Burstable pod (250m/1Gi requested, 500m/2Gi limit) on a cgroup v2 node with 40Gi of memory and 5Gi of swap")
	q := resource.MustParse
	app := cgroup.Container{Name: "app", Resources: cgroup.Resources{
		Requests: cgroup.ResourceList{cgroup.ResourceCPU: q("250m"), cgroup.ResourceMemory: q("1Gi")},
		Limits:   cgroup.ResourceList{cgroup.ResourceCPU: q("500m"), cgroup.ResourceMemory: q("2Gi")},
	}}
	p := cgroup.Pod{UID: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", Containers: []cgroup.Container{app}}
	class := cgroup.PodQOS(p, cgroup.QOSOptions{})
	root, err := cgroup.NodeAllocatableRoot("/", true)
	if err != nil {
		return err
	}
	name, err := cgroup.PodName(root, class, p.UID)
	if err != nil {
		return err
	}
	for _, d := range []cgroup.Driver{cgroup.DriverCgroupfs, cgroup.DriverSystemd} {
		path, err := d.Path(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-8s %s\n", d, path)
	}
	memQoS := cgroup.DefaultMemoryQoSConfig()
	rc := cgroup.ResourceConfigForPod(p, cgroup.PodConfigOptions{CPUPeriod: uint64(cgroup.QuotaPeriod), MemoryQoS: &memQoS})
	shares := *rc.CPUShares
	fmt.Fprintf(w, "  QoS %s: cpu.shares %d -> cpu.weight %d (kubelet, linear; %d under runc 1.3.2+), cpu.max %q, memory.max %d\n",
		class, shares, cgroup.WeightLinear.Weight(shares), cgroup.WeightQuadratic.Weight(shares),
		cgroup.FormatCPUMax(*rc.CPUQuota, int64(*rc.CPUPeriod)), *rc.Memory)
	mv := memQoS.Container(class, app.Resources.Requests.Memory(), app.Resources.Limits.Memory(), 0)
	fmt.Fprintf(w, "  MemoryQoS: memory.high %d (request + 0.9 x (limit - request), whole 4KiB pages)\n", mv.High)
	swap, err := cgroup.ContainerSwap(p, app, cgroup.SwapConfig{Behavior: cgroup.LimitedSwap, Version: cgroup.V2, Controller: true,
		NodeMemory: 40 << 30, NodeSwap: 5 << 30}, cgroup.QOSOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  swap: %s, memory.swap.max %s\n", swap.Reason, swap.SwapMax)
	return nil
}
