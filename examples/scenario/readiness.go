package scenario

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/readiness"
	"github.com/nodelife/nodelife/taints"
)

// Readiness follows a continuous node readiness rule through a CNI crash:
// the rule "cni" taints readiness.k8s.io/cni:NoExecute every worker whose
// CNI agent does not report cni.example.com/NetworkReady=True. Three zones
// of six workers are ready when the rule is created (first as a dry run).
// At +60s the agent crashes on a third of zone b (b-1 and b-2): their node
// events taint them, and the taint eviction planner deletes the pods that
// do not tolerate the taint at once (the default not-ready and unreachable
// tolerations do not cover readiness taints), schedules the database pod
// that tolerates it for 120s, and keeps the agents (a DaemonSet tolerating
// it). Ready stays True, so zone b stays Normal for the node lifecycle
// controller. b-2's agent is back at +150s, the database pod's time is up
// at +180s, b-1's agent is back at +240s.
func Readiness(Options) (Report, error) {
	r := Report{Name: "readiness", Title: "a continuous readiness rule on 3 zones x 6 workers; the CNI agent crashes on 2 nodes of zone b at +60s"}
	const netReady = conditions.Type("cni.example.com/NetworkReady")
	rule := readiness.Rule{Name: "cni", UID: "5e1f0c2a", EnforcementMode: readiness.Continuous, DryRun: true,
		Conditions: []readiness.ConditionRequirement{{Type: netReady, RequiredStatus: conditions.True}},
		Taint:      taints.Taint{Key: "readiness.k8s.io/cni", Effect: taints.TaintEffectNoExecute},
		NodeSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "node-role.kubernetes.io/control-plane", Operator: metav1.LabelSelectorOpDoesNotExist}}}}
	if err := rule.Validate(); err != nil {
		return r, err
	}
	warnings, err := readiness.WebhookCreate(rule, nil)
	if err != nil {
		return r, err
	}
	for _, w := range warnings {
		r.fact("rule", rule.Name, "Warning", "webhook: %s", w)
	}

	var nodes []core.Node
	index := map[string]int{}
	for _, zone := range []string{"a", "b", "c"} {
		for i := 1; i <= 6; i++ {
			name := fmt.Sprintf("%s-%d", zone, i)
			index[name] = len(nodes)
			nodes = append(nodes, core.Node{Name: name, Labels: map[string]string{"topology.kubernetes.io/zone": zone},
				Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}, {Type: netReady, Status: conditions.True}}})
		}
	}
	seconds := int64(120)
	agentTol := taints.Toleration{Key: rule.Taint.Key, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute}
	dbTol := agentTol
	dbTol.TolerationSeconds = &seconds
	admitted := func(extra ...taints.Toleration) []taints.Toleration {
		return taints.WithDefaultTolerationSeconds(extra, taints.DefaultTolerationSeconds, taints.DefaultTolerationSeconds)
	}
	type pod struct {
		node string
		pod  core.Pod
	}
	pods := []pod{
		{"b-1", core.Pod{Namespace: "shop", Name: "web-b1", Tolerations: admitted()}},
		{"b-1", core.Pod{Namespace: "shop", Name: "db-0", Tolerations: admitted(dbTol)}},
		{"b-1", core.Pod{Namespace: "kube-system", Name: "cni-agent-b1", Tolerations: admitted(agentTol)}},
		{"b-2", core.Pod{Namespace: "shop", Name: "web-b2", Tolerations: admitted()}},
		{"b-2", core.Pod{Namespace: "kube-system", Name: "cni-agent-b2", Tolerations: admitted(agentTol)}},
		{"b-3", core.Pod{Namespace: "shop", Name: "web-b3", Tolerations: admitted()}},
	}
	gone := map[string]bool{}
	scheduled := map[string]eviction.Scheduled{}
	var tainted, evicted int64
	// evictions plans the pods on node (only the one keyed only, when set)
	evictions := func(at time.Duration, node core.Node, only string) {
		now := Start.Add(at)
		for _, p := range pods {
			if p.node != node.Name || gone[p.pod.Key()] || (only != "" && p.pod.Key() != only) {
				continue
			}
			var prev *eviction.Scheduled
			if s, ok := scheduled[p.pod.Key()]; ok {
				prev = &s
			}
			d := eviction.NoExecuteConfig{}.Plan(now, node.Taints, p.pod, prev)
			switch d.Action {
			case eviction.NoExecuteEvictNow:
				gone[p.pod.Key()] = true
				delete(scheduled, p.pod.Key())
				evicted++
				r.at(at, "evict", p.pod.Key(), d.Reason, "%s deleted (%s, %s)", p.pod.Key(), d.Reason, d.Taint)
			case eviction.NoExecuteSchedule:
				scheduled[p.pod.Key()] = d.Scheduled
				r.at(at, "evict", p.pod.Key(), d.Reason, "%s to be deleted at %s (tolerates %s for %ds)", p.pod.Key(), Offset(d.At.Sub(Start)), d.Taint.Key, seconds)
			case eviction.NoExecuteCancel:
				delete(scheduled, p.pod.Key())
				r.at(at, "evict", p.pod.Key(), d.Reason, "%s: deletion cancelled", p.pod.Key())
			default:
				if len(node.Taints) > 0 && prev == nil {
					r.at(at, "evict", p.pod.Key(), d.Reason, "%s stays (tolerates %s)", p.pod.Key(), rule.Taint.Key)
				}
			}
		}
	}

	dry := readiness.DryRun(rule, nodes)
	r.at(0, "rule", rule.Name, "DryRun", "rule %s created as a dry run: %d nodes match; %s", rule.Name, dry.AffectedNodes, dry.Summary)
	rule.DryRun = false
	plan := readiness.PlanRule(rule, nodes, nil, readiness.Options{})
	r.at(0, "rule", rule.Name, "", "dry run off: evaluated on %d nodes, %d actions", len(plan.Applied), len(plan.Actions))
	evaluated := map[string]bool{}
	for _, e := range plan.Evaluations {
		evaluated[e.Node] = true
	}

	type step struct {
		at     time.Duration
		node   string
		status conditions.Status
	}
	steps := []step{
		{time.Minute, "b-1", conditions.False}, {time.Minute, "b-2", conditions.False},
		{150 * time.Second, "b-2", conditions.True}, {180 * time.Second, "", ""}, {240 * time.Second, "b-1", conditions.True},
	}
	for _, s := range steps {
		if s.node == "" { // a scheduled eviction comes due
			for _, p := range pods {
				if sch, ok := scheduled[p.pod.Key()]; ok && !sch.At.After(Start.Add(s.at)) {
					evictions(s.at, nodes[index[p.node]], p.pod.Key())
				}
			}
			continue
		}
		i := index[s.node]
		old := nodes[i]
		n := old
		n.Conditions = []conditions.Condition{old.Conditions[0], {Type: netReady, Status: s.status}}
		r.at(s.at, "condition", n.Name, "", "%s reports %s=%s", n.Name, netReady, s.status)
		if !readiness.NeedsEvaluation(old, n) {
			continue
		}
		np := readiness.PlanNode([]readiness.Rule{rule}, n, func(string) bool { return evaluated[n.Name] }, readiness.Options{})
		for _, a := range np.Actions {
			if a.Kind == readiness.KindAddTaint {
				tainted++
			}
			r.at(s.at, "taint", a.Node, a.Reason, "%s: %s", a.Node, a.Message)
		}
		nodes[i] = np.Node
		evictions(s.at, np.Node, "")
		if s.at == time.Minute && s.node == "b-2" {
			var ready []conditions.Status
			for _, nd := range nodes[index["b-1"] : index["b-6"]+1] {
				c, _ := conditions.Find(nd.Conditions, conditions.Ready)
				ready = append(ready, c.Status)
			}
			_, state := eviction.ComputeZoneState(ready, 0.55)
			r.at(s.at, "zone", "b", string(state), "zone b is %s for the node lifecycle controller: its nodes' Ready is unchanged", state)
		}
	}
	r.figure("nodes tainted", tainted)
	r.figure("pods evicted", evicted)
	r.figure("pods kept", int64(len(pods))-evicted)
	return r, nil
}
