package conditions

import (
	"strings"
	"testing"
	"time"
)

// A report-delay Rand that calls back into its Reporter (issue 28's audit):
// the nested Decide and Reported change nothing and say so; the outer
// decisions are those of a Reporter whose Rand does not call back.
func TestReporterRandCallingBack(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var r *Reporter
	var nested []string
	cfg := DefaultReportConfig()
	cfg.Rand = func() float64 {
		nested = append(nested, r.Step(now.Add(time.Hour), true).Message)
		r.Reported(now.Add(time.Hour))
		return 0.9
	}
	r, _ = NewReporter(cfg)
	plain := DefaultReportConfig()
	plain.Rand = func() float64 { return 0.9 }
	ref, _ := NewReporter(plain)
	for _, step := range []struct {
		changed bool
		at      time.Duration
	}{{false, 0}, {false, 10 * time.Second}, {true, 20 * time.Second}, {false, 7 * time.Minute}} {
		g, w := r.Step(now.Add(step.at), step.changed), ref.Step(now.Add(step.at), step.changed)
		if g != w {
			t.Fatalf("at +%v: %+v, without the callback %+v", step.at, g, w)
		}
		if g.Post {
			r.Reported(now.Add(step.at))
			ref.Reported(now.Add(step.at))
		}
		if r.LastReport() != ref.LastReport() || r.PendingDelay() != ref.PendingDelay() {
			t.Fatalf("at +%v: state %v %v, without the callback %v %v", step.at, r.LastReport(), r.PendingDelay(), ref.LastReport(), ref.PendingDelay())
		}
	}
	if len(nested) == 0 {
		t.Fatal("Rand was never called")
	}
	for _, m := range nested {
		if !strings.Contains(m, "called from inside its own Rand: ignored") {
			t.Fatalf("nested Decide said %q", m)
		}
	}
}
