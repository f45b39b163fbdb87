package remediation

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodelife/nodelife/conditions"
)

// Health is a target's verdict.
type Health int

const (
	// Healthy targets pass every check; they count toward MinHealthy.
	Healthy Health = iota
	// Unhealthy targets failed a check; they are remediated when the gate
	// allows.
	Unhealthy
	// Pending targets hold an unhealthy condition whose timeout has not
	// run out (or wait for their node within NodeStartupTimeout): not
	// healthy, not yet unhealthy. Verdict.Next is when that changes.
	Pending
	// NotCounted targets are neither healthy nor unhealthy: no node and no
	// startup timeout, a cluster not ready, a target being deleted, or
	// (HoldWhileRemediating) a remediation still in place.
	NotCounted
	// Skipped targets carry AnnotationPaused or AnnotationSkipRemediation:
	// they are not targets at all and are not counted.
	Skipped
)

// String returns the health's name.
func (h Health) String() string {
	switch h {
	case Healthy:
		return "Healthy"
	case Unhealthy:
		return "Unhealthy"
	case Pending:
		return "Pending"
	case NotCounted:
		return "NotCounted"
	case Skipped:
		return "Skipped"
	}
	return "Health(" + itoa(int(h)) + ")"
}

// Verdict reasons (Verdict.Reason). The unhealthy ones are Cluster API's
// MachineHealthCheckSucceeded reasons.
const (
	ReasonSucceeded              = "Succeeded"
	ReasonUnhealthyNode          = "UnhealthyNode"
	ReasonUnhealthyMachine       = "UnhealthyMachine"
	ReasonNodeStartupTimeout     = "NodeStartupTimeout"
	ReasonNodeDeleted            = "NodeDeleted"
	ReasonHasRemediateAnnotation = "HasRemediateAnnotation"
	ReasonConditionTimeout       = "WaitingForConditionTimeout"
	ReasonWaitingForNode         = "WaitingForNode"
	ReasonNoNode                 = "NoNode"
	ReasonClusterNotReady        = "ClusterInfrastructureNotReady"
	ReasonControlPlaneNotInit    = "ControlPlaneNotInitialized"
	ReasonDeleting               = "Deleting"
	ReasonRemediationInPlace     = "RemediationInPlace"
	ReasonPaused                 = "Paused"
	ReasonSkipRemediation        = "SkipRemediation"
)

// Hold reasons (Verdict.Hold): why an unhealthy target, or a healthy one
// under remediation, is left as it is.
const (
	HoldTooManyUnhealthy  = "TooManyUnhealthy"
	HoldStormRecovery     = "StormRecovery"
	HoldPaused            = "PauseRequested"
	HoldExcluded          = "ExcludedFromRemediation"
	HoldControlPlaneBusy  = "ControlPlaneRemediationInProgress"
	HoldNoRemediationLeft = "NoRemediationLeft"
	HoldRemediating       = "Remediating"
	HoldHealthyDelay      = "HealthyDelay"
	HoldManualConfirm     = "WaitingForManualConfirmation"
)

// Verdict is the plan's word on one target.
type Verdict struct {
	// Target is the target's Name.
	Target string
	Health Health
	// Reason is one of the Reason constants; Message says it in a
	// sentence (for an unhealthy target, Cluster API's condition message:
	// "Health check failed:" and one line per failed check).
	Reason, Message string
	// Next is when the target's verdict may change on its own (a timeout
	// running out); zero when only a change of input changes it.
	Next time.Time
	// Hold, when not empty, is why the target's remediation does not
	// start, go on or end in this plan (a Hold constant); HoldMessage
	// says it in a sentence.
	Hold, HoldMessage string
}

// ActionKind is what an action asks the caller to do.
type ActionKind int

const (
	// ActionRemediate starts the remediation Template on Target: create
	// the remediation object (or, for Cluster API, mark the Machine for
	// its owner), and record a Remediation{Template, Started: Plan.Now}.
	ActionRemediate ActionKind = iota
	// ActionTimeOut ends the running remediation Template on Target as
	// timed out (or failed): record TimedOut = Plan.Now (medik8s also
	// annotates the object unless it succeeded). The next remediation
	// starts at the next plan, a second later.
	ActionTimeOut
	// ActionStartHealthyDelay starts Target's HealthyDelay: record
	// HealthyDelayStarted = Plan.Now.
	ActionStartHealthyDelay
	// ActionEndRemediation ends Target's remediation, its checks passing:
	// delete its remediation objects (or mark the Machine healthy), then
	// clear its Remediations and HealthyDelayStarted.
	ActionEndRemediation
	// ActionStormStarted records State.StormActive.
	ActionStormStarted
	// ActionCooldownStarted records State.CooldownStarted = Plan.Now.
	ActionCooldownStarted
	// ActionStormEnded clears State.
	ActionStormEnded
)

// String returns the kind's name.
func (k ActionKind) String() string {
	switch k {
	case ActionRemediate:
		return "Remediate"
	case ActionTimeOut:
		return "TimeOut"
	case ActionStartHealthyDelay:
		return "StartHealthyDelay"
	case ActionEndRemediation:
		return "EndRemediation"
	case ActionStormStarted:
		return "StormStarted"
	case ActionCooldownStarted:
		return "CooldownStarted"
	case ActionStormEnded:
		return "StormEnded"
	}
	return "ActionKind(" + itoa(int(k)) + ")"
}

// Action is one thing to do, in plan order.
type Action struct {
	Kind ActionKind
	// Target is the target's Name; "" for the storm actions.
	Target string
	// Template is the remediation's, for ActionRemediate and ActionTimeOut.
	Template string
	// Reason is machine-readable (for ActionRemediate the verdict's
	// Reason); Message a sentence.
	Reason, Message string
}

// Plan is one run of the health check.
type Plan struct {
	// Now is the instant the plan was made at: the now given, or the
	// latest time the input records when that is later (a clock that went
	// back). Record the actions' times as Now.
	Now time.Time
	// Verdicts are one per target, in input order.
	Verdicts []Verdict
	// Total counts the targets that are not Skipped (Cluster API's
	// expectedMachines, medik8s' observedNodes); Healthy those Healthy
	// (currentHealthy, healthyNodes).
	Total, Healthy int
	// Allowed says the gate (MaxUnhealthy, MinHealthy or UnhealthyRange)
	// lets remediation start; RemediationsAllowed is how many more targets
	// could turn unhealthy with it still open (0 when closed). GateMessage
	// says why it is closed.
	Allowed             bool
	RemediationsAllowed int
	GateMessage         string
	// Paused says PauseRequests stopped every action.
	Paused bool
	// State is the State to keep for the next plan.
	State State
	// Actions are the writes, in order.
	Actions []Action
	// Next is when to plan again though nothing changes; zero: only on a
	// change of input.
	Next time.Time
}

// Check runs the health check cfg over in at now, as Cluster API's
// MachineHealthCheck reconciler or medik8s' NodeHealthCheck reconciler
// would at that instant. It returns ErrInvalidConfig (wrapped) for a config
// Validate refuses. The plan's actions and verdicts are in target order;
// nothing in the input is changed.
func Check(now time.Time, cfg Config, in Input) (Plan, error) {
	if err := cfg.Validate(); err != nil {
		return Plan{}, err
	}
	now = clampNow(now, in)
	p := Plan{Now: now, State: in.State, Verdicts: make([]Verdict, len(in.Targets))}
	next := func(t time.Time) {
		if !t.IsZero() && (p.Next.IsZero() || t.Before(p.Next)) {
			p.Next = t
		}
	}
	for i := range in.Targets {
		v := checkTarget(now, cfg, in.Cluster, &in.Targets[i])
		p.Verdicts[i] = v
		next(v.Next)
		if v.Health != Skipped {
			p.Total++
		}
		if v.Health == Healthy {
			p.Healthy++
		}
	}
	p.Allowed, p.RemediationsAllowed, p.GateMessage = gate(cfg, p.Total, p.Healthy)
	if len(cfg.PauseRequests) > 0 {
		p.Paused = true
		msg := "remediation is paused: " + strings.Join(cfg.PauseRequests, ",")
		for i := range p.Verdicts {
			v := &p.Verdicts[i]
			if v.Health == Unhealthy || (len(in.Targets[i].Remediations) > 0 && passes(v)) {
				v.Hold, v.HoldMessage = HoldPaused, msg
			}
		}
		return p, nil
	}

	// Targets whose checks pass again end their remediation.
	for i := range in.Targets {
		t, v := &in.Targets[i], &p.Verdicts[i]
		if len(t.Remediations) == 0 || !passes(v) {
			continue
		}
		next(endRemediation(now, cfg, t, v, &p.Actions))
	}

	unhealthy := false
	for _, v := range p.Verdicts {
		unhealthy = unhealthy || v.Health == Unhealthy
	}
	if !unhealthy {
		// medik8s looks at the storm only when a node is unhealthy.
		return p, nil
	}
	storm := false
	if cfg.StormCooldownDuration > 0 {
		var at time.Time
		storm, at = stormStep(now, cfg.StormCooldownDuration, !p.Allowed, &p.State, &p.Actions)
		next(at)
	}

	steps := slices.Clone(cfg.EscalatingRemediations)
	if len(steps) == 0 {
		steps = []EscalatingRemediation{{}}
	}
	slices.SortStableFunc(steps, func(a, b EscalatingRemediation) int { return a.Order - b.Order })
	cpBusy := ""
	for i := range in.Targets {
		if in.Targets[i].ControlPlane && len(in.Targets[i].Remediations) > 0 {
			cpBusy = in.Targets[i].Name
			break
		}
	}
	for i := range in.Targets {
		t, v := &in.Targets[i], &p.Verdicts[i]
		if v.Health != Unhealthy {
			continue
		}
		switch {
		case !p.Allowed:
			v.Hold, v.HoldMessage = HoldTooManyUnhealthy, p.GateMessage
			continue
		case storm:
			v.Hold, v.HoldMessage = HoldStormRecovery, "storm recovery: no new remediation until the storm's cooldown has run"
			continue
		case cfg.ExcludeLabel != "" && t.Node != nil && t.Node.Labels[cfg.ExcludeLabel] == "true":
			v.Hold, v.HoldMessage = HoldExcluded, fmt.Sprintf("node %s has the label %s=true", t.Node.Name, cfg.ExcludeLabel)
			continue
		case t.ControlPlane && cpBusy != "" && cpBusy != t.Name:
			v.Hold, v.HoldMessage = HoldControlPlaneBusy, fmt.Sprintf("control-plane target %s is being remediated; one at a time", cpBusy)
			next(now.Add(ControlPlaneRetry))
			continue
		}
		at := escalate(now, steps, t, v, &p.Actions)
		next(at)
		if t.ControlPlane && cpBusy == "" && (len(t.Remediations) > 0 || lastIs(p.Actions, ActionRemediate, t.Name)) {
			cpBusy = t.Name
		}
	}
	return p, nil
}

func lastIs(as []Action, k ActionKind, target string) bool {
	return len(as) > 0 && as[len(as)-1].Kind == k && as[len(as)-1].Target == target
}

// passes reports whether a verdict's checks pass (healthy, or held only by
// its remediation or its deletion).
func passes(v *Verdict) bool {
	return v.Health == Healthy || (v.Health == NotCounted && (v.Reason == ReasonRemediationInPlace || v.Reason == ReasonDeleting))
}

// clampNow returns now, or the latest time the plans wrote into in when
// that is later (a clock that went back).
func clampNow(now time.Time, in Input) time.Time {
	later := func(t time.Time) {
		if t.After(now) {
			now = t
		}
	}
	later(in.State.CooldownStarted)
	for i := range in.Targets {
		later(in.Targets[i].HealthyDelayStarted)
		for _, r := range in.Targets[i].Remediations {
			later(r.Started)
			later(r.TimedOut)
		}
	}
	return now
}

// checkTarget is one target's health, Cluster API's needsRemediation: the
// remediate annotation, the cluster's readiness, the Machine's checks, then
// the node's (missing, not started, conditions).
func checkTarget(now time.Time, cfg Config, cl *Cluster, t *Target) Verdict {
	v := Verdict{Target: t.Name}
	if _, ok := t.Annotations[AnnotationPaused]; ok {
		v.Health, v.Reason, v.Message = Skipped, ReasonPaused, "the target has the annotation "+AnnotationPaused
		return v
	}
	if _, ok := t.Annotations[AnnotationSkipRemediation]; ok {
		v.Health, v.Reason, v.Message = Skipped, ReasonSkipRemediation, "the target has the annotation "+AnnotationSkipRemediation
		return v
	}
	if _, ok := t.Annotations[AnnotationRemediateMachine]; ok {
		v.Health, v.Reason = Unhealthy, ReasonHasRemediateAnnotation
		v.Message = "Health check failed: marked for remediation via " + AnnotationRemediateMachine + " annotation"
		return v
	}
	if cl != nil {
		if cl.ControlPlaneInitialized.IsZero() && !t.ControlPlane {
			v.Health, v.Reason, v.Message = NotCounted, ReasonControlPlaneNotInit, "the cluster's control plane is not initialized"
			return v
		}
		if cl.InfrastructureReady.IsZero() {
			v.Health, v.Reason, v.Message = NotCounted, ReasonClusterNotReady, "the cluster's infrastructure is not ready"
			return v
		}
	}
	var failed []string
	var soon time.Time
	wait := func(t time.Time) {
		if soon.IsZero() || t.Before(soon) {
			soon = t
		}
	}
	for _, c := range cfg.UnhealthyMachineConditions {
		if m, ok := unhealthyFor(now, c, t.Conditions, "Machine", wait); ok {
			failed = append(failed, m)
		}
	}
	reason := ""
	if len(failed) > 0 {
		reason = ReasonUnhealthyMachine
		soon = time.Time{}
	}
	machineSoon := soon
	soon = time.Time{}
	nodeReason := ""
	var nodeFailed []string
	switch {
	case t.NodeMissing:
		name := t.NodeName
		if name == "" && t.Node != nil {
			name = t.Node.Name
		}
		nodeReason, nodeFailed = ReasonNodeDeleted, []string{fmt.Sprintf("Node %s has been deleted", name)}
	case t.Node == nil:
		if cfg.NodeStartupTimeout == 0 {
			break
		}
		from := t.Created
		if cl != nil && cl.ControlPlaneInitialized.After(from) {
			from = cl.ControlPlaneInitialized
		}
		if cl != nil && cl.InfrastructureReady.After(from) {
			from = cl.InfrastructureReady
		}
		if t.InfrastructureReady.After(from) {
			from = t.InfrastructureReady
		}
		if deadline := from.Add(cfg.NodeStartupTimeout); deadline.Before(now) {
			nodeReason, nodeFailed = ReasonNodeStartupTimeout, []string{fmt.Sprintf("Node failed to report startup in %s", cfg.NodeStartupTimeout)}
		} else {
			wait(deadline.Add(time.Second))
		}
	default:
		for _, c := range cfg.UnhealthyNodeConditions {
			if m, ok := unhealthyFor(now, c, t.Node.Conditions, "Node", wait); ok {
				nodeFailed = append(nodeFailed, m)
			}
		}
		if len(nodeFailed) > 0 {
			nodeReason = ReasonUnhealthyNode
		}
	}
	if len(nodeFailed) > 0 {
		soon = time.Time{}
	}
	if reason == "" {
		reason = nodeReason
	}
	failed = append(failed, nodeFailed...)
	if len(failed) > 0 {
		v.Health, v.Reason = Unhealthy, reason
		v.Message = "Health check failed:\n  * " + strings.Join(failed, "\n  * ")
		return v
	}
	if soon.IsZero() || (!machineSoon.IsZero() && machineSoon.Before(soon)) {
		soon = machineSoon
	}
	switch {
	case !soon.IsZero():
		v.Health, v.Next = Pending, soon
		v.Reason, v.Message = ReasonConditionTimeout, "an unhealthy condition holds and its timeout has not run out"
		if t.Node == nil {
			v.Reason, v.Message = ReasonWaitingForNode, "no node yet; the startup timeout has not run out"
		}
	case t.Node == nil:
		v.Health, v.Reason, v.Message = NotCounted, ReasonNoNode, "no node yet, and no startup timeout"
	case t.Deleting:
		v.Health, v.Reason, v.Message = NotCounted, ReasonDeleting, "the target is being deleted"
	case cfg.HoldWhileRemediating && len(t.Remediations) > 0:
		v.Health, v.Reason, v.Message = NotCounted, ReasonRemediationInPlace, "the checks pass, the remediation is still in place"
	default:
		v.Health, v.Reason = Healthy, ReasonSucceeded
	}
	return v
}

// unhealthyFor checks one condition: held for more than its timeout it
// returns the failure's sentence; held for less, it reports one second
// after the timeout runs out to wait.
func unhealthyFor(now time.Time, c UnhealthyCondition, cs []conditions.Condition, kind string, wait func(time.Time)) (string, bool) {
	i := slices.IndexFunc(cs, func(x conditions.Condition) bool { return x.Type == c.Type })
	if i < 0 || cs[i].Status != c.Status {
		return "", false
	}
	deadline := cs[i].LastTransitionTime.Add(c.Timeout)
	if deadline.Before(now) {
		return fmt.Sprintf("Condition %s on %s is reporting status %s with reason %s for more than %s",
			c.Type, kind, c.Status, cs[i].Reason, c.Timeout), true
	}
	wait(deadline.Add(time.Second))
	return "", false
}

// gate is the maxUnhealthy / minHealthy / unhealthyRange decision.
func gate(cfg Config, total, healthy int) (bool, int, string) {
	unhealthy := total - healthy
	switch {
	case cfg.UnhealthyRange != "":
		lo, hi, _ := parseRange(cfg.UnhealthyRange)
		if unhealthy < lo || unhealthy > hi {
			return false, 0, fmt.Sprintf("remediation is not allowed: %d of %d targets are not healthy, outside the range %s", unhealthy, total, cfg.UnhealthyRange)
		}
		return true, hi - unhealthy, ""
	case cfg.MinHealthy != nil:
		min := scaled(*cfg.MinHealthy, total, true)
		if healthy < min {
			return false, 0, fmt.Sprintf("remediation is not allowed: %d of %d targets are healthy, fewer than minHealthy %s (%d)", healthy, total, cfg.MinHealthy.String(), min)
		}
		return true, healthy - min, ""
	case cfg.MaxUnhealthy != nil:
		max := scaled(*cfg.MaxUnhealthy, total, cfg.Rounding == RoundUp)
		if cfg.Rounding == RoundUp && max > total {
			return false, 0, fmt.Sprintf("remediation is not allowed: maxUnhealthy %s is more than the %d targets", cfg.MaxUnhealthy.String(), total)
		}
		if unhealthy > max {
			return false, 0, fmt.Sprintf("remediation is not allowed: %d of %d targets are not healthy, more than maxUnhealthy %s (%d)", unhealthy, total, cfg.MaxUnhealthy.String(), max)
		}
		return true, max - unhealthy, ""
	}
	return true, healthy, ""
}

// stormStep is medik8s' storm recovery: it returns whether the storm (or
// its cooldown) blocks remediation, and when to look again.
func stormStep(now time.Time, cooldown time.Duration, triggered bool, st *State, acts *[]Action) (bool, time.Time) {
	if triggered {
		st.CooldownStarted = time.Time{}
		if !st.StormActive {
			st.StormActive = true
			*acts = append(*acts, Action{Kind: ActionStormStarted, Reason: "HealthyNodeThresholdChange",
				Message: "storm recovery started: no new remediation until the storm is over and its cooldown has run"})
		}
		return true, time.Time{}
	}
	if !st.StormActive {
		return false, time.Time{}
	}
	if st.CooldownStarted.IsZero() {
		st.CooldownStarted = now
		*acts = append(*acts, Action{Kind: ActionCooldownStarted, Reason: "HealthyNodeThresholdChange",
			Message: fmt.Sprintf("the storm is over; remediation resumes after a cooldown of %s", cooldown)})
		return true, now.Add(cooldown + time.Second)
	}
	if end := st.CooldownStarted.Add(cooldown); now.Before(end) {
		return true, end.Add(time.Second)
	}
	*st = State{}
	*acts = append(*acts, Action{Kind: ActionStormEnded, Reason: "HealthyNodeThresholdChange",
		Message: "storm recovery ended after its cooldown; remediation resumes"})
	return false, time.Time{}
}

// escalate starts, waits on or times out t's current remediation.
func escalate(now time.Time, steps []EscalatingRemediation, t *Target, v *Verdict, acts *[]Action) time.Time {
	for _, s := range steps {
		ri := slices.IndexFunc(t.Remediations, func(r Remediation) bool { return r.Template == s.Template })
		if ri >= 0 && !t.Remediations[ri].TimedOut.IsZero() {
			continue
		}
		if ri < 0 {
			*acts = append(*acts, Action{Kind: ActionRemediate, Target: t.Name, Template: s.Template, Reason: v.Reason, Message: v.Message})
			if s.Timeout > 0 {
				return now.Add(s.Timeout + time.Second)
			}
			return time.Time{}
		}
		v.Hold = HoldRemediating
		if s.Timeout == 0 {
			v.HoldMessage = fmt.Sprintf("remediation %q is under way", s.Template)
			return time.Time{}
		}
		r := t.Remediations[ri]
		at := r.Started.Add(s.Timeout)
		if !now.After(at) && !r.Failed {
			v.HoldMessage = fmt.Sprintf("remediation %q is under way until %s", s.Template, at.UTC().Format(time.RFC3339))
			return at
		}
		why := "timed out"
		if r.Failed && !now.After(at) {
			why = "failed"
		}
		v.Hold, v.HoldMessage = "", ""
		*acts = append(*acts, Action{Kind: ActionTimeOut, Target: t.Name, Template: s.Template, Reason: "Remediation" + strings.ToUpper(why[:1]) + why[1:],
			Message: fmt.Sprintf("remediation %q %s after %s; the next one starts", s.Template, why, now.Sub(r.Started))})
		return now.Add(time.Second)
	}
	v.Hold, v.HoldMessage = HoldNoRemediationLeft, "every remediation timed out; none is left to try"
	return time.Time{}
}

// endRemediation ends t's remediation, its checks passing, after
// HealthyDelay.
func endRemediation(now time.Time, cfg Config, t *Target, v *Verdict, acts *[]Action) time.Time {
	end := func(why string) time.Time {
		*acts = append(*acts, Action{Kind: ActionEndRemediation, Target: t.Name, Reason: "Healthy", Message: why})
		return time.Time{}
	}
	confirmed := false
	if t.Node != nil {
		_, confirmed = t.Node.Annotations[AnnotationManuallyConfirmedHealthy]
	}
	switch {
	case cfg.HealthyDelay == 0:
		return end("the checks pass again; the remediation ends")
	case confirmed:
		return end("the node is manually confirmed healthy; the remediation ends")
	case cfg.HealthyDelay < 0:
		v.Hold, v.HoldMessage = HoldManualConfirm, "the checks pass again; the remediation ends when the node carries "+AnnotationManuallyConfirmedHealthy
		return time.Time{}
	case t.HealthyDelayStarted.IsZero():
		*acts = append(*acts, Action{Kind: ActionStartHealthyDelay, Target: t.Name, Reason: "HealthyDelay",
			Message: fmt.Sprintf("the checks pass again; the remediation ends in %s unless they fail", cfg.HealthyDelay)})
		v.Hold, v.HoldMessage = HoldHealthyDelay, fmt.Sprintf("healthy delay of %s started", cfg.HealthyDelay)
		return now.Add(cfg.HealthyDelay + time.Second)
	}
	if until := t.HealthyDelayStarted.Add(cfg.HealthyDelay); now.Before(until) {
		v.Hold, v.HoldMessage = HoldHealthyDelay, "healthy delay until "+until.UTC().Format(time.RFC3339)
		return until.Add(time.Second)
	}
	return end("the checks passed for the healthy delay; the remediation ends")
}
