package cri_test

import (
	"github.com/nodelife/nodelife/core"
	"testing"
	"time"

	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/nodelifetest"
	"pgregory.net/rapid"
)

func drawPod(t *rapid.T) (core.Pod, cri.PodStatus) {
	sp := nodelifetest.SyncPods(nodelifetest.Options{Now: t0}).Draw(t, "pod")
	return sp.Pod, sp.Status
}

// TestPropertySyncNeverStartsWhatThePolicyForbids: a regular container
// whose newest instance exited is started again only when the policy
// allows (Always; OnFailure with a non-zero exit) or a new sandbox starts
// everything afresh (where OnFailure still skips the succeeded ones), and
// a deleted pod restarts no exited container; every kill names an instance
// of the status; starts and kills name each container at most once.
func TestPropertySyncNeverStartsWhatThePolicyForbids(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, st := drawPod(t)
		for _, legacy := range []bool{false, true} {
			a, err := cri.ComputePodActions(p, st, cri.SyncOptions{LegacySidecarContainers: legacy})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range a.ContainersToStart {
				if s.Index < 0 || s.Index >= len(p.Containers) || p.Containers[s.Index].Name != s.Name {
					t.Fatalf("bad start %+v", s)
				}
				last := cri.NewestStatus(&p, &st, s.Name)
				if last == nil || last.State != cri.ContainerExited {
					continue
				}
				switch {
				case s.Reason == cri.StartExited && p.Deleting():
					t.Fatalf("deleted pod restarts %s", s.Name)
				case s.Reason == cri.StartExited && p.RestartPolicy == core.RestartPolicyNever:
					t.Fatalf("Never restarts %s", s.Name)
				case p.RestartPolicy == core.RestartPolicyOnFailure && last.ExitCode == 0 && (s.Reason == cri.StartExited || s.Reason == cri.StartNewSandbox):
					t.Fatalf("OnFailure restarts succeeded %s (%s)", s.Name, s.Reason)
				}
			}
			if a.CreateSandbox && a.Attempt != 0 && p.RestartPolicy == core.RestartPolicyNever && len(st.Containers) != 0 {
				t.Fatalf("Never re-creates a sandbox: %+v", a)
			}
			seen := map[string]bool{}
			for _, list := range [][]cri.ContainerStart{a.InitContainersToStart, a.ContainersToStart, a.EphemeralContainersToStart} {
				for _, s := range list {
					if seen[s.Name] {
						t.Fatalf("%s started twice: %+v", s.Name, a)
					}
					seen[s.Name] = true
				}
			}
			kills := map[string]bool{}
			for _, k := range a.ContainersToKill {
				if kills[k.ID] {
					t.Fatalf("%s killed twice", k.ID)
				}
				kills[k.ID] = true
				found := false
				for _, s := range st.Containers {
					found = found || (s.ID == k.ID && s.Name == k.Name)
				}
				if !found {
					t.Fatalf("kill of an unknown instance %+v", k)
				}
			}
		}
	})
}

// TestPropertyBackoffMonotone: along any crash history the delay never
// decreases except at a reset, never exceeds Max, never falls below
// Initial, and a reset happens exactly when the container finished more
// than ResetFactor x Max after the last update.
func TestPropertyBackoffMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := nodelifetest.CrashBackoffs().Draw(t, "config")
		var e cri.BackoffEntry
		now := t0
		for i, n := 0, rapid.IntRange(1, 30).Draw(t, "events"); i < n; i++ {
			finished := now.Add(time.Duration(rapid.Int64Range(0, int64(3*c.Max)).Draw(t, "ran")))
			now = finished.Add(time.Duration(rapid.Int64Range(0, int64(2*c.Max)).Draw(t, "waited")))
			d, err := c.Decide(now, e, finished)
			if err != nil {
				t.Fatal(err)
			}
			expired := e.Delay > 0 && finished.Sub(e.LastUpdate) > time.Duration(c.ResetFactor)*c.Max
			switch {
			case d.InBackoff:
				if d.Entry != e || d.Remaining <= 0 || d.Remaining > e.Delay {
					t.Fatalf("in back-off changed the entry or bad remaining: %+v from %+v", d, e)
				}
			case d.Reset:
				if e.Delay > 0 && !expired {
					t.Fatalf("reset without expiry: %+v from %+v", d, e)
				}
				if d.Entry.Delay != c.Initial {
					t.Fatalf("reset to %v", d.Entry.Delay)
				}
			default:
				if expired || d.Entry.Delay < e.Delay || d.Entry.Delay > c.Max || d.Entry.Delay != min(2*e.Delay, c.Max) {
					t.Fatalf("advance %v -> %v (max %v, expired %v)", e.Delay, d.Entry.Delay, c.Max, expired)
				}
			}
			if d.Entry.Delay < c.Initial || d.Entry.Delay > c.Max {
				t.Fatalf("delay %v outside [%v, %v]", d.Entry.Delay, c.Initial, c.Max)
			}
			e = d.Entry
		}
	})
}
