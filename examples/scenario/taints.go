package scenario

import (
	"fmt"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/taints"
)

// Taints follows one node's taints: it registers with
// --register-with-taints, the node controller marks it unreachable, an
// operator edits its taints with kubectl's grammar, and four pods are
// checked against the result, for scheduling (the scheduler's filter) and
// for running (the taint eviction controller).
func Taints(Options) (Report, error) {
	r := Report{Name: "taints", Title: "a node registers, is tainted, and pods are checked against it"}

	const flag = "example.com/dedicated=db:NoSchedule,example.com/maintenance:PreferNoSchedule"
	nodeTaints, err := taints.Parse(flag)
	if err != nil {
		return r, err
	}
	if err := taints.ValidateTaints(nodeTaints); err != nil {
		return r, err
	}
	r.fact("taint", "n1", "", "kubelet --register-with-taints=%s", flag)
	r.fact("taint", "n1", "", "  node taints: %v", nodeTaints)

	// The node stops answering: the node lifecycle controller adds the
	// unreachable taints (NoSchedule at once, NoExecute rate-limited).
	for _, t := range []taints.Taint{
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoSchedule},
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute},
	} {
		nodeTaints, _ = taints.AddOrUpdate(nodeTaints, t)
	}
	r.fact("taint", "n1", "NodeUnreachable", "node controller marks the node unreachable")
	r.fact("taint", "n1", "", "  node taints: %v", nodeTaints)

	// An operator edits taints the way `kubectl taint` does.
	specs := []string{"example.com/maintenance-", "example.com/dedicated=cache:NoSchedule"}
	add, remove, err := taints.ParseTaints(specs)
	if err != nil {
		return r, err
	}
	before := nodeTaints
	nodeTaints = taints.Apply(nodeTaints, add, remove)
	plus, minus := taints.Diff(before, nodeTaints)
	r.fact("taint", "n1", "", "kubectl taint nodes n1 %s %s", specs[0], specs[1])
	r.fact("taint", "n1", "", "  added %v, removed %v (values changed in place are not in a diff)", plus, minus)
	r.fact("taint", "n1", "", "  node taints: %v", nodeTaints)

	// Pods, with the tolerations admission gives them.
	type pod struct {
		name        string
		daemonSet   bool
		tolerations []taints.Toleration
	}
	sixty := int64(60)
	pods := []pod{
		{name: "web"},
		{name: "cache", tolerations: []taints.Toleration{
			{Key: "example.com/dedicated", Operator: taints.TolerationOpEqual, Value: "cache", Effect: taints.TaintEffectNoSchedule},
			{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &sixty},
		}},
		{name: "node-exporter", daemonSet: true},
		{name: "debug", tolerations: []taints.Toleration{{Operator: taints.TolerationOpExists}}},
	}
	hard := func(t taints.Taint) bool { return t.Effect != taints.TaintEffectPreferNoSchedule }
	r.fact("taint", "", "", "pods against the node:")
	for _, p := range pods {
		tols := p.tolerations
		if p.daemonSet {
			for _, t := range taints.DaemonSetTolerations(false) {
				tols, _ = taints.AddOrUpdateToleration(tols, t)
			}
		}
		tols = taints.WithDefaultTolerationSeconds(tols, taints.DefaultTolerationSeconds, taints.DefaultTolerationSeconds)
		schedule := "yes"
		if t, found := taints.FindMatchingUntoleratedTaint(nodeTaints, tols, hard); found {
			schedule = "no, untolerated " + t.String()
		}
		d := eviction.NoExecuteConfig{}.Plan(Start, nodeTaints, core.Pod{Name: p.name, Tolerations: tols}, nil)
		run := "stays"
		switch d.Action {
		case eviction.NoExecuteEvictNow:
			run = "evicted at once (" + d.Reason + " " + d.Taint.String() + ")"
		case eviction.NoExecuteSchedule:
			run = fmt.Sprintf("evicted after %ds", int(d.At.Sub(Start).Seconds()))
		}
		r.fact("pod", p.name, d.Reason, "  %-14s schedule: %-45s run: %s", p.name, schedule, run)
	}
	return r, nil
}
