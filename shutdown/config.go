package shutdown

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nodelife/nodelife/core"
)

// Priority values that upstream's two-phase migration and the system
// priority classes use (k8s.io/api/scheduling/v1 and pkg/apis/scheduling).
const (
	// DefaultPriority is the priority of a pod whose spec.priority is nil
	// (DefaultPriorityWhenNoDefaultClassExists).
	DefaultPriority int32 = 0
	// HighestUserDefinablePriority is the largest value a user-created
	// PriorityClass may have.
	HighestUserDefinablePriority int32 = 1000000000
	// SystemNodeCriticalPriority is the value of system-node-critical.
	SystemNodeCriticalPriority int32 = 2000001000
)

// Names of the system priority classes, whose values
// Config.ResolvePriorityClass knows without a lookup.
const (
	SystemClusterCritical = "system-cluster-critical"
	SystemNodeCritical    = "system-node-critical"
)

// PhaseConfig is one entry of the kubelet's shutdownGracePeriodByPodPriority:
// pods whose priority is at least Priority, and below the next entry's,
// get ShutdownGracePeriodSeconds to stop.
//
// The zero value is a phase for priority 0 and above with no
// grace period.
type PhaseConfig struct {
	// Priority is the lower bound, inclusive, of the phase's pod priorities.
	Priority int32
	// ShutdownGracePeriodSeconds is how long the phase may take.
	ShutdownGracePeriodSeconds int64
}

// Period returns the phase's seconds as a duration, saturating instead of
// overflowing for absurd values.
func (p PhaseConfig) Period() time.Duration { return seconds(p.ShutdownGracePeriodSeconds) }

// seconds converts s to a duration, saturating at the int64 limits.
func seconds(s int64) time.Duration {
	const max = int64(1<<63-1) / int64(time.Second)
	switch {
	case s > max:
		return time.Duration(1<<63 - 1)
	case s < -max:
		return time.Duration(-1 << 63)
	}
	return time.Duration(s) * time.Second
}

// Config is the kubelet's graceful node shutdown configuration
// (KubeletConfiguration shutdownGracePeriod, shutdownGracePeriodCriticalPods
// and shutdownGracePeriodByPodPriority, all unset by default, which leaves
// the feature off), plus this library's options. The zero value is the
// kubelet's default: graceful node shutdown off.
//
// Either the two-phase form (ShutdownGracePeriod and
// ShutdownGracePeriodCriticalPods) or the priority form
// (ShutdownGracePeriodByPodPriority) may be set, not both.
type Config struct {
	// ShutdownGracePeriod is the total time the node delays shutdown by in
	// the two-phase form; 0 (the default) turns the feature off. It must be
	// 0 or at least 1s.
	ShutdownGracePeriod time.Duration
	// ShutdownGracePeriodCriticalPods is the part of ShutdownGracePeriod
	// reserved for critical pods (priority >= 2000000000), which stop last.
	// It must be 0 or at least 1s, and at most ShutdownGracePeriod.
	ShutdownGracePeriodCriticalPods time.Duration
	// ShutdownGracePeriodByPodPriority lists the phases of the priority
	// form, in any order.
	ShutdownGracePeriodByPodPriority []PhaseConfig

	// ResolvePriorityClass, when true, gives a pod whose spec.priority is
	// nil the value of its priorityClassName: system-node-critical and
	// system-cluster-critical are known, other names are looked up in
	// PriorityClasses. Static pods never pass priority admission, so their
	// spec.priority is nil and upstream kills them in the first phase
	// however critical their class (kubernetes#113940, PR #133465 closed
	// unmerged). Off by default, as upstream.
	ResolvePriorityClass bool
	// PriorityClasses maps further class names to values for
	// ResolvePriorityClass.
	PriorityClasses map[string]int32
	// OmitDisruptionCondition, when true, leaves the DisruptionTarget
	// condition out of killed pods' statuses, as kubelets before the
	// PodDisruptionConditions feature (beta in 1.26, GA in 1.31) did.
	OmitDisruptionCondition bool
	// CancelImmediately, when true, lets a cancellation that arrives during
	// the phases stop them at once: pods of later phases are not killed.
	// Upstream runs the phases inside its event loop, so a cancellation is
	// seen only after the last phase; that is the default.
	CancelImmediately bool
	// Strict turns the problems Warnings reports (which upstream accepts)
	// into Validate errors.
	Strict bool
}

// Validate returns every problem with c, joined, each naming its field and
// value; nil if c is usable. It applies upstream's rules (kubelet config
// validation with GracefulNodeShutdown and
// GracefulNodeShutdownBasedOnPodPriority on, as they are by default):
//
//   - ShutdownGracePeriod and ShutdownGracePeriodCriticalPods are >= 0, and
//     the critical period is at most the total;
//   - each is either 0 or at least one second;
//   - the priority list and the two-phase fields are not both set.
//
// Upstream checks nothing inside the priority list; under Strict the
// problems Warnings finds there are errors too.
func (c Config) Validate() error {
	var errs []error
	total, critical := c.ShutdownGracePeriod, c.ShutdownGracePeriodCriticalPods
	if total < 0 {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("ShutdownGracePeriod %v must be >= 0", total)))
	}
	if critical < 0 {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("ShutdownGracePeriodCriticalPods %v must be >= 0", critical)))
	}
	if critical > total && critical >= 0 && total >= 0 {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("ShutdownGracePeriodCriticalPods %v must be <= ShutdownGracePeriod %v", critical, total)))
	}
	if total > 0 && total < time.Second {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("ShutdownGracePeriod %v must be either zero or otherwise >= 1 sec", total)))
	}
	if critical > 0 && critical < time.Second {
		errs = append(errs, wrap(ErrInvalidConfig, fmt.Sprintf("ShutdownGracePeriodCriticalPods %v must be either zero or otherwise >= 1 sec", critical)))
	}
	if len(c.ShutdownGracePeriodByPodPriority) > 0 && (total != 0 || critical != 0) {
		errs = append(errs, wrap(ErrInvalidConfig, "cannot specify both ShutdownGracePeriodByPodPriority and ShutdownGracePeriod (or ShutdownGracePeriodCriticalPods) at the same time"))
	}
	if c.Strict {
		for _, w := range c.warnings() {
			errs = append(errs, wrap(ErrInvalidConfig, w))
		}
	}
	return errors.Join(errs...)
}

// Warnings returns the problems upstream accepts silently but that are
// probably mistakes, each wrapping ErrSuspiciousConfig and naming the
// field by its index in ShutdownGracePeriodByPodPriority:
//
//   - a priority listed twice: which entry a pod joins then depends on
//     upstream's unstable sort;
//   - negative seconds: the phase ends at once and the pods get a negative
//     grace period;
//   - every phase 0 seconds: all pods are killed at once and shutdown is
//     not delayed at all;
//   - a pod priority value above SystemNodeCriticalPriority, which no
//     priority class can have.
func (c Config) Warnings() []error {
	var errs []error
	for _, w := range c.warnings() {
		errs = append(errs, wrap(ErrSuspiciousConfig, w))
	}
	return errs
}

// warnings returns the sentences of Warnings.
func (c Config) warnings() []string {
	var ws []string
	list := c.ShutdownGracePeriodByPodPriority
	first := make(map[int32]int, len(list))
	allZero := len(list) > 0
	for i, p := range list {
		if j, dup := first[p.Priority]; dup {
			ws = append(ws, fmt.Sprintf("ShutdownGracePeriodByPodPriority[%d].Priority %d duplicates entry [%d]", i, p.Priority, j))
		} else {
			first[p.Priority] = i
		}
		if p.ShutdownGracePeriodSeconds < 0 {
			ws = append(ws, fmt.Sprintf("ShutdownGracePeriodByPodPriority[%d].ShutdownGracePeriodSeconds %d is negative", i, p.ShutdownGracePeriodSeconds))
		}
		if p.ShutdownGracePeriodSeconds != 0 {
			allZero = false
		}
		if p.Priority > SystemNodeCriticalPriority {
			ws = append(ws, fmt.Sprintf("ShutdownGracePeriodByPodPriority[%d].Priority %d is above system-node-critical (%d); no pod can reach it", i, p.Priority, SystemNodeCriticalPriority))
		}
	}
	if allZero {
		ws = append(ws, fmt.Sprintf("ShutdownGracePeriodByPodPriority: all %d phases have 0 seconds; pods are killed at once and shutdown is not delayed", len(list)))
	}
	return ws
}

// MigrateConfig turns the two-phase form into phases as upstream's
// migrateConfig does: nil (feature off) when total is 0 or critical exceeds
// total, else [{0, total-critical}, {SystemCriticalPriority, critical}] in
// whole seconds, truncated. 30s/10s gives [{0, 20}, {2000000000, 10}].
func MigrateConfig(total, critical time.Duration) []PhaseConfig {
	if total == 0 || total-critical < 0 {
		return nil
	}
	return []PhaseConfig{
		{Priority: DefaultPriority, ShutdownGracePeriodSeconds: int64((total - critical) / time.Second)},
		{Priority: core.SystemCriticalPriority, ShutdownGracePeriodSeconds: int64(critical / time.Second)},
	}
}

// Phases returns the phases c describes, sorted by ascending priority (the
// order they run in): the priority list when it is non-empty, else the
// migrated two-phase form. Nil means graceful shutdown is off: the kubelet
// then admits every pod and takes no inhibitor lock. Entries with equal
// priorities keep their configured order (upstream's sort leaves it
// unspecified). The result is a new slice.
func (c Config) Phases() []PhaseConfig {
	var ps []PhaseConfig
	if len(c.ShutdownGracePeriodByPodPriority) > 0 {
		ps = slices.Clone(c.ShutdownGracePeriodByPodPriority)
	} else {
		ps = MigrateConfig(c.ShutdownGracePeriod, c.ShutdownGracePeriodCriticalPods)
	}
	slices.SortStableFunc(ps, func(a, b PhaseConfig) int { return cmp.Compare(a.Priority, b.Priority) })
	return ps
}

// RequiredInhibitDelay returns how long the node must be able to delay
// shutdown for phases: the sum of all their periods, empty phases (and,
// as upstream, negative ones) included.
func RequiredInhibitDelay(phases []PhaseConfig) time.Duration {
	var sum time.Duration
	for _, p := range phases {
		sum = addSat(sum, p.Period())
	}
	return sum
}

// addSat adds two durations, saturating at the int64 limits.
func addSat(a, b time.Duration) time.Duration {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return time.Duration(1<<63 - 1)
	case a < 0 && b < 0 && s >= 0:
		return time.Duration(-1 << 63)
	}
	return s
}
