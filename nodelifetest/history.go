package nodelifetest

import (
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/taints"
)

// History is what a node controller did to a cluster, in the terms the
// invariant checks read. Scenario.Run fills it from a
// nodelifecycle.Controller; a caller testing a controller of their own
// fills it from their controller's writes. Records are ordered by At and,
// within one instant, by Seq (the order the writes were made in; leave it
// 0 when it does not matter).
type History struct {
	// Taints holds, for every node, its taint list at the start and after
	// every change.
	Taints []TaintChange
	// Evictions are the pods deleted by the controller.
	Evictions []Eviction
	// Zones are the zones' state and tainting-rate changes.
	Zones []ZoneChange
	// Unknown are the controller's rewrites of a node's Ready condition
	// to Unknown.
	Unknown []Mark
	// Heartbeats are the nodes' lease renewals and status posts.
	Heartbeats []Mark
	// End is when the history ends; Final is every node as it was then.
	End   time.Time
	Final []core.Node
	// Actions are all the controller's actions, in order (Scenario.Run
	// only).
	Actions []nodelifecycle.Action
	// Failed are the writes among Actions that failed (those of an API
	// fault), reported to the controller with Failed.
	Failed []nodelifecycle.Action

	seq int
}

// TaintChange is a node's whole taint list from At on.
type TaintChange struct {
	At  time.Time
	Seq int
	// Node and Zone name the node and its zone (as eviction.ZoneName
	// prints it).
	Node, Zone string
	Taints     []taints.Taint
}

// Eviction is the deletion of a pod by the controller.
type Eviction struct {
	At  time.Time
	Seq int
	// Node is the node the pod was bound to; Pod is "namespace/name".
	Node, Pod string
	// Tolerations are the pod's tolerations when it was deleted.
	Tolerations []taints.Toleration
}

// ZoneChange is a zone's state and tainting rate from At on.
type ZoneChange struct {
	At    time.Time
	Seq   int
	Zone  string
	State eviction.ZoneState
	// Rate is the number of nodes per second the zone may be tainted
	// NoExecute at; 0 stops the tainting.
	Rate float64
}

// Mark is an event about one node at one time.
type Mark struct {
	At   time.Time
	Seq  int
	Node string
}

func (h *History) next() int { h.seq++; return h.seq }

// recordWrite records a write that succeeded.
func (h *History) recordWrite(a nodelifecycle.Action, w *world) {
	switch a.Kind {
	case nodelifecycle.KindTaints:
		if n, ok := w.nodes[a.Node]; ok {
			h.Taints = append(h.Taints, TaintChange{At: a.At, Seq: h.next(), Node: a.Node, Zone: zoneOf(n), Taints: append([]taints.Taint(nil), n.Taints...)})
		}
	case nodelifecycle.KindEvict:
		h.Evictions = append(h.Evictions, Eviction{At: a.At, Seq: h.next(), Node: w.podNode[a.Pod.Key()], Pod: a.Pod.Key(), Tolerations: w.tolerations[a.Pod.Key()]})
	case nodelifecycle.KindNodeStatus:
		if c, ok := conditions.Find(a.Conditions, conditions.Ready); ok && c.Status == conditions.Unknown {
			h.Unknown = append(h.Unknown, Mark{At: a.At, Seq: h.next(), Node: a.Node})
		}
	case nodelifecycle.KindZone:
		h.Zones = append(h.Zones, ZoneChange{At: a.At, Seq: h.next(), Zone: a.Zone, State: a.ZoneState, Rate: a.Rate})
	}
}

func zoneOf(n *core.Node) string { return eviction.ZoneName(eviction.ZoneKey(n.Labels)) }
