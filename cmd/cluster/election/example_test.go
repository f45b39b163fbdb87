package election_test

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/nodelife/nodelife/cmd/cluster/election"
	"github.com/nodelife/nodelife/lease"
)

// Two candidates with client-go's defaults: the first to step creates the
// lock and leads until its renewal plus 15s; the other sees the lock held
// and tries again 2s later. A controller asks Allowed before each write.
func ExampleCandidate() {
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := testingclock.NewFakeClock(start)
	client := fake.NewClientset()
	var cands []*election.Candidate
	for _, id := range []string{"a", "b"} {
		c, err := election.New(client, election.Options{Namespace: "kube-system", Name: "nodelife", Clock: clk,
			Config: lease.DefaultElectionConfig(id)})
		if err != nil {
			fmt.Println(err)
			return
		}
		cands = append(cands, c)
	}
	for i, c := range cands {
		next := c.Step(ctx)
		fmt.Printf("%s: leading %v, allowed %v, next try in %v\n", []string{"a", "b"}[i], c.Leading(), c.Allowed(clk.Now()), next.Sub(start))
	}
	fmt.Println("a must stop by +", cands[0].MustStopBy().Sub(start))
	clk.Step(16 * time.Second) // a renewed nothing: past its fence
	fmt.Println("a allowed at +16s:", cands[0].Allowed(clk.Now()))
	// Output:
	// a: leading true, allowed true, next try in 2s
	// b: leading false, allowed false, next try in 2s
	// a must stop by + 15s
	// a allowed at +16s: false
}

// New rejects a lock without a name and a configuration client-go would
// reject, naming the values.
func ExampleNew() {
	cfg := lease.DefaultElectionConfig("a")
	cfg.RenewDeadline = 20 * time.Second // longer than the 15s lease
	_, err := election.New(fake.NewClientset(), election.Options{Namespace: "kube-system", Config: cfg})
	fmt.Println(err)
	// Output:
	// election: lock namespace "kube-system" and name "" must both be set
	// election: lease: invalid config: LeaseDuration 15s must be greater than RenewDeadline 20s
}
