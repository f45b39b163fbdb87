package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/nodelife/nodelife/cmd/cluster/agent"
	"github.com/nodelife/nodelife/cmd/cluster/controller"
	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/lease"
)

// stepper is one component the harness drives on the fake clock: Step
// runs whatever is due and returns when it next has work.
type stepper struct {
	name string
	step func(ctx context.Context) (time.Time, error)
	// before runs before each step (a controller waits for its informers
	// to catch up with the writes made so far).
	before func()
	// pause, when set, cuts the stepper off after pause.from (exclusive)
	// until pause.to (0: to the end); pauses are further such windows.
	pause  *window
	pauses []window
	due    time.Time
}

// pausedAt returns the window that cuts the stepper off at off, if any.
func (s *stepper) pausedAt(off time.Duration) (window, bool) {
	for _, p := range s.pauses {
		if off > p.from && (p.to == 0 || off < p.to) {
			return p, true
		}
	}
	if p := s.pause; p != nil && off > p.from && (p.to == 0 || off < p.to) {
		return *p, true
	}
	return window{}, false
}

// window is a time span after the start: (from, to).
type window struct{ from, to time.Duration }

// harness runs agents, controllers and candidates against the real API
// server on one fake clock, one instant at a time: at each instant every
// component that is due steps, in the order added, and then the harness
// reads the API and records what changed, with the fake time it became
// visible.
type harness struct {
	t        *testing.T
	ctx      context.Context
	client   kubernetes.Interface
	clock    *testingclock.FakeClock
	start    time.Time
	ns       string
	steppers []*stepper
	seen     map[string]string // object -> state
	events   []string          // "<offset> <object> <change>", in order
	agents   map[string]*agent.Agent
	// lock, when set, is the leader-election Lease whose holder observe
	// records ("lock holder=<identity>").
	lock *[2]string
	// check, when set, runs after each instant's observe, with h.seen
	// holding the state just read (a soak's invariants).
	check func(now time.Time)
}

// newHarness makes a namespace for the test and removes every node, node
// lease and pod the test made when it ends.
func newHarness(t *testing.T) *harness {
	s := testcluster.Shared(t)
	ctx := t.Context()
	ns := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(ns) > 50 {
		ns = ns[:50]
	}
	_, err := s.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	start := time.Now().Truncate(time.Second).Add(time.Second)
	h := &harness{t: t, ctx: ctx, client: s.Client, clock: testingclock.NewFakeClock(start), start: start, ns: ns,
		seen: map[string]string{}, agents: map[string]*agent.Agent{}}
	t.Cleanup(func() { cleanup(t, s.Client, ns) })
	return h
}

// cleanup deletes every node and node lease, and the namespace's pods
// (at once: no kubelet confirms their termination here).
func cleanup(t *testing.T, c kubernetes.Interface, ns string) {
	ctx := context.Background()
	zero := int64(0)
	now := metav1.DeleteOptions{GracePeriodSeconds: &zero}
	require.NoError(t, c.CoreV1().Pods(ns).DeleteCollection(ctx, now, metav1.ListOptions{}))
	require.NoError(t, c.CoreV1().Nodes().DeleteCollection(ctx, now, metav1.ListOptions{}))
	require.NoError(t, c.CoordinationV1().Leases(lease.NodeLeaseNamespace).DeleteCollection(ctx, now, metav1.ListOptions{}))
	require.NoError(t, c.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}))
}

func (h *harness) at(off time.Duration) time.Time { return h.start.Add(off) }

// addAgent starts an agent for a node with the given zone label.
func (h *harness) addAgent(name, zone string, opts agent.Options, pause *window) *agent.Agent {
	opts.NodeName = name
	opts.Clock = h.clock
	if zone != "" {
		if opts.Labels == nil {
			opts.Labels = map[string]string{}
		}
		opts.Labels[corev1.LabelTopologyRegion] = "r"
		opts.Labels[corev1.LabelTopologyZone] = zone
	}
	a, err := agent.New(h.nodeClient(name), opts)
	require.NoError(h.t, err)
	h.agents[name] = a
	h.steppers = append(h.steppers, &stepper{name: name, step: a.Step, pause: pause, due: h.start})
	return a
}

// nodeClient returns a client with node's identity (system:node:<node>,
// group system:nodes): a kubelet's rights under the Node authorizer and
// NodeRestriction, no more.
func (h *harness) nodeClient(node string) kubernetes.Interface {
	cfg, err := testcluster.Shared(h.t).NodeConfig(node)
	require.NoError(h.t, err)
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(h.t, err)
	return client
}

// addController starts a controller's informers and adds it.
func (h *harness) addController(name string, opts controller.Options, pause *window) *controller.Controller {
	c := h.addControllerOn(name, h.client, opts, h.waitCaughtUp)
	h.steppers[len(h.steppers)-1].pause = pause
	return c
}

// addControllerOn starts a controller on client and adds it; before runs
// before each of its steps (h.waitCaughtUp, as a rule).
func (h *harness) addControllerOn(name string, client kubernetes.Interface, opts controller.Options, before func(*controller.Controller)) *controller.Controller {
	opts.Clock = h.clock
	c, err := controller.New(client, opts)
	require.NoError(h.t, err)
	require.NoError(h.t, c.Start(h.ctx))
	h.steppers = append(h.steppers, &stepper{name: name, step: c.Step, before: func() { before(c) }, due: h.start})
	return c
}

// clientVia returns a client of the test server whose requests go through
// the RoundTripper wrap puts in front of the real one.
func (h *harness) clientVia(wrap func(http.RoundTripper) http.RoundTripper) kubernetes.Interface {
	cfg := rest.CopyConfig(testcluster.Shared(h.t).Config)
	cfg.WrapTransport = wrap
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(h.t, err)
	return client
}

// zoneAgents starts five agents per zone (a-0 ... a-4, ...), each node
// with one pod of each kind: "default" (no toleration: the API server's
// 300s), "60s" (tolerates unreachable for 60s), "forever" (tolerates it
// with no tolerationSeconds). The agents of the zones in cut stop after
// +60s until +600s.
func (h *harness) zoneAgents(zones, kinds []string, cut ...string) {
	for _, z := range zones {
		for i := 0; i < 5; i++ {
			node := fmt.Sprintf("%s-%d", z, i)
			for _, kind := range kinds {
				var tols []corev1.Toleration
				switch kind {
				case "60s":
					tols = tolerateUnreachable(60)
				case "forever":
					tols = []corev1.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}
				}
				h.createPod(node+"-"+kind, node, tols, "")
			}
			var pause *window
			if slices.Contains(cut, z) {
				pause = &window{from: 60 * time.Second, to: 600 * time.Second}
			}
			h.addAgent(node, z, agent.Options{RunPods: true}, pause)
		}
	}
}

// timeline returns the recorded changes of the objects whose names start
// with prefix, pod phases left out, sorted.
func (h *harness) timeline(prefix string) []string {
	var out []string
	for _, e := range h.eventsAbout("", prefix) {
		if !strings.Contains(e, " phase=") {
			out = append(out, e)
		}
	}
	return sorted(out)
}

// requireQuiet fails if an object whose name starts with one of the
// prefixes changed after the start.
func (h *harness) requireQuiet(prefixes ...string) {
	h.t.Helper()
	for _, e := range h.eventsAbout("", prefixes...) {
		require.True(h.t, strings.HasPrefix(e, "0s "), "%v changed after the start: %s", prefixes, e)
	}
}

// useLock makes observe record the leader-election lock's holder and
// deletes the lock when the test ends.
func (h *harness) useLock() {
	h.lock = &[2]string{"kube-system", lockName}
	h.t.Cleanup(func() {
		err := testcluster.Shared(h.t).Client.CoordinationV1().Leases("kube-system").Delete(context.Background(), lockName, metav1.DeleteOptions{})
		if !apierrors.IsNotFound(err) {
			require.NoError(h.t, err)
		}
	})
}

// wake makes the named component due now (after something outside the
// harness, such as a shutdown event, gave it work).
func (h *harness) wake(name string) {
	for _, s := range h.steppers {
		if s.name == name {
			s.due = h.clock.Now()
		}
	}
}

// waitCaughtUp waits until c's informers hold what a consistent list
// returns, so that each controller step sees every write made before it,
// as it would in a real cluster given a moment.
func (h *harness) waitCaughtUp(c *controller.Controller) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.ctx, 20*time.Second)
	defer cancel()
	require.NoError(h.t, c.WaitCaughtUp(ctx), "informers did not catch up")
}

// run steps everything up to and including the offset until.
func (h *harness) run(until time.Duration) {
	h.t.Helper()
	end := h.at(until)
	for {
		now := h.clock.Now()
		off := now.Sub(h.start)
		for spins := 0; ; spins++ {
			ran := false
			for _, s := range h.steppers {
				if p, ok := s.pausedAt(off); ok {
					if p.to == 0 {
						s.due = end.Add(time.Hour)
					} else {
						s.due = h.at(p.to)
					}
					continue
				}
				if now.Before(s.due) {
					continue
				}
				if s.before != nil {
					s.before()
				}
				next, err := s.step(h.ctx)
				require.NoError(h.t, err, "%s at +%v", s.name, off)
				if next.IsZero() {
					next = now.Add(time.Second) // idle (a controller that does not lead): look again
				}
				s.due = next
				ran = true
			}
			if !ran {
				break
			}
			require.Less(h.t, spins, 10, "components keep asking to run again at +%v", off)
		}
		h.observe(now)
		if h.check != nil {
			h.check(now)
		}
		next := end.Add(time.Nanosecond)
		for _, s := range h.steppers {
			if s.due.Before(next) {
				next = s.due
			}
		}
		if !next.After(now) {
			next = now.Add(time.Millisecond) // a paused stepper resuming now
		}
		if c := h.clock.Now(); next.Before(c) {
			next = c // a request moved the clock on (an injected delay)
		}
		if next.After(end) {
			h.clock.SetTime(end)
			return
		}
		h.clock.SetTime(next)
	}
}

// observe reads nodes and the namespace's pods and records every change
// since the last look: a node's Ready status and taints, a pod's Ready
// condition, phase and deletion.
func (h *harness) observe(now time.Time) {
	h.t.Helper()
	off := now.Sub(h.start)
	cur := map[string]string{}
	nodes, err := h.client.CoreV1().Nodes().List(h.ctx, metav1.ListOptions{})
	require.NoError(h.t, err)
	for _, n := range nodes.Items {
		ready := string(kubeapi.ReadyStatus(&n))
		if ready == "" {
			ready = "none"
		}
		cur[n.Name+" Ready"] = ready
		for _, t := range n.Spec.Taints {
			cur[n.Name+" taint "+t.Key+":"+string(t.Effect)] = "on"
		}
	}
	pods, err := h.client.CoreV1().Pods(h.ns).List(h.ctx, metav1.ListOptions{})
	require.NoError(h.t, err)
	for _, p := range pods.Items {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady {
				cur[p.Name+" Ready"] = string(c.Status)
			}
		}
		if p.Status.Phase != "" {
			cur[p.Name+" phase"] = string(p.Status.Phase)
		}
		if p.DeletionTimestamp != nil {
			cur[p.Name+" deleted"] = "yes"
		}
	}
	if h.lock != nil {
		l, err := h.client.CoordinationV1().Leases(h.lock[0]).Get(h.ctx, h.lock[1], metav1.GetOptions{})
		if err == nil && l.Spec.HolderIdentity != nil {
			cur["lock holder"] = *l.Spec.HolderIdentity
		}
	}
	var changes []string
	for k, v := range cur {
		if h.seen[k] != v {
			changes = append(changes, fmt.Sprintf("%v %s=%s", off, k, v))
		}
	}
	for k := range h.seen {
		if _, ok := cur[k]; !ok {
			changes = append(changes, fmt.Sprintf("%v %s=off", off, k))
		}
	}
	sort.Strings(changes)
	h.events = append(h.events, changes...)
	h.seen = cur
}

// eventsAbout returns the recorded changes whose object starts with one
// of the prefixes and whose key contains filter.
func (h *harness) eventsAbout(filter string, prefixes ...string) []string {
	var out []string
	for _, e := range h.events {
		_, rest, _ := strings.Cut(e, " ")
		if !strings.Contains(rest, filter) {
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(rest, p) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// sorted returns a sorted copy.
func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// ev formats an expected change.
func ev(off time.Duration, what string) string { return fmt.Sprintf("%v %s", off, what) }

// createPod creates a pod bound to node.
func (h *harness) createPod(name, node string, tols []corev1.Toleration, prio string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: name}, Spec: corev1.PodSpec{
		NodeName: node, Tolerations: tols, PriorityClassName: prio,
		Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
	}}
	got, err := h.client.CoreV1().Pods(h.ns).Create(h.ctx, p, metav1.CreateOptions{})
	require.NoError(h.t, err)
	return got
}

func int64p(v int64) *int64 { return &v }
