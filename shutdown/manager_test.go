package shutdown

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/core"
)

var shutdownEvent = NodeEvent{"NodeShutdown", "Shutdown manager detected shutdown event"}
var cancelEvent = NodeEvent{"NodeShutdown", "Shutdown manager detected shutdown cancellation"}

// kill returns the Kill the manager should ask for: status Failed,
// Terminated, with the DisruptionTarget condition.
func kill(p core.Pod, phase int, grace int64) Kill {
	return Kill{Pod: p, Phase: phase, GracePeriodSeconds: grace, Status: Config{}.TerminatedStatus(p)}
}

// A scripted shutdown with an explicit clock: phases 0 (20s), 1000 (30s, no
// pods), 10000 (40s) and 2000000000 (10s). The first phase finishes early,
// the empty one is skipped, the third times out, and a cancellation that
// arrives during the phases takes effect after the last one, as upstream's
// event loop sees it only then. Killed pods are not restored.
func TestManagerTimeline(t *testing.T) {
	cfg := Config{ShutdownGracePeriodByPodPriority: []PhaseConfig{{0, 20}, {1000, 30}, {10000, 40}, {2000000000, 10}}}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, b := pod("a", nil, i64(5)), pod("b", i32(0), nil)
	c, d := pod("c", i32(10000), nil), pod("d", i32(2000000000), i64(30))
	done := pod("done", i32(0), nil)
	done.Phase = core.PodSucceeded

	if m.State() != StateIdle || !m.Admit(a).Admit || m.ShutdownStatus() != nil || m.InhibitDelay() != 100*time.Second {
		t.Fatalf("idle manager: state %v admit %v status %v delay %v", m.State(), m.Admit(a), m.ShutdownStatus(), m.InhibitDelay())
	}

	type call struct {
		name string
		do   func() Step
		want Step
	}
	doneKill := kill(done, 0, 20)
	if doneKill.Status.Phase != core.PodSucceeded {
		t.Fatalf("succeeded pod's kill status %v", doneKill.Status.Phase)
	}
	script := []call{
		{"t=0 shutdown detected: phase 0 starts", func() Step { return m.Start(at(0), []core.Pod{a, b, c, d, done}) }, Step{
			State: StateShuttingDown, Events: []NodeEvent{shutdownEvent}, ReadyChanged: true,
			Phases: []PhaseEvent{{0, 0, PhaseStarted, at(0)}},
			Kills:  []Kill{kill(a, 0, 5), kill(b, 0, 20), doneKill},
			Next:   at(20),
		}},
		{"t=3 a terminated", func() Step { return m.PodTerminated(at(3), "ns/a") }, Step{State: StateShuttingDown, Next: at(20)}},
		{"t=4 a again is ignored", func() Step { return m.PodTerminated(at(4), "ns/a") }, Step{State: StateShuttingDown, Next: at(20)}},
		{"t=5 unknown pod is ignored", func() Step { return m.PodTerminated(at(5), "ns/nope") }, Step{State: StateShuttingDown, Next: at(20)}},
		{"t=6 done terminated", func() Step { return m.PodTerminated(at(6), "ns/done") }, Step{State: StateShuttingDown, Next: at(20)}},
		{"t=7 early tick does nothing", func() Step { return m.Step(at(7)) }, Step{State: StateShuttingDown, Next: at(20)}},
		{"t=8 b terminated: phase 0 done early, 1000 skipped, 10000 starts", func() Step { return m.PodTerminated(at(8), "ns/b") }, Step{
			State: StateShuttingDown,
			Phases: []PhaseEvent{
				{0, 0, PhaseCompleted, at(8)},
				{1, 1000, PhaseSkipped, at(8)},
				{2, 10000, PhaseStarted, at(8)},
			},
			Kills: []Kill{kill(c, 2, 40)},
			Next:  at(48),
		}},
		{"t=20 cancellation waits for the phases", func() Step { return m.Cancel(at(20)) }, Step{
			State: StateShuttingDown, CancelPending: true, Next: at(48),
		}},
		{"t=48 phase 10000 times out, critical phase starts", func() Step { return m.Step(at(48)) }, Step{
			State:         StateShuttingDown,
			Phases:        []PhaseEvent{{2, 10000, PhaseTimedOut, at(48)}, {3, 2000000000, PhaseStarted, at(48)}},
			Kills:         []Kill{kill(d, 3, 10)},
			CancelPending: true,
			Next:          at(58),
		}},
		{"t=40 a clock step back is clamped to t=48", func() Step { return m.Step(at(40)) }, Step{
			State: StateShuttingDown, CancelPending: true, Next: at(58),
		}},
		{"t=61 late tick: critical phase ended at 58, lock released, then the cancellation", func() Step { return m.Step(at(61)) }, Step{
			State:            StateIdle,
			Phases:           []PhaseEvent{{3, 2000000000, PhaseTimedOut, at(58)}},
			ReleaseInhibitor: true,
			Events:           []NodeEvent{cancelEvent},
			ReadyChanged:     true,
			AcquireInhibitor: true,
		}},
		{"t=62 terminations after the end are ignored", func() Step { return m.PodTerminated(at(62), "ns/c") }, Step{State: StateIdle}},
	}
	for _, s := range script {
		got := s.do()
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Fatalf("%s (-want +got):\n%s", s.name, diff)
		}
		if s.want.State != StateIdle {
			if m.Admit(a).Admit || !errors.Is(m.ShutdownStatus(), ErrNodeShuttingDown) {
				t.Errorf("%s: admission open or status %v while shutting down", s.name, m.ShutdownStatus())
			}
		}
	}
	if !m.Admit(a).Admit || m.ShutdownStatus() != nil {
		t.Errorf("after cancellation: admit %v status %v", m.Admit(a), m.ShutdownStatus())
	}
	if m.Plan().Total != 20*time.Second+40*time.Second+10*time.Second {
		t.Errorf("plan total %v, want 70s (the skipped phase takes no time)", m.Plan().Total)
	}
}

// Under CancelImmediately a cancellation stops the phases: later phases'
// pods are never killed.
func TestManagerCancelImmediately(t *testing.T) {
	cfg := Config{ShutdownGracePeriod: 30 * time.Second, ShutdownGracePeriodCriticalPods: 10 * time.Second, CancelImmediately: true}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	regular, critical := pod("web", nil, nil), pod("dns", i32(2000000000), nil)
	s := m.Start(at(0), []core.Pod{regular, critical})
	if diff := cmp.Diff([]Kill{kill(regular, 0, 20)}, s.Kills); diff != "" || s.Next != at(20) {
		t.Fatalf("start: kills (-want +got):\n%s next %v", diff, s.Next)
	}
	got := m.Cancel(at(5))
	want := Step{
		State:        StateIdle,
		Phases:       []PhaseEvent{{0, 0, PhaseAbandoned, at(5)}},
		Events:       []NodeEvent{cancelEvent},
		ReadyChanged: true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("cancel (-want +got):\n%s", diff)
	}
	if s := m.Step(at(30)); len(s.Kills) != 0 || s.State != StateIdle {
		t.Errorf("after immediate cancel, tick at 30s: %+v", s)
	}
}

// After the phases the node stays shutting down until it powers off; a
// cancellation then returns it to Ready, and a second shutdown event runs
// the phases again.
func TestManagerAfterPhases(t *testing.T) {
	m, err := NewManager(Config{ShutdownGracePeriod: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Start(at(0), nil)
	want := Step{
		State: StateShutDown, Events: []NodeEvent{shutdownEvent}, ReadyChanged: true,
		Phases:           []PhaseEvent{{0, 0, PhaseSkipped, at(0)}, {1, 2000000000, PhaseSkipped, at(0)}},
		ReleaseInhibitor: true,
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatalf("start with no pods (-want +got):\n%s", diff)
	}
	if m.Admit(core.Pod{}).Admit || m.ShutdownStatus() == nil {
		t.Errorf("shut down node admits pods or reports Ready")
	}
	s = m.Start(at(5), []core.Pod{pod("late", nil, i64(3))})
	want = Step{
		State: StateShuttingDown, Events: []NodeEvent{shutdownEvent},
		Phases: []PhaseEvent{{0, 0, PhaseStarted, at(5)}},
		Kills:  []Kill{kill(pod("late", nil, i64(3)), 0, 3)},
		Next:   at(15),
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatalf("second shutdown event (-want +got):\n%s", diff)
	}
	// A shutdown event during the phases changes nothing but drops a
	// pending cancellation.
	m.Cancel(at(6))
	if s := m.Start(at(7), nil); s.CancelPending || len(s.Kills) != 0 || len(s.Events) != 0 {
		t.Errorf("event during phases: %+v", s)
	}
	s = m.PodTerminated(at(9), "ns/late")
	if s.State != StateShutDown || !s.ReleaseInhibitor || s.AcquireInhibitor || len(s.Phases) != 2 || s.Phases[0].Kind != PhaseCompleted {
		t.Errorf("end of second run: %+v", s)
	}
	s = m.Cancel(at(20))
	want = Step{State: StateIdle, Events: []NodeEvent{cancelEvent}, ReadyChanged: true, AcquireInhibitor: true}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("cancel after the phases (-want +got):\n%s", diff)
	}
	// Upstream also re-takes the lock on a cancellation while idle.
	s = m.Cancel(at(21))
	want = Step{State: StateIdle, Events: []NodeEvent{cancelEvent}, AcquireInhibitor: true}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("cancel while idle (-want +got):\n%s", diff)
	}
}

// A 0s phase kills its pods with grace 0 and moves on at once.
func TestManagerZeroPhase(t *testing.T) {
	m, err := NewManager(Config{ShutdownGracePeriod: 10 * time.Second, ShutdownGracePeriodCriticalPods: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	web, dns := pod("web", nil, nil), pod("dns", i32(2000000000), nil)
	s := m.Start(at(0), []core.Pod{web, dns})
	want := Step{
		State: StateShuttingDown, Events: []NodeEvent{shutdownEvent}, ReadyChanged: true,
		Phases: []PhaseEvent{{0, 0, PhaseStarted, at(0)}, {0, 0, PhaseTimedOut, at(0)}, {1, 2000000000, PhaseStarted, at(0)}},
		Kills:  []Kill{kill(web, 0, 0), kill(dns, 1, 10)},
		Next:   at(10),
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A pod that terminates after its phase's deadline, reported late, does
// not make the phase complete: it timed out at the deadline.
func TestManagerLateTermination(t *testing.T) {
	m, err := NewManager(Config{ShutdownGracePeriodByPodPriority: []PhaseConfig{{0, 10}, {5, 10}}})
	if err != nil {
		t.Fatal(err)
	}
	m.Start(at(0), []core.Pod{pod("x", nil, nil), pod("y", i32(5), nil)})
	s := m.PodTerminated(at(12), "ns/x")
	want := []PhaseEvent{{0, 0, PhaseTimedOut, at(10)}, {1, 5, PhaseStarted, at(10)}}
	if diff := cmp.Diff(want, s.Phases); diff != "" || s.Next != at(20) {
		t.Errorf("(-want +got):\n%s next %v", diff, s.Next)
	}
}

func TestManagerDisabled(t *testing.T) {
	m, err := NewManager(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Enabled() || m.InhibitDelay() != 0 {
		t.Errorf("zero config enabled")
	}
	if s := m.Start(at(0), []core.Pod{pod("a", nil, nil)}); s.State != StateIdle || len(s.Kills)+len(s.Events) != 0 {
		t.Errorf("disabled manager acted on a shutdown: %+v", s)
	}
	if !m.Admit(core.Pod{}).Admit || m.ShutdownStatus() != nil {
		t.Errorf("disabled manager rejects pods")
	}
	if s := m.Cancel(at(1)); len(s.Events) != 0 || s.AcquireInhibitor {
		t.Errorf("disabled manager acted on a cancellation: %+v", s)
	}
	if _, err := NewManager(Config{ShutdownGracePeriod: 300 * time.Millisecond}); err == nil {
		t.Errorf("NewManager accepted an invalid config")
	}
}

func TestAdmissionRejection(t *testing.T) {
	m, _ := NewManager(Config{ShutdownGracePeriod: 10 * time.Second})
	m.Start(at(0), []core.Pod{pod("a", nil, nil)})
	want := Admission{Admit: false, Reason: "NodeShutdown", Message: "Pod was rejected as the node is shutting down."}
	if diff := cmp.Diff(want, m.Admit(pod("new", nil, nil))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := m.ShutdownStatus().Error(); got != "node is shutting down" {
		t.Errorf("ShutdownStatus = %q", got)
	}
}

func TestStateStrings(t *testing.T) {
	for _, c := range [][2]string{
		{StateIdle.String(), "Idle"}, {StateShuttingDown.String(), "ShuttingDown"}, {StateShutDown.String(), "ShutDown"},
		{State(9).String(), "State(9)"}, {PhaseTimedOut.String(), "TimedOut"}, {PhaseEventKind(-1).String(), "PhaseEventKind(-1)"},
		{VolumeDetachAfter.String(), "DetachAfter"}, {VolumeAction(7).String(), "VolumeAction(7)"},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
}
