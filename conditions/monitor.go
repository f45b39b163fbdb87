package conditions

import (
	"errors"
	"time"
)

// Node monitor defaults (kube-controller-manager flags).
const (
	// DefaultNodeMonitorGracePeriod is --node-monitor-grace-period since
	// Kubernetes v1.32 (kubernetes PR #126287, after #121793: the HTTP/2
	// health checks took longer than the old 40s).
	DefaultNodeMonitorGracePeriod = 50 * time.Second
	// LegacyNodeMonitorGracePeriod is the --node-monitor-grace-period default
	// before v1.32.
	LegacyNodeMonitorGracePeriod = 40 * time.Second
	// DefaultNodeStartupGracePeriod is --node-startup-grace-period: how long
	// a node that never posted a Ready condition has before it is Unknown.
	DefaultNodeStartupGracePeriod = 60 * time.Second
	// DefaultNodeMonitorPeriod is --node-monitor-period: how often the node
	// lifecycle controller runs a monitor pass.
	DefaultNodeMonitorPeriod = 5 * time.Second
)

// Reasons and messages the node lifecycle controller writes when a node
// times out.
const (
	ReasonNodeStatusUnknown      = "NodeStatusUnknown"
	MessageNodeStatusUnknown     = "Kubelet stopped posting node status."
	ReasonNodeStatusNeverUpdated = "NodeStatusNeverUpdated"
	MessageNodeStatusNeverUpd    = "Kubelet never posted node status."
)

// timeoutTypes are the conditions a timeout rewrites. NetworkUnavailable is
// managed elsewhere and never touched.
var timeoutTypes = [...]Type{Ready, MemoryPressure, DiskPressure, PIDPressure}

// MonitorConfig configures the node health monitor.
//
// The zero value is not
// usable (zero grace periods): start from DefaultMonitorConfig.
type MonitorConfig struct {
	// GracePeriod is --node-monitor-grace-period: a node that posted a Ready
	// condition is Unknown once neither its Ready heartbeat nor its lease has
	// moved for longer than this. Default 50s; LegacyNodeMonitorGracePeriod
	// for clusters before v1.32.
	GracePeriod time.Duration
	// StartupGracePeriod is --node-startup-grace-period, used while the node
	// has no Ready condition. Default 60s.
	StartupGracePeriod time.Duration
	// MarkPodsOnKubeletNotReady also asks to mark the node's pods NotReady
	// when the kubelet itself turns Ready from True to False or Unknown while
	// its lease stays fresh. Upstream does not (kubernetes#125618, open): it
	// marks pods only when the controller's own timeout turns a True Ready
	// Unknown. Off by default.
	MarkPodsOnKubeletNotReady bool
	// ChangeIsHeartbeat also takes a change of the posted Ready
	// condition's Status, Reason, Message or LastTransitionTime as a
	// heartbeat, for objects whose conditions have no heartbeat time (as
	// Karmada's cluster controller reads its Clusters'); the Ready
	// condition a timeout rewrote is then kept as the saved one, so that
	// the rewrite, read back, is not a heartbeat. Off: upstream.
	ChangeIsHeartbeat bool
}

// changedBesidesHeartbeat reports whether b differs from a in anything but
// its heartbeat time.
func changedBesidesHeartbeat(a, b Condition) bool {
	return a.Status != b.Status || a.Reason != b.Reason || a.Message != b.Message || !a.LastTransitionTime.Equal(b.LastTransitionTime)
}

// DefaultMonitorConfig returns the upstream defaults.
func DefaultMonitorConfig() MonitorConfig {
	return MonitorConfig{GracePeriod: DefaultNodeMonitorGracePeriod, StartupGracePeriod: DefaultNodeStartupGracePeriod}
}

// Validate returns every problem of c at once.
func (c MonitorConfig) Validate() error {
	return errors.Join(
		requirePositive("GracePeriod", c.GracePeriod),
		requirePositive("StartupGracePeriod", c.StartupGracePeriod),
	)
}

// NodeObservation is what the monitor reads of a node and its Lease at
// one pass: a node's name, creation time and conditions with the state of
// its lease. (The library's node type is core.Node, which this package
// cannot import; nodelifecycle builds an observation from it.)
type NodeObservation struct {
	// Name is the node's name (used by Monitor only).
	Name string
	// CreationTimestamp is metadata.creationTimestamp.
	CreationTimestamp time.Time
	// Conditions is status.conditions. Not modified.
	Conditions []Condition
	// HasLease is true when the Lease kube-node-lease/<name> exists.
	HasLease bool
	// LeaseRenewTime is the lease's spec.renewTime; zero means unset.
	LeaseRenewTime time.Time
	// LeaseResourceVersion is the lease's metadata.resourceVersion, kept
	// in the record with the lease it came with (the node lifecycle
	// controller's lease circuit breaker compares it with the live
	// lease's); "" when unknown.
	LeaseResourceVersion string
}

// HealthRecord is the controller's memory of one node between passes
// (upstream's nodeHealthData). The zero value means "never seen". All times
// come from the controller's clock, not the node's.
type HealthRecord struct {
	// Known is false until the node is first observed.
	Known bool
	// ProbeTimestamp is when the controller last heard from the node: a new
	// Ready heartbeat or a newer lease.
	ProbeTimestamp time.Time
	// ReadyTransitionTimestamp is when the controller last saw Ready change.
	ReadyTransitionTimestamp time.Time
	// SavedReady is the Ready condition of the status saved at the last
	// probe; HasSavedReady is false when that status had none.
	SavedReady    Condition
	HasSavedReady bool
	// HasLease, LeaseRenewTime and LeaseResourceVersion are the lease
	// saved at the last lease probe.
	HasLease             bool
	LeaseRenewTime       time.Time
	LeaseResourceVersion string
	// RetryMarkPods is set by the caller when marking the node's pods
	// NotReady failed; the next Observe asks again while Ready is not True
	// (upstream's in-memory nodesToRetry). Observe clears it.
	RetryMarkPods bool
	// LastObserved is the latest now passed to Observe; an earlier now is
	// clamped to it.
	LastObserved time.Time
}

// Health is the result of observing one node.
type Health struct {
	// Record is the node's record after this pass. Keep it when Write is
	// false, or when the write fails (upstream then skips the node for the
	// pass and leaves it out of its zone's counts).
	Record HealthRecord
	// GracePeriod is the grace period that applied: StartupGracePeriod when
	// the node has no Ready condition, GracePeriod otherwise.
	GracePeriod time.Duration
	// Deadline is Record.ProbeTimestamp + GracePeriod: the node times out at
	// the first pass strictly after it, unless it is heard from first.
	Deadline time.Time
	// ObservedReady is the Ready condition as posted, before any rewrite; a
	// node without one is observed as Unknown with both times at its
	// creation. Upstream took its NoExecute decisions from this value
	// before v1.29, so tainting lagged a rewrite by one pass
	// (kubernetes#120815); it now takes them from CurrentReady.
	ObservedReady Condition
	// CurrentReady is the Ready condition after this pass's rewrite;
	// HasCurrentReady is false when the node has no Ready condition and did
	// not time out.
	CurrentReady    Condition
	HasCurrentReady bool
	// TimedOut is true when now is after Deadline: Ready, MemoryPressure,
	// DiskPressure and PIDPressure were rewritten to Unknown.
	TimedOut bool
	// Write is true when the rewrite changed Ready, so Conditions must be
	// written to the Node's status (UpdateStatus). A timeout that finds Ready
	// already Unknown writes nothing, even if pressure conditions changed.
	Write bool
	// Conditions is the node's full condition list to write; nil unless
	// Write. A new slice: the input is not modified.
	Conditions []Condition
	// RecordAfterWrite is the record to keep once the write succeeded.
	RecordAfterWrite HealthRecord
	// RecordWithoutTimeout is the record to keep when the caller does not
	// act on a timeout, as upstream's lease circuit breaker returns before
	// the rewrite: this pass's probes and saved status, without the
	// rewritten Ready that Record's saved status takes (upstream's saved
	// status aliases the node object the rewrite changes). Equal to Record
	// when the node did not time out.
	RecordWithoutTimeout HealthRecord
	// MarkPodsNotReady asks the caller to set the Ready condition of every
	// pod on the node to False (upstream's MarkPodsNotReady). On failure,
	// set RetryMarkPods in the kept record.
	MarkPodsNotReady bool
	// Event is NodeNotReady when Ready went from True to not True in this
	// pass, nil otherwise.
	Event *Event
}

// Observe runs one monitor pass for one node, as upstream's
// tryUpdateNodeHealth and the pod-marking step of monitorNodeHealth:
//
//  1. Without a Ready condition the startup grace period applies and the
//     node is observed as Unknown since its creation; a first-seen node
//     gets probe and transition timestamps at its creation.
//  2. Otherwise the grace period applies, and the probe timestamp becomes
//     now when the node is first seen, when Ready appears, or when Ready's
//     LastHeartbeatTime changes (the transition timestamp too, if Ready's
//     LastTransitionTime changed).
//  3. A lease that is present and newer than the saved one (or the first
//     lease seen) also makes the probe timestamp now: a renewing lease alone
//     keeps a node healthy, even one that never posts status.
//  4. When now is strictly after probe + grace, Ready and the pressure
//     conditions become Unknown: missing ones are added with
//     NodeStatusNeverUpdated / "Kubelet never posted node status." and a
//     heartbeat at the node's creation; True or False ones get
//     NodeStatusUnknown / "Kubelet stopped posting node status.", keeping
//     their heartbeat; Unknown ones are left alone. The result is written
//     only if Ready changed.
//  5. If Ready was True as posted and is not True after the pass, the node's
//     pods are to be marked NotReady and a NodeNotReady event recorded.
//
// Upstream's branch for "the Ready condition was removed" cannot run in the
// current controller (the saved status is replaced before the comparison),
// so a node that drops its Ready condition falls back to the startup grace
// period from its last probe; Observe does the same.
//
// Observe is pure: it allocates only when it returns conditions to write.
// A now earlier than rec.LastObserved is clamped to it. Zero times are
// treated as the instants they are (year 1), never as errors.
func (c MonitorConfig) Observe(now time.Time, rec HealthRecord, node NodeObservation) Health {
	if now.Before(rec.LastObserved) {
		now = rec.LastObserved
	}
	next := rec
	next.LastObserved = now
	next.RetryMarkPods = false

	var h Health
	posted, hasPosted := Find(node.Conditions, Ready)
	replaced := false // the saved status was replaced by this pass's status
	if !hasPosted {
		h.ObservedReady = Condition{Type: Ready, Status: Unknown, LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: node.CreationTimestamp}
		h.GracePeriod = c.StartupGracePeriod
		if next.Known {
			next.SavedReady, next.HasSavedReady = Condition{}, false
		} else {
			next = HealthRecord{Known: true, ProbeTimestamp: node.CreationTimestamp, ReadyTransitionTimestamp: node.CreationTimestamp, LastObserved: now}
		}
		replaced = true
	} else {
		h.ObservedReady = posted
		h.GracePeriod = c.GracePeriod
		switch {
		case !next.Known || !next.HasSavedReady:
			next = freshRecord(now, now, posted, now)
			replaced = true
		case !next.SavedReady.LastHeartbeatTime.Equal(posted.LastHeartbeatTime) || (c.ChangeIsHeartbeat && changedBesidesHeartbeat(next.SavedReady, posted)):
			transition := next.ReadyTransitionTimestamp
			if !next.SavedReady.LastTransitionTime.Equal(posted.LastTransitionTime) {
				transition = now
			}
			next = freshRecord(now, transition, posted, now)
			replaced = true
		}
	}

	// A present lease newer than the saved one (or the first one) is a probe.
	// Both renew times must be set for "newer", as MicroTime.Before.
	if node.HasLease && (!rec.Known || !rec.HasLease ||
		(!rec.LeaseRenewTime.IsZero() && !node.LeaseRenewTime.IsZero() && rec.LeaseRenewTime.Before(node.LeaseRenewTime))) {
		next.HasLease, next.LeaseRenewTime, next.LeaseResourceVersion = true, node.LeaseRenewTime, node.LeaseResourceVersion
		next.ProbeTimestamp = now
	}

	h.Deadline = next.ProbeTimestamp.Add(h.GracePeriod)
	h.CurrentReady, h.HasCurrentReady = posted, hasPosted
	h.RecordWithoutTimeout = next
	if now.After(h.Deadline) {
		h.TimedOut = true
		cur, changed := timeoutReady(node, now)
		h.CurrentReady, h.HasCurrentReady = cur, true
		if replaced || (c.ChangeIsHeartbeat && changed) {
			// Upstream's saved status aliases the node object it rewrote.
			// (Without heartbeat times, the rewrite must be the saved
			// status, or reading it back would be a heartbeat.)
			next.SavedReady, next.HasSavedReady = cur, true
		}
		if changed {
			h.Write = true
			h.Conditions = timeoutConditions(node, now)
			h.RecordAfterWrite = HealthRecord{
				Known: true, ProbeTimestamp: next.ProbeTimestamp, ReadyTransitionTimestamp: now,
				SavedReady: cur, HasSavedReady: true,
				HasLease: node.HasLease, LeaseRenewTime: node.LeaseRenewTime, LeaseResourceVersion: node.LeaseResourceVersion,
				LastObserved: now,
			}
		}
	}
	h.Record = next

	if h.HasCurrentReady {
		switch {
		case h.ObservedReady.Status == True && h.CurrentReady.Status != True:
			h.MarkPodsNotReady = true
			h.Event = &Event{Reason: EventNodeNotReady}
		case rec.RetryMarkPods && h.ObservedReady.Status != True:
			h.MarkPodsNotReady = true
		case c.MarkPodsOnKubeletNotReady && rec.HasSavedReady && rec.SavedReady.Status == True && hasPosted && posted.Status != True:
			h.MarkPodsNotReady = true
		}
	}
	return h
}

func freshRecord(probe, transition time.Time, ready Condition, now time.Time) HealthRecord {
	return HealthRecord{Known: true, ProbeTimestamp: probe, ReadyTransitionTimestamp: transition, SavedReady: ready, HasSavedReady: true, LastObserved: now}
}

// timeoutReady returns the Ready condition a timeout leaves and whether it
// differs from the posted one, without allocating.
func timeoutReady(node NodeObservation, now time.Time) (Condition, bool) {
	posted, ok := Find(node.Conditions, Ready)
	return timeoutRewrite(Ready, posted, ok, node, now)
}

// timeoutConditions returns the node's conditions with the timeout applied.
func timeoutConditions(node NodeObservation, now time.Time) []Condition {
	out := make([]Condition, len(node.Conditions), len(node.Conditions)+len(timeoutTypes))
	copy(out, node.Conditions)
	for _, t := range timeoutTypes {
		i := index(out, t)
		if i < 0 {
			c, _ := timeoutRewrite(t, Condition{}, false, node, now)
			out = append(out, c)
		} else {
			out[i], _ = timeoutRewrite(t, out[i], true, node, now)
		}
	}
	return out
}

// timeoutRewrite is the one rule a timeout applies to a condition of type t
// (found says whether the node has one): a missing condition is added as
// never updated, with the node's creation as heartbeat; a True or False one
// becomes Unknown, keeping its heartbeat; an Unknown one is left alone.
// changed is false only in the last case.
func timeoutRewrite(t Type, c Condition, found bool, node NodeObservation, now time.Time) (_ Condition, changed bool) {
	switch {
	case !found:
		return Condition{Type: t, Status: Unknown, Reason: ReasonNodeStatusNeverUpdated, Message: MessageNodeStatusNeverUpd,
			LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: now}, true
	case c.Status == Unknown:
		return c, false
	}
	c.Status, c.Reason, c.Message, c.LastTransitionTime = Unknown, ReasonNodeStatusUnknown, MessageNodeStatusUnknown, now
	return c, true
}
