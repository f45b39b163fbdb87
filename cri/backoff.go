package cri

import (
	"errors"
	"fmt"
	"github.com/nodelife/nodelife/core"
	"math"
	"strconv"
	"time"

	"github.com/nodelife/nodelife/internal/clock"
	"github.com/nodelife/nodelife/internal/compact"
)

// BackoffConfig is the kubelet's crash-loop back-off (client-go
// flowcontrol.Backoff as the kubelet builds it): the first restart after
// a failure waits Initial, each further one twice the last, at most Max;
// an entry is reset when the container ran for more than ResetFactor x
// Max since the back-off was last updated. Image pull back-off uses the
// same scheme and defaults.
//
// The zero value is not usable (zero delays): start
// from DefaultBackoffConfig.
type BackoffConfig struct {
	// Initial is the first delay (10s).
	Initial time.Duration
	// Max caps the delay (300s, MaxContainerBackOff).
	Max time.Duration
	// ResetFactor: an entry resets when finishedAt - lastUpdate >
	// ResetFactor x Max, strictly (2: ten minutes with the defaults). The
	// same span idles an entry out in GC.
	ResetFactor int
	// JitterFactor adds Rand() x JitterFactor x the previous delay to each
	// delay (flowcontrol's maxJitterFactor); the kubelet uses none (0).
	JitterFactor float64
	// Rand returns values in [0, 1) for the jitter; nil means no jitter.
	Rand func() float64
}

// String prints the fields that are set, on one line (Rand as "func").
func (c BackoffConfig) String() string { return compact.Sprint(c) }

// GoString is String, for %#v.
func (c BackoffConfig) GoString() string { return c.String() }

// DefaultBackoffConfig returns the kubelet's crash-loop back-off: 10s
// doubling to 300s, reset after 10 minutes, no jitter.
func DefaultBackoffConfig() BackoffConfig {
	return BackoffConfig{Initial: 10 * time.Second, Max: 300 * time.Second, ResetFactor: 2}
}

// ReducedDecayBackoffConfig returns the back-off of the
// ReduceDefaultCrashLoopBackOffDecay feature gate (alpha in 1.33): 1s
// doubling to 60s.
func ReducedDecayBackoffConfig() BackoffConfig {
	return BackoffConfig{Initial: time.Second, Max: 60 * time.Second, ResetFactor: 2}
}

// WithMaxRestartPeriod applies the kubelet's
// crashLoopBackOff.maxContainerRestartPeriod (the KubeletCrashLoopBackOffMax
// feature gate, beta in 1.35; valid from 1s to 300s): it becomes Max, and
// Initial is lowered to it when larger.
func (c BackoffConfig) WithMaxRestartPeriod(max time.Duration) BackoffConfig {
	c.Max = max
	c.Initial = min(c.Initial, max)
	return c
}

// Validate returns every problem at once, each naming the field and
// value: Initial and Max must be positive with Initial <= Max,
// ResetFactor at least 1, JitterFactor finite and not negative.
func (c BackoffConfig) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf(format, a...))) }
	if c.Initial <= 0 {
		bad("Initial must be positive, got %v", c.Initial)
	}
	if c.Max <= 0 {
		bad("Max must be positive, got %v", c.Max)
	}
	if c.Initial > c.Max && c.Max > 0 {
		bad("Initial %v must not exceed Max %v", c.Initial, c.Max)
	}
	if c.ResetFactor < 1 {
		bad("ResetFactor must be at least 1, got %d", c.ResetFactor)
	}
	if math.IsNaN(c.JitterFactor) || math.IsInf(c.JitterFactor, 0) || c.JitterFactor < 0 {
		bad("JitterFactor must be a finite number >= 0, got %v", c.JitterFactor)
	}
	return errors.Join(errs...)
}

// BackoffEntry is the back-off state of one key; the zero value is no
// entry.
type BackoffEntry struct {
	// Delay is the current delay (flowcontrol's backoff).
	Delay time.Duration
	// LastUpdate is when the delay last grew or reset.
	LastUpdate time.Time
}

// BackoffDecision is the answer for one container that the kubelet is
// about to start again.
type BackoffDecision struct {
	// InBackoff: the container stays down; the caller records
	// CrashLoopBackOff.
	InBackoff bool
	// Remaining is how long the back-off still lasts (0 when not in
	// back-off).
	Remaining time.Duration
	// Reset: the entry was missing or had expired, so the delay started
	// over at Initial.
	Reset bool
	// Entry is the key's entry after the decision: unchanged while in
	// back-off, else advanced (doubled, or reset) with LastUpdate now.
	Entry BackoffEntry
}

// Expired reports whether an entry updated at lastUpdate counts as stale
// at t: more than ResetFactor x Max later (flowcontrol's hasExpired). With
// t the container's finish time it is the reset rule; with t now it is
// the rule by which GC drops idle entries.
func (c BackoffConfig) Expired(e BackoffEntry, t time.Time) bool {
	span := c.Max
	if c.ResetFactor > 1 && c.Max > 0 {
		if c.Max > math.MaxInt64/time.Duration(c.ResetFactor) {
			span = math.MaxInt64
		} else {
			span = time.Duration(c.ResetFactor) * c.Max
		}
	}
	return t.Sub(e.LastUpdate) > span
}

// Decide is the kubelet's doBackOff for a container whose newest exited
// instance finished at finishedAt: in back-off while the entry exists, has
// not expired at finishedAt, and now - finishedAt < Delay; otherwise the
// entry advances (Next): a missing or expired entry restarts at Initial,
// else the delay doubles up to Max, and LastUpdate becomes now. A now
// before the entry's LastUpdate is clamped to it (time never goes back), and a
// finishedAt after now counts as just finished.
func (c BackoffConfig) Decide(now time.Time, e BackoffEntry, finishedAt time.Time) (BackoffDecision, error) {
	if err := c.Validate(); err != nil {
		return BackoffDecision{Entry: e}, err
	}
	last := e.LastUpdate
	now = clock.Clamp(&last, now, false)
	fresh := e.Delay <= 0 || c.Expired(e, finishedAt)
	if !fresh {
		// A finish time after now counts as just finished.
		if ran := max(now.Sub(finishedAt), 0); ran < e.Delay {
			return BackoffDecision{InBackoff: true, Remaining: e.Delay - ran, Entry: e}, nil
		}
	}
	d := BackoffDecision{Reset: fresh, Entry: BackoffEntry{LastUpdate: now}}
	if fresh {
		d.Entry.Delay = c.Initial + c.jitter(c.Initial)
	} else {
		d.Entry.Delay = min(satDouble(e.Delay)+c.jitter(e.Delay), c.Max)
	}
	return d, nil
}

// jitter is flowcontrol's jitter: Rand() x JitterFactor x delay.
func (c BackoffConfig) jitter(delay time.Duration) time.Duration {
	if c.Rand == nil || c.JitterFactor == 0 {
		return 0
	}
	j := c.Rand() * c.JitterFactor * float64(delay)
	if !(j > 0) || j > float64(math.MaxInt64/2) {
		return 0
	}
	return time.Duration(j)
}

// satDouble doubles d without overflowing.
func satDouble(d time.Duration) time.Duration {
	if d > math.MaxInt64/2 {
		return math.MaxInt64
	}
	return 2 * d
}

// BackoffKey is the kubelet's back-off key for a container
// (GetStableKey): "podName_namespace_podUID_containerName_hashHex". The
// hash in the key means that a changed image starts a new back-off.
func BackoffKey(pod core.Pod, c core.Container) string {
	return pod.Name + "_" + pod.Namespace + "_" + pod.UID + "_" + c.Name + "_" + strconv.FormatUint(HashContainer(c.Name, c.Image), 16)
}

// BackoffMessage is the kubelet's message for a container kept down by
// the back-off, e.g. "back-off 40s restarting failed container=app
// pod=web_default(uid-1)"; delay is the entry's current delay.
func BackoffMessage(pod core.Pod, containerName string, delay time.Duration) string {
	return fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", delay, containerName, podString(&pod))
}

// BackoffEventMessage is the message of the BackOff warning event the
// kubelet records on the container then.
func BackoffEventMessage(pod core.Pod, containerName string) string {
	return fmt.Sprintf("Back-off restarting failed container %s in pod %s", containerName, podString(&pod))
}

// LastExited returns the newest exited instance of the named container,
// the one whose FinishedAt the kubelet's back-off counts from, or nil when
// none has exited (then there is no back-off).
func LastExited(status PodStatus, name string) *ContainerStatus {
	return newestInstance(status.Containers, name, true)
}
