package conditions

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestStatusChanged(t *testing.T) {
	ready := Condition{Type: Ready, Status: True, Reason: "KubeletReady", LastHeartbeatTime: t0, LastTransitionTime: t0}
	mem := Condition{Type: MemoryPressure, Status: False, LastHeartbeatTime: t0, LastTransitionTime: t0}
	beat := func(c Condition, at time.Time) Condition { c.LastHeartbeatTime = at; return c }
	tests := []struct {
		name     string
		old, new []Condition
		want     bool
	}{
		{"both empty", nil, nil, false},
		{"heartbeat only", []Condition{ready, mem}, []Condition{beat(ready, t2), beat(mem, t2)}, false},
		{"order only", []Condition{ready, mem}, []Condition{mem, ready}, false},
		{"a condition added", []Condition{ready}, []Condition{ready, mem}, true},
		{"status", []Condition{ready}, []Condition{{Type: Ready, Status: False, Reason: "KubeletReady", LastHeartbeatTime: t0, LastTransitionTime: t0}}, true},
		{"reason", []Condition{ready}, []Condition{{Type: Ready, Status: True, Reason: "X", LastHeartbeatTime: t0, LastTransitionTime: t0}}, true},
		{"message", []Condition{ready}, []Condition{{Type: Ready, Status: True, Reason: "KubeletReady", Message: "m", LastHeartbeatTime: t0, LastTransitionTime: t0}}, true},
		{"transition time", []Condition{ready}, []Condition{{Type: Ready, Status: True, Reason: "KubeletReady", LastHeartbeatTime: t0, LastTransitionTime: t1}}, true},
		{"same instant in another zone", []Condition{ready}, []Condition{{Type: Ready, Status: True, Reason: "KubeletReady", LastHeartbeatTime: t0, LastTransitionTime: t0.In(time.FixedZone("x", 7200))}}, false},
		{"type swapped at equal length", []Condition{ready}, []Condition{{Type: DiskPressure, Status: True, Reason: "KubeletReady", LastTransitionTime: t0}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StatusChanged(tc.old, tc.new); got != tc.want {
				t.Errorf("StatusChanged = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestEffectiveReportFrequency(t *testing.T) {
	// deckhouse/deckhouse#22175: setting only the update frequency also sets
	// the report frequency.
	if got := EffectiveReportFrequency(4*time.Second, true, 0, false); got != 4*time.Second {
		t.Errorf("update set only: %v, want 4s", got)
	}
	if got := EffectiveReportFrequency(4*time.Second, true, time.Minute, true); got != time.Minute {
		t.Errorf("both set: %v", got)
	}
	if got := EffectiveReportFrequency(0, false, 0, false); got != 5*time.Minute {
		t.Errorf("neither set: %v", got)
	}
}

func TestReportConfigValidate(t *testing.T) {
	if err := DefaultReportConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	err := ReportConfig{UpdateFrequency: -time.Second}.Validate()
	if !errors.Is(err, ErrInvalidConfig) || !containsAll(err.Error(), "UpdateFrequency -1s", "ReportFrequency 0s") {
		t.Errorf("got %v", err)
	}
	if _, err := NewReporter(ReportConfig{}); err == nil {
		t.Error("NewReporter accepted a zero config")
	}
}

type reportStep struct {
	at      time.Duration // since t0
	changed bool
	post    bool
	reason  string
	next    time.Duration // NextReport since t0
}

func runReport(t *testing.T, r *Reporter, steps []reportStep) {
	t.Helper()
	for i, s := range steps {
		now := t0.Add(s.at)
		d := r.Step(now, s.changed)
		if d.Post != s.post || d.Reason != s.reason || !d.NextReport.Equal(t0.Add(s.next)) || !d.Next.Equal(now.Add(10*time.Second)) {
			t.Fatalf("step %d at %v: got %+v, want post=%v reason=%s next=%v", i, s.at, d, s.post, s.reason, s.next)
		}
		if d.Post {
			r.Reported(now)
		}
	}
}

// Without the report delay (pre-1.33): first report at start, then every 5m
// unless something changes, which posts at once and restarts the period.
func TestReporterWithoutDelay(t *testing.T) {
	cfg := DefaultReportConfig()
	cfg.ReportDelay = false
	r, _ := NewReporter(cfg)
	runReport(t, r, []reportStep{
		{0, false, true, ReportFirst, 5 * time.Minute},
		{10 * time.Second, false, false, ReportNotDue, 5 * time.Minute},
		{4*time.Minute + 50*time.Second, false, false, ReportNotDue, 5 * time.Minute},
		{5 * time.Minute, false, true, ReportPeriodic, 10 * time.Minute},
		{6 * time.Minute, true, true, ReportChanged, 11 * time.Minute},
		{10 * time.Minute, false, false, ReportNotDue, 11 * time.Minute},
		{11 * time.Minute, false, true, ReportPeriodic, 16 * time.Minute},
	})
}

// kubernetes#130919: after a change (or the first report) the next periodic
// report is moved by (u-0.5) x 5m, once; a periodic report resets it.
func TestReporterDelayAfterChange(t *testing.T) {
	cfg := DefaultReportConfig()
	u := 0.9 // delay = +0.4 x 5m = 2m
	cfg.Rand = func() float64 { return u }
	r, _ := NewReporter(cfg)
	runReport(t, r, []reportStep{
		{0, false, true, ReportFirst, 7 * time.Minute},
		{5 * time.Minute, false, false, ReportNotDue, 7 * time.Minute},
		{7 * time.Minute, false, true, ReportPeriodic, 12 * time.Minute}, // delay consumed
		{12 * time.Minute, false, true, ReportPeriodic, 17 * time.Minute},
	})
	u = 0.1 // delay = -0.4 x 5m = -2m
	runReport(t, r, []reportStep{
		{13 * time.Minute, true, true, ReportChanged, 16 * time.Minute},
		{15 * time.Minute, false, false, ReportNotDue, 16 * time.Minute},
		{16 * time.Minute, false, true, ReportPeriodic, 21 * time.Minute},
	})
	if r.PendingDelay() != 0 || !r.LastReport().Equal(t0.Add(16*time.Minute)) {
		t.Errorf("delay %v, last %v", r.PendingDelay(), r.LastReport())
	}
}

func TestReporterBadRandAndClock(t *testing.T) {
	for _, v := range []float64{math.NaN(), -3, 7} {
		cfg := DefaultReportConfig()
		cfg.Rand = func() float64 { return v }
		r, _ := NewReporter(cfg)
		r.Step(t0, false)
		var want time.Duration // NaN: 0.5, no delay
		switch {
		case v < 0:
			want = -150 * time.Second
		case v > 1:
			want = 150 * time.Second
		}
		if r.PendingDelay() != want {
			t.Errorf("Rand()=%v: delay %v, want %v", v, r.PendingDelay(), want)
		}
	}
	// A clock going backwards is clamped to the latest time seen.
	r, _ := NewReporter(DefaultReportConfig())
	r.Step(t1, false)
	r.Reported(t1)
	d := r.Step(t0, false)
	if d.Post || !d.Next.Equal(t1.Add(10*time.Second)) {
		t.Errorf("backwards clock: %+v", d)
	}
	if d := cmp.Diff(t1, r.LastReport()); d != "" {
		t.Error(d)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func TestReporterMessages(t *testing.T) {
	cfg := DefaultReportConfig()
	cfg.ReportDelay = false
	r, _ := NewReporter(cfg)
	want := []string{
		"no status posted since start: post now",
		"status unchanged, next post due in 4m50s",
		"node status changed: post now",
		"status unchanged, last posted 5m0s ago: post now",
	}
	steps := []struct {
		at      time.Duration
		changed bool
	}{{0, false}, {10 * time.Second, false}, {20 * time.Second, true}, {5*time.Minute + 20*time.Second, false}}
	for i, s := range steps {
		d := r.Step(t0.Add(s.at), s.changed)
		if d.Message != want[i] {
			t.Errorf("step %d: message %q, want %q", i, d.Message, want[i])
		}
		if d.Post {
			r.Reported(t0.Add(s.at))
		}
	}
}
