package lease

import (
	"errors"
	"testing"
	"time"
)

// FuzzHeartbeat: any sequence of outcomes and clock moves never panics,
// and every write names the node and renews at the time it is asked for.
func FuzzHeartbeat(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		h, err := NewHeartbeat(DefaultHeartbeatConfig("n"))
		if err != nil {
			t.Fatal(err)
		}
		now := t0
		for _, b := range ops {
			now = now.Add(time.Duration(int8(b)) * 100 * time.Millisecond)
			var s HeartbeatStep
			if b&0x80 != 0 {
				s = h.Step(now)
			} else {
				s = h.Done(now, Outcome(b&3), nil)
			}
			if (s.Op == OpUpdate || s.Op == OpCreate) && (s.HolderIdentity != "n" || s.RenewTime.After(h.last)) {
				t.Fatalf("write %+v at %v", s, h.last)
			}
		}
	})
}

// FuzzElector: any sequence of requests, outcomes, records and releases
// never panics; a candidate only leads after a successful write, and never
// leads once stopped.
func FuzzElector(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{255, 0, 16, 32, 48, 64})
	f.Fuzz(func(t *testing.T, ops []byte) {
		e, err := NewElector(DefaultElectionConfig("a"))
		if err != nil {
			t.Fatal(err)
		}
		now := t0
		stopped := false
		for _, b := range ops {
			now = now.Add(time.Duration(b&0x0f) * time.Second)
			holders := []string{"", "a", "b", "c"}
			rec := Record{HolderIdentity: holders[(b>>4)&3], LeaseDurationSeconds: int(b>>6) * 10, RenewTime: now.Add(-time.Duration(b) * time.Second)}
			var s ElectionStep
			switch {
			case b == 0xff:
				s = e.Release(now)
				stopped = true
			case b&0x80 != 0:
				s = e.Step(now)
			default:
				s = e.Done(now, Outcome(b&3), rec, string(rune('0'+b%10)))
			}
			if stopped && s.Leading {
				t.Fatalf("leads after release")
			}
			if s.Leading != e.Leading() {
				t.Fatalf("step says leading %v, elector %v", s.Leading, e.Leading())
			}
		}
	})
}

// FuzzWorkloadLeaseName: a name is returned only when it is a valid DNS
// subdomain starting with the prefix; otherwise an ErrInvalidName.
func FuzzWorkloadLeaseName(f *testing.F) {
	f.Add("example-foo", "prod/foo")
	f.Add("Bad_Prefix", "")
	f.Fuzz(func(t *testing.T, prefix, instance string) {
		name, err := WorkloadLeaseName(prefix, instance)
		if err != nil {
			if !errors.Is(err, ErrInvalidName) {
				t.Fatalf("error %v does not wrap ErrInvalidName", err)
			}
			return
		}
		if len(name) != len(prefix)+11 || name[:len(prefix)] != prefix {
			t.Fatalf("name %q for prefix %q", name, prefix)
		}
	})
}
