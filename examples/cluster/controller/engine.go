package controller

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/taints"
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
	EvictPod(ctx context.Context, pod *corev1.Pod, cond eviction.PodCondition, now time.Time) error
}

// Kind says what an Action did.
type Kind string

// The kinds of actions.
const (
	// KindNodeStatus: the monitor rewrote a node's conditions (Ready
	// Unknown after the grace period).
	KindNodeStatus Kind = "NodeStatus"
	// KindPodsNotReady: the node's pods were marked NotReady.
	KindPodsNotReady Kind = "PodsNotReady"
	// KindTaint and KindUntaint: a taint was added or removed.
	KindTaint   Kind = "Taint"
	KindUntaint Kind = "Untaint"
	// KindZone: a zone changed state or tainting rate.
	KindZone Kind = "Zone"
	// KindSchedule and KindCancel: a pod's NoExecute eviction was scheduled
	// or cancelled.
	KindSchedule Kind = "Schedule"
	KindCancel   Kind = "Cancel"
	// KindEvict: a pod was deleted for an untolerated NoExecute taint.
	KindEvict Kind = "Evict"
)

// Action is one thing the controller decided, and did unless Err is set.
type Action struct {
	// At is when it was decided.
	At time.Time
	// Kind says what it is.
	Kind Kind
	// Node is the node's name, or for KindZone the zone's name.
	Node string
	// Pod is "namespace/name" for pod actions.
	Pod string
	// Taint is the taint added or removed ("key:Effect").
	Taint string
	// Due is, for KindSchedule, when the pod is to be deleted.
	Due time.Time
	// Reason is nodelife's machine-readable reason; Message says it for
	// people.
	Reason, Message string
	// Err is the write's error; nil when it succeeded (or for decisions
	// that write nothing).
	Err error
}

// String formats the action on one line, without its time.
func (a Action) String() string {
	var b strings.Builder
	b.WriteString(string(a.Kind))
	if a.Node != "" {
		b.WriteString(" " + a.Node)
	}
	if a.Pod != "" {
		b.WriteString(" pod " + a.Pod)
	}
	if a.Taint != "" {
		b.WriteString(" " + a.Taint)
	}
	if a.Message != "" {
		b.WriteString(": " + a.Message)
	}
	if a.Err != nil {
		b.WriteString(" (failed: " + a.Err.Error() + ")")
	}
	return b.String()
}

// Config configures the controller's decisions: upstream's
// kube-controller-manager defaults from DefaultConfig.
type Config struct {
	// Monitor is the node health monitor (--node-monitor-grace-period,
	// --node-startup-grace-period).
	Monitor conditions.MonitorConfig
	// MonitorPeriod is --node-monitor-period (5s).
	MonitorPeriod time.Duration
	// Eviction holds the zone rates and thresholds (--node-eviction-rate,
	// ...).
	Eviction eviction.Config
	// NoExecute is the taint eviction planner; the zero value is upstream.
	NoExecute eviction.NoExecuteConfig
}

// DefaultConfig returns upstream's defaults.
func DefaultConfig() Config {
	return Config{
		Monitor:       conditions.DefaultMonitorConfig(),
		MonitorPeriod: conditions.DefaultNodeMonitorPeriod,
		Eviction:      eviction.DefaultConfig(),
	}
}

// ErrInvalidConfig is wrapped by every configuration error.
var ErrInvalidConfig = errors.New("controller: invalid config")

// Validate returns every problem of c, joined.
func (c Config) Validate() error {
	var errs []error
	if c.MonitorPeriod <= 0 {
		errs = append(errs, fmt.Errorf("%w: MonitorPeriod %v is not positive", ErrInvalidConfig, c.MonitorPeriod))
	}
	if err := c.Monitor.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("%w: Monitor: %w", ErrInvalidConfig, err))
	}
	if err := c.Eviction.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("%w: Eviction: %w", ErrInvalidConfig, err))
	}
	if err := c.NoExecute.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("%w: NoExecute: %w", ErrInvalidConfig, err))
	}
	return errors.Join(errs...)
}

// Engine is the node lifecycle controller's and the taint eviction
// controller's decision state, on nodelife: the health monitor, the zone
// tainting queues, the zone memory and the scheduled evictions. Tick runs
// whatever is due at now over a snapshot and carries the decisions out
// through a Writer. It reads no clock and starts no goroutine; Controller
// drives it from informers and a clock, and the nodewatch command from a
// snapshot on a virtual clock. Not safe for concurrent use.
type Engine struct {
	cfg     Config
	monitor *conditions.Monitor
	tainter *eviction.NoExecuteTainter
	prev    map[string]eviction.ZoneStatus
	states  map[string]eviction.ZoneState

	start       time.Time
	passes      int
	nextMonitor time.Time
	nextPass    time.Time

	// scheduled holds the pending evictions, per node, by pod key.
	scheduled map[string]map[string]eviction.Scheduled
	// planned is, per node, what its pods were last planned against.
	planned map[string]string

	// working state of one Tick
	nodes  map[string]*corev1.Node
	order  []string
	pods   map[string][]*corev1.Pod
	leases map[string]*coordinationv1.Lease
	record func(Action)
}

// NewEngine returns an engine for cfg, or cfg's validation error.
func NewEngine(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := conditions.NewMonitor(cfg.Monitor)
	if err != nil {
		return nil, err
	}
	t, err := eviction.NewNoExecuteTainter(cfg.Eviction, eviction.QueueOptions{})
	if err != nil {
		return nil, err
	}
	return &Engine{cfg: cfg, monitor: m, tainter: t, states: map[string]eviction.ZoneState{},
		scheduled: map[string]map[string]eviction.Scheduled{}, planned: map[string]string{}}, nil
}

// Tick runs, at now, whatever is due: a monitor pass every MonitorPeriod
// from the first Tick (node health, pods marked NotReady, zone states and
// rates, NoExecute tainting decisions), the condition NoSchedule taints,
// a tainting pass on the 100ms grid when the zone queues have work, the
// NoExecute plan of every node whose taints or pods changed, and the
// evictions that are due. Each decision is written through w and reported
// to record (nil: not reported). It returns when Tick next has work, zero
// when nothing is pending, and the first context error, if any; write
// errors are reported in the actions and retried as upstream retries.
func (e *Engine) Tick(ctx context.Context, now time.Time, snap Snapshot, w Writer, record func(Action)) (time.Time, error) {
	if e.start.IsZero() {
		e.start, e.nextMonitor = now, now
	}
	e.record = record
	e.load(snap)
	if now.Before(e.nextMonitor) {
		// still between passes
	} else {
		e.monitorPass(ctx, now, w)
		for !e.nextMonitor.After(now) {
			e.nextMonitor = e.nextMonitor.Add(e.cfg.MonitorPeriod)
		}
	}
	for _, name := range e.order {
		e.noSchedule(ctx, now, name, w)
	}
	if !e.nextPass.IsZero() && !now.Before(e.nextPass) {
		e.taintPass(ctx, now, w)
	}
	for _, name := range e.order {
		e.planNode(ctx, now, name, w)
	}
	e.evictDue(ctx, now, w)
	e.schedulePass(now)
	return e.next(), ctx.Err()
}

// Passes returns how many monitor passes the engine has run.
func (e *Engine) Passes() int { return e.passes }

// load indexes snap into the working state and forgets deleted nodes.
func (e *Engine) load(snap Snapshot) {
	e.nodes = make(map[string]*corev1.Node, len(snap.Nodes))
	e.order = e.order[:0]
	for _, n := range snap.Nodes {
		e.nodes[n.Name] = n
		e.order = append(e.order, n.Name)
	}
	slices.Sort(e.order)
	e.leases = snap.Leases
	e.pods = map[string][]*corev1.Pod{}
	for _, p := range snap.Pods {
		if p.Spec.NodeName != "" {
			e.pods[p.Spec.NodeName] = append(e.pods[p.Spec.NodeName], p)
		}
	}
	for _, ps := range e.pods {
		slices.SortFunc(ps, func(a, b *corev1.Pod) int {
			return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.UID, b.UID))
		})
	}
	for name := range e.scheduled {
		if e.nodes[name] == nil {
			delete(e.scheduled, name)
		}
	}
	for name := range e.planned {
		if e.nodes[name] == nil {
			delete(e.planned, name)
			e.monitor.Forget(name)
		}
	}
}

func (e *Engine) emit(a Action) {
	if e.record != nil {
		e.record(a)
	}
}

func (e *Engine) monitorPass(ctx context.Context, now time.Time, w Writer) {
	e.passes++
	in := make([]conditions.Node, 0, len(e.order))
	observed := make(map[string]conditions.Status, len(e.order))
	for _, name := range e.order {
		n := e.nodes[name]
		observed[name] = kubeapi.ReadyStatus(n)
		in = append(in, kubeapi.MonitorNode(n, e.leases[name]))
	}
	failed := map[string]bool{}
	for _, u := range e.monitor.Pass(in, now) {
		n := e.nodes[u.Name]
		if u.Health.Write {
			written, err := w.WriteNodeConditions(ctx, n, kubeapi.FromConditions(u.Health.Conditions))
			msg := fmt.Sprintf("Ready=%s (%s)", u.Health.CurrentReady.Status, u.Health.CurrentReady.Reason)
			if u.Health.TimedOut {
				msg = fmt.Sprintf("no heartbeat for %v: Ready=%s", u.Health.GracePeriod, u.Health.CurrentReady.Status)
			}
			e.emit(Action{At: now, Kind: KindNodeStatus, Node: u.Name, Reason: u.Health.CurrentReady.Reason, Message: msg, Err: err})
			if err != nil {
				e.monitor.WriteFailed(u)
				failed[u.Name] = true
				continue
			}
			e.nodes[u.Name] = written
		}
		if u.Health.MarkPodsNotReady {
			var errs []error
			for _, p := range e.pods[u.Name] {
				if podReady(p) {
					errs = append(errs, w.MarkPodNotReady(ctx, p, now))
				}
			}
			err := errors.Join(errs...)
			e.emit(Action{At: now, Kind: KindPodsNotReady, Node: u.Name, Reason: "NodeNotReady", Message: "Node is not ready", Err: err})
			if err != nil {
				e.monitor.MarkPodsFailed(u.Name)
			}
		}
	}
	zn := make([]eviction.ZoneNode, 0, len(e.order))
	for _, name := range e.order {
		n := e.nodes[name]
		a := e.tainter.Observe(kubeapi.TaintNode(n), observed[name], now)
		e.applyTaintAction(ctx, now, a, w)
		z := kubeapi.ZoneNode(e.nodes[name])
		z.Excluded = z.Excluded || failed[name]
		zn = append(zn, z)
	}
	plan, err := e.cfg.Eviction.PlanDisruption(e.prev, zn)
	if err != nil {
		return // only an invalid config fails, and NewEngine validated it
	}
	e.prev = plan.Next
	for _, zp := range plan.Zones {
		if zp.SetRate || zp.State != e.states[zp.Zone] {
			e.emit(Action{At: now, Kind: KindZone, Node: eviction.ZoneName(zp.Zone), Reason: zp.Reason,
				Message: fmt.Sprintf("%s -> %s, %d of %d not ready, tainting rate %g/s", zp.Previous, zp.State, zp.NotReady, zp.Size, zp.Rate)})
		}
		e.states[zp.Zone] = zp.State
	}
	var all []eviction.TaintNode
	if plan.StripNoExecuteTaints {
		for _, name := range e.order {
			all = append(all, kubeapi.TaintNode(e.nodes[name]))
		}
	}
	for _, a := range e.tainter.ApplyPlan(plan, all, now) {
		e.applyTaintAction(ctx, now, a, w)
	}
	if plan.ResetProbes {
		e.monitor.ResetProbes(now)
	}
}

// podReady reports whether p has a Ready condition that is not False.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status != corev1.ConditionFalse
		}
	}
	return false
}

// updateTaints writes a taint change and reports the taints that were
// added or removed (or, when the write failed, the change it meant).
func (e *Engine) updateTaints(ctx context.Context, now time.Time, node string, add, remove []taints.Taint, reason string, w Writer) error {
	if len(add) == 0 && len(remove) == 0 {
		return nil
	}
	var before []corev1.Taint
	if n := e.nodes[node]; n != nil {
		before = n.Spec.Taints
	}
	written, err := w.UpdateTaints(ctx, node, kubeapi.FromTaints(add), kubeapi.FromTaints(remove))
	if err != nil {
		for _, t := range remove {
			e.emit(Action{At: now, Kind: KindUntaint, Node: node, Taint: t.Key + ":" + string(t.Effect), Reason: reason, Err: err})
		}
		for _, t := range add {
			e.emit(Action{At: now, Kind: KindTaint, Node: node, Taint: t.Key + ":" + string(t.Effect), Reason: reason, Err: err})
		}
		return err
	}
	if written == nil {
		return nil
	}
	e.nodes[node] = written
	has := func(ts []corev1.Taint, t corev1.Taint) bool {
		return slices.ContainsFunc(ts, func(u corev1.Taint) bool { return u.Key == t.Key && u.Effect == t.Effect })
	}
	for _, t := range before {
		if !has(written.Spec.Taints, t) {
			e.emit(Action{At: now, Kind: KindUntaint, Node: node, Taint: t.Key + ":" + string(t.Effect), Reason: reason})
		}
	}
	for _, t := range written.Spec.Taints {
		if !has(before, t) {
			e.emit(Action{At: now, Kind: KindTaint, Node: node, Taint: t.Key + ":" + string(t.Effect), Reason: reason})
		}
	}
	return nil
}

func (e *Engine) applyTaintAction(ctx context.Context, now time.Time, a eviction.TaintAction, w Writer) {
	if e.nodes[a.Node] == nil {
		return
	}
	_ = e.updateTaints(ctx, now, a.Node, a.Add, a.Remove, a.Reason, w)
}

// noSchedule keeps the condition NoSchedule taints in line with the
// node's conditions (upstream's doNoScheduleTaintingPass).
func (e *Engine) noSchedule(ctx context.Context, now time.Time, name string, w Writer) {
	n := e.nodes[name]
	add, remove := taints.ReconcileConditionTaints(kubeapi.Taints(n.Spec.Taints), kubeapi.Conditions(n.Status.Conditions), n.Spec.Unschedulable, now)
	_ = e.updateTaints(ctx, now, name, add, remove, "ConditionTaint", w)
}

func (e *Engine) taintPass(ctx context.Context, now time.Time, w Writer) {
	e.nextPass = time.Time{}
	ups := e.tainter.Pass(now, func(name string) (conditions.Status, bool) {
		n := e.nodes[name]
		if n == nil {
			return "", false
		}
		return kubeapi.ReadyStatus(n), true
	})
	for _, u := range ups {
		if err := e.updateTaints(ctx, now, u.Node, []taints.Taint{u.Add}, []taints.Taint{u.Remove}, u.Reason, w); err != nil {
			e.tainter.TaintFailed(u, now)
		}
	}
}

// schedulePass sets the next tainting pass, on the 100ms grid counted
// from the first Tick as upstream's ticker.
func (e *Engine) schedulePass(now time.Time) {
	next, ok := e.tainter.NextPass(now)
	if !ok {
		e.nextPass = time.Time{}
		return
	}
	grid := next.Sub(e.start)
	if rem := grid % eviction.NodeTaintPassPeriod; rem != 0 {
		grid += eviction.NodeTaintPassPeriod - rem
	}
	e.nextPass = e.start.Add(grid)
}

// signature is what a node's pods were planned against: its NoExecute
// taints and its live pods.
func signature(n *corev1.Node, pods []*corev1.Pod) string {
	var b strings.Builder
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoExecute {
			fmt.Fprintf(&b, "%s=%s:%s;", t.Key, t.Value, t.Effect)
		}
	}
	b.WriteByte('|')
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			b.WriteString(string(p.UID) + ";")
		}
	}
	return b.String()
}

// planNode plans the node's pods against its NoExecute taints when they
// or the pods changed since the last plan, as the taint eviction
// controller reacts to node and pod updates.
func (e *Engine) planNode(ctx context.Context, now time.Time, name string, w Writer) {
	n := e.nodes[name]
	pods := e.pods[name]
	sig := signature(n, pods)
	if old, ok := e.planned[name]; ok && old == sig {
		return
	}
	e.planned[name] = sig
	live := make([]eviction.Pod, 0, len(pods))
	byKey := map[string]*corev1.Pod{}
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			ep := kubeapi.EvictionPod(p)
			live = append(live, ep)
			byKey[ep.Key()] = p
		}
	}
	sched := e.scheduled[name]
	for key := range sched {
		if byKey[key] == nil {
			delete(sched, key) // the pod is gone or terminating
		}
	}
	for _, d := range e.cfg.NoExecute.PlanNode(kubeapi.Taints(n.Spec.Taints), live, sched, now) {
		key := d.Pod.Key()
		podName := d.Pod.Namespace + "/" + d.Pod.Name
		switch d.Action {
		case eviction.NoExecuteEvictNow:
			delete(sched, key) // a deadline that has passed ends here, not again in evictDue
			e.evict(ctx, now, name, byKey[key], d.Reason, w)
		case eviction.NoExecuteSchedule, eviction.NoExecuteKeep:
			if sched == nil {
				sched = map[string]eviction.Scheduled{}
				e.scheduled[name] = sched
			}
			if old, ok := sched[key]; !ok || !old.At.Equal(d.Scheduled.At) {
				e.emit(Action{At: now, Kind: KindSchedule, Node: name, Pod: podName, Taint: d.Taint.Key + ":" + string(d.Taint.Effect), Due: d.At, Reason: d.Reason, Message: d.Message()})
			}
			sched[key] = d.Scheduled
		case eviction.NoExecuteCancel:
			if _, ok := sched[key]; ok {
				delete(sched, key)
				e.emit(Action{At: now, Kind: KindCancel, Node: name, Pod: podName, Reason: d.Reason, Message: d.Message()})
			}
		}
	}
}

func (e *Engine) evict(ctx context.Context, now time.Time, node string, p *corev1.Pod, reason string, w Writer) {
	if p == nil {
		return
	}
	err := w.EvictPod(ctx, p, eviction.TaintEvictionCondition, now)
	e.emit(Action{At: now, Kind: KindEvict, Node: node, Pod: p.Namespace + "/" + p.Name, Reason: reason, Message: eviction.TaintEvictionCondition.Message, Err: err})
	if err != nil {
		delete(e.planned, node) // plan the node again on the next tick
	}
}

// evictDue deletes the pods whose scheduled eviction has come.
func (e *Engine) evictDue(ctx context.Context, now time.Time, w Writer) {
	for _, name := range e.order {
		sched := e.scheduled[name]
		if len(sched) == 0 {
			continue
		}
		var due []*corev1.Pod
		for _, p := range e.pods[name] {
			key := kubeapi.EvictionPod(p).Key()
			if s, ok := sched[key]; ok && !now.Before(s.At) {
				delete(sched, key)
				due = append(due, p)
			}
		}
		for _, p := range due {
			e.evict(ctx, now, name, p, eviction.TaintManagerEvictionReason, w)
		}
	}
}

// next is the earliest time Tick has work.
func (e *Engine) next() time.Time {
	next := e.nextMonitor
	if !e.nextPass.IsZero() && e.nextPass.Before(next) {
		next = e.nextPass
	}
	for _, sched := range e.scheduled {
		for _, s := range sched {
			if s.At.Before(next) {
				next = s.At
			}
		}
	}
	return next
}
