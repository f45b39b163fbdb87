package lease

import (
	"testing"
	"time"
)

// kwok's rules for a delegate holding many nodes' leases, ported from its
// own tables in kubernetes-sigs/kwok
// pkg/kwok/controllers/node_lease_controller_test.go (each row names the
// test and case it comes from), and the edges of nodelife's own.
func TestMayHold(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { return ptrTo(now.Add(d)) }
	for _, c := range []struct {
		name     string
		lease    Lease
		identity string
		want     bool
	}{
		{"kwok Test_tryAcquireOrRenew: holder self", Lease{HolderIdentity: ptrTo("test")}, "test", true},
		{"kwok Test_tryAcquireOrRenew: holder not self", Lease{HolderIdentity: ptrTo("test"), LeaseDurationSeconds: ptrTo(int32(10)), RenewTime: at(-5 * time.Second)}, "test-new", false},
		{"kwok Test_tryAcquireOrRenew: holder not self but expired", Lease{HolderIdentity: ptrTo("test"), LeaseDurationSeconds: ptrTo(int32(10)), RenewTime: at(-11 * time.Second)}, "test-new", true},
		{"no holder", Lease{LeaseDurationSeconds: ptrTo(int32(10)), RenewTime: at(0)}, "test", true},
		{"a foreign holder without a renew time", Lease{HolderIdentity: ptrTo("kubelet"), LeaseDurationSeconds: ptrTo(int32(40))}, "kwok", true},
		{"a foreign holder whose lease expires at now", Lease{HolderIdentity: ptrTo("kubelet"), LeaseDurationSeconds: ptrTo(int32(40)), RenewTime: at(-40 * time.Second)}, "kwok", false},
		{"an empty holder is a holder", Lease{HolderIdentity: ptrTo(""), LeaseDurationSeconds: ptrTo(int32(40)), RenewTime: at(0)}, "kwok", false},
	} {
		if got := MayHold(c.lease, c.identity, now); got != c.want {
			t.Errorf("%s: MayHold = %v, want %v", c.name, got, c.want)
		}
	}
}

// kwok TestNextTryDuration, row for row.
func TestNextTry(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		name                 string
		renew, expire, wantD time.Duration
		held                 bool
	}{
		{"Lease not held", 10 * s, 5 * s, 10 * s, false},
		{"Lease held, renew interval less than expire time", 5 * s, 10 * s, 5 * s, true},
		{"Lease held, renew interval greater than expire time", 10 * s, 5 * s, 5 * s, true},
		{"Lease held, expire time less than 1 second", 10 * s, 500 * time.Millisecond, s, true},
		{"Lease held, renew interval equals expire time", 5 * s, 5 * s, 5 * s, true},
	} {
		if got := NextTry(c.renew, c.expire, c.held); got != c.wantD {
			t.Errorf("kwok TestNextTryDuration %q: NextTry = %v, want %v", c.name, got, c.wantD)
		}
	}
}

// kwok TestExpireTime: a lease with no fields has no expiry; one renewed
// at now for 10 s expires at now + 10 s (Lease.ExpiresAt). kwok's helper
// also wants a holder, which ExpiresAt does not: a lease's expiry is its
// renew time and duration.
func TestExpiresAtKwok(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if at, ok := (Lease{}).ExpiresAt(); ok || !at.IsZero() {
		t.Errorf("Lease with missing fields: %v, %v", at, ok)
	}
	l := Lease{HolderIdentity: ptrTo("test"), LeaseDurationSeconds: ptrTo(int32(10)), RenewTime: ptrTo(now)}
	if at, ok := l.ExpiresAt(); !ok || !at.Equal(now.Add(10*time.Second)) {
		t.Errorf("Lease with all fields: %v, %v", at, ok)
	}
}

// A takeover sets the holder and duration and counts a transition (from
// an unset count, 1); a renewal of one's own lease changes only the renew
// time; the lease given is not modified.
func TestRenewFor(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := now.Add(-time.Minute)
	kubelet := Lease{Name: "n1", HolderIdentity: ptrTo("n1"), LeaseDurationSeconds: ptrTo(int32(40)), RenewTime: &old}
	took, transition := RenewFor(kubelet, "kwok", 30, now)
	if !transition || took.Holder() != "kwok" || *took.LeaseDurationSeconds != 30 || *took.LeaseTransitions != 1 || !took.RenewTime.Equal(now) || took.Name != "n1" {
		t.Fatalf("takeover: %v, %v", took, transition)
	}
	if kubelet.Holder() != "n1" || !kubelet.RenewTime.Equal(old) || kubelet.LeaseTransitions != nil {
		t.Fatalf("the lease given changed: %v", kubelet)
	}
	later := now.Add(10 * time.Second)
	again, transition := RenewFor(took, "kwok", 99, later)
	if transition || *again.LeaseDurationSeconds != 30 || *again.LeaseTransitions != 1 || !again.RenewTime.Equal(later) {
		t.Fatalf("renewal: %v, %v", again, transition)
	}
	back, _ := RenewFor(Lease{HolderIdentity: ptrTo("kwok"), LeaseTransitions: ptrTo(int32(4))}, "n1", 40, later)
	if *back.LeaseTransitions != 5 {
		t.Fatalf("a fifth transition: %v", back)
	}
}
