package gc

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/clock"
	"github.com/nodelife/nodelife/internal/podorder"
	"github.com/nodelife/nodelife/taints"
)

// Pod GC controller defaults (kube-controller-manager).
const (
	// DefaultTerminatedPodThreshold is --terminated-pod-gc-threshold.
	DefaultTerminatedPodThreshold = 12500
	// DefaultQuarantine is how long a node missing from the node list
	// stays quarantined before its pods count as orphaned.
	DefaultQuarantine = 40 * time.Second
	// PodGCPeriod is how often the controller runs.
	PodGCPeriod = 20 * time.Second
)

// terminated reports upstream's isPodTerminated: any phase but Pending,
// Running and Unknown, so an empty phase counts.
func terminated(p *core.Pod) bool {
	return p.Phase != core.PodPending && p.Phase != core.PodRunning && p.Phase != core.PodUnknown
}

// outOfService reports whether the node is not ready and has the
// out-of-service taint key (any value or effect).
func outOfService(n *core.Node) bool {
	return !n.Ready() && n.HasTaintKey(taints.TaintNodeOutOfService)
}

// PodGCConfig configures the pod GC controller.
//
// The zero value keeps every terminated pod and
// quarantines missing nodes for DefaultQuarantine.
type PodGCConfig struct {
	// TerminatedPodThreshold is --terminated-pod-gc-threshold: the number
	// of terminated pods kept; 0 or less disables only that step.
	TerminatedPodThreshold int
	// Quarantine is how long a node must be missing before its pods are
	// orphaned (40s upstream, not configurable there); 0 means
	// DefaultQuarantine.
	Quarantine time.Duration
}

// DefaultPodGCConfig returns upstream's settings: threshold 12500,
// quarantine 40s.
func DefaultPodGCConfig() PodGCConfig {
	return PodGCConfig{TerminatedPodThreshold: DefaultTerminatedPodThreshold, Quarantine: DefaultQuarantine}
}

// Validate returns an error for a negative Quarantine.
func (c PodGCConfig) Validate() error {
	if c.Quarantine < 0 {
		return wrap(ErrInvalidPolicy, fmt.Sprintf("Quarantine %v must not be negative", c.Quarantine))
	}
	return nil
}

// PodGCReason says which step deletes a pod; the values are the labels of
// upstream's force-delete metrics.
type PodGCReason string

// The pod GC steps, in the order they run.
const (
	// PodGCTerminated: more terminated pods than the threshold.
	PodGCTerminated PodGCReason = "terminated"
	// PodGCOutOfService: terminating on a not-ready node with the
	// out-of-service taint.
	PodGCOutOfService PodGCReason = "terminating-out-of-service"
	// PodGCOrphaned: bound to a node that was deleted.
	PodGCOrphaned PodGCReason = "orphaned"
	// PodGCUnscheduled: terminating and never scheduled.
	PodGCUnscheduled PodGCReason = "terminating-unscheduled"
)

// PodDeletion is one pod to force delete.
type PodDeletion struct {
	// Pod is the pod.
	Pod core.Pod
	// Reason is the step that deletes it.
	Reason PodGCReason
	// SetFailed asks to patch status.phase to Failed first: the phase is
	// neither Succeeded nor Failed.
	SetFailed bool
	// Condition, when not nil, goes into the same status patch (orphaned
	// pods: DisruptionTarget, reason DeletionByPodGC).
	Condition *core.PodCondition
	// Message says why, for a log line.
	Message string
}

// GracePeriodSeconds is the grace period of every pod GC deletion.
const GracePeriodSeconds = 0

// PodGCInput is what one pod GC run sees.
type PodGCInput struct {
	// Pods are all pods (the pod lister's content).
	Pods []core.Pod
	// Nodes are all nodes (the node lister's content).
	Nodes []core.Node
	// NodeExists, when not nil, is the live GET of a node that the node
	// list lacks after its quarantine: only a node it reports absent
	// orphans its pods; an error keeps them for the next run. Nil trusts
	// the node list.
	NodeExists func(name string) (bool, error)
}

// PodGCPlan is one pod GC run.
type PodGCPlan struct {
	// Deletions lists the pods to force delete, step by step (terminated,
	// out-of-service, orphaned, unscheduled); each pod appears once, under
	// the first step that picks it.
	Deletions []PodDeletion
	// DeletedNodes are the nodes found deleted this run, by name.
	DeletedNodes []string
	// Quarantined lists the nodes still in quarantine, by name.
	Quarantined []string
	// Next is the end of the earliest quarantine still running; zero when
	// none. The controller runs every PodGCPeriod regardless.
	Next time.Time
}

// PodGC is the pod GC controller as a synchronous state machine: its only
// state is the quarantine of nodes missing from the node list.
//
// There is no zero value: use NewPodGC.
type PodGC struct {
	cfg     PodGCConfig
	missing map[string]time.Time
	last    time.Time
}

// NewPodGC returns a pod GC with no node in quarantine, or the error of
// cfg.Validate.
func NewPodGC(cfg PodGCConfig) (*PodGC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Quarantine = cmp.Or(cfg.Quarantine, DefaultQuarantine)
	return &PodGC{cfg: cfg, missing: map[string]time.Time{}}, nil
}

// Step is one run of the pod GC controller at now (a now earlier than one
// already seen counts as that time). Its steps, in order:
//
//  1. Terminated pods (phase not Pending, Running or Unknown): when there
//     are more than TerminatedPodThreshold (> 0), the excess goes, evicted
//     pods first, then oldest, then by name.
//  2. Terminating pods (deletionTimestamp set) on a node that is not Ready
//     and carries the out-of-service taint key; pods on nodes missing from
//     the list are skipped.
//  3. Orphaned pods: a node a pod is bound to but the node list lacks is
//     quarantined; once the quarantine has run (40s) and the node is still
//     missing (and NodeExists, if set, says absent) every pod on it goes,
//     marked Failed with condition DisruptionTarget (reason
//     DeletionByPodGC, message "PodGC: node no longer exists") when not
//     terminal yet.
//  4. Terminating pods that are not scheduled.
//
// Every deletion has grace period 0 and, for a pod neither Succeeded nor
// Failed, a status patch to Failed first. Upstream sorts only steps 1 and 2
// and may pick a pod twice in one run (the second delete finds it gone);
// here every step uses the step-1 order, ending with namespace and UID, and
// a pod is deleted once. Duplicate pods (namespace and name) or nodes
// return an error and change nothing.
func (g *PodGC) Step(now time.Time, in PodGCInput) (PodGCPlan, error) {
	var plan PodGCPlan
	nodes := make(map[string]*core.Node, len(in.Nodes))
	for i := range in.Nodes {
		if _, dup := nodes[in.Nodes[i].Name]; dup {
			return plan, wrap(ErrInvalidInput, fmt.Sprintf("duplicate node %q", in.Nodes[i].Name))
		}
		nodes[in.Nodes[i].Name] = &in.Nodes[i]
	}
	if err := checkPods(in.Pods); err != nil {
		return plan, err
	}
	now = clock.Clamp(&g.last, now, true)

	// The deletions are collected as indices and written out once their
	// number is known: at cluster scale the plan is most of the cost.
	type pick struct {
		i      int
		reason PodGCReason
		cond   *core.PodCondition
		msg    string
	}
	picked := make([]bool, len(in.Pods))
	var picks []pick
	// add picks the pods idx, in order, skipping those already picked.
	add := func(idx []int, reason PodGCReason, cond *core.PodCondition, msg string) {
		for _, i := range idx {
			if !picked[i] {
				picked[i] = true
				picks = append(picks, pick{i, reason, cond, msg})
			}
		}
	}

	// 1. Terminated pods above the threshold.
	if t := g.cfg.TerminatedPodThreshold; t > 0 {
		var idx []int
		for i := range in.Pods {
			if terminated(&in.Pods[i]) {
				idx = append(idx, i)
			}
		}
		if n := len(idx) - t; n > 0 {
			sortForDeletion(in.Pods, idx)
			add(idx[:n], PodGCTerminated, nil,
				fmt.Sprintf("%d terminated pods, above the threshold %d: deleting the %d evicted or oldest", len(idx), t, n))
		}
	}

	// 2. Terminating pods on out-of-service nodes.
	var idx []int
	for i := range in.Pods {
		p := &in.Pods[i]
		if n, ok := nodes[p.NodeName]; ok && p.Deleting() && outOfService(n) {
			idx = append(idx, i)
		}
	}
	sortForDeletion(in.Pods, idx)
	add(idx, PodGCOutOfService, nil, "terminating on a node that is not ready and has the "+taints.TaintNodeOutOfService+" taint")

	// 3. Orphaned pods.
	deleted := g.discoverDeleted(now, in, nodes)
	plan.DeletedNodes = deleted
	if len(deleted) > 0 {
		idx = idx[:0]
		for i := range in.Pods {
			if _, ok := slices.BinarySearch(deleted, in.Pods[i].NodeName); ok {
				idx = append(idx, i)
			}
		}
		sortForDeletion(in.Pods, idx)
		add(idx, PodGCOrphaned, &core.PodCondition{Type: core.DisruptionTarget, Status: conditions.True, Reason: "DeletionByPodGC", Message: "PodGC: node no longer exists"},
			"its node no longer exists")
	}

	// 4. Unscheduled terminating pods.
	idx = idx[:0]
	for i := range in.Pods {
		if p := &in.Pods[i]; p.Deleting() && p.NodeName == "" {
			idx = append(idx, i)
		}
	}
	sortForDeletion(in.Pods, idx)
	add(idx, PodGCUnscheduled, nil, "terminating and not scheduled to any node")

	if len(picks) > 0 {
		plan.Deletions = make([]PodDeletion, len(picks))
		for k, pk := range picks {
			p := &in.Pods[pk.i]
			d := PodDeletion{Pod: *p, Reason: pk.reason, Message: pk.msg}
			if !p.Phase.Terminated() {
				d.SetFailed, d.Condition = true, pk.cond
			}
			plan.Deletions[k] = d
		}
	}
	for name, since := range g.missing {
		plan.Quarantined = append(plan.Quarantined, name)
		if end := since.Add(g.cfg.Quarantine); plan.Next.IsZero() || end.Before(plan.Next) {
			plan.Next = end
		}
	}
	slices.Sort(plan.Quarantined)
	return plan, nil
}

// discoverDeleted quarantines the nodes pods are bound to that the list
// lacks, and returns, sorted, those whose quarantine is over and that are
// still missing. A node whose quarantine is over leaves the quarantine
// either way: if it goes missing again, a new quarantine starts.
func (g *PodGC) discoverDeleted(now time.Time, in PodGCInput, nodes map[string]*core.Node) []string {
	for i := range in.Pods {
		name := in.Pods[i].NodeName
		if _, ok := nodes[name]; name == "" || ok {
			continue
		}
		if _, ok := g.missing[name]; !ok {
			g.missing[name] = now
		}
	}
	var ready []string
	for name, since := range g.missing {
		if !since.Add(g.cfg.Quarantine).After(now) {
			ready = append(ready, name)
		}
	}
	slices.Sort(ready)
	deleted := ready[:0]
	for _, name := range ready {
		delete(g.missing, name)
		if _, ok := nodes[name]; ok {
			continue
		}
		if in.NodeExists != nil {
			if exists, err := in.NodeExists(name); err != nil || exists {
				continue
			}
		}
		deleted = append(deleted, name)
	}
	return deleted
}

// sortForDeletion sorts idx, indices into pods, by comparePodsForDeletion,
// comparing extracted keys (evicted, creation time) first so that a large
// sort does not chase pointers.
func sortForDeletion(pods []core.Pod, idx []int) {
	if len(idx) < 2 {
		return
	}
	type key struct {
		evicted bool
		created instant
		i       int
	}
	keys := make([]key, len(idx))
	for k, i := range idx {
		keys[k] = key{pods[i].Evicted(), at(pods[i].CreationTimestamp), i}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.evicted != b.evicted {
			if a.evicted {
				return -1
			}
			return 1
		}
		if c := a.created.compare(b.created); c != 0 {
			return c
		}
		return comparePodsForDeletion(&pods[a.i], &pods[b.i])
	})
	for k := range keys {
		idx[k] = keys[k].i
	}
}

// comparePodsForDeletion is upstream's byEvictionAndCreationTimestamp
// (see internal/podorder).
func comparePodsForDeletion(a, b *core.Pod) int {
	return podorder.Compare(
		podorder.Key{Evicted: a.Evicted(), Created: a.CreationTimestamp, Name: a.Name, Namespace: a.Namespace, UID: a.UID},
		podorder.Key{Evicted: b.Evicted(), Created: b.CreationTimestamp, Name: b.Name, Namespace: b.Namespace, UID: b.UID})
}

// checkPods rejects two pods with one namespace and name.
func checkPods(pods []core.Pod) error {
	type key struct{ ns, name string }
	seen := make(map[key]struct{}, len(pods))
	for i := range pods {
		k := key{pods[i].Namespace, pods[i].Name}
		if _, dup := seen[k]; dup {
			return wrap(ErrInvalidInput, fmt.Sprintf("duplicate pod %s/%s", k.ns, k.name))
		}
		seen[k] = struct{}{}
	}
	return nil
}
