package cri

import (
	"errors"
	"fmt"
	"github.com/nodelife/nodelife/core"
	"time"

	"github.com/nodelife/nodelife/internal/enum"
)

// ProbeType is the kind of a container probe.
type ProbeType int

// The probe types.
const (
	Liveness ProbeType = iota
	Readiness
	Startup
)

// String returns the kubelet's name, e.g. "Liveness".
func (t ProbeType) String() string {
	return enum.Name(t, "ProbeType", "Liveness", "Readiness", "Startup")
}

// ProbeSpec is a container probe's timing (core/v1 Probe). A zero field
// takes the API default, as the API server's defaulting does.
type ProbeSpec struct {
	// InitialDelaySeconds: no probe until the container has run this
	// long (default 0).
	InitialDelaySeconds int32
	// TimeoutSeconds is each probe's timeout (default 1); the caller's
	// prober applies it, a timeout is a failure.
	TimeoutSeconds int32
	// PeriodSeconds is the interval between probes (default 10).
	PeriodSeconds int32
	// SuccessThreshold: consecutive successes to count as passed after a
	// failure (default 1; must be 1 for liveness and startup).
	SuccessThreshold int32
	// FailureThreshold: consecutive failures to count as failed (default
	// 3).
	FailureThreshold int32
}

// withDefaults fills the zero fields with the API defaults.
func (s ProbeSpec) withDefaults() ProbeSpec {
	if s.TimeoutSeconds == 0 {
		s.TimeoutSeconds = 1
	}
	if s.PeriodSeconds == 0 {
		s.PeriodSeconds = 10
	}
	if s.SuccessThreshold == 0 {
		s.SuccessThreshold = 1
	}
	if s.FailureThreshold == 0 {
		s.FailureThreshold = 3
	}
	return s
}

// Validate returns every problem at once, as the API server's probe
// validation: no negative field, and a SuccessThreshold of 1 for liveness
// and startup probes.
func (s ProbeSpec) Validate(t ProbeType) error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int32
	}{{"InitialDelaySeconds", s.InitialDelaySeconds}, {"TimeoutSeconds", s.TimeoutSeconds}, {"PeriodSeconds", s.PeriodSeconds},
		{"SuccessThreshold", s.SuccessThreshold}, {"FailureThreshold", s.FailureThreshold}} {
		if f.v < 0 {
			errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("%s probe: %s must be greater than or equal to 0, got %d", t, f.name, f.v)))
		}
	}
	if t != Readiness && s.withDefaults().SuccessThreshold != 1 {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("%s probe: SuccessThreshold must be 1, got %d", t, s.SuccessThreshold)))
	}
	if t < Liveness || t > Startup {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("unknown probe type %v", t)))
	}
	return errors.Join(errs...)
}

// ProbeOutcome is the outcome of running one probe (the prober's
// probe.Result, plus errors).
type ProbeOutcome int

// The probe outcomes.
const (
	// OutcomeSuccess: the check passed.
	OutcomeSuccess ProbeOutcome = iota
	// OutcomeWarning: passed with a warning (an HTTP redirect the prober
	// did not follow); counts as a success.
	OutcomeWarning
	// OutcomeFailure: the check failed (or timed out).
	OutcomeFailure
	// OutcomeUnknown: the prober could not tell; counts as a failure.
	OutcomeUnknown
	// OutcomeError: the probe could not run (e.g. the exec failed to
	// start); the result is thrown away and nothing changes.
	OutcomeError
)

// String returns the outcome's name.
func (o ProbeOutcome) String() string {
	return enum.Name(o, "ProbeOutcome", "success", "warning", "failure", "unknown", "error")
}

// ExecOutcome is an exec probe's outcome: exit code 0 passes, anything
// else (and a timeout) fails.
func ExecOutcome(exitCode int, timedOut bool) ProbeOutcome {
	if timedOut || exitCode != 0 {
		return OutcomeFailure
	}
	return OutcomeSuccess
}

// TCPOutcome is a TCP socket probe's outcome: it passes when the
// connection opens.
func TCPOutcome(connected bool) ProbeOutcome {
	if connected {
		return OutcomeSuccess
	}
	return OutcomeFailure
}

// HTTPOutcome is an HTTP probe's outcome for the final response's status
// code: 200 <= code < 300 passes, 300 <= code < 400 passes with a warning
// (a redirect to another host, which the prober does not follow), anything
// else fails.
func HTTPOutcome(statusCode int) ProbeOutcome {
	switch {
	case statusCode >= 200 && statusCode < 300:
		return OutcomeSuccess
	case statusCode >= 300 && statusCode < 400:
		return OutcomeWarning
	}
	return OutcomeFailure
}

// GRPCOutcome is a gRPC probe's outcome: it passes when the health
// service answers SERVING.
func GRPCOutcome(serving bool) ProbeOutcome { return TCPOutcome(serving) }

// result maps an outcome to the result it counts as, or ProbeNone for an
// error.
func (o ProbeOutcome) result() ProbeResult {
	switch o {
	case OutcomeSuccess, OutcomeWarning:
		return ProbeSuccess
	case OutcomeError:
		return ProbeNone
	}
	return ProbeFailure
}

// ProbeEffect is what a failed probe does to its container.
type ProbeEffect struct {
	// Kill: the container is killed.
	Kill bool
	// Restart: it is started again after the kill.
	Restart bool
	// NotReady: it is marked not ready (out of Service endpoints).
	NotReady bool
	// Message says it in words.
	Message string
}

// FailureEffect says what a probe of type t that has failed means for a
// container of a pod with the given restart policy (sidecar: a restartable
// init container). Liveness and startup failures kill the container,
// which is restarted unless the pod's policy is Never (a sidecar always);
// a readiness failure only marks it not ready.
func FailureEffect(t ProbeType, policy core.RestartPolicy, sidecar bool) ProbeEffect {
	if t == Readiness {
		return ProbeEffect{NotReady: true, Message: "the container is marked not ready and leaves the Service endpoints; it keeps running"}
	}
	if sidecar || policy != core.RestartPolicyNever {
		return ProbeEffect{Kill: true, Restart: true, NotReady: true, Message: fmt.Sprintf("the container failed its %s probe: it is killed and restarted", lower(t))}
	}
	return ProbeEffect{Kill: true, NotReady: true, Message: fmt.Sprintf("the container failed its %s probe: it is killed and, as the restart policy is Never, not restarted", lower(t))}
}

func lower(t ProbeType) string {
	switch t {
	case Liveness:
		return "liveness"
	case Readiness:
		return "readiness"
	}
	return "startup"
}

// ProbeObservation is what a probe worker sees of its container at a tick
// (the pod status the kubelet's status manager holds).
type ProbeObservation struct {
	// PodTerminal: the pod is Succeeded or Failed; the worker stops.
	PodTerminal bool
	// PodDeleting: the pod has a deletion timestamp; liveness and startup
	// workers report success and stop.
	PodDeleting bool
	// ContainerID is the container's current ID, "" until it is created.
	ContainerID string
	// Running reports state.running; StartedAt is its startedAt.
	Running   bool
	StartedAt time.Time
	// Terminated reports state.terminated.
	Terminated bool
	// Started is status.started: the startup probe has passed (or there is
	// none).
	Started bool
}

// ProbeStep is the outcome of a worker tick or report.
type ProbeStep struct {
	// Probe: run the probe now and pass its outcome to Report.
	Probe bool
	// Stop: the worker is done; no further ticks.
	Stop bool
	// Result is the container's result after the step (ProbeNone: none
	// recorded).
	Result ProbeResult
	// Changed: Result differs from before the step.
	Changed bool
	// Why says what the step did, for a log line.
	Why string
	// Next is when to tick next: the tick's time plus the period.
	Next time.Time
}

// ProbeWorker is the kubelet's probe worker for one probe of one
// container, as a synchronous state machine: Step at each period with what
// the status shows, run the probe when the step says so, Report its
// outcome. It holds the result that the liveness, readiness or startup
// results manager would.
//
// There is no zero value: use NewProbeWorker.
type ProbeWorker struct {
	typ           ProbeType
	spec          ProbeSpec
	restartPolicy core.RestartPolicy

	containerID string
	result      ProbeResult
	lastOutcome ProbeResult // the last counted result
	run         int32       // consecutive equal results
	onHold      bool
	stopped     bool
	pending     bool // a probe was requested and not reported
	last        time.Time
}

// NewProbeWorker returns a worker for a probe of type t with the given
// spec, in a pod with the given restart policy (empty means Always). An
// invalid spec or an unknown policy returns an error.
func NewProbeWorker(t ProbeType, spec ProbeSpec, policy core.RestartPolicy) (*ProbeWorker, error) {
	if err := spec.Validate(t); err != nil {
		return nil, err
	}
	switch policy {
	case "":
		policy = core.RestartPolicyAlways
	case core.RestartPolicyAlways, core.RestartPolicyOnFailure, core.RestartPolicyNever:
	default:
		return nil, wrap(ErrInvalidConfig, fmt.Sprintf("unsupported restart policy %q (Always, OnFailure or Never)", policy))
	}
	return &ProbeWorker{typ: t, spec: spec.withDefaults(), restartPolicy: policy}, nil
}

// Result returns the result the worker holds (ProbeNone before the
// container was seen).
func (w *ProbeWorker) Result() ProbeResult { return w.result }

// initial is the result a new container starts with: readiness Failure,
// liveness Success, startup Unknown.
func (w *ProbeWorker) initial() ProbeResult {
	switch w.typ {
	case Readiness:
		return ProbeFailure
	case Liveness:
		return ProbeSuccess
	}
	return ProbeUnknown
}

// set records a result and fills the step.
func (w *ProbeWorker) set(st *ProbeStep, r ProbeResult) {
	st.Changed = st.Changed || r != w.result
	w.result = r
	st.Result = r
}

// Step is one run of the worker's loop (doProbe up to the probe) at now.
// In order: a terminal pod stops the worker; no container yet waits; a
// new container ID resets the result to the type's initial value and
// lifts a hold; a hold (after a liveness or startup failure) waits for a
// new container; a container not running is Failure, and stops the
// worker once terminated under Never; a deleting pod sets liveness and
// startup to Success and stops them; then no probe before
// InitialDelaySeconds (whole seconds since StartedAt), no startup probe
// once started and no other probe before. Otherwise Probe is true.
func (w *ProbeWorker) Step(now time.Time, obs ProbeObservation) ProbeStep {
	if now.Before(w.last) {
		now = w.last
	}
	w.last = now
	st := ProbeStep{Result: w.result, Next: now.Add(time.Duration(w.spec.PeriodSeconds) * time.Second)}
	w.pending = false
	switch {
	case w.stopped:
		st.Stop, st.Why = true, "the worker has stopped"
		return st
	case obs.PodTerminal:
		w.stopped = true
		st.Stop, st.Why = true, "the pod is terminal"
		return st
	case obs.ContainerID == "":
		st.Why = "the container has not been created"
		return st
	}
	if obs.ContainerID != w.containerID {
		w.containerID = obs.ContainerID
		w.set(&st, w.initial())
		w.onHold = false // the run of equal results carries over, as upstream's
	}
	switch {
	case w.onHold:
		st.Why = "on hold after a failure until the container is replaced"
	case !obs.Running:
		w.set(&st, ProbeFailure)
		st.Why = "the container is not running"
		if obs.Terminated && w.restartPolicy == core.RestartPolicyNever {
			w.stopped = true
			st.Stop, st.Why = true, "the container terminated and will not be restarted"
		}
	case obs.PodDeleting && w.typ != Readiness:
		w.set(&st, ProbeSuccess)
		w.stopped = true
		st.Stop, st.Why = true, "the pod is shutting down"
	case int64(now.Sub(obs.StartedAt)/time.Second) < int64(w.spec.InitialDelaySeconds):
		st.Why = "within the initial delay"
	case obs.Started && w.typ == Startup:
		st.Why = "the container has started; startup probes are done"
	case !obs.Started && w.typ != Startup:
		st.Why = "waiting for the startup probe to pass"
	default:
		st.Probe, st.Why = true, "probe due"
		w.pending = true
	}
	return st
}

// Report records the outcome of the probe the last Step asked for. An
// error is thrown away; otherwise the result changes only after
// SuccessThreshold successes or FailureThreshold failures in a row. A
// liveness or startup failure puts the worker on hold until the container
// is replaced. A report without a pending probe changes nothing.
func (w *ProbeWorker) Report(o ProbeOutcome) ProbeStep {
	st := ProbeStep{Result: w.result, Next: w.last.Add(time.Duration(w.spec.PeriodSeconds) * time.Second)}
	if !w.pending {
		st.Why = "no probe was pending"
		return st
	}
	w.pending = false
	r := o.result()
	if r == ProbeNone {
		st.Why = "the probe errored; the result is thrown away"
		return st
	}
	if r == w.lastOutcome {
		w.run++
	} else {
		w.lastOutcome, w.run = r, 1
	}
	if (r == ProbeFailure && w.run < w.spec.FailureThreshold) || (r == ProbeSuccess && w.run < w.spec.SuccessThreshold) {
		st.Why = fmt.Sprintf("%s %d of %d in a row; the result stays", o, w.run, w.threshold(r))
		return st
	}
	w.set(&st, r)
	st.Why = fmt.Sprintf("%s %d in a row", o, w.run)
	if r == ProbeFailure && w.typ != Readiness {
		w.onHold, w.run = true, 0
		st.Why += "; probing stops until the container is replaced"
	}
	return st
}

func (w *ProbeWorker) threshold(r ProbeResult) int32 {
	if r == ProbeFailure {
		return w.spec.FailureThreshold
	}
	return w.spec.SuccessThreshold
}
