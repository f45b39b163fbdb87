package nodelifetest

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/taints"
)

// ErrInvariant is wrapped by every violation an invariant check reports.
var ErrInvariant = errors.New("nodelifetest: invariant violated")

func violation(at time.Time, format string, args ...any) error {
	return fmt.Errorf("%w: at %s: %s", ErrInvariant, at.UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
}

func before(at1 time.Time, seq1 int, at2 time.Time, seq2 int) bool {
	if c := at1.Compare(at2); c != 0 {
		return c < 0
	}
	return seq1 < seq2
}

func noExecute(ts []taints.Taint) []taints.Taint {
	return taints.Filter(ts, func(t taints.Taint) bool { return t.Effect == taints.TaintEffectNoExecute })
}

// CheckTolerations checks that no pod was evicted before its tolerations
// allowed. An eviction from node N at time T is allowed when N carried a
// NoExecute taint without a break over an interval [T0, T] and either one
// of the NoExecute taints N carried in it is not tolerated by the pod, or
// T - T0 is at least the smallest tolerationSeconds (negative counted as
// 0) among the pod's tolerations that match any of them. T0 is the start
// of the interval, or the TimeAdded of a taint carried at its start if
// earlier (a controller that anchors tolerationSeconds at TimeAdded may
// count from there). This is the loosest bound upstream's taint eviction
// satisfies (it keeps an earlier schedule when the taints change), so a
// violation is always a bug. A removal of the last NoExecute taint at the
// very instant of the eviction does not count against it: upstream's
// taint eviction learns of the removal through its informer, so the two
// race. Tolerations match as taints.Matcher{} does.
func CheckTolerations(h History) error {
	byNode := map[string][]TaintChange{}
	for _, c := range h.Taints {
		byNode[c.Node] = append(byNode[c.Node], c)
	}
	for _, list := range byNode {
		slices.SortStableFunc(list, func(a, b TaintChange) int { return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Seq, b.Seq)) })
	}
	var m taints.Matcher
	for _, e := range h.Evictions {
		var start time.Time
		var carried []taints.Taint
		for _, c := range byNode[e.Node] {
			if !before(c.At, c.Seq, e.At, e.Seq) && !(c.At.Equal(e.At) && e.Seq == 0) {
				break
			}
			ne := noExecute(c.Taints)
			if len(ne) == 0 && c.At.Equal(e.At) {
				// Removed in the same instant: the removal races the
				// eviction, as upstream's two controllers do.
				continue
			}
			switch {
			case len(ne) == 0:
				start, carried = time.Time{}, nil
			case len(carried) == 0:
				start, carried = c.At, slices.Clone(ne)
				for _, t := range ne {
					if !t.TimeAdded.IsZero() && t.TimeAdded.Before(start) {
						start = t.TimeAdded
					}
				}
			default:
				carried = append(carried, ne...)
			}
		}
		if len(carried) == 0 {
			return violation(e.At, "pod %s evicted from node %s, which carries no NoExecute taint", e.Pod, e.Node)
		}
		least := int64(math.MaxInt64)
		for i := range carried {
			tolerated := false
			for j := range e.Tolerations {
				tol := &e.Tolerations[j]
				if !m.ToleratesTaint(tol, &carried[i]) {
					continue
				}
				tolerated = true
				if tol.TolerationSeconds != nil {
					least = min(least, max(*tol.TolerationSeconds, 0))
				}
			}
			if !tolerated {
				least = -1
				break
			}
		}
		switch {
		case least < 0:
			continue // a taint it does not tolerate: evicted at once
		case least == math.MaxInt64:
			return violation(e.At, "pod %s evicted from node %s although it tolerates its NoExecute taints %v forever", e.Pod, e.Node, keys(carried))
		case e.At.Sub(start) < time.Duration(least)*time.Second:
			return violation(e.At, "pod %s evicted from node %s %v after its NoExecute taints %v appeared at %s; its tolerations allow %ds",
				e.Pod, e.Node, e.At.Sub(start), keys(carried), start.UTC().Format(time.RFC3339), least)
		}
	}
	return nil
}

func keys(ts []taints.Taint) []string {
	var out []string
	for _, t := range ts {
		k := t.Key + ":" + string(t.Effect)
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// event is a History record in time order, for the zone checks.
type event struct {
	at    time.Time
	seq   int
	zone  *ZoneChange
	taint *TaintChange
}

func (h History) events() []event {
	var ev []event
	for i := range h.Zones {
		ev = append(ev, event{at: h.Zones[i].At, seq: h.Zones[i].Seq, zone: &h.Zones[i]})
	}
	for i := range h.Taints {
		ev = append(ev, event{at: h.Taints[i].At, seq: h.Taints[i].Seq, taint: &h.Taints[i]})
	}
	slices.SortStableFunc(ev, func(a, b event) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.seq, b.seq)) })
	return ev
}

// CheckZoneRate checks that no zone's nodes were tainted NoExecute faster
// than the zone's rate allows: a token bucket of one token (upstream's
// burst), full when the zone gets its first non-zero rate and refilled at
// the zone's current rate, must hold a whole token whenever a node of the
// zone goes from no NoExecute taint to some (a swap between NoExecute
// taints is not rate-limited upstream and is not counted). A rate change
// keeps the tokens: upstream's limiter swap never gives more.
func CheckZoneRate(h History) error {
	type bucket struct {
		tokens, rate float64
		at           time.Time
		started      bool
	}
	buckets := map[string]*bucket{}
	get := func(zone string) *bucket {
		b := buckets[zone]
		if b == nil {
			b = &bucket{}
			buckets[zone] = b
		}
		return b
	}
	refill := func(b *bucket, at time.Time) {
		if b.started && at.After(b.at) {
			b.tokens = min(1, b.tokens+b.rate*at.Sub(b.at).Seconds())
		}
		b.at = at
	}
	tainted := map[string]bool{}
	for _, e := range h.events() {
		switch {
		case e.zone != nil:
			b := get(e.zone.Zone)
			refill(b, e.at)
			if !b.started && e.zone.Rate > 0 {
				b.started, b.tokens = true, 1
			}
			b.rate = e.zone.Rate
		case e.taint != nil:
			now := len(noExecute(e.taint.Taints)) > 0
			was, seen := tainted[e.taint.Node]
			tainted[e.taint.Node] = now
			if !seen || was || !now {
				continue
			}
			b := get(e.taint.Zone)
			refill(b, e.at)
			if b.tokens < 1-1e-9 {
				return violation(e.at, "node %s of zone %s tainted NoExecute with %.3f of a token left at rate %g/s", e.taint.Node, e.taint.Zone, b.tokens, b.rate)
			}
			b.tokens--
		}
	}
	return nil
}

// CheckFullDisruption checks that no NoExecute taint was added to a node
// while every zone known was fully disrupted (upstream stops tainting
// then and takes the taints off). A taint counts as added when a change
// gives a node a NoExecute taint (key and effect) it did not carry. A swap
// between the not-ready and unreachable NoExecute taints is not an
// addition: upstream swaps them at once whatever the zones' states, and a
// node can keep one into full disruption (the pass that enters it decides
// from the taints it listed when it began, kubernetes#111385;
// nodelifecycle.Config.FreshTaintsInPass takes them all off).
func CheckFullDisruption(h History) error {
	states := map[string]eviction.ZoneState{}
	carried := map[string][]taints.Taint{}
	for _, e := range h.events() {
		if e.zone != nil {
			states[e.zone.Zone] = e.zone.State
			continue
		}
		prev, seen := carried[e.taint.Node]
		now := noExecute(e.taint.Taints)
		carried[e.taint.Node] = now
		if !seen || len(states) == 0 {
			continue // a node's first record is where it starts
		}
		all := true
		for _, s := range states {
			all = all && s == eviction.StateFullDisruption
		}
		if !all {
			continue
		}
		swap := slices.ContainsFunc(prev, isControllerNoExecute)
		for _, t := range now {
			if swap && isControllerNoExecute(t) {
				continue
			}
			if !slices.ContainsFunc(prev, func(p taints.Taint) bool { return p.Key == t.Key && p.Effect == t.Effect }) {
				return violation(e.at, "node %s tainted %s:%s while every zone is fully disrupted", e.taint.Node, t.Key, t.Effect)
			}
		}
	}
	return nil
}

// CheckUnknown checks that the controller marked a node Unknown only
// after the node had been silent for at least grace: its last heartbeat
// (lease renewal or status post) before the mark is at least grace old.
// With nodelifecycle's default handling of its own blindness
// (Controller.ViewRestored), this holds across API faults too.
func CheckUnknown(h History, grace time.Duration) error {
	last := map[string]Mark{}
	beats := slices.Clone(h.Heartbeats)
	slices.SortStableFunc(beats, func(a, b Mark) int { return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Seq, b.Seq)) })
	marks := slices.Clone(h.Unknown)
	slices.SortStableFunc(marks, func(a, b Mark) int { return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Seq, b.Seq)) })
	i := 0
	for _, m := range marks {
		for ; i < len(beats) && before(beats[i].At, beats[i].Seq, m.At, m.Seq); i++ {
			last[beats[i].Node] = beats[i]
		}
		hb, ok := last[m.Node]
		if ok && m.At.Sub(hb.At) < grace {
			return violation(m.At, "node %s marked Unknown %v after its last heartbeat at %s (grace %v)", m.Node, m.At.Sub(hb.At), hb.At.UTC().Format(time.RFC3339), grace)
		}
	}
	return nil
}

// CheckRecovered checks that every node ended Ready=True without any of
// the node lifecycle controller's taints (not-ready, unreachable), as a
// cluster whose faults have all ended should.
func CheckRecovered(h History) error {
	for _, n := range h.Final {
		if c, ok := conditions.Find(n.Conditions, conditions.Ready); !ok || c.Status != conditions.True {
			return violation(h.End, "node %s is not Ready at the end", n.Name)
		}
		for _, t := range n.Taints {
			if t.Key == taints.TaintNodeNotReady || t.Key == taints.TaintNodeUnreachable {
				return violation(h.End, "node %s still carries %s:%s at the end", n.Name, t.Key, t.Effect)
			}
		}
	}
	return nil
}

// CheckEvictedOnce checks that no pod was evicted twice.
func CheckEvictedOnce(h History) error {
	seen := map[string]bool{}
	for _, e := range h.Evictions {
		if seen[e.Pod] {
			return violation(e.At, "pod %s evicted twice", e.Pod)
		}
		seen[e.Pod] = true
	}
	return nil
}

// CheckLifecycle runs every node-lifecycle check on h: CheckTolerations,
// CheckEvictedOnce, CheckZoneRate, CheckFullDisruption and CheckUnknown
// with grace, and returns the first violation.
func CheckLifecycle(h History, grace time.Duration) error {
	for _, check := range []func(History) error{CheckTolerations, CheckEvictedOnce, CheckZoneRate, CheckFullDisruption} {
		if err := check(h); err != nil {
			return err
		}
	}
	return CheckUnknown(h, grace)
}

// isControllerNoExecute reports whether t is the not-ready or unreachable
// NoExecute taint.
func isControllerNoExecute(t taints.Taint) bool {
	return t.Effect == taints.TaintEffectNoExecute && (t.Key == taints.TaintNodeNotReady || t.Key == taints.TaintNodeUnreachable)
}
