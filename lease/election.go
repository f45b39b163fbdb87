package lease

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/nodelife/nodelife/internal/clock"
	"github.com/nodelife/nodelife/internal/compact"
	"github.com/nodelife/nodelife/internal/reentry"
)

// Leader election defaults (the component-base defaults every control
// plane component uses, and client-go's JitterFactor).
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
	// JitterFactor stretches the acquire retry period by up to 1.2x, and
	// bounds it: RenewDeadline must exceed JitterFactor x RetryPeriod.
	JitterFactor = 1.2
)

// ElectionConfig configures a leader elector, as client-go's
// LeaderElectionConfig.
//
// The zero value is not usable (no identity, zero durations): start from
// DefaultElectionConfig.
type ElectionConfig struct {
	// Identity is this candidate's holder identity; required.
	Identity string
	// LeaseDuration is how long others wait, from when they last saw the
	// record change, before taking the lock (15s).
	LeaseDuration time.Duration
	// RenewDeadline is how long a leader keeps retrying a renewal before it
	// gives up leading (10s).
	RenewDeadline time.Duration
	// RetryPeriod is the pause between tries (2s).
	RetryPeriod time.Duration
	// Rand returns numbers in [0, 1) for the acquire jitter; nil means none.
	// A Next, Done or Release called from inside Rand on the elector
	// drawing from it changes nothing and returns a Wait saying so.
	Rand func() float64
	// ReleaseOnCancel makes Release write an empty holder so that another
	// candidate may take over at once.
	ReleaseOnCancel bool
}

// String prints the fields that are set (Rand as "func"), on one line.
func (e ElectionConfig) String() string { return compact.Sprint(e) }

// GoString is String, so that %#v (rapid's form for drawn values) prints
// no addresses.
func (e ElectionConfig) GoString() string { return e.String() }

// DefaultElectionConfig returns the component defaults for identity.
func DefaultElectionConfig(identity string) ElectionConfig {
	return ElectionConfig{Identity: identity, LeaseDuration: DefaultLeaseDuration, RenewDeadline: DefaultRenewDeadline, RetryPeriod: DefaultRetryPeriod}
}

// Validate applies client-go's NewLeaderElector checks and returns every
// problem, joined: LeaseDuration > RenewDeadline > JitterFactor x
// RetryPeriod, all > 0, and a non-empty identity.
func (c ElectionConfig) Validate() error {
	var errs []error
	if c.LeaseDuration <= c.RenewDeadline {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("LeaseDuration %v must be greater than RenewDeadline %v", c.LeaseDuration, c.RenewDeadline)))
	}
	if float64(c.RenewDeadline) <= JitterFactor*float64(c.RetryPeriod) {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("RenewDeadline %v must be greater than RetryPeriod %v x JitterFactor %v", c.RenewDeadline, c.RetryPeriod, JitterFactor)))
	}
	if c.LeaseDuration < 1 {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("LeaseDuration %v must be greater than zero", c.LeaseDuration)))
	}
	if c.RenewDeadline < 1 {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("RenewDeadline %v must be greater than zero", c.RenewDeadline)))
	}
	if c.RetryPeriod < 1 {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("RetryPeriod %v must be greater than zero", c.RetryPeriod)))
	}
	if c.Identity == "" {
		errs = append(errs, wrap(ErrInvalidConfig, "Lock identity is empty"))
	}
	return errors.Join(errs...)
}

// Record is client-go's LeaderElectionRecord, the lock's content; on a
// Lease, HolderIdentity, LeaseDurationSeconds, AcquireTime, RenewTime and
// LeaderTransitions map to the spec fields of the same meaning.
type Record struct {
	HolderIdentity       string
	LeaseDurationSeconds int
	AcquireTime          time.Time
	RenewTime            time.Time
	LeaderTransitions    int
}

// RecordFromLease reads a lock record from a lease (unset fields are zero).
func RecordFromLease(l Lease) Record {
	r := Record{HolderIdentity: l.Holder()}
	if l.LeaseDurationSeconds != nil {
		r.LeaseDurationSeconds = int(*l.LeaseDurationSeconds)
	}
	if l.AcquireTime != nil {
		r.AcquireTime = *l.AcquireTime
	}
	if l.RenewTime != nil {
		r.RenewTime = *l.RenewTime
	}
	if l.LeaseTransitions != nil {
		r.LeaderTransitions = int(*l.LeaseTransitions)
	}
	return r
}

// ToLease writes r into a copy of l's spec.
func (r Record) ToLease(l Lease) Lease {
	l.HolderIdentity = ptrTo(r.HolderIdentity)
	l.LeaseDurationSeconds = ptrTo(int32(min(max(r.LeaseDurationSeconds, math.MinInt32), math.MaxInt32)))
	l.AcquireTime, l.RenewTime = ptrTo(r.AcquireTime), ptrTo(r.RenewTime)
	l.LeaseTransitions = ptrTo(int32(min(max(r.LeaderTransitions, math.MinInt32), math.MaxInt32)))
	return l
}

// ElectionStep is the elector's instruction and its view of leadership.
type ElectionStep struct {
	// Op is what to do.
	Op Op
	// Record is the record to write for Create and Update.
	Record Record
	// Version is the resource version an Update must match.
	Version string
	// Next is when to call Step, for Wait.
	Next time.Time
	// Leading reports whether this candidate leads after the step.
	Leading bool
	// MustStopBy is, while leading and after losing, the time by which the
	// leader must have stopped all leader work: the last renewal it wrote
	// plus the lease duration it wrote. No other candidate can take the lock
	// before then (if all clocks run at the same rate), and none is kept
	// from taking it after. Upstream stops a leader only RenewDeadline after
	// its renewals start failing, which leaves it LeaseDuration -
	// RenewDeadline (5s by default) of this window (cilium/cilium#42920).
	MustStopBy time.Time
	// Event is "<identity> became leader" or "<identity> stopped leading"
	// when that happened in this step.
	Event string
	// NewLeader is the holder identity when the candidate saw it change
	// (client-go's OnNewLeader, the first sighting included).
	NewLeader string
	// Message explains a failed try, for logs.
	Message string
}

type elPhase int

const (
	elAcquiring elPhase = iota
	elRenewing
	elStopped
)

// Elector is client-go's LeaderElector as a synchronous state machine. It
// never compares record timestamps with its clock: it times the record
// from when it saw the record change, on its own clock, so it tolerates
// clock skew between candidates but not clocks running at different rates
// (client-go#448). Not safe for concurrent use.
type Elector struct {
	cfg   ElectionConfig
	last  time.Time
	phase elPhase

	observed     Record
	hasObserved  bool
	observedTime time.Time
	version      string

	leading    bool
	mustStopBy time.Time
	nextTry    time.Time // when the next try (acquire) or round (renew) starts
	deadline   time.Time // the current renew round gives up at this time
	inRound    bool

	pending  ElectionStep
	trying   bool // a request is outstanding
	fastPath bool // the outstanding update skipped the get
	guard    reentry.Guard
}

// NewElector returns an elector for cfg, or cfg's validation error. Its
// first Next starts trying to acquire at once.
func NewElector(cfg ElectionConfig) (*Elector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e := &Elector{}
	cfg.Rand = e.guard.Rand(cfg.Rand)
	e.cfg = cfg
	return e, nil
}

// reentered is the answer to a call made from inside the elector's own
// Rand: nothing changes.
func (e *Elector) reentered(now time.Time) ElectionStep {
	return ElectionStep{Op: OpWait, Next: now, Leading: e.leading, MustStopBy: e.mustStopBy,
		Message: "lease: Elector called from inside its own Rand: ignored"}
}

// Leading reports whether the candidate leads.
func (e *Elector) Leading() bool { return e.leading }

// Stopped reports whether the candidacy has ended: leadership lost (a
// renew round ran past RenewDeadline) or Release called. A stopped
// elector only waits, as client-go's Run returns after OnStoppedLeading;
// kube-controller-manager then exits and is restarted. A caller that keeps
// running and wants to lead again makes a new Elector, which is what a
// restarted process would do.
func (e *Elector) Stopped() bool { return e.phase == elStopped }

// MustStopBy returns the deadline described at ElectionStep.MustStopBy;
// zero before the candidate first led.
func (e *Elector) MustStopBy() time.Time { return e.mustStopBy }

// Healthy is client-go's Check: false when the candidate leads but has not
// seen its record change for longer than LeaseDuration + tolerance (a
// deadlocked leader).
func (e *Elector) Healthy(now time.Time, tolerance time.Duration) bool {
	return !e.leading || now.Sub(e.observedTime) <= e.cfg.LeaseDuration+tolerance
}

func (e *Elector) clamp(now time.Time) time.Time { return clock.Clamp(&e.last, now, true) }

// Step returns what to do at now: a request or a wait. While a request is
// outstanding it returns it again, unless the renew deadline has passed.
func (e *Elector) Step(now time.Time) ElectionStep {
	if e.guard.Busy() {
		return e.reentered(now)
	}
	now = e.clamp(now)
	if s, lost := e.checkDeadline(now); lost {
		return s
	}
	switch {
	case e.phase == elStopped:
		return e.step(ElectionStep{Op: OpWait})
	case e.trying:
		return e.pending
	case now.Before(e.nextTry):
		return e.step(ElectionStep{Op: OpWait, Next: e.nextTry})
	}
	if e.phase == elRenewing && !e.inRound {
		e.inRound = true
		e.deadline = now.Add(e.cfg.RenewDeadline)
	}
	// The fast path: a leader whose lease is still valid by its own
	// observation updates its cached record without reading it first.
	if e.isLeader() && e.leaseValid(now) {
		r := e.observed
		r.RenewTime = now
		r.HolderIdentity = e.cfg.Identity
		r.LeaseDurationSeconds = int(e.cfg.LeaseDuration / time.Second)
		e.fastPath = true
		return e.request(ElectionStep{Op: OpUpdate, Record: r, Version: e.version})
	}
	e.fastPath = false
	return e.request(ElectionStep{Op: OpGet})
}

// Done reports the outcome of the outstanding request: for a Get, the
// record read and its resource version (outcome NotFound when there is no
// lock); for a Create or Update, the new resource version.
func (e *Elector) Done(now time.Time, outcome Outcome, rec Record, version string) ElectionStep {
	if e.guard.Busy() {
		return e.reentered(now)
	}
	now = e.clamp(now)
	if s, lost := e.checkDeadline(now); lost {
		return s
	}
	if !e.trying {
		return e.Step(now)
	}
	e.trying = false
	switch e.pending.Op {
	case OpGet:
		return e.got(now, outcome, rec, version)
	case OpCreate, OpUpdate:
		if outcome != OK {
			if e.fastPath {
				// The fast path failed: fall back to reading the lock.
				e.fastPath = false
				return e.request(ElectionStep{Op: OpGet})
			}
			return e.tryFailed(now, "failed to write the lock ("+outcome.String()+")")
		}
		s := e.observe(now, e.pending.Record, version)
		return e.trySucceeded(now, s)
	}
	return e.Step(now)
}

// got handles the read of the lock.
func (e *Elector) got(now time.Time, outcome Outcome, rec Record, version string) ElectionStep {
	switch outcome {
	case NotFound:
		r := Record{HolderIdentity: e.cfg.Identity, LeaseDurationSeconds: int(e.cfg.LeaseDuration / time.Second), AcquireTime: now, RenewTime: now}
		return e.request(ElectionStep{Op: OpCreate, Record: r})
	case OK:
	default:
		return e.tryFailed(now, "failed to read the lock ("+outcome.String()+")")
	}
	var s ElectionStep
	if !e.hasObserved || rec != e.observed {
		s = e.observe(now, rec, version)
	}
	e.version = version
	if rec.HolderIdentity != "" && e.leaseValid(now) && !e.isLeader() {
		s2 := e.tryFailed(now, "lock is held by "+rec.HolderIdentity+" and has not yet expired")
		s2.NewLeader = s.NewLeader
		return s2
	}
	r := Record{HolderIdentity: e.cfg.Identity, LeaseDurationSeconds: int(e.cfg.LeaseDuration / time.Second), AcquireTime: now, RenewTime: now}
	if e.isLeader() {
		r.AcquireTime, r.LeaderTransitions = e.observed.AcquireTime, e.observed.LeaderTransitions
	} else {
		r.LeaderTransitions = e.observed.LeaderTransitions + 1
	}
	s2 := e.request(ElectionStep{Op: OpUpdate, Record: r, Version: version})
	s2.NewLeader = s.NewLeader
	return s2
}

// observe stores rec as the record seen at now, reporting a new holder.
func (e *Elector) observe(now time.Time, rec Record, version string) ElectionStep {
	var s ElectionStep
	if !e.hasObserved || rec.HolderIdentity != e.observed.HolderIdentity {
		s.NewLeader = rec.HolderIdentity
	}
	e.observed, e.hasObserved, e.observedTime, e.version = rec, true, now, version
	return s
}

// trySucceeded ends a successful try: the candidate leads, and the next
// renew round starts RetryPeriod later.
func (e *Elector) trySucceeded(now time.Time, s ElectionStep) ElectionStep {
	if !e.leading {
		s.Event = e.cfg.Identity + " became leader"
	}
	e.leading = true
	e.phase = elRenewing
	e.inRound = false
	e.mustStopBy = e.observed.RenewTime.Add(time.Duration(e.observed.LeaseDurationSeconds) * time.Second)
	e.nextTry = now.Add(e.cfg.RetryPeriod)
	s.Op, s.Next = OpWait, e.nextTry
	return e.step(s)
}

// tryFailed schedules the next try: while acquiring after a jittered retry
// period, while renewing after RetryPeriod within the round.
func (e *Elector) tryFailed(now time.Time, msg string) ElectionStep {
	d := e.cfg.RetryPeriod
	if e.phase == elAcquiring {
		d = jittered(d, JitterFactor, e.cfg.Rand)
	}
	e.nextTry = now.Add(d)
	at := e.nextTry
	if e.phase == elRenewing && !at.Before(e.deadline) {
		at = e.deadline
	}
	return e.step(ElectionStep{Op: OpWait, Next: at, Message: msg})
}

// checkDeadline ends leadership when a renew round has run past
// RenewDeadline without success.
func (e *Elector) checkDeadline(now time.Time) (ElectionStep, bool) {
	if e.phase != elRenewing || !e.inRound || now.Before(e.deadline) {
		return ElectionStep{}, false
	}
	return e.stop("failed to renew the lock within RenewDeadline"), true
}

// stop ends the candidacy.
func (e *Elector) stop(msg string) ElectionStep {
	s := ElectionStep{Op: OpWait, Message: msg}
	if e.leading {
		s.Event = e.cfg.Identity + " stopped leading"
	}
	e.leading, e.phase, e.trying = false, elStopped, false
	return e.step(s)
}

// Release ends the candidacy (the caller's context was cancelled). A leader
// with ReleaseOnCancel is asked to write an empty holder with a 1s lease
// and its transitions unchanged, so another candidate may take over at once.
func (e *Elector) Release(now time.Time) ElectionStep {
	if e.guard.Busy() {
		return e.reentered(now)
	}
	now = e.clamp(now)
	wasLeading := e.leading
	s := e.stop("released")
	if wasLeading && e.cfg.ReleaseOnCancel && e.hasObserved {
		r := Record{LeaseDurationSeconds: 1, AcquireTime: now, RenewTime: now, LeaderTransitions: e.observed.LeaderTransitions}
		s.Op, s.Record, s.Version = OpUpdate, r, e.version
	}
	return s
}

// isLeader reports whether the observed record names this candidate.
func (e *Elector) isLeader() bool {
	return e.hasObserved && e.observed.HolderIdentity == e.cfg.Identity
}

// leaseValid reports whether the observed record is still within its
// duration, timed from when this candidate saw it change.
func (e *Elector) leaseValid(now time.Time) bool {
	return e.hasObserved && e.observedTime.Add(time.Duration(e.observed.LeaseDurationSeconds)*time.Second).After(now)
}

// request records s as outstanding.
func (e *Elector) request(s ElectionStep) ElectionStep {
	e.trying = true
	e.pending = e.step(s)
	return e.pending
}

// step fills in the leadership fields.
func (e *Elector) step(s ElectionStep) ElectionStep {
	s.Leading, s.MustStopBy = e.leading, e.mustStopBy
	return s
}
