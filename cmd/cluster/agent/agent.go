package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/nodelife/nodelife/cmd/cluster/internal/apiutil"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/lease"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/taints"
)

// Options configure an Agent. The zero value is not usable: NodeName is
// required; every other field may be left zero (see each).
type Options struct {
	// NodeName is the Node's name (required; a DNS subdomain).
	NodeName string
	// Labels are the kubelet's --node-labels.
	Labels map[string]string
	// RegisterWithTaints are the kubelet's --register-with-taints, in the
	// kubectl taint grammar ("key=value:Effect"); removals are refused.
	RegisterWithTaints []string
	// Clock is the agent's clock (the real one when nil).
	Clock clock.Clock
	// Heartbeat configures the lease heartbeat
	// (lease.DefaultHeartbeatConfig(NodeName) when nil).
	Heartbeat *lease.HeartbeatConfig
	// Report configures when status is posted (conditions.DefaultReportConfig
	// when nil: update every 10s, report unchanged status every 5m).
	Report *conditions.ReportConfig
	// Observe returns the node's condition inputs at each status update
	// (memory, disk and PID pressure, runtime errors). Nil means a healthy
	// node. The shutdown manager's status is added by the agent.
	Observe func(now time.Time) conditions.KubeletInput
	// Shutdown is the graceful shutdown configuration (off when zero).
	Shutdown shutdown.Config
	// Runtime stops the containers of pods killed by a shutdown; nil means
	// the pods have no containers to stop.
	Runtime cri.RuntimeService
	// RunPods makes the agent report its Pending pods Running and Ready at
	// each status update, standing in for the kubelet's pod workers.
	RunPods bool
	// FinishDeletions (with RunPods) makes the agent finish, at each status
	// update, the deletion of its pods that are being deleted: a delete
	// with grace period 0, conditional on the pod's UID, as the kubelet's
	// status manager does once a pod's containers have stopped (the
	// agent's pods have none). Without it such a pod stays, as on a node
	// whose kubelet is gone.
	FinishDeletions bool
	// Capacity, when set, is the node's capacity and allocatable (cpu,
	// memory, pods, ...), written at registration and with each status
	// post, as the kubelet reports its machine: a scheduler places pods
	// only on nodes with room.
	Capacity corev1.ResourceList
	// Record, when set, receives the agent's events.
	Record func(Event)
}

// Event is something the agent did.
type Event struct {
	// At is the clock's time of the event.
	At time.Time
	// Node is the agent's node.
	Node string
	// Reason is machine-readable (Registered, HeartbeatFailed,
	// StatusFailed, Killing, Terminated, a shutdown event's reason, ...).
	Reason string
	// Message says what happened, for people.
	Message string
	// Err is the error behind a failure, nil otherwise.
	Err error
}

// Agent is the part of a kubelet that keeps its Node alive in the API:
// registration, the node lease heartbeat, node status, and graceful
// shutdown. Step does whatever is due at the clock's now; Run loops on it.
// Not safe for concurrent use.
type Agent struct {
	client kubernetes.Interface
	opts   Options
	clock  clock.Clock
	taints []corev1.Taint

	registered bool
	hb         *lease.Heartbeat
	lease      *coordinationv1.Lease // as last read or written
	hbNext     time.Time

	reporter   *conditions.Reporter
	statusNext time.Time
	forcePost  bool

	mgr          *shutdown.Manager
	shutdownNext time.Time
	killing      map[string]killing
	podsByKey    map[string]*corev1.Pod // the pods the shutdown started with
}

type killing struct {
	kill shutdown.Kill
	pod  *corev1.Pod
}

// ErrInvalidOptions is wrapped by every option error.
var ErrInvalidOptions = errors.New("agent: invalid options")

// New validates opts as the kubelet validates its flags and returns an
// agent; nothing is sent before the first Step.
func New(client kubernetes.Interface, opts Options) (*Agent, error) {
	var errs []error
	if err := conditions.ValidateNodeName(opts.NodeName); err != nil {
		errs = append(errs, fmt.Errorf("%w: NodeName: %w", ErrInvalidOptions, err))
	}
	if err := conditions.ValidateNodeLabels(opts.Labels); err != nil {
		errs = append(errs, fmt.Errorf("%w: Labels: %w", ErrInvalidOptions, err))
	}
	add, remove, err := taints.ParseTaints(opts.RegisterWithTaints)
	if err != nil {
		errs = append(errs, fmt.Errorf("%w: RegisterWithTaints: %w", ErrInvalidOptions, err))
	} else if len(remove) > 0 {
		errs = append(errs, fmt.Errorf("%w: RegisterWithTaints: %q removes a taint; only additions register", ErrInvalidOptions, remove[0].Key+"-"))
	}
	hc := lease.DefaultHeartbeatConfig(opts.NodeName)
	if opts.Heartbeat != nil {
		hc = *opts.Heartbeat
	}
	rc := conditions.DefaultReportConfig()
	if opts.Report != nil {
		rc = *opts.Report
	}
	hb, err := lease.NewHeartbeat(hc)
	if err != nil {
		errs = append(errs, fmt.Errorf("%w: Heartbeat: %w", ErrInvalidOptions, err))
	}
	rep, err := conditions.NewReporter(rc)
	if err != nil {
		errs = append(errs, fmt.Errorf("%w: Report: %w", ErrInvalidOptions, err))
	}
	mgr, err := shutdown.NewManager(opts.Shutdown)
	if err != nil {
		errs = append(errs, fmt.Errorf("%w: Shutdown: %w", ErrInvalidOptions, err))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Agent{client: client, opts: opts, clock: opts.Clock, taints: kubeapi.FromTaints(add), hb: hb, reporter: rep, mgr: mgr,
		killing: map[string]killing{}}, nil
}

func (a *Agent) event(reason string, err error, format string, args ...any) {
	if a.opts.Record != nil {
		a.opts.Record(Event{At: a.clock.Now(), Node: a.opts.NodeName, Reason: reason, Message: fmt.Sprintf(format, args...), Err: err})
	}
}

// Step registers the node if it is not yet, renews the lease, posts status
// and moves a shutdown on, as far as each is due at the clock's now. It
// returns when it next has work, and the first error of a failed
// registration (other failures are retried on their own schedules and
// reported as events).
func (a *Agent) Step(ctx context.Context) (time.Time, error) {
	now := a.clock.Now()
	if !a.registered {
		if err := a.register(ctx); err != nil {
			return now.Add(time.Second), err
		}
	}
	if !now.Before(a.hbNext) {
		a.heartbeat(ctx)
	}
	a.moveShutdown(ctx)
	if a.forcePost || !now.Before(a.statusNext) {
		a.status(ctx)
	}
	next := a.hbNext
	if a.statusNext.Before(next) {
		next = a.statusNext
	}
	if !a.shutdownNext.IsZero() && a.shutdownNext.Before(next) {
		next = a.shutdownNext
	}
	if len(a.killing) > 0 && now.Add(time.Second).Before(next) {
		next = now.Add(time.Second) // poll the runtime for stopped pods
	}
	return next, nil
}

// Run steps the agent until ctx ends.
func (a *Agent) Run(ctx context.Context) error {
	for {
		next, err := a.Step(ctx)
		if err != nil {
			a.event("RegistrationFailed", err, "registration failed")
		}
		t := a.clock.NewTimer(next.Sub(a.clock.Now()))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C():
		}
	}
}

// register creates the Node with its labels and registration taints, as
// the kubelet's registerWithAPIServer; a Node that already exists is
// adopted.
func (a *Agent) register(ctx context.Context) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: a.opts.NodeName, Labels: maps.Clone(a.opts.Labels)},
		Spec: corev1.NodeSpec{Taints: slices.Clone(a.taints)}}
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	node.Labels[corev1.LabelHostname] = a.opts.NodeName
	node.Labels[corev1.LabelOSStable], node.Labels[corev1.LabelArchStable] = "linux", "amd64"
	a.setCapacity(node)
	got, err := a.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		got, err = a.client.CoreV1().Nodes().Get(ctx, a.opts.NodeName, metav1.GetOptions{})
	}
	if err != nil {
		return fmt.Errorf("agent: register node %s: %w", a.opts.NodeName, err)
	}
	a.registered = true
	a.hb.SetNodeUID(got.UID) // the lease is owned by the Node
	a.forcePost = true
	a.event("Registered", nil, "node %s registered with %d taints", a.opts.NodeName, len(got.Spec.Taints))
	return nil
}

// heartbeat carries out the heartbeat's requests until it says wait.
func (a *Agent) heartbeat(ctx context.Context) {
	now := a.clock.Now()
	leases := a.client.CoordinationV1().Leases(lease.NodeLeaseNamespace)
	s := a.hb.Step(now)
	for tries := 0; s.Op != lease.OpWait && tries < 16; tries++ {
		var got *coordinationv1.Lease
		var err error
		op := s.Op
		switch op {
		case lease.OpGet:
			got, err = leases.Get(ctx, a.opts.NodeName, metav1.GetOptions{})
		case lease.OpCreate:
			l := &coordinationv1.Lease{}
			kubeapi.ApplyLease(s.Object(), l)
			got, err = leases.Create(ctx, l, metav1.CreateOptions{})
		case lease.OpUpdate:
			l := &coordinationv1.Lease{}
			if a.lease != nil {
				l = a.lease.DeepCopy()
			}
			kubeapi.ApplyLease(s.Object(), l)
			got, err = leases.Update(ctx, l, metav1.UpdateOptions{})
		}
		var server *lease.Lease
		if err == nil {
			a.lease = got
			conv := kubeapi.Lease(got)
			server = &conv
		}
		s = a.hb.Done(now, apiutil.Outcome(err), server)
		if err != nil && !apierrors.IsNotFound(err) {
			a.event("HeartbeatFailed", err, "%s of lease %s", op, a.opts.NodeName)
		}
	}
	a.hbNext = s.Next
	if s.Op != lease.OpWait || !s.Next.After(now) {
		a.hbNext = now.Add(time.Second)
	}
}

// status runs the kubelet's condition setters on the Node's conditions as
// the API server has them (the controller may have rewritten Ready to
// Unknown) and posts them when the reporter says so: at once when they
// changed, else once per report frequency.
func (a *Agent) status(ctx context.Context) {
	now := a.clock.Now()
	in := conditions.KubeletInput{Ready: conditions.ReadyInput{Capacity: []string{"cpu", "memory", "pods", "ephemeral-storage"}, LocalStorageCapacityIsolation: true}}
	if a.opts.Observe != nil {
		in = a.opts.Observe(now)
	}
	if err := a.mgr.ShutdownStatus(); err != nil {
		in.Ready.ShutdownErrors = append(slices.Clone(in.Ready.ShutdownErrors), err)
	}
	nodes := a.client.CoreV1().Nodes()
	n, err := nodes.Get(ctx, a.opts.NodeName, metav1.GetOptions{})
	if err != nil {
		a.event("StatusFailed", err, "reading node")
		a.statusNext = now.Add(time.Second)
		return
	}
	base := kubeapi.Conditions(n.Status.Conditions)
	conds, _ := conditions.SetKubeletConditions(now, base, in)
	d := a.reporter.Step(now, a.forcePost || conditions.StatusChanged(base, conds))
	a.statusNext = d.Next
	if a.opts.RunPods {
		defer a.runPods(ctx, now)
	}
	if !d.Post {
		return
	}
	n = n.DeepCopy()
	n.Status.Conditions = kubeapi.FromConditions(conds)
	a.setCapacity(n)
	if _, err := nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		// A conflict too is retried a second later, on a fresh read.
		a.event("StatusFailed", err, "posting node status")
		a.statusNext = now.Add(time.Second)
		return
	}
	a.forcePost = false
	a.reporter.Reported(now)
}

// setCapacity writes Options.Capacity, when set, into n's status.
func (a *Agent) setCapacity(n *corev1.Node) {
	if a.opts.Capacity != nil {
		n.Status.Capacity, n.Status.Allocatable = a.opts.Capacity.DeepCopy(), a.opts.Capacity.DeepCopy()
	}
}

// pods lists the pods bound to the node.
func (a *Agent) pods(ctx context.Context) ([]corev1.Pod, error) {
	list, err := a.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{ResourceVersion: "0", FieldSelector: fields.OneTermEqualSelector("spec.nodeName", a.opts.NodeName).String()})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// runPods reports the node's Pending pods Running and Ready, and finishes
// the deletion of those being deleted with Options.FinishDeletions.
func (a *Agent) runPods(ctx context.Context, now time.Time) {
	if a.mgr.ShutdownStatus() != nil {
		return
	}
	pods, err := a.pods(ctx)
	if err != nil {
		a.event("ListPodsFailed", err, "listing pods")
		return
	}
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp != nil && a.opts.FinishDeletions {
			grace := int64(0)
			err := a.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace,
				Preconditions: &metav1.Preconditions{UID: &p.UID}})
			if err != nil && !apierrors.IsNotFound(err) {
				a.event("PodDeleteFailed", err, "pod %s/%s", p.Namespace, p.Name)
			}
			continue
		}
		if p.DeletionTimestamp != nil || (p.Status.Phase != "" && p.Status.Phase != corev1.PodPending) {
			continue
		}
		t := metav1.NewTime(now)
		p.Status.Phase = corev1.PodRunning
		p.Status.StartTime = &t
		p.Status.Conditions = []corev1.PodCondition{
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: t},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: t},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: t},
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: t},
		}
		if _, err := a.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			a.event("PodStatusFailed", err, "pod %s/%s", p.Namespace, p.Name)
		}
	}
}

// ShuttingDown reports whether a graceful shutdown has been detected.
func (a *Agent) ShuttingDown() bool { return a.mgr.ShutdownStatus() != nil }

// Shutdown handles a shutdown event at the clock's now (logind's
// PrepareForShutdown): the node turns not Ready at once and the pods on it
// are killed phase by phase, as Step moves the shutdown on.
func (a *Agent) Shutdown(ctx context.Context) error {
	if !a.mgr.Enabled() {
		return fmt.Errorf("agent: graceful shutdown is off for node %s (no shutdown grace period configured)", a.opts.NodeName)
	}
	pods, err := a.pods(ctx)
	if err != nil {
		return fmt.Errorf("agent: list pods of node %s: %w", a.opts.NodeName, err)
	}
	var in []core.Pod
	byKey := map[string]*corev1.Pod{}
	for i := range pods {
		p := &pods[i]
		if p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
			continue
		}
		sp := kubeapi.Pod(p)
		in = append(in, sp)
		byKey[sp.Key()] = p
	}
	a.podsByKey = byKey
	a.handle(ctx, a.mgr.Start(a.clock.Now(), in))
	return nil
}

// handle carries out a shutdown step.
func (a *Agent) handle(ctx context.Context, s shutdown.Step) {
	for _, e := range s.Events {
		a.event(e.Reason, nil, "%s", e.Message)
	}
	for _, p := range s.Phases {
		a.event("ShutdownPhase", nil, "%v", p)
	}
	if s.ReadyChanged {
		a.forcePost = true
	}
	a.shutdownNext = s.Next
	for _, k := range s.Kills {
		p := a.podsByKey[k.Pod.Key()]
		if p == nil {
			continue
		}
		a.killing[k.Pod.Key()] = killing{kill: k, pod: p}
		a.stopContainers(ctx, p, time.Duration(k.GracePeriodSeconds)*time.Second)
		a.event("Killing", nil, "pod %s, phase %d, grace period %ds", k.Pod.Key(), k.Phase, k.GracePeriodSeconds)
	}
}

// stopContainers asks the runtime to stop the pod's running containers.
func (a *Agent) stopContainers(ctx context.Context, p *corev1.Pod, grace time.Duration) {
	if a.opts.Runtime == nil {
		return
	}
	cs, err := a.opts.Runtime.ListContainers(ctx)
	if err != nil {
		a.event("RuntimeFailed", err, "listing containers")
		return
	}
	for _, c := range cs {
		if c.PodUID == string(p.UID) && c.State == cri.ContainerRunning {
			if err := a.opts.Runtime.StopContainer(ctx, c.ID, grace); err != nil {
				a.event("RuntimeFailed", err, "stopping container %s", c.ID)
			}
		}
	}
}

// stopped reports whether the runtime has no running container of p.
func (a *Agent) stopped(ctx context.Context, p *corev1.Pod) bool {
	if a.opts.Runtime == nil {
		return true
	}
	cs, err := a.opts.Runtime.ListContainers(ctx)
	if err != nil {
		return false
	}
	for _, c := range cs {
		if c.PodUID == string(p.UID) && c.State == cri.ContainerRunning {
			return false
		}
	}
	return true
}

// moveShutdown writes the status of pods whose containers stopped, tells
// the manager, and ends phases whose time is up.
func (a *Agent) moveShutdown(ctx context.Context) {
	now := a.clock.Now()
	for _, key := range slices.Sorted(maps.Keys(a.killing)) {
		k := a.killing[key]
		if !a.stopped(ctx, k.pod) {
			continue
		}
		if err := a.writeTerminated(ctx, k, now); err != nil {
			a.event("PodStatusFailed", err, "pod %s", key)
			continue
		}
		delete(a.killing, key)
		a.event("Terminated", nil, "pod %s: %s", key, k.kill.Status.Message)
		a.handle(ctx, a.mgr.PodTerminated(now, key))
	}
	if !a.shutdownNext.IsZero() && !now.Before(a.shutdownNext) {
		a.handle(ctx, a.mgr.Step(now))
	}
}

// writeTerminated sets the status the kubelet writes on a pod killed for
// a shutdown: the phase, reason and message, and the DisruptionTarget
// condition, through the status subresource.
func (a *Agent) writeTerminated(ctx context.Context, k killing, now time.Time) error {
	pods := a.client.CoreV1().Pods(k.pod.Namespace)
	p, err := pods.Get(ctx, k.pod.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	p = p.DeepCopy()
	st := k.kill.Status
	p.Status.Phase = corev1.PodPhase(st.Phase)
	p.Status.Reason, p.Status.Message = st.Reason, st.Message
	apiutil.MarkNotReady(p, now, corev1.PodReady, corev1.ContainersReady)
	if c := st.Condition; c != nil {
		apiutil.SetPodCondition(p, corev1.PodCondition{Type: corev1.PodConditionType(c.Type), Status: corev1.ConditionStatus(c.Status),
			ObservedGeneration: p.Generation, Reason: c.Reason, Message: c.Message, LastTransitionTime: metav1.NewTime(now)})
	}
	_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
	return err
}
