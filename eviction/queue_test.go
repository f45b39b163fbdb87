package eviction

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// A client-go token bucket of burst 1 at 0.1/s: full at start, then one
// token every 10s exactly.
func TestTokenBucketRate(t *testing.T) {
	b, err := NewTokenBucket(0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		at   float64
		want bool
	}{{0, true}, {0, false}, {9.999, false}, {10, true}, {15, false}, {20, true}, {45, true}, {46, false}} {
		if got := b.Allow(at(step.at)); got != step.want {
			t.Fatalf("Allow at %vs = %v, want %v", step.at, got, step.want)
		}
	}
	if tok := b.Tokens(at(50)); tok != 0.5 {
		t.Fatalf("Tokens at 50s = %v, want 0.5 (last token at 45s)", tok)
	}
	if next, ok := b.NextAllow(at(50)); !ok || !next.Equal(at(55)) {
		t.Fatalf("NextAllow = %v %v, want 55s", next, ok)
	}
}

func TestTokenBucketBurst(t *testing.T) {
	b, _ := NewTokenBucket(1, 3)
	n := 0
	for b.Allow(at(0)) {
		n++
	}
	if n != 3 {
		t.Fatalf("a new bucket of burst 3 granted %d", n)
	}
	if next, _ := b.NextAllow(at(0)); !next.Equal(at(1)) {
		t.Fatalf("NextAllow = %v", next)
	}
	if b.Allow(at(0.5)) || !b.Allow(at(1)) {
		t.Fatal("refill at 1 token/s")
	}
	if tok := b.Tokens(at(100)); tok != 3 {
		t.Fatalf("Tokens after a long idle = %v, want the burst", tok)
	}
}

func TestTokenBucketStoppedAndClamp(t *testing.T) {
	b, _ := NewTokenBucket(0, 1)
	if b.Allow(at(0)) || b.Allow(at(1e6)) || !b.Stopped() || b.Tokens(at(1)) != 0 {
		t.Fatal("a stopped bucket granted a token")
	}
	if _, ok := b.NextAllow(at(0)); ok {
		t.Fatal("NextAllow of a stopped bucket")
	}
	b, _ = NewTokenBucket(1, 1)
	b.Allow(at(10))
	// An earlier now is clamped to 10s: no token yet.
	if b.Allow(at(5)) {
		t.Fatal("time going backwards refilled the bucket")
	}
	if !b.Allow(at(11)) {
		t.Fatal("no token one interval later")
	}
}

func TestTokenBucketErrors(t *testing.T) {
	for _, tc := range []struct {
		rate  float64
		burst int
		want  string
	}{
		{nan(), 1, "rate NaN"},
		{-0.5, 1, "rate -0.5"},
		{posInf(), 1, "rate +Inf"},
		{1, 0, "burst 0"},
	} {
		_, err := NewTokenBucket(tc.rate, tc.burst)
		if !errors.Is(err, ErrInvalidRate) || !contains(err.Error(), tc.want) {
			t.Errorf("NewTokenBucket(%v, %d) = %v, want an error naming %q", tc.rate, tc.burst, err, tc.want)
		}
	}
	if _, err := NewRateLimitedQueue(nan(), FixedQueueOptions()); !errors.Is(err, ErrInvalidRate) {
		t.Fatalf("queue rate NaN: %v", err)
	}
	q, _ := NewRateLimitedQueue(1, FixedQueueOptions())
	if err := q.SetRate(at(0), posInf()); !errors.Is(err, ErrInvalidRate) || q.Rate() != 1 {
		t.Fatalf("SetRate(+Inf) = %v, rate %v", err, q.Rate())
	}
}

// collect runs Try and returns the names processed, all as done.
func collect(q *RateLimitedQueue, now time.Time) []string {
	var got []string
	q.Try(now, func(it Item) (bool, time.Duration) { got = append(got, it.Name); return true, 0 })
	return got
}

// Items come out by ProcessAt, ties in insertion order; a retried item goes
// back at now + wait + 1ns.
func TestQueueOrderAndRetry(t *testing.T) {
	q, _ := NewRateLimitedQueue(1000, FixedQueueOptions()) // one token per ms
	for _, n := range []string{"c", "a", "b"} {
		q.Add(at(0), n, "uid-"+n)
	}
	var seen []Item
	q.Try(at(0), func(it Item) (bool, time.Duration) {
		seen = append(seen, it)
		return false, 50 * time.Millisecond
	})
	if len(seen) != 1 || seen[0].Name != "c" || seen[0].UID != "uid-c" {
		t.Fatalf("first Try: %+v", seen)
	}
	h, _ := q.Head()
	if h.Name != "a" {
		t.Fatalf("head after retry = %q, want a (c went back to 50ms+1ns)", h.Name)
	}
	if got := collect(q, at(0.002)); !cmp.Equal(got, []string{"a"}) {
		t.Fatalf("at 2ms: %v (one token per ms, b has to wait)", got)
	}
	if got := collect(q, at(0.003)); !cmp.Equal(got, []string{"b"}) {
		t.Fatalf("at 3ms: %v", got)
	}
	due := at(0.05).Add(1)
	if got := collect(q, due.Add(-1)); len(got) != 0 {
		t.Fatalf("c processed before now + 50ms + 1ns: %v", got)
	}
	if got := collect(q, due); !cmp.Equal(got, []string{"c"}) {
		t.Fatalf("at 50ms+1ns: %v", got)
	}
	if q.Len() != 0 {
		t.Fatalf("Len = %d", q.Len())
	}
}

// Dedupe (UniqueQueue): Add refuses a queued name and a processed one until
// Remove; RemoveFromQueue keeps the name in the set (TestAddAfterTry).
func TestQueueDedupe(t *testing.T) {
	q, _ := NewRateLimitedQueue(1000, FixedQueueOptions())
	if !q.Add(at(0), "n1", "") || q.Add(at(1), "n1", "") {
		t.Fatal("Add of a queued name must fail")
	}
	collect(q, at(1))
	if q.Queued("n1") || !q.Contains("n1") {
		t.Fatal("a processed name leaves the queue but stays in the set")
	}
	if q.Add(at(2), "n1", "") {
		t.Fatal("Add after successful processing must fail until Remove")
	}
	if !q.Remove("n1") || q.Remove("n1") || !q.Add(at(3), "n1", "") {
		t.Fatal("Remove re-arms the name")
	}
	if !q.RemoveFromQueue("n1") || q.Queued("n1") || q.Add(at(4), "n1", "") {
		t.Fatal("RemoveFromQueue keeps the name deduplicated")
	}
	if q.RemoveFromQueue("n1") {
		t.Fatal("RemoveFromQueue of a name not queued")
	}
	q.Add(at(5), "n2", "")
	q.Clear()
	if q.Len() != 0 || q.Contains("n1") || !q.Add(at(6), "n1", "") {
		t.Fatal("Clear empties the queue and the set")
	}
	// Retry puts a processed name back; refuses unknown names.
	collect(q, at(7))
	if !q.Retry("n1", "u", at(8)) || !q.Queued("n1") || q.Retry("zzz", "", at(8)) {
		t.Fatal("Retry")
	}
	if h, _ := q.Head(); !h.ProcessAt.Equal(at(8)) {
		t.Fatalf("head %+v", h)
	}
	q.Retry("n1", "u", at(9)) // a queued name moves
	if h, _ := q.Head(); !h.ProcessAt.Equal(at(9)) {
		t.Fatalf("head %+v", h)
	}
}

// At 0.1/s a zone queue hands out one node per 10s.
func TestQueueRateLimit(t *testing.T) {
	q, _ := NewRateLimitedQueue(0.1, FixedQueueOptions())
	for _, n := range []string{"n1", "n2", "n3"} {
		q.Add(at(0), n, "")
	}
	var got []string
	for now := t0; !now.After(at(25)); now = now.Add(NodeTaintPassPeriod) {
		for _, n := range collect(q, now) {
			got = append(got, n+"@"+now.Sub(t0).String())
		}
	}
	if want := []string{"n1@0s", "n2@10s", "n3@20s"}; !cmp.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if next, ok := q.Next(at(25)); ok {
		t.Fatalf("NextTry of an empty queue: %v", next)
	}
}

// Upstream takes a token before checking that the head is due; with
// TokenOnlyForDue a pass that finds nothing due costs nothing.
func TestQueueTokenOnlyForDue(t *testing.T) {
	run := func(opts QueueOptions) int {
		q, _ := NewRateLimitedQueue(1, opts)
		q.Add(at(0), "x", "")
		q.Try(at(0), func(Item) (bool, time.Duration) { return false, 2 * time.Second }) // due at 2s+1ns
		q.Try(at(1.5), func(Item) (bool, time.Duration) { return true, 0 })              // not due
		return q.Try(at(2).Add(1), func(Item) (bool, time.Duration) { return true, 0 })
	}
	if n := run(FixedQueueOptions()); n != 1 {
		t.Fatalf("fixed: processed %d at 2s+1ns, want 1", n)
	}
	if n := run(QueueOptions{RestartStopped: true}); n != 0 {
		t.Fatalf("upstream: processed %d at 2s+1ns, want 0 (the 1.5s pass spent the token)", n)
	}
}

// kubernetes#104639: upstream's stopped limiter reports QPS 1, so swapping
// to rate 1 is skipped and the zone stays stopped.
func TestQueueSetRateStopped104639(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      QueueOptions
		reported  float64
		restarted bool
	}{
		{"nodelife: rate 0 is stopped, rate 1 restarts", FixedQueueOptions(), 0, true},
		{"upstream: stopped reports 1, SetRate(1) is a no-op", QueueOptions{}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := NewRateLimitedQueue(0.1, tc.opts)
			q.Add(at(0), "n1", "")
			_ = q.SetRate(at(0), 0)
			if q.Rate() != tc.reported || !q.Stopped() {
				t.Fatalf("stopped queue reports %v", q.Rate())
			}
			if collect(q, at(100)) != nil {
				t.Fatal("a stopped queue processed an item")
			}
			_ = q.SetRate(at(100), 1)
			if q.Stopped() == tc.restarted {
				t.Fatalf("stopped after SetRate(1) = %v", q.Stopped())
			}
			// A restarted queue starts drained (the stopped one had no
			// token): the first item waits one interval.
			got := collect(q, at(100))
			got = append(got, collect(q, at(101))...)
			if tc.restarted && !cmp.Equal(got, []string{"n1"}) || !tc.restarted && got != nil {
				t.Fatalf("processed %v", got)
			}
		})
	}
}

// SwapLimiter: the same rate is a no-op; a new rate starts drained only if
// the old bucket had no token.
func TestQueueSetRateDrain(t *testing.T) {
	q, _ := NewRateLimitedQueue(0.1, FixedQueueOptions())
	q.Add(at(0), "a", "")
	q.Add(at(0), "b", "")
	// The limiter's rates are float32, as upstream's: 0.1 is
	// 0.100000001490116..., one token every 1e9/that = 9,999,999,851ns;
	// 0.01 is 0.00999999977648258..., one every 100,000,002,235ns.
	tenth, hundredth := at(10).Add(-149*time.Nanosecond), 100*time.Second+2235*time.Nanosecond
	collect(q, at(0)) // a; token spent, next at 10s less 149ns
	_ = q.SetRate(at(1), 0.1)
	if next, _ := q.Next(at(1)); !next.Equal(tenth) {
		t.Fatalf("same rate changed the bucket: next %v", next)
	}
	_ = q.SetRate(at(1), 0.01) // old bucket empty at 1s: new one drained at 1s
	if next, _ := q.Next(at(1)); !next.Equal(at(1).Add(hundredth)) {
		t.Fatalf("drained new bucket: next %v, want 101s and 2,235ns", next)
	}
	q2, _ := NewRateLimitedQueue(0.1, FixedQueueOptions())
	q2.Add(at(0), "a", "")
	_ = q2.SetRate(at(0), 0.01) // old bucket full: new one full
	if got := collect(q2, at(0)); !cmp.Equal(got, []string{"a"}) {
		t.Fatalf("full new bucket: %v", got)
	}
}

// A queued name re-added in place (what the tainter does for a node still
// waiting) leaves the queue exactly as Remove and Add would: the same
// items, in the same order.
func TestPropertyRequeueIsRemoveAdd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, _ := NewRateLimitedQueue(1, FixedQueueOptions())
		b, _ := NewRateLimitedQueue(1, FixedQueueOptions())
		now := time.Unix(1000, 0)
		names := []string{"n0", "n1", "n2", "n3", "n4", "n5"}
		for i, ops := 0, rapid.IntRange(1, 40).Draw(t, "ops"); i < ops; i++ {
			name := rapid.SampledFrom(names).Draw(t, "name")
			uid := rapid.SampledFrom([]string{"u1", "u2"}).Draw(t, "uid")
			now = now.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, "advance")) * time.Second)
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0:
				a.Add(now, name, uid)
				b.Add(now, name, uid)
			case 1:
				at := now.Add(time.Duration(rapid.IntRange(-2, 5).Draw(t, "retry")) * time.Second)
				a.Retry(name, uid, at)
				b.Retry(name, uid, at)
			case 2:
				a.Remove(name)
				b.Remove(name)
			case 3:
				a.Remove(name)
				a.Add(now, name, uid)
				if !b.Requeue(now, name, uid) {
					b.Remove(name)
					b.Add(now, name, uid)
				}
			}
		}
		for a.Len() > 0 || b.Len() > 0 {
			ha, oka := a.Head()
			hb, okb := b.Head()
			if oka != okb || ha != hb {
				t.Fatalf("heads differ: %+v %v vs %+v %v", ha, oka, hb, okb)
			}
			a.RemoveFromQueue(ha.Name)
			b.RemoveFromQueue(hb.Name)
		}
	})
}
