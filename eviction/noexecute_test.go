package eviction

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

func secs(s int64) *int64 { return &s }

func tol(key string, s *int64) taints.Toleration {
	return taints.Toleration{Key: key, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: s}
}

var (
	unreachable = taints.Taint{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute}
	notReady    = taints.Taint{Key: taints.TaintNodeNotReady, Effect: taints.TaintEffectNoExecute}
	dedicated   = taints.Taint{Key: "dedicated", Value: "db", Effect: taints.TaintEffectNoExecute}
	noSchedule  = taints.Taint{Key: "x", Effect: taints.TaintEffectNoSchedule}
)

// outcome is the part of a decision the tables check.
type outcome struct {
	action NoExecuteAction
	at     time.Time
	reason string
}

// Every rule of processPodOnNode / GetMatchingTolerations /
// getMinTolerationTime (reference §1.9), with upstream defaults.
func TestNoExecutePlan(t *testing.T) {
	sched := &Scheduled{CreatedAt: at(0), At: at(300)}
	for _, tc := range []struct {
		name     string
		taints   []taints.Taint
		tols     []taints.Toleration
		existing *Scheduled
		now      float64
		want     outcome
	}{
		{"no NoExecute taints: nothing", []taints.Taint{noSchedule}, nil, nil, 10, outcome{NoExecuteNone, time.Time{}, ReasonNoNoExecuteTaints}},
		{"taints removed: cancel the scheduled eviction", nil, nil, sched, 10, outcome{NoExecuteCancel, time.Time{}, ReasonNoNoExecuteTaints}},
		{"taints but no tolerations: evict now", []taints.Taint{unreachable}, nil, nil, 10, outcome{NoExecuteEvictNow, at(10), ReasonUntoleratedTaint}},
		{"one taint untolerated: evict now, replacing a schedule", []taints.Taint{unreachable, dedicated}, []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(300))}, sched, 10, outcome{NoExecuteEvictNow, at(10), ReasonUntoleratedTaint}},
		{"nil tolerationSeconds: tolerated forever", []taints.Taint{unreachable}, []taints.Toleration{tol(taints.TaintNodeUnreachable, nil)}, nil, 10, outcome{NoExecuteNone, time.Time{}, ReasonToleratedForever}},
		{"becomes tolerated forever: cancel", []taints.Taint{unreachable}, []taints.Toleration{tol("", nil)}, sched, 10, outcome{NoExecuteCancel, time.Time{}, ReasonToleratedForever}},
		{"smallest positive tolerationSeconds wins", []taints.Taint{unreachable, notReady}, []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(300)), tol(taints.TaintNodeNotReady, secs(60))}, nil, 10, outcome{NoExecuteSchedule, at(70), ReasonTolerationSeconds}},
		{"nil is ignored when another is finite", []taints.Taint{unreachable, dedicated}, []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(120)), tol("dedicated", nil)}, nil, 10, outcome{NoExecuteSchedule, at(130), ReasonTolerationSeconds}},
		{"first matching toleration wins: forever listed first", []taints.Taint{unreachable}, []taints.Toleration{tol("", nil), tol(taints.TaintNodeUnreachable, secs(60))}, nil, 10, outcome{NoExecuteNone, time.Time{}, ReasonToleratedForever}},
		{"first matching toleration wins: 60s listed first", []taints.Taint{unreachable}, []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(60)), tol("", nil)}, nil, 10, outcome{NoExecuteSchedule, at(70), ReasonTolerationSeconds}},
		{"tolerationSeconds 0 evicts now (kubernetes#106876)", []taints.Taint{unreachable}, []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(0))}, nil, 10, outcome{NoExecuteEvictNow, at(10), ReasonZeroToleration}},
		{"negative tolerationSeconds is 0", []taints.Taint{unreachable, notReady}, []taints.Toleration{tol(taints.TaintNodeNotReady, secs(60)), tol(taints.TaintNodeUnreachable, secs(-5))}, nil, 10, outcome{NoExecuteEvictNow, at(10), ReasonZeroToleration}},
		{"lengthened tolerations keep the deadline (kubernetes#102993)", []taints.Taint{unreachable}, []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(3600))}, sched, 10, outcome{NoExecuteKeep, at(300), ReasonScheduledKept}},
		{"shortened tolerations keep the deadline (kubernetes#108982)", []taints.Taint{unreachable}, []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(5))}, sched, 10, outcome{NoExecuteKeep, at(300), ReasonScheduledKept}},
		{"shortened to 0 keeps the deadline too", []taints.Taint{unreachable}, []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(0))}, sched, 10, outcome{NoExecuteKeep, at(300), ReasonScheduledKept}},
		{"scheduled eviction due: evict now", []taints.Taint{unreachable}, []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(300))}, sched, 300, outcome{NoExecuteEvictNow, at(300), ReasonTolerationExpired}},
		{"schedule created at this instant is replaced", []taints.Taint{unreachable}, []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(30))}, &Scheduled{CreatedAt: at(10), At: at(310)}, 10, outcome{NoExecuteSchedule, at(40), ReasonTolerationSeconds}},
		{"now before the schedule's creation is clamped", []taints.Taint{unreachable}, []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(30))}, &Scheduled{CreatedAt: at(10), At: at(310)}, 5, outcome{NoExecuteSchedule, at(40), ReasonTolerationSeconds}},
		{"tolerationSeconds beyond Duration is capped, not wrapped", []taints.Taint{unreachable}, []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(18446744074))}, nil, 0, outcome{NoExecuteSchedule, t0.Add(time.Duration(maxTolerationSeconds) * time.Second), ReasonTolerationSeconds}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NoExecuteConfig{}.Plan(at(tc.now), tc.taints, core.Pod{Namespace: "ns", Name: "p", Tolerations: tc.tols}, tc.existing)
			if got := (outcome{d.Action, d.At, d.Reason}); got != tc.want {
				t.Fatalf("got %+v, want %+v (%s)", got, tc.want, d.Message())
			}
			switch d.Action {
			case NoExecuteEvictNow:
				if d.Condition == nil || *d.Condition != TaintEvictionCondition() || d.EventMessage() != "Marking for deletion Pod ns/p" {
					t.Fatalf("evict without the DisruptionTarget condition or event: %+v", d)
				}
			case NoExecuteCancel:
				if d.EventMessage() != "Cancelling deletion of Pod ns/p" {
					t.Fatalf("cancel event %q", d.EventMessage())
				}
			case NoExecuteSchedule, NoExecuteKeep:
				if !d.Scheduled.At.Equal(d.At) || d.Condition != nil || d.EventMessage() != "" {
					t.Fatalf("schedule: %+v", d)
				}
			}
		})
	}
}

func TestNoExecuteDecisionDetails(t *testing.T) {
	d := NoExecuteConfig{}.Plan(at(0), []taints.Taint{unreachable, dedicated}, core.Pod{Namespace: "ns", Name: "p",
		Tolerations: []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(300))}}, nil)
	if d.Taint != dedicated || d.Message() != "pod ns/p does not tolerate dedicated=db:NoExecute: evict now" {
		t.Fatalf("%+v", d)
	}
	d = NoExecuteConfig{}.Plan(at(0), []taints.Taint{unreachable, notReady}, core.Pod{Namespace: "ns", Name: "p",
		Tolerations: []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(300)), tol(taints.TaintNodeNotReady, secs(60))}}, nil)
	if d.Taint != notReady || d.Scheduled != (Scheduled{CreatedAt: at(0), At: at(60)}) {
		t.Fatalf("%+v", d)
	}
}

// Options: re-planning on toleration edits (kubernetes#102993, #108982)
// and anchoring at the taint's TimeAdded (kubernetes#108268).
func TestNoExecuteOptions(t *testing.T) {
	pod := func(s int64) core.Pod {
		return core.Pod{Namespace: "ns", Name: "p", Tolerations: []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(s))}}
	}
	sched := &Scheduled{CreatedAt: at(0), At: at(300)}
	added := stamped(unreachable, at(-100))
	for _, tc := range []struct {
		name     string
		cfg      NoExecuteConfig
		taint    taints.Taint
		pod      core.Pod
		existing *Scheduled
		now      float64
		want     outcome
	}{
		{"Replan: lengthened moves the deadline from CreatedAt", NoExecuteConfig{Replan: true}, unreachable, pod(600), sched, 10, outcome{NoExecuteSchedule, at(600), ReasonTolerationsChanged}},
		{"Replan: shortened moves it earlier", NoExecuteConfig{Replan: true}, unreachable, pod(60), sched, 10, outcome{NoExecuteSchedule, at(60), ReasonTolerationsChanged}},
		{"Replan: shortened into the past evicts now", NoExecuteConfig{Replan: true}, unreachable, pod(5), sched, 10, outcome{NoExecuteEvictNow, at(10), ReasonTolerationExpired}},
		{"Replan: unchanged keeps", NoExecuteConfig{Replan: true}, unreachable, pod(300), sched, 10, outcome{NoExecuteKeep, at(300), ReasonScheduledKept}},
		{"TimeAdded anchor: deadline survives a restart", NoExecuteConfig{Anchor: AnchorTaintAdded}, added, pod(300), nil, 10, outcome{NoExecuteSchedule, at(200), ReasonTolerationSeconds}},
		{"TimeAdded anchor: already expired after a restart", NoExecuteConfig{Anchor: AnchorTaintAdded}, added, pod(60), nil, 10, outcome{NoExecuteEvictNow, at(10), ReasonTolerationExpired}},
		{"TimeAdded anchor: zero TimeAdded counts from now", NoExecuteConfig{Anchor: AnchorTaintAdded}, unreachable, pod(60), nil, 10, outcome{NoExecuteSchedule, at(70), ReasonTolerationSeconds}},
		{"TimeAdded anchor with Replan: moves to TimeAdded + seconds", NoExecuteConfig{Anchor: AnchorTaintAdded, Replan: true}, added, pod(500), sched, 10, outcome{NoExecuteSchedule, at(400), ReasonTolerationsChanged}},
		{"observed anchor ignores TimeAdded (upstream)", NoExecuteConfig{}, added, pod(60), nil, 10, outcome{NoExecuteSchedule, at(70), ReasonTolerationSeconds}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.cfg.Plan(at(tc.now), []taints.Taint{tc.taint}, tc.pod, tc.existing)
			if got := (outcome{d.Action, d.At, d.Reason}); got != tc.want {
				t.Fatalf("got %+v, want %+v (%s)", got, tc.want, d.Message())
			}
		})
	}
	// TimeAdded anchor: the earliest TimeAdded + seconds over the used
	// tolerations, not the smallest seconds.
	cfg := NoExecuteConfig{Anchor: AnchorTaintAdded}
	d := cfg.Plan(at(260), []taints.Taint{stamped(unreachable, at(0)), stamped(notReady, at(250))}, core.Pod{Tolerations: []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(300)), tol(taints.TaintNodeNotReady, secs(60))}}, nil)
	if d.At != at(300) || d.Taint.Key != taints.TaintNodeUnreachable {
		t.Fatalf("earliest deadline: %+v", d)
	}
}

// KEP-5471 comparison operators go through the configured Matcher.
func TestNoExecuteMatcher(t *testing.T) {
	taint := taints.Taint{Key: "gpu-temp", Value: "90", Effect: taints.TaintEffectNoExecute}
	pod := core.Pod{Tolerations: []taints.Toleration{{Key: "gpu-temp", Operator: taints.TolerationOpLt, Value: "95", Effect: taints.TaintEffectNoExecute}}}
	if d := (NoExecuteConfig{}).Plan(at(0), []taints.Taint{taint}, pod, nil); d.Action != NoExecuteEvictNow {
		t.Fatalf("Lt without the feature tolerates nothing: %+v", d)
	}
	cfg := NoExecuteConfig{Matcher: taints.Matcher{ComparisonOperators: true}}
	if d := cfg.Plan(at(0), []taints.Taint{taint}, pod, nil); d.Action != NoExecuteNone {
		t.Fatalf("90 < 95 tolerated forever: %+v", d)
	}
}

// PlanNode filters the node's NoExecute taints once and sorts decisions by
// namespace, name and UID.
func TestNoExecutePlanNode(t *testing.T) {
	pods := []core.Pod{
		{Namespace: "b", Name: "web", UID: "2"},
		{Namespace: "a", Name: "web", UID: "1", Tolerations: []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(300))}},
		{Namespace: "a", Name: "db", UID: "3", Tolerations: []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(300))}},
	}
	sched := map[string]Scheduled{"a/db": {CreatedAt: at(0), At: at(300)}}
	ds := NoExecuteConfig{}.PlanNode(at(100), []taints.Taint{noSchedule, unreachable}, pods, sched)
	var got []string
	for _, d := range ds {
		got = append(got, d.Pod.Key()+":"+string(d.Action)+"@"+d.At.Sub(t0).String())
	}
	want := []string{"a/db:Keep@5m0s", "a/web:Schedule@6m40s", "b/web:EvictNow@1m40s"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// Rule 7: an unknown Anchor is reported by Validate and planned as
// AnchorObserved, Replan included (from the schedule's CreatedAt).
func TestNoExecuteConfigValidate(t *testing.T) {
	if err := (NoExecuteConfig{Anchor: AnchorTaintAdded}).Validate(); err != nil {
		t.Fatal(err)
	}
	cfg := NoExecuteConfig{Anchor: Anchor(7), Replan: true}
	if err := cfg.Validate(); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "Anchor Anchor(7)") {
		t.Fatalf("Validate = %v", err)
	}
	d := cfg.Plan(at(10), []taints.Taint{stamped(unreachable, at(-100))}, core.Pod{Tolerations: []taints.Toleration{tol(taints.TaintNodeUnreachable, secs(60))}}, &Scheduled{CreatedAt: at(0), At: at(300)})
	if d.Action != NoExecuteSchedule || !d.At.Equal(at(60)) {
		t.Fatalf("unknown anchor replanned to %v (%s), want CreatedAt + 60s", d.At, d.Action)
	}
}

// Message names the pod once; Why is the same text without it, for an
// action that carries the pod already.
func TestNoExecuteWhy(t *testing.T) {
	p := core.PodRef{Namespace: "ns", Name: "p"}
	for _, tc := range []struct {
		d        NoExecuteDecision
		msg, why string
	}{
		{NoExecuteDecision{Pod: p, Action: NoExecuteEvictNow, Reason: ReasonUntoleratedTaint, Taint: dedicated},
			"pod ns/p does not tolerate dedicated=db:NoExecute: evict now", "does not tolerate dedicated=db:NoExecute: evict now"},
		{NoExecuteDecision{Pod: p, Action: NoExecuteCancel, Reason: ReasonNoNoExecuteTaints},
			"pod ns/p: the node has no NoExecute taints; cancelling its scheduled eviction", "the node has no NoExecute taints; cancelling its scheduled eviction"},
		{NoExecuteDecision{Pod: p, Action: NoExecuteSchedule, Reason: ReasonTolerationSeconds, Taint: notReady, At: at(60)},
			"pod ns/p tolerates node.kubernetes.io/not-ready:NoExecute until 2026-03-01T12:01:00Z: evict at 2026-03-01T12:01:00Z",
			"tolerates node.kubernetes.io/not-ready:NoExecute until 2026-03-01T12:01:00Z: evict at 2026-03-01T12:01:00Z"},
		{NoExecuteDecision{Pod: p, Action: NoExecuteEvictNow},
			"pod ns/p: evict now", "evict now"},
		{NoExecuteDecision{Pod: p}, "pod ns/p", ""},
	} {
		if got := tc.d.Message(); got != tc.msg {
			t.Errorf("Message = %q, want %q", got, tc.msg)
		}
		if got := tc.d.Why(); got != tc.why {
			t.Errorf("Why = %q, want %q", got, tc.why)
		}
	}
}
