package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/taints"
)

// The simulated cluster's objects go to the node lifecycle controller
// (nodelifecycle.Controller) as an informer would bring them, and its
// actions come back as writes to those objects and as events.

// syncNode tells the controller about node i as it now is.
func (r *run) syncNode(i int) {
	n := &r.nodes[i]
	if n.deleted {
		r.ctl.DeleteNode(n.name)
		return
	}
	r.ctl.UpsertNode(core.Node{Name: n.name, UID: "uid-" + n.name, CreationTimestamp: n.created, Labels: n.labels,
		Annotations: n.annotations, Conditions: n.conds, Taints: n.taints})
}

// syncPod tells the controller about pod pi as it now is: a pod that has
// stopped (killed, evicted, deleted) is terminating.
func (r *run) syncPod(pi int) {
	p := &r.pods[pi]
	cp := core.Pod{Namespace: p.p.Namespace, Name: p.p.Name, UID: p.p.UID, NodeName: r.nodes[p.node].name,
		Tolerations: p.tols, Conditions: podReady[!p.notReady]}
	if p.stoppedAt >= 0 {
		t := r.cfg.Start.Add(p.stoppedAt)
		cp.DeletionTimestamp = &t
	}
	r.ctl.UpsertPod(cp)
}

// podReady holds the two Ready conditions a simulated pod can have,
// shared by every pod (the controller does not modify what it is given).
var podReady = map[bool][]core.PodCondition{
	true:  {{Type: core.PodReady, Status: conditions.True}},
	false: {{Type: core.PodReady, Status: conditions.False}},
}

// step runs the controller at now, carries its actions out, and queues
// its next step. Before the controller's first step, which starts its
// clock at the run's start after every kubelet's first heartbeat, changes
// wait for it.
func (r *run) step(now time.Time) {
	if !r.ctlStarted {
		return
	}
	r.flushRenewals(now, r.curSeq)
	res := r.ctl.StepAll(now)
	r.handle(now, res.Actions)
	r.push(res.Next, evController, 0)
	r.ctlSeq = r.seq
}

// handle applies the controller's actions to the simulated objects and
// records them as events.
func (r *run) handle(now time.Time, acts []nodelifecycle.Action) {
	// The last marking of each node's pods, for the status writes before
	// it (a zone's outage writes tens of thousands at once).
	var lastMarked map[string]int
	for k, a := range acts {
		if a.Kind == nodelifecycle.KindPodsNotReady {
			if lastMarked == nil {
				lastMarked = map[string]int{}
			}
			lastMarked[a.Node] = k
		}
	}
	for k, a := range acts {
		switch a.Kind {
		case nodelifecycle.KindNodeStatus:
			i := r.index[a.Node]
			n := &r.nodes[i]
			if n.bulk && r.err == nil {
				r.err = bulkStatusError(n)
			}
			grace := r.cfg.Controller.NodeMonitorGracePeriod
			if _, ok := conditions.Find(n.conds, conditions.Ready); !ok {
				grace = r.cfg.Controller.NodeStartupGracePeriod
			}
			m, ok := lastMarked[a.Node]
			marked := ok && m > k
			n.setConds(a.Conditions)
			r.stale = true
			r.event(now, "unknown", n.zi, n.name, conditions.ReasonNodeStatusUnknown, "%s: Ready=Unknown, no heartbeat for %v; pods marked NotReady: %v", n.name, grace, marked)
			if r.evalReadiness(now, i) {
				// a readiness rule on Ready: the controller hears of its
				// taint at once, as its informer would
				r.syncNode(i)
				r.later(now, r.step)
			}
		case nodelifecycle.KindPodsNotReady:
			for _, ref := range a.Pods {
				if pi := r.podOf(ref.UID); pi >= 0 {
					r.pods[pi].notReady = true
				}
			}
		case nodelifecycle.KindTaints:
			i := r.index[a.Node]
			n := &r.nodes[i]
			n.taints = taints.Apply(n.taints, a.Add, a.Remove)
			r.stale = true
			if a.Reason == "ConditionTaint" {
				for _, t := range a.Add {
					r.event(now, "noschedule", n.zi, n.name, a.Reason, "%s tainted %s", n.name, t)
				}
				continue
			}
			if len(a.Add) == 0 {
				r.event(now, "untaint", n.zi, n.name, a.Reason, "%s: NoExecute taints removed (%s)", n.name, a.Reason)
			}
			for _, t := range a.Add {
				r.event(now, "taint", n.zi, n.name, a.Reason, "%s tainted %s", n.name, t)
				r.res.Totals.Tainted++
				n.sawNoExecute(t)
			}
		case nodelifecycle.KindHold:
			zi, object := -1, "kube-controller-manager"
			if i, ok := r.index[a.Node]; ok && a.Node != "" {
				zi, object = r.nodes[i].zi, a.Node
			}
			r.event(now, "hold", zi, object, a.Reason, "%s", a.Message)
		case nodelifecycle.KindZone:
			z, ok := r.zoneIdx[a.Zone]
			if !ok {
				continue
			}
			r.event(now, "zone", z, r.zones[z], a.Reason, "zone %s: %s", r.zones[z], a.Message)
			if s, ok := r.ctl.ZoneState(r.zoneKeys[z]); ok {
				r.states[z] = s
			}
		case nodelifecycle.KindSchedule:
			pi := r.podOf(a.Pod.UID)
			if pi < 0 {
				continue
			}
			p := &r.pods[pi]
			p.affected, p.scheduledAt, p.scheduledFrom, p.cancelledAt = true, a.Due.Sub(r.cfg.Start), now.Sub(r.cfg.Start), 0
		case nodelifecycle.KindCancel:
			pi := r.podOf(a.Pod.UID)
			if pi < 0 {
				continue
			}
			p := &r.pods[pi]
			r.res.Totals.Cancelled++
			r.event(now, "cancel", r.nodes[p.node].zi, a.Pod.Key(), a.Reason, "pod %s: scheduled eviction cancelled (%s)", a.Pod.Key(), a.Reason)
			p.cancelledAt = now.Sub(r.cfg.Start)
			p.note().cancelReason = a.Reason
		case nodelifecycle.KindEvict:
			pi := r.podOf(a.Pod.UID)
			if pi < 0 {
				continue
			}
			p := &r.pods[pi]
			detail := ""
			if r.explicit {
				if a.Reason == eviction.TaintManagerEvictionReason {
					detail = fmt.Sprintf("tolerated %s for %v (its tolerationSeconds)", noExecuteTaints(r.nodes[p.node].taints), p.scheduledAt-p.scheduledFrom)
				} else {
					detail = fmt.Sprintf("does not tolerate %s", a.Taint)
				}
			}
			r.remove(now, pi, a.Reason, detail)
		}
	}
}

// noExecuteTaints names a node's NoExecute taints, comma-separated.
func noExecuteTaints(ts []taints.Taint) string {
	var b strings.Builder
	for _, t := range ts {
		if t.Effect == taints.TaintEffectNoExecute {
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t.String())
		}
	}
	return b.String()
}
