package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/cmd/cluster/agent"
	"github.com/nodelife/nodelife/cmd/cluster/controller"
	"github.com/nodelife/nodelife/cmd/cluster/election"
	"github.com/nodelife/nodelife/lease"
)

// outage is a component's API faults over windows of the harness's fake
// clock, each from its start (inclusive) to its end (exclusive).
type outage struct {
	h       *harness
	windows []apiFault
	next    http.RoundTripper
	mu      sync.Mutex
	watches []io.Closer
	cut     map[int]bool            // the windows whose start has cut the watches
	expired map[int]map[string]bool // per gone window, the paths answered 410
}

// apiFault is one window of an outage. In a plain window every request is
// answered 500 and the watches open at its start are cut. A gone window is
// a watch expiry instead: at its start the watches are cut, and the first
// watch of each resource opened after that is answered 410 Gone, as a
// watch from a compacted resourceVersion is; every other request goes
// through.
type apiFault struct {
	window
	gone bool
}

// newOutage returns an outage over the windows.
func newOutage(h *harness, windows ...apiFault) *outage {
	return &outage{h: h, windows: windows, cut: map[int]bool{}, expired: map[int]map[string]bool{}}
}

// current returns the index of the window the clock is in, or -1.
func (o *outage) current() int {
	off := o.h.clock.Now().Sub(o.h.start)
	for i, w := range o.windows {
		if off >= w.from && off < w.to {
			return i
		}
	}
	return -1
}

// failing reports whether requests are answered 500 now.
func (o *outage) failing() bool {
	i := o.current()
	return i >= 0 && !o.windows[i].gone
}

// sync cuts the open watches when a window has begun.
func (o *outage) sync() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if i := o.current(); i >= 0 && !o.cut[i] {
		o.cut[i] = true
		for _, w := range o.watches {
			w.Close()
		}
		o.watches = nil
	}
}

// expiredPaths returns how many watches were answered 410.
func (o *outage) expiredPaths() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, m := range o.expired {
		n += len(m)
	}
	return n
}

func (o *outage) RoundTrip(req *http.Request) (*http.Response, error) {
	watching := req.URL.Query().Get("watch") == "true"
	i := o.current()
	if i >= 0 && o.windows[i].gone {
		o.mu.Lock()
		expire := o.cut[i] && watching && !o.expired[i][req.URL.Path]
		if expire {
			if o.expired[i] == nil {
				o.expired[i] = map[string]bool{}
			}
			o.expired[i][req.URL.Path] = true
		}
		o.mu.Unlock()
		if expire {
			return statusResponse(req, http.StatusGone, "Expired", "too old resource version: injected"), nil
		}
	} else if i >= 0 {
		return statusResponse(req, http.StatusInternalServerError, "InternalError", "injected API outage"), nil
	}
	resp, err := o.next.RoundTrip(req)
	if err == nil && watching {
		o.mu.Lock()
		o.watches = append(o.watches, resp.Body)
		o.mu.Unlock()
	}
	return resp, err
}

// addBlindableController adds a controller whose API requests fail during
// o's window; its step waits for its informers only outside the window,
// and once the window has begun, until a failed watch has made it blind.
func (h *harness) addBlindableController(name string, opts controller.Options, o *outage) *controller.Controller {
	return h.addControllerOn(name, h.clientVia(o.wrap), opts, func(c *controller.Controller) {
		o.sync()
		if o.failing() {
			h.waitBlind(c)
			return
		}
		h.waitCaughtUp(c) // after an outage too: until the informers have relisted
	})
}

// waitBlind waits, in real time, until c's informers have met a failed
// watch and made it blind.
func (h *harness) waitBlind(c *controller.Controller) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !c.Blind() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	require.True(h.t, c.Blind(), "the cut watches did not make the controller blind")
}

// wrap puts the outage in front of the real transport.
func (o *outage) wrap(rt http.RoundTripper) http.RoundTripper {
	o.next = rt
	return o
}

// The controller's own API outage, without leader election (nodelife
// issue 34): TestZoneOutage's cluster (zone b's agents stop after +60s),
// and the controller's requests fail from +140s to +200s, its watches cut
// at +140s. Worked out by hand from TestZoneOutage's timeline (b Unknown
// at +115s; NoExecute on b-0 at +115s, b-1 +125s, b-2 +135s; the queue
// would taint b-3 at +145s and b-4 at +155s; 60s pods go 60s after their
// node's taint, the others 300s after):
//
//   - blind from +140s, the controller decides nothing; at +200s a
//     consistent list works and the informers have relisted: every node is
//     timed afresh from +200s (ViewRestored), so no healthy node of zones
//     a and c turns Unknown for the renewals the controller could not see;
//   - b-0..b-4 stay Unknown; the tainting queue resumes at +200s: b-3 at
//     +200s (its token), b-4 10s later, +210s;
//   - the evictions that fell due while blind happen at +200s: the 60s
//     pods of b-0, b-1 and b-2 (due +175s, +185s, +195s); b-3's at +260s and
//     b-4's at +270s; the 300s pods at +415s, +425s, +435s, +500s, +510s.
//
// Upstream's in-process behaviour (judging on the stale view, which this
// test does not run: it depends on how fast the informers relist) marks
// the healthy nodes Unknown at the first pass after the outage instead;
// nodelifecycle's TestViewRestored shows both on the library alone.
func TestControllerAPIOutage(t *testing.T) {
	h := newHarness(t)
	h.zoneAgents([]string{"a", "b", "c"}, []string{"default", "60s"}, "b")
	o := newOutage(h, apiFault{window: window{from: 140 * time.Second, to: 200 * time.Second}})
	h.addBlindableController("controller", controller.Options{}, o)
	h.run(520 * time.Second)

	s := time.Second
	taint := []time.Duration{115 * s, 125 * s, 135 * s, 200 * s, 210 * s}
	evict60 := []time.Duration{200 * s, 200 * s, 200 * s, 260 * s, 270 * s}
	var want []string
	for i := 0; i < 5; i++ {
		node := fmt.Sprintf("b-%d", i)
		want = append(want,
			ev(0, node+" Ready=True"),
			ev(115*s, node+" Ready=Unknown"),
			ev(115*s, node+" "+unreachableNoSchedule+"=on"),
			ev(taint[i], node+" "+unreachableNoExecute+"=on"),
			ev(evict60[i], node+"-60s deleted=yes"),
			ev(taint[i]+300*s, node+"-default deleted=yes"),
		)
		for _, kind := range []string{"default", "60s"} {
			want = append(want, ev(0, node+"-"+kind+" Ready=True"), ev(115*s, node+"-"+kind+" Ready=False"))
		}
	}
	require.Equal(t, sorted(want), h.timeline("b-"))
	h.requireQuiet("a-", "c-")
}

// tolerateUnreachable tolerates the unreachable NoExecute taint for s
// seconds.
func tolerateUnreachable(s int64) []corev1.Toleration {
	return []corev1.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists,
		Effect: corev1.TaintEffectNoExecute, TolerationSeconds: int64p(s)}}
}

// addBlindableReplica adds a candidate and a controller gated by it, both
// on a client whose requests fail during o's window.
func (h *harness) addBlindableReplica(name string, o *outage, events *[]string) *election.Candidate {
	client := h.clientVia(o.wrap)
	cand, err := election.New(client, election.Options{Namespace: "kube-system", Name: lockName, Clock: h.clock,
		Config: lease.DefaultElectionConfig(name),
		Record: func(e election.Event) {
			if e.Reason != "Failed" {
				*events = append(*events, fmt.Sprintf("%v %s", e.At.Sub(h.start), e.Reason))
			}
		}})
	require.NoError(h.t, err)
	h.steppers = append(h.steppers, &stepper{name: name + "/elector", due: h.start,
		step: func(ctx context.Context) (time.Time, error) { o.sync(); return cand.Step(ctx), nil }})
	h.useLock()
	h.addControllerOn(name+"/controller", client, controller.Options{Gate: cand.Allowed}, func(c *controller.Controller) {
		if o.sync(); o.current() < 0 {
			h.waitCaughtUp(c)
		}
	})
	return cand
}

// The same API outage with leader election (nodelife issue 34): one
// replica, its candidate and its controller on the failing client, zone b's
// kubelets down from +60s, the API failing +140s..+200s. client-go's
// defaults without jitter: the candidate renews every 2s, so its renewal
// at +140s fails, the round's deadline is +150s, and at +150s it stops
// leading (StoppedLeading), signals the loss and campaigns again
// (Campaigning), trying every 2s. Its first try after the outage, +200s,
// reads the lock, which still names it, and takes it (BecameLeader): the
// controller leads again within the outage's end, not silently never.
//
// The controller's gate closes at the loss (its fence, the +138s renewal
// plus 15s, had not passed, but it no longer leads), so it drops its
// state; at +200s it starts afresh, as a newly elected
// kube-controller-manager: it sees every node for the first time, takes
// the NoExecute taints off b-0, b-1 and b-2 (markNodeAsReachable) and
// queues the five Unknown nodes for tainting again, one token per 10s in
// name order: b-0 at +200s (in the same pass: no change to see), b-1
// +210s, b-2 +220s, b-3 +230s, b-4 +240s. Its taint eviction controller
// counts each pod's toleration from its own first sight of the taint: the
// 60s pods go at +260s, +270s, ... +300s, the 300s pods at +500s ... +540s.
// No node of zones a and c turns Unknown (fresh health records).
func TestElectedControllerAPIOutage(t *testing.T) {
	h := newHarness(t)
	h.zoneAgents([]string{"a", "b", "c"}, []string{"default", "60s"}, "b")
	var events []string
	o := newOutage(h, apiFault{window: window{from: 140 * time.Second, to: 200 * time.Second}})
	h.addBlindableReplica("r1", o, &events)
	h.run(560 * time.Second)

	s := time.Second
	require.Equal(t, []string{"0s NewLeader", "0s BecameLeader", "2m30s StoppedLeading", "2m30s Campaigning", "3m20s NewLeader", "3m20s BecameLeader"}, events)
	var want []string
	for i := 0; i < 5; i++ {
		node := fmt.Sprintf("b-%d", i)
		retaint := 200*s + time.Duration(i)*10*s
		want = append(want,
			ev(0, node+" Ready=True"),
			ev(115*s, node+" Ready=Unknown"),
			ev(115*s, node+" "+unreachableNoSchedule+"=on"),
			ev(retaint+60*s, node+"-60s deleted=yes"),
			ev(retaint+300*s, node+"-default deleted=yes"),
		)
		switch {
		case i == 0: // tainted at +115s, off and on again within +200s
			want = append(want, ev(115*s, node+" "+unreachableNoExecute+"=on"))
		case i <= 2: // tainted before the outage, off at +200s, on again with its token
			want = append(want, ev(115*s+time.Duration(i)*10*s, node+" "+unreachableNoExecute+"=on"),
				ev(200*s, node+" "+unreachableNoExecute+"=off"), ev(retaint, node+" "+unreachableNoExecute+"=on"))
		default:
			want = append(want, ev(retaint, node+" "+unreachableNoExecute+"=on"))
		}
		for _, kind := range []string{"default", "60s"} {
			want = append(want, ev(0, node+"-"+kind+" Ready=True"), ev(115*s, node+"-"+kind+" Ready=False"))
		}
	}
	require.Equal(t, sorted(want), h.timeline("b-"))
	h.requireQuiet("a-", "c-")
}

// A leader killed in the middle of zone b's outage (nodelife issue 34):
// two replicas with client-go's defaults and no jitter; r1 leads from +0s
// and stops entirely (elector and controller) after +185s; zone b's
// kubelets are down from +60s. Worked out by hand:
//
//   - r1 taints b-0..b-4 NoExecute at +115s ... +155s and deletes the 60s
//     pods of b-0 (+175s) and b-1 (+185s, its last step);
//   - r2 polls every 2s; it saw r1's last renewal, +184s, at +184s, so the
//     lock expires for it at +199s and it takes it at +200s;
//   - r2's controller starts afresh at +200s: it takes the five NoExecute
//     taints off and queues the Unknown nodes again, one token per 10s:
//     b-0 at +200s (no visible change), b-1 +210s ... b-4 +240s; its taint
//     eviction controller counts from its own sight: the 60s pods of b-2,
//     b-3, b-4 go at +280s, +290s, +300s (b-0's and b-1's are already
//     deleting: not again), the 300s pods at +500s ... +540s.
func TestLeaderKilledMidOutage(t *testing.T) {
	h := newHarness(t)
	h.zoneAgents([]string{"a", "b", "c"}, []string{"default", "60s"}, "b")
	r1 := h.addReplica("r1", &window{from: 185 * time.Second}, nil)
	h.steppers[len(h.steppers)-1].pause = &window{from: 185 * time.Second} // r1's controller too
	h.addReplica("r2", nil, nil)
	h.run(560 * time.Second)

	s := time.Second
	require.Equal(t, []string{ev(0, "lock holder=r1"), ev(200*s, "lock holder=r2")}, h.eventsAbout("", "lock"))
	var want []string
	for i := 0; i < 5; i++ {
		node := fmt.Sprintf("b-%d", i)
		first := 115*s + time.Duration(i)*10*s
		retaint := 200*s + time.Duration(i)*10*s
		want = append(want,
			ev(0, node+" Ready=True"),
			ev(115*s, node+" Ready=Unknown"),
			ev(115*s, node+" "+unreachableNoSchedule+"=on"),
			ev(first, node+" "+unreachableNoExecute+"=on"),
			ev(retaint+300*s, node+"-default deleted=yes"),
		)
		if i > 0 {
			want = append(want, ev(200*s, node+" "+unreachableNoExecute+"=off"), ev(retaint, node+" "+unreachableNoExecute+"=on"))
		}
		if i < 2 {
			want = append(want, ev(first+60*s, node+"-60s deleted=yes"))
		} else {
			want = append(want, ev(retaint+60*s, node+"-60s deleted=yes"))
		}
		for _, kind := range []string{"default", "60s"} {
			want = append(want, ev(0, node+"-"+kind+" Ready=True"), ev(115*s, node+"-"+kind+" Ready=False"))
		}
	}
	require.Equal(t, sorted(want), h.timeline("b-"))
	for _, w := range r1.wire.writes() {
		require.False(t, w.at.After(h.at(185*s)), "r1 wrote after it was stopped")
	}
}

// A pod deleted by someone else while its eviction is scheduled: zone b's
// only node goes silent after +60s; its pod tolerates unreachable for 60s,
// so the node is tainted at +115s and the eviction is due at +175s. The
// test deletes the pod at once at +150s. The controller drops the pending
// eviction: no eviction is attempted, no write fails, nothing is logged as
// an error.
func TestPodDeletedWhileEvictionScheduled(t *testing.T) {
	h := newHarness(t)
	h.createPod("doomed", "b-0", tolerateUnreachable(60), "")
	h.addAgent("a-0", "a", agent.Options{RunPods: true}, nil)
	h.addAgent("b-0", "b", agent.Options{RunPods: true}, &window{from: 60 * time.Second})
	var acts []controller.Action
	h.addController("controller", controller.Options{Record: func(a controller.Action) { acts = append(acts, a) }}, nil)
	h.run(150 * time.Second)
	zero := int64(0)
	require.NoError(t, h.client.CoreV1().Pods(h.ns).Delete(h.ctx, "doomed", metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	h.run(240 * time.Second)

	scheduled := false
	for _, a := range acts {
		require.NoError(t, a.Err, "%s %s", a.Kind, a.Message)
		if a.Kind == controller.KindSchedule && a.Pod.Name == "doomed" {
			scheduled = true
			require.Equal(t, h.at(175*time.Second), a.Due)
		}
		require.False(t, a.Kind == controller.KindEvict && a.Pod.Name == "doomed", "an eviction of the deleted pod at +%v", a.At.Sub(h.start))
	}
	require.True(t, scheduled, "the eviction was never scheduled")
	require.Contains(t, h.eventsAbout("", "b-0 "), ev(115*time.Second, "b-0 "+unreachableNoExecute+"=on"))
}

// conflicter answers the first PUT of each key with a 409, as if a
// competing writer had updated the object just before; match gives a
// PUT's key from its path (the path itself, as a rule), or false to let
// it through.
type conflicter struct {
	next  http.RoundTripper
	match func(path string) (key string, ok bool)
	mu    sync.Mutex
	seen  map[string]bool
	n     int
}

// wrap puts the conflicter in front of the real transport.
func (c *conflicter) wrap(rt http.RoundTripper) http.RoundTripper {
	c.next = rt
	return c
}

func (c *conflicter) RoundTrip(req *http.Request) (*http.Response, error) {
	if key, ok := c.match(req.URL.Path); ok && req.Method == http.MethodPut {
		c.mu.Lock()
		first := !c.seen[key]
		c.seen[key] = true
		if first {
			c.n++
		}
		c.mu.Unlock()
		if first {
			return statusResponse(req, http.StatusConflict, "Conflict", "injected conflict"), nil
		}
	}
	return c.next.RoundTrip(req)
}

// 409s on node status writes (nodelife issue 34): TestZoneOutage's
// cluster, but the first status write of each node meets a conflict, as if
// another component had just updated the Node. As upstream's
// monitorNodeHealth, the controller reads the Node again and retries
// within the pass, so the timeline is TestZoneOutage's exactly: zone b
// Unknown at +115s, NoExecute on b-0..b-4 at +115s ... +155s, the 60s pods
// deleted at +175s ... +215s.
func TestNodeStatusConflicts(t *testing.T) {
	h := newHarness(t)
	h.zoneAgents([]string{"a", "b"}, []string{"60s"}, "b")
	cf := &conflicter{seen: map[string]bool{}, match: func(p string) (string, bool) { return p, isNodeStatus(p) }}
	h.addControllerOn("controller", h.clientVia(cf.wrap), controller.Options{}, h.waitCaughtUp)
	h.run(240 * time.Second)

	require.Equal(t, zoneOutageTimeline(115*time.Second), h.timeline("b-"))
	require.Equal(t, 5, cf.n, "one conflict per node status written")
}

// An agent process restarted mid-lease (nodelife issue 34): a-0's agent
// stops after +30s and a new agent process for a-0 starts at +35s. It
// finds its Node registered (no second registration: the same Node, the
// same UID), renews the same Lease from its first step, and the node
// never leaves Ready=True: the controller sees no gap longer than the
// renew interval plus the restart.
func TestAgentRestart(t *testing.T) {
	h := newHarness(t)
	h.addAgent("a-0", "a", agent.Options{RunPods: true}, &window{from: 30 * time.Second})
	h.addAgent("a-1", "a", agent.Options{RunPods: true}, nil)
	h.addController("controller", controller.Options{}, nil)
	h.run(34 * time.Second)
	before, err := h.client.CoreV1().Nodes().Get(h.ctx, "a-0", metav1.GetOptions{})
	require.NoError(t, err)
	l1, err := h.client.CoordinationV1().Leases("kube-node-lease").Get(h.ctx, "a-0", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, h.at(30*time.Second), l1.Spec.RenewTime.Time, "the old agent's last renewal")

	// the new process: a fresh agent for the same node, due now
	opts := agent.Options{NodeName: "a-0", Clock: h.clock, RunPods: true,
		Labels: map[string]string{corev1.LabelTopologyRegion: "r", corev1.LabelTopologyZone: "a"}}
	a, err := agent.New(h.nodeClient("a-0"), opts)
	require.NoError(t, err)
	h.clock.SetTime(h.at(35 * time.Second))
	h.steppers = append(h.steppers, &stepper{name: "a-0 (restarted)", step: a.Step, due: h.at(35 * time.Second)})
	h.run(200 * time.Second)

	after, err := h.client.CoreV1().Nodes().Get(h.ctx, "a-0", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, before.UID, after.UID, "the Node was registered again")
	l2, err := h.client.CoordinationV1().Leases("kube-node-lease").Get(h.ctx, "a-0", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, l1.UID, l2.UID, "the Lease was recreated")
	require.True(t, l2.Spec.RenewTime.Time.After(h.at(190*time.Second)), "the new agent renews: last %v", l2.Spec.RenewTime.Time.Sub(h.start))
	h.requireQuiet("a-0")
}

// Two controllers without leader election (nodelife issue 34), both with
// upstream's defaults, on TestZoneOutage's cluster (zone b down after
// +60s). They decide alike; their writes race: status updates are
// conditional on the resourceVersion read (one wins, the other's retry
// finds the work done), taint updates are read-modify-update, deletes are
// conditional on the pod's UID. No taint is lost: the timeline is
// TestZoneOutage's, each pod's deletion starts at its time, and the only
// write errors are conflicts and pods already gone. (Both send a delete
// for each pod; the second finds it terminating, with the same UID, and
// changes nothing: the UID precondition only guards against deleting a
// new pod of the same name.)
func TestTwoControllersWithoutElection(t *testing.T) {
	h := newHarness(t)
	h.zoneAgents([]string{"a", "b"}, []string{"60s"}, "b")
	var acts [2][]controller.Action
	for k := range acts {
		h.addController(fmt.Sprintf("controller-%d", k), controller.Options{Record: func(a controller.Action) { acts[k] = append(acts[k], a) }}, nil)
	}
	h.run(240 * time.Second)

	require.Equal(t, zoneOutageTimeline(115*time.Second), h.timeline("b-"))
	evicted := 0
	for k := range acts {
		for _, a := range acts[k] {
			if a.Err != nil {
				require.True(t, apierrors.IsConflict(a.Err) || apierrors.IsNotFound(a.Err), "controller-%d: %s %s: %v", k, a.Kind, a.Message, a.Err)
			}
			if a.Kind == controller.KindEvict {
				evicted++
			}
		}
	}
	require.GreaterOrEqual(t, evicted, 5, "both controllers decide the evictions")
}

// A watch that expires (nodelife issue 34): TestNodeStatusConflicts'
// cluster; at +140s the controller's watches are cut and the first watch
// of each resource it opens after that is answered 410 Gone ("too old
// resource version", what a watch from a compacted revision gets;
// injected here: compacting etcd and cutting the watches does not produce
// it, since client-go v0.36's reflectors, their watch cut, list afresh
// with a streaming list (sendInitialEvents) rather than resume from their
// resourceVersion; they resume only after the server ends a watch
// cleanly, minutes later). client-go's reflector relists at once on a 410 (it
// does not count it as a watch error), and the controller's step waits
// for its informers to hold what a consistent list returns: the timeline
// is TestZoneOutage's (b-3 tainted at +145s, b-4 at +155s, the 60s pods
// deleted at +175s ... +215s).
func TestWatchExpiredRelist(t *testing.T) {
	h := newHarness(t)
	h.zoneAgents([]string{"a", "b"}, []string{"60s"}, "b")
	o := newOutage(h, apiFault{window: window{from: 140 * time.Second, to: 600 * time.Second}, gone: true})
	c := h.addBlindableController("controller", controller.Options{}, o)
	h.run(240 * time.Second)

	require.Equal(t, zoneOutageTimeline(115*time.Second), h.timeline("b-"))
	require.False(t, c.Blind(), "still blind at the end")
	require.NotZero(t, o.expiredPaths(), "no watch was answered 410")
	h.requireQuiet("a-")
}

// 409s on pod status writes from a competing writer (nodelife issue 34):
// TestNodeStatusConflicts' cluster, but the first status write of each pod
// meets a conflict. Marking the pods NotReady fails at +115s and, as
// upstream (nodesToRetry), is retried at the next pass: the pods turn
// Ready=False at +120s. The evictions' condition writes then go through
// (and would be retried on a conflict, as upstream's taint eviction
// controller retries): the 60s pods go at +175s ... +215s as always.
func TestPodStatusConflicts(t *testing.T) {
	h := newHarness(t)
	h.zoneAgents([]string{"a", "b"}, []string{"60s"}, "b")
	cf := &conflicter{seen: map[string]bool{}, match: func(p string) (string, bool) { return p, isPodStatus(h.ns, p) }}
	h.addControllerOn("controller", h.clientVia(cf.wrap), controller.Options{}, h.waitCaughtUp)
	h.run(240 * time.Second)

	require.Equal(t, zoneOutageTimeline(120*time.Second), h.timeline("b-"))
	require.Equal(t, 5, cf.n, "one conflict per pod status written")
}

// zoneOutageTimeline is what TestZoneOutage's zone b shows for a cluster
// whose pods tolerate unreachable for 60s: Unknown and the NoSchedule
// taint at +115s, NoExecute on b-0..b-4 at +115s ... +155s, the pods
// Ready=False at notReady and deleted at +175s ... +215s; sorted.
func zoneOutageTimeline(notReady time.Duration) []string {
	s := time.Second
	var want []string
	for i := 0; i < 5; i++ {
		node := fmt.Sprintf("b-%d", i)
		d := time.Duration(i) * 10 * s
		want = append(want, ev(0, node+" Ready=True"), ev(115*s, node+" Ready=Unknown"), ev(115*s, node+" "+unreachableNoSchedule+"=on"),
			ev(115*s+d, node+" "+unreachableNoExecute+"=on"), ev(0, node+"-60s Ready=True"), ev(notReady, node+"-60s Ready=False"),
			ev(175*s+d, node+"-60s deleted=yes"))
	}
	return sorted(want)
}

// isNodeStatus reports whether path is a Node's status subresource.
func isNodeStatus(path string) bool {
	return strings.HasPrefix(path, "/api/v1/nodes/") && strings.HasSuffix(path, "/status")
}

// isPodStatus reports whether path is the status subresource of a pod of
// namespace ns.
func isPodStatus(ns, path string) bool {
	return strings.HasPrefix(path, "/api/v1/namespaces/"+ns+"/pods/") && strings.HasSuffix(path, "/status")
}

// statusResponse is the API server's answer with a failure Status.
func statusResponse(req *http.Request, code int, reason, message string) *http.Response {
	body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":%q,"reason":%q,"code":%d}`, message, reason, code)
	return &http.Response{StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)), Request: req,
		Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}
}
