package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/nodelife/nodelife/lease"
	"github.com/nodelife/nodelife/nodelifecycle"
)

// Renewals of quiet nodes.
//
// A node that no scenario touches (no shutdown, pressure, cloud deletion
// or condition episode, and no lease cache stall in the run), from its
// first round or from the end of its last outage on, does nothing but
// renew its lease every ten seconds or so: 18 million renewals in 30
// minutes at 100,000 nodes, none of which can change anything but the
// lease's renew time until the controller's next monitor pass reads it.
// Such a node's later renewals do not go through the event queue and its
// lease.Heartbeat: they wait in a bucket per second, and are carried out,
// in bulk and in node order, just before the controller next runs
// (flushRenewals), each as the Heartbeat would have done it at its own
// time: the renew time written, the next renewal drawn from the node's
// own jitter state (run.jitter, the draw the Heartbeat's Rand makes, and
// lease.Jitter, the interval it computes), the same sequence number and
// counts as a queued heartbeat. A run gives the same Result either way
// (TestQuietRenewalsChangeNothing).
//
// The shortcut is exact only while a quiet node's posted Ready stays True,
// which holds when the controller cannot time its lease out between two
// renewals: quietAllowed checks the grace period against the longest
// renewal gap and monitor period, and the run fails (bulkStatusError)
// should the controller write the status of a node renewing in bulk
// anyway.

// renewal is a quiet node's next lease renewal: its time (Unix
// nanoseconds), the sequence number a queued heartbeat would have had, and
// the node.
type renewal struct {
	at  int64
	seq uint64
	idx int32
}

// renewals holds the pending renewals of quiet nodes in one bucket per
// second since the run's start.
type renewals struct {
	start   int64       // the run's start, Unix nanoseconds
	buckets [][]renewal // by whole seconds since start
	next    int         // the first bucket that may hold a renewal
	spare   [][]renewal // emptied buckets, for reuse
}

// eagerRenewals makes every node renew and retry through the queue, for
// the tests that compare both ways.
var eagerRenewals = false

// afterRun, when set (by tests), sees each run as it ends.
var afterRun func(*run)

// quietAllowed reports whether quiet nodes may renew in bulk in this run:
// no lease cache stall (the cache must see each renewal as it is written),
// and a grace period longer than the longest gap between two renewals plus
// a monitor period, so that no pass can find a quiet node's lease timed
// out.
func (r *run) quietAllowed() bool {
	if eagerRenewals || len(r.cfg.LeaseCacheStalls) > 0 || len(r.nodes) == 0 {
		return false
	}
	every := r.hbCfg.RenewInterval()
	longest := time.Duration(float64(every) * (1 + r.hbCfg.JitterFactor))
	lc := r.cfg.Controller
	// At least 2 s between renewals: a renewal never lands in the bucket
	// being flushed.
	return every >= 2*time.Second && lc.NodeMonitorGracePeriod > longest+lc.NodeMonitorPeriod+time.Second
}

// touchedNodes flags the nodes a scenario touches: shutdowns, cloud
// deletions, pressures and condition episodes.
func (r *run) touchedNodes() []bool {
	touched := make([]bool, len(r.nodes))
	mark := func(idx []int) {
		for _, i := range idx {
			touched[i] = true
		}
	}
	for _, s := range r.cfg.Shutdowns {
		mark(r.selectNodes(s.Zone, s.Nodes, s.Names))
	}
	for _, d := range r.cfg.CloudDeletions {
		mark(r.selectNodes(d.Zone, d.Nodes, d.Names))
	}
	for _, p := range r.cfg.Pressures {
		if i, ok := r.index[p.Node]; ok {
			touched[i] = true
		}
	}
	for _, ep := range r.cfg.ConditionEpisodes {
		mark(r.episodeNodes(ep))
	}
	return touched
}

// markQuiet flags the nodes no scenario touches (see above), and those
// cut off to the end that retry alone (retryUntilEnd).
func (r *run) markQuiet() {
	if eagerRenewals {
		return
	}
	touched := r.touchedNodes()
	for i := range r.nodes {
		r.nodes[i].retryAlone = !touched[i]
	}
	if !r.quietAllowed() {
		return
	}
	for i := range r.nodes {
		n := &r.nodes[i]
		// A node cut off for a while renews in bulk once its last outage is
		// over (and it has written its lease again); one cut off to the end
		// never does.
		n.quiet = !touched[i] && !n.off
		for _, w := range n.cut {
			if w[1].IsZero() {
				n.quiet = false
			} else if w[1].After(n.quietFrom) {
				n.quietFrom = w[1]
			}
		}
	}
	r.lazy = r.cfg.Controller == nil || !r.cfg.Controller.EveryNodePass
	if r.lazy {
		r.maxGap = r.every + time.Nanosecond
		if r.hbCfg.JitterFactor > 0 {
			r.maxGap = time.Duration(float64(r.every)*(1+r.hbCfg.JitterFactor)) + time.Nanosecond
		}
		return
	}
	r.renew = renewals{start: r.cfg.Start.UnixNano(), buckets: make([][]renewal, int(r.cfg.Duration/time.Second)+2)}
}

// Lazy renewals.
//
// With the controller's event-driven passes (the default; not with
// nodelifecycle.Config.EveryNodePass) a quiet node's renewals do not even
// wait in buckets: the controller is given them as a schedule
// (nodelifecycle.Controller.SetRenewals) and asks for them only when it
// needs the node's lease, which for a node that renews steadily within its
// grace period is when something else wakes it. They are made as they are
// asked for, from the node's own jitter stream as renewQuiet makes them,
// and the rest are made at the end of the run (finishLazy), counted as
// queued heartbeats would be. What the controller reads of them is the
// renew time: the lease keeps the resource version of the node's last
// write before (the lease circuit breaker asks only about timed-out
// nodes, which a quiet node cannot be).

// lazyRenewals is quiet node i's renewals as the controller reads them.
type lazyRenewals struct {
	r *run
	i int
}

// Last makes node i's renewals up to t (the run's end at most) and
// returns the last one.
func (k lazyRenewals) Last(t time.Time) (time.Time, string, bool) {
	n := &k.r.nodes[k.i]
	k.r.advance(k.i, min(t.UnixNano(), k.r.end.UnixNano()))
	return time.Unix(0, n.lzLast).In(k.r.cfg.Start.Location()), n.rv(), true
}

// Steady says that node i renews for ever, from its last write before,
// at most maxGap apart.
func (k lazyRenewals) Steady() (time.Time, time.Duration, time.Time) {
	return time.Unix(0, k.r.nodes[k.i].lzFrom), k.r.maxGap, time.Time{}
}

// goLazy makes node i, which has just written its lease, renew lazily
// from next on.
func (r *run) goLazy(next time.Time, i int) {
	n := &r.nodes[i]
	n.bulk, n.lazy = true, true
	n.lzFrom = n.lease.RenewTime.UnixNano()
	n.lzLast, n.lzNext = n.lzFrom, next.UnixNano()
	if !n.hasRef {
		n.ref, n.hasRef = r.ctl.LeaseRef(n.name)
	}
	r.ctl.SetRenewals(n.ref, lazyRenewals{r: r, i: i})
}

// advance makes lazy node i's renewals up to t (Unix nanoseconds), each
// after the last as its Heartbeat would draw the interval.
func (r *run) advance(i int, t int64) {
	n := &r.nodes[i]
	for n.lzNext <= t {
		n.lzLast = n.lzNext
		n.lzCount++
		next := r.every
		if n.rand != nil {
			next = lease.Jitter(r.every, r.hbCfg.JitterFactor, r.draw(i))
		}
		n.lzNext += int64(next)
	}
}

// finishLazy makes the lazy nodes' renewals up to the run's end and
// counts them as renewQuiet counts its own: a heartbeat each, and a queue
// event each and one for the first.
func (r *run) finishLazy() {
	end := r.end.UnixNano()
	for i := range r.nodes {
		n := &r.nodes[i]
		if !n.lazy {
			continue
		}
		r.advance(i, end)
		r.res.Totals.Heartbeats += n.lzCount
		r.res.Totals.QueueEvents += n.lzCount + 1
		r.quietRenewals += n.lzCount
	}
}

// Retries of nodes cut off to the end.
//
// A kubelet cut off from the API server for the rest of the run, which no
// scenario touches (nothing can power it off), does nothing but fail its
// lease requests and wait its backoff: a third of 100,000 nodes over a
// zone's outage, each round a queue event and a cache miss or three.
// Nothing of another node depends on its rounds, nor its rounds on
// anything but its own lease.Heartbeat (its jitter is its own): its
// rounds are run one after the other at once, from its first one cut off
// to the end, each counted (requests, queue events, sequence numbers) as
// its queued event would have been. TestQuietRenewalsChangeNothing
// compares whole results with every round queued.

// cutToEnd reports whether node n is cut off from now to the end of the
// run (an outage without an end has begun).
func (n *node) cutToEnd(now time.Time) bool {
	for _, w := range n.cut {
		if w[1].IsZero() && !now.Before(w[0]) {
			return true
		}
	}
	return false
}

// failRound is one heartbeat round of a kubelet cut off: each request
// fails.
func (r *run) failRound(now time.Time, n *node) lease.HeartbeatStep {
	s := n.hb.Step(now)
	for tries := 0; s.Op != lease.OpWait && tries < 16; tries++ {
		r.res.Totals.Heartbeats++
		s = n.hb.Done(now, lease.Failed, nil)
	}
	return s
}

// nextRound is when the heartbeat runs again after a round that ended
// with s at now.
func nextRound(s lease.HeartbeatStep, now time.Time) time.Time {
	if s.Op == lease.OpWait && s.Next.After(now) {
		return s.Next
	}
	return now.Add(time.Second)
}

// retryUntilEnd runs the rounds of node i's kubelet, cut off to the end,
// from at on, as the queue would have (see above).
func (r *run) retryUntilEnd(at time.Time, i int) {
	n := &r.nodes[i]
	for {
		r.seq++ // its event's push
		r.res.Totals.QueueEvents++
		if at.After(r.end) {
			return // pushed, never run
		}
		r.retriedAlone++
		at = nextRound(r.failRound(at, n), at)
	}
}

// addRenewal queues quiet node i's next renewal at at, numbered as a
// queued event would be.
func (r *run) addRenewal(at time.Time, i int) {
	r.seq++
	r.res.Totals.QueueEvents++
	r.nodes[i].bulk = true
	rn := renewal{at: at.UnixNano(), seq: r.seq, idx: int32(i)}
	b := int((rn.at - r.renew.start) / int64(time.Second))
	if b >= len(r.renew.buckets) {
		return // past the end: never run, as a queued event past the end
	}
	if r.renew.buckets[b] == nil && len(r.renew.spare) > 0 {
		last := len(r.renew.spare) - 1
		r.renew.buckets[b], r.renew.spare = r.renew.spare[last], r.renew.spare[:last]
	}
	r.renew.buckets[b] = append(r.renew.buckets[b], rn)
}

// flushRenewals carries out the quiet nodes' renewals due before the event
// being handled (time now, sequence number seq): those a queued heartbeat
// would already have run.
func (r *run) flushRenewals(now time.Time, seq uint64) {
	if r.renew.buckets == nil {
		return
	}
	nowNs := now.UnixNano()
	last := min(int((nowNs-r.renew.start)/int64(time.Second)), len(r.renew.buckets)-1)
	for ; r.renew.next <= last; r.renew.next++ {
		b := r.renew.next
		// Renewals may add to buckets after b (each is 10 s or so ahead),
		// never to b itself. In node order, the nodes' states are read
		// front to back (the order of renewals within a flush changes only
		// the resource versions they are numbered with).
		slices.SortFunc(r.renew.buckets[b], func(x, y renewal) int { return cmp.Compare(x.idx, y.idx) })
		kept := r.renew.buckets[b][:0]
		for _, rn := range r.renew.buckets[b] {
			if rn.at > nowNs || (rn.at == nowNs && rn.seq > seq) {
				kept = append(kept, rn)
				continue
			}
			r.renewQuiet(rn)
		}
		if len(kept) > 0 {
			r.renew.buckets[b] = kept // due later: the next flush looks again
			return
		}
		r.renew.spare = append(r.renew.spare, r.renew.buckets[b][:0])
		r.renew.buckets[b] = nil
	}
}

// renewQuiet renews quiet node rn.idx at rn.at as its Heartbeat would
// have: one update, the lease's renew time and resource version written
// and sent to the controller's lease cache, the next renewal queued.
func (r *run) renewQuiet(rn renewal) {
	n := &r.nodes[rn.idx]
	at := time.Unix(0, rn.at).In(r.cfg.Start.Location())
	r.res.Totals.Heartbeats++
	r.quietRenewals++
	*n.lease.RenewTime = at
	r.leaseRV++
	n.leaseRV = r.leaseRV
	r.deliverLease(n)
	next := r.every
	if n.rand != nil {
		// as the node's Heartbeat draws and stretches it
		next = lease.Jitter(r.every, r.hbCfg.JitterFactor, r.draw(int(rn.idx)))
	}
	r.addRenewal(at.Add(next), int(rn.idx))
}

// draw is node i's next jitter draw in [0, 1): splitmix64 on its state in
// run.jitter (eight bytes a node, side by side).
func (r *run) draw(i int) float64 {
	r.jitter[i] += 0x9e3779b97f4a7c15
	z := r.jitter[i]
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

// bulkStatusError is the error of a run in which the controller writes
// the status of a node renewing in bulk, which quietAllowed rules out.
func bulkStatusError(n *node) error {
	return fmt.Errorf("sim: the controller writes the status of %s, which renews in bulk", n.name)
}

// rv is the node's lease resource version as the API server writes it.
func (n *node) rv() string {
	if n.rvsOf != n.leaseRV || n.rvs == "" {
		n.rvs, n.rvsOf = strconv.FormatUint(n.leaseRV, 10), n.leaseRV
	}
	return n.rvs
}

// jitterSeed is node i's first jitter state for seed.
func jitterSeed(seed int64, i int) uint64 {
	return uint64(seed)*0x9e3779b97f4a7c15 ^ uint64(i)*0xbf58476d1ce4e5b9
}

// deliverLease gives the controller's lease cache the node's lease as
// last written (through the node's LeaseRef, once the controller has the
// node: no lookup by name per renewal).
func (r *run) deliverLease(n *node) {
	if !n.hasRef {
		n.ref, n.hasRef = r.ctl.LeaseRef(n.name)
	}
	if n.hasRef {
		r.ctl.RenewLease(n.ref, *n.lease.RenewTime, n.rv())
	} else {
		r.ctl.UpsertLease(nodelifecycle.Lease{Node: n.name, RenewTime: *n.lease.RenewTime, ResourceVersion: n.rv()})
	}
	r.cacheRV = max(r.cacheRV, n.leaseRV)
}
