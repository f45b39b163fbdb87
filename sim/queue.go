package sim

import (
	"time"

	"github.com/nodelife/nodelife/internal/minheap"
)

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
	evLeaseCache // idx 1: a lease cache stall begins, 0: it ends
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

func itemBefore(a, b *item) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.seq < b.seq
}

// push queues it.
func (q *queue) push(it item) { *q = minheap.Push(*q, it, itemBefore) }

// pop removes and returns the first event; the queue must not be empty.
func (q *queue) pop() item {
	it, h := minheap.Pop(*q, itemBefore)
	*q = h
	return it
}
