package lease

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// summary prints a Step's requests compactly.
func summary(t0 time.Time, r DelegateReady) string {
	var parts []string
	for _, q := range r.Requests {
		s := fmt.Sprintf("%s %s holder=%s", q.Op, q.Node, q.Lease.Holder())
		if q.Lease.LeaseTransitions != nil {
			s += fmt.Sprintf(" transitions=%d", *q.Lease.LeaseTransitions)
		}
		if q.Transition {
			s += " takeover"
		}
		if q.Managed {
			s += " managed"
		}
		parts = append(parts, s)
	}
	next := "-"
	if !r.Next.IsZero() {
		next = "+" + r.Next.Sub(t0).String()
	}
	return strings.Join(parts, "; ") + " | next " + next
}

// A delegate "kwok" (kwok's defaults: 40 s leases renewed every 10 s, no
// jitter here) is asked at +0s to hold four nodes: n1 has no lease (it is
// created); n2's lease is its kubelet's, renewed at +0s (left alone, and
// looked at every 10 s); n3's is kwok's own with 3 transitions (renewed,
// still 3); n4's holder "other" last renewed at -60s, expired at -20s
// (taken over: 4 transitions). Every write succeeds; each node is looked
// at again NextTry later: 10 s. n2's kubelet renews no more: its lease
// expires at +40s, which is not yet before +40s (left alone), and is
// taken over at +50s, its first transition.
func TestDelegateHandWorked(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	cfg := DefaultDelegateConfig("kwok")
	cfg.JitterFactor = 0
	d, err := NewDelegate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	forty := int32(40)
	lease := func(name, holder string, renew time.Time, transitions *int32) Lease {
		return Lease{Namespace: NodeLeaseNamespace, Name: name, HolderIdentity: &holder, LeaseDurationSeconds: &forty, RenewTime: &renew, LeaseTransitions: transitions}
	}
	three := int32(3)
	d.Observe(lease("n2", "kubelet-n2", t0, nil))
	d.Observe(lease("n3", "kwok", t0.Add(-5*time.Second), &three))
	d.Observe(lease("n4", "other", t0.Add(-60*time.Second), &three))
	for _, n := range []string{"n4", "n3", "n2", "n1"} {
		d.Hold(t0, n)
	}
	step := func(at time.Duration) string {
		now := t0.Add(at)
		r := d.Step(now)
		for _, q := range r.Requests {
			d.Done(now, q, OK, nil)
		}
		return summary(t0, r)
	}
	// Next is the earliest look not yet asked for: the node left alone,
	// or none when every node's write is under way.
	want := map[time.Duration]string{
		0:                "Create n1 holder=kwok managed; Update n3 holder=kwok transitions=3 managed; Update n4 holder=kwok transitions=4 takeover managed | next +10s",
		10 * time.Second: "Update n1 holder=kwok; Update n3 holder=kwok transitions=3; Update n4 holder=kwok transitions=4 | next +20s",
		40 * time.Second: "Update n1 holder=kwok; Update n3 holder=kwok transitions=3; Update n4 holder=kwok transitions=4 | next +50s",
		50 * time.Second: "Update n1 holder=kwok; Update n2 holder=kwok transitions=1 takeover managed; Update n3 holder=kwok transitions=3; Update n4 holder=kwok transitions=4 | next -",
	}
	for at := time.Duration(0); at <= 50*time.Second; at += 10 * time.Second {
		got := step(at)
		if w, ok := want[at]; ok && got != w {
			t.Errorf("+%v:\n got %s\nwant %s", at, got, w)
		}
	}
	if !d.Held("n2") {
		t.Error("n2 not held after the takeover")
	}
}

// A write that fails is tried again an interval later; a released node is
// never written again; a lease another holder renewed meanwhile is left
// alone.
func TestDelegateFailureReleaseAndForeignRenewal(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	cfg := DefaultDelegateConfig("kwok")
	cfg.JitterFactor = 0
	d, _ := NewDelegate(cfg)
	d.Hold(t0, "a")
	d.Hold(t0, "b")
	r := d.Step(t0)
	if len(r.Requests) != 2 {
		t.Fatalf("%+v", r)
	}
	d.Done(t0, r.Requests[0], Failed, nil) // a's create fails
	d.Done(t0, r.Requests[1], OK, nil)
	d.Release("b")
	r = d.Step(t0.Add(10 * time.Second))
	if len(r.Requests) != 1 || r.Requests[0].Node != "a" || r.Requests[0].Op != OpCreate {
		t.Fatalf("after a failure and a release: %s", summary(t0, r))
	}
	d.Done(t0.Add(10*time.Second), r.Requests[0], OK, nil)
	// Another holder renews a's lease: kwok's is replaced.
	forty, renew, other := int32(40), t0.Add(15*time.Second), "kubelet-a"
	d.Observe(Lease{Namespace: NodeLeaseNamespace, Name: "a", HolderIdentity: &other, LeaseDurationSeconds: &forty, RenewTime: &renew})
	for at := 20 * time.Second; at <= 55*time.Second; at += 5 * time.Second {
		if r := d.Step(t0.Add(at)); len(r.Requests) != 0 {
			t.Fatalf("+%v: wrote over a live foreign lease: %s", at, summary(t0, r))
		}
	}
	r = d.Step(t0.Add(60 * time.Second)) // the foreign lease expired at +55s
	if len(r.Requests) != 1 || !r.Requests[0].Transition {
		t.Fatalf("+60s: %s", summary(t0, r))
	}
}

func TestDelegateConfigValidate(t *testing.T) {
	err := DelegateConfig{LeaseDurationSeconds: -1, JitterFactor: -0.5}.Validate()
	for _, w := range []string{"HolderIdentity", "LeaseDurationSeconds -1", "RenewInterval 0s", "JitterFactor -0.5"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("%v: wants %q", err, w)
		}
	}
	if _, err := NewDelegate(DelegateConfig{}); err == nil {
		t.Error("NewDelegate accepted the zero config")
	}
}

// FuzzDelegate drives a Delegate with arbitrary leases, holds, releases,
// steps and outcomes: it never panics, never writes over a lease whose
// foreign holder has not expired as last observed, counts a transition
// exactly on a takeover, and asks for no Next in the past.
func FuzzDelegate(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{3, 3, 3, 0, 200, 1, 7, 7, 7, 9, 9})
	f.Fuzz(func(t *testing.T, ops []byte) {
		t0 := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
		cfg := DefaultDelegateConfig("me")
		seq := 0.0
		cfg.Rand = func() float64 { seq += 0.37; return seq - float64(int(seq)) }
		d, err := NewDelegate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		now := t0
		seen := map[string]Lease{}
		holders := []string{"me", "kubelet", ""}
		for i, op := range ops {
			node := fmt.Sprint("n", int(op)%3)
			switch op % 6 {
			case 0:
				d.Hold(now, node)
			case 1:
				d.Release(node)
			case 2:
				h := holders[int(op/6)%3]
				renew := now.Add(-time.Duration(op) * time.Second)
				dur := int32(op % 50)
				l := Lease{Name: node, RenewTime: &renew, LeaseDurationSeconds: &dur}
				if op%4 != 0 {
					l.HolderIdentity = &h
				}
				d.Observe(l)
				seen[node] = l
			case 3:
				d.Forget(node)
				delete(seen, node)
			default:
				now = now.Add(time.Duration(op) * 100 * time.Millisecond)
				r := d.Step(now)
				if !r.Next.IsZero() && r.Next.Before(now) {
					t.Fatalf("Next %v before now %v", r.Next, now)
				}
				for k, q := range r.Requests {
					old, had := seen[q.Node]
					if q.Op == OpUpdate {
						if !had || !MayHold(old, "me", now) {
							t.Fatalf("update of %s over %v at %v", q.Node, old, now)
						}
						var before int32
						if old.LeaseTransitions != nil {
							before = *old.LeaseTransitions
						}
						var after int32
						if q.Lease.LeaseTransitions != nil {
							after = *q.Lease.LeaseTransitions
						}
						if q.Transition != (after == before+1) || (!q.Transition && after != before) {
							t.Fatalf("transitions %d -> %d, takeover %v", before, after, q.Transition)
						}
					} else if had {
						t.Fatalf("create of %s, which has a lease", q.Node)
					}
					outcome := Outcome((i + k) % 4)
					d.Done(now, q, outcome, nil)
					if outcome == OK {
						seen[q.Node] = q.Lease
					}
				}
			}
		}
	})
}

// Jitter stretches each interval by up to JitterFactor: with Rand
// returning 0.5 and kwok's 0.04, 10 s becomes 10.2 s.
func TestDelegateJitter(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	cfg := DefaultDelegateConfig("kwok")
	cfg.Rand = func() float64 { return 0.5 }
	d, _ := NewDelegate(cfg)
	d.Hold(t0, "n")
	r := d.Step(t0)
	d.Done(t0, r.Requests[0], OK, nil)
	if r := d.Step(t0); !r.Next.Equal(t0.Add(10200 * time.Millisecond)) {
		t.Fatalf("next %v", r.Next.Sub(t0))
	}
}
