package clock

import (
	"testing"
	"time"
)

func TestClamp(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var last time.Time
	if got := Clamp(&last, t0, true); !got.Equal(t0) || !last.Equal(t0) {
		t.Fatalf("first: %v last %v", got, last)
	}
	if got := Clamp(&last, t0.Add(-time.Second), true); !got.Equal(t0) || !last.Equal(t0) {
		t.Fatalf("back: %v last %v", got, last)
	}
	if got := Clamp(&last, t0.Add(time.Second), false); !got.Equal(t0.Add(time.Second)) || !last.Equal(t0) {
		t.Fatalf("peek: %v last %v", got, last)
	}
}
