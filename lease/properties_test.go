package lease

import (
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The back-off never exceeds its cap and, with jitter no larger than
// Factor-1, never decreases until Reset.
func TestPropertyBackoff(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		factor := rapid.Float64Range(1, 4).Draw(t, "factor")
		b := Backoff{
			Initial: time.Duration(rapid.Int64Range(1, int64(time.Minute)).Draw(t, "initial")),
			Factor:  factor,
			Jitter:  rapid.Float64Range(0, factor-1).Draw(t, "jitter"),
		}
		b.Cap = b.Initial + time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "extra"))
		b.Rand = func() float64 { return rapid.Float64Range(0, 0.999999).Draw(t, "r") }
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
		cfg := DefaultHeartbeatConfig("node")
		cfg.LeaseDurationSeconds = int32(rapid.IntRange(1, 300).Draw(t, "duration"))
		cfg.RenewIntervalFraction = rapid.Float64Range(0.01, 0.9).Draw(t, "fraction")
		cfg.JitterFactor = rapid.Float64Range(0, 1/cfg.RenewIntervalFraction-1.0001).Draw(t, "jitter")
		cfg.Rand = func() float64 { return rapid.Float64Range(0, 0.999999).Draw(t, "r") }
		h, err := NewHeartbeat(cfg)
		if err != nil {
			t.Fatal(err)
		}
		h.SetNodeUID("node-uid")
		now := t0
		var expires time.Time
		s := h.Step(now)
		for i := 0; i < 50; i++ {
			switch s.Op {
			case OpWait:
				now = s.Next
				s = h.Step(now)
				continue
			case OpGet:
				now = now.Add(time.Duration(rapid.IntRange(0, 100).Draw(t, "latency")) * time.Millisecond)
				s = h.Done(now, NotFound, nil)
				continue
			}
			// A write (update or create): it must come before expiry.
			if !expires.IsZero() && !now.Before(expires) {
				t.Fatalf("write at %v, lease expired at %v", now.Sub(t0), expires.Sub(t0))
			}
			expires, _ = s.Object().ExpiresAt()
			s = h.Done(now, OK, nil)
		}
	})
}

// electionWorld is a lock shared by two electors, with a resource version,
// whose requests run atomically at the global time.
type electionWorld struct {
	rec     *Record
	version int
}

func (w *electionWorld) apply(s ElectionStep, fail bool) (Outcome, Record, string) {
	if fail {
		return Failed, Record{}, ""
	}
	switch s.Op {
	case OpGet:
		if w.rec == nil {
			return NotFound, Record{}, ""
		}
		return OK, *w.rec, strconv.Itoa(w.version)
	case OpCreate:
		if w.rec != nil {
			return Conflict, Record{}, ""
		}
	case OpUpdate:
		if w.rec == nil {
			return NotFound, Record{}, ""
		}
		if s.Version != strconv.Itoa(w.version) {
			return Conflict, Record{}, ""
		}
	}
	r := s.Record
	w.rec = &r
	w.version++
	return OK, Record{}, strconv.Itoa(w.version)
}

// Two electors share one lock under any interleaving of their steps, clock
// advances, failed requests and lost replies, with clocks that run at the
// same rate but differ by a constant offset. Whenever both believe they
// lead, one of them is past its MustStopBy: a new leader never takes over
// before the old one's deadline. Transitions only grow.
func TestPropertyElectionSafety(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var w electionWorld
		var es [2]*Elector
		var offset [2]time.Duration
		var pending [2]ElectionStep
		for i := range es {
			cfg := DefaultElectionConfig("e" + strconv.Itoa(i))
			cfg.ReleaseOnCancel = rapid.Bool().Draw(t, "release")
			cfg.Rand = func() float64 { return rapid.Float64Range(0, 0.999999).Draw(t, "r") }
			var err error
			if es[i], err = NewElector(cfg); err != nil {
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
					if s.Op == OpUpdate {
						w.apply(s, false)
					}
					pending[i] = s
				}
			default:
				s := pending[i]
				if s.Op == OpWait {
					if s.Next.IsZero() || local(i).Before(s.Next) {
						continue
					}
					pending[i] = es[i].Step(local(i))
					continue
				}
				fail := rapid.IntRange(0, 9).Draw(t, "fail") == 0
				outcome, rec, ver := w.apply(s, fail)
				if rapid.IntRange(0, 19).Draw(t, "lostReply") == 0 {
					outcome = Failed // the request ran but its reply was lost
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
