package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/nodelife/nodelife/cmd/cluster/internal/apiutil"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/lease"
	"github.com/nodelife/nodelife/taints"
)

// boundPods selects the pods bound to a node.
var boundPods = fields.OneTermNotEqualSelector("spec.nodeName", "").String()

// Gate says whether the controller may write at now. With leader election,
// it is open only while the candidate leads and now is before its
// MustStopBy fence (election.Candidate.Allowed); without, nil means
// always open.
type Gate func(now time.Time) bool

// ErrNotLeading is returned for a write the gate refused.
var ErrNotLeading = errors.New("controller: not leading (or past the MustStopBy fence): write refused")

// Options configure a Controller. The zero value is usable: v1.37's
// defaults on the real clock, every write allowed, nothing recorded.
type Options struct {
	// Config is the decision configuration (DefaultConfig when zero).
	Config *Config
	// Clock is the controller's clock (the real one when nil).
	Clock clock.Clock
	// Gate guards every write (nil: always open). While it is closed the
	// controller decides nothing; when it opens again the controller starts
	// afresh, as a newly elected kube-controller-manager does.
	Gate Gate
	// Record, when set, receives every action.
	Record func(Action)
	// Resync is the informers' resync period (0: none).
	Resync time.Duration
	// OnStep, when set, is called by Run after each step with how long it
	// took on the wall clock and whether it ran a monitor pass.
	OnStep func(took time.Duration, monitorPass bool)
	// JudgeStaleView keeps judging nodes while the informers' watches are
	// broken, and after, on whatever the view holds: upstream's in-process
	// behaviour, which after the controller's own API outage can mark
	// healthy nodes Unknown for heartbeats it could not see. By default the
	// controller stops deciding when a watch fails, and when a consistent
	// list succeeds and the informers hold what it returned, it times every
	// node afresh (nodelifecycle.Controller.ViewRestored) and goes on.
	JudgeStaleView bool
}

// Controller is the node lifecycle controller of kube-controller-manager
// (node health, zone rates, NoExecute tainting) and its taint eviction
// controller, built on nodelife: informers on Nodes, Leases and Pods feed
// an Engine; its writes go to the API server with optimistic concurrency.
type Controller struct {
	client  kubernetes.Interface
	opts    Options
	cfg     Config
	clock   clock.Clock
	nodeInf cache.SharedIndexInformer
	podInf  cache.SharedIndexInformer
	leaseIn cache.SharedIndexInformer
	engine  *Engine
	writer  *APIWriter
	wake    chan struct{}
	// blind is set when an informer's watch failed and cleared once the
	// view is whole again.
	blind atomic.Bool
	// live answers the lease circuit breaker from the API server and the
	// lease informer's store.
	live *liveLeases
}

// liveLeases is the lease circuit breaker's view: a GET of the Lease (as
// kube-controller-manager's node lifecycle controller does since v1.37)
// and the resource version the lease informer's store has synced to.
type liveLeases struct {
	client kubernetes.Interface
	store  cache.Store
	// ctx is the context of the step that asks (set before each step).
	ctx context.Context
}

// LiveLease reads the node's Lease from the API server (a quorum read).
func (l *liveLeases) LiveLease(node string) (string, bool, error) {
	got, err := l.client.CoordinationV1().Leases(lease.NodeLeaseNamespace).Get(l.ctx, node, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "", false, nil
	case err != nil:
		return "", false, err
	}
	return got.ResourceVersion, true, nil
}

// CacheResourceVersion is the store's LastStoreSyncResourceVersion.
func (l *liveLeases) CacheResourceVersion() string {
	if s, ok := l.store.(interface{ LastStoreSyncResourceVersion() string }); ok {
		return s.LastStoreSyncResourceVersion()
	}
	return ""
}

// New returns a controller for client. Call Start, then Run or Step.
func New(client kubernetes.Interface, opts Options) (*Controller, error) {
	cfg := DefaultConfig()
	if opts.Config != nil {
		cfg = *opts.Config
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	c := &Controller{client: client, opts: opts, cfg: cfg, clock: opts.Clock, wake: make(chan struct{}, 1)}
	c.writer = &APIWriter{Client: client, Clock: opts.Clock, Gate: opts.Gate}
	c.nodeInf = informers.NewSharedInformerFactoryWithOptions(client, opts.Resync).Core().V1().Nodes().Informer()
	c.podInf = informers.NewSharedInformerFactoryWithOptions(client, opts.Resync, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = boundPods
	})).Core().V1().Pods().Informer()
	c.leaseIn = informers.NewSharedInformerFactoryWithOptions(client, opts.Resync, informers.WithNamespace(lease.NodeLeaseNamespace)).Coordination().V1().Leases().Informer()
	c.live = &liveLeases{client: client, store: c.leaseIn.GetStore(), ctx: context.Background()}
	poke := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.poke() },
		UpdateFunc: func(any, any) { c.poke() },
		DeleteFunc: func(any) { c.poke() },
	}
	for _, inf := range []cache.SharedIndexInformer{c.nodeInf, c.podInf, c.leaseIn} {
		if _, err := inf.AddEventHandler(poke); err != nil {
			return nil, err
		}
		if !opts.JudgeStaleView {
			if err := inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
				c.blind.Store(true)
				cache.DefaultWatchErrorHandler(ctx, r, err)
			}); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// Blind reports whether the controller has stopped deciding because its
// view of the cluster is interrupted (Options.JudgeStaleView off).
func (c *Controller) Blind() bool { return c.blind.Load() }

func (c *Controller) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Start starts the informers and waits for their caches to fill.
func (c *Controller) Start(ctx context.Context) error {
	for _, inf := range []cache.SharedIndexInformer{c.nodeInf, c.podInf, c.leaseIn} {
		go inf.Run(ctx.Done())
	}
	if !cache.WaitForCacheSync(ctx.Done(), c.nodeInf.HasSynced, c.podInf.HasSynced, c.leaseIn.HasSynced) {
		return fmt.Errorf("controller: informer caches did not sync: %w", ctx.Err())
	}
	return nil
}

// WaitCaughtUp waits until the informers hold what consistent lists of
// nodes, node leases and bound pods return, so that the next Step sees
// every write made before the call (the informers lag the API server by
// moments). A controller driven step by step, as the nodewatch command
// and the tests drive it, calls it before each Step; Run does not need to.
func (c *Controller) WaitCaughtUp(ctx context.Context) error {
	for {
		listed, err := List(ctx, c.client)
		if err != nil {
			return err
		}
		want := snapshotVersions(listed)
		for tries := 0; ; tries++ {
			got := snapshotVersions(c.Snapshot())
			if maps.Equal(got, want) {
				return nil
			}
			if len(got) != len(want) && tries > 0 {
				break // list again: objects may have come or gone since
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(2 * time.Millisecond):
			}
		}
	}
}

// caughtUp reports whether a consistent list succeeds and the informers
// already hold what it returned.
func (c *Controller) caughtUp(ctx context.Context) bool {
	listed, err := List(ctx, c.client)
	return err == nil && maps.Equal(snapshotVersions(c.Snapshot()), snapshotVersions(listed))
}

// List reads, with consistent lists, what the controller watches: every
// Node, the node Leases of kube-node-lease and the pods bound to a node.
// Errors name the list that failed.
func List(ctx context.Context, client kubernetes.Interface) (Snapshot, error) {
	var s Snapshot
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return s, fmt.Errorf("controller: list nodes: %w", err)
	}
	for i := range nodes.Items {
		s.Nodes = append(s.Nodes, &nodes.Items[i])
	}
	leases, err := client.CoordinationV1().Leases(lease.NodeLeaseNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return s, fmt.Errorf("controller: list node leases: %w", err)
	}
	s.Leases = make(map[string]*coordinationv1.Lease, len(leases.Items))
	for i := range leases.Items {
		s.Leases[leases.Items[i].Name] = &leases.Items[i]
	}
	pods, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: boundPods})
	if err != nil {
		return s, fmt.Errorf("controller: list pods: %w", err)
	}
	for i := range pods.Items {
		s.Pods = append(s.Pods, &pods.Items[i])
	}
	return s, nil
}

// snapshotVersions returns the resource versions of s's objects by
// kind/namespace/name.
func snapshotVersions(s Snapshot) map[string]string {
	out := map[string]string{}
	for _, n := range s.Nodes {
		out["node/"+n.Name] = n.ResourceVersion
	}
	for _, l := range s.Leases {
		out["lease/"+l.Name] = l.ResourceVersion
	}
	for _, p := range s.Pods {
		out["pod/"+p.Namespace+"/"+p.Name] = p.ResourceVersion
	}
	return out
}

// Snapshot returns the informers' view of the cluster.
func (c *Controller) Snapshot() Snapshot {
	var s Snapshot
	for _, o := range c.nodeInf.GetStore().List() {
		s.Nodes = append(s.Nodes, o.(*corev1.Node))
	}
	s.Leases = map[string]*coordinationv1.Lease{}
	for _, o := range c.leaseIn.GetStore().List() {
		l := o.(*coordinationv1.Lease)
		s.Leases[l.Name] = l
	}
	for _, o := range c.podInf.GetStore().List() {
		s.Pods = append(s.Pods, o.(*corev1.Pod))
	}
	return s
}

// Leading reports whether the gate is open at the clock's now.
func (c *Controller) Leading() bool {
	return c.opts.Gate == nil || c.opts.Gate(c.clock.Now())
}

// Passes returns how many monitor passes the controller has run since it
// last started leading (0 while it does not lead).
func (c *Controller) Passes() int {
	if c.engine == nil {
		return 0
	}
	return c.engine.Passes()
}

// Step runs whatever is due at the clock's now and returns when it next
// has work (zero when it does not lead: call again when it might). A
// controller whose gate is closed drops its state, so that it starts
// afresh when it leads again.
func (c *Controller) Step(ctx context.Context) (time.Time, error) {
	now := c.clock.Now()
	if !c.Leading() {
		c.engine = nil
		return time.Time{}, nil
	}
	if c.engine == nil {
		e, err := NewEngine(c.cfg)
		if err != nil {
			return time.Time{}, err
		}
		e.SetLiveLeases(c.live)
		c.engine = e
	}
	c.live.ctx = ctx
	if c.blind.Load() {
		// Decide nothing until a consistent list succeeds and the
		// informers hold what it returned; then count no silence the
		// controller could not see against the nodes.
		if !c.caughtUp(ctx) {
			return now.Add(time.Second), ctx.Err()
		}
		c.blind.Store(false)
		c.engine.ViewRestored(now)
	}
	next, err := c.engine.Step(ctx, now, c.Snapshot(), c.writer, c.opts.Record)
	if !c.Leading() {
		c.engine = nil // the fence passed during the tick
	}
	return next, err
}

// Run steps the controller until ctx ends: when the engine's next work is
// due, when an informer reports a change (changes within 100ms, the
// tainting pass period, are taken together), and at least once a second
// (to notice the gate opening).
func (c *Controller) Run(ctx context.Context) error {
	for {
		before := c.Passes()
		began := time.Now()
		next, err := c.Step(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if c.opts.OnStep != nil {
			c.opts.OnStep(time.Since(began), c.Passes() != before)
		}
		last := c.clock.Now()
		wait := time.Second
		if !next.IsZero() {
			wait = min(wait, next.Sub(last))
		}
		if !c.sleep(ctx, wait) {
			return nil
		}
	}
}

// sleep waits for d on the clock or for an informer's poke, then at least
// until 100ms after it started; false when ctx ended.
func (c *Controller) sleep(ctx context.Context, d time.Duration) bool {
	start := c.clock.Now()
	t := c.clock.NewTimer(max(d, 0))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	case <-c.wake:
	}
	gap := eviction.NodeTaintPassPeriod - c.clock.Since(start)
	if gap <= 0 {
		return true
	}
	g := c.clock.NewTimer(gap)
	defer g.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-g.C():
		return true
	}
}

// APIWriter is the Writer that talks to the API server: node status with
// UpdateStatus at the read resourceVersion, taints by read-modify-update
// retried on conflict (as upstream's SwapNodeControllerTaint), pod status
// with UpdateStatus, evictions as a DisruptionTarget condition and a
// delete conditional on the pod's UID. Every write first asks Gate.
type APIWriter struct {
	// Client writes to the API server.
	Client kubernetes.Interface
	// Clock gives the now the Gate is asked at.
	Clock clock.Clock
	// Gate, when set, is asked at the clock's now before every write.
	Gate Gate
}

// retries is how often a taint update retries a conflict (upstream's
// UpdateTaintBackoff steps).
const retries = 5

func (w *APIWriter) allowed() error {
	if w.Gate != nil && !w.Gate(w.Clock.Now()) {
		return ErrNotLeading
	}
	return nil
}

// WriteNodeConditions implements Writer. A conflict (another writer
// updated the Node since the controller read it) is retried as upstream's
// monitorNodeHealth retries tryUpdateNodeHealth, up to 5 attempts, each on
// a fresh read: the conditions this write changes are set on the fresh
// Node, the others (another component's) are kept. If the kubelet has
// posted a newer Ready heartbeat meanwhile, the decision no longer stands:
// the conflict is returned, and the next monitor pass decides again on
// the fresh view (upstream's retry would find the node heard, too).
func (w *APIWriter) WriteNodeConditions(ctx context.Context, node *corev1.Node, conds []corev1.NodeCondition) (*corev1.Node, error) {
	if err := w.allowed(); err != nil {
		return nil, err
	}
	changed := changedConditions(node.Status.Conditions, conds)
	n := node.DeepCopy()
	n.Status.Conditions = conds
	for i := 0; ; i++ {
		written, err := w.Client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		if err == nil || !apierrors.IsConflict(err) || i+1 == retries {
			return written, err
		}
		fresh, gerr := w.Client.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
		if gerr != nil {
			return nil, err
		}
		if readyHeartbeat(fresh).After(readyHeartbeat(node)) {
			return nil, err // the kubelet spoke: decide again on the fresh view
		}
		if aerr := w.allowed(); aerr != nil {
			return nil, aerr
		}
		n = fresh.DeepCopy()
		for _, c := range changed {
			setCondition(&n.Status.Conditions, c)
		}
	}
}

// changedConditions returns the conditions of next that differ from (or
// are not in) prev.
func changedConditions(prev, next []corev1.NodeCondition) []corev1.NodeCondition {
	var out []corev1.NodeCondition
	for _, c := range next {
		same := false
		for _, p := range prev {
			if p.Type == c.Type {
				same = p.Status == c.Status && p.Reason == c.Reason && p.Message == c.Message &&
					p.LastHeartbeatTime.Equal(&c.LastHeartbeatTime) && p.LastTransitionTime.Equal(&c.LastTransitionTime)
				break
			}
		}
		if !same {
			out = append(out, c)
		}
	}
	return out
}

// setCondition replaces the condition of c's type in conds, or adds it.
func setCondition(conds *[]corev1.NodeCondition, c corev1.NodeCondition) {
	for i := range *conds {
		if (*conds)[i].Type == c.Type {
			(*conds)[i] = c
			return
		}
	}
	*conds = append(*conds, c)
}

// readyHeartbeat is the Ready condition's lastHeartbeatTime (zero without).
func readyHeartbeat(n *corev1.Node) time.Time {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.LastHeartbeatTime.Time
		}
	}
	return time.Time{}
}

// UpdateTaints implements Writer.
func (w *APIWriter) UpdateTaints(ctx context.Context, name string, add, remove []corev1.Taint) (*corev1.Node, error) {
	var err error
	for i := 0; i < retries; i++ {
		var n *corev1.Node
		n, err = w.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		cur := kubeapi.Taints(n.Spec.Taints)
		next := taints.Apply(cur, kubeapi.Taints(add), kubeapi.Taints(remove))
		if taintsEqual(cur, next) {
			return n, nil
		}
		if err := w.allowed(); err != nil {
			return nil, err
		}
		n = n.DeepCopy()
		n.Spec.Taints = kubeapi.FromTaints(next)
		n, err = w.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		if err == nil || !apierrors.IsConflict(err) {
			return n, err
		}
	}
	return nil, err
}

// taintsEqual compares two taint lists by key, value and effect, in
// order (TimeAdded aside).
func taintsEqual(a, b []taints.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Value != b[i].Value || a[i].Effect != b[i].Effect {
			return false
		}
	}
	return true
}

// MarkPodNotReady implements Writer, as upstream's MarkPodsNotReady: the
// Ready condition turns False (its transition time moving to now); a pod
// already gone is not an error.
func (w *APIWriter) MarkPodNotReady(ctx context.Context, pod *corev1.Pod, now time.Time) error {
	if err := w.allowed(); err != nil {
		return err
	}
	p := pod.DeepCopy()
	apiutil.MarkNotReady(p, now, corev1.PodReady)
	_, err := w.Client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// EvictPod implements Writer, as the taint eviction controller: the
// DisruptionTarget condition is set through the status subresource, then
// the pod is deleted, conditional on its UID. A pod already gone is not
// an error.
func (w *APIWriter) EvictPod(ctx context.Context, pod *corev1.Pod, cond core.PodCondition, now time.Time) error {
	// As upstream's taint eviction controller, try up to 5 times; upstream
	// writes the condition with server-side apply, which cannot conflict,
	// so a conflict here (another writer between the read and the
	// update) is tried again on a fresh read.
	var err error
	for i := 0; i < retries; i++ {
		if err = w.evictOnce(ctx, pod, cond, now); err == nil || !apierrors.IsConflict(err) {
			return err
		}
	}
	return err
}

// evictOnce writes the DisruptionTarget condition on a fresh read of the
// pod and deletes it, conditional on its UID.
func (w *APIWriter) evictOnce(ctx context.Context, pod *corev1.Pod, cond core.PodCondition, now time.Time) error {
	if err := w.allowed(); err != nil {
		return err
	}
	pods := w.Client.CoreV1().Pods(pod.Namespace)
	p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || (err == nil && p.UID != pod.UID) {
		return nil
	}
	if err != nil {
		return err
	}
	p = p.DeepCopy()
	apiutil.SetPodCondition(p, corev1.PodCondition{Type: corev1.PodConditionType(cond.Type), Status: corev1.ConditionStatus(cond.Status),
		Reason: cond.Reason, Message: cond.Message, LastTransitionTime: metav1.NewTime(now)})
	if _, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err := w.allowed(); err != nil {
		return err
	}
	uid := pod.UID
	err = pods.Delete(ctx, pod.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}
