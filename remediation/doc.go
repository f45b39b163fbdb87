// Package remediation plans node health checks and their remediation, as
// Cluster API's MachineHealthCheck (sigs.k8s.io/cluster-api,
// core/reconcilers/machinehealthcheck) and medik8s' NodeHealthCheck
// (github.com/medik8s/node-healthcheck-operator) decide them: which
// machines or nodes are unhealthy, whether enough of the group is healthy
// to remediate any, which remediation to start, time out or end, and when
// to look again. The package decides; the caller reads the targets, writes
// the actions (remediation objects, Machine conditions) and keeps the
// state the plans ask it to record.
//
// # Usage
//
//	cfg := remediation.NodeHealthCheck()                 // Ready False/Unknown for 300 s
//	min := intstr.FromString("51%")
//	cfg.MinHealthy = &min
//	cfg.EscalatingRemediations = []remediation.EscalatingRemediation{
//		{Template: "reboot", Order: 1, Timeout: 5 * time.Minute},
//		{Template: "reprovision", Order: 2, Timeout: 30 * time.Minute}}
//	p, err := remediation.Check(now, cfg, remediation.Input{Targets: targets, State: state})
//	for _, a := range p.Actions { ... }    // create, time out or delete remediations
//	state = p.State                         // and record each target's Remediations
//	// run again at p.Next, or when a target changes
//
// MachineHealthCheck returns Cluster API's defaults instead (a node startup
// timeout of 10 min, maxUnhealthy 100% rounded down, one remediation, the
// Machine's owner). Check is the whole reconcile; Config.Validate is the
// webhooks' checks.
//
// # Semantics
//
// A target is a Machine with its node (Cluster API) or a node (medik8s).
// Its verdict, in Cluster API's order:
//
//   - AnnotationPaused or AnnotationSkipRemediation on the target: Skipped,
//     not a target at all (not counted).
//   - AnnotationRemediateMachine: Unhealthy at once.
//   - With a Cluster: NotCounted until its infrastructure is ready, and,
//     except control-plane targets, until its control plane is initialized.
//   - Each of UnhealthyMachineConditions (over Target.Conditions), then the
//     node: a node that was seen and is gone is Unhealthy (NodeDeleted); no
//     node yet is Unhealthy once NodeStartupTimeout has run from the latest
//     of the target's creation, its infrastructure's readiness and the
//     cluster's two times (and Pending before; NotCounted when the timeout
//     is 0); otherwise each of UnhealthyNodeConditions. A check fails when
//     the condition (the first of its type) has held its status for more
//     than the timeout, counted from its LastTransitionTime: strictly more,
//     so a check of 300 s fails at 300 s and one nanosecond, and a target
//     whose check has not yet failed is Pending with Next one second after
//     the timeout (the reconcilers requeue so). An Unhealthy verdict names
//     every failed check in its Message, as Cluster API's condition does.
//   - Otherwise the target is Healthy, unless it is being deleted or (with
//     HoldWhileRemediating, medik8s) a remediation of it is still in place:
//     then NotCounted.
//
// Total counts the targets not Skipped; Healthy the Healthy ones. The gate
// is one of: MaxUnhealthy (Total-Healthy at most the count, a percentage of
// Total rounded down for Cluster API, up for medik8s, which also refuses a
// count above Total), MinHealthy (Healthy at least the count, percentages
// rounded up) or UnhealthyRange (Total-Healthy within "[min-max]"); none
// lets every remediation start. A target whose timeout is running and one
// without a node count against the gate, as both reconcilers count them.
//
// PauseRequests stop every action (medik8s returns before any). Otherwise a
// target whose checks pass and that still has Remediations ends them
// (ActionEndRemediation): at once, after HealthyDelay from its
// ActionStartHealthyDelay, or, with a negative HealthyDelay, only once its
// node carries AnnotationManuallyConfirmedHealthy. Then, when some target
// is Unhealthy: with StormCooldownDuration set, a closed gate starts a
// storm (ActionStormStarted), the gate's opening again starts the cooldown
// (ActionCooldownStarted) and remediation resumes once the cooldown has
// run (ActionStormEnded, in the same plan); as medik8s does, the storm is
// looked at only while some target is Unhealthy, so a storm whose targets
// all recover stays active until the next unhealthy one. Each Unhealthy
// target, in order, is held when the gate is closed, the storm holds, its
// node has ExcludeLabel "true", or it is a control-plane target while
// another is under remediation (one at a time, tried again a minute later);
// otherwise its current remediation, the first in Order not timed out, is
// started (ActionRemediate), waited on until Started+Timeout, or timed out
// strictly after it, or at once when it reports failure (ActionTimeOut; the
// next one starts at the next plan, a second later, as medik8s requeues).
// With none left the target is held (NoRemediationLeft). The gate limits
// whether remediation starts, not how many start in one plan: both
// reconcilers start every allowed target's.
//
// Plan.Next is the earliest instant a verdict or hold changes on its own.
// Cluster API does not requeue while its gate is closed (it waits for a
// Machine or node to change); running Check at Next anyway is harmless.
// A now earlier than a time the input records (a remediation's start, a
// delay's, the cooldown's) is clamped to it; Plan.Now is the instant used.
//
// Left out: medik8s' etcd-quorum check for OpenShift control-plane nodes,
// its cluster-upgrade postponement, remediation objects of nodes no longer
// selected, and Cluster API's external remediation templates (the Template
// names what to create).
package remediation
