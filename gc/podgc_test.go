package gc

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// gcPod returns a pod created d before t0.
func gcPod(name string, phase PodPhase, node string, d time.Duration) Pod {
	return Pod{Namespace: "ns", Name: name, UID: "uid-" + name, NodeName: node, Phase: phase, CreationTimestamp: ago(d)}
}

func terminating(p Pod) Pod {
	p.DeletionTimestamp = ptr(ago(time.Second))
	return p
}

type podDel struct {
	Name      string
	Reason    PodGCReason
	SetFailed bool
	Condition bool
}

func podDels(plan PodGCPlan) []podDel {
	var out []podDel
	for _, d := range plan.Deletions {
		out = append(out, podDel{d.Pod.Name, d.Reason, d.SetFailed, d.Condition != nil})
	}
	return out
}

func newPodGC(t *testing.T, threshold int) *PodGC {
	t.Helper()
	cfg := DefaultPodGCConfig()
	cfg.TerminatedPodThreshold = threshold
	g, err := NewPodGC(cfg)
	mustNil(t, err)
	return g
}

func TestPodGCTerminatedThreshold(t *testing.T) {
	evicted := gcPod("evicted-young", PodFailed, "n", time.Minute)
	evicted.Reason = "Evicted"
	pods := []Pod{
		gcPod("running", PodRunning, "n", 10*time.Hour),
		gcPod("pending", PodPending, "n", 10*time.Hour),
		gcPod("unknown", PodUnknown, "n", 10*time.Hour),
		gcPod("succeeded-b", PodSucceeded, "n", 5*time.Hour),
		gcPod("succeeded-a", PodSucceeded, "n", 5*time.Hour), // same age: by name
		gcPod("no-phase", "", "n", 4*time.Hour),              // an empty phase counts as terminated
		gcPod("failed-young", PodFailed, "n", 2*time.Minute),
		evicted,
	}
	nodes := []Node{{Name: "n", Ready: "True"}}

	// 5 terminated, threshold 3: exactly 3 survive; the evicted pod goes
	// first though youngest, then the oldest, then by name.
	plan, err := newPodGC(t, 3).Step(t0, PodGCInput{Pods: pods, Nodes: nodes})
	mustNil(t, err)
	want := []podDel{{"evicted-young", PodGCTerminated, false, false}, {"succeeded-a", PodGCTerminated, false, false}}
	if d := cmp.Diff(want, podDels(plan)); d != "" {
		t.Errorf("threshold 3 (-want +got):\n%s", d)
	}
	// Threshold 1: the pod without a phase is patched to Failed first.
	plan, err = newPodGC(t, 1).Step(t0, PodGCInput{Pods: pods, Nodes: nodes})
	mustNil(t, err)
	want = []podDel{
		{"evicted-young", PodGCTerminated, false, false}, {"succeeded-a", PodGCTerminated, false, false},
		{"succeeded-b", PodGCTerminated, false, false}, {"no-phase", PodGCTerminated, true, false},
	}
	if d := cmp.Diff(want, podDels(plan)); d != "" {
		t.Errorf("threshold 1 (-want +got):\n%s", d)
	}
	// At the threshold: nothing.
	plan, err = newPodGC(t, 5).Step(t0, PodGCInput{Pods: pods, Nodes: nodes})
	mustNil(t, err)
	if len(plan.Deletions) != 0 {
		t.Errorf("threshold 5: %v", podDels(plan))
	}
}

func TestPodGCThresholdZeroDisablesOnlyThatStep(t *testing.T) {
	pods := []Pod{
		gcPod("done", PodSucceeded, "n", time.Hour),
		terminating(gcPod("unscheduled", PodPending, "", time.Hour)),
	}
	for _, threshold := range []int{0, -1} {
		plan, err := newPodGC(t, threshold).Step(t0, PodGCInput{Pods: pods, Nodes: []Node{{Name: "n", Ready: "True"}}})
		mustNil(t, err)
		want := []podDel{{"unscheduled", PodGCUnscheduled, true, false}}
		if d := cmp.Diff(want, podDels(plan)); d != "" {
			t.Errorf("threshold %d (-want +got):\n%s", threshold, d)
		}
	}
}

func TestPodGCOutOfService(t *testing.T) {
	oos := Taint{Key: TaintNodeOutOfService, Value: "nodeshutdown", Effect: "NoExecute"}
	nodes := []Node{
		{Name: "down", Ready: "False", Taints: []Taint{oos}},
		{Name: "down-noexec-other", Ready: "Unknown", Taints: []Taint{{Key: TaintNodeOutOfService, Effect: "NoSchedule"}}},
		{Name: "ready-tainted", Ready: "True", Taints: []Taint{oos}},
		{Name: "down-untainted", Ready: "False"},
		{Name: "no-condition", Taints: []Taint{oos}},
	}
	pods := []Pod{
		terminating(gcPod("on-down", PodRunning, "down", time.Hour)),
		terminating(gcPod("on-down-succeeded", PodSucceeded, "down", 2*time.Hour)),
		terminating(gcPod("other-effect", PodRunning, "down-noexec-other", time.Hour)),
		terminating(gcPod("no-condition", PodRunning, "no-condition", time.Hour)),
		gcPod("not-terminating", PodRunning, "down", time.Hour),
		terminating(gcPod("ready-node", PodRunning, "ready-tainted", time.Hour)),
		terminating(gcPod("untainted", PodRunning, "down-untainted", time.Hour)),
		terminating(gcPod("missing-node", PodRunning, "missing", time.Hour)),
	}
	plan, err := newPodGC(t, 0).Step(t0, PodGCInput{Pods: pods, Nodes: nodes})
	mustNil(t, err)
	want := []podDel{
		{"on-down-succeeded", PodGCOutOfService, false, false},
		{"no-condition", PodGCOutOfService, true, false},
		{"on-down", PodGCOutOfService, true, false},
		{"other-effect", PodGCOutOfService, true, false},
	}
	if d := cmp.Diff(want, podDels(plan)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestPodGCOrphanQuarantineTimeline(t *testing.T) {
	g := newPodGC(t, 0)
	pods := []Pod{
		gcPod("running", PodRunning, "gone", time.Hour),
		gcPod("succeeded", PodSucceeded, "gone", 2*time.Hour),
		gcPod("elsewhere", PodRunning, "n", time.Hour),
	}
	nodes := []Node{{Name: "n", Ready: "True"}}
	in := PodGCInput{Pods: pods, Nodes: nodes}

	// t0: first seen missing, quarantined until t0+40s.
	plan, err := g.Step(t0, in)
	mustNil(t, err)
	if len(plan.Deletions) != 0 || !cmp.Equal(plan.Quarantined, []string{"gone"}) || !plan.Next.Equal(t0.Add(40*time.Second)) {
		t.Fatalf("t0: %+v", plan)
	}
	// t0+20s: still quarantined; the quarantine does not restart.
	plan, err = g.Step(t0.Add(20*time.Second), in)
	mustNil(t, err)
	if len(plan.Deletions) != 0 || !plan.Next.Equal(t0.Add(40*time.Second)) {
		t.Fatalf("t0+20s: %+v", plan)
	}
	// t0+40s: quarantine over, still missing: the pods go; the running one
	// is marked Failed with DisruptionTarget.
	plan, err = g.Step(t0.Add(40*time.Second), in)
	mustNil(t, err)
	want := []podDel{{"succeeded", PodGCOrphaned, false, false}, {"running", PodGCOrphaned, true, true}}
	if d := cmp.Diff(want, podDels(plan)); d != "" {
		t.Errorf("t0+40s (-want +got):\n%s", d)
	}
	if !cmp.Equal(plan.DeletedNodes, []string{"gone"}) || len(plan.Quarantined) != 0 || !plan.Next.IsZero() {
		t.Errorf("t0+40s: deleted %v quarantined %v next %v", plan.DeletedNodes, plan.Quarantined, plan.Next)
	}
	wantCond := PodCondition{Type: "DisruptionTarget", Status: "True", Reason: "DeletionByPodGC", Message: "PodGC: node no longer exists"}
	if c := plan.Deletions[1].Condition; c == nil || *c != wantCond {
		t.Errorf("condition %+v", c)
	}
	// If the pods are still listed at t0+60s (deletion not done yet), a
	// new quarantine starts.
	plan, err = g.Step(t0.Add(60*time.Second), in)
	mustNil(t, err)
	if len(plan.Deletions) != 0 || !plan.Next.Equal(t0.Add(100*time.Second)) {
		t.Errorf("t0+60s: %+v", plan)
	}
}

func TestPodGCQuarantineKeepsFirstSighting(t *testing.T) {
	// The node is missing at t0, back at t0+20s, missing again at t0+30s:
	// upstream's delaying queue keeps the t0 entry, so the pods go at t0+40s.
	g := newPodGC(t, 0)
	pods := []Pod{gcPod("p", PodRunning, "flaky", time.Hour)}
	steps := []struct {
		at      time.Duration
		present bool
		deleted bool
	}{{0, false, false}, {20 * time.Second, true, false}, {30 * time.Second, false, false}, {40 * time.Second, false, true}}
	for _, s := range steps {
		var nodes []Node
		if s.present {
			nodes = []Node{{Name: "flaky", Ready: "True"}}
		}
		plan, err := g.Step(t0.Add(s.at), PodGCInput{Pods: pods, Nodes: nodes})
		mustNil(t, err)
		if got := len(plan.Deletions) == 1; got != s.deleted {
			t.Errorf("t0+%v: deleted %v, want %v", s.at, got, s.deleted)
		}
	}
	// Present when the quarantine ends: dropped, no deletion; missing again
	// later starts over.
	g = newPodGC(t, 0)
	mustNil(t, func() error { _, err := g.Step(t0, PodGCInput{Pods: pods}); return err }())
	plan, err := g.Step(t0.Add(40*time.Second), PodGCInput{Pods: pods, Nodes: []Node{{Name: "flaky"}}})
	mustNil(t, err)
	if len(plan.Deletions) != 0 || len(plan.Quarantined) != 0 {
		t.Errorf("present at the end: %+v", plan)
	}
}

func TestPodGCNodeExistsCheck(t *testing.T) {
	pods := []Pod{gcPod("p", PodRunning, "gone", time.Hour)}
	for _, c := range []struct {
		name    string
		exists  func(string) (bool, error)
		deleted bool
	}{
		{"live GET says absent", func(string) (bool, error) { return false, nil }, true},
		{"live GET finds it (stale list)", func(string) (bool, error) { return true, nil }, false},
		{"live GET fails", func(string) (bool, error) { return false, errors.New("timeout") }, false},
	} {
		g := newPodGC(t, 0)
		in := PodGCInput{Pods: pods, NodeExists: c.exists}
		_, err := g.Step(t0, in)
		mustNil(t, err)
		plan, err := g.Step(t0.Add(40*time.Second), in)
		mustNil(t, err)
		if got := len(plan.Deletions) == 1; got != c.deleted {
			t.Errorf("%s: deleted %v", c.name, got)
		}
		if len(plan.Quarantined) != 0 {
			t.Errorf("%s: still quarantined %v", c.name, plan.Quarantined)
		}
	}
}

func TestPodGCEachPodOnceFirstStepWins(t *testing.T) {
	// A terminated pod beyond the threshold, terminating, on a deleted node:
	// one deletion, under step 1.
	p := terminating(gcPod("p", PodSucceeded, "gone", time.Hour))
	g := newPodGC(t, 1)
	pods := []Pod{p, gcPod("q", PodSucceeded, "n", time.Minute)}
	nodes := []Node{{Name: "n", Ready: "True"}}
	_, err := g.Step(t0, PodGCInput{Pods: pods, Nodes: nodes})
	mustNil(t, err)
	plan, err := g.Step(t0.Add(time.Minute), PodGCInput{Pods: pods, Nodes: nodes})
	mustNil(t, err)
	want := []podDel{{"p", PodGCTerminated, false, false}}
	if d := cmp.Diff(want, podDels(plan)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestPodGCClockBackwards(t *testing.T) {
	g := newPodGC(t, 0)
	pods := []Pod{gcPod("p", PodRunning, "gone", time.Hour)}
	_, err := g.Step(t0.Add(40*time.Second), PodGCInput{Pods: []Pod{gcPod("x", PodRunning, "other", time.Hour)}})
	mustNil(t, err)
	// A step at t0 counts as t0+40s: the quarantine of "gone" starts there.
	plan, err := g.Step(t0, PodGCInput{Pods: pods})
	mustNil(t, err)
	if !plan.Next.Equal(t0.Add(80 * time.Second)) {
		t.Errorf("next %v, want t0+80s", plan.Next)
	}
}

func TestPodGCBadInput(t *testing.T) {
	g := newPodGC(t, 1)
	if _, err := g.Step(t0, PodGCInput{Nodes: []Node{{Name: "n"}, {Name: "n"}}}); !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), `duplicate node "n"`) {
		t.Errorf("duplicate node: %v", err)
	}
	p := gcPod("p", PodRunning, "n", 0)
	if _, err := g.Step(t0, PodGCInput{Pods: []Pod{p, p}}); !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), "duplicate pod ns/p") {
		t.Errorf("duplicate pod: %v", err)
	}
	if _, err := NewPodGC(PodGCConfig{Quarantine: -time.Second}); !errors.Is(err, ErrInvalidPolicy) {
		t.Errorf("negative quarantine: %v", err)
	}
	// The zero config: threshold 0 (step off), quarantine 40s.
	g, err := NewPodGC(PodGCConfig{})
	mustNil(t, err)
	plan, err := g.Step(t0, PodGCInput{Pods: []Pod{gcPod("p", PodRunning, "gone", 0)}})
	mustNil(t, err)
	if !plan.Next.Equal(t0.Add(DefaultQuarantine)) {
		t.Errorf("zero config next %v", plan.Next)
	}
}
