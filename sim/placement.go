package sim

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nodelife/nodelife/admission"
	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// Placement of replacement pods (Config.Placement, explicit clusters).
//
// When a controller creates a replacement, it is placed the way
// kube-scheduler would place it, approximately, on a node whose kubelet
// would admit it:
//
//   - the candidates are the nodes that are not deleted, whose Ready
//     condition is True and whose kubelet reaches the API server (a node
//     cut off but not yet marked is left out, where the real scheduler
//     could still pick it);
//   - the scheduler's filters, in its order, the first failing one giving
//     the node's reasons: every NoSchedule and NoExecute taint tolerated
//     ("node(s) had untolerated taint(s)"), node selector and required
//     affinity, host ports, then resources against allocatable minus the
//     pods there, terminating ones included ("Insufficient memory", "Too
//     many pods"), with package admission's NodeInfo;
//   - like the scheduler, it stops looking once it has found
//     max(100, n * max(5, 50 - n/125) / 100) feasible nodes of n (all of
//     them under 100 nodes), starting where the previous placement
//     stopped;
//   - among those, the node with the highest score: twice the spread
//     score (fewer of the workload's running pods in the node's zone than
//     in the fullest zone) plus the least-allocated score (free cpu and
//     memory after the pod, in percent of allocatable, averaged), ties to
//     the node first in name order. kube-scheduler's other scores (image
//     locality, balanced allocation, preferred affinity, inter-pod
//     affinity) are not modelled.
//
// A replacement that fits nowhere stays Pending with a message in the
// scheduler's shape ("0/7 nodes are available: 1 Insufficient cpu, 6
// node(s) had untolerated taint(s).") and is tried again at every timeline
// sample. A placed replacement counts as serving from then on and uses
// room on its node; it is not simulated further.

// placement is the run's view for placing replacements.
type placement struct {
	nis     []*admission.NodeInfo // per node; taints are checked apart
	pods    []*core.Pod           // per pod: its admission view
	pending []int                 // pods whose replacement waits, in order
	next    int                   // the node the next search starts at
	// zoneCount[w][z] counts workload w's pods running in zone z.
	zoneCount [][]int
	scratch   []admission.Failure
}

// reasonTooManyPods is the scheduler's reason for the pod count.
const reasonTooManyPods = "Too many pods"

func (r *run) initPlacement() {
	pl := &placement{nis: make([]*admission.NodeInfo, len(r.nodes)), pods: make([]*core.Pod, len(r.pods))}
	for i := range r.nodes {
		// what placement checks of a node: its labels and room (the taints
		// are the run's own, checked apart)
		src := &r.srcNodes[i]
		pl.nis[i] = admission.NewNodeInfo(core.Node{Name: src.Name, Labels: src.Labels, Allocatable: src.Allocatable}, r.prof.Admission)
	}
	pl.zoneCount = make([][]int, len(r.wls))
	for w := range pl.zoneCount {
		pl.zoneCount[w] = make([]int, len(r.zones))
	}
	// A pod's room on its node is freed by UID (leftNode): the cluster's
	// own core.Pod serves when the run kept its UID (uidFor); other pods
	// get a copy with the run's (a copy each would double what a million
	// pods hold).
	for pi := range r.pods {
		p := &r.pods[pi]
		ap := &r.srcPods[p.src]
		if ap.UID != p.p.UID {
			cp := *ap
			cp.UID = p.p.UID // the run's (uidFor)
			ap = &cp
		}
		pl.pods[pi] = ap
		pl.nis[p.node].AddPod(ap)
		if p.wl >= 0 {
			pl.zoneCount[p.wl][r.nodes[p.node].zi]++
		}
	}
	r.pl = pl
}

// leftNode is pod pi's object leaving its node: its room is free again.
func (r *run) leftNode(pi int) {
	if r.pl != nil {
		r.pl.nis[r.pods[pi].node].RemovePod(r.pl.pods[pi].UID)
	}
}

// stoppedRunning is pod pi no longer running where it was, for the spread.
func (r *run) stoppedRunning(pi int) {
	if p := &r.pods[pi]; r.pl != nil && p.wl >= 0 {
		r.pl.zoneCount[p.wl][r.nodes[p.node].zi]--
	}
}

// wantReplacement is pod pi's controller creating its replacement at now.
func (r *run) wantReplacement(now time.Time, pi int) {
	p := &r.pods[pi]
	if p.replaced >= 0 || p.wanted >= 0 {
		return
	}
	p.wanted = now.Sub(r.cfg.Start)
	r.markChanged(pi)
	if !r.tryPlace(now, pi) {
		r.pl.pending = append(r.pl.pending, pi)
	}
}

// retryPending tries the waiting replacements again, in the order they
// were created.
func (r *run) retryPending(now time.Time) {
	if r.pl == nil || len(r.pl.pending) == 0 {
		return
	}
	r.pl.pending = slices.DeleteFunc(r.pl.pending, func(pi int) bool { return r.tryPlace(now, pi) })
}

// tryPlace places pod pi's replacement, or records why it cannot be.
func (r *run) tryPlace(now time.Time, pi int) bool {
	pl := r.pl
	p := &r.pods[pi]
	repl := *pl.pods[pi]
	repl.NodeName = ""
	repl.UID = r.pods[pi].p.UID + replacementSuffix
	reasons := map[string]int{}
	total := 0
	n := len(r.nodes)
	want := feasibleToFind(n)
	var feasible []int
	req := admission.RequestsOf(&repl, r.prof.Admission) // once, not per node
	i := 0
	for ; i < n && len(feasible) < want; i++ {
		j := (pl.next + i) % n
		nd := &r.nodes[j]
		if nd.deleted {
			continue
		}
		total++
		why := r.filter(now, j, &repl, &req)
		if len(why) == 0 {
			feasible = append(feasible, j)
			continue
		}
		for _, w := range why {
			reasons[w]++
		}
	}
	pl.next = (pl.next + i) % max(n, 1)
	if len(feasible) == 0 { // every node was looked at
		msg := unschedulableMessage(total, reasons)
		if p.notesOr().pending != msg {
			p.note().pending = msg
			r.event(now, "pending", r.nodes[p.node].zi, p.p.Key(), "FailedScheduling", "the replacement of %s: %s", p.p.Key(), msg)
		}
		return false
	}
	// the pod's cpu (millicores) and memory requests, for the scores
	reqs := cgroup.PodRequests(core.Pod{InitContainers: repl.InitContainers, Containers: repl.Containers, Resources: repl.Resources, Overhead: repl.Overhead}, r.prof.QOS)
	cpu, mem := reqs[core.ResourceCPU], reqs[core.ResourceMemory]
	need := [2]int64{cpu.MilliValue(), mem.Value()}
	best, bestScore := -1, -1.0
	for _, j := range feasible {
		s := r.score(j, need, p.wl)
		if s > bestScore || s == bestScore && r.nodes[j].name < r.nodes[best].name {
			best, bestScore = j, s
		}
	}
	placed := repl
	placed.NodeName = r.nodes[best].name
	pl.nis[best].AddPod(&placed)
	if p.wl >= 0 {
		pl.zoneCount[p.wl][r.nodes[best].zi]++
	}
	p.replaced, p.placedOn = now.Sub(r.cfg.Start), best
	r.markChanged(pi)
	if p.notes != nil {
		p.notes.pending = ""
	}
	r.event(now, "scheduled", r.nodes[best].zi, p.p.Key(), "Scheduled", "the replacement of %s placed on %s", p.p.Key(), r.nodes[best].name)
	return true
}

// feasibleToFind is how many feasible nodes kube-scheduler looks for
// among n (numFeasibleNodesToFind with the adaptive percentage).
func feasibleToFind(n int) int {
	const minFeasible = 100
	if n < minFeasible {
		return n
	}
	pct := max(50-n/125, 5)
	return max(n*pct/100, minFeasible)
}

// filter returns why node j cannot take pod q, whose requests are req: the
// reasons of the first failing filter, in the scheduler's order, or none.
func (r *run) filter(now time.Time, j int, q *core.Pod, req *admission.Requests) []string {
	nd := &r.nodes[j]
	if nd.ready != conditions.True || r.isCut(j, now) {
		if untolerated(nd.taints, q.Tolerations) {
			return []string{"node(s) had untolerated taint(s)"}
		}
		return []string{"node(s) were unreachable or not ready"}
	}
	if untolerated(nd.taints, q.Tolerations) {
		return []string{"node(s) had untolerated taint(s)"}
	}
	r.pl.scratch = r.pl.nis[j].FilterRequests(q, req, r.pl.scratch)
	var out []string
	for _, f := range r.pl.scratch {
		switch f.Predicate {
		case admission.PredicateNodeAffinity, admission.PredicateNodePorts:
			return []string{f.Description}
		}
	}
	for _, f := range r.pl.scratch {
		switch {
		case f.Resource == core.ResourcePods:
			out = append(out, reasonTooManyPods)
		case f.Resource != "":
			out = append(out, "Insufficient "+string(f.Resource))
		}
	}
	return out
}

// untolerated reports a NoSchedule or NoExecute taint no toleration covers.
func untolerated(ts []taints.Taint, tols []taints.Toleration) bool {
	_, ok := taints.FindMatchingUntoleratedTaint(ts, tols, func(t taints.Taint) bool {
		return t.Effect == taints.TaintEffectNoSchedule || t.Effect == taints.TaintEffectNoExecute
	})
	return ok
}

// score is twice the spread score plus the least-allocated score of node
// j for a pod of workload wl requesting want (cpu in millicores, memory).
func (r *run) score(j int, want [2]int64, wl int) float64 {
	ni := r.pl.nis[j]
	least := 0.0
	for k, name := range []core.ResourceName{core.ResourceCPU, core.ResourceMemory} {
		used, alloc := ni.Requested(name)
		if alloc > 0 {
			least += 100 * float64(alloc-used-want[k]) / float64(alloc) / 2
		}
	}
	spread := 100.0
	if wl >= 0 {
		counts := r.pl.zoneCount[wl]
		most := slices.Max(counts)
		spread = 100 * float64(most-counts[r.nodes[j].zi]) / float64(most+1)
	}
	return 2*spread + least
}

// unschedulableMessage is kube-scheduler's FitError message: "0/N nodes
// are available: " and the reasons with their node counts, sorted.
func unschedulableMessage(total int, reasons map[string]int) string {
	parts := make([]string, 0, len(reasons))
	for why, n := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", n, why))
	}
	sort.Strings(parts)
	msg := fmt.Sprintf("0/%d nodes are available", total)
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, ", ")
	}
	return msg + "."
}
