package remediation

import (
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
)

// Well-known keys the planner reads.
const (
	// AnnotationPaused is Cluster API's cluster.x-k8s.io/paused: a Machine
	// carrying it is not a target at all (not counted, not remediated).
	AnnotationPaused = "cluster.x-k8s.io/paused"
	// AnnotationSkipRemediation is Cluster API's
	// cluster.x-k8s.io/skip-remediation, read as AnnotationPaused.
	AnnotationSkipRemediation = "cluster.x-k8s.io/skip-remediation"
	// AnnotationRemediateMachine is Cluster API's
	// cluster.x-k8s.io/remediate-machine: a Machine carrying it (any value)
	// is unhealthy at once, whatever its conditions.
	AnnotationRemediateMachine = "cluster.x-k8s.io/remediate-machine"
	// LabelExcludeFromRemediation is medik8s' node label
	// remediation.medik8s.io/exclude-from-remediation: with the value
	// "true" the node is checked and counted but never remediated.
	LabelExcludeFromRemediation = "remediation.medik8s.io/exclude-from-remediation"
	// AnnotationManuallyConfirmedHealthy is medik8s' node annotation
	// remediation.medik8s.io/manually-confirmed-healthy: it ends a
	// remediation that HealthyDelay would hold.
	AnnotationManuallyConfirmedHealthy = "remediation.medik8s.io/manually-confirmed-healthy"
)

// Cluster API's defaults (sigs.k8s.io/cluster-api api/core/v1beta2).
const (
	// DefaultNodeStartupTimeout is Cluster API's
	// DefaultNodeStartupTimeoutSeconds (600).
	DefaultNodeStartupTimeout = 10 * time.Minute
	// MinNodeStartupTimeout is the smallest non-zero NodeStartupTimeout
	// Cluster API's webhook accepts (30 s).
	MinNodeStartupTimeout = 30 * time.Second
	// MinEscalationTimeout is the smallest Timeout medik8s' webhook accepts
	// for an escalating remediation (one minute, so that two remediations
	// never run at once).
	MinEscalationTimeout = time.Minute
	// ControlPlaneRetry is how long medik8s waits before trying again to
	// remediate a control-plane node while another one is being remediated.
	ControlPlaneRetry = time.Minute
)

// UnhealthyCondition is one check: a condition of Type holding Status for
// more than Timeout, counted from its LastTransitionTime, makes the target
// unhealthy. Cluster API's UnhealthyNodeCondition and
// UnhealthyMachineCondition (TimeoutSeconds) and medik8s'
// UnhealthyCondition (Duration) are this.
type UnhealthyCondition struct {
	Type    conditions.Type
	Status  conditions.Status
	Timeout time.Duration
}

// EscalatingRemediation is one remediation of the escalation: medik8s'
// EscalatingRemediation. Remediations run in Order (lowest first); each
// one has Timeout to make the target healthy before the next one is
// tried. A single remediation may have no Timeout (medik8s'
// RemediationTemplate, or Cluster API's owner remediation): it runs until
// the target is healthy.
type EscalatingRemediation struct {
	// Template names the remediation (the template of the remediation
	// object to create); it is what actions and Remediation records carry.
	Template string
	// Order ranks the remediations, lowest first; orders are unique.
	Order int
	// Timeout is how long the remediation may take; 0 only for a single
	// remediation, otherwise at least MinEscalationTimeout.
	Timeout time.Duration
}

// Rounding says how a percentage of MaxUnhealthy becomes a count.
type Rounding int

const (
	// RoundDown truncates: Cluster API (40% of 7 machines is 2).
	RoundDown Rounding = iota
	// RoundUp takes the ceiling: medik8s (40% of 7 nodes is 3).
	RoundUp
)

// String returns the rounding's name.
func (r Rounding) String() string {
	switch r {
	case RoundDown:
		return "RoundDown"
	case RoundUp:
		return "RoundUp"
	}
	return "Rounding(" + itoa(int(r)) + ")"
}

// Config is one health check: Cluster API's MachineHealthCheck spec or
// medik8s' NodeHealthCheck spec, by field. Its zero value checks nothing,
// holds no gate (every unhealthy target may be remediated) and remediates
// with one unnamed remediation without a timeout.
type Config struct {
	// UnhealthyNodeConditions are the node's checks, any one of which
	// makes the target unhealthy (spec.checks.unhealthyNodeConditions;
	// medik8s' spec.unhealthyConditions).
	UnhealthyNodeConditions []UnhealthyCondition
	// UnhealthyMachineConditions are checks of the target's own
	// conditions (Target.Conditions; Cluster API's Machine conditions,
	// spec.checks.unhealthyMachineConditions). They are checked first.
	UnhealthyMachineConditions []UnhealthyCondition
	// NodeStartupTimeout is how long a target may go without a node
	// (spec.checks.nodeStartupTimeoutSeconds); 0 disables the check.
	// Cluster API's default is DefaultNodeStartupTimeout.
	NodeStartupTimeout time.Duration

	// MaxUnhealthy lets remediation start only while at most this many
	// targets (a count, or a percentage "40%" of the targets) are not
	// healthy: Cluster API's spec.remediation.triggerIf.
	// unhealthyLessThanOrEqualTo (v1beta1 maxUnhealthy; nil there means
	// 100%), medik8s' spec.maxUnhealthy. Rounding says how a percentage
	// rounds.
	MaxUnhealthy *intstr.IntOrString
	// MinHealthy lets remediation start only while at least this many
	// targets (a count, or a percentage rounded up) are healthy: medik8s'
	// spec.minHealthy.
	MinHealthy *intstr.IntOrString
	// UnhealthyRange lets remediation start only while the number of
	// targets not healthy is within "[min-max]": Cluster API's
	// spec.remediation.triggerIf.unhealthyInRange.
	UnhealthyRange string
	// Rounding applies to a percentage of MaxUnhealthy.
	Rounding Rounding

	// StormCooldownDuration, when positive, turns on medik8s' storm
	// recovery: once the gate has closed (a storm), remediation stays off
	// after it opens again, for this long.
	StormCooldownDuration time.Duration

	// EscalatingRemediations are the remediations in their order; empty
	// means one unnamed remediation without a timeout.
	EscalatingRemediations []EscalatingRemediation

	// PauseRequests, when any is given, stop every new remediation and
	// every end of one (medik8s' spec.pauseRequests); the checks are still
	// reported.
	PauseRequests []string

	// HealthyDelay is medik8s' spec.healthyDelay: how long a remediated
	// target whose checks pass again stays under remediation before the
	// remediation ends; negative: until the node carries
	// AnnotationManuallyConfirmedHealthy. 0 ends it at once.
	HealthyDelay time.Duration

	// ExcludeLabel is a node label key that, with the value "true",
	// excludes the node from remediation (checked and counted, never
	// remediated): medik8s' LabelExcludeFromRemediation. "" reads no label.
	ExcludeLabel string

	// HoldWhileRemediating counts a target whose remediation is still in
	// place (Target.Remediations not empty) as not healthy even when its
	// checks pass: medik8s, where the node is healthy only once its
	// remediation objects are gone. Off (Cluster API), such a target is
	// healthy as soon as its checks pass. Either way a remediation is not
	// ended while a check's timeout is running (Pending).
	HoldWhileRemediating bool
}

// MachineHealthCheck returns Cluster API's MachineHealthCheck as created
// with no checks given: the default node startup timeout, maxUnhealthy
// 100%, rounding down, one remediation (the Machine's owner) without a
// timeout. Add the checks.
func MachineHealthCheck() Config {
	all := intstr.FromString("100%")
	return Config{NodeStartupTimeout: DefaultNodeStartupTimeout, MaxUnhealthy: &all, Rounding: RoundDown}
}

// NodeHealthCheck returns medik8s' NodeHealthCheck with its CRD's
// defaults: Ready False or Unknown for 300 s, percentages rounded up, a
// node held until its remediation objects are gone, the exclusion label
// honoured. medik8s requires one of MinHealthy and MaxUnhealthy and has no
// default for either: set one, and the remediations.
func NodeHealthCheck() Config {
	return Config{
		UnhealthyNodeConditions: []UnhealthyCondition{
			{Type: conditions.Ready, Status: conditions.False, Timeout: 300 * time.Second},
			{Type: conditions.Ready, Status: conditions.Unknown, Timeout: 300 * time.Second},
		},
		Rounding:             RoundUp,
		ExcludeLabel:         LabelExcludeFromRemediation,
		HoldWhileRemediating: true,
	}
}

// Remediation is one remediation started on a target, as the caller
// recorded it from the plans (medik8s' status.unhealthyNodes[].
// remediations).
type Remediation struct {
	// Template is the EscalatingRemediation's Template.
	Template string
	// Started is when the plan asked for it (ActionRemediate).
	Started time.Time
	// TimedOut is when a plan timed it out (ActionTimeOut); zero while it
	// has not.
	TimedOut time.Time
	// Failed says the remediation reported failure (its Succeeded
	// condition False): it is timed out at once.
	Failed bool
}

// Target is one machine or node the check watches. For medik8s a target is
// a node; leave the machine fields empty.
type Target struct {
	// Name is the caller's identity for the target (the Machine's or the
	// node's name); actions carry it.
	Name string
	// Node is the target's node; nil while it has none.
	Node *core.Node
	// NodeName is the node the target refers to (a Machine's
	// status.nodeRef.name) when Node is nil.
	NodeName string
	// NodeMissing says the target referred to a node that no longer
	// exists: unhealthy at once (Cluster API's NodeDeleted).
	NodeMissing bool
	// Created is the target's creation time (metadata.creationTimestamp),
	// from which NodeStartupTimeout runs.
	Created time.Time
	// InfrastructureReady is when the Machine's InfrastructureReady
	// condition turned True; zero when it has not. The startup timeout
	// runs from the latest of Created, this and the Cluster's times.
	InfrastructureReady time.Time
	// ControlPlane marks a control-plane target: Cluster API checks it
	// before the control plane is initialized; medik8s remediates one
	// control-plane node at a time.
	ControlPlane bool
	// Deleting says the target is being deleted: not counted healthy.
	Deleting bool
	// Annotations are the Machine's annotations (AnnotationPaused,
	// AnnotationSkipRemediation, AnnotationRemediateMachine).
	Annotations map[string]string
	// Conditions are the Machine's conditions, for
	// UnhealthyMachineConditions (the first of a type counts).
	Conditions []conditions.Condition
	// Remediations are the remediations started on the target and not yet
	// ended, in the order started.
	Remediations []Remediation
	// HealthyDelayStarted is when a plan started the target's
	// HealthyDelay (ActionStartHealthyDelay); zero when none has.
	HealthyDelayStarted time.Time
}

// Cluster is the state of the Cluster API cluster the machines belong to.
// Until its infrastructure is ready no target is checked; until its
// control plane is initialized only control-plane targets are.
type Cluster struct {
	// InfrastructureReady is when the cluster's InfrastructureReady
	// condition turned True; zero when it is not True.
	InfrastructureReady time.Time
	// ControlPlaneInitialized is when the ControlPlaneInitialized
	// condition turned True; zero when it is not True.
	ControlPlaneInitialized time.Time
}

// State is what the check keeps between plans: medik8s' StormActive and
// StormCooldownActive conditions.
type State struct {
	// StormActive says a storm began and has not ended with its cooldown.
	StormActive bool
	// CooldownStarted is when the storm's cooldown began; zero when none.
	CooldownStarted time.Time
}

// Input is everything one plan reads.
type Input struct {
	// Targets are the targets the check selects, in the caller's order.
	Targets []Target
	// Cluster is the Cluster API cluster; nil for none (medik8s).
	Cluster *Cluster
	// State is the previous plan's State.
	State State
}
