package lease

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func newElector(t *testing.T, id string, release bool) *Elector {
	t.Helper()
	cfg := DefaultElectionConfig(id)
	cfg.ReleaseOnCancel = release
	e, err := NewElector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// No lock yet: create it with transitions 0; the candidate leads and must
// stop by renew + 15s.
func TestElectionCreate(t *testing.T) {
	e := newElector(t, "a", false)
	if s := e.Step(at(0)); s.Op != OpGet {
		t.Fatalf("first step %v", s.Op)
	}
	s := e.Done(at(0), NotFound, Record{}, "")
	want := ElectionStep{Op: OpCreate, Record: Record{HolderIdentity: "a", LeaseDurationSeconds: 15, AcquireTime: at(0), RenewTime: at(0)}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	s = e.Done(at(0.1), OK, Record{}, "1")
	want = ElectionStep{Op: OpWait, Next: at(2.1), Leading: true, MustStopBy: at(15), Event: "a became leader", NewLeader: "a"}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// Renewal: the fast path updates the cached record, keeping AcquireTime
	// and transitions, with the cached resource version.
	s = e.Step(at(2.1))
	want = ElectionStep{Op: OpUpdate, Record: Record{HolderIdentity: "a", LeaseDurationSeconds: 15, AcquireTime: at(0), RenewTime: at(2.1)}, Version: "1", Leading: true, MustStopBy: at(15)}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatalf("renew (-want +got):\n%s", diff)
	}
	s = e.Done(at(2.2), OK, Record{}, "2")
	if !s.Leading || !s.MustStopBy.Equal(at(17.1)) || s.Event != "" || !s.Next.Equal(at(4.2)) {
		t.Fatalf("after renewal %+v", s)
	}
}

// An empty holder (a released lock) is taken at once, transitions + 1.
func TestElectionReleasedLock(t *testing.T) {
	e := newElector(t, "a", false)
	e.Step(at(0))
	released := Record{LeaseDurationSeconds: 1, AcquireTime: at(-5), RenewTime: at(-5), LeaderTransitions: 3}
	s := e.Done(at(0), OK, released, "7")
	want := Record{HolderIdentity: "a", LeaseDurationSeconds: 15, AcquireTime: at(0), RenewTime: at(0), LeaderTransitions: 4}
	if s.Op != OpUpdate || s.Version != "7" || s.Record != want {
		t.Fatalf("got %+v", s)
	}
	if s = e.Done(at(0), OK, Record{}, "8"); !s.Leading || s.Event != "a became leader" {
		t.Fatalf("got %+v", s)
	}
	// Renewals keep AcquireTime and the transitions count.
	s = e.Step(at(2))
	want = Record{HolderIdentity: "a", LeaseDurationSeconds: 15, AcquireTime: at(0), RenewTime: at(2), LeaderTransitions: 4}
	if s.Op != OpUpdate || s.Record != want || s.Version != "8" {
		t.Fatalf("renewal %+v", s)
	}
	// So does the slow path, after the fast path fails.
	e.Done(at(2), Failed, Record{}, "")
	s = e.Done(at(2), OK, Record{HolderIdentity: "a", LeaseDurationSeconds: 15, AcquireTime: at(0), RenewTime: at(0), LeaderTransitions: 4}, "8")
	want.RenewTime = at(2)
	if s.Op != OpUpdate || s.Record != want {
		t.Fatalf("slow-path renewal %+v", s)
	}
}

// A record held by another is taken only after a full LeaseDuration of
// local observation, however old its RenewTime (client-go#448); every
// change of the record restarts the wait.
func TestElectionHeldByAnother(t *testing.T) {
	e := newElector(t, "a", false)
	ancient := Record{HolderIdentity: "b", LeaseDurationSeconds: 15, AcquireTime: at(-99999), RenewTime: at(-99999), LeaderTransitions: 2}
	e.Step(at(0))
	s := e.Done(at(0), OK, ancient, "5")
	if s.Op != OpWait || !s.Next.Equal(at(2)) || s.NewLeader != "b" || !strings.Contains(s.Message, "held by b and has not yet expired") {
		t.Fatalf("got %+v", s)
	}
	for now := 2.0; now < 15; now += 2 {
		if s := e.Step(at(now)); s.Op != OpGet {
			t.Fatalf("t=%v: %+v", now, s)
		}
		if s := e.Done(at(now), OK, ancient, "5"); s.Op != OpWait || s.NewLeader != "" {
			t.Fatalf("t=%v: %+v", now, s)
		}
	}
	// b renews at t=15; the try at 16 sees the change, so the wait restarts
	// and runs until 16 + 15 = 31; the try at 30 still fails.
	renewed := ancient
	renewed.RenewTime = at(15)
	for now := 16.0; now <= 30; now += 2 {
		if s := e.Step(at(now)); s.Op != OpGet {
			t.Fatalf("t=%v: %+v", now, s)
		}
		if s := e.Done(at(now), OK, renewed, "6"); s.Op != OpWait {
			t.Fatalf("t=%v: %+v", now, s)
		}
	}
	e.Step(at(32))
	s = e.Done(at(32), OK, renewed, "6")
	want := Record{HolderIdentity: "a", LeaseDurationSeconds: 15, AcquireTime: at(32), RenewTime: at(32), LeaderTransitions: 3}
	if s.Op != OpUpdate || s.Record != want || s.Version != "6" {
		t.Fatalf("t=32: %+v", s)
	}
	// A conflicting write (b renewed meanwhile) fails the try.
	if s := e.Done(at(32), Conflict, Record{}, ""); s.Op != OpWait || s.Leading {
		t.Fatalf("conflict: %+v", s)
	}
}

// A leader whose renewals all fail stops RenewDeadline after its renew
// round began, 3s before others may take the lock.
func TestElectionRenewDeadline(t *testing.T) {
	e := newElector(t, "a", false)
	e.Step(at(0))
	e.Done(at(0), NotFound, Record{}, "")
	e.Done(at(0), OK, Record{}, "1") // leads; must stop by 15
	var last ElectionStep
	for now := 2.0; now < 12; now += 2 {
		s := e.Step(at(now))
		if s.Op != OpUpdate || !s.Leading {
			t.Fatalf("t=%v: %+v", now, s)
		}
		if s = e.Done(at(now), Failed, Record{}, ""); s.Op != OpGet {
			t.Fatalf("t=%v: fast path failure should read the lock: %+v", now, s)
		}
		last = e.Done(at(now), Failed, Record{}, "")
	}
	if !last.Next.Equal(at(12)) || !last.Leading {
		t.Fatalf("last failed try: %+v", last)
	}
	s := e.Step(at(12))
	want := ElectionStep{Op: OpWait, MustStopBy: at(15), Event: "a stopped leading", Message: "failed to renew the lock within RenewDeadline"}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if e.Leading() || e.Step(at(20)).Op != OpWait {
		t.Errorf("stopped elector still acts")
	}
}

func TestElectionRelease(t *testing.T) {
	e := newElector(t, "a", true)
	e.Step(at(0))
	e.Done(at(0), OK, Record{HolderIdentity: "", LeaderTransitions: 4}, "3")
	e.Done(at(0), OK, Record{}, "4")
	s := e.Release(at(5))
	want := ElectionStep{Op: OpUpdate, Version: "4", Record: Record{LeaseDurationSeconds: 1, AcquireTime: at(5), RenewTime: at(5), LeaderTransitions: 5},
		MustStopBy: at(15), Event: "a stopped leading", Message: "released"}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// Without ReleaseOnCancel nothing is written.
	e2 := newElector(t, "b", false)
	e2.Step(at(0))
	e2.Done(at(0), NotFound, Record{}, "")
	e2.Done(at(0), OK, Record{}, "1")
	if s := e2.Release(at(1)); s.Op != OpWait || s.Leading {
		t.Fatalf("release without ReleaseOnCancel: %+v", s)
	}
}

func TestElectionHealthy(t *testing.T) {
	e := newElector(t, "a", false)
	e.Step(at(0))
	e.Done(at(0), NotFound, Record{}, "")
	e.Done(at(0), OK, Record{}, "1")
	if !e.Healthy(at(20), 5*time.Second) || e.Healthy(at(20.1), 5*time.Second) {
		t.Errorf("Check: healthy until observedTime + 15s + tolerance")
	}
}

func TestElectionConfigValidate(t *testing.T) {
	if err := DefaultElectionConfig("a").Validate(); err != nil {
		t.Fatal(err)
	}
	err := ElectionConfig{LeaseDuration: 10 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 9 * time.Second}.Validate()
	for _, w := range []string{"LeaseDuration 10s must be greater than RenewDeadline 10s", "RenewDeadline 10s must be greater than RetryPeriod 9s x JitterFactor 1.2", "Lock identity is empty"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Validate() = %v, want %q", err, w)
		}
	}
	err = ElectionConfig{Identity: "a"}.Validate()
	for _, w := range []string{"LeaseDuration 0s must be greater than zero", "RenewDeadline 0s must be greater than zero", "RetryPeriod 0s must be greater than zero"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Validate() = %v, want %q", err, w)
		}
	}
}

func TestRecordLeaseMapping(t *testing.T) {
	r := Record{HolderIdentity: "a", LeaseDurationSeconds: 15, AcquireTime: at(1), RenewTime: at(2), LeaderTransitions: 3}
	l := r.ToLease(Lease{Namespace: "kube-system", Name: "kube-scheduler"})
	if got := RecordFromLease(l); got != r || l.Name != "kube-scheduler" || *l.LeaseTransitions != 3 {
		t.Errorf("round trip %+v -> %+v", r, got)
	}
	if got := RecordFromLease(Lease{}); got != (Record{}) {
		t.Errorf("empty lease %+v", got)
	}
}
