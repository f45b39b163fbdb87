package nodelifetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/internal/coretest"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/taints"
)

// Cluster is a drawn cluster: healthy nodes in zones and the pods bound
// to them, at Start.
type Cluster struct {
	// Start is when the scenario begins; every node posted Ready=True
	// then.
	Start time.Time
	// Nodes are the nodes, zone-labelled, named zone-index ("a-0").
	Nodes []core.Node
	// Pods are the pods, each bound to a node, running and Ready.
	Pods []core.Pod
}

// FaultKind says what a scheduled fault does.
type FaultKind string

// The faults a Schedule holds.
const (
	// FaultOutage: the nodes' kubelets cannot reach the API server, so
	// their leases and status go stale; at the end they post Ready=True.
	FaultOutage FaultKind = "Outage"
	// FaultShutdown: the nodes shut down gracefully: the kubelet posts
	// Ready=False (KubeletNotReady) and then stops; at the end the nodes
	// are back and post Ready=True.
	FaultShutdown FaultKind = "Shutdown"
	// FaultPressure: the nodes report MemoryPressure=True until the end.
	FaultPressure FaultKind = "Pressure"
	// FaultAPI: the controller's writes fail and it sees no change from
	// the API server (its watches are down); at the end its view is
	// restored.
	FaultAPI FaultKind = "API"
)

// Fault is one scheduled fault, from From to To after the cluster's
// start.
type Fault struct {
	Kind     FaultKind
	Nodes    []string
	From, To time.Duration
}

// String prints the fault as "Outage a-0,a-1 +60s..+200s".
func (f Fault) String() string {
	return fmt.Sprintf("%s %v +%v..+%v", f.Kind, f.Nodes, f.From, f.To)
}

// Scenario is a cluster and the faults it goes through, over Duration.
type Scenario struct {
	Cluster
	Faults   []Fault
	Duration time.Duration
}

// HeartbeatPeriod is how often the kubelets of a Scenario renew their
// leases (the kubelet's default: a tenth of the 40 s lease).
const HeartbeatPeriod = 10 * time.Second

// Clusters draws clusters of o.Zones zones (1-3 when 0) with 1 to
// o.MaxNodes nodes (9 by default), every node Ready at the start, and
// each node's pods (0-3) drawn as Pods draws them. Nodes and pods are
// drawn as lists, so that a shrunk counterexample can lose any node or
// pod on its own; names follow the order that is left.
func Clusters(o Options) *rapid.Generator[Cluster] {
	return rapid.Custom(func(t *rapid.T) Cluster {
		c := Cluster{Start: o.now()}
		zones := o.zones(t)
		perNode := rapid.SliceOfN(rapid.SliceOfN(OnePod(o), 0, 3), len(zones), max(len(zones), o.maxNodes())).Draw(t, "nodes")
		for i, pods := range perNode {
			zone := zones[i%len(zones)]
			name := fmt.Sprintf("%s-%d", zone, i/len(zones))
			c.Nodes = append(c.Nodes, core.Node{Name: name, UID: "uid-" + name, CreationTimestamp: c.Start.Add(-time.Hour),
				Labels:     map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: zone},
				Conditions: readyConditions(c.Start)})
			for _, p := range pods {
				k := len(c.Pods)
				p.Name, p.UID = fmt.Sprintf("p%d", k), fmt.Sprintf("uid-%d", k)
				p.NodeName, p.Conditions, p.DeletionTimestamp = name, coretest.PodReady(true), nil
				c.Pods = append(c.Pods, p)
			}
		}
		return c
	})
}

// readyConditions is what a healthy kubelet posts at at.
func readyConditions(at time.Time) []conditions.Condition {
	return []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, Reason: conditions.ReasonKubeletReady,
		LastHeartbeatTime: at, LastTransitionTime: at}}
}

// Scenarios draws a cluster (as Clusters) and up to five faults within
// a duration of 5-30 minutes of cluster time: outages of one node, of a
// whole zone or of everything, graceful shutdowns, pressure episodes, and
// API faults of up to two minutes; each fault lasts 10 s to 10 minutes
// and ends before the scenario does, so that the cluster can recover.
func Scenarios(o Options) *rapid.Generator[Scenario] {
	return rapid.Custom(func(t *rapid.T) Scenario {
		s := Scenario{Cluster: Clusters(o).Draw(t, "cluster")}
		s.Duration = time.Duration(rapid.IntRange(5, 30).Draw(t, "minutes")) * time.Minute
		names := make([]string, len(s.Nodes))
		zoneOf := map[string][]string{}
		for i, n := range s.Nodes {
			names[i] = n.Name
			z := n.Labels[eviction.LabelTopologyZone]
			zoneOf[z] = append(zoneOf[z], n.Name)
		}
		zones := make([]string, 0, len(zoneOf))
		for z := range zoneOf {
			zones = append(zones, z)
		}
		slices.Sort(zones)
		fault := rapid.Custom(func(t *rapid.T) Fault {
			f := Fault{Kind: rapid.SampledFrom([]FaultKind{FaultOutage, FaultOutage, FaultShutdown, FaultPressure, FaultAPI}).Draw(t, "kind")}
			f.From = time.Duration(rapid.IntRange(1, int(s.Duration/time.Second)-60).Draw(t, "from")) * time.Second
			longest := 600
			if f.Kind == FaultAPI {
				longest = 120
			}
			longest = min(longest, int((s.Duration-f.From)/time.Second)-30)
			f.To = f.From + time.Duration(rapid.IntRange(min(10, longest), longest).Draw(t, "length"))*time.Second
			if f.Kind != FaultAPI {
				switch rapid.IntRange(0, 4).Draw(t, "scope") {
				case 0:
					f.Nodes = slices.Clone(names)
				case 1, 2:
					f.Nodes = slices.Clone(zoneOf[rapid.SampledFrom(zones).Draw(t, "zone")])
				default:
					f.Nodes = []string{rapid.SampledFrom(names).Draw(t, "node")}
				}
			}
			return f
		})
		// A list, so that a shrunk counterexample can lose any fault on
		// its own.
		s.Faults = rapid.SliceOfN(fault, 0, 5).Draw(t, "faults")
		return s
	})
}

// RunOptions configure Scenario.Run. The zero value restores the
// controller's view after every API fault and traces nothing.
type RunOptions struct {
	// JudgeStaleView leaves the controller's view as it is after an API
	// fault instead of calling Controller.ViewRestored: upstream's
	// in-process behaviour, which can mark healthy nodes Unknown for
	// heartbeats it could not see.
	JudgeStaleView bool
	// Step, when set, is called after every Step with its time and
	// actions (for tracing a failing scenario).
	Step func(now time.Time, actions []nodelifecycle.Action)
}

// ErrScenario wraps the problems Run reports about its input.
var ErrScenario = errors.New("nodelifetest: invalid scenario")

// Run plays the scenario against a nodelifecycle.Controller built from
// cfg, on a virtual clock, and returns what happened. The driver plays
// the API server and the kubelets: every node renews its lease every
// HeartbeatPeriod unless a fault silences it, a node posts its conditions
// when a fault begins or ends, and every write the controller makes is
// applied and fed back to it as a watch event would be (an evicted pod is
// deleted, a taint lands on its node). During a FaultAPI every write
// fails and nothing reaches the controller; at its end the controller
// gets the current state of every node, lease and pod and, unless
// opts.JudgeStaleView, ViewRestored.
func (s Scenario) Run(cfg nodelifecycle.Config, opts RunOptions) (History, error) {
	var h History
	c, err := nodelifecycle.New(cfg)
	if err != nil {
		return h, err
	}
	if len(s.Nodes) == 0 {
		return h, fmt.Errorf("%w: no nodes", ErrScenario)
	}
	for _, f := range s.Faults {
		if f.To < f.From || f.From < 0 {
			return h, fmt.Errorf("%w: fault %v ends before it starts", ErrScenario, f)
		}
	}
	w := newWorld(s)
	for _, name := range w.order {
		n := w.nodes[name]
		c.UpsertNode(*n)
		h.Taints = append(h.Taints, TaintChange{At: s.Start, Seq: h.next(), Node: n.Name, Zone: zoneOf(n), Taints: slices.Clone(n.Taints)})
		h.Heartbeats = append(h.Heartbeats, Mark{At: s.Start, Seq: h.next(), Node: name})
		w.leases[name] = s.Start
	}
	for _, p := range s.Pods {
		c.UpsertPod(p)
	}
	end := s.Start.Add(s.Duration)
	apiDown := false
	for now := s.Start; !now.After(end); {
		d := now.Sub(s.Start)
		down := s.apiDown(d)
		// The kubelets' side: faults begin and end, leases renew.
		for _, n := range w.order {
			node := w.nodes[n]
			silent := s.active(FaultOutage, n, d) || s.active(FaultShutdown, n, d)
			if s.active(FaultShutdown, n, d) && !w.shut[n] {
				w.shut[n] = true
				node.Conditions, _ = conditions.Set(now, node.Conditions, conditions.Condition{Type: conditions.Ready, Status: conditions.False, Reason: "KubeletNotReady", Message: "node is shutting down"})
				w.changed[n] = true
			}
			if !silent {
				w.shut[n] = false
				if pressured := s.active(FaultPressure, n, d); pressured != w.pressure[n] {
					w.pressure[n] = pressured
					st := conditions.False
					if pressured {
						st = conditions.True
					}
					node.Conditions, _ = conditions.Set(now, node.Conditions, conditions.Condition{Type: conditions.MemoryPressure, Status: st})
					w.changed[n] = true
				}
				if d%HeartbeatPeriod == 0 || w.silent[n] {
					// The kubelet's status sync puts back Ready=True
					// wherever it finds anything else.
					if c, ok := conditions.Find(node.Conditions, conditions.Ready); !ok || c.Status != conditions.True {
						node.Conditions, _ = conditions.Set(now, node.Conditions, conditions.Condition{Type: conditions.Ready, Status: conditions.True, Reason: conditions.ReasonKubeletReady})
						w.changed[n] = true
					}
				}
				if d%HeartbeatPeriod == 0 || w.changed[n] {
					w.leases[n] = now
					w.leaseChanged[n] = true
					h.Heartbeats = append(h.Heartbeats, Mark{At: now, Seq: h.next(), Node: n})
				}
			}
			w.silent[n] = silent
		}
		// The controller's view: changes reach it as they happen, except
		// during an API fault; at the fault's end a relist brings the whole
		// state, and then the view is restored. Judging on a stale view,
		// the first pass runs before the relist lands, as upstream's
		// monitor does on its informer cache.
		restoring := !down && apiDown
		switch {
		case restoring && !opts.JudgeStaleView:
			w.relist(c)
			c.ViewRestored(now)
		case !down && !restoring:
			w.deliver(c)
		}
		apiDown = down
		// The Step, carried on while it pauses for its writes' outcomes:
		// during an API fault every write fails.
		var r nodelifecycle.Ready
		for first := true; first || r.Next.Equal(now); first = false {
			r = c.Step(now)
			for _, a := range r.Actions {
				if down && a.Kind != nodelifecycle.KindZone && a.Kind != nodelifecycle.KindSchedule && a.Kind != nodelifecycle.KindCancel &&
					a.Kind != nodelifecycle.KindHold {
					_ = c.Failed(a)
					h.Failed = append(h.Failed, a)
					continue
				}
				w.apply(a)
				h.recordWrite(a, w)
			}
			h.Actions = append(h.Actions, r.Actions...)
			if opts.Step != nil {
				opts.Step(now, r.Actions)
			}
		}
		switch {
		case restoring && opts.JudgeStaleView:
			w.relist(c)
		case !down:
			w.deliver(c)
		}
		next := s.Start.Add((d/HeartbeatPeriod + 1) * HeartbeatPeriod)
		for _, f := range s.Faults {
			for _, at := range []time.Duration{f.From, f.To} {
				if t := s.Start.Add(at); t.After(now) && t.Before(next) {
					next = t
				}
			}
		}
		if r.Next.After(now) && r.Next.Before(next) {
			next = r.Next
		}
		now = next
	}
	h.End = end
	for _, n := range w.order {
		h.Final = append(h.Final, *w.nodes[n])
	}
	return h, nil
}

// active reports whether a fault of kind covers node at d.
func (s Scenario) active(kind FaultKind, node string, d time.Duration) bool {
	for _, f := range s.Faults {
		if f.Kind == kind && d >= f.From && d < f.To && slices.Contains(f.Nodes, node) {
			return true
		}
	}
	return false
}

func (s Scenario) apiDown(d time.Duration) bool {
	for _, f := range s.Faults {
		if f.Kind == FaultAPI && d >= f.From && d < f.To {
			return true
		}
	}
	return false
}

// world is the API server's state as the driver keeps it.
type world struct {
	order                  []string
	nodes                  map[string]*core.Node
	leases                 map[string]time.Time
	pods                   map[string]core.Pod
	tolerations            map[string][]taints.Toleration
	podNode                map[string]string
	deleted                []string
	changed, leaseChanged  map[string]bool
	silent, shut, pressure map[string]bool
	podChanged             map[string]bool
}

func newWorld(s Scenario) *world {
	w := &world{nodes: map[string]*core.Node{}, leases: map[string]time.Time{}, pods: map[string]core.Pod{},
		tolerations: map[string][]taints.Toleration{}, podNode: map[string]string{}, changed: map[string]bool{}, leaseChanged: map[string]bool{},
		silent: map[string]bool{}, shut: map[string]bool{}, pressure: map[string]bool{}, podChanged: map[string]bool{}}
	for _, n := range s.Nodes {
		n := n
		n.Conditions = slices.Clone(n.Conditions)
		n.Taints = slices.Clone(n.Taints)
		w.order = append(w.order, n.Name)
		w.nodes[n.Name] = &n
	}
	for _, p := range s.Pods {
		w.pods[p.Key()] = p
		w.tolerations[p.Key()] = p.Tolerations
		w.podNode[p.Key()] = p.NodeName
	}
	return w
}

// apply carries out one of the controller's writes.
func (w *world) apply(a nodelifecycle.Action) {
	switch a.Kind {
	case nodelifecycle.KindNodeStatus:
		if n, ok := w.nodes[a.Node]; ok {
			n.Conditions = slices.Clone(a.Conditions)
			w.changed[a.Node] = true
		}
	case nodelifecycle.KindTaints:
		if n, ok := w.nodes[a.Node]; ok {
			// A new list: the controller keeps the one it was given.
			n.Taints = taints.Apply(n.Taints, a.Add, a.Remove)
			w.changed[a.Node] = true
		}
	case nodelifecycle.KindPodsNotReady:
		for _, ref := range a.Pods {
			if p, ok := w.pods[ref.Key()]; ok && p.UID == ref.UID {
				p.Conditions = coretest.PodReady(false)
				w.pods[ref.Key()] = p
				w.podChanged[ref.Key()] = true
			}
		}
	case nodelifecycle.KindEvict:
		if p, ok := w.pods[a.Pod.Key()]; ok && p.UID == a.Pod.UID {
			delete(w.pods, a.Pod.Key())
			w.deleted = append(w.deleted, a.Pod.Key())
		}
	}
}

// deliver sends the controller what changed since the last delivery.
func (w *world) deliver(c *nodelifecycle.Controller) {
	for _, n := range w.order {
		if w.changed[n] {
			c.UpsertNode(*w.nodes[n])
		}
		if w.leaseChanged[n] {
			c.UpsertLease(nodelifecycle.Lease{Node: n, RenewTime: w.leases[n]})
		}
	}
	for _, key := range w.deleted {
		ns, name := splitKey(key)
		c.DeletePod(ns, name)
	}
	keys := make([]string, 0, len(w.podChanged))
	for key := range w.podChanged {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		c.UpsertPod(w.pods[key])
	}
	clear(w.changed)
	clear(w.leaseChanged)
	clear(w.podChanged)
	w.deleted = w.deleted[:0]
}

// relist sends the controller everything, as a fresh list does.
func (w *world) relist(c *nodelifecycle.Controller) {
	for _, n := range w.order {
		w.changed[n] = true
		if _, ok := w.leases[n]; ok {
			w.leaseChanged[n] = true
		}
	}
	for key := range w.pods {
		w.podChanged[key] = true
	}
	w.deliver(c)
}

func splitKey(key string) (string, string) {
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		return "", key
	}
	return ns, name
}
