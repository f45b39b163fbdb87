package eviction

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/taints"
	"pgregory.net/rapid"
)

var genStatus = rapid.SampledFrom([]conditions.Status{conditions.True, conditions.False, conditions.Unknown, ""})

// naiveZoneState is ComputeZoneState written from the reference's words.
func naiveZoneState(ready []conditions.Status, th float32) ZoneState {
	total, bad := len(ready), 0
	for _, s := range ready {
		if s != conditions.True {
			bad++
		}
	}
	if bad > 0 && bad == total {
		return StateFullDisruption
	}
	if bad > 2 && float32(bad)/float32(total) >= th {
		return StatePartialDisruption
	}
	return StateNormal
}

// Zone state does not depend on node order and agrees with the naive
// version; the disruption plan does not depend on node order either.
func TestPropertyZoneStateOrderInvariant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ready := rapid.SliceOf(genStatus).Draw(t, "ready")
		th := rapid.Float32Range(0, 1).Draw(t, "threshold")
		perm := rapid.Permutation(ready).Draw(t, "perm")
		n1, s1 := ComputeZoneState(ready, th)
		n2, s2 := ComputeZoneState(perm, th)
		if n1 != n2 || s1 != s2 {
			t.Fatalf("order changed the state: %d %s vs %d %s", n1, s1, n2, s2)
		}
		if want := naiveZoneState(ready, th); s1 != want {
			t.Fatalf("state %s, naive %s", s1, want)
		}

		nodes := rapid.SliceOf(rapid.Custom(func(t *rapid.T) ZoneNode {
			return ZoneNode{
				Name:     rapid.StringMatching(`n[0-9]{1,3}`).Draw(t, "name"),
				Zone:     rapid.SampledFrom([]string{"", "a", "b", "c"}).Draw(t, "zone"),
				Ready:    genStatus.Draw(t, "status"),
				Excluded: rapid.Float64Range(0, 1).Draw(t, "x") < 0.1,
			}
		})).Draw(t, "nodes")
		prev := map[string]ZoneStatus{}
		for _, z := range []string{"a", "b", "d"} {
			if rapid.Bool().Draw(t, "has "+z) {
				prev[z] = ZoneStatus{State: rapid.SampledFrom([]ZoneState{StateNormal, StatePartialDisruption, StateFullDisruption}).Draw(t, "state"), Rate: 0.1}
			}
		}
		c := DefaultConfig()
		p1, err := c.PlanDisruption(prev, nodes)
		if err != nil {
			t.Fatal(err)
		}
		p2, _ := c.PlanDisruption(prev, rapid.Permutation(nodes).Draw(t, "nodes perm"))
		if !slices.Equal(p1.Zones, p2.Zones) || p1.Transition != p2.Transition || !slices.Equal(p1.Removed, p2.Removed) {
			t.Fatalf("node order changed the plan:\n%+v\n%+v", p1, p2)
		}

		// PlanZones on counts kept one node at a time (a zone listed once
		// per node, in any order, excluded nodes left out) plans the same.
		var counts []ZoneCount
		for _, n := range rapid.Permutation(nodes).Draw(t, "count order") {
			if n.Excluded {
				continue
			}
			zc := ZoneCount{Zone: n.Zone, NotReady: 1}
			if n.Ready == conditions.True {
				zc = ZoneCount{Zone: n.Zone, Ready: 1}
			}
			counts = append(counts, zc)
		}
		p3, err := c.PlanZones(prev, counts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p1, p3) {
			t.Fatalf("PlanZones differs from PlanDisruption:\n%+v\n%+v", p1, p3)
		}
	})
}

// The queue never processes more than rate x elapsed + burst items, and
// agrees with a naive sorted-slice queue on what it processes.
func TestPropertyQueueRateBound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rate := rapid.SampledFrom([]float64{0.01, 0.1, 0.5, 1, 2, 10}).Draw(t, "rate")
		opts := QueueOptions{SpendTokenWhenNotDue: rapid.Bool().Draw(t, "spend")}
		q, _ := NewRateLimitedQueue(rate, opts)
		naive := &naiveQueue{rate: rate, opts: opts}
		now := t0
		processed := 0
		steps := rapid.IntRange(1, 60).Draw(t, "steps")
		for i := 0; i < steps; i++ {
			now = now.Add(rapid.SampledFrom([]time.Duration{0, 1, 100 * time.Millisecond, 499 * time.Millisecond, 501 * time.Millisecond, time.Second, 3 * time.Second, 10 * time.Second}).Draw(t, "dt"))
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0, 1:
				name := rapid.StringMatching(`[a-e]`).Draw(t, "name")
				if q.Add(name, "", now) != naive.add(name, now) {
					t.Fatalf("Add(%s) disagrees", name)
				}
			case 2:
				name := rapid.StringMatching(`[a-e]`).Draw(t, "name")
				if q.Remove(name) != naive.remove(name) {
					t.Fatalf("Remove(%s) disagrees", name)
				}
			case 3:
				retry := rapid.Bool().Draw(t, "retry")
				fn := func(Item) (bool, time.Duration) { return !retry, 500 * time.Millisecond }
				var got []string
				n := q.Try(now, func(it Item) (bool, time.Duration) { got = append(got, it.Name); return fn(it) })
				want := naive.try(now, retry)
				if !slices.Equal(got, want) {
					t.Fatalf("Try at %v: got %v, naive %v", now.Sub(t0), got, want)
				}
				processed += n
			}
			if bound := rate*now.Sub(t0).Seconds() + TaintQueueBurst; float64(processed) > bound+1e-9 {
				t.Fatalf("processed %d > rate %v x %v + burst", processed, rate, now.Sub(t0))
			}
		}
	})
}

// naiveQueue is the queue of reference §1.7 written the slow way: a slice
// scanned for the smallest (ProcessAt, insertion), a float token count.
type naiveQueue struct {
	rate   float64
	opts   QueueOptions
	items  []Item
	seqs   []int
	seq    int
	names  map[string]bool
	tokens float64
	last   time.Time
	init   bool
}

func (n *naiveQueue) add(name string, now time.Time) bool {
	if n.names == nil {
		n.names = map[string]bool{}
	}
	if n.names[name] {
		return false
	}
	n.names[name] = true
	n.seq++
	n.items = append(n.items, Item{Name: name, AddedAt: now, ProcessAt: now})
	n.seqs = append(n.seqs, n.seq)
	return true
}

func (n *naiveQueue) remove(name string) bool {
	if !n.names[name] {
		return false
	}
	delete(n.names, name)
	for i := range n.items {
		if n.items[i].Name == name {
			n.items = slices.Delete(n.items, i, i+1)
			n.seqs = slices.Delete(n.seqs, i, i+1)
			break
		}
	}
	return true
}

func (n *naiveQueue) head() int {
	best := -1
	for i := range n.items {
		if best < 0 || n.items[i].ProcessAt.Before(n.items[best].ProcessAt) ||
			n.items[i].ProcessAt.Equal(n.items[best].ProcessAt) && n.seqs[i] < n.seqs[best] {
			best = i
		}
	}
	return best
}

func (n *naiveQueue) allow(now time.Time) bool {
	if !n.init {
		n.tokens, n.last, n.init = 1, now, true
	}
	// Tokens accrue in whole nanoseconds per interval, as the bucket does.
	iv := time.Duration(math.Round(float64(time.Second) / n.rate))
	n.tokens = math.Min(1, n.tokens+float64(now.Sub(n.last))/float64(iv))
	n.last = now
	if n.tokens >= 1-1e-12 {
		n.tokens--
		return true
	}
	return false
}

func (n *naiveQueue) try(now time.Time, retry bool) []string {
	var out []string
	for {
		h := n.head()
		if h < 0 {
			return out
		}
		due := !now.Before(n.items[h].ProcessAt)
		if n.opts.SpendTokenWhenNotDue {
			if !n.allow(now) || !due {
				return out
			}
		} else if !due || !n.allow(now) {
			return out
		}
		out = append(out, n.items[h].Name)
		if retry {
			n.items[h].ProcessAt = now.Add(500*time.Millisecond + 1) // keeps its insertion rank
			continue
		}
		n.items = slices.Delete(n.items, h, h+1)
		n.seqs = slices.Delete(n.seqs, h, h+1)
	}
}

var genToleration = rapid.Custom(func(t *rapid.T) taints.Toleration {
	tol := taints.Toleration{
		Key:      rapid.SampledFrom([]string{"", taints.TaintNodeUnreachable, taints.TaintNodeNotReady, "k"}).Draw(t, "key"),
		Operator: rapid.SampledFrom([]taints.Operator{taints.TolerationOpExists, taints.TolerationOpEqual}).Draw(t, "op"),
		Effect:   rapid.SampledFrom([]taints.Effect{"", taints.TaintEffectNoExecute, taints.TaintEffectNoSchedule}).Draw(t, "effect"),
	}
	if tol.Operator == taints.TolerationOpEqual {
		tol.Value = rapid.SampledFrom([]string{"", "v"}).Draw(t, "value")
	}
	if rapid.Bool().Draw(t, "finite") {
		s := rapid.Int64Range(-10, 1000).Draw(t, "seconds")
		tol.TolerationSeconds = &s
	}
	return tol
})

var genTaint = rapid.Custom(func(t *rapid.T) taints.Taint {
	return taints.Taint{
		Key:       rapid.SampledFrom([]string{taints.TaintNodeUnreachable, taints.TaintNodeNotReady, "k"}).Draw(t, "key"),
		Value:     rapid.SampledFrom([]string{"", "v"}).Draw(t, "value"),
		Effect:    rapid.SampledFrom([]taints.Effect{taints.TaintEffectNoExecute, taints.TaintEffectNoSchedule}).Draw(t, "effect"),
		TimeAdded: at(float64(rapid.IntRange(0, 100).Draw(t, "added"))),
	}
})

var genScheduled = rapid.Custom(func(t *rapid.T) *Scheduled {
	if !rapid.Bool().Draw(t, "scheduled") {
		return nil
	}
	c := at(float64(rapid.IntRange(0, 200).Draw(t, "created")))
	return &Scheduled{CreatedAt: c, At: c.Add(time.Duration(rapid.IntRange(0, 600).Draw(t, "delay")) * time.Second)}
})

var genNoExecuteConfig = rapid.Custom(func(t *rapid.T) NoExecuteConfig {
	return NoExecuteConfig{Anchor: rapid.SampledFrom([]Anchor{AnchorObserved, AnchorTaintAdded}).Draw(t, "anchor"), Replan: rapid.Bool().Draw(t, "replan")}
})

// An untolerated NoExecute taint always means immediate eviction; removing
// every NoExecute taint always cancels (or does nothing without a
// schedule); and the planner agrees with a naive one when nothing is
// scheduled.
func TestPropertyNoExecute(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := genNoExecuteConfig.Draw(t, "cfg")
		nodeTaints := rapid.SliceOfN(genTaint, 0, 4).Draw(t, "taints")
		tols := rapid.SliceOfN(genToleration, 0, 4).Draw(t, "tols")
		existing := genScheduled.Draw(t, "existing")
		now := at(float64(rapid.IntRange(0, 400).Draw(t, "now")))
		pod := Pod{Namespace: "ns", Name: "p", Tolerations: tols}
		d := cfg.Plan(nodeTaints, pod, existing, now)

		isNE := func(tt taints.Taint) bool { return tt.Effect == taints.TaintEffectNoExecute }
		if _, untolerated := taints.FindMatchingUntoleratedTaint(nodeTaints, tols, isNE); untolerated {
			if d.Action != NoExecuteEvictNow || d.Reason != ReasonUntoleratedTaint {
				t.Fatalf("untolerated NoExecute taint: %+v", d)
			}
		}
		stripped := taints.Filter(nodeTaints, func(tt taints.Taint) bool { return !isNE(tt) })
		c := cfg.Plan(stripped, pod, existing, now)
		if want := map[bool]NoExecuteAction{true: NoExecuteCancel, false: NoExecuteNone}[existing != nil]; c.Action != want {
			t.Fatalf("all NoExecute taints removed: %+v, want %s", c, want)
		}
		if existing == nil && cfg.Anchor == AnchorObserved {
			if want := naiveNoExecute(nodeTaints, tols, now); d.Action != want.action || !d.At.Equal(want.at) {
				t.Fatalf("got %s at %v, naive %s at %v (%s)", d.Action, d.At, want.action, want.at, d.Message())
			}
		}
		if d.Action == NoExecuteSchedule && !d.At.After(maxTime(now, existingCreated(existing))) {
			t.Fatalf("scheduled in the past: %+v", d)
		}
	})
}

func existingCreated(s *Scheduled) time.Time {
	if s == nil {
		return time.Time{}
	}
	return s.CreatedAt
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// naiveNoExecute is the reference §1.9 rule set with nothing scheduled.
func naiveNoExecute(nodeTaints []taints.Taint, tols []taints.Toleration, now time.Time) outcome {
	var used []taints.Toleration
	for _, tt := range nodeTaints {
		if tt.Effect != taints.TaintEffectNoExecute {
			continue
		}
		found := false
		for _, tol := range tols {
			if tol.ToleratesTaint(&tt) {
				used, found = append(used, tol), true
				break
			}
		}
		if !found {
			return outcome{NoExecuteEvictNow, now, ""}
		}
	}
	if len(used) == 0 && !slices.ContainsFunc(nodeTaints, func(tt taints.Taint) bool { return tt.Effect == taints.TaintEffectNoExecute }) {
		return outcome{NoExecuteNone, time.Time{}, ""}
	}
	least := int64(-1)
	for _, tol := range used {
		if tol.TolerationSeconds == nil {
			continue
		}
		if s := max(*tol.TolerationSeconds, 0); least < 0 || s < least {
			least = s
		}
	}
	switch {
	case least < 0:
		return outcome{NoExecuteNone, time.Time{}, ""}
	case least == 0:
		return outcome{NoExecuteEvictNow, now, ""}
	}
	return outcome{NoExecuteSchedule, now.Add(time.Duration(least) * time.Second), ""}
}

// PlanNode's output is the input pods sorted by namespace, name and UID,
// equal keys in input order, however the names share prefixes.
func TestPropertyPlanNodeOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := rapid.SliceOf(rapid.Custom(func(t *rapid.T) Pod {
			return Pod{
				Namespace: rapid.StringMatching(`(ns-|n)[ab]{0,10}`).Draw(t, "ns"),
				Name:      rapid.StringMatching(`pod-0000[ab]{0,12}`).Draw(t, "name"),
				UID:       rapid.StringMatching(`[0-2]`).Draw(t, "uid"),
			}
		})).Draw(t, "pods")
		for i := range pods {
			pods[i].Tolerations = []taints.Toleration{{Key: "tag", Value: fmt.Sprint(i), Operator: taints.TolerationOpEqual}}
		}
		ds := NoExecuteConfig{}.PlanNode(nil, pods, nil, t0)
		want := slices.Clone(pods)
		slices.SortStableFunc(want, func(a, b Pod) int { return comparePods(&a, &b) })
		for i := range ds {
			if ds[i].Pod.Tolerations[0].Value != want[i].Tolerations[0].Value {
				t.Fatalf("position %d: got pod #%s, want #%s", i, ds[i].Pod.Tolerations[0].Value, want[i].Tolerations[0].Value)
			}
		}
	})
}
