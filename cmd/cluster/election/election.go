package election

import (
	"context"
	"errors"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/nodelife/nodelife/cmd/cluster/internal/apiutil"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/lease"
)

// Options configure a Candidate. The zero value is not usable: the
// lock's Namespace and Name and the Config's Identity are required.
type Options struct {
	// Namespace and Name locate the lock, a coordination.k8s.io/v1 Lease
	// (required).
	Namespace, Name string
	// Config is the elector's configuration; its Identity is required
	// (lease.DefaultElectionConfig: 15s lease, 10s renew deadline, 2s
	// retry).
	Config lease.ElectionConfig
	// Clock is the candidate's clock (the real one when nil).
	Clock clock.Clock
	// Record, when set, receives the candidate's events.
	Record func(Event)
}

// Event is something that happened to the candidate.
type Event struct {
	// At is the clock's time of the event.
	At time.Time
	// Identity is the candidate's.
	Identity string
	// Reason is BecameLeader, StoppedLeading, Campaigning (a new
	// candidacy after a loss), NewLeader, Conflict or Failed.
	Reason string
	// Message says what happened, for people.
	Message string
}

// Candidate runs lease.Elector against a Lease in the API server: every
// write is conditional on the resourceVersion last read (a 409 is a lost
// race, reported to the elector as a conflict), and the candidate tells
// its callers whether they may act (Allowed). Not safe for concurrent use.
type Candidate struct {
	client kubernetes.Interface
	opts   Options
	clock  clock.Clock
	el     *lease.Elector
	lock   *coordinationv1.Lease // as last read or written
	done   bool
	lost   chan time.Time
	losses int
}

// New returns a candidate, or the configuration's error.
func New(client kubernetes.Interface, opts Options) (*Candidate, error) {
	var errs []error
	if opts.Namespace == "" || opts.Name == "" {
		errs = append(errs, fmt.Errorf("election: lock namespace %q and name %q must both be set", opts.Namespace, opts.Name))
	}
	el, err := lease.NewElector(opts.Config)
	if err != nil {
		errs = append(errs, fmt.Errorf("election: %w", err))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Candidate{client: client, opts: opts, clock: opts.Clock, el: el, lost: make(chan time.Time, 1)}, nil
}

// Lost delivers the time of each loss of leadership (the latest one when
// the caller has not read the previous): the candidate stopped leading
// and campaigns again. A controller gated by Allowed needs nothing more:
// its gate closes, and it starts afresh when the candidate leads again.
func (c *Candidate) Lost() <-chan time.Time { return c.lost }

// Losses returns how many times the candidate lost leadership.
func (c *Candidate) Losses() int { return c.losses }

func (c *Candidate) event(reason, format string, args ...any) {
	if c.opts.Record != nil {
		c.opts.Record(Event{At: c.clock.Now(), Identity: c.opts.Config.Identity, Reason: reason, Message: fmt.Sprintf(format, args...)})
	}
}

// Leading reports whether the elector says the candidate leads.
func (c *Candidate) Leading() bool { return c.el.Leading() }

// MustStopBy is the time by which the leader must have stopped acting
// (its last renewal plus the lease duration); zero before it first led.
func (c *Candidate) MustStopBy() time.Time { return c.el.MustStopBy() }

// Allowed reports whether the candidate may act at now: it leads and now
// is before its MustStopBy fence. Controllers ask it before every write,
// so that no write leaves a leader whose lease another candidate may
// already hold.
func (c *Candidate) Allowed(now time.Time) bool {
	return c.el.Leading() && now.Before(c.el.MustStopBy())
}

// Step makes the requests the elector asks for at the clock's now and
// returns when to step again (zero after Release).
//
// When the candidate loses leadership (its renewals failed for
// RenewDeadline), it reports StoppedLeading, signals Lost, and campaigns
// again at once with a new lease.Elector: the new candidacy starts as a
// restarted kube-controller-manager's would, from its own first sight of
// the lock (upstream's process exits on the loss and is restarted; a
// candidate that stayed stopped would lead nothing, silently, for good).
func (c *Candidate) Step(ctx context.Context) time.Time {
	if c.done {
		return time.Time{}
	}
	s := c.el.Step(c.clock.Now())
	c.report(s) // a loss found by Step itself (the renew deadline passed)
	next := c.carry(ctx, s)
	if c.el.Stopped() {
		now := c.clock.Now()
		c.losses++
		select {
		case <-c.lost:
		default:
		}
		c.lost <- now
		el, err := lease.NewElector(c.opts.Config) // validated by New: cannot fail
		if err != nil {
			c.event("Failed", "a new candidacy: %v", err)
			return now.Add(c.opts.Config.RetryPeriod)
		}
		c.el, c.lock = el, nil
		c.event("Campaigning", "lost the lock %s/%s; campaigning again with a fresh candidacy", c.opts.Namespace, c.opts.Name)
		return now
	}
	return next
}

// carry makes the requests of s and the ones that follow, until a wait.
func (c *Candidate) carry(ctx context.Context, s lease.ElectionStep) time.Time {
	leases := c.client.CoordinationV1().Leases(c.opts.Namespace)
	for tries := 0; s.Op != lease.OpWait && tries < 16; tries++ {
		var got *coordinationv1.Lease
		var err error
		switch s.Op {
		case lease.OpGet:
			got, err = leases.Get(ctx, c.opts.Name, metav1.GetOptions{})
		case lease.OpCreate:
			l := &coordinationv1.Lease{}
			kubeapi.ApplyLease(s.Record.ToLease(lease.Lease{Namespace: c.opts.Namespace, Name: c.opts.Name}), l)
			got, err = leases.Create(ctx, l, metav1.CreateOptions{})
		case lease.OpUpdate:
			l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: c.opts.Namespace, Name: c.opts.Name}}
			if c.lock != nil {
				l = c.lock.DeepCopy()
			}
			kubeapi.ApplyLease(s.Record.ToLease(kubeapi.Lease(l)), l)
			l.ResourceVersion = s.Version // conditional on the version the elector read
			got, err = leases.Update(ctx, l, metav1.UpdateOptions{})
		}
		var rec lease.Record
		version := ""
		if err == nil {
			c.lock = got
			rec, version = lease.RecordFromLease(kubeapi.Lease(got)), got.ResourceVersion
		} else if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			c.event("Conflict", "%s of lock %s/%s lost the race", s.Op, c.opts.Namespace, c.opts.Name)
		} else if !apierrors.IsNotFound(err) {
			c.event("Failed", "%s of lock %s/%s: %v", s.Op, c.opts.Namespace, c.opts.Name, err)
		}
		s = c.el.Done(c.clock.Now(), apiutil.Outcome(err), rec, version)
		c.report(s)
	}
	if s.Op != lease.OpWait {
		return c.clock.Now().Add(time.Second)
	}
	return s.Next
}

func (c *Candidate) report(s lease.ElectionStep) {
	if s.NewLeader != "" {
		c.event("NewLeader", "leader is %s", s.NewLeader)
	}
	if s.Event != "" {
		reason := "StoppedLeading"
		if s.Leading {
			reason = "BecameLeader"
		}
		c.event(reason, "%s; must stop by %s", s.Event, s.MustStopBy.Format(time.RFC3339Nano))
	}
}

// Release ends the candidacy; with Config.ReleaseOnCancel a leader writes
// an empty holder so that another candidate may take over at once.
func (c *Candidate) Release(ctx context.Context) {
	if c.done {
		return
	}
	c.done = true
	c.carry(ctx, c.el.Release(c.clock.Now()))
}

// Run steps the candidate until ctx ends, then releases.
func (c *Candidate) Run(ctx context.Context) {
	for {
		next := c.Step(ctx)
		t := c.clock.NewTimer(next.Sub(c.clock.Now()))
		select {
		case <-ctx.Done():
			t.Stop()
			c.Release(context.WithoutCancel(ctx))
			return
		case <-t.C():
		}
	}
}
