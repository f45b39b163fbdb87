package eviction

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/nodelife/nodelife/core"
	"pgregory.net/rapid"
)

// The queue never processes more than rate x elapsed + burst items, and
// agrees with a naive sorted-slice queue on what it processes.
func TestPropertyQueueRateBound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rate := rapid.SampledFrom([]float64{0.01, 0.1, 0.5, 1, 2, 10}).Draw(t, "rate")
		opts := QueueOptions{RestartStopped: true, TokenOnlyForDue: !rapid.Bool().Draw(t, "spend")}
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
				if q.Add(now, name, "") != naive.add(name, now) {
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
		if !n.opts.TokenOnlyForDue {
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

// PlanNode's output is the input pods sorted by namespace, name and UID,
// however the names share prefixes (pods with equal keys have equal refs,
// so their order cannot show).
func TestPropertyPlanNodeOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := rapid.SliceOf(rapid.Custom(func(t *rapid.T) core.Pod {
			return core.Pod{
				Namespace: rapid.StringMatching(`(ns-|n)[ab]{0,10}`).Draw(t, "ns"),
				Name:      rapid.StringMatching(`pod-0000[ab]{0,12}`).Draw(t, "name"),
				UID:       rapid.StringMatching(`[0-2]`).Draw(t, "uid"),
			}
		})).Draw(t, "pods")
		ds := NoExecuteConfig{}.PlanNode(t0, nil, pods, nil)
		want := slices.Clone(pods)
		slices.SortStableFunc(want, func(a, b core.Pod) int { return comparePods(&a, &b) })
		for i := range ds {
			if ds[i].Pod != want[i].Ref() {
				t.Fatalf("position %d: got pod %+v, want %+v", i, ds[i].Pod, want[i].Ref())
			}
		}
	})
}
