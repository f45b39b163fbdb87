package cri

import (
	"errors"
	"github.com/nodelife/nodelife/core"
	"strings"
	"testing"
	"time"
)

func TestProbeOutcomes(t *testing.T) {
	for _, c := range []struct {
		code int
		want ProbeOutcome
		res  ProbeResult
	}{
		{199, OutcomeFailure, ProbeFailure},
		{200, OutcomeSuccess, ProbeSuccess},
		{299, OutcomeSuccess, ProbeSuccess},
		{300, OutcomeWarning, ProbeSuccess},
		{399, OutcomeWarning, ProbeSuccess},
		{400, OutcomeFailure, ProbeFailure},
		{500, OutcomeFailure, ProbeFailure},
	} {
		if got := HTTPOutcome(c.code); got != c.want || got.result() != c.res {
			t.Errorf("HTTP %d: %v (%v), want %v (%v)", c.code, got, got.result(), c.want, c.res)
		}
	}
	if ExecOutcome(0, false) != OutcomeSuccess || ExecOutcome(1, false) != OutcomeFailure || ExecOutcome(0, true) != OutcomeFailure {
		t.Error("exec")
	}
	if TCPOutcome(true) != OutcomeSuccess || TCPOutcome(false) != OutcomeFailure || GRPCOutcome(false) != OutcomeFailure {
		t.Error("tcp/grpc")
	}
	if OutcomeUnknown.result() != ProbeFailure || OutcomeError.result() != ProbeNone {
		t.Error("unknown counts as failure; error is thrown away")
	}
}

func TestProbeSpecValidate(t *testing.T) {
	err := ProbeSpec{InitialDelaySeconds: -1, PeriodSeconds: -2, SuccessThreshold: 2}.Validate(Liveness)
	for _, want := range []string{"Liveness probe: InitialDelaySeconds must be greater than or equal to 0, got -1",
		"PeriodSeconds must be greater than or equal to 0, got -2", "Liveness probe: SuccessThreshold must be 1, got 2"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
	if !errors.Is(err, ErrInvalidConfig) {
		t.Error("not ErrInvalidConfig")
	}
	if err := (ProbeSpec{SuccessThreshold: 3}).Validate(Readiness); err != nil {
		t.Errorf("readiness may need 3 successes: %v", err)
	}
	if err := (ProbeSpec{SuccessThreshold: 3}).Validate(Startup); err == nil {
		t.Error("startup SuccessThreshold 3 accepted")
	}
	if _, err := NewProbeWorker(Liveness, ProbeSpec{}, "Sometimes"); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `"Sometimes"`) {
		t.Errorf("unknown restart policy: %v", err)
	}
	if _, err := NewProbeWorker(ProbeType(7), ProbeSpec{}, ""); err == nil {
		t.Error("unknown probe type accepted")
	}
}

// probeRun drives a worker through ticks every period; outcomes[i] is the
// outcome reported at tick i when a probe is due.
type probeRun struct {
	t   *testing.T
	w   *ProbeWorker
	obs ProbeObservation
	now time.Time
}

func newProbeRun(t *testing.T, typ ProbeType, spec ProbeSpec, policy core.RestartPolicy) *probeRun {
	w, err := NewProbeWorker(typ, spec, policy)
	if err != nil {
		t.Fatal(err)
	}
	return &probeRun{t: t, w: w, obs: ProbeObservation{ContainerID: "c1", Running: true, StartedAt: t0, Started: typ != Startup}, now: t0}
}

// step ticks at now and, when a probe is due, reports o; it returns the
// result after the step and whether a probe ran.
func (r *probeRun) step(o ProbeOutcome) (ProbeResult, bool) {
	st := r.w.Step(r.now, r.obs)
	r.now = st.Next
	if !st.Probe {
		return st.Result, false
	}
	return r.w.Report(o).Result, true
}

func TestProbeWorkerThresholds(t *testing.T) {
	// Liveness with the defaults: starts Success, three failures in a row
	// to fail, then on hold until a new container.
	r := newProbeRun(t, Liveness, ProbeSpec{}, core.RestartPolicyAlways)
	want := []ProbeResult{ProbeSuccess, ProbeSuccess, ProbeSuccess, ProbeSuccess, ProbeFailure}
	outcomes := []ProbeOutcome{OutcomeFailure, OutcomeSuccess, OutcomeFailure, OutcomeFailure, OutcomeFailure}
	for i, o := range outcomes {
		if got, probed := r.step(o); got != want[i] || !probed {
			t.Fatalf("liveness step %d (%v): %v probed=%v, want %v", i, o, got, probed, want[i])
		}
	}
	if _, probed := r.step(OutcomeSuccess); probed {
		t.Error("probed while on hold")
	}
	r.obs.ContainerID = "c2" // restarted
	if got, probed := r.step(OutcomeFailure); got != ProbeSuccess || !probed {
		t.Errorf("new container: %v probed=%v", got, probed)
	}
	// Readiness: starts Failure; SuccessThreshold 2.
	r = newProbeRun(t, Readiness, ProbeSpec{SuccessThreshold: 2, FailureThreshold: 1}, "")
	want = []ProbeResult{ProbeFailure, ProbeSuccess, ProbeFailure, ProbeFailure, ProbeFailure}
	outcomes = []ProbeOutcome{OutcomeSuccess, OutcomeWarning, OutcomeUnknown, OutcomeError, OutcomeSuccess}
	for i, o := range outcomes {
		if got, _ := r.step(o); got != want[i] {
			t.Fatalf("readiness step %d (%v): %v, want %v", i, o, got, want[i])
		}
	}
	// A readiness failure does not hold the worker.
	if got, probed := r.step(OutcomeSuccess); got != ProbeSuccess || !probed {
		t.Errorf("readiness after two successes: %v probed=%v", got, probed)
	}
}

func TestProbeWorkerGates(t *testing.T) {
	// Initial delay in whole seconds since StartedAt.
	r := newProbeRun(t, Readiness, ProbeSpec{InitialDelaySeconds: 15, PeriodSeconds: 5}, "")
	var probedAt []int
	for i := 0; i < 5; i++ {
		at := int(r.now.Sub(t0) / time.Second)
		if _, probed := r.step(OutcomeSuccess); probed {
			probedAt = append(probedAt, at)
		}
	}
	if len(probedAt) != 2 || probedAt[0] != 15 || probedAt[1] != 20 {
		t.Errorf("initial delay 15s, period 5s: probed at %v", probedAt)
	}
	// Startup probes run until started; the others only after.
	r = newProbeRun(t, Startup, ProbeSpec{FailureThreshold: 2}, "")
	if got := r.w.Step(r.now, r.obs); !got.Probe || got.Result != ProbeUnknown {
		t.Errorf("startup first tick: %+v", got)
	}
	r.obs.Started = true
	if got := r.w.Step(r.now, r.obs); got.Probe {
		t.Errorf("startup after start: %+v", got)
	}
	l := newProbeRun(t, Liveness, ProbeSpec{}, "")
	l.obs.Started = false
	if got := l.w.Step(l.now, l.obs); got.Probe || got.Why != "waiting for the startup probe to pass" {
		t.Errorf("liveness before start: %+v", got)
	}
	// Not running: Failure; terminated under Never stops the worker.
	l = newProbeRun(t, Liveness, ProbeSpec{}, core.RestartPolicyNever)
	l.step(OutcomeSuccess)
	l.obs.Running, l.obs.Terminated = false, true
	if got := l.w.Step(l.now, l.obs); got.Result != ProbeFailure || !got.Changed || !got.Stop {
		t.Errorf("terminated under Never: %+v", got)
	}
	// A deleting pod: liveness becomes Success and stops; readiness goes on.
	l = newProbeRun(t, Liveness, ProbeSpec{FailureThreshold: 1}, "")
	l.step(OutcomeFailure)
	l.obs.ContainerID, l.obs.PodDeleting = "c2", true
	if got := l.w.Step(l.now, l.obs); got.Result != ProbeSuccess || !got.Stop {
		t.Errorf("deleting: %+v", got)
	}
	rd := newProbeRun(t, Readiness, ProbeSpec{}, "")
	rd.obs.PodDeleting = true
	if got := rd.w.Step(rd.now, rd.obs); !got.Probe {
		t.Errorf("readiness while deleting: %+v", got)
	}
	// A terminal pod stops every worker; no container yet waits.
	rd.obs.PodTerminal = true
	if got := rd.w.Step(rd.now, rd.obs); !got.Stop {
		t.Errorf("terminal: %+v", got)
	}
	w, _ := NewProbeWorker(Readiness, ProbeSpec{}, "")
	if got := w.Step(t0, ProbeObservation{}); got.Probe || got.Result != ProbeNone {
		t.Errorf("no container: %+v", got)
	}
	if got := w.Report(OutcomeSuccess); got.Why != "no probe was pending" {
		t.Errorf("report without a tick: %+v", got)
	}
}

func TestFailureEffect(t *testing.T) {
	if e := FailureEffect(Liveness, core.RestartPolicyAlways, false); !e.Kill || !e.Restart {
		t.Errorf("liveness Always: %+v", e)
	}
	if e := FailureEffect(Startup, core.RestartPolicyNever, false); !e.Kill || e.Restart {
		t.Errorf("startup Never: %+v", e)
	}
	if e := FailureEffect(Liveness, core.RestartPolicyNever, true); !e.Restart {
		t.Errorf("sidecar liveness Never: %+v", e)
	}
	if e := FailureEffect(Readiness, core.RestartPolicyAlways, false); e.Kill || e.Restart || !e.NotReady {
		t.Errorf("readiness: %+v", e)
	}
}
