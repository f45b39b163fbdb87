package sim

import (
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/readiness"
	"github.com/nodelife/nodelife/taints"
)

// ConditionEpisode sets a node condition's status on nodes for a while, as
// an agent (a CNI plugin, a GPU driver's reporter) posts it: "condition X
// goes False on these nodes from T1 to T2". It is what node readiness rules
// (Config.ReadinessRules) react to.
type ConditionEpisode struct {
	// Type and Status are the condition and the status posted at From; at
	// To the condition goes back to the status it had before.
	Type   conditions.Type
	Status conditions.Status
	// Zone picks the zone's first Nodes nodes (0: all of them); Names adds
	// nodes by name.
	Zone  string
	Nodes int
	Names []string
	// From and To bound the episode; To 0 means it lasts to the end.
	From, To time.Duration
}

// readinessState is the simulated Node Readiness Controller.
type readinessState struct {
	rules     []readiness.Rule
	opts      readiness.Options
	evaluated []map[string]bool // per node, the rules that evaluated it
	seen      []core.Node       // per node, as last evaluated
	done      []bool            // per node, evaluated once
}

// readinessStart returns the condition types the rules read that the
// kubelet does not post, at the status the first rule naming each
// requires: every node starts with them (the agents are up when the run
// starts).
func readinessStart(rules []readiness.Rule) []conditions.Condition {
	var out []conditions.Condition
	for _, r := range rules {
		for _, c := range r.Conditions {
			switch c.Type {
			case conditions.Ready, conditions.MemoryPressure, conditions.DiskPressure, conditions.PIDPressure, conditions.NetworkUnavailable:
				continue
			}
			if _, ok := conditions.Find(out, c.Type); !ok {
				out = append(out, conditions.Condition{Type: c.Type, Status: c.RequiredStatus})
			}
		}
	}
	return out
}

// initReadiness sets the rules up: every node gets the rules' condition
// types (readinessStart), and each rule is evaluated on every node when
// the run starts, as a new rule is.
func (r *run) initReadiness() {
	if len(r.cfg.ReadinessRules) == 0 {
		return
	}
	rs := &readinessState{rules: r.cfg.ReadinessRules, opts: r.cfg.ReadinessOptions,
		evaluated: make([]map[string]bool, len(r.nodes)), seen: make([]core.Node, len(r.nodes)), done: make([]bool, len(r.nodes))}
	r.readiness = rs
	start := readinessStart(rs.rules)
	for i := range r.nodes {
		n := &r.nodes[i]
		for _, c := range start {
			if _, ok := conditions.Find(n.conds, c.Type); !ok {
				c.LastTransitionTime, c.LastHeartbeatTime = r.cfg.Start, r.cfg.Start
				n.setConds(append(n.conds, c))
				r.stale = true
			}
		}
	}
	for e, ep := range r.cfg.ConditionEpisodes {
		for _, i := range r.episodeNodes(ep) {
			r.later(r.cfg.Start.Add(ep.From), func(now time.Time) { r.conditionEpisode(now, i, e, true) })
			if ep.To != 0 {
				r.later(r.cfg.Start.Add(ep.To), func(now time.Time) { r.conditionEpisode(now, i, e, false) })
			}
		}
	}
	r.later(r.cfg.Start, func(now time.Time) {
		for i := range r.nodes {
			if r.evalReadiness(now, i) {
				r.syncNode(i)
			}
		}
		r.step(now)
	})
}

// episodeNodes are the nodes an episode covers.
func (r *run) episodeNodes(ep ConditionEpisode) []int {
	var out []int
	if ep.Zone != "" {
		k := 0
		for i := range r.nodes {
			if r.zones[r.nodes[i].zi] == ep.Zone || r.nodes[i].zone == ep.Zone {
				if ep.Nodes == 0 || k < ep.Nodes {
					out = append(out, i)
				}
				k++
			}
		}
	}
	for _, name := range ep.Names {
		if i, ok := r.index[name]; ok {
			out = append(out, i)
		}
	}
	return out
}

// conditionEpisode starts or ends episode e on node i.
func (r *run) conditionEpisode(now time.Time, i, e int, start bool) {
	n := &r.nodes[i]
	if n.off || n.deleted {
		return
	}
	ep := r.cfg.ConditionEpisodes[e]
	status := ep.Status
	if !start {
		status = conditions.True
		for _, c := range readinessStart(r.cfg.ReadinessRules) {
			if c.Type == ep.Type {
				status = c.Status
			}
		}
	}
	conds, _ := conditions.Set(now, n.conds, conditions.Condition{Type: ep.Type, Status: status})
	n.setConds(conds)
	r.stale = true
	r.event(now, "condition", n.zi, n.name, string(ep.Type), "%s posts %s=%s", n.name, ep.Type, status)
	r.evalReadiness(now, i)
	r.syncNode(i)
	r.step(now)
}

// evalReadiness runs the rules on node i when what they read changed
// since they last did (readiness.NeedsEvaluation), writes their taint and
// annotation changes on the node and records them; it reports whether the
// node's taints changed.
func (r *run) evalReadiness(now time.Time, i int) bool {
	rs := r.readiness
	if rs == nil {
		return false
	}
	n := &r.nodes[i]
	if n.deleted {
		return false
	}
	cur := core.Node{Name: n.name, Labels: n.labels, Annotations: n.annotations, Taints: n.taints, Conditions: n.conds}
	if rs.done[i] && !readiness.NeedsEvaluation(rs.seen[i], cur) {
		return false
	}
	seen := rs.evaluated[i]
	plan := readiness.PlanNode(rs.rules, cur, func(rule string) bool { return seen[rule] }, rs.opts)
	if rs.evaluated[i] == nil {
		rs.evaluated[i] = map[string]bool{}
	}
	for _, e := range plan.Evaluations {
		rs.evaluated[i][e.Rule] = true
	}
	rs.done[i], rs.seen[i] = true, plan.Node
	changed := false
	for _, a := range plan.Actions {
		kind := "readiness"
		switch a.Kind {
		case readiness.KindAddTaint:
			changed = true
			if a.Taint.Effect == taints.TaintEffectNoExecute {
				n.sawNoExecute(a.Taint)
				r.res.Totals.Tainted++
			}
			kind = "taint"
		case readiness.KindRemoveTaint:
			changed, kind = true, "untaint"
		}
		r.event(now, kind, n.zi, n.name, a.Reason, "%s: %s", n.name, a.Message)
	}
	n.taints, n.annotations = plan.Node.Taints, plan.Node.Annotations
	r.stale = true
	return changed
}
