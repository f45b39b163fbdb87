package election

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/nodelife/nodelife/lease"
)

// An API outage while leading, worked out with client-go's defaults (15s
// lease, 10s renew deadline, 2s retry): the candidate leads from +0s and
// renews every 2s; every request fails from +5s to +30s. The round that
// starts at +6s fails at +6, +8, +10, +12 and +14s, and at its deadline,
// +16s, the candidate stops leading: StoppedLeading, a loss on Lost, and a
// new candidacy (Campaigning) that keeps trying every 2s or so (jitter off)
// while the outage lasts. The first try after +30s reads the lock, which
// still names this candidate, and takes it again: BecameLeader. Before the
// fix the candidate reported nothing and never tried again.
func TestLossAndNewCandidacy(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := testingclock.NewFakeClock(start)
	client := fake.NewClientset()
	down := func() bool { off := clk.Now().Sub(start); return off >= 5*time.Second && off < 30*time.Second }
	client.PrependReactor("*", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if down() {
			return true, nil, apierrors.NewInternalError(fmt.Errorf("injected outage"))
		}
		return false, nil, nil
	})
	var events []string
	cfg := lease.DefaultElectionConfig("a")
	c, err := New(client, Options{Namespace: "kube-system", Name: "lock", Clock: clk, Config: cfg,
		Record: func(e Event) {
			if e.Reason != "Failed" {
				events = append(events, fmt.Sprintf("+%v %s", e.At.Sub(start), e.Reason))
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	var lostAt time.Time
	spins := 0
	for clk.Now().Sub(start) <= 40*time.Second {
		next := c.Step(ctx)
		select {
		case at := <-c.Lost():
			lostAt = at
		default:
		}
		if !next.After(clk.Now()) && spins < 3 { // due again at once, as Run's zero timer
			spins++
			continue
		}
		spins = 0
		if !next.After(clk.Now()) {
			t.Fatalf("the candidate keeps asking to run at +%v", clk.Now().Sub(start))
		}
		clk.SetTime(next)
	}
	want := []string{"+0s NewLeader", "+0s BecameLeader", "+16s StoppedLeading", "+16s Campaigning", "+30s NewLeader", "+30s BecameLeader"}
	got := strings.Join(events, ", ")
	if got != strings.Join(want, ", ") {
		t.Fatalf("events:\n got %s\nwant %s", got, strings.Join(want, ", "))
	}
	if !lostAt.Equal(start.Add(16*time.Second)) || c.Losses() != 1 || !c.Leading() {
		t.Fatalf("lost at %v, %d losses, leading %v", lostAt.Sub(start), c.Losses(), c.Leading())
	}
}
