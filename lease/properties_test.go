package lease_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/nodelife/nodelife/lease"
	"github.com/nodelife/nodelife/nodelifetest"
	"pgregory.net/rapid"
)

// t0 is the start of every drawn history.
var t0 = nodelifetest.Epoch()

// The back-off never exceeds its cap and, with jitter no larger than
// Factor-1, never decreases until Reset.
func TestPropertyBackoff(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := nodelifetest.Backoffs().Draw(t, "backoff")
		var prev time.Duration
		for i := rapid.IntRange(1, 60).Draw(t, "n"); i > 0; i-- {
			if rapid.IntRange(0, 9).Draw(t, "reset") == 0 {
				b.Reset()
				prev = 0
			}
			w := b.Next()
			if w > b.Cap || w < prev || w <= 0 {
				t.Fatalf("wait %v after %v (initial %v factor %v jitter %v cap %v)", w, prev, b.Initial, b.Factor, b.Jitter, b.Cap)
			}
			prev = w
		}
	})
}

// With every write succeeding, the heartbeat always writes the next renewal
// before the lease it wrote last would expire.
func TestPropertyHeartbeatRenewsInTime(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := nodelifetest.HeartbeatConfigs("node").Draw(t, "config")
		h, err := lease.NewHeartbeat(cfg)
		if err != nil {
			t.Fatal(err)
		}
		h.SetNodeUID("node-uid")
		now := t0
		var expires time.Time
		s := h.Step(now)
		for i := 0; i < 50; i++ {
			switch s.Op {
			case lease.OpWait:
				now = s.Next
				s = h.Step(now)
				continue
			case lease.OpGet:
				now = now.Add(time.Duration(rapid.IntRange(0, 100).Draw(t, "latency")) * time.Millisecond)
				s = h.Done(now, lease.NotFound, nil)
				continue
			}
			// A write (update or create): it must come before expiry.
			if !expires.IsZero() && !now.Before(expires) {
				t.Fatalf("write at %v, lease expired at %v", now.Sub(t0), expires.Sub(t0))
			}
			expires, _ = s.Object().ExpiresAt()
			s = h.Done(now, lease.OK, nil)
		}
	})
}

// electionWorld is a lock shared by two electors, with a resource version,
// whose requests run atomically at the global time.
type electionWorld struct {
	rec     *lease.Record
	version int
}

func (w *electionWorld) apply(s lease.ElectionStep, fail bool) (lease.Outcome, lease.Record, string) {
	if fail {
		return lease.Failed, lease.Record{}, ""
	}
	switch s.Op {
	case lease.OpGet:
		if w.rec == nil {
			return lease.NotFound, lease.Record{}, ""
		}
		return lease.OK, *w.rec, strconv.Itoa(w.version)
	case lease.OpCreate:
		if w.rec != nil {
			return lease.Conflict, lease.Record{}, ""
		}
	case lease.OpUpdate:
		if w.rec == nil {
			return lease.NotFound, lease.Record{}, ""
		}
		if s.Version != strconv.Itoa(w.version) {
			return lease.Conflict, lease.Record{}, ""
		}
	}
	r := s.Record
	w.rec = &r
	w.version++
	return lease.OK, lease.Record{}, strconv.Itoa(w.version)
}

// Two electors share one lock under any interleaving of their steps, clock
// advances, failed requests and lost replies, with clocks that run at the
// same rate but differ by a constant offset. Whenever both believe they
// lead, one of them is past its MustStopBy: a new leader never takes over
// before the old one's deadline. Transitions only grow.
func TestPropertyElectionSafety(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var w electionWorld
		var es [2]*lease.Elector
		var offset [2]time.Duration
		var pending [2]lease.ElectionStep
		for i := range es {
			cfg := nodelifetest.ElectionConfigs("e"+strconv.Itoa(i)).Draw(t, "config")
			var err error
			if es[i], err = lease.NewElector(cfg); err != nil {
				t.Fatal(err)
			}
			offset[i] = time.Duration(rapid.Int64Range(-int64(time.Hour), int64(time.Hour)).Draw(t, "offset"))
		}
		global := t0
		local := func(i int) time.Time { return global.Add(offset[i]) }
		maxTransitions := 0
		for i := range es {
			pending[i] = es[i].Step(local(i))
		}
		for step := 0; step < 300; step++ {
			i := rapid.IntRange(0, 1).Draw(t, "who")
			switch rapid.IntRange(0, 9).Draw(t, "what") {
			case 0, 1:
				global = global.Add(time.Duration(rapid.Int64Range(0, int64(3*time.Second)).Draw(t, "dt")))
			case 2:
				// A long pause: whoever is not stepped next looks stalled.
				global = global.Add(time.Duration(rapid.Int64Range(0, int64(20*time.Second)).Draw(t, "pause")))
			case 3:
				if rapid.IntRange(0, 19).Draw(t, "cancel") == 0 {
					s := es[i].Release(local(i))
					if s.Op == lease.OpUpdate {
						w.apply(s, false)
					}
					pending[i] = s
				}
			default:
				s := pending[i]
				if s.Op == lease.OpWait {
					if s.Next.IsZero() || local(i).Before(s.Next) {
						continue
					}
					pending[i] = es[i].Step(local(i))
					continue
				}
				fail := rapid.IntRange(0, 9).Draw(t, "fail") == 0
				outcome, rec, ver := w.apply(s, fail)
				if rapid.IntRange(0, 19).Draw(t, "lostReply") == 0 {
					outcome = lease.Failed // the request ran but its reply was lost
				}
				pending[i] = es[i].Done(local(i), outcome, rec, ver)
			}
			if w.rec != nil {
				if w.rec.LeaderTransitions < maxTransitions {
					t.Fatalf("transitions went from %d to %d", maxTransitions, w.rec.LeaderTransitions)
				}
				maxTransitions = w.rec.LeaderTransitions
			}
			if es[0].Leading() && es[1].Leading() {
				past := func(i int) bool { return !local(i).Before(es[i].MustStopBy()) }
				if !past(0) && !past(1) {
					t.Fatalf("both lead at %v: must stop by %v and %v (local clocks %v, %v)",
						global.Sub(t0), es[0].MustStopBy().Sub(local(0)), es[1].MustStopBy().Sub(local(1)), offset[0], offset[1])
				}
			}
		}
	})
}
