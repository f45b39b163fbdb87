package lease

import (
	"errors"
	"fmt"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/internal/clock"
	"github.com/nodelife/nodelife/internal/compact"
	"github.com/nodelife/nodelife/internal/enum"
	"github.com/nodelife/nodelife/internal/reentry"
)

// Node lease defaults (kubelet nodeLeaseDurationSeconds and the lease
// controller's constants).
const (
	// NodeLeaseNamespace holds one lease per node, named after the node.
	NodeLeaseNamespace = "kube-node-lease"
	// DefaultNodeLeaseDurationSeconds is nodeLeaseDurationSeconds.
	DefaultNodeLeaseDurationSeconds int32 = 40
	// DefaultRenewIntervalFraction is nodeLeaseRenewIntervalFraction: the
	// lease is renewed every 0.25 x 40s = 10s.
	DefaultRenewIntervalFraction = 0.25
	// DefaultHeartbeatJitter is the lease loop's jitter factor
	// (wait.JitterUntil with 0.04, sliding).
	DefaultHeartbeatJitter = 0.04
	// DefaultMaxUpdateRetries is maxUpdateRetries: immediate update
	// attempts before giving up for this round.
	DefaultMaxUpdateRetries = 5
)

// HeartbeatConfig configures a node's lease heartbeat.
//
// The zero value is not usable (no holder, zero durations): start from
// DefaultHeartbeatConfig.
type HeartbeatConfig struct {
	// HolderIdentity is the node name: the lease's name and holder.
	HolderIdentity string
	// Namespace is the lease's namespace (NodeLeaseNamespace).
	Namespace string
	// LeaseDurationSeconds is written into the lease (40).
	LeaseDurationSeconds int32
	// RenewIntervalFraction of the duration is the renew interval (0.25).
	RenewIntervalFraction float64
	// JitterFactor stretches each interval by up to this fraction (0.04),
	// drawing from Rand; the interval counts from the end of a round.
	JitterFactor float64
	// Rand returns numbers in [0, 1); nil means no jitter. A Next or Done
	// called from inside Rand on the heartbeat drawing from it changes
	// nothing and returns a Wait saying so.
	Rand func() float64
	// MaxUpdateRetries is how many update attempts a round makes (5).
	MaxUpdateRetries int
	// Backoff paces get-or-create attempts (200ms doubling to 7s); it is
	// reset each time the lease has to be fetched again.
	Backoff Backoff
	// NodeOwner makes the lease owned by its Node, as the kubelet's lease
	// controller does (SetNodeOwnerFunc, pkg/kubelet/util/nodelease.go):
	// a lease written without owner references gets NodeOwnerReference
	// with the UID the caller gave SetNodeUID. While the UID is unknown
	// (upstream: the Node lookup fails, as before the Node is registered)
	// the lease is not created that round, and an update of a lease without
	// owner is an attempt that fails without a request. On by default;
	// off, as the generic lease controller without a post-process func.
	NodeOwner bool
}

// String prints the fields that are set (Rand as "func"), on one line.
func (h HeartbeatConfig) String() string { return compact.Sprint(h) }

// GoString is String, so that %#v (rapid's form for drawn values) prints
// no addresses.
func (h HeartbeatConfig) GoString() string { return h.String() }

// DefaultHeartbeatConfig returns the kubelet's node lease settings for
// nodeName.
func DefaultHeartbeatConfig(nodeName string) HeartbeatConfig {
	return HeartbeatConfig{
		HolderIdentity:        nodeName,
		Namespace:             NodeLeaseNamespace,
		LeaseDurationSeconds:  DefaultNodeLeaseDurationSeconds,
		RenewIntervalFraction: DefaultRenewIntervalFraction,
		JitterFactor:          DefaultHeartbeatJitter,
		MaxUpdateRetries:      DefaultMaxUpdateRetries,
		Backoff:               DefaultBackoff(),
		NodeOwner:             true,
	}
}

// RenewInterval returns RenewIntervalFraction x LeaseDurationSeconds.
func (c HeartbeatConfig) RenewInterval() time.Duration {
	return clampDuration(c.RenewIntervalFraction * float64(time.Duration(c.LeaseDurationSeconds)*time.Second))
}

// Validate returns every problem with c, joined, each naming its field.
// Beyond upstream's check (a positive duration) it requires that a jittered
// interval ends before the lease does, so that successful writes always
// renew in time.
func (c HeartbeatConfig) Validate() error {
	var errs []error
	if c.HolderIdentity == "" {
		errs = append(errs, wrap(ErrInvalidConfig, "HolderIdentity is empty"))
	}
	if c.LeaseDurationSeconds <= 0 {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("LeaseDurationSeconds %d must be > 0", c.LeaseDurationSeconds)))
	}
	if !(c.RenewIntervalFraction > 0 && c.RenewIntervalFraction < 1) {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("RenewIntervalFraction %v must be in (0, 1)", c.RenewIntervalFraction)))
	}
	if !(c.JitterFactor >= 0) || math.IsInf(c.JitterFactor, 0) {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("JitterFactor %v must be a finite number >= 0", c.JitterFactor)))
	} else if c.RenewIntervalFraction*(1+c.JitterFactor) >= 1 {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("RenewIntervalFraction %v with JitterFactor %v can renew after the lease expires", c.RenewIntervalFraction, c.JitterFactor)))
	}
	if c.MaxUpdateRetries < 1 {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("MaxUpdateRetries %d must be >= 1", c.MaxUpdateRetries)))
	}
	if err := c.Backoff.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Op is the request a Heartbeat or an Elector asks the caller to make.
type Op int

const (
	// OpWait: nothing until the step's Next; then call Step (for an Elector,
	// a zero At means nothing more, ever).
	OpWait Op = iota
	// OpGet: read the object, then report with Done (NotFound is an
	// outcome, not a failure).
	OpGet
	// OpCreate: create the object (HeartbeatStep.Object,
	// ElectionStep.Record), then report with Done.
	OpCreate
	// OpUpdate: update the object last seen, if it has not changed since
	// (HeartbeatStep.Object; ElectionStep.Record at ElectionStep.Version),
	// then report with Done.
	OpUpdate
)

// String returns the op's name.
func (o Op) String() string { return enum.Name(o, "Op", "Wait", "Get", "Create", "Update") }

// Outcome is the result of a request the caller made.
type Outcome int

const (
	// OK: the request succeeded.
	OK Outcome = iota
	// Conflict: the update lost an optimistic-concurrency race (409), or
	// the create found the object already there.
	Conflict
	// NotFound: the object does not exist (404).
	NotFound
	// Failed: any other error (timeouts, 5xx, ...).
	Failed
)

// String returns the outcome's name.
func (o Outcome) String() string {
	return enum.Name(o, "Outcome", "OK", "Conflict", "NotFound", "Failed")
}

// HeartbeatStep is the heartbeat's instruction.
type HeartbeatStep struct {
	// Op is what to do.
	Op Op
	// Lease is, for Update, the lease last seen (metadata and spec), and
	// for Create, just the namespace and name. The fields below are to be
	// written into it; Object returns the result.
	Lease Lease
	// HolderIdentity, LeaseDurationSeconds and RenewTime are the spec
	// fields an Update or Create writes.
	HolderIdentity       string
	LeaseDurationSeconds int32
	RenewTime            time.Time
	// Next is when to call Step again, for Wait.
	Next time.Time
	// RepeatedFailure asks the caller to run its repeated heartbeat failure
	// hook (the kubelet closes its API connections): an update failed, not
	// by a conflict, after an earlier attempt of the same round.
	RepeatedFailure bool
	// Message says what happened, for logs ("" when nothing notable).
	Message string
}

// Object returns the lease to send for an Update or Create: Lease with
// HolderIdentity, LeaseDurationSeconds and RenewTime set. (The step keeps
// them as values so that a steady heartbeat allocates nothing.)
func (s HeartbeatStep) Object() Lease {
	l := s.Lease
	l.HolderIdentity = ptrTo(s.HolderIdentity)
	l.LeaseDurationSeconds = ptrTo(s.LeaseDurationSeconds)
	l.RenewTime = ptrTo(s.RenewTime)
	return l
}

type hbMode int

const (
	hbIdle hbMode = iota
	hbUpdating
	hbGetting
	hbBackingOff
	hbCreating
)

// Heartbeat is the node lease controller as a synchronous state machine:
// Step and Done say what request to make and when, the caller makes it.
// Not safe for concurrent use.
type Heartbeat struct {
	cfg      HeartbeatConfig
	backoff  Backoff
	last     time.Time
	mode     hbMode
	nextSync time.Time
	started  bool

	cached   Lease // the last lease written or read (latestLease)
	hasCache bool
	base     Lease // what the current update builds on
	attempt  int   // update attempts made this retry loop
	second   bool  // in the retry loop after a get-or-create, not the first
	conflict bool  // the get-or-create was started by a conflict
	waitTill time.Time
	pending  HeartbeatStep // the request outstanding
	guard    reentry.Guard
	nodeUID  types.UID // the Node's UID, for the owner reference
}

// SetNodeUID gives the heartbeat the UID of its Node (from registration or
// a lookup), for the owner reference NodeOwner puts on the lease; "" means
// unknown again. Called from inside Rand it changes nothing.
func (h *Heartbeat) SetNodeUID(uid types.UID) {
	if !h.guard.Busy() {
		h.nodeUID = uid
	}
}

// ownerless reports whether l must get an owner reference that cannot be
// made yet (NodeOwner, no owner references, UID unknown).
func (h *Heartbeat) ownerless(l Lease) bool {
	return h.cfg.NodeOwner && len(l.OwnerReferences) == 0 && h.nodeUID == ""
}

// errNoNodeUID is the message of a write the owner reference blocked.
const errNoNodeUID = "the Node's UID is unknown (SetNodeUID): cannot make the lease's owner reference"

// NewHeartbeat returns a heartbeat for cfg, or cfg's validation error. Its
// first Next asks for a get-or-create at once, as the kubelet does at start.
func NewHeartbeat(cfg HeartbeatConfig) (*Heartbeat, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	h := &Heartbeat{}
	cfg.Rand = h.guard.Rand(cfg.Rand)
	cfg.Backoff.Rand = h.guard.Rand(cfg.Backoff.Rand)
	h.cfg, h.backoff = cfg, cfg.Backoff
	return h, nil
}

// reentered is the answer to a call made from inside the heartbeat's own
// Rand: nothing changes.
func (h *Heartbeat) reentered(now time.Time) HeartbeatStep {
	return HeartbeatStep{Op: OpWait, Next: now, Message: "lease: Heartbeat called from inside its own Rand: ignored"}
}

// Cached returns the lease last written or read, if any.
func (h *Heartbeat) Cached() (Lease, bool) { return h.cached, h.hasCache }

func (h *Heartbeat) clamp(now time.Time) time.Time { return clock.Clamp(&h.last, now, true) }

// Step returns what to do at now: a request, or a Wait until a later time.
// While a request is outstanding it returns that request again.
func (h *Heartbeat) Step(now time.Time) HeartbeatStep {
	if h.guard.Busy() {
		return h.reentered(now)
	}
	now = h.clamp(now)
	switch h.mode {
	case hbUpdating, hbGetting, hbCreating:
		return h.pending
	case hbBackingOff:
		if now.Before(h.waitTill) {
			return HeartbeatStep{Op: OpWait, Next: h.waitTill}
		}
		return h.request(HeartbeatStep{Op: OpGet}, hbGetting)
	}
	if h.started && now.Before(h.nextSync) {
		return HeartbeatStep{Op: OpWait, Next: h.nextSync}
	}
	h.started = true
	if h.hasCache {
		h.second = false
		h.attempt = 0
		h.base = h.cached
		return h.update(now, false, "")
	}
	return h.ensure(false, false, "")
}

// Done reports the outcome of the request Next or Done asked for, with the
// lease the server returned for OK updates, gets and creates (nil means the
// object sent, or for a get a lease with only its name), and returns what
// to do next. Calls without a request
// outstanding are ignored and return the current instruction.
func (h *Heartbeat) Done(now time.Time, outcome Outcome, server *Lease) HeartbeatStep {
	if h.guard.Busy() {
		return h.reentered(now)
	}
	now = h.clamp(now)
	switch h.mode {
	case hbUpdating:
		return h.updated(now, outcome, server)
	case hbGetting:
		switch outcome {
		case OK:
			l := Lease{Namespace: h.cfg.Namespace, Name: h.cfg.HolderIdentity}
			if server != nil {
				l = *server
			}
			return h.ensured(now, l, false)
		case NotFound:
			l := Lease{Namespace: h.cfg.Namespace, Name: h.cfg.HolderIdentity}
			if h.ownerless(l) {
				// Upstream's newLease fails: no create this round.
				return h.endRound(now, errNoNodeUID+"; lease not created, will retry")
			}
			return h.request(h.write(OpCreate, l, now), hbCreating)
		}
		return h.backOff(now, "failed to get lease ("+outcome.String()+"), will retry")
	case hbCreating:
		if outcome == OK {
			return h.ensured(now, h.written(server), true)
		}
		return h.backOff(now, "failed to create lease ("+outcome.String()+"), will retry")
	}
	return h.Step(now)
}

// updated handles an update's outcome.
func (h *Heartbeat) updated(now time.Time, outcome Outcome, server *Lease) HeartbeatStep {
	switch outcome {
	case OK:
		h.cached, h.hasCache = h.written(server), true
		return h.endRound(now, "")
	case Conflict:
		// Conflicts use up an attempt but never count as a repeated
		// failure; the lease is fetched again first.
		h.attempt++
		return h.ensure(true, false, "lease update conflicted, fetching it again")
	}
	repeated := h.attempt > 0
	h.attempt++
	if h.attempt < h.cfg.MaxUpdateRetries {
		return h.update(now, repeated, "failed to update lease ("+outcome.String()+"), retrying")
	}
	return h.retriesExhausted(now, repeated)
}

// retriesExhausted ends a retry loop that failed MaxUpdateRetries times:
// after the first loop the lease is fetched again, after the second the
// round ends.
func (h *Heartbeat) retriesExhausted(now time.Time, repeated bool) HeartbeatStep {
	msg := fmt.Sprintf("failed %d attempts to update lease", h.cfg.MaxUpdateRetries)
	if !h.second {
		return h.ensure(false, repeated, msg)
	}
	s := h.endRound(now, msg)
	s.RepeatedFailure = repeated
	return s
}

// ensure starts a get-or-create with a fresh back-off.
func (h *Heartbeat) ensure(fromConflict, repeated bool, msg string) HeartbeatStep {
	h.conflict = fromConflict
	h.backoff = h.cfg.Backoff
	h.backoff.Reset()
	s := h.request(HeartbeatStep{Op: OpGet}, hbGetting)
	s.RepeatedFailure, s.Message = repeated, msg
	return s
}

// ensured continues after the get-or-create produced l.
func (h *Heartbeat) ensured(now time.Time, l Lease, created bool) HeartbeatStep {
	h.cached, h.hasCache = l, true
	if h.conflict {
		h.base = l
		if h.attempt < h.cfg.MaxUpdateRetries {
			return h.update(now, false, "")
		}
		return h.retriesExhausted(now, false)
	}
	if created {
		return h.endRound(now, "created lease")
	}
	h.second, h.attempt, h.base = true, 0, l
	return h.update(now, false, "")
}

// backOff schedules the next get after the back-off's wait.
func (h *Heartbeat) backOff(now time.Time, msg string) HeartbeatStep {
	h.mode = hbBackingOff
	h.waitTill = now.Add(h.backoff.Next())
	return HeartbeatStep{Op: OpWait, Next: h.waitTill, Message: msg}
}

// update asks for an update of the base lease renewed at now. An attempt
// the owner reference blocks fails without a request, as upstream's
// "Failed to prepare lease", and the next attempt follows at once.
func (h *Heartbeat) update(now time.Time, repeated bool, msg string) HeartbeatStep {
	for h.ownerless(h.base) {
		repeated = repeated || h.attempt > 0
		h.attempt++
		msg = errNoNodeUID + "; update not sent"
		if h.attempt >= h.cfg.MaxUpdateRetries {
			return h.retriesExhausted(now, repeated)
		}
	}
	s := h.request(h.write(OpUpdate, h.base, now), hbUpdating)
	s.RepeatedFailure, s.Message = repeated, msg
	return s
}

// request records s as outstanding in mode m.
func (h *Heartbeat) request(s HeartbeatStep, m hbMode) HeartbeatStep {
	h.mode, h.pending = m, s
	return s
}

// endRound finishes a sync and schedules the next one an interval (with
// jitter) from now.
func (h *Heartbeat) endRound(now time.Time, msg string) HeartbeatStep {
	h.mode = hbIdle
	h.nextSync = now.Add(h.interval())
	return HeartbeatStep{Op: OpWait, Next: h.nextSync, Message: msg}
}

// interval returns the renew interval stretched by jitter.
func (h *Heartbeat) interval() time.Duration {
	return jittered(h.cfg.RenewInterval(), h.cfg.JitterFactor, h.cfg.Rand)
}

// write returns a request to write base held by this node, renewed at now
// with the configured duration, and owned by the Node under NodeOwner, as
// upstream's newLease with the kubelet's post-process func.
func (h *Heartbeat) write(op Op, base Lease, now time.Time) HeartbeatStep {
	if h.cfg.NodeOwner && len(base.OwnerReferences) == 0 && h.nodeUID != "" {
		base.OwnerReferences = []metav1.OwnerReference{NodeOwnerReference(h.cfg.HolderIdentity, h.nodeUID)}
	}
	return HeartbeatStep{Op: op, Lease: base, HolderIdentity: h.cfg.HolderIdentity, LeaseDurationSeconds: h.cfg.LeaseDurationSeconds, RenewTime: now}
}

// written returns the lease the server returned, or the one sent.
func (h *Heartbeat) written(server *Lease) Lease {
	if server != nil {
		return *server
	}
	return h.pending.Object()
}
