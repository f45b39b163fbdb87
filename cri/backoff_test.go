package cri

import (
	"errors"
	"github.com/nodelife/nodelife/core"
	"slices"
	"strings"
	"testing"
	"time"
)

// crashLoop runs a container that crashes runFor after each start and is
// restarted as soon as the back-off allows; it returns how long each
// restart waited after the crash.
func crashLoop(t *testing.T, c BackoffConfig, runFor time.Duration, restarts int) []time.Duration {
	t.Helper()
	var e BackoffEntry
	start := t0
	var waits []time.Duration
	for len(waits) < restarts {
		finished := start.Add(runFor)
		d, err := c.Decide(finished, e, finished)
		if err != nil {
			t.Fatal(err)
		}
		wait := time.Duration(0)
		if d.InBackoff {
			wait = d.Remaining
			// 1ns before the end it is still in back-off; at the end not.
			if in, _ := c.Decide(finished.Add(wait-time.Nanosecond), e, finished); !in.InBackoff || in.Remaining != time.Nanosecond {
				t.Fatalf("1ns before the end: %+v", in)
			}
			if d, err = c.Decide(finished.Add(wait), e, finished); err != nil || d.InBackoff {
				t.Fatalf("at the end: %+v %v", d, err)
			}
		}
		e = d.Entry
		waits = append(waits, wait)
		start = finished.Add(wait)
	}
	return waits
}

func TestBackoffSequence(t *testing.T) {
	s := time.Second
	got := crashLoop(t, DefaultBackoffConfig(), s, 8)
	// The first restart is immediate: there is no entry yet.
	want := []time.Duration{0, 10 * s, 20 * s, 40 * s, 80 * s, 160 * s, 300 * s, 300 * s}
	if !slices.Equal(got, want) {
		t.Errorf("default: %v, want %v", got, want)
	}
	got = crashLoop(t, ReducedDecayBackoffConfig(), s, 8)
	want = []time.Duration{0, 1 * s, 2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 60 * s}
	if !slices.Equal(got, want) {
		t.Errorf("reduced decay: %v, want %v", got, want)
	}
	got = crashLoop(t, DefaultBackoffConfig().WithMaxRestartPeriod(5*s), s, 4)
	want = []time.Duration{0, 5 * s, 5 * s, 5 * s} // initial lowered to the max
	if !slices.Equal(got, want) {
		t.Errorf("max 5s: %v, want %v", got, want)
	}
	got = crashLoop(t, DefaultBackoffConfig().WithMaxRestartPeriod(45*s), s, 5)
	want = []time.Duration{0, 10 * s, 20 * s, 40 * s, 45 * s}
	if !slices.Equal(got, want) {
		t.Errorf("max 45s: %v, want %v", got, want)
	}
}

func TestBackoffBoundaries(t *testing.T) {
	c := DefaultBackoffConfig()
	e := BackoffEntry{Delay: 40 * time.Second, LastUpdate: at(0)}
	// In back-off while now - finishedAt < delay, strictly.
	d, _ := c.Decide(at(139), e, at(100))
	if !d.InBackoff || d.Remaining != time.Second || d.Entry != e {
		t.Errorf("39s after the finish: %+v", d)
	}
	d, _ = c.Decide(at(140), e, at(100))
	if d.InBackoff || d.Reset || d.Entry.Delay != 80*time.Second || !d.Entry.LastUpdate.Equal(at(140)) {
		t.Errorf("40s after the finish: %+v", d)
	}
	// Reset when finishedAt - lastUpdate > 2 x 300s, strictly.
	d, _ = c.Decide(at(600), e, at(600))
	if !d.InBackoff {
		t.Errorf("finished exactly 10 minutes after the update: %+v", d)
	}
	d, _ = c.Decide(at(600).Add(time.Nanosecond), e, at(600).Add(time.Nanosecond))
	if d.InBackoff || !d.Reset || d.Entry.Delay != 10*time.Second {
		t.Errorf("finished 10 minutes and 1ns after the update: %+v", d)
	}
	// No entry: never in back-off; the first delay is Initial.
	d, _ = c.Decide(at(5), BackoffEntry{}, at(5))
	if d.InBackoff || !d.Reset || d.Entry.Delay != 10*time.Second {
		t.Errorf("no entry: %+v", d)
	}
	// GC drops an entry idle for more than 2 x max.
	if c.Expired(e, at(600)) || !c.Expired(e, at(601)) {
		t.Error("Expired boundary")
	}
	// A clock stepped back is clamped to the entry's last update.
	d, _ = c.Decide(at(40), BackoffEntry{Delay: 10 * time.Second, LastUpdate: at(100)}, at(50))
	if d.InBackoff || !d.Entry.LastUpdate.Equal(at(100)) {
		t.Errorf("clock back: %+v", d)
	}
}

func TestBackoffJitter(t *testing.T) {
	c := DefaultBackoffConfig()
	c.JitterFactor, c.Rand = 0.5, func() float64 { return 0.5 }
	d, _ := c.Decide(at(0), BackoffEntry{}, at(0))
	if d.Entry.Delay != 12500*time.Millisecond { // 10s + 0.5*0.5*10s
		t.Errorf("first: %v", d.Entry.Delay)
	}
	d, _ = c.Decide(at(40), d.Entry, at(20))
	if d.Entry.Delay != 25*time.Second+3125*time.Millisecond { // 2*12.5s + 0.25*12.5s
		t.Errorf("second: %v", d.Entry.Delay)
	}
}

func TestBackoffValidate(t *testing.T) {
	err := BackoffConfig{Initial: -time.Second, Max: 0, ResetFactor: 0, JitterFactor: -1}.Validate()
	for _, want := range []string{"Initial must be positive, got -1s", "Max must be positive, got 0s", "ResetFactor must be at least 1, got 0", "JitterFactor must be a finite number >= 0, got -1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
	if !errors.Is(err, ErrInvalidConfig) {
		t.Error("not ErrInvalidConfig")
	}
	if err := (BackoffConfig{Initial: time.Minute, Max: time.Second, ResetFactor: 2}).Validate(); err == nil || !strings.Contains(err.Error(), "Initial 1m0s must not exceed Max 1s") {
		t.Errorf("initial > max: %v", err)
	}
	if _, err := (BackoffConfig{}).Decide(t0, BackoffEntry{}, t0); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("Decide with the zero config: %v", err)
	}
}

func TestBackoffKeyAndMessages(t *testing.T) {
	p := testPod("")
	c := core.Container{Name: "test_container", Image: "foo/image:v1"}
	if got := BackoffKey(p, c); got != "web_default_uid-1_test_container_8e45cbd0" {
		t.Errorf("key %q", got)
	}
	if got := BackoffMessage(p, "foo", 40*time.Second); got != "back-off 40s restarting failed container=foo pod=web_default(uid-1)" {
		t.Errorf("message %q", got)
	}
	if got := BackoffEventMessage(p, "foo"); got != "Back-off restarting failed container foo in pod web_default(uid-1)" {
		t.Errorf("event %q", got)
	}
	st := PodStatus{Containers: []ContainerStatus{exited(spec("foo"), 1, 1), exited(spec("foo"), 20, 1), running(spec("foo"), 30), exited(spec("bar"), 40, 1)}}
	if got := LastExited(st, "foo"); got == nil || got.ID != "foo-20" {
		t.Errorf("LastExited %+v", got)
	}
	if LastExited(st, "baz") != nil {
		t.Error("LastExited of a container that never exited")
	}
}
