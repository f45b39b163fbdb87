// Package pressure is the kubelet's node-pressure eviction
// (pkg/kubelet/eviction) as a pure pipeline: the eviction signals, the
// threshold grammar of --eviction-hard and friends with its defaults,
// observations from node stats, the grace-period and transition-period
// bookkeeping, node-level reclaim, pod ranking, the eviction status and
// message, and admission under pressure.
//
// Nothing here reads the clock, the stats summary or the API server: the
// caller passes observations, the active pods (the library's one pod type,
// core.Pod), their readings by UID (Stats) and the time, and carries out
// the returned decision.
//
// # Usage
//
// Parse the settings once, then step the manager every MonitoringPeriod:
//
//	ths, err := pressure.DefaultSettings("linux").Parse() // or Settings{...}.Parse()
//	cfg := pressure.DefaultConfig()
//	cfg.Thresholds, cfg.Layout = ths, pressure.LayoutImageFs
//	m, err := pressure.NewManager(cfg)
//	for {
//		res := m.Step(now, cfg.Observe(nodeStats), activePods, podStats)
//		// report res.Conditions on the node (MemoryPressure, ...)
//		switch d := res.Decision; d.Kind {
//		case pressure.DecideReclaim:
//			// run d.Reclaim (container GC, image GC), observe again
//			if !m.Reclaimed(cfg.Observe(freshStats)) && d.Evict != nil {
//				// kill d.Evict.Pod with d.Evict.GracePeriodSeconds, write d.Evict.Status
//			}
//		case pressure.DecideEvict:
//			// kill d.Evict.Pod, write d.Evict.Status, record d.Evict.Event
//		case pressure.DecideLocalStorage:
//			// kill each of d.LocalStorage
//		}
//		// sleep until res.Next (or until the evicted pod is gone)
//	}
//
// and admit new pods with m.Admit(pod). Rank, PlanEvictions and Met answer
// what-if questions without a manager.
//
// # Semantics
//
// Thresholds. A threshold is met when its quantity (a quantity, or a
// percentage of capacity truncated to an integer) is strictly greater than
// what is available. Hard thresholds (grace 0) act at once; soft ones
// once they have been met at every step for their grace period, and one
// step without them met restarts the period. A threshold acted on stays
// met until its minimum reclaim is freed as well.
//
// Conditions. A pressure condition (MemoryPressure for the memory
// signals, DiskPressure for the filesystem ones, PIDPressure) is reported
// from the first step one of its thresholds is met (grace periods
// ignored) until PressureTransitionPeriod (5m) after the last such step.
//
// Acting. Each step acts on one threshold: memory first, then pid, then
// nodefs, imagefs, containerfs (upstream only fixes memory first); hard
// before soft. It names the node-level reclaim for that signal and layout
// (ReclaimFor) and the first non-critical pod in the ranking (Rank), with
// grace 1 s for a hard threshold and MaxPodGracePeriodSeconds for a soft
// one. One pod per step, as upstream.
//
// Ranking. Memory: usage above request first, then lower priority, then
// usage minus request. Disk: the same over the filesystem parts the
// signal counts (DiskParts). PIDs: lower priority, then more processes.
// Pods without stats first; critical pods (static, mirror, priority >=
// 2000000000) are ranked but never evicted; a name/namespace/UID
// tie-break makes the order total.
//
// Admission. With MemoryPressure alone, only BestEffort pods without the
// memory-pressure toleration are rejected; with any other condition, all
// non-critical pods are.
//
// # Options
//
// Upstream behaviour is the default. The changes it never made are
// explicit: Config.SoftGracePodAware (a soft eviction gives
// min(max, pod's own) grace and a negative maximum defers to the pod,
// kubernetes#118172), RankOptions.InodeExcessIgnoresByteRequest, and the
// strict-validation warnings of LintSettings and Manager.Warnings, which
// flag the quirks (a "0s" soft grace making a threshold hard, "0.0%",
// orphan grace periods, overwritten containerfs thresholds, a negative
// maximum grace, a zero transition period) without changing anything.
// Config.DisableSeparateDiskGC reproduces a kubelet with
// KubeletSeparateDiskGC off.
//
// Where upstream iterates maps (the parse order, the order of actionable
// thresholds and of conditions) this package uses a fixed order, and it
// refuses a "NaN%" percentage, which upstream accepts.
package pressure
