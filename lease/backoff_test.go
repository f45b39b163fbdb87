package lease

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// kubernetes/website#19673 documents the node lease back-off as 200ms to
// 7s: 100ms doubled before each wait, capped at 7s.
func TestDefaultBackoffSequence(t *testing.T) {
	b := DefaultBackoff()
	var got []time.Duration
	for i := 0; i < 9; i++ {
		got = append(got, b.Next())
	}
	ms := time.Millisecond
	want := []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 7000 * ms, 7000 * ms, 7000 * ms}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if b.Steps() != 9 {
		t.Errorf("Steps = %d", b.Steps())
	}
	b.Reset()
	if got := b.Next(); got != 200*ms || b.Steps() != 1 {
		t.Errorf("after Reset: %v (steps %d)", got, b.Steps())
	}
}

func TestBackoffJitter(t *testing.T) {
	b := Backoff{Initial: time.Second, Factor: 2, Cap: 5 * time.Second, Jitter: 0.5, Rand: func() float64 { return 0.5 }}
	var got []time.Duration
	for i := 0; i < 4; i++ {
		got = append(got, b.Next())
	}
	// 1s*(1+0.25), 2s*1.25, 4s*1.25=5s (cap), 5s*1.25 capped.
	want := []time.Duration{1250 * time.Millisecond, 2500 * time.Millisecond, 5 * time.Second, 5 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBackoffValidate(t *testing.T) {
	if err := DefaultBackoff().Validate(); err != nil {
		t.Fatal(err)
	}
	err := Backoff{Initial: -1, Factor: 0.5, Cap: -2, Jitter: -1}.Validate()
	for _, w := range []string{"Backoff.Initial -1ns must be > 0", "Backoff.Factor 0.5", "Backoff.Cap -2ns must be >= Initial -1ns", "Backoff.Jitter -1"} {
		if err == nil || !strings.Contains(err.Error(), w) || !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("Validate() = %v, want it to mention %q", err, w)
		}
	}
	// Invalid settings still give safe waits.
	bad := Backoff{Initial: time.Second, Factor: -3, Cap: 0}
	if w := bad.Next(); w != time.Second {
		t.Errorf("bad backoff wait %v", w)
	}
}
