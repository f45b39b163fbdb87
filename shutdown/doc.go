// Package shutdown holds the kubelet's graceful node shutdown and the
// control plane's non-graceful (out-of-service) shutdown decisions, as pure
// planners and a synchronous state machine:
//
//   - configuration: Config (shutdownGracePeriod,
//     shutdownGracePeriodCriticalPods, shutdownGracePeriodByPodPriority),
//     Validate with upstream's rules, Warnings for what upstream lets
//     through, MigrateConfig from the two-phase form to phases;
//   - planning: Config.Plan divides pods into phases by priority, with
//     each pod's grace period and each phase's worst-case window, and the
//     inhibitor delay the node needs (RequiredInhibitDelay);
//   - running: Manager turns shutdown events, pod terminations and clock
//     ticks into kills, pod statuses, node events, admission verdicts and
//     inhibitor lock actions;
//   - the host: DecideInhibitDelay and CheckInhibitDelay for
//     systemd-logind's InhibitDelayMaxSec, AddToPreshutdownOrder for
//     Windows;
//   - non-graceful shutdown: OutOfServiceConfig.Plan picks the pods the pod
//     GC force deletes from an out-of-service node and the volumes the
//     attach-detach controller detaches.
//
// Nothing here reads the clock, sleeps, talks to D-Bus or starts
// goroutines: the caller holds the inhibitor lock, kills pods, writes
// statuses and calls back with what happened and when.
//
// # Usage
//
// A custom kubelet, at start-up:
//
//	m, err := shutdown.NewManager(cfg)
//	if m.Enabled() {
//		d := shutdown.DecideInhibitDelay(logindInhibitDelayMax(), m.InhibitDelay())
//		if d.Override {
//			// write d.DropIn to d.Path, SIGHUP systemd-logind, re-read after
//			// each of shutdown.InhibitRecheckDelays(), then:
//			err = shutdown.CheckInhibitDelay(reread(), d.Required)
//		}
//		// take the delay inhibitor lock (InhibitWhat, InhibitWho, InhibitWhy, InhibitMode)
//	}
//
// then on every PrepareForShutdown signal, pod termination and timer:
//
//	step := m.Start(now, activePods) // or m.Cancel(now), m.PodTerminated(now, key), m.Step(now)
//	// record step.Events; sync node status if step.ReadyChanged (pass
//	// m.ShutdownStatus() to the Ready condition); for each k in step.Kills
//	// write k.Status and kill k.Pod with k.GracePeriodSeconds, reporting
//	// m.PodTerminated when its containers are gone and volumes unmounted;
//	// release or acquire the inhibitor lock; arm a timer for step.Next
//
// and in pod admission, m.Admit(pod).
//
// A controller handling out-of-service nodes, every pod GC period (20s):
//
//	plan := shutdown.OutOfServiceConfig{}.Plan(now, node, podsOnNode, attached)
//	// patch f.Pod's phase to Failed if f.SetFailed, then delete it with
//	// grace 0, for each f in plan.ForceDelete; detach plan.Volumes marked
//	// VolumeDetachNow
//
// # Semantics
//
// Phases. The priority list, or else the two-phase form migrated to
// [{0, total-critical}, {2000000000, critical}] (off when total is 0 or
// critical exceeds total), sorted by ascending priority: the lowest runs
// first. A pod belongs to the phase with the largest priority not above
// spec.priority (nil counts as 0), or to the first phase when it is below
// them all. Its grace period is the smaller of its
// terminationGracePeriodSeconds and the phase's period.
//
// Running. A phase kills its pods together and ends when every one of them
// has terminated or its period has run out, whichever comes first; the
// next phase with pods starts at once, and phases without pods take no
// time. Pods killed are written phase Failed (Succeeded stays Succeeded),
// reason Terminated, message "Pod was terminated in response to imminent
// node shutdown." and condition DisruptionTarget / TerminationByKubelet.
// From the shutdown event until a cancellation the node's Ready condition
// is False ("node is shutting down") and new pods are rejected with reason
// NodeShutdown. After the last phase the inhibitor lock is released. A
// cancellation returns the node to Ready and takes the lock again; killed
// pods stay Failed. Upstream handles events one at a time and a shutdown
// blocks its loop, so a cancellation during the phases waits for their end.
//
// Inhibitor delay. logind caps how long a delay lock may hold up a shutdown
// (InhibitDelayMaxSec, 5s by default). The kubelet needs the sum of every
// phase's period, empty phases included; when logind allows less it writes
// a drop-in and re-reads the value, and fails to start graceful shutdown if
// another drop-in still wins.
//
// Out of service. Only the taint's key counts, with any value and effect.
// The pod GC force deletes terminating pods (deletionTimestamp set) of a
// node that is not Ready and has the taint, evicted pods first, then the
// oldest, then by name, patching phase Failed first for pods neither
// Succeeded nor Failed. A volume no pod needs any more is detached at once
// when the node has the taint or has unmounted it; otherwise, on an
// unhealthy node, after 6 minutes.
//
// # Options
//
// Each option below keeps the upstream default and changes one behaviour:
//
//   - Config.ResolvePriorityClass (with PriorityClasses): static pods'
//     nil priority read from their priorityClassName (kubernetes#113940);
//   - Config.OmitDisruptionCondition: no DisruptionTarget condition, as
//     kubelets before PodDisruptionConditions;
//   - Config.CancelImmediately: a cancellation stops the phases at once;
//   - Config.Strict: Warnings become Validate errors;
//   - OutOfServiceConfig.SkipTolerating: spare pods that tolerate the
//     out-of-service taint, as the documentation words it;
//   - OutOfServiceConfig.DisableForceDetachOnTimeout:
//     --disable-force-detach-on-timeout.
package shutdown
