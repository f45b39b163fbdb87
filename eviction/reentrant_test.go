package eviction

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"pgregory.net/rapid"
)

// queueItems lists the queued items in the order Try would hand them out.
func queueItems(q *RateLimitedQueue) []Item {
	es := slices.Clone(q.heap)
	slices.SortFunc(es, func(a, b *entry) int {
		if c := a.ProcessAt.Compare(b.ProcessAt); c != 0 {
			return c
		}
		return int(a.seq) - int(b.seq)
	})
	out := make([]Item, len(es))
	for i, e := range es {
		out[i] = e.Item
	}
	return out
}

// checkHeap checks the queue's internal consistency: the heap property,
// every entry's index, and the queued map against the heap.
func checkHeap(t interface{ Fatalf(string, ...any) }, q *RateLimitedQueue) {
	if len(q.queued) != len(q.heap) {
		t.Fatalf("queued map has %d names, heap %d entries", len(q.queued), len(q.heap))
	}
	for i, e := range q.heap {
		if e.index != i {
			t.Fatalf("entry %s at %d says index %d", e.Name, i, e.index)
		}
		if q.queued[e.Name] != e {
			t.Fatalf("entry %s at %d is not the one queued under its name", e.Name, i)
		}
		if _, ok := q.names[e.Name]; !ok {
			t.Fatalf("queued %s is not in the dedupe set", e.Name)
		}
		if i > 0 && q.less(i, (i-1)/2) {
			t.Fatalf("heap property broken at %d", i)
		}
	}
}

func newAlwaysQueue(t *testing.T, names ...string) *RateLimitedQueue {
	t.Helper()
	q, err := NewRateLimitedQueue(1e10, FixedQueueOptions()) // refill interval rounds to 0: never limited
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		q.Add(t0, n, "uid-"+n)
	}
	return q
}

func names(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Name
	}
	return out
}

// Upstream's TestTryRemovingWhileTry
// (pkg/controller/nodelifecycle/scheduler/rate_limited_queue_test.go,
// v1.36.3) removes "second" while Try processes it, and expects it neither
// retried nor handed out again. Before the fix, nodelife's Try panicked
// with an index out of range after fn returned.
func TestTryRemovingWhileTry(t *testing.T) {
	q := newAlwaysQueue(t, "first", "second", "third")
	var order []string
	n := q.Try(t0, func(it Item) (bool, time.Duration) {
		if it.Name == "second" {
			q.Remove("second")
			return false, time.Millisecond
		}
		order = append(order, it.Name)
		return true, 0
	})
	if !slices.Equal(order, []string{"first", "third"}) || n != 3 {
		t.Fatalf("order %v, n %d", order, n)
	}
	checkHeap(t, q)
	if q.Len() != 0 || q.Contains("second") || !q.Add(t0, "second", "") {
		t.Fatalf("second must be gone and addable again: len %d", q.Len())
	}
}

// What fn does to the queue while Try runs, and what Try then does with fn's
// answer, by name as upstream's UniqueQueue (Replace, RemoveFromQueue).
func TestTryReentrant(t *testing.T) {
	cases := []struct {
		name string
		// act runs inside fn for the item "a" and returns fn's answer.
		act       func(q *RateLimitedQueue) (bool, time.Duration)
		wantOrder []string // names handed to fn
		wantQueue []string // queued after Try
		wantSet   []string // in the dedupe set after Try
	}{
		{"remove another item", func(q *RateLimitedQueue) (bool, time.Duration) { q.Remove("c"); return true, 0 },
			[]string{"a", "b"}, nil, []string{"a", "b"}},
		{"remove from queue another item", func(q *RateLimitedQueue) (bool, time.Duration) { q.RemoveFromQueue("c"); return true, 0 },
			[]string{"a", "b"}, nil, []string{"a", "b", "c"}},
		{"clear", func(q *RateLimitedQueue) (bool, time.Duration) { q.Clear(); return false, time.Second },
			[]string{"a"}, nil, nil},
		{"add a due item: processed in the same pass", func(q *RateLimitedQueue) (bool, time.Duration) { q.Add(t0, "d", ""); return true, 0 },
			[]string{"a", "b", "c", "d"}, nil, []string{"a", "b", "c", "d"}},
		{"remove and add itself, then done: the new item is dropped by name", func(q *RateLimitedQueue) (bool, time.Duration) {
			q.Remove("a")
			q.Add(t0, "a", "new")
			return true, 0
		}, []string{"a", "b", "c"}, nil, []string{"a", "b", "c"}},
		{"remove and add itself, then retry: the item fn was given replaces it", func(q *RateLimitedQueue) (bool, time.Duration) {
			q.Remove("a")
			q.Add(t0, "a", "new")
			return false, time.Second
		}, []string{"a", "b", "c"}, []string{"a"}, []string{"a", "b", "c"}},
		{"stop the queue", func(q *RateLimitedQueue) (bool, time.Duration) { _ = q.SetRate(t0, 0); return true, 0 },
			[]string{"a"}, []string{"b", "c"}, []string{"a", "b", "c"}},
		{"nested Try does nothing", func(q *RateLimitedQueue) (bool, time.Duration) {
			if n := q.Try(t0, func(Item) (bool, time.Duration) { return true, 0 }); n != 0 {
				panic(fmt.Sprintf("nested Try processed %d", n))
			}
			return true, 0
		}, []string{"a", "b", "c"}, nil, []string{"a", "b", "c"}},
		{"retry itself later, then done", func(q *RateLimitedQueue) (bool, time.Duration) { q.Retry("a", "", t0.Add(time.Hour)); return true, 0 },
			[]string{"a", "b", "c"}, nil, []string{"a", "b", "c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := newAlwaysQueue(t, "a", "b", "c")
			var order []string
			q.Try(t0, func(it Item) (bool, time.Duration) {
				order = append(order, it.Name)
				if it.Name == "a" && len(order) == 1 {
					return c.act(q)
				}
				return true, 0
			})
			checkHeap(t, q)
			if !slices.Equal(order, c.wantOrder) {
				t.Errorf("handed out %v, want %v", order, c.wantOrder)
			}
			if got := names(queueItems(q)); !slices.Equal(got, c.wantQueue) && !(len(got) == 0 && len(c.wantQueue) == 0) {
				t.Errorf("queued %v, want %v", got, c.wantQueue)
			}
			for _, n := range []string{"a", "b", "c", "d"} {
				if q.Contains(n) != slices.Contains(c.wantSet, n) {
					t.Errorf("Contains(%s) = %v", n, q.Contains(n))
				}
			}
		})
	}
	// The retried item is the one fn was given (upstream's Replace puts
	// back the value it handed out): its UID and AddedAt, due at Try's now
	// + 1s + 1ns.
	q := newAlwaysQueue(t, "a")
	q.Try(t0, func(it Item) (bool, time.Duration) {
		q.Remove("a")
		q.Add(t0, "a", "new")
		return false, time.Second
	})
	if h, _ := q.Head(); h.UID != "uid-a" || !h.AddedAt.Equal(t0) || !h.ProcessAt.Equal(t0.Add(time.Second+1)) {
		t.Errorf("head %+v", h)
	}
}

// A tainter whose ready callback changes the tainter: marking the node
// reachable (which removes it from its queue), removing another node, or
// observing a node of a new zone, all while Pass runs.
func TestTainterPassReentrant(t *testing.T) {
	tn, err := NewNoExecuteTainter(DefaultConfig(), FixedQueueOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"n1", "n2", "n3"} {
		tn.Observe(t0, TaintNode{Name: n, Zone: "z"}, conditions.Unknown)
	}
	var asked []string
	ups := tn.Step(t0, func(node string) (conditions.Status, bool) {
		asked = append(asked, node)
		switch node {
		case "n1":
			tn.MarkReachable(TaintNode{Name: "n1", Zone: "z"})
			tn.Observe(t0, TaintNode{Name: "x1", Zone: "a-new-zone"}, conditions.Unknown)
			nested := tn.Step(t0, func(string) (conditions.Status, bool) { return conditions.Unknown, true })
			if len(nested) != 1 || nested[0].Node != "x1" {
				panic(fmt.Sprintf("a nested pass skips the zone being processed and covers the new one: %+v", nested))
			}
			return conditions.True, true
		}
		return conditions.Unknown, true
	})
	// Rate 0.1 with a burst of 1: one token, used by n1, which became healthy.
	if !slices.Equal(asked, []string{"n1"}) || len(ups) != 0 {
		t.Fatalf("asked %v, updates %v", asked, ups)
	}
	for _, z := range tn.Zones() {
		checkHeap(t, tn.Queue(z))
	}
	if tn.Queue("z").Contains("n1") || !tn.Queue("z").Queued("n2") || tn.Queue("a-new-zone").Queued("x1") {
		t.Fatal("queues after the pass")
	}
	// Ten seconds later zone z's next token goes to n2.
	ups = tn.Step(t0.Add(10*time.Second), func(string) (conditions.Status, bool) { return conditions.Unknown, true })
	if len(ups) != 1 || ups[0].Node != "n2" {
		t.Fatalf("second pass %+v", ups)
	}
}

// model is a deliberately naive RateLimitedQueue: a slice scanned in full,
// the same token bucket rules.
type model struct {
	items  []modelItem
	set    map[string]bool
	bucket *TokenBucket
	seq    int
	last   time.Time
	trying bool
}

type modelItem struct {
	Item
	seq int
}

func newModel(rate float64) *model {
	b, _ := NewTokenBucket(max(rate, 0), 1)
	return &model{set: map[string]bool{}, bucket: b}
}

func (m *model) clamp(now time.Time) time.Time {
	if now.Before(m.last) {
		return m.last
	}
	m.last = now
	return now
}

func (m *model) find(name string) int {
	for i, it := range m.items {
		if it.Name == name {
			return i
		}
	}
	return -1
}

func (m *model) head() int {
	best := -1
	for i, it := range m.items {
		if best < 0 || it.ProcessAt.Before(m.items[best].ProcessAt) || (it.ProcessAt.Equal(m.items[best].ProcessAt) && it.seq < m.items[best].seq) {
			best = i
		}
	}
	return best
}

func (m *model) add(name, uid string, now time.Time) bool {
	now = m.clamp(now)
	if m.set[name] {
		return false
	}
	m.set[name] = true
	m.seq++
	m.items = append(m.items, modelItem{Item{Name: name, UID: uid, AddedAt: now, ProcessAt: now}, m.seq})
	return true
}

func (m *model) remove(name string) bool {
	if !m.set[name] {
		return false
	}
	delete(m.set, name)
	if i := m.find(name); i >= 0 {
		m.items = slices.Delete(m.items, i, i+1)
	}
	return true
}

func (m *model) removeFromQueue(name string) bool {
	if i := m.find(name); i >= 0 {
		m.items = slices.Delete(m.items, i, i+1)
		return true
	}
	return false
}

func (m *model) setRate(rate float64, now time.Time) {
	now = m.clamp(now)
	if rate == m.bucket.Rate() {
		return
	}
	if rate <= 0 {
		m.bucket, _ = NewTokenBucket(0, 1)
		return
	}
	nb, _ := NewTokenBucket(rate, 1)
	if !m.bucket.Allow(now) {
		nb.Allow(now)
	}
	m.bucket = nb
}

func (m *model) try(now time.Time, fn func(Item) (bool, time.Duration)) int {
	if m.trying {
		return 0
	}
	m.trying = true
	defer func() { m.trying = false }()
	now = m.clamp(now)
	n := 0
	for {
		h := m.head()
		if h < 0 || now.Before(m.items[h].ProcessAt) || !m.bucket.Allow(now) {
			return n
		}
		n++
		it := m.items[h].Item
		done, wait := fn(it)
		i := m.find(it.Name)
		switch {
		case i < 0:
		case done:
			m.items = slices.Delete(m.items, i, i+1)
		default:
			m.items[i].Item = it
			m.items[i].ProcessAt = now.Add(wait + 1)
		}
	}
}

// queueOp is one operation on a queue, applied the same way to the real
// queue and to the model.
type queueOp struct {
	kind int // 0 Add, 1 Remove, 2 RemoveFromQueue, 3 Clear, 4 SetRate, 5 Try, 6 done, 7 retry
	name string
	at   time.Duration
	rate float64
}

var genQueueOp = rapid.Custom(func(t *rapid.T) queueOp {
	return queueOp{
		kind: rapid.IntRange(0, 7).Draw(t, "kind"),
		name: rapid.SampledFrom([]string{"a", "b", "c", "d", "e"}).Draw(t, "name"),
		at:   time.Duration(rapid.IntRange(-2, 30).Draw(t, "at")) * time.Second,
		rate: rapid.SampledFrom([]float64{0, 0.1, 0.5, 1, 1e10}).Draw(t, "rate"),
	}
})

// Random sequences of Add, Remove, RemoveFromQueue, Clear, SetRate and Try,
// where the action Try runs itself performs random operations on the queue
// (nested Trys included): no panic, the heap stays consistent, and the
// queue agrees with the naive model on what Try hands out and returns, on
// the queued items in order, and on the dedupe set.
func TestPropertyQueueReentrant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rate := rapid.SampledFrom([]float64{0, 0.1, 1, 1e10}).Draw(t, "rate")
		q, _ := NewRateLimitedQueue(rate, FixedQueueOptions())
		m := newModel(rate)
		ops := rapid.SliceOfN(genQueueOp, 1, 40).Draw(t, "ops")
		// inner[k] are the operations the k-th call of an action makes,
		// and its answer (the last op of kind 6 or 7; done by default).
		inner := rapid.SliceOfN(rapid.SliceOfN(genQueueOp, 0, 4), 40, 40).Draw(t, "inner")
		var handedQ, handedM []Item
		var apply func(op queueOp, depth int, real bool) int
		calls := map[bool]int{}
		action := func(real bool, depth int) func(Item) (bool, time.Duration) {
			return func(it Item) (bool, time.Duration) {
				if real {
					handedQ = append(handedQ, it)
				} else {
					handedM = append(handedM, it)
				}
				k := calls[real] % len(inner)
				calls[real]++
				done, wait := true, time.Duration(0)
				for _, op := range inner[k] {
					switch op.kind {
					case 6:
						done = true
					case 7:
						done, wait = false, op.at
					default:
						if depth < 2 {
							apply(op, depth+1, real)
						}
					}
				}
				return done, wait
			}
		}
		apply = func(op queueOp, depth int, real bool) int {
			now := t0.Add(op.at)
			if real {
				switch op.kind {
				case 0:
					q.Add(now, op.name, op.name)
				case 1:
					q.Remove(op.name)
				case 2:
					q.RemoveFromQueue(op.name)
				case 3:
					q.Clear()
				case 4:
					_ = q.SetRate(now, op.rate)
				case 5:
					return q.Try(now, action(true, depth))
				}
				return 0
			}
			switch op.kind {
			case 0:
				m.add(op.name, op.name, now)
			case 1:
				m.remove(op.name)
			case 2:
				m.removeFromQueue(op.name)
			case 3:
				m.items, m.set = nil, map[string]bool{}
			case 4:
				m.setRate(op.rate, now)
			case 5:
				return m.try(now, action(false, depth))
			}
			return 0
		}
		for i, op := range ops {
			nq := apply(op, 0, true)
			nm := apply(op, 0, false)
			checkHeap(t, q)
			if nq != nm {
				t.Fatalf("op %d %+v: Try returned %d, model %d", i, op, nq, nm)
			}
			if !slices.Equal(handedQ, handedM) {
				t.Fatalf("op %d %+v: handed out %v, model %v", i, op, handedQ, handedM)
			}
			var want []Item
			for _, it := range m.items {
				want = append(want, it.Item)
			}
			slices.SortStableFunc(want, func(a, b Item) int { return a.ProcessAt.Compare(b.ProcessAt) })
			if got := queueItems(q); !slices.Equal(got, want) {
				t.Fatalf("op %d: queued %v, model %v", i, got, want)
			}
			for _, n := range []string{"a", "b", "c", "d", "e"} {
				if q.Contains(n) != m.set[n] || q.Queued(n) != (m.find(n) >= 0) {
					t.Fatalf("op %d: %s: Contains %v Queued %v, model %v %v", i, n, q.Contains(n), q.Queued(n), m.set[n], m.find(n) >= 0)
				}
			}
		}
	})
}
