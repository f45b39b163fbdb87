package eviction

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/nodelife/nodelife/taints"
)

// Anchor says what a pod's tolerationSeconds count from.
type Anchor int

const (
	// AnchorObserved counts from when the eviction is first planned, as
	// upstream's taint eviction controller does: Taint.TimeAdded is ignored,
	// and a controller restart starts every countdown again
	// (kubernetes#108268).
	AnchorObserved Anchor = iota
	// AnchorTaintAdded counts each toleration's seconds from its taint's
	// TimeAdded (from now if TimeAdded is zero), so deadlines survive a
	// restart; Karmada's taint manager works this way.
	AnchorTaintAdded
)

// String returns "observed" or "taint-added".
func (a Anchor) String() string {
	switch a {
	case AnchorObserved:
		return "observed"
	case AnchorTaintAdded:
		return "taint-added"
	}
	return fmt.Sprintf("Anchor(%d)", int(a))
}

// NoExecuteConfig configures the NoExecute taint-eviction planner. The zero
// value is upstream's behaviour.
type NoExecuteConfig struct {
	// Anchor is what tolerationSeconds count from; AnchorObserved is
	// upstream.
	Anchor Anchor
	// Replan recomputes a scheduled eviction's deadline from the pod's
	// current tolerations (from the schedule's CreatedAt under
	// AnchorObserved), so lengthening or shortening tolerationSeconds takes
	// effect. Upstream keeps the first deadline: edits are ignored
	// (kubernetes#102993, kubernetes#108982; PR #109226 was closed).
	Replan bool
	// Matcher matches tolerations to taints; set ComparisonOperators for
	// KEP-5471's Lt and Gt.
	Matcher taints.Matcher
}

// Pod is what the planner needs to know about a pod.
type Pod struct {
	// Namespace, Name and UID identify the pod.
	Namespace, Name, UID string
	// Tolerations are the pod's tolerations, in spec order: order matters.
	Tolerations []taints.Toleration
}

// Key returns "namespace/name", the key upstream schedules evictions by.
func (p Pod) Key() string { return p.Namespace + "/" + p.Name }

// Scheduled is an eviction already scheduled for a pod (upstream's timed
// worker).
type Scheduled struct {
	// CreatedAt is when the eviction was first scheduled.
	CreatedAt time.Time
	// At is when it fires.
	At time.Time
}

// NoExecuteAction is what the planner decided for a pod.
type NoExecuteAction string

// NoExecute actions.
const (
	// NoExecuteNone: no eviction is or should be scheduled.
	NoExecuteNone NoExecuteAction = "None"
	// NoExecuteEvictNow: delete the pod now, after setting Condition on it.
	NoExecuteEvictNow NoExecuteAction = "EvictNow"
	// NoExecuteSchedule: schedule (or replace) the eviction as Scheduled
	// says.
	NoExecuteSchedule NoExecuteAction = "Schedule"
	// NoExecuteKeep: keep the eviction already scheduled, unchanged.
	NoExecuteKeep NoExecuteAction = "Keep"
	// NoExecuteCancel: cancel the scheduled eviction.
	NoExecuteCancel NoExecuteAction = "Cancel"
)

// Reasons of NoExecute decisions.
const (
	ReasonNoNoExecuteTaints  = "NoNoExecuteTaints"
	ReasonUntoleratedTaint   = "UntoleratedTaint"
	ReasonToleratedForever   = "ToleratedForever"
	ReasonZeroToleration     = "ZeroTolerationSeconds"
	ReasonTolerationSeconds  = "TolerationSeconds"
	ReasonScheduledKept      = "ScheduledEvictionKept"
	ReasonTolerationsChanged = "TolerationsChanged"
	ReasonTolerationExpired  = "TolerationExpired"
)

// PodCondition is a pod status condition, field for field as
// k8s.io/api/core/v1.PodCondition without the times.
type PodCondition struct {
	Type, Status, Reason, Message string
}

// TaintEvictionCondition is the condition the taint eviction controller
// sets on a pod before deleting it.
var TaintEvictionCondition = PodCondition{
	Type:    "DisruptionTarget",
	Status:  "True",
	Reason:  "DeletionByTaintManager",
	Message: "Taint manager: deleting due to NoExecute taint",
}

// TaintManagerEvictionReason is the reason of the events the taint eviction
// controller records on pods ("Marking for deletion Pod ns/name",
// "Cancelling deletion of Pod ns/name").
const TaintManagerEvictionReason = "TaintManagerEviction"

// NoExecuteDecision is the planner's verdict for one pod.
type NoExecuteDecision struct {
	// Pod is the pod decided about.
	Pod Pod
	// Action is what to do.
	Action NoExecuteAction
	// At is when the pod is to be deleted: now for EvictNow, the deadline
	// for Schedule and Keep; zero otherwise.
	At time.Time
	// Scheduled is the eviction to hold after this decision, for Schedule
	// and Keep.
	Scheduled Scheduled
	// Taint is the untolerated taint for an immediate eviction, or the
	// taint whose toleration sets the deadline.
	Taint taints.Taint
	// Condition is the pod condition to set before deleting, for EvictNow.
	Condition *PodCondition
	// EventMessage is the pod event to record with reason
	// TaintManagerEvictionReason: on EvictNow, and on Cancel of a pending
	// eviction; "" otherwise.
	EventMessage string
	// Reason is machine-readable (the Reason* constants); Message says the
	// same for people.
	Reason, Message string
}

// maxTolerationSeconds is the largest tolerationSeconds whose duration fits
// in a time.Duration; larger values are capped to it.
const maxTolerationSeconds = math.MaxInt64 / int64(time.Second)

// match is what matching a pod's tolerations against NoExecute taints found.
type match struct {
	untolerated  bool
	forever      bool
	zero         bool
	min          time.Duration // smallest positive tolerationSeconds
	deadline     time.Time     // under AnchorTaintAdded: the earliest anchor + seconds
	taint        taints.Taint  // the untolerated taint, or the one setting min/deadline
	hasDeadlines bool
}

// matchTolerations applies upstream's GetMatchingTolerations and
// getMinTolerationTime to NoExecute taints: each taint uses the first
// toleration in list order that tolerates it.
func (c NoExecuteConfig) matchTolerations(noExec []taints.Taint, tols []taints.Toleration, now time.Time) match {
	var m match
	m.forever = true
	for i := range noExec {
		tt := &noExec[i]
		used := -1
		for j := range tols {
			if c.Matcher.ToleratesTaint(tols[j], *tt) {
				used = j
				break
			}
		}
		if used < 0 {
			return match{untolerated: true, taint: *tt}
		}
		secs := tols[used].TolerationSeconds
		if secs == nil {
			continue
		}
		s := *secs
		if s <= 0 {
			if !m.zero {
				m.zero, m.taint = true, *tt
			}
			m.forever = false
			continue
		}
		s = min(s, maxTolerationSeconds)
		d := time.Duration(s) * time.Second
		anchor := now
		if c.Anchor == AnchorTaintAdded && !tt.TimeAdded.IsZero() {
			anchor = tt.TimeAdded
		}
		dl := anchor.Add(d)
		if m.forever || (c.Anchor == AnchorTaintAdded && dl.Before(m.deadline)) || (c.Anchor != AnchorTaintAdded && d < m.min) {
			if !m.zero {
				m.taint = *tt
			}
			m.min, m.deadline = d, dl
		}
		m.forever = false
	}
	return m
}

// Plan decides what the NoExecute taints among nodeTaints mean for pod at
// now, given the eviction already scheduled for it (nil if none), as
// upstream's taint eviction controller (processPodOnNode):
//
//  1. No NoExecute taint: cancel a scheduled eviction, else nothing.
//  2. A NoExecute taint that no toleration tolerates: evict now, replacing
//     any schedule.
//  3. Each taint uses the first toleration, in list order, that tolerates
//     it. If every used toleration has nil tolerationSeconds the pod stays
//     forever: cancel any schedule.
//  4. If a used toleration has tolerationSeconds <= 0, the delay is 0;
//     otherwise it is the smallest positive value.
//  5. With no schedule, evict at now + delay (at once for 0). With one
//     created before now, keep it, even if the tolerations changed
//     (kubernetes#102993, kubernetes#108982), unless Replan; if its time
//     has come, evict now.
//
// Under AnchorTaintAdded the deadline is the earliest TimeAdded + seconds
// over the used tolerations. A now earlier than the schedule's CreatedAt is
// clamped to it. Plan never fails: tolerationSeconds beyond ~292 years are
// capped, where upstream's arithmetic overflows.
func (c NoExecuteConfig) Plan(nodeTaints []taints.Taint, pod Pod, existing *Scheduled, now time.Time) NoExecuteDecision {
	noExec := nodeTaints
	if !allNoExecute(nodeTaints) {
		noExec = taints.Filter(nodeTaints, isNoExecute)
	}
	return c.plan(noExec, pod, existing, now)
}

func isNoExecute(t taints.Taint) bool { return t.Effect == taints.TaintEffectNoExecute }

func allNoExecute(ts []taints.Taint) bool {
	for i := range ts {
		if ts[i].Effect != taints.TaintEffectNoExecute {
			return false
		}
	}
	return true
}

func (c NoExecuteConfig) plan(noExec []taints.Taint, pod Pod, existing *Scheduled, now time.Time) NoExecuteDecision {
	if existing != nil && now.Before(existing.CreatedAt) {
		now = existing.CreatedAt
	}
	d := NoExecuteDecision{Pod: pod}
	key := pod.Key()
	if len(noExec) == 0 {
		return c.cancel(d, existing, ReasonNoNoExecuteTaints, fmt.Sprintf("pod %s: the node has no NoExecute taints", key))
	}
	m := c.matchTolerations(noExec, pod.Tolerations, now)
	switch {
	case m.untolerated:
		return evictNow(d, now, m.taint, ReasonUntoleratedTaint, fmt.Sprintf("pod %s does not tolerate %s", key, m.taint))
	case m.forever:
		return c.cancel(d, existing, ReasonToleratedForever, fmt.Sprintf("pod %s tolerates every NoExecute taint of the node forever", key))
	}
	delay, deadline := m.min, m.deadline
	if m.zero {
		delay, deadline = 0, now
	}
	if existing == nil {
		if !deadline.After(now) {
			reason, what := ReasonZeroToleration, "tolerationSeconds <= 0"
			if !m.zero {
				reason, what = ReasonTolerationExpired, "its toleration expired at "+deadline.UTC().Format(time.RFC3339)
			}
			return evictNow(d, now, m.taint, reason, fmt.Sprintf("pod %s tolerates %s, but %s", key, m.taint, what))
		}
		return schedule(d, Scheduled{CreatedAt: now, At: deadline}, m.taint, ReasonTolerationSeconds,
			fmt.Sprintf("pod %s tolerates %s for %s: evict at %s", key, m.taint, deadline.Sub(now), deadline.UTC().Format(time.RFC3339)))
	}
	if c.Replan {
		want := deadline
		if c.Anchor == AnchorObserved {
			want = existing.CreatedAt.Add(delay)
		}
		if !want.After(now) {
			return evictNow(d, now, m.taint, ReasonTolerationExpired, fmt.Sprintf("pod %s: the eviction scheduled at %s, replanned to %s, is due",
				key, existing.At.UTC().Format(time.RFC3339), want.UTC().Format(time.RFC3339)))
		}
		if !want.Equal(existing.At) {
			return schedule(d, Scheduled{CreatedAt: existing.CreatedAt, At: want}, m.taint, ReasonTolerationsChanged,
				fmt.Sprintf("pod %s: tolerations changed, eviction moved from %s to %s", key, existing.At.UTC().Format(time.RFC3339), want.UTC().Format(time.RFC3339)))
		}
	} else if !existing.CreatedAt.Before(now) {
		// Upstream replaces a schedule created at this very instant.
		if !deadline.After(now) {
			return evictNow(d, now, m.taint, ReasonZeroToleration, fmt.Sprintf("pod %s tolerates %s, but tolerationSeconds <= 0", key, m.taint))
		}
		return schedule(d, Scheduled{CreatedAt: existing.CreatedAt, At: deadline}, m.taint, ReasonTolerationSeconds,
			fmt.Sprintf("pod %s tolerates %s for %s: evict at %s", key, m.taint, deadline.Sub(now), deadline.UTC().Format(time.RFC3339)))
	}
	if !existing.At.After(now) {
		return evictNow(d, now, m.taint, ReasonTolerationExpired, fmt.Sprintf("pod %s: the eviction scheduled at %s is due", key, existing.At.UTC().Format(time.RFC3339)))
	}
	d.Action, d.At, d.Scheduled, d.Taint = NoExecuteKeep, existing.At, *existing, m.taint
	d.Reason = ReasonScheduledKept
	d.Message = fmt.Sprintf("pod %s: keeping the eviction scheduled at %s", key, existing.At.UTC().Format(time.RFC3339))
	return d
}

func (c NoExecuteConfig) cancel(d NoExecuteDecision, existing *Scheduled, reason, msg string) NoExecuteDecision {
	d.Action, d.Reason, d.Message = NoExecuteNone, reason, msg
	if existing != nil {
		d.Action = NoExecuteCancel
		d.EventMessage = "Cancelling deletion of Pod " + d.Pod.Key()
		d.Message += "; cancelling its scheduled eviction"
	}
	return d
}

func evictNow(d NoExecuteDecision, now time.Time, t taints.Taint, reason, msg string) NoExecuteDecision {
	cond := TaintEvictionCondition
	d.Action, d.At, d.Taint, d.Condition = NoExecuteEvictNow, now, t, &cond
	d.EventMessage = "Marking for deletion Pod " + d.Pod.Key()
	d.Reason, d.Message = reason, msg+": evict now"
	return d
}

func schedule(d NoExecuteDecision, s Scheduled, t taints.Taint, reason, msg string) NoExecuteDecision {
	d.Action, d.At, d.Scheduled, d.Taint = NoExecuteSchedule, s.At, s, t
	d.Reason, d.Message = reason, msg
	return d
}

// PlanNode plans every pod on a node at once, as upstream's node update
// handler: the node's NoExecute taints are filtered once, and each pod is
// planned with Plan against its entry in scheduled (keyed by Pod.Key; nil
// means none). Decisions are sorted by namespace, name and UID.
func (c NoExecuteConfig) PlanNode(nodeTaints []taints.Taint, pods []Pod, scheduled map[string]Scheduled, now time.Time) []NoExecuteDecision {
	noExec := nodeTaints
	if !allNoExecute(nodeTaints) {
		noExec = taints.Filter(nodeTaints, isNoExecute)
	}
	out := make([]NoExecuteDecision, len(pods))
	for i := range pods {
		var existing *Scheduled
		if len(scheduled) > 0 {
			if s, ok := scheduled[pods[i].Key()]; ok {
				existing = &s
			}
		}
		out[i] = c.plan(noExec, pods[i], existing, now)
	}
	cmpPods := func(a, b NoExecuteDecision) int {
		return cmp.Or(strings.Compare(a.Pod.Namespace, b.Pod.Namespace), strings.Compare(a.Pod.Name, b.Pod.Name), strings.Compare(a.Pod.UID, b.Pod.UID))
	}
	if !slices.IsSortedFunc(out, cmpPods) {
		slices.SortStableFunc(out, cmpPods)
	}
	return out
}
