package lease

import (
	"strings"
	"testing"
	"time"
)

// A Rand that calls back into the heartbeat or the elector drawing from it
// (issue 28's audit of callback-taking APIs): the nested calls change
// nothing and say so, and the outer calls give exactly what the same
// machine gives with a Rand that does not call back.
func TestRandCallingBack(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var hb *Heartbeat
	var nested []string
	cfg := DefaultHeartbeatConfig("n1")
	cfg.Rand = func() float64 {
		nested = append(nested, hb.Step(now).Message, hb.Done(now, Failed, nil).Message)
		return 0.5
	}
	hb, _ = NewHeartbeat(cfg)
	hb.SetNodeUID("u1")
	plain := DefaultHeartbeatConfig("n1")
	plain.Rand = func() float64 { return 0.5 }
	ref, _ := NewHeartbeat(plain)
	ref.SetNodeUID("u1")
	drive := func(h *Heartbeat) []HeartbeatStep {
		var out []HeartbeatStep
		s := h.Step(now)
		out = append(out, s)
		out = append(out, h.Done(now, NotFound, nil)) // get: not found -> create
		out = append(out, h.Done(now, OK, nil))       // created -> wait (jittered)
		out = append(out, h.Step(now.Add(time.Minute)))
		out = append(out, h.Done(now.Add(time.Minute), Failed, nil))
		return out
	}
	got, want := drive(hb), drive(ref)
	for i := range want {
		if got[i].Op != want[i].Op || !got[i].Next.Equal(want[i].Next) || got[i].Message != want[i].Message {
			t.Fatalf("step %d: %+v, without the callback %+v", i, got[i], want[i])
		}
	}
	if len(nested) == 0 {
		t.Fatal("Rand was never called")
	}
	for _, m := range nested {
		if !strings.Contains(m, "called from inside its own Rand: ignored") {
			t.Fatalf("nested call said %q", m)
		}
	}

	var el *Elector
	nested = nil
	ec := DefaultElectionConfig("a")
	ec.Rand = func() float64 {
		nested = append(nested, el.Step(now).Message, el.Done(now, OK, Record{}, "1").Message, el.Release(now).Message)
		return 0.25
	}
	el, _ = NewElector(ec)
	pc := DefaultElectionConfig("a")
	pc.Rand = func() float64 { return 0.25 }
	eref, _ := NewElector(pc)
	held := Record{HolderIdentity: "b", LeaseDurationSeconds: 15, AcquireTime: now, RenewTime: now}
	for _, e := range []*Elector{el, eref} {
		e.Step(now)
	}
	g, w := el.Done(now, OK, held, "7"), eref.Done(now, OK, held, "7") // held by b: retry after a jittered period
	if g.Op != w.Op || !g.Next.Equal(w.Next) || g.Leading || len(nested) != 3 {
		t.Fatalf("elector step %+v, without the callback %+v; nested %v", g, w, nested)
	}
	for _, m := range nested {
		if !strings.Contains(m, "called from inside its own Rand: ignored") {
			t.Fatalf("nested elector call said %q", m)
		}
	}
}

// A back-off whose Rand calls Next and Reset on it: the nested Next hands
// out the wait being drawn for and advances nothing, the nested Reset is
// ignored; the sequence is that of a back-off whose Rand does not call back.
func TestBackoffRandCallingBack(t *testing.T) {
	var b Backoff
	var nested []time.Duration
	b = DefaultBackoff()
	b.Jitter = 0.5
	b.Rand = func() float64 {
		nested = append(nested, b.Next())
		b.Reset()
		return 0.5
	}
	ref := DefaultBackoff()
	ref.Jitter = 0.5
	ref.Rand = func() float64 { return 0.5 }
	for i := 0; i < 6; i++ {
		if g, w := b.Next(), ref.Next(); g != w || b.Steps() != ref.Steps() {
			t.Fatalf("wait %d: %v (steps %d), without the callback %v (steps %d)", i, g, b.Steps(), w, ref.Steps())
		}
	}
	want := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 6400 * time.Millisecond}
	if len(nested) != len(want) {
		t.Fatalf("nested %v", nested)
	}
	for i := range want {
		if nested[i] != want[i] {
			t.Fatalf("nested Next %d: %v, want %v (the wait drawn for, unjittered)", i, nested[i], want[i])
		}
	}
}
