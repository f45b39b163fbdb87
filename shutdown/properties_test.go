package shutdown_test

import (
	"slices"
	"testing"
	"time"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/shutdown"
	"pgregory.net/rapid"
)

// t0 is the start of every drawn history.
var t0 = nodelifetest.Epoch()

// naivePhaseIndex is PhaseIndex written from the reference's words: the
// phase with the largest priority <= the pod's, else the lowest; among
// equal priorities an exact match takes the first, a larger value the last.
func naivePhaseIndex(phases []shutdown.PhaseConfig, prio int32) int {
	if len(phases) == 0 {
		return -1
	}
	best := -1
	for i, p := range phases {
		if p.Priority <= prio && (best < 0 || p.Priority > phases[best].Priority) {
			best = i
		}
	}
	if best < 0 {
		return 0
	}
	v := phases[best].Priority
	if v == prio {
		for i, p := range phases {
			if p.Priority == v {
				return i
			}
		}
	}
	for i := len(phases) - 1; i >= 0; i-- {
		if phases[i].Priority == v {
			return i
		}
	}
	return -1
}

// drawPods draws up to max running pods as graceful shutdown takes them:
// unique names, priorities from -3000 to 13000 or none, grace periods or
// none.
func drawPods(t *rapid.T, max int) []core.Pod {
	return nodelifetest.Pods(nodelifetest.Options{MaxPods: max, MinPriority: -3000, MaxPriority: 13000}).Draw(t, "pods")
}

// phaseSets returns, per phase, the sorted names of its pods.
func phaseSets(p shutdown.Plan) [][]string {
	out := make([][]string, len(p.Phases))
	for i, ph := range p.Phases {
		out[i] = shutdown.Names(ph.Pods)
		slices.Sort(out[i])
	}
	return out
}

// Every pod lands in exactly one phase, the one the naive rule picks;
// phases run in ascending priority, back to back; no grace exceeds its
// phase; Total is the sum of the periods of phases with pods and
// InhibitDelay that of all; grouping does not depend on pod order.
func TestPropertyPlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := shutdown.Config{ShutdownGracePeriodByPodPriority: nodelifetest.ShutdownPhases(nodelifetest.Options{}).Draw(t, "phases")}
		pods := drawPods(t, 60)
		plan, err := c.Plan(pods)
		if err != nil {
			t.Fatal(err)
		}
		phases := c.Phases()
		seen := map[string]int{}
		var total, inhibit, prevDeadline time.Duration
		for j, ph := range plan.Phases {
			if ph.PhaseConfig != phases[j] {
				t.Fatalf("phase %d is %+v, want %+v", j, ph.PhaseConfig, phases[j])
			}
			if j > 0 && ph.Priority < plan.Phases[j-1].Priority {
				t.Fatalf("phases out of order: %d after %d", ph.Priority, plan.Phases[j-1].Priority)
			}
			if ph.Start != prevDeadline || ph.Deadline < ph.Start {
				t.Fatalf("phase %d runs %v..%v after a deadline of %v", j, ph.Start, ph.Deadline, prevDeadline)
			}
			prevDeadline = ph.Deadline
			inhibit += ph.Period()
			if !ph.Skipped() {
				total += max(ph.Period(), 0)
			}
			for _, pp := range ph.Pods {
				seen[pp.Pod.Name]++
				if pp.GracePeriodSeconds > ph.ShutdownGracePeriodSeconds {
					t.Fatalf("pod %s grace %d exceeds its phase's %d", pp.Pod.Name, pp.GracePeriodSeconds, ph.ShutdownGracePeriodSeconds)
				}
				prio, _ := c.PodPriority(pp.Pod)
				if want := naivePhaseIndex(phases, prio); want != j {
					t.Fatalf("pod %s (priority %d) in phase %d, naive rule says %d (phases %v)", pp.Pod.Name, prio, j, want, phases)
				}
			}
		}
		if len(seen) != len(pods) {
			t.Fatalf("%d of %d pods planned", len(seen), len(pods))
		}
		for name, n := range seen {
			if n != 1 {
				t.Fatalf("pod %s planned %d times", name, n)
			}
		}
		if plan.Total != total || plan.Total != prevDeadline || plan.InhibitDelay != inhibit {
			t.Fatalf("Total %v (sum %v, last deadline %v), InhibitDelay %v (sum %v)", plan.Total, total, prevDeadline, plan.InhibitDelay, inhibit)
		}
		perm := slices.Clone(pods)
		for i := len(perm) - 1; i > 0; i-- {
			j := rapid.IntRange(0, i).Draw(t, "swap")
			perm[i], perm[j] = perm[j], perm[i]
		}
		plan2, _ := c.Plan(perm)
		if a, b := phaseSets(plan), phaseSets(plan2); !slices.EqualFunc(a, b, slices.Equal[[]string]) {
			t.Fatalf("grouping depends on pod order: %v vs %v", a, b)
		}
	})
}

func TestPropertyPhaseIndexAgreesWithNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		phases := shutdown.Config{ShutdownGracePeriodByPodPriority: nodelifetest.ShutdownPhases(nodelifetest.Options{}).Draw(t, "phases")}.Phases()
		prio := int32(rapid.IntRange(-5000, 15000).Draw(t, "prio"))
		if got, want := shutdown.PhaseIndex(phases, prio), naivePhaseIndex(phases, prio); got != want {
			t.Fatalf("PhaseIndex(%v, %d) = %d, naive %d", phases, prio, got, want)
		}
	})
}

// Driving a manager with any sequence of terminations, ticks, cancellations
// and shutdown events: every pod of a run is killed exactly once when the
// phases end (at most once when cancelled early), in its phase, phases
// start in ascending order and never past their worst-case deadline, Next
// is set exactly while the phases run and never before now, and admission
// and ShutdownStatus follow the state.
func TestPropertyManager(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := shutdown.Config{ShutdownGracePeriodByPodPriority: nodelifetest.ShutdownPhases(nodelifetest.Options{}).Draw(t, "phases"), CancelImmediately: rapid.Bool().Draw(t, "immediate")}
		m, err := shutdown.NewManager(cfg)
		if err != nil {
			t.Fatal(err)
		}
		now := t0
		var killed map[string]int
		terminated := map[string]bool{}
		startedAt := map[int]time.Time{}
		var runPods []core.Pod
		var runStart time.Time
		lastPhase := -1
		check := func(op string, s shutdown.Step) {
			if s.State != m.State() {
				t.Fatalf("%s: step state %v, manager %v", op, s.State, m.State())
			}
			if (s.State == shutdown.StateShuttingDown) != !s.Next.IsZero() || (!s.Next.IsZero() && s.Next.Before(now)) {
				t.Fatalf("%s: state %v next %v now %v", op, s.State, s.Next, now)
			}
			if (m.ShutdownStatus() == nil) != (s.State == shutdown.StateIdle) || m.Admit(core.Pod{}).Admit != (s.State == shutdown.StateIdle) {
				t.Fatalf("%s: state %v status %v", op, s.State, m.ShutdownStatus())
			}
			for _, ev := range s.Phases {
				ph := m.Plan().Phases[ev.Phase]
				switch ev.Kind {
				case shutdown.PhaseCompleted:
					for _, pp := range ph.Pods {
						if !terminated[pp.Pod.Key()] {
							t.Fatalf("%s: phase %d completed with pod %s running", op, ev.Phase, pp.Pod.Name)
						}
					}
				case shutdown.PhaseTimedOut:
					if want := startedAt[ev.Phase].Add(max(ph.Period(), 0)); !ev.At.Equal(want) {
						t.Fatalf("%s: phase %d timed out at %v, want %v", op, ev.Phase, ev.At, want)
					}
				case shutdown.PhaseStarted:
					startedAt[ev.Phase] = ev.At
				}
				if ev.Kind == shutdown.PhaseStarted || ev.Kind == shutdown.PhaseSkipped {
					if ev.Phase <= lastPhase {
						t.Fatalf("%s: phase %d started after phase %d", op, ev.Phase, lastPhase)
					}
					lastPhase = ev.Phase
					if ev.At.After(now) || ev.At.After(runStart.Add(ph.Start)) {
						t.Fatalf("%s: phase %d started at %v, worst case %v, now %v", op, ev.Phase, ev.At, runStart.Add(ph.Start), now)
					}
				}
			}
			for _, k := range s.Kills {
				killed[k.Pod.Name]++
				if killed[k.Pod.Name] > 1 {
					t.Fatalf("%s: pod %s killed twice", op, k.Pod.Name)
				}
				prio, _ := cfg.PodPriority(k.Pod)
				if want := shutdown.PhaseIndex(cfg.Phases(), prio); k.Phase != want || k.GracePeriodSeconds != shutdown.PodGracePeriod(k.Pod, m.Plan().Phases[want].ShutdownGracePeriodSeconds) {
					t.Fatalf("%s: kill %+v, want phase %d", op, k, want)
				}
			}
			if s.ReleaseInhibitor && !cfg.CancelImmediately {
				for _, p := range runPods {
					if killed[p.Name] != 1 {
						t.Fatalf("%s: phases over but pod %s killed %d times", op, p.Name, killed[p.Name])
					}
				}
			}
		}
		steps := rapid.IntRange(1, 40).Draw(t, "steps")
		for i := 0; i < steps; i++ {
			now = now.Add(time.Duration(rapid.IntRange(0, 120).Draw(t, "dt")) * time.Second)
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op == 0:
				// Let the phases catch up first, so that what follows
				// belongs to one run.
				check("tick before start", m.Step(now))
				was := m.State()
				pods := drawPods(t, 12)
				s := m.Start(now, pods)
				if was != shutdown.StateShuttingDown {
					killed, runPods, runStart, lastPhase = map[string]int{}, pods, now, -1
					clear(terminated)
					clear(startedAt)
				}
				check("start", s)
			case op == 1:
				check("cancel", m.Cancel(now))
			case op <= 5 && len(runPods) > 0:
				p := runPods[rapid.IntRange(0, len(runPods)-1).Draw(t, "pod")]
				check("tick before terminated", m.Step(now))
				if m.State() == shutdown.StateShuttingDown {
					terminated[p.Key()] = true
				}
				check("terminated", m.PodTerminated(now, p.Key()))
			default:
				check("tick", m.Step(now))
			}
		}
	})
}
