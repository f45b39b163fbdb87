package nodelifecycle

import (
	"errors"
	"fmt"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/internal/errdetail"
	"github.com/nodelife/nodelife/release"
)

// ErrInvalidConfig is wrapped by every configuration error.
var ErrInvalidConfig = errors.New("nodelifecycle: invalid config")

// RetryDelay is how long after a failed eviction the Controller tries it
// again (upstream's taint eviction worker retries a failed delete a few
// times, milliseconds apart; one tainting-pass period keeps a caller that
// steps at Next from spinning).
const RetryDelay = eviction.NodeTaintPassPeriod

// Config configures a Controller. Its first three fields and the embedded
// eviction.Config's first five are kube-controller-manager's flags, under
// the flags' names; the rest select behaviour that upstream changed or
// never fixed. The zero value is not usable (every period is 0): start
// from DefaultConfig. A Config holds a policy, a lease filter and zone
// overrides, so it cannot be compared with ==; reflect.DeepEqual compares
// two (a function compares equal only when both are nil).
type Config struct {
	// NodeMonitorPeriod is --node-monitor-period: how often the monitor
	// pass runs (5s).
	NodeMonitorPeriod time.Duration
	// NodeMonitorGracePeriod is --node-monitor-grace-period: how long a
	// node that posted a Ready condition may go unheard before it turns
	// Unknown (50s since v1.32; conditions.LegacyNodeMonitorGracePeriod,
	// 40s, before).
	NodeMonitorGracePeriod time.Duration
	// NodeStartupGracePeriod is --node-startup-grace-period: the same for
	// a node that never posted a Ready condition (60s).
	NodeStartupGracePeriod time.Duration
	// Config is the zone states' and tainting rates' part, package
	// eviction's own config, whose fields are reached through this one:
	// NodeEvictionRate (--node-eviction-rate, 0.1),
	// SecondaryNodeEvictionRate (--secondary-node-eviction-rate, 0.01),
	// UnhealthyZoneThreshold (--unhealthy-zone-threshold, 0.55),
	// LargeClusterSizeThreshold (--large-cluster-size-threshold, 50),
	// LargeClusterSizeBy (eviction.SizeZone, upstream, or
	// eviction.SizeCluster, kubernetes#102908) and KeepProbesOnExit (keep
	// the nodes' probe timestamps when the cluster leaves full disruption;
	// upstream resets them, granting dead nodes a fresh grace period,
	// openyurtio/openyurt#2713).
	eviction.Config

	// MarkPodsOnKubeletNotReady also marks a node's pods NotReady when
	// the kubelet itself turns Ready from True to False (kubernetes#125618).
	MarkPodsOnKubeletNotReady bool
	// TaintOnObservedReady takes the NoExecute tainting decision from the
	// Ready condition as posted before the pass's own rewrite, as
	// upstream did before v1.29: the unreachable taint then follows the
	// Unknown rewrite one monitor period later (kubernetes#120815, fixed
	// by kubernetes PR #120816). Off: the decision uses the Ready
	// condition after the rewrite, as v1.29 and later.
	TaintOnObservedReady bool
	// FreshTaintsInPass makes the monitor pass decide from each node's
	// taints as its own earlier writes of the same pass left them.
	// Upstream decides from the node list it read when the pass began: a
	// node whose not-ready:NoExecute taint the pass swaps for
	// unreachable:NoExecute in the pass where every zone turns fully
	// disrupted keeps unreachable:NoExecute (full disruption's untainting
	// looks only for the taints the list shows), the symptom reported in
	// kubernetes#111385 (nodes left with NoExecute taints in master
	// disruption mode); and a node a restarted controller has just
	// untainted is swapped at once, not queued, when its Ready moved
	// between Unknown and False. Off (upstream): the listed taints.
	FreshTaintsInPass bool
	// LeaseCircuitBreaker is the feature gate NodeControllerLeaseCircuitBreaker
	// (beta and on since v1.37): before a node is marked Unknown because
	// its lease, as the controller's cache has it, is older than the grace
	// period, the live lease is read (the LiveLeases the caller set with
	// SetLiveLeases); when it is newer than the cached one, or cannot be
	// read, the node is held (not rewritten, not counted in its zone, not
	// tainted, its pods not marked) and so is every node after it until the
	// lease cache has caught up with the live lease's resource version.
	// Without a LiveLeases the cache is taken for the live view and the
	// breaker never trips. Off: v1.36 and older, which trust the cache.
	LeaseCircuitBreaker bool
	// EveryNodePass makes every monitor pass look at every node, as
	// upstream's does. Off (the default), a pass visits only the nodes
	// where something can change: those whose node object or lease
	// changed, whose writes, taints or tainting queue are under way, and
	// those whose grace period may have run out; the others keep their
	// counts in their zones. The actions, their order and the times asked
	// for are the same either way; the passes differ only in their cost.
	// (With the lease circuit breaker, the Unknown nodes are visited at
	// every pass, since the breaker asks about them; while it holds the
	// nodes back, every node is.)
	EveryNodePass bool
	// NoExecute configures the taint eviction planner (tolerationSeconds
	// anchor, re-planning on toleration edits, Lt/Gt operators); its zero
	// value is upstream.
	NoExecute eviction.NoExecuteConfig
	// NoTaintEviction runs the node lifecycle without the taint eviction
	// controller: nodes are tainted, marked and counted as upstream does,
	// but no pod is ever scheduled for eviction or evicted (no
	// KindSchedule, KindCancel or KindEvict), as kube-controller-manager
	// with --controllers=-taint-eviction-controller (v1.29 and later), or
	// a controller that leaves eviction to another one (OpenYurt's leaves
	// it to kube-controller-manager's). Off: upstream, both halves.
	NoTaintEviction bool
	// NoScheduleOnly never taints a node NoExecute for its health: nodes
	// get the condition NoSchedule taints (node.kubernetes.io/not-ready,
	// unreachable) and lose NoExecute ones they carry, as a Ready node
	// does; pods are evicted only for NoExecute taints others put on
	// nodes. This is Karmada's cluster controller without
	// --enable-no-execute-taint-eviction. Off: upstream.
	NoScheduleOnly bool
	// ConditionChangeIsHeartbeat counts any change of a node's posted
	// Ready condition (status, reason, message, transition time) as a
	// heartbeat, for objects whose conditions carry no heartbeat time
	// (Karmada's Clusters: metav1.Condition); the controller's own Unknown
	// rewrite is not one. Off: upstream, where only a new
	// LastHeartbeatTime (or lease) is.
	ConditionChangeIsHeartbeat bool
	// HeartbeatLease, when set, says which leases are heartbeats: a lease
	// given to UpsertLease for which it returns false is ignored (the
	// node's lease stays as it was), so that, say, leases renewed by a
	// delegate on a node's behalf (Lease.HolderIdentity) do not keep it
	// healthy. Renewals reported with RenewLease or SetRenewals are the
	// caller's own and always count. nil: every lease counts, upstream.
	HeartbeatLease func(Lease) bool
	// NodePolicy, when set, bends the lifecycle per node (NodeRules):
	// pods kept Ready, nodes never tainted NoExecute, nodes left out of
	// their zone's disruption, pods bound to their node (OpenYurt is one).
	// nil: upstream's lifecycle for every node.
	NodePolicy NodePolicy
	// Queue selects the tainting queues' behaviour; its zero value is
	// upstream's, defects included, and eviction.FixedQueueOptions() fixes
	// the two that eviction.QueueOptions documents.
	Queue eviction.QueueOptions
}

// DefaultConfig returns kube-controller-manager's defaults in the current
// release (release.Current, v1.37): ConfigFor(release.Current).
func DefaultConfig() Config { return ConfigFor(release.Current) }

// ConfigFor returns kube-controller-manager's defaults in release v (taken
// as release.Oldest or release.Current when outside them). Between v1.27
// and v1.37 they differ in:
//
//   - --node-monitor-grace-period: 40s before v1.32, 50s since (kubernetes
//     PR #126287);
//   - TaintOnObservedReady: on before v1.29 (kubernetes#120815);
//   - LeaseCircuitBreaker: on since v1.37 (gate
//     NodeControllerLeaseCircuitBreaker, beta).
//
// The other flags kept their values over these releases, and the options
// for fixes upstream never made (KeepProbesOnExit,
// MarkPodsOnKubeletNotReady, FreshTaintsInPass, LargeClusterSizeBy
// SizeCluster) are off in every preset.
func ConfigFor(v release.Version) Config {
	v = v.Clamp()
	grace := conditions.DefaultNodeMonitorGracePeriod
	if !v.AtLeast(release.V1_32) {
		grace = conditions.LegacyNodeMonitorGracePeriod
	}
	return Config{
		NodeMonitorGracePeriod: grace,
		TaintOnObservedReady:   !v.AtLeast(release.V1_29),
		LeaseCircuitBreaker:    v.AtLeast(release.V1_37),
		NodeMonitorPeriod:      conditions.DefaultNodeMonitorPeriod,
		NodeStartupGracePeriod: conditions.DefaultNodeStartupGracePeriod,
		Config:                 eviction.DefaultConfig(),
	}
}

// Validate returns every problem of c, joined, each naming the field and
// its value; nil when c is usable.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, errdetail.New(ErrInvalidConfig, fmt.Sprintf(format, args...)))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"NodeMonitorPeriod", c.NodeMonitorPeriod}, {"NodeMonitorGracePeriod", c.NodeMonitorGracePeriod}, {"NodeStartupGracePeriod", c.NodeStartupGracePeriod}} {
		if d.v <= 0 {
			bad("%s %v must be > 0", d.name, d.v)
		}
	}
	// The zone and rate fields carry package eviction's names: its rules
	// apply, reported as this package's.
	if err := errdetail.Rewrap(ErrInvalidConfig, c.eviction().Validate()); err != nil {
		errs = append(errs, err)
	}
	if err := c.NoExecute.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("%w: NoExecute: %w", ErrInvalidConfig, err))
	}
	return errors.Join(errs...)
}

// monitor returns the node health monitor's part of c.
func (c Config) monitor() conditions.MonitorConfig {
	return conditions.MonitorConfig{GracePeriod: c.NodeMonitorGracePeriod, StartupGracePeriod: c.NodeStartupGracePeriod,
		MarkPodsOnKubeletNotReady: c.MarkPodsOnKubeletNotReady, ChangeIsHeartbeat: c.ConditionChangeIsHeartbeat}
}

// eviction returns the zone and rate part of c.
func (c Config) eviction() eviction.Config { return c.Config }
