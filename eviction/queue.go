package eviction

import (
	"fmt"
	"math"
	"time"

	"github.com/nodelife/nodelife/internal/clock"
)

// QueueOptions selects fixes of two defects of upstream's rate-limited
// queue. The zero value is upstream's RateLimitedTimedQueue exactly, defects
// included, as every default of the library is upstream's; FixedQueueOptions
// turns both fixes on.
type QueueOptions struct {
	// RestartStopped makes a stopped queue report rate 0, so that any
	// positive rate, 1 included, restarts it. Off (upstream): a stopped
	// queue reports rate 1, as client-go's "never" limiter reports QPS 1,
	// and since SetRate skips a swap to the rate already reported, a zone
	// stopped this way ignores SetRate(1) and stays stopped
	// (kubernetes#104639; the fix, PR #104936, was closed).
	RestartStopped bool
	// TokenOnlyForDue makes Try take a token only for an item it
	// processes. Off (upstream's RateLimitedTimedQueue.Try): the token is
	// taken before Try looks at whether the head item is due, so a pass
	// that finds only a not-yet-due head still uses up the zone's rate.
	TokenOnlyForDue bool
}

// FixedQueueOptions returns the options with both of upstream's queue
// defects fixed.
func FixedQueueOptions() QueueOptions {
	return QueueOptions{RestartStopped: true, TokenOnlyForDue: true}
}

// TaintQueueBurst is the burst of every zone's tainting limiter
// (upstream's EvictionRateLimiterBurst).
const TaintQueueBurst = 1

// Item is an entry of a RateLimitedQueue (upstream's TimedValue).
type Item struct {
	// Name is the queued value, a node name.
	Name string
	// UID is the node's UID when it was queued.
	UID string
	// AddedAt is when the item was added.
	AddedAt time.Time
	// ProcessAt is when the item is due: AddedAt, or later after a retry.
	ProcessAt time.Time
}

type entry struct {
	Item
	seq   uint64
	index int
}

// RateLimitedQueue is the node lifecycle controller's per-zone tainting
// queue (upstream's RateLimitedTimedQueue over a UniqueQueue), driven by
// explicit times:
//
//   - items are kept in a min-heap by ProcessAt, ties in the order they
//     were added (upstream's heap leaves ties unordered);
//   - names are deduplicated: Add refuses a name that is queued, and also a
//     name whose item was processed successfully, until Remove or Clear
//     forgets it. The node controller relies on this: a tainted node is not
//     queued again until it has been Ready;
//   - Try processes due items at the rate of a token bucket of burst 1.
//
// Operations are O(log n). A now earlier than one already seen is clamped.
// Not safe for concurrent use.
//
// There is no useful zero value: use NewRateLimitedQueue.
type RateLimitedQueue struct {
	opts   QueueOptions
	bucket *TokenBucket
	heap   []*entry
	queued map[string]*entry   // in the heap
	names  map[string]struct{} // the dedupe set: queued, or processed and not yet removed
	seq    uint64
	last   time.Time
	trying bool // a Try is running: a nested one does nothing
	// unordered is set when requeue changed keys without restoring the
	// heap order; whatever reads the order first restores it (order), so
	// that a pass that requeues k waiting items costs O(k + n), not
	// O(k log n).
	unordered bool
}

// NewRateLimitedQueue returns an empty queue whose limiter starts full at
// rate items per second with burst 1. rate 0 (or below, as upstream) makes
// a stopped queue. It returns an error wrapping ErrInvalidRate for NaN or an
// infinite rate.
func NewRateLimitedQueue(rate float64, opts QueueOptions) (*RateLimitedQueue, error) {
	if err := checkQueueRate(rate); err != nil {
		return nil, err
	}
	b, _ := NewTokenBucket(math.Max(limiterRate(rate), 0), TaintQueueBurst)
	return &RateLimitedQueue{
		opts:   opts,
		bucket: b,
		queued: make(map[string]*entry),
		names:  make(map[string]struct{}),
	}, nil
}

// limiterRate is rate as upstream's limiter holds it: the flags and
// client-go's QPS are float32, so a rate such as 0.01 refills a little
// slower than its float64 value says (a drained bucket at 0.01 has
// 0.99999998 of a token after 100s, and grants it at the next tainting
// pass).
func limiterRate(rate float64) float64 { return float64(float32(rate)) }

// checkQueueRate rejects NaN and infinite rates; negative ones mean stopped.
func checkQueueRate(rate float64) error {
	if math.IsNaN(rate) || math.IsInf(rate, 0) {
		return wrap(ErrInvalidRate, fmt.Sprintf("queue rate %v must be a finite number of items per second", rate))
	}
	return nil
}

// Rate returns the limiter's rate as upstream's QPS reports it, a float32
// (0.1 reads 0.10000000149011612): 1 for a stopped queue, as upstream's,
// or 0 with RestartStopped.
func (q *RateLimitedQueue) Rate() float64 {
	if q.bucket.Stopped() && !q.opts.RestartStopped {
		return 1
	}
	return q.bucket.Rate()
}

// Stopped reports whether the queue's limiter never grants a token.
func (q *RateLimitedQueue) Stopped() bool { return q.bucket.Stopped() }

// SetRate swaps the limiter, as upstream's SwapLimiter:
//
//   - a rate equal to Rate() changes nothing;
//   - a rate <= 0 stops the queue;
//   - otherwise a new bucket of burst 1 replaces the old one, and if the old
//     one had no token at now (a stopped one never has) the new one starts
//     empty, so a zone cannot gain a token by changing rate.
//
// It returns an error wrapping ErrInvalidRate, and changes nothing, for NaN
// or an infinite rate.
func (q *RateLimitedQueue) SetRate(now time.Time, rate float64) error {
	if err := checkQueueRate(rate); err != nil {
		return err
	}
	now = clock.Clamp(&q.last, now, true)
	rate = limiterRate(rate)
	if rate == q.Rate() {
		return nil
	}
	if rate <= 0 {
		q.bucket, _ = NewTokenBucket(0, TaintQueueBurst)
		return nil
	}
	nb, _ := NewTokenBucket(rate, TaintQueueBurst)
	if !q.bucket.Allow(now) {
		nb.Allow(now)
	}
	q.bucket = nb
	return nil
}

// Add queues name, due at now, and reports whether it did; false means the
// name is in the dedupe set (queued, or processed and not yet removed).
func (q *RateLimitedQueue) Add(now time.Time, name, uid string) bool {
	now = clock.Clamp(&q.last, now, true)
	if _, ok := q.names[name]; ok {
		return false
	}
	q.names[name] = struct{}{}
	q.seq++
	e := &entry{Item: Item{Name: name, UID: uid, AddedAt: now, ProcessAt: now}, seq: q.seq}
	q.queued[name] = e
	q.push(e)
	return true
}

// Requeue is Remove and Add of a queued name in one, done in place: the
// item becomes due at now and last among the items due then, with uid, as
// a fresh Add makes it. It reports false, changing nothing, when name is
// not queued. The node lifecycle controller does this to every node still
// waiting in its zone's queue at every monitor pass; in place, a pass that
// requeues k of n items costs O(k + n) instead of O(k log n).
func (q *RateLimitedQueue) Requeue(now time.Time, name, uid string) bool {
	e, ok := q.queued[name]
	if !ok {
		return false
	}
	now = clock.Clamp(&q.last, now, true)
	q.seq++
	e.UID, e.AddedAt, e.ProcessAt, e.seq = uid, now, now, q.seq
	q.unordered = true
	return true
}

// order restores the heap order after requeue.
func (q *RateLimitedQueue) order() {
	if !q.unordered {
		return
	}
	for i := len(q.heap)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
	q.unordered = false
}

// Remove takes name out of the queue and out of the dedupe set, so it can
// be added again, and reports whether it was in the set.
func (q *RateLimitedQueue) Remove(name string) bool {
	if _, ok := q.names[name]; !ok {
		return false
	}
	delete(q.names, name)
	if e, ok := q.queued[name]; ok {
		q.removeEntry(e)
	}
	return true
}

// RemoveFromQueue takes name out of the queue but leaves it in the dedupe
// set, so Add keeps refusing it, and reports whether it was queued.
func (q *RateLimitedQueue) RemoveFromQueue(name string) bool {
	e, ok := q.queued[name]
	if !ok {
		return false
	}
	q.removeEntry(e)
	return true
}

// Retry puts name back in the queue, due at processAt, and reports whether
// it did. It works for a queued name (its ProcessAt changes) and for a name
// processed but still in the dedupe set (for a caller whose action failed
// after Try counted it as done); it refuses a name not in the set.
func (q *RateLimitedQueue) Retry(name, uid string, processAt time.Time) bool {
	if _, ok := q.names[name]; !ok {
		return false
	}
	if e, ok := q.queued[name]; ok {
		e.ProcessAt = processAt
		q.fix(e.index)
		return true
	}
	q.seq++
	e := &entry{Item: Item{Name: name, UID: uid, AddedAt: processAt, ProcessAt: processAt}, seq: q.seq}
	q.queued[name] = e
	q.push(e)
	return true
}

// Clear empties the queue and the dedupe set.
func (q *RateLimitedQueue) Clear() {
	for _, e := range q.heap {
		e.index = -1
	}
	q.heap = nil
	q.unordered = false
	clear(q.queued)
	clear(q.names)
}

// Head returns the item due first, without removing it.
func (q *RateLimitedQueue) Head() (Item, bool) {
	q.order()
	if len(q.heap) == 0 {
		return Item{}, false
	}
	return q.heap[0].Item, true
}

// Len returns the number of queued items.
func (q *RateLimitedQueue) Len() int { return len(q.heap) }

// Queued reports whether name is in the queue.
func (q *RateLimitedQueue) Queued(name string) bool {
	_, ok := q.queued[name]
	return ok
}

// Contains reports whether name is in the dedupe set: queued, or processed
// and not yet removed.
func (q *RateLimitedQueue) Contains(name string) bool {
	_, ok := q.names[name]
	return ok
}

// Try processes due items at now, head first, as upstream's Try, and
// returns how many it passed to fn. For each item it needs a token from the
// limiter and the item must be due (ProcessAt not after now); it stops at
// the first item that lacks either. fn returns done=true to drop the item
// (its name stays in the dedupe set) or done=false and a wait to retry it at
// now + wait + 1ns.
//
// By default the token is taken first, as upstream's; with
// TokenOnlyForDue only for an item that is due.
//
// fn may call any method of q. What fn returns then applies to the item
// queued under the name fn was given, as upstream's UniqueQueue applies it
// by value: if fn removed the name (Remove, RemoveFromQueue, Clear), there
// is nothing to drop or retry; if fn removed it and added it again, done
// drops the new item and a retry replaces it with the item fn was given,
// due at now + wait + 1ns. A Try called from inside fn processes nothing
// and returns 0 (upstream's would deadlock on its lock). Items fn adds are
// processed in the same pass if they are due and tokens remain.
func (q *RateLimitedQueue) Try(now time.Time, fn func(Item) (done bool, retryAfter time.Duration)) int {
	if q.trying {
		return 0
	}
	q.trying = true
	defer func() { q.trying = false }()
	now = clock.Clamp(&q.last, now, true)
	n := 0
	for len(q.heap) > 0 {
		q.order() // fn may have requeued items
		head := q.heap[0]
		if !q.opts.TokenOnlyForDue {
			if !q.bucket.Allow(now) || now.Before(head.ProcessAt) {
				break
			}
		} else if now.Before(head.ProcessAt) || !q.bucket.Allow(now) {
			break
		}
		n++
		it := head.Item
		done, wait := fn(it)
		e := head
		if e.index < 0 {
			// fn took the item out; the name may be queued again anew.
			var ok bool
			if e, ok = q.queued[it.Name]; !ok {
				continue
			}
		}
		if done {
			q.removeEntry(e)
			continue
		}
		e.Item = it
		e.ProcessAt = now.Add(wait + 1)
		q.fix(e.index)
	}
	return n
}

// Next returns the earliest time, not before now, at which Try could
// process the head item (it is due and the limiter has a token), and false
// when the queue is empty or stopped.
func (q *RateLimitedQueue) Next(now time.Time) (time.Time, bool) {
	q.order()
	if len(q.heap) == 0 {
		return time.Time{}, false
	}
	t, ok := q.bucket.NextAllow(now)
	if !ok {
		return time.Time{}, false
	}
	if p := q.heap[0].ProcessAt; p.After(t) {
		t = p
	}
	return t, true
}

// heap maintenance: a binary min-heap ordered by (ProcessAt, seq).

func (q *RateLimitedQueue) less(i, j int) bool {
	a, b := q.heap[i], q.heap[j]
	if !a.ProcessAt.Equal(b.ProcessAt) {
		return a.ProcessAt.Before(b.ProcessAt)
	}
	return a.seq < b.seq
}

func (q *RateLimitedQueue) swap(i, j int) {
	q.heap[i], q.heap[j] = q.heap[j], q.heap[i]
	q.heap[i].index = i
	q.heap[j].index = j
}

func (q *RateLimitedQueue) push(e *entry) {
	e.index = len(q.heap)
	q.heap = append(q.heap, e)
	if !q.unordered {
		q.up(e.index)
	}
}

func (q *RateLimitedQueue) removeEntry(e *entry) {
	delete(q.queued, e.Name)
	i, last := e.index, len(q.heap)-1
	if i != last {
		q.swap(i, last)
	}
	q.heap[last] = nil
	q.heap = q.heap[:last]
	e.index = -1 // out of the queue
	if i != last {
		q.fix(i)
	}
}

func (q *RateLimitedQueue) fix(i int) {
	if q.unordered {
		return // order restores it all
	}
	if !q.down(i) {
		q.up(i)
	}
}

func (q *RateLimitedQueue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			return
		}
		q.swap(i, p)
		i = p
	}
}

func (q *RateLimitedQueue) down(i int) bool {
	start, n := i, len(q.heap)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			break
		}
		q.swap(i, m)
		i = m
	}
	return i > start
}
