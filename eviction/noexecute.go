package eviction

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/enum"
	"github.com/nodelife/nodelife/taints"

	"github.com/nodelife/nodelife/internal/podorder"
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
func (a Anchor) String() string { return enum.Name(a, "Anchor", "observed", "taint-added") }

// NoExecuteConfig configures the NoExecute taint-eviction planner. The zero
// value is upstream's behaviour.
type NoExecuteConfig struct {
	// Anchor is what tolerationSeconds count from; AnchorObserved is
	// upstream.
	Anchor Anchor
	// Replan recomputes a scheduled eviction's deadline from the pod's
	// current tolerations (from the schedule's CreatedAt under
	// AnchorObserved), so lengthening or shortening tolerationSeconds takes
	// effect. Upstream keeps the first deadline while the pod still
	// tolerates the taints for a while: an edit of tolerationSeconds from
	// one number to another changes nothing (kubernetes#102993,
	// kubernetes#108982; PR #109226 was closed). Edits that change what is
	// tolerated take effect either way: a pod whose tolerations now
	// tolerate every NoExecute taint for ever (nil tolerationSeconds) has
	// its eviction cancelled, one that no longer tolerates a taint is
	// evicted at once, and a pod tolerating for ever whose tolerations gain
	// seconds is scheduled anew, counted from the edit. (OpenYurt's pod
	// binding relies on this: see nodelifecycle.OpenYurtBindPod.)
	Replan bool
	// Matcher matches tolerations to taints; set ComparisonOperators for
	// KEP-5471's Lt and Gt.
	Matcher taints.Matcher
}

// Validate reports an Anchor that is neither AnchorObserved nor
// AnchorTaintAdded; nil otherwise. Plan treats such an anchor as
// AnchorObserved.
func (c NoExecuteConfig) Validate() error {
	if c.Anchor != AnchorObserved && c.Anchor != AnchorTaintAdded {
		return wrap(ErrInvalidConfig, fmt.Sprintf("Anchor %v is neither AnchorObserved nor AnchorTaintAdded", c.Anchor))
	}
	return nil
}

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
	// ReasonNoNoExecuteTaints: the node has no NoExecute taint.
	ReasonNoNoExecuteTaints = "NoNoExecuteTaints"
	// ReasonUntoleratedTaint: a NoExecute taint is not tolerated.
	ReasonUntoleratedTaint = "UntoleratedTaint"
	// ReasonToleratedForever: every used toleration has nil
	// tolerationSeconds.
	ReasonToleratedForever = "ToleratedForever"
	// ReasonZeroToleration: a used toleration has tolerationSeconds <= 0.
	ReasonZeroToleration = "ZeroTolerationSeconds"
	// ReasonTolerationSeconds: the eviction is scheduled for when the
	// shortest used tolerationSeconds runs out.
	ReasonTolerationSeconds = "TolerationSeconds"
	// ReasonScheduledKept: an eviction is already scheduled and stays.
	ReasonScheduledKept = "ScheduledEvictionKept"
	// ReasonTolerationsChanged: NoExecuteConfig.Replan moved a scheduled
	// eviction.
	ReasonTolerationsChanged = "TolerationsChanged"
	// ReasonTolerationExpired: the eviction's deadline has passed.
	ReasonTolerationExpired = "TolerationExpired"
)

// TaintEvictionCondition returns the condition the taint eviction
// controller sets on a pod before deleting it: DisruptionTarget True,
// reason DeletionByTaintManager.
func TaintEvictionCondition() core.PodCondition {
	return core.PodCondition{
		Type:    core.DisruptionTarget,
		Status:  conditions.True,
		Reason:  "DeletionByTaintManager",
		Message: "Taint manager: deleting due to NoExecute taint",
	}
}

// TaintManagerEvictionReason is the reason of the events the taint eviction
// controller records on pods ("Marking for deletion Pod ns/name",
// "Cancelling deletion of Pod ns/name").
const TaintManagerEvictionReason = "TaintManagerEviction"

// NoExecuteDecision is the planner's verdict for one pod.
//
// Its sentences are methods (Message, EventMessage) rather than fields, so
// that planning a hundred thousand pods formats nothing nobody reads.
type NoExecuteDecision struct {
	// Pod is the pod decided about.
	Pod core.PodRef
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
	// Condition is the pod condition to set before deleting, for EvictNow
	// (a copy of TaintEvictionCondition); nil otherwise.
	Condition *core.PodCondition
	// Reason is machine-readable: one of the Reason* constants.
	Reason string
	// other is the deadline that came due (TolerationExpired) or the one a
	// replan moved (TolerationsChanged), for Message.
	other time.Time
}

// EventMessage returns the pod event to record with reason
// TaintManagerEvictionReason: "Marking for deletion Pod ns/name" on
// EvictNow, "Cancelling deletion of Pod ns/name" on Cancel, "" otherwise.
func (d NoExecuteDecision) EventMessage() string {
	switch d.Action {
	case NoExecuteEvictNow:
		return "Marking for deletion Pod " + d.Pod.Key()
	case NoExecuteCancel:
		return "Cancelling deletion of Pod " + d.Pod.Key()
	}
	return ""
}

// Message says what was decided and why, for people, naming the pod:
// "pod ns/web does not tolerate node.kubernetes.io/unreachable:NoExecute:
// evict now". Where the pod is named already (an action that carries it),
// use Why.
func (d NoExecuteDecision) Message() string {
	why, verb := d.why()
	if why == "" {
		return "pod " + d.Pod.Key()
	}
	if verb {
		return "pod " + d.Pod.Key() + " " + why
	}
	return "pod " + d.Pod.Key() + ": " + why
}

// Why is Message without the pod: "does not tolerate
// node.kubernetes.io/unreachable:NoExecute: evict now", "the node has no
// NoExecute taints; cancelling its scheduled eviction".
func (d NoExecuteDecision) Why() string {
	why, _ := d.why()
	return why
}

// why returns the reason and the action, and whether the text goes on
// from the pod as a verb ("tolerates ...") rather than after a colon.
func (d NoExecuteDecision) why() (string, bool) {
	var msg string
	verb := false
	switch d.Reason {
	case ReasonNoNoExecuteTaints:
		msg = "the node has no NoExecute taints"
	case ReasonUntoleratedTaint:
		msg, verb = "does not tolerate "+d.Taint.String(), true
	case ReasonToleratedForever:
		msg, verb = "tolerates every NoExecute taint of the node forever", true
	case ReasonZeroToleration:
		msg, verb = "tolerates "+d.Taint.String()+" with tolerationSeconds <= 0", true
	case ReasonTolerationExpired:
		msg = "its eviction deadline " + stamp(d.other) + " has passed"
	case ReasonTolerationSeconds:
		msg, verb = "tolerates "+d.Taint.String()+" until "+stamp(d.At), true
	case ReasonScheduledKept:
		msg = "keeping the eviction scheduled at " + stamp(d.At) + ", whatever its tolerations say now"
	case ReasonTolerationsChanged:
		msg = "tolerations changed, eviction moved from " + stamp(d.other) + " to " + stamp(d.At)
	}
	var act string
	switch d.Action {
	case NoExecuteEvictNow:
		act = "evict now"
	case NoExecuteCancel:
		act = "cancelling its scheduled eviction"
	case NoExecuteSchedule:
		act = "evict at " + stamp(d.At)
	}
	switch {
	case msg == "":
		return act, false
	case act == "":
		return msg, verb
	case d.Action == NoExecuteCancel:
		return msg + "; " + act, verb
	}
	return msg + ": " + act, verb
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// maxTolerationSeconds is the largest tolerationSeconds whose duration fits
// in a time.Duration; larger values are capped to it.
const maxTolerationSeconds = math.MaxInt64 / int64(time.Second)

// match is what matching a pod's tolerations against NoExecute taints found.
type match struct {
	untolerated bool
	forever     bool
	zero        bool
	min         time.Duration // smallest positive tolerationSeconds
	deadline    time.Time     // under AnchorTaintAdded: the earliest anchor + seconds
	taint       taints.Taint  // the untolerated taint, or the one setting min/deadline
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
			if c.Matcher.ToleratesTaint(&tols[j], tt) {
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
func (c NoExecuteConfig) Plan(now time.Time, nodeTaints []taints.Taint, pod core.Pod, existing *Scheduled) NoExecuteDecision {
	noExec := noExecuteTaints(nodeTaints)
	var d NoExecuteDecision
	c.plan(&d, noExec, &pod, existing, now)
	return d
}

// noExecuteTaints returns the NoExecute taints of ts, ts itself (no copy)
// when they all are.
func noExecuteTaints(ts []taints.Taint) []taints.Taint {
	for i := range ts {
		if ts[i].Effect != taints.TaintEffectNoExecute {
			return taints.Filter(ts, func(t taints.Taint) bool { return t.Effect == taints.TaintEffectNoExecute })
		}
	}
	return ts
}

// plan fills d, which must be zero, with the decision for pod.
func (c NoExecuteConfig) plan(d *NoExecuteDecision, noExec []taints.Taint, pod *core.Pod, existing *Scheduled, now time.Time) {
	if existing != nil && now.Before(existing.CreatedAt) {
		now = existing.CreatedAt
	}
	d.Pod = pod.Ref()
	if len(noExec) == 0 {
		cancel(d, existing, ReasonNoNoExecuteTaints)
		return
	}
	m := c.matchTolerations(noExec, pod.Tolerations, now)
	switch {
	case m.untolerated:
		evictNow(d, now, m.taint, ReasonUntoleratedTaint)
		return
	case m.forever:
		cancel(d, existing, ReasonToleratedForever)
		return
	}
	delay, deadline := m.min, m.deadline
	if m.zero {
		delay, deadline = 0, now
	}
	if existing == nil || (!c.Replan && !existing.CreatedAt.Before(now)) {
		// Nothing scheduled, or (upstream) a schedule created at this very
		// instant, which is replaced.
		created := now
		if existing != nil {
			created = existing.CreatedAt
		}
		switch {
		case m.zero:
			evictNow(d, now, m.taint, ReasonZeroToleration)
			return
		case !deadline.After(now):
			d.other = deadline
			evictNow(d, now, m.taint, ReasonTolerationExpired)
			return
		}
		schedule(d, Scheduled{CreatedAt: created, At: deadline}, m.taint, ReasonTolerationSeconds)
		return
	}
	if c.Replan {
		want := deadline
		if c.Anchor != AnchorTaintAdded {
			want = existing.CreatedAt.Add(delay)
		}
		if !want.After(now) {
			d.other = want
			evictNow(d, now, m.taint, ReasonTolerationExpired)
			return
		}
		if !want.Equal(existing.At) {
			d.other = existing.At
			schedule(d, Scheduled{CreatedAt: existing.CreatedAt, At: want}, m.taint, ReasonTolerationsChanged)
			return
		}
	}
	if !existing.At.After(now) {
		d.other = existing.At
		evictNow(d, now, m.taint, ReasonTolerationExpired)
		return
	}
	d.Action, d.At, d.Scheduled, d.Taint, d.Reason = NoExecuteKeep, existing.At, *existing, m.taint, ReasonScheduledKept
}

func cancel(d *NoExecuteDecision, existing *Scheduled, reason string) {
	d.Action, d.Reason = NoExecuteNone, reason
	if existing != nil {
		d.Action = NoExecuteCancel
	}
}

func evictNow(d *NoExecuteDecision, now time.Time, t taints.Taint, reason string) {
	cond := TaintEvictionCondition()
	d.Action, d.At, d.Taint, d.Condition, d.Reason = NoExecuteEvictNow, now, t, &cond, reason
}

func schedule(d *NoExecuteDecision, s Scheduled, t taints.Taint, reason string) {
	d.Action, d.At, d.Scheduled, d.Taint, d.Reason = NoExecuteSchedule, s.At, s, t, reason
}

// PlanNode plans every pod on a node at once, as upstream's node update
// handler: the node's NoExecute taints are filtered once, and each pod is
// planned with Plan against its entry in scheduled (keyed by Pod.Key; nil
// means none). Decisions are sorted by namespace, name and UID.
func (c NoExecuteConfig) PlanNode(now time.Time, nodeTaints []taints.Taint, pods []core.Pod, scheduled map[string]Scheduled) []NoExecuteDecision {
	noExec := noExecuteTaints(nodeTaints)
	order := podOrder(pods)
	out := make([]NoExecuteDecision, len(pods))
	var key []byte
	for i := range out {
		p := &pods[i]
		if order != nil {
			p = &pods[order[i]]
		}
		var existing *Scheduled
		if len(scheduled) > 0 {
			key = append(append(append(key[:0], p.Namespace...), '/'), p.Name...)
			if s, ok := scheduled[string(key)]; ok {
				existing = &s
			}
		}
		c.plan(&out[i], noExec, p, existing, now)
	}
	return out
}

// podOrder returns the indexes of pods sorted by namespace, name and UID
// (then input order), or nil if pods are sorted already.
func podOrder(pods []core.Pod) []int32 {
	sorted := true
	for i := 1; i < len(pods) && sorted; i++ {
		sorted = comparePods(&pods[i-1], &pods[i]) <= 0
	}
	if sorted {
		return nil
	}
	// Each key starts with the 8 bytes of namespace and of name that follow
	// the prefix all pods share, packed big-endian, so most comparisons are
	// two integer compares; equal packed bytes fall back to the strings.
	nsSkip, nameSkip := commonPrefix(pods, func(p *core.Pod) string { return p.Namespace }), commonPrefix(pods, func(p *core.Pod) string { return p.Name })
	type key struct {
		ns, name uint64
		i        int32
	}
	keys := make([]key, len(pods))
	for i := range pods {
		keys[i] = key{pack(pods[i].Namespace, nsSkip), pack(pods[i].Name, nameSkip), int32(i)}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.ns != b.ns {
			return cmp.Compare(a.ns, b.ns)
		}
		pa, pb := &pods[a.i], &pods[b.i]
		if c := strings.Compare(pa.Namespace, pb.Namespace); c != 0 {
			return c
		}
		if a.name != b.name {
			return cmp.Compare(a.name, b.name)
		}
		if c := comparePods(pa, pb); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	order := make([]int32, len(pods))
	for i := range keys {
		order[i] = keys[i].i
	}
	return order
}

// commonPrefix returns the length of the prefix field(p) shares across pods.
func commonPrefix(pods []core.Pod, field func(*core.Pod) string) int {
	prefix := field(&pods[0])
	for i := 1; i < len(pods) && prefix != ""; i++ {
		s := field(&pods[i])
		n := 0
		for n < len(prefix) && n < len(s) && prefix[n] == s[n] {
			n++
		}
		prefix = prefix[:n]
	}
	return len(prefix)
}

// pack returns the 8 bytes of s after skip, big-endian, zero-padded; packed
// values order as the strings do wherever they differ.
func pack(s string, skip int) uint64 {
	var v uint64
	for i := 0; i < 8; i++ {
		v <<= 8
		if j := skip + i; j < len(s) {
			v |= uint64(s[j])
		}
	}
	return v
}

// comparePods orders pods by namespace, name and UID.
func comparePods(a, b *core.Pod) int {
	return podorder.CompareIdentity(a.Namespace, a.Name, a.UID, b.Namespace, b.Name, b.UID)
}
