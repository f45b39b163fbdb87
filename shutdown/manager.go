package shutdown

import (
	"strings"
	"time"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/clock"
	"github.com/nodelife/nodelife/internal/enum"
)

// State is where a Manager is in a shutdown.
type State int

const (
	// StateIdle: no shutdown; the node is Ready as far as the shutdown
	// manager is concerned and pods are admitted.
	StateIdle State = iota
	// StateShuttingDown: the phases are running.
	StateShuttingDown
	// StateShutDown: every phase is over and the inhibitor lock is
	// released; the node is still shutting down (Ready False, admission
	// closed) until it powers off or the shutdown is cancelled.
	StateShutDown
)

// String returns "Idle", "ShuttingDown" or "ShutDown".
func (s State) String() string { return enum.Name(s, "State", "Idle", "ShuttingDown", "ShutDown") }

// NodeShutdownReason is the reason of the shutdown manager's node events
// and of its admission rejections (kubelet events.NodeShutdown).
const NodeShutdownReason = "NodeShutdown"

// The node events the shutdown manager records, with NodeShutdownReason.
const (
	ShutdownEventMessage     = "Shutdown manager detected shutdown event"
	CancellationEventMessage = "Shutdown manager detected shutdown cancellation"
)

// Admission while the node shuts down.
const (
	// AdmissionRejectedMessage is the message of a pod rejected while the
	// node shuts down.
	AdmissionRejectedMessage = "Pod was rejected as the node is shutting down."
)

// The status the kubelet writes on a pod it kills for a shutdown.
const (
	// TerminatedReason is status.reason of a killed pod.
	TerminatedReason = "Terminated"
	// TerminatedMessage is status.message of a killed pod, and the message
	// of its DisruptionTarget condition.
	TerminatedMessage = "Pod was terminated in response to imminent node shutdown."
	// TerminationByKubeletReason is the reason of the DisruptionTarget
	// condition.
	TerminationByKubeletReason = "TerminationByKubelet"
	// DisruptionTarget is the pod condition type set on killed pods.
	DisruptionTarget = "DisruptionTarget"
)

// PodCondition is a pod status condition, field for field as
// k8s.io/api/core/v1.PodCondition without the times.
type PodCondition struct {
	Type, Status, Reason, Message string
}

// PodStatus is the part of a pod's status the shutdown manager writes.
type PodStatus struct {
	// Phase is Failed, or Succeeded for a pod that had already succeeded.
	Phase core.PodPhase
	// Reason and Message are TerminatedReason and TerminatedMessage.
	Reason, Message string
	// Condition is the DisruptionTarget condition to set, nil under
	// Config.OmitDisruptionCondition.
	Condition *PodCondition
}

// TerminatedStatus returns the status the kubelet writes on p when it kills
// p for a shutdown: phase Failed unless p already Succeeded, reason
// Terminated, the shutdown message, and condition DisruptionTarget True /
// TerminationByKubelet. Kubelet 1.22 left the phase alone
// (kubernetes#104531, fixed in 1.23).
func (c Config) TerminatedStatus(p core.Pod) PodStatus {
	s := PodStatus{Phase: core.PodFailed, Reason: TerminatedReason, Message: TerminatedMessage}
	if p.Phase == core.PodSucceeded {
		s.Phase = core.PodSucceeded
	}
	if !c.OmitDisruptionCondition {
		s.Condition = &PodCondition{Type: DisruptionTarget, Status: "True", Reason: TerminationByKubeletReason, Message: TerminatedMessage}
	}
	return s
}

// Admission is an admission verdict.
type Admission struct {
	// Admit is false when the pod is rejected.
	Admit bool
	// Reason and Message explain a rejection.
	Reason, Message string
}

// Kill asks the caller to kill one pod.
type Kill struct {
	// Pod is the pod to kill.
	Pod core.Pod
	// Phase is the index of its phase in the Plan.
	Phase int
	// GracePeriodSeconds overrides the pod's grace period for the kill.
	GracePeriodSeconds int64
	// Status is the status to write on the pod (Config.TerminatedStatus).
	Status PodStatus
}

// PhaseEventKind says what happened to a phase.
type PhaseEventKind int

const (
	// PhaseStarted: the phase's pods are being killed.
	PhaseStarted PhaseEventKind = iota
	// PhaseSkipped: the phase has no pods and takes no time.
	PhaseSkipped
	// PhaseCompleted: every pod of the phase has terminated before its
	// period ran out.
	PhaseCompleted
	// PhaseTimedOut: the phase's period ran out ("Shutdown manager pod
	// killing time out"); its remaining kills go on in the background.
	PhaseTimedOut
	// PhaseAbandoned: a cancellation under Config.CancelImmediately stopped
	// the phase.
	PhaseAbandoned
)

// String returns the kind's name.
func (k PhaseEventKind) String() string {
	return enum.Name(k, "PhaseEventKind", "Started", "Skipped", "Completed", "TimedOut", "Abandoned")
}

// PhaseEvent reports a phase starting, being skipped or ending.
type PhaseEvent struct {
	// Phase is the index of the phase in the Plan; Priority its priority.
	Phase    int
	Priority int32
	// Kind is what happened.
	Kind PhaseEventKind
	// At is when: a timed-out phase ends at its deadline even when the
	// caller reports the time later.
	At time.Time
}

// NodeEvent is an event to record on the Node object.
type NodeEvent struct {
	Reason, Message string
}

// Step is what a Manager asks the caller to do after an input, in order:
// record Events, sync the node's Ready condition when ReadyChanged, carry
// out Kills (in parallel, as upstream), release or acquire the inhibitor
// lock, and call Step at Next.
type Step struct {
	// State is the manager's state after the step.
	State State
	// Events are node events to record.
	Events []NodeEvent
	// ReadyChanged reports that ShutdownStatus changed: on a shutdown the
	// kubelet syncs the node status at once so that Ready turns False; on
	// a cancellation the next periodic status update carries Ready True.
	ReadyChanged bool
	// Phases reports the phases that started, were skipped or ended.
	Phases []PhaseEvent
	// Kills are the pods to kill now.
	Kills []Kill
	// ReleaseInhibitor asks the caller to release the inhibitor lock so
	// that the system may proceed with the shutdown; AcquireInhibitor to
	// take a new one (after a cancellation).
	ReleaseInhibitor, AcquireInhibitor bool
	// CancelPending reports a cancellation that takes effect when the
	// phases are over (the upstream behaviour).
	CancelPending bool
	// Next is when Step must be called next; zero when no timer is needed.
	Next time.Time
}

// Manager is the kubelet's graceful shutdown manager as a synchronous state
// machine. It reads no clock: every input carries now, and Step.Next says
// when to call Step. A Manager is not safe for concurrent use.
type Manager struct {
	cfg    Config
	phases []PhaseConfig
	state  State
	last   time.Time

	plan       Plan
	cur        int       // running phase, index into plan.Phases
	phaseStart time.Time // when cur started
	remaining  int       // pods of cur not yet terminated
	emptyAt    time.Time // when remaining reached 0
	done       map[podName]bool
	phaseOf    map[podName]int32   // the phase of each pod
	morePhases map[podName][]int32 // further phases of a name listed twice
	cancel     bool                // a cancellation waits for the phases to end
}

// NewManager returns a Manager for cfg in StateIdle, or cfg's validation
// error.
func NewManager(cfg Config) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Manager{cfg: cfg, phases: cfg.Phases(), cur: -1}, nil
}

// Enabled reports whether graceful shutdown is on. A disabled manager
// admits every pod, holds no inhibitor lock and ignores shutdown events,
// as upstream's stub manager.
func (m *Manager) Enabled() bool { return len(m.phases) > 0 }

// State returns the current state.
func (m *Manager) State() State { return m.state }

// Plan returns the plan of the current or last shutdown.
func (m *Manager) Plan() Plan { return m.plan }

// Phase returns the index of the running phase in Plan, or -1.
func (m *Manager) Phase() int {
	if m.state != StateShuttingDown {
		return -1
	}
	return m.cur
}

// InhibitDelay returns the delay the inhibitor lock must be allowed, 0 when
// disabled (RequiredInhibitDelay of the phases).
func (m *Manager) InhibitDelay() time.Duration { return RequiredInhibitDelay(m.phases) }

// ShutdownStatus returns ErrNodeShuttingDown from the moment a shutdown is
// detected until it is cancelled, nil otherwise. The kubelet passes it to
// its Ready condition (conditions.ReadyInput.ShutdownErrors), which turns
// False with the message "node is shutting down".
func (m *Manager) ShutdownStatus() error {
	if m.state == StateIdle {
		return nil
	}
	return ErrNodeShuttingDown
}

// Admit decides whether a pod may start on the node: rejected with reason
// NodeShutdown and AdmissionRejectedMessage while the node shuts down, even
// when the pod tolerates the not-ready taint; admitted otherwise.
func (m *Manager) Admit(core.Pod) Admission {
	if m.state == StateIdle {
		return Admission{Admit: true}
	}
	return Admission{Reason: NodeShutdownReason, Message: AdmissionRejectedMessage}
}

func (m *Manager) clamp(now time.Time) time.Time { return clock.Clamp(&m.last, now, true) }

// Start handles a shutdown event (logind's PrepareForShutdown(true)) with
// the pods active on the node: the node turns not Ready, admission closes,
// and the first phase with pods starts at once. pods is not modified.
//
// An event during the phases is not acted on (a pending cancellation is
// dropped, since the node is shutting down after all); after the phases,
// a new event runs them again on the pods given, as upstream does.
func (m *Manager) Start(now time.Time, pods []core.Pod) Step {
	now = m.clamp(now)
	var s Step
	if !m.Enabled() {
		return m.finish(s)
	}
	m.advance(&s, now)
	if m.state == StateShuttingDown {
		m.cancel = false
		return m.finish(s)
	}
	s.Events = append(s.Events, NodeEvent{NodeShutdownReason, ShutdownEventMessage})
	s.ReadyChanged = s.ReadyChanged || m.state == StateIdle
	m.state = StateShuttingDown
	m.cancel = false
	m.plan = m.cfg.plan(m.phases, pods)
	m.done = make(map[podName]bool, len(pods))
	m.phaseOf = make(map[podName]int32, len(pods))
	m.morePhases = nil
	for j, ph := range m.plan.Phases {
		for _, pp := range ph.Pods {
			k := podName{pp.Pod.Namespace, pp.Pod.Name}
			if _, dup := m.phaseOf[k]; !dup {
				m.phaseOf[k] = int32(j)
				continue
			}
			if m.morePhases == nil {
				m.morePhases = make(map[podName][]int32)
			}
			m.morePhases[k] = append(m.morePhases[k], int32(j))
		}
	}
	m.cur = -1
	m.startNext(&s, now)
	m.advance(&s, now)
	return m.finish(s)
}

// PodTerminated reports that a pod (by Pod.Key) has been killed and its
// volumes unmounted. When it was the last pod of the running phase, the
// next phase starts. Unknown or repeated keys are ignored.
func (m *Manager) PodTerminated(now time.Time, key string) Step {
	now = m.clamp(now)
	var s Step
	m.advance(&s, now) // phases that timed out before now end first
	ns, name, _ := strings.Cut(key, "/")
	k := podName{ns, name}
	if m.state == StateShuttingDown && !m.done[k] {
		if j, ok := m.phaseOf[k]; ok {
			m.done[k] = true
			m.terminated(j, now)
			for _, j := range m.morePhases[k] {
				m.terminated(j, now)
			}
		}
	}
	m.advance(&s, now)
	return m.finish(s)
}

// terminated counts a pod of phase j as terminated at now.
func (m *Manager) terminated(j int32, now time.Time) {
	if int(j) == m.cur {
		m.remaining--
		m.emptyAt = now
	}
}

// Step moves the phases on at now: a phase whose period has run out ends
// and the next one starts.
func (m *Manager) Step(now time.Time) Step {
	now = m.clamp(now)
	var s Step
	m.advance(&s, now)
	return m.finish(s)
}

// Cancel handles a cancelled shutdown (PrepareForShutdown(false)): the node
// returns to Ready and admission reopens; pods already killed stay Failed.
// During the phases the cancellation waits until they are over, unless
// Config.CancelImmediately.
func (m *Manager) Cancel(now time.Time) Step {
	now = m.clamp(now)
	var s Step
	if !m.Enabled() {
		return m.finish(s)
	}
	m.advance(&s, now)
	switch {
	case m.state == StateShuttingDown && m.cfg.CancelImmediately:
		ph := m.plan.Phases[m.cur]
		s.Phases = append(s.Phases, PhaseEvent{Phase: m.cur, Priority: ph.Priority, Kind: PhaseAbandoned, At: now})
		s.Events = append(s.Events, NodeEvent{NodeShutdownReason, CancellationEventMessage})
		s.ReadyChanged = true
		m.state = StateIdle
		m.cur = -1
	case m.state == StateShuttingDown:
		m.cancel = true
	default:
		m.applyCancel(&s)
	}
	return m.finish(s)
}

// applyCancel returns to Idle outside the phases: upstream records the
// event, clears the flag and takes a new inhibitor lock.
func (m *Manager) applyCancel(s *Step) {
	s.Events = append(s.Events, NodeEvent{NodeShutdownReason, CancellationEventMessage})
	s.ReadyChanged = s.ReadyChanged || m.state != StateIdle
	s.AcquireInhibitor = true
	m.state = StateIdle
	m.cancel = false
}

// advance ends the running phase when all its pods have terminated or its
// period has run out, and starts the following ones, until a phase is
// still running at now or the phases are over.
func (m *Manager) advance(s *Step, now time.Time) {
	for m.state == StateShuttingDown {
		ph := m.plan.Phases[m.cur]
		deadline := m.phaseStart.Add(max(ph.Period(), 0))
		var end time.Time
		switch {
		case m.remaining <= 0 && !m.emptyAt.After(deadline):
			end = m.emptyAt
			s.Phases = append(s.Phases, PhaseEvent{Phase: m.cur, Priority: ph.Priority, Kind: PhaseCompleted, At: end})
		case !now.Before(deadline):
			end = deadline
			s.Phases = append(s.Phases, PhaseEvent{Phase: m.cur, Priority: ph.Priority, Kind: PhaseTimedOut, At: end})
		default:
			return
		}
		m.startNext(s, end)
	}
}

// startNext starts the first phase with pods after cur at t, reporting the
// skipped ones; past the last phase it ends the shutdown.
func (m *Manager) startNext(s *Step, t time.Time) {
	for j := m.cur + 1; j < len(m.plan.Phases); j++ {
		ph := m.plan.Phases[j]
		if ph.Skipped() {
			s.Phases = append(s.Phases, PhaseEvent{Phase: j, Priority: ph.Priority, Kind: PhaseSkipped, At: t})
			continue
		}
		m.cur, m.phaseStart, m.remaining, m.emptyAt = j, t, 0, t
		s.Phases = append(s.Phases, PhaseEvent{Phase: j, Priority: ph.Priority, Kind: PhaseStarted, At: t})
		for _, pp := range ph.Pods {
			if !m.done[podName{pp.Pod.Namespace, pp.Pod.Name}] {
				m.remaining++
			}
			s.Kills = append(s.Kills, Kill{Pod: pp.Pod, Phase: j, GracePeriodSeconds: pp.GracePeriodSeconds, Status: m.cfg.TerminatedStatus(pp.Pod)})
		}
		return
	}
	m.state = StateShutDown
	m.cur = -1
	s.ReleaseInhibitor = true
	if m.cancel {
		m.applyCancel(s)
	}
}

// finish fills in the step's state, pending cancellation and next call.
func (m *Manager) finish(s Step) Step {
	s.State = m.state
	s.CancelPending = m.cancel && m.state == StateShuttingDown
	if m.state == StateShuttingDown {
		s.Next = m.phaseStart.Add(max(m.plan.Phases[m.cur].Period(), 0))
	}
	return s
}
