// Command tour walks through what nodelife decides, on built-in data, and
// prints a readable report. Run it with:
//
//	go run ./examples/tour
//
// Today it covers the taints and conditions packages; each package adds its
// scenario here as it lands. The output is the same on every run.
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nodelife/nodelife/conditions"
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
	return tourConditions(w)
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
	noExecute := func(t taints.Taint) bool { return t.Effect == taints.TaintEffectNoExecute }
	fmt.Fprintln(w, "pods against the node:")
	for _, p := range pods {
		tols := p.tolerations
		if p.daemonSet {
			for _, t := range taints.DaemonSetTolerations(false) {
				tols, _ = taints.AddOrUpdateToleration(tols, t)
			}
		}
		tols = taints.WithDefaultTolerationSeconds(tols, taints.DefaultTolerationSeconds, taints.DefaultTolerationSeconds)
		fmt.Fprintf(w, "  %-14s schedule: %-45s run: %s\n", p.name, verdict(nodeTaints, tols, hard), evictVerdict(nodeTaints, tols, noExecute))
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

// evictVerdict says what a NoExecute taint does to the pod if it runs there:
// the shortest tolerationSeconds of the tolerations that match a NoExecute
// taint decides; none means it stays.
func evictVerdict(nodeTaints []taints.Taint, tols []taints.Toleration, noExecute func(taints.Taint) bool) string {
	if t, found := taints.FindMatchingUntoleratedTaint(nodeTaints, tols, noExecute); found {
		return "evicted at once (" + t.String() + ")"
	}
	var least *int64
	for _, t := range taints.Filter(nodeTaints, noExecute) {
		for _, tol := range tols {
			if tol.ToleratesTaint(t) {
				if tol.TolerationSeconds != nil && (least == nil || *tol.TolerationSeconds < *least) {
					least = tol.TolerationSeconds
				}
				break
			}
		}
	}
	switch {
	case least == nil:
		return "stays"
	case *least <= 0:
		return "evicted at once (tolerationSeconds <= 0)"
	}
	return fmt.Sprintf("evicted after %ds", *least)
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
