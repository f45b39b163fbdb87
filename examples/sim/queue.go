package sim

import "time"

// The kinds of queued events. Events due at the same time run in the order
// they were queued (queue.less), whatever their kind.
const (
	evOutage = iota
	evHeartbeat
	evController
	evAction
	evCloud
	evPodGC
	evSample
)

// item is a queued event: what (kind, idx) and when (at; key is at in
// Unix nanoseconds, seq the order it was queued in).
type item struct {
	at   time.Time
	key  int64
	seq  uint64
	kind uint8
	idx  int32
}

// queue is the event queue: a binary min-heap ordered by time, then by
// the order events were queued.
type queue []item

func (q queue) less(i, j int) bool {
	if q[i].key != q[j].key {
		return q[i].key < q[j].key
	}
	return q[i].seq < q[j].seq
}

// push queues it.
func (q *queue) push(it item) {
	*q = append(*q, it)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// pop removes and returns the first event; the queue must not be empty.
func (q *queue) pop() item {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && h.less(l, m) {
			m = l
		}
		if r := l + 1; r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}
