package nodelifecycle

import (
	"strings"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/taints"
)

// Lease is what the controller reads of a node's Lease in
// kube-node-lease.
type Lease struct {
	// Node is the lease's name, which is its node's.
	Node string
	// RenewTime is spec.renewTime; zero when unset.
	RenewTime time.Time
	// ResourceVersion is metadata.resourceVersion, what the lease circuit
	// breaker (Config.LeaseCircuitBreaker) compares with the live lease's;
	// "" when the caller does not track it.
	ResourceVersion string
	// HolderIdentity is spec.holderIdentity, read only by
	// Config.HeartbeatLease.
	HolderIdentity string
}

// LiveLeases answers the lease circuit breaker's two questions
// (Config.LeaseCircuitBreaker); a client-go program answers them from the
// API server and its lease informer, a simulation from its model of them.
// Step calls it synchronously, during a monitor pass; its methods must not
// call the Controller.
type LiveLeases interface {
	// LiveLease returns the resource version of the named node's Lease as
	// the API server has it now (a GET, not the cache), with found false
	// when there is none (NotFound). Any other failure is an error; it
	// holds the node back for the pass, as a newer lease would.
	LiveLease(node string) (resourceVersion string, found bool, err error)
	// CacheResourceVersion returns the resource version the lease cache
	// has synced to (client-go's LastStoreSyncResourceVersion of the lease
	// informer's store); "" when unknown, which never holds a node back.
	CacheResourceVersion() string
}

// PodState is the controller's view of a pod bound to a node: what
// UpsertPod took from the core.Pod it was given, and what the controller's
// own actions changed since (Controller.Pod returns it).
type PodState struct {
	// Namespace, Name and UID identify the pod.
	Namespace, Name, UID string
	// NodeName is spec.nodeName; a pod with none is not the controller's.
	NodeName string
	// Tolerations are spec.tolerations, in order.
	Tolerations []taints.Toleration
	// Ready is true when the pod has a Ready condition that is not False:
	// the pods MarkPodsNotReady changes. It turns false when the
	// controller marks the pod NotReady.
	Ready bool
	// Terminating is true when metadata.deletionTimestamp is set, or the
	// controller evicted the pod. The
	// Controller leaves such a pod alone and drops its pending eviction.
	// Upstream's taint eviction controller still plans it and may delete
	// it a second time, which changes nothing but its event stream.
	Terminating bool
}

// Key returns "namespace/name", the key pods are known by.
func (p PodState) Key() string { return p.Namespace + "/" + p.Name }

// stateOf is what the controller keeps of p.
func stateOf(p *core.Pod) PodState {
	s := PodState{Namespace: p.Namespace, Name: p.Name, UID: p.UID, NodeName: p.NodeName, Tolerations: p.Tolerations,
		Terminating: p.Deleting()}
	for i := range p.Conditions {
		if p.Conditions[i].Type == core.PodReady {
			s.Ready = p.Conditions[i].Status != conditions.False
			break
		}
	}
	return s
}

// Kind says what an Action asks for.
type Kind string

// The kinds of actions, in the words of kube-controller-manager's node
// lifecycle and taint eviction controllers.
const (
	// KindNodeStatus: write the node's status.conditions (Conditions), as
	// the monitor's Ready=Unknown rewrite.
	KindNodeStatus Kind = "NodeStatus"
	// KindPodsNotReady: set the Ready condition of the listed pods (Pods)
	// to False, as MarkPodsNotReady.
	KindPodsNotReady Kind = "PodsNotReady"
	// KindTaints: remove the taints of Remove (by key and effect) from the
	// node and add those of Add, in one update.
	KindTaints Kind = "Taints"
	// KindZone: a zone changed state or tainting rate. Nothing to write.
	KindZone Kind = "Zone"
	// KindSchedule: a pod's eviction was scheduled for Due. Nothing to
	// write; the Controller evicts it then.
	KindSchedule Kind = "Schedule"
	// KindCancel: a pod's scheduled eviction was cancelled. Nothing to
	// write.
	KindCancel Kind = "Cancel"
	// KindHold: the lease circuit breaker held node health back
	// (Config.LeaseCircuitBreaker). For a node (Node set) whose cached
	// lease had expired, the live lease was newer or could not be read; a
	// KindHold without a node sums up the nodes a stale lease cache held
	// in the pass. Nothing to write.
	KindHold Kind = "Hold"
	// KindEvict: set the DisruptionTarget condition (Condition) on the pod
	// and delete it, conditional on its UID.
	KindEvict Kind = "Evict"
)

// The Reasons of KindHold actions.
const (
	// ReasonLeaseNotExpired: the node's cached lease had expired, but the
	// live lease is newer (or could not be read), so the cache is stale.
	ReasonLeaseNotExpired = "LeaseNotExpired"
	// ReasonLeaseCacheStale: nodes were held because the lease cache has
	// not yet reached the live lease version an earlier node showed.
	ReasonLeaseCacheStale = "LeaseCacheStale"
)

// Action is one thing the controller decided, in order. Fields that do not
// apply to its Kind are zero.
type Action struct {
	// At is the Step's now.
	At time.Time
	// Kind says what to do.
	Kind Kind
	// Node is the node acted on ("" for KindZone).
	Node string
	// Zone is, for KindZone, the zone as eviction.ZoneName prints it.
	Zone string
	// ZoneState and Rate are, for KindZone, the zone's new state and the
	// rate (nodes per second) at which its nodes are tainted NoExecute
	// from now on; 0 stops the tainting.
	ZoneState eviction.ZoneState
	Rate      float64
	// Pod is the pod of KindSchedule, KindCancel and KindEvict.
	Pod core.PodRef
	// Pods are, for KindPodsNotReady, the node's pods whose Ready condition
	// turns False (possibly none).
	Pods []core.PodRef
	// Conditions is, for KindNodeStatus, the node's whole condition list to
	// write.
	Conditions []conditions.Condition
	// Add and Remove are, for KindTaints, the taints to add (TimeAdded set)
	// and to remove; each lists only taints that change the node as the
	// controller last saw it.
	Add, Remove []taints.Taint
	// Taint is, for KindSchedule, the taint whose toleration set Due, and
	// for an immediate KindEvict, the taint the pod does not tolerate.
	Taint taints.Taint
	// Due is, for KindSchedule, when the pod is to be evicted.
	Due time.Time
	// Condition is, for KindEvict, the pod condition to set before the
	// delete (eviction.TaintEvictionCondition).
	Condition core.PodCondition
	// Reason is machine-readable; Message says it for people.
	Reason, Message string

	seq uint64 // the action's number in its Controller, for Failed
}

// String formats the action on one line without its time, as
// "Kind node[ pod ns/name][ taint]: message"; a taint
// update reads "Taint n key:Effect", "Untaint n key:Effect", or both joined
// by ", " for a swap.
func (a Action) String() string {
	var b strings.Builder
	if a.Kind == KindTaints {
		sep := ""
		for _, t := range a.Add {
			b.WriteString(sep + "Taint " + a.Node + " " + t.Key + ":" + string(t.Effect))
			sep = ", "
		}
		for _, t := range a.Remove {
			b.WriteString(sep + "Untaint " + a.Node + " " + t.Key + ":" + string(t.Effect))
			sep = ", "
		}
	} else {
		b.WriteString(string(a.Kind))
		if a.Node != "" {
			b.WriteString(" " + a.Node)
		}
		if a.Kind == KindZone {
			b.WriteString(" " + printZone(a.Zone))
		}
		if a.Pod.Name != "" {
			b.WriteString(" pod " + a.Pod.Key())
		}
		if a.Kind == KindSchedule && a.Taint.Key != "" {
			b.WriteString(" " + a.Taint.Key + ":" + string(a.Taint.Effect))
		}
	}
	if a.Message != "" {
		b.WriteString(": " + a.Message)
	}
	return b.String()
}

// printZone quotes the zone of unlabeled nodes, whose name is empty.
func printZone(z string) string {
	if z == "" {
		return `""`
	}
	return z
}

// Ready is what a Step returns: the actions decided, in order, and when
// the Controller next needs a Step if nothing is upserted or deleted
// before then.
type Ready struct {
	// Actions are the Step's decisions, in the order they were taken.
	Actions []Action
	// Next is when the next monitor pass, tainting pass, retry or
	// scheduled eviction is due; it is never zero after a Step. Next equal
	// to the Step's now says that the Step paused after writes: perform
	// them, report those that failed with Failed, and call Step again at
	// once to carry on.
	Next time.Time
}
