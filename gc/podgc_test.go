package gc

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/coretest"
	"github.com/nodelife/nodelife/taints"
)

// gcPod returns a pod created d before t0.
func gcPod(name string, phase core.PodPhase, node string, d time.Duration) core.Pod {
	return core.Pod{Namespace: "ns", Name: name, UID: "uid-" + name, NodeName: node, Phase: phase, CreationTimestamp: ago(d)}
}

func terminating(p core.Pod) core.Pod {
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
	evicted := gcPod("evicted-young", core.PodFailed, "n", time.Minute)
	evicted.Reason = "Evicted"
	pods := []core.Pod{
		gcPod("running", core.PodRunning, "n", 10*time.Hour),
		gcPod("pending", core.PodPending, "n", 10*time.Hour),
		gcPod("unknown", core.PodUnknown, "n", 10*time.Hour),
		gcPod("succeeded-b", core.PodSucceeded, "n", 5*time.Hour),
		gcPod("succeeded-a", core.PodSucceeded, "n", 5*time.Hour), // same age: by name
		gcPod("no-phase", "", "n", 4*time.Hour),                   // an empty phase counts as terminated
		gcPod("failed-young", core.PodFailed, "n", 2*time.Minute),
		evicted,
	}
	nodes := []core.Node{{Name: "n", Conditions: coretest.Ready("True")}}

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
	pods := []core.Pod{
		gcPod("done", core.PodSucceeded, "n", time.Hour),
		terminating(gcPod("unscheduled", core.PodPending, "", time.Hour)),
	}
	for _, threshold := range []int{0, -1} {
		plan, err := newPodGC(t, threshold).Step(t0, PodGCInput{Pods: pods, Nodes: []core.Node{{Name: "n", Conditions: coretest.Ready("True")}}})
		mustNil(t, err)
		want := []podDel{{"unscheduled", PodGCUnscheduled, true, false}}
		if d := cmp.Diff(want, podDels(plan)); d != "" {
			t.Errorf("threshold %d (-want +got):\n%s", threshold, d)
		}
	}
}

func TestPodGCOutOfService(t *testing.T) {
	oos := taints.Taint{Key: taints.TaintNodeOutOfService, Value: "nodeshutdown", Effect: "NoExecute"}
	nodes := []core.Node{
		{Name: "down", Conditions: coretest.Ready("False"), Taints: []taints.Taint{oos}},
		{Name: "down-noexec-other", Conditions: coretest.Ready("Unknown"), Taints: []taints.Taint{{Key: taints.TaintNodeOutOfService, Effect: "NoSchedule"}}},
		{Name: "ready-tainted", Conditions: coretest.Ready("True"), Taints: []taints.Taint{oos}},
		{Name: "down-untainted", Conditions: coretest.Ready("False")},
		{Name: "no-condition", Taints: []taints.Taint{oos}},
	}
	pods := []core.Pod{
		terminating(gcPod("on-down", core.PodRunning, "down", time.Hour)),
		terminating(gcPod("on-down-succeeded", core.PodSucceeded, "down", 2*time.Hour)),
		terminating(gcPod("other-effect", core.PodRunning, "down-noexec-other", time.Hour)),
		terminating(gcPod("no-condition", core.PodRunning, "no-condition", time.Hour)),
		gcPod("not-terminating", core.PodRunning, "down", time.Hour),
		terminating(gcPod("ready-node", core.PodRunning, "ready-tainted", time.Hour)),
		terminating(gcPod("untainted", core.PodRunning, "down-untainted", time.Hour)),
		terminating(gcPod("missing-node", core.PodRunning, "missing", time.Hour)),
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
	pods := []core.Pod{
		gcPod("running", core.PodRunning, "gone", time.Hour),
		gcPod("succeeded", core.PodSucceeded, "gone", 2*time.Hour),
		gcPod("elsewhere", core.PodRunning, "n", time.Hour),
	}
	nodes := []core.Node{{Name: "n", Conditions: coretest.Ready("True")}}
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
	wantCond := core.PodCondition{Type: core.DisruptionTarget, Status: conditions.True, Reason: "DeletionByPodGC", Message: "PodGC: node no longer exists"}
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
	pods := []core.Pod{gcPod("p", core.PodRunning, "flaky", time.Hour)}
	steps := []struct {
		at      time.Duration
		present bool
		deleted bool
	}{{0, false, false}, {20 * time.Second, true, false}, {30 * time.Second, false, false}, {40 * time.Second, false, true}}
	for _, s := range steps {
		var nodes []core.Node
		if s.present {
			nodes = []core.Node{{Name: "flaky", Conditions: coretest.Ready("True")}}
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
	plan, err := g.Step(t0.Add(40*time.Second), PodGCInput{Pods: pods, Nodes: []core.Node{{Name: "flaky"}}})
	mustNil(t, err)
	if len(plan.Deletions) != 0 || len(plan.Quarantined) != 0 {
		t.Errorf("present at the end: %+v", plan)
	}
}

func TestPodGCNodeExistsCheck(t *testing.T) {
	pods := []core.Pod{gcPod("p", core.PodRunning, "gone", time.Hour)}
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
	p := terminating(gcPod("p", core.PodSucceeded, "gone", time.Hour))
	g := newPodGC(t, 1)
	pods := []core.Pod{p, gcPod("q", core.PodSucceeded, "n", time.Minute)}
	nodes := []core.Node{{Name: "n", Conditions: coretest.Ready("True")}}
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
	pods := []core.Pod{gcPod("p", core.PodRunning, "gone", time.Hour)}
	_, err := g.Step(t0.Add(40*time.Second), PodGCInput{Pods: []core.Pod{gcPod("x", core.PodRunning, "other", time.Hour)}})
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
	if _, err := g.Step(t0, PodGCInput{Nodes: []core.Node{{Name: "n"}, {Name: "n"}}}); !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), `duplicate node "n"`) {
		t.Errorf("duplicate node: %v", err)
	}
	p := gcPod("p", core.PodRunning, "n", 0)
	if _, err := g.Step(t0, PodGCInput{Pods: []core.Pod{p, p}}); !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), "duplicate pod ns/p") {
		t.Errorf("duplicate pod: %v", err)
	}
	if _, err := NewPodGC(PodGCConfig{Quarantine: -time.Second}); !errors.Is(err, ErrInvalidPolicy) {
		t.Errorf("negative quarantine: %v", err)
	}
	// The zero config: threshold 0 (step off), quarantine 40s.
	g, err := NewPodGC(PodGCConfig{})
	mustNil(t, err)
	plan, err := g.Step(t0, PodGCInput{Pods: []core.Pod{gcPod("p", core.PodRunning, "gone", 0)}})
	mustNil(t, err)
	if !plan.Next.Equal(t0.Add(DefaultQuarantine)) {
		t.Errorf("zero config next %v", plan.Next)
	}
}
