package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/cmd/cluster/agent"
	"github.com/nodelife/nodelife/cmd/cluster/controller"
	"github.com/nodelife/nodelife/cmd/cluster/election"
	"github.com/nodelife/nodelife/lease"
)

// write is one write request a replica sent, as seen on the wire.
type write struct {
	at       time.Time
	method   string
	path     string
	leading  bool      // the replica's candidate led when it was sent
	fence    time.Time // its MustStopBy then
	injected bool      // answered by the test, never sent
}

// wire is a replica's transport: it records every write with the fake
// time it was sent at, and can delay or refuse the replica's lock updates.
type wire struct {
	next http.RoundTripper
	h    *harness
	mu   sync.Mutex
	log  []write
	cand *election.Candidate
	// fault, when set, may delay (the answer comes back late: the fake
	// clock moves on during the request) or refuse (409) any write.
	fault func(at time.Time, method, path string) (delay time.Duration, conflict bool)
}

const lockName = "nodelife-controller"

func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet {
		return w.next.RoundTrip(req)
	}
	now := w.h.clock.Now()
	w.mu.Lock()
	wr := write{at: now, method: req.Method, path: req.URL.Path}
	if w.cand != nil {
		wr.leading, wr.fence = w.cand.Leading(), w.cand.MustStopBy()
	}
	var delay time.Duration
	var conflict bool
	if w.fault != nil {
		delay, conflict = w.fault(now, req.Method, req.URL.Path)
	}
	wr.injected = conflict
	w.log = append(w.log, wr)
	w.mu.Unlock()
	if conflict {
		return statusResponse(req, http.StatusConflict, "Conflict", "injected conflict"), nil
	}
	resp, err := w.next.RoundTrip(req)
	if delay > 0 {
		w.h.clock.Step(delay) // the answer comes back late
	}
	return resp, err
}

// writes returns the replica's writes other than to its lock (a replica
// writes no node lease).
func (w *wire) writes() []write {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []write
	for _, wr := range w.log {
		if !strings.Contains(wr.path, "/namespaces/kube-system/leases") {
			out = append(out, wr)
		}
	}
	return out
}

// replica is one controller process: a candidate and a controller on a
// client of its own.
type replica struct {
	name string
	wire *wire
	cand *election.Candidate
	ctrl *controller.Controller
	acts []controller.Action
}

// addReplica adds a candidate and a gated controller; the candidate is cut
// off (it stops stepping, as a hung elector) during pause.
func (h *harness) addReplica(name string, pause *window, fault func(at time.Time, method, path string) (time.Duration, bool)) *replica {
	r := &replica{name: name, wire: &wire{h: h, fault: fault}}
	client := h.clientVia(func(rt http.RoundTripper) http.RoundTripper {
		r.wire.next = rt
		return r.wire
	})
	var err error
	r.cand, err = election.New(client, election.Options{Namespace: "kube-system", Name: lockName, Clock: h.clock,
		Config: lease.DefaultElectionConfig(name)})
	require.NoError(h.t, err)
	r.wire.cand = r.cand
	h.steppers = append(h.steppers, &stepper{name: name + "/elector", pause: pause, due: h.start,
		step: func(ctx context.Context) (time.Time, error) { return r.cand.Step(ctx), nil }})
	r.ctrl = h.addControllerOn(name+"/controller", client, controller.Options{Gate: r.cand.Allowed,
		Record: func(a controller.Action) { r.acts = append(r.acts, a) }}, h.waitCaughtUp)
	h.useLock()
	return r
}

// electionCluster is one zone of three nodes whose third node's agent
// stops after +30s, with the given pods on that node.
func electionCluster(t *testing.T, tolerations ...int64) *harness {
	h := newHarness(t)
	for i, tol := range tolerations {
		h.createPod(fmt.Sprintf("p-%02d", i), "a-2", []corev1.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists,
			Effect: corev1.TaintEffectNoExecute, TolerationSeconds: int64p(tol)}}, "")
	}
	for i := 0; i < 3; i++ {
		var pause *window
		if i == 2 {
			pause = &window{from: 30 * time.Second}
		}
		h.addAgent(fmt.Sprintf("a-%d", i), "a", agent.Options{}, pause)
	}
	return h
}

// Two replicas with client-go's defaults (15s lease, 10s renew deadline,
// 2s retry, no jitter). r1 creates the lock at +0s and renews it every 2s;
// its elector hangs after its renewal at +100s while its controller keeps
// running. Worked out by hand:
//
//   - r1's fence is +115s (that renewal plus 15s). r2 saw the record change
//     at +100s and polls every 2s; the lock expires for it at +115s, so it
//     takes the lock at its poll at +116s.
//   - a-2's agent stops after +30s: r1 writes Ready=Unknown and the
//     NoSchedule taint at +85s (first pass after +80s) and the NoExecute
//     taint in the same pass (as since v1.29), which schedules the 60s pod
//     for +145s. r1 still believes it leads at +145s, but it is past its
//     fence: nothing is written. r2 starts afresh at +116s: its first pass
//     takes the NoExecute taint off the node it sees for the first time
//     and, the node being Unknown, puts it back at once (both within +116s,
//     so no change is observed), and deletes the pod 60s later, at +176s
//     (upstream's restarted taint eviction controller counts from its own
//     first observation).
//   - r2 writes nothing before +116s, r1 nothing from +115s.
func TestLeaderElectionTakeover(t *testing.T) {
	h := electionCluster(t, 60)
	r1 := h.addReplica("r1", &window{from: 100 * time.Second}, nil)
	r2 := h.addReplica("r2", nil, nil)
	h.run(200 * time.Second)

	s := time.Second
	require.Equal(t, []string{ev(0, "lock holder=r1"), ev(116*s, "lock holder=r2")}, h.eventsAbout("", "lock"))
	require.Equal(t, sorted([]string{
		ev(0, "a-2 Ready=True"), ev(85*s, "a-2 Ready=Unknown"), ev(85*s, "a-2 "+unreachableNoSchedule+"=on"), ev(85*s, "a-2 "+unreachableNoExecute+"=on"),
	}), sorted(h.eventsAbout("", "a-2 ")))
	require.Equal(t, []string{ev(176*s, "p-00 deleted=yes")}, h.eventsAbout("deleted", "p-"))

	w1, w2 := r1.wire.writes(), r2.wire.writes()
	require.NotEmpty(t, w1, "r1 acted while it led")
	require.NotEmpty(t, w2, "r2 acted after it took over")
	for _, w := range w1 {
		require.True(t, w.at.Before(h.at(115*s)), "r1 wrote %s %s at +%v, past its fence", w.method, w.path, w.at.Sub(h.start))
	}
	for _, w := range w2 {
		require.False(t, w.at.Before(h.at(116*s)), "r2 wrote %s %s at +%v, before it led", w.method, w.path, w.at.Sub(h.start))
	}
	// r1's controller did decide the eviction at +150s; the gate refused it.
	refused := false
	for _, a := range r1.acts {
		if a.Kind == controller.KindEvict && a.Err == controller.ErrNotLeading {
			refused = true
		}
	}
	require.False(t, refused, "r1 drops its state when its gate closes, so it decides no eviction at all past its fence")
	require.True(t, r1.cand.Leading(), "r1's hung elector still believes it leads")
}

// r1 leads; from +100s each of its lock renewals comes back 7s late (the
// write lands, the answer is slow: the fake clock moves on during the
// request), and from +118s the server answers them with 409; from +118s
// too, the first write of each eviction it makes (the DisruptionTarget
// condition) comes back 6s late, so its fence can pass in the middle of an
// eviction. Pods on a-2 come due every 5s from +85s. However the timing
// falls, no pod eviction (and no other write) reaches the API server from
// a replica that does not lead or is past its MustStopBy; r1's controller
// refuses the delete it decided before its fence passed; r2 takes the lock
// only 15s after it last saw it change, and every pod is deleted once.
func TestNoEvictionPastFence(t *testing.T) {
	var tols []int64
	for k := int64(0); k <= 12; k++ {
		tols = append(tols, 5*k)
	}
	h := electionCluster(t, tols...)
	var delays, conflicts, slowWrites int
	r1 := h.addReplica("r1", nil, func(at time.Time, method, path string) (time.Duration, bool) {
		off := at.Sub(h.start)
		isLock := method == http.MethodPut && strings.HasSuffix(path, "/leases/"+lockName)
		switch {
		case isLock && off >= 118*time.Second:
			conflicts++
			return 0, true
		case isLock && off >= 100*time.Second:
			delays++
			return 7 * time.Second, false
		case method == http.MethodPut && strings.HasSuffix(path, "/status") && strings.Contains(path, "/pods/") && off >= 118*time.Second:
			slowWrites++
			return 6 * time.Second, false
		}
		return 0, false
	})
	r2 := h.addReplica("r2", nil, nil)
	h.run(240 * time.Second)

	require.Positive(t, delays, "delays injected")
	require.Positive(t, conflicts, "conflicts injected")
	require.Positive(t, slowWrites, "slow eviction writes injected")
	for _, r := range []*replica{r1, r2} {
		for _, w := range r.wire.writes() {
			require.True(t, w.leading && w.at.Before(w.fence), "%s wrote %s %s at +%v: leading %v, fence +%v",
				r.name, w.method, w.path, w.at.Sub(h.start), w.leading, w.fence.Sub(h.start))
		}
	}
	// r1 kept believing it led for a while after its fence and decided
	// evictions then; the gate kept them off the wire.
	var refused []string
	for _, a := range r1.acts {
		if a.Err == controller.ErrNotLeading {
			refused = append(refused, fmt.Sprintf("+%v %s", a.At.Sub(h.start), a))
		}
	}
	require.NotEmpty(t, refused, "r1's fence passed during an eviction; its delete must be refused")
	t.Logf("r1 refused past its fence: %v", refused)

	lock, err := h.client.CoordinationV1().Leases("kube-system").Get(h.ctx, lockName, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "r2", *lock.Spec.HolderIdentity)
	// r2's acquisition is at least 15s after the last renewal r1 wrote.
	var lastR1 time.Time
	for _, w := range r1.wire.log {
		if strings.HasSuffix(w.path, "/leases/"+lockName) && w.method == http.MethodPut && !w.injected {
			lastR1 = w.at
		}
	}
	require.False(t, lock.Spec.AcquireTime.Time.Before(lastR1.Add(15*time.Second)),
		"r2 acquired at +%v, r1 last renewed at +%v", lock.Spec.AcquireTime.Time.Sub(h.start), lastR1.Sub(h.start))

	deleted := h.eventsAbout("deleted", "p-")
	require.Len(t, deleted, len(tols), "every pod deleted once: %v", deleted)
}
