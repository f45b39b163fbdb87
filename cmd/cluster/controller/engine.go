package controller

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/nodelifecycle"
)

// Snapshot is the cluster as the controller sees it at one instant: from
// its informers when it runs against an API server, or from a list for a
// dry run. Objects are not modified.
type Snapshot struct {
	// Nodes are the cluster's nodes.
	Nodes []*corev1.Node
	// Leases are the node leases of kube-node-lease, by name (the node's).
	Leases map[string]*coordinationv1.Lease
	// Pods are the pods bound to nodes (spec.nodeName set).
	Pods []*corev1.Pod
}

// Writer carries out the controller's writes. The controller calls it in
// the order it decides, synchronously; an error leaves the object as it
// was and the decision is retried as upstream retries it.
type Writer interface {
	// WriteNodeConditions writes node's status.conditions, conditional on
	// node's resourceVersion (a conflict is an error), and returns the
	// written node.
	WriteNodeConditions(ctx context.Context, node *corev1.Node, conds []corev1.NodeCondition) (*corev1.Node, error)
	// UpdateTaints removes and then adds taints on the named node (each
	// removal by key and effect), reading the node afresh, and returns the
	// written node (the node read when nothing changed).
	UpdateTaints(ctx context.Context, node string, add, remove []corev1.Taint) (*corev1.Node, error)
	// MarkPodNotReady sets pod's Ready condition to False.
	MarkPodNotReady(ctx context.Context, pod *corev1.Pod, now time.Time) error
	// EvictPod sets the DisruptionTarget condition on pod and deletes it,
	// conditional on its UID.
	EvictPod(ctx context.Context, pod *corev1.Pod, cond core.PodCondition, now time.Time) error
}

// Action is one decision of the controller, as nodelifecycle.Action
// describes it, with the error of the write that carried it out (nil when
// it succeeded, or when the action writes nothing).
type Action struct {
	nodelifecycle.Action
	Err error
}

// String formats the action as nodelifecycle.Action.String does, with
// " (failed: err)" after a write that failed.
func (a Action) String() string {
	if a.Err != nil {
		return a.Action.String() + " (failed: " + a.Err.Error() + ")"
	}
	return a.Action.String()
}

// The kinds of actions (nodelifecycle's).
const (
	KindNodeStatus   = nodelifecycle.KindNodeStatus
	KindPodsNotReady = nodelifecycle.KindPodsNotReady
	KindTaints       = nodelifecycle.KindTaints
	KindZone         = nodelifecycle.KindZone
	KindSchedule     = nodelifecycle.KindSchedule
	KindCancel       = nodelifecycle.KindCancel
	KindEvict        = nodelifecycle.KindEvict
	KindHold         = nodelifecycle.KindHold
)

// Config is the decision configuration: kube-controller-manager's flags
// and nodelife's options (nodelifecycle.Config).
type Config = nodelifecycle.Config

// DefaultConfig returns kube-controller-manager's defaults in the current
// release (v1.37; nodelifecycle.ConfigFor gives another's).
func DefaultConfig() Config { return nodelifecycle.DefaultConfig() }

// Engine runs a nodelifecycle.Controller over snapshots of the cluster
// and carries its actions out through a Writer. It only translates: the
// API objects it is given become upserts and deletes (an object whose
// resourceVersion the engine has already seen, or an older one, is left
// out, so that an informer lagging behind the engine's own writes does not
// undo them), and each action becomes the Writer call that performs it. It
// reads no clock and starts no goroutine; Controller drives it from
// informers and a clock, and Plan from a snapshot on a virtual clock. Not
// safe for concurrent use.
type Engine struct {
	ctl    *nodelifecycle.Controller
	nodes  map[string]*corev1.Node
	pods   map[string]*corev1.Pod
	leases map[string]*coordinationv1.Lease
}

// NewEngine returns an engine for cfg, or cfg's validation error.
func NewEngine(cfg Config) (*Engine, error) {
	ctl, err := nodelifecycle.New(cfg)
	if err != nil {
		return nil, err
	}
	return &Engine{ctl: ctl, nodes: map[string]*corev1.Node{}, pods: map[string]*corev1.Pod{}, leases: map[string]*coordinationv1.Lease{}}, nil
}

// SetLiveLeases gives the lease circuit breaker its view of the live
// leases (nodelifecycle.Controller.SetLiveLeases); without one, as in a dry
// run on a snapshot, the snapshot's leases are taken for the live ones.
func (e *Engine) SetLiveLeases(l nodelifecycle.LiveLeases) { e.ctl.SetLiveLeases(l) }

// ViewRestored tells the engine its view was interrupted and is whole
// again at now (nodelifecycle.Controller.ViewRestored).
func (e *Engine) ViewRestored(now time.Time) { e.ctl.ViewRestored(now) }

// Passes returns how many monitor passes the engine has run.
func (e *Engine) Passes() int { return e.ctl.Passes() }

// Step brings the controller's view up to snap, runs its Step at now and
// carries each action out through w, reporting it to record (nil: not
// reported); a write that fails is reported to the controller
// (nodelifecycle.Controller.Failed), which retries as upstream retries,
// and the Step is carried on while it pauses for its writes' outcomes. It
// returns when Step next has work and the context's error, if any; write
// errors are kept in the recorded actions.
func (e *Engine) Step(ctx context.Context, now time.Time, snap Snapshot, w Writer, record func(Action)) (time.Time, error) {
	e.sync(snap)
	for {
		r := e.ctl.Step(now)
		for _, a := range r.Actions {
			err := e.do(ctx, now, a, w)
			if err != nil {
				_ = e.ctl.Failed(a) // do fails only writes
			}
			if record != nil {
				record(Action{Action: a, Err: err})
			}
		}
		if r.Next.After(now) || ctx.Err() != nil {
			return r.Next, ctx.Err()
		}
	}
}

// newer reports whether obj should replace old in the view: it is another
// object, with a resourceVersion not seen yet and not older (versions are
// compared as numbers when both are, as etcd's are).
func newer(oldRV, rv string, same bool) bool {
	if same || (rv != "" && rv == oldRV) {
		return false
	}
	o, err1 := strconv.ParseUint(oldRV, 10, 64)
	n, err2 := strconv.ParseUint(rv, 10, 64)
	return err1 != nil || err2 != nil || n > o
}

func (e *Engine) sync(snap Snapshot) {
	seen := make(map[string]bool, len(snap.Nodes))
	for _, n := range snap.Nodes {
		seen[n.Name] = true
		if old, ok := e.nodes[n.Name]; ok && !newer(old.ResourceVersion, n.ResourceVersion, old == n) {
			continue
		}
		e.nodes[n.Name] = n
		e.ctl.UpsertNode(kubeapi.Node(n))
	}
	for name := range e.nodes {
		if !seen[name] {
			delete(e.nodes, name)
			e.ctl.DeleteNode(name)
		}
	}
	for name, l := range snap.Leases {
		if old, ok := e.leases[name]; ok && !newer(old.ResourceVersion, l.ResourceVersion, old == l) {
			continue
		}
		e.leases[name] = l
		e.ctl.UpsertLease(kubeapi.LifecycleLease(l))
	}
	for name := range e.leases {
		if snap.Leases[name] == nil {
			delete(e.leases, name)
			e.ctl.DeleteLease(name)
		}
	}
	seen = make(map[string]bool, len(snap.Pods))
	for _, p := range snap.Pods {
		key := p.Namespace + "/" + p.Name
		seen[key] = true
		if old, ok := e.pods[key]; ok && !newer(old.ResourceVersion, p.ResourceVersion, old == p) {
			continue
		}
		e.pods[key] = p
		e.ctl.UpsertPod(kubeapi.Pod(p))
	}
	for key, p := range e.pods {
		if !seen[key] {
			delete(e.pods, key)
			e.ctl.DeletePod(p.Namespace, p.Name)
		}
	}
}

// do performs one action through w.
func (e *Engine) do(ctx context.Context, now time.Time, a nodelifecycle.Action, w Writer) error {
	switch a.Kind {
	case KindNodeStatus:
		n := e.nodes[a.Node]
		if n == nil {
			return fmt.Errorf("node %s is not in the snapshot", a.Node)
		}
		written, err := w.WriteNodeConditions(ctx, n, kubeapi.FromConditions(a.Conditions))
		if err == nil && written != nil {
			e.nodes[a.Node] = written
		}
		return err
	case KindTaints:
		written, err := w.UpdateTaints(ctx, a.Node, kubeapi.FromTaints(a.Add), kubeapi.FromTaints(a.Remove))
		if err == nil && written != nil {
			e.nodes[a.Node] = written
		}
		return err
	case KindPodsNotReady:
		var errs []error
		for _, ref := range a.Pods {
			if p := e.pods[ref.Key()]; p != nil {
				errs = append(errs, w.MarkPodNotReady(ctx, p, now))
			}
		}
		return errors.Join(errs...)
	case KindEvict:
		p := e.pods[a.Pod.Key()]
		if p == nil {
			return nil
		}
		return w.EvictPod(ctx, p, a.Condition, now)
	}
	return nil
}
