package lease

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/nodelife/nodelife/internal/compact"
	"github.com/nodelife/nodelife/internal/reentry"
)

// The node lease controller's back-off while it cannot get or create its
// lease (component-helpers lease controller, backoffEnsureLease): the wait
// starts at 100ms and is doubled before each wait, capped at 7s, with no
// limit on attempts, so the waits are 200ms, 400ms, ..., 6.4s, 7s, 7s, ...
const (
	DefaultBackoffInitial = 200 * time.Millisecond
	DefaultBackoffFactor  = 2.0
	DefaultBackoffCap     = 7 * time.Second
)

// Backoff is an exponential back-off: the first wait is Initial, each
// further wait Factor times the previous one, never above Cap. With Jitter
// > 0 each wait w becomes w + r*Jitter*w for r drawn from Rand in [0, 1),
// still capped, as apimachinery's wait.Jitter. Reset starts over. The zero
// value is not useful; start from DefaultBackoff. A Backoff is a value
// with state; copy it to fork it.
type Backoff struct {
	// Initial is the first wait (> 0).
	Initial time.Duration
	// Factor multiplies the wait after each use (>= 1).
	Factor float64
	// Cap bounds every wait (>= Initial).
	Cap time.Duration
	// Jitter is the largest fraction added at random to a wait (>= 0).
	Jitter float64
	// Rand returns numbers in [0, 1); nil means no jitter. A Next called
	// from inside Rand on the back-off drawing from it returns the wait
	// being drawn for, without jitter, and advances nothing; a Reset from
	// there is ignored. (Within a Heartbeat, calls back into the heartbeat
	// are ignored too: HeartbeatConfig.Rand.)
	Rand func() float64

	next  time.Duration // the next wait before jitter; 0 = Initial
	steps int
	guard reentry.Guard
}

// String prints the settings that are set (Rand as "func") on one line;
// not the state of a backoff in use.
func (b Backoff) String() string { return compact.Sprint(b) }

// GoString is String, so that %#v (rapid's form for drawn values) prints
// no addresses.
func (b Backoff) GoString() string { return b.String() }

// DefaultBackoff returns the node lease controller's back-off: 200ms
// doubling to 7s, no jitter.
func DefaultBackoff() Backoff {
	return Backoff{Initial: DefaultBackoffInitial, Factor: DefaultBackoffFactor, Cap: DefaultBackoffCap}
}

// Validate returns every problem with b's settings, joined.
func (b Backoff) Validate() error {
	var errs []error
	if b.Initial <= 0 {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("Backoff.Initial %v must be > 0", b.Initial)))
	}
	if !(b.Factor >= 1) || math.IsInf(b.Factor, 0) {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("Backoff.Factor %v must be a finite number >= 1", b.Factor)))
	}
	if b.Cap < b.Initial {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("Backoff.Cap %v must be >= Initial %v", b.Cap, b.Initial)))
	}
	if !(b.Jitter >= 0) || math.IsInf(b.Jitter, 0) {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("Backoff.Jitter %v must be a finite number >= 0", b.Jitter)))
	}
	return errors.Join(errs...)
}

// Next returns the next wait and advances the back-off. Invalid settings
// are made safe rather than trusted: a wait is never negative and never
// above Cap (or Initial, if Cap is smaller).
func (b *Backoff) Next() time.Duration {
	base := b.next
	if base <= 0 {
		base = b.Initial
	}
	limit := max(b.Cap, b.Initial)
	base = min(max(base, 0), limit)
	if b.guard.Busy() {
		return base
	}
	w := min(jittered(base, b.Jitter, b.guard.Rand(b.Rand)), limit)
	f := b.Factor
	if !(f >= 1) || math.IsInf(f, 0) {
		f = 1
	}
	b.next = min(clampDuration(float64(base)*f), limit)
	b.steps++
	return w
}

// Steps returns how many waits Next has handed out since the last Reset.
func (b *Backoff) Steps() int { return b.steps }

// Reset starts the sequence over at Initial.
func (b *Backoff) Reset() {
	if !b.guard.Busy() {
		b.next, b.steps = 0, 0
	}
}

// jittered returns d stretched by r x factor for r drawn from rnd, as
// apimachinery's wait.Jitter; d itself when rnd is nil or factor is not a
// positive finite number (nothing drawn then), or r falls outside [0, 1).
func jittered(d time.Duration, factor float64, rnd func() float64) time.Duration {
	if !(factor > 0) || math.IsInf(factor, 0) || rnd == nil {
		return d
	}
	return Jitter(d, factor, rnd())
}

// Jitter returns d stretched by draw x factor, as apimachinery's
// wait.Jitter does with a draw from its random source: d itself when
// factor is not a positive finite number or draw falls outside (0, 1).
// The Heartbeat and Backoff draw from their Rand and call it; a caller
// with draws of its own (a simulator keeping each kubelet's random state
// in one array) calls it to time renewals as a Heartbeat would.
func Jitter(d time.Duration, factor, draw float64) time.Duration {
	if !(factor > 0) || math.IsInf(factor, 0) || !(draw > 0 && draw < 1) {
		return d
	}
	return clampDuration(float64(d) * (1 + draw*factor))
}

// clampDuration converts f nanoseconds to a Duration, saturating.
func clampDuration(f float64) time.Duration {
	switch {
	case !(f > 0):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	}
	return time.Duration(f)
}
