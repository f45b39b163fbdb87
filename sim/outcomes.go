package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/taints"
)

// Outcome accounting: what happened to each pod (its fate, when its
// object went, when its controller could replace it), the timeline samples
// and each workload's lost replicas.

// remove is the taint eviction controller's deletion of pod pi.
func (r *run) remove(now time.Time, pi int, reason, detail string) {
	p := &r.pods[pi]
	n := &r.nodes[p.node]
	r.res.Totals.Evicted++
	r.event(now, "evict", n.zi, p.p.Key(), reason, "pod %s on %s deleted (%s)", p.p.Key(), n.name, reason)
	r.stop(now, pi, "evicted", reason, detail)
	if !r.explicit {
		return
	}
	// The deletion starts: the pod is terminating, a ReplicaSet replaces
	// it now, and the pod object goes once the kubelet has stopped it.
	p.terminating = true
	if p.replace == replaceOnDelete {
		r.replaceNow(now, pi)
	}
	if !r.isCut(p.node, now) {
		r.goneAfterGrace(now, pi)
	}
}

// stop records that pod pi stopped running at now, and why.
func (r *run) stop(now time.Time, pi int, fate, rule, detail string) {
	p := &r.pods[pi]
	if p.stoppedAt < 0 {
		r.stoppedRunning(pi)
		r.stoppedPods = append(r.stoppedPods, int32(pi))
	}
	p.stoppedAt = now.Sub(r.cfg.Start)
	n := p.note()
	n.fate, n.rule, n.detail = fate, rule, detail
	p.affected = true
	r.evicted[r.nodes[p.node].zi]++
	r.syncPod(pi)
	switch fate {
	case "killed":
		r.res.Totals.Killed++
		r.event(now, "kill", r.nodes[p.node].zi, p.p.Key(), rule, "pod %s killed: %s", p.p.Key(), detail)
	case "pressure-evicted":
		r.res.Totals.PressureEvicted++
		r.event(now, "pressure-evict", r.nodes[p.node].zi, p.p.Key(), rule, "pod %s evicted by the kubelet: %s", p.p.Key(), detail)
	}
}

// fail records that pod pi reached phase Failed (its kill is over).
func (r *run) fail(now time.Time, pi int) {
	p := &r.pods[pi]
	if p.failed || p.gone >= 0 {
		return
	}
	p.failed = true
	if p.replace == replaceOnGone {
		// The StatefulSet controller deletes a failed pod, which goes at
		// once (terminal pods have no grace period), and recreates it.
		r.markGone(now, pi)
	}
	if p.replace != replaceNever {
		r.replaceNow(now, pi)
	}
}

// goneAfterGrace removes pod pi's object once its kubelet has stopped it.
func (r *run) goneAfterGrace(now time.Time, pi int) {
	src := &r.srcPods[r.pods[pi].src]
	grace := int64(30)
	if g := src.TerminationGracePeriodSeconds; g != nil {
		grace = *g
	}
	r.later(now.Add(time.Duration(grace)*time.Second), func(t time.Time) { r.markGone(t, pi) })
}

// reconnected lets the kubelet of node i finish the deletions that started
// while it was cut off.
func (r *run) reconnected(now time.Time, i int) {
	if !r.explicit {
		return
	}
	for _, pi := range r.nodes[i].pods {
		if p := &r.pods[pi]; p.terminating && p.gone < 0 {
			r.goneAfterGrace(now, pi)
		}
	}
}

func (r *run) markGone(now time.Time, pi int) {
	p := &r.pods[pi]
	if p.gone >= 0 {
		return
	}
	p.gone = now.Sub(r.cfg.Start)
	r.leftNode(pi)
	if p.replace != replaceNever {
		r.replaceNow(now, pi)
	}
}

func (r *run) replaceNow(now time.Time, pi int) {
	if r.pl != nil {
		r.wantReplacement(now, pi)
		return
	}
	if p := &r.pods[pi]; p.replaced < 0 {
		p.replaced = now.Sub(r.cfg.Start)
		r.markChanged(pi)
	}
}

func (r *run) sample(now time.Time) {
	s := Sample{At: now.Sub(r.cfg.Start), Zones: make([]ZoneSample, len(r.zones))}
	if n := len(r.res.Timeline); n > 0 && !r.stale && !checkSamples {
		// No node changed its Ready, taints or existence since the last
		// sample: its counts stand.
		copy(s.Zones, r.res.Timeline[n-1].Zones)
	} else {
		r.countNodes(s.Zones)
		if n > 0 && !r.stale && checkSamples {
			for z := range s.Zones {
				got, was := s.Zones[z], r.res.Timeline[n-1].Zones[z]
				if (got.Ready != was.Ready || got.NotReady != was.NotReady || got.Unknown != was.Unknown || got.Tainted != was.Tainted) && r.err == nil {
					r.err = fmt.Errorf("sim: zone %s's nodes changed at %v without a mark: %+v, were %+v", r.zones[z], s.At, got, was)
				}
			}
		}
	}
	r.stale = false
	for z := range s.Zones {
		s.Zones[z].Zone, s.Zones[z].Evicted, s.Zones[z].State = r.zones[z], r.evicted[z], r.states[z]
	}
	r.res.Timeline = append(r.res.Timeline, s)
	if r.explicit {
		r.retryPending(now)
		r.sampleWorkloads(now)
	}
}

// countNodes counts the nodes of each zone in zs by Ready status and
// NoExecute taint.
func (r *run) countNodes(zs []ZoneSample) {
	for i := range r.nodes {
		n := &r.nodes[i]
		if n.deleted {
			continue
		}
		zc := &zs[n.zi]
		switch n.ready {
		case conditions.True:
			zc.Ready++
		case conditions.False:
			zc.NotReady++
		default:
			zc.Unknown++
		}
		for _, t := range n.taints {
			if t.Effect == taints.TaintEffectNoExecute && (t.Key == taints.TaintNodeUnreachable || t.Key == taints.TaintNodeNotReady) {
				zc.Tainted++
				break
			}
		}
	}
}

// checkSamples, set by tests, counts the nodes at every sample and fails
// the run when a count changed without a mark (run.stale).
var checkSamples = false

// lostNow reports whether pod pi serves nowhere: neither it runs on a
// Ready node nor has its controller replaced it. serving[i] reports that
// node i is Ready and not deleted.
func (r *run) lostNow(pi int, serving []bool) bool {
	p := &r.pods[pi]
	if p.replaced >= 0 {
		return false
	}
	return p.stoppedAt >= 0 || !serving[p.node]
}

// sampleWorkloads adds up, at each sample, the time pods and workloads
// have been lost since the previous sample, and records the changes.
func (r *run) sampleWorkloads(now time.Time) {
	at := now.Sub(r.cfg.Start)
	step := r.cfg.SampleEvery
	first := r.serving == nil
	if first {
		r.serving, r.wasServing = make([]bool, len(r.nodes)), make([]bool, len(r.nodes))
	}
	r.serving, r.wasServing = r.wasServing, r.serving
	for i := range r.nodes {
		n := &r.nodes[i]
		r.serving[i] = !n.deleted && n.ready == conditions.True
	}
	// Each pod lost at the last sample adds a step to its lost time here,
	// and each one whose replacement waited then to its workload's
	// LostForRoom. A pod's steps are added when it is looked at again
	// (from lostSince on) or at the end (settleLost); a workload's from
	// its count of such pods.
	for w, n := range r.wlRoomNow {
		r.wls[w].LostForRoom += time.Duration(n) * step
	}
	// A pod is lost when not replaced and stopped or on a node not
	// serving. Its node is set when the run begins and a pod once replaced
	// stays so: only a pod stopped, marked (replaced or its replacement
	// wanted, dirtyPods) or on a node that began or stopped serving since
	// the last sample can have changed; the others stay as they were.
	r.sampleSeq++
	seq := r.sampleSeq
	visit := func(pi int32) {
		p := &r.pods[pi]
		if p.sampled == seq {
			return
		}
		p.sampled = seq
		lost := r.lostNow(int(pi), r.serving)
		pending := lost && p.wanted >= 0
		if p.wasLost {
			p.lost += time.Duration(seq-p.lostSince) * step
		}
		if lost {
			p.lostSince, p.affected = seq, true
		}
		if p.wl >= 0 {
			r.wlLostNow[p.wl] += boolInt(lost) - boolInt(p.wasLost)
			r.wlRoomNow[p.wl] += boolInt(pending) - boolInt(p.wasPending)
		}
		p.wasLost, p.wasPending = lost, pending
	}
	for _, pi := range r.dirtyPods {
		visit(pi)
	}
	r.dirtyPods = r.dirtyPods[:0]
	for _, pi := range r.stoppedPods {
		visit(pi)
	}
	for i := range r.nodes {
		if first || r.serving[i] != r.wasServing[i] {
			for _, pi := range r.nodes[i].pods {
				visit(int32(pi))
			}
		}
	}
	for w := range r.wls {
		wl := &r.wls[w]
		prev := 0
		if k := len(wl.Lost); k > 0 {
			prev = wl.Lost[k-1].Lost
		}
		wl.LostTime += time.Duration(prev) * step
		if r.wlLostNow[w] != prev {
			wl.Lost = append(wl.Lost, LostPoint{At: at, Lost: r.wlLostNow[w]})
		}
		wl.MaxLost = max(wl.MaxLost, r.wlLostNow[w])
		wl.MostPending = max(wl.MostPending, r.wlRoomNow[w])
	}
}

// settleLost adds to each pod still lost at the last sample the steps
// sampleWorkloads has not added yet.
func (r *run) settleLost() {
	for pi := range r.pods {
		if p := &r.pods[pi]; p.wasLost {
			p.lost += time.Duration(r.sampleSeq-p.lostSince) * r.cfg.SampleEvery
			p.lostSince = r.sampleSeq
		}
	}
}

// markChanged notes that pod pi was replaced or its replacement wanted:
// the next sample looks at it.
func (r *run) markChanged(pi int) { r.dirtyPods = append(r.dirtyPods, int32(pi)) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// outcomes writes the pods' and workloads' results.
func (r *run) outcomes() {
	r.settleLost()
	touched := make([]bool, len(r.wls))
	for pi := range r.pods {
		p := &r.pods[pi]
		if !p.affected {
			continue
		}
		n := &r.nodes[p.node]
		src := &r.srcPods[p.src]
		nt := p.notesOr()
		o := Outcome{Pod: p.p.Key(), Node: n.name, Zone: r.zones[n.zi], Workload: WorkloadOf(src), Fate: nt.fate, At: p.stoppedAt,
			Rule: nt.rule, Detail: nt.detail, GoneAt: p.gone, ReplacedAt: p.replaced, Lost: p.lost, Pending: nt.pending}
		if p.placedOn >= 0 {
			o.PlacedOn = r.nodes[p.placedOn].name
		}
		if o.Fate == "" {
			o.Fate, o.At = "spared", 0
			o.Rule, o.Detail = r.spared(pi)
		}
		if p.wl >= 0 {
			touched[p.wl] = true
		}
		r.res.Pods = append(r.res.Pods, o)
	}
	for w := range r.wls {
		if touched[w] {
			r.res.Workloads = append(r.res.Workloads, r.wls[w])
		}
	}
	slices.SortFunc(r.res.Workloads, func(a, b Workload) int { return strings.Compare(a.Name, b.Name) })
}

// spared says why pod pi, whose node was affected, was not removed.
func (r *run) spared(pi int) (rule, detail string) {
	p := &r.pods[pi]
	n := &r.nodes[p.node]
	switch {
	case p.cancelledAt > 0:
		return "EvictionCancelled", fmt.Sprintf("its eviction, due at %v, was cancelled at %v (%s)", p.scheduledAt, p.cancelledAt, p.notesOr().cancelReason)
	case p.scheduledAt > 0:
		return "EvictionPending", fmt.Sprintf("its eviction is due at %v, after the end of the run", p.scheduledAt)
	case len(n.noExecute) > 0:
		return "Tolerated", fmt.Sprintf("tolerates %s with no tolerationSeconds", noExecuteTaints(n.noExecute))
	}
	if n.pressured {
		if r.srcPods[p.src].IsCritical() {
			return "CriticalPod", "under memory pressure, but critical pods are never evicted by the kubelet"
		}
		return "NotEvicted", "under memory pressure, but the eviction manager relieved it with pods ranked before this one"
	}
	if n.deleted || n.off {
		return "NotRemoved", "its node is gone, and nothing removed the pod in the run"
	}
	return "NodeNotTainted", fmt.Sprintf("its node was not Ready for a while but never NoExecute-tainted (zone %s: %s)", r.zones[n.zi], r.states[n.zi])
}
