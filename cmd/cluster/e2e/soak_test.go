package e2e

import (
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
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
	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
)

// The kinds of fault a soak schedules (nodelife issue 34, point 4): the
// faults of the e2e fault tests, drawn at random.
const (
	faultNodeOutage       = "node-outage"       // a node's agent stops over the window
	faultZoneOutage       = "zone-outage"       // every agent of a zone stops over the window
	faultAPIOutage        = "api-outage"        // the controller's requests fail 500, its watches cut
	faultWatchExpiry      = "watch-expiry"      // the controller's watches cut, each next one answered 410
	faultNodeConflicts    = "node-status-409"   // the first node status write of each node meets a 409
	faultPodConflicts     = "pod-status-409"    // the first pod status write of each pod meets a 409
	faultAgentRestart     = "agent-restart"     // a node's agent process stops; a new one starts 5s later
	faultPodDeleted       = "pod-deleted"       // someone else deletes a pod
	faultAPIServerRestart = "apiserver-restart" // a new kube-apiserver on the same etcd
	faultEtcdRestart      = "etcd-restart"      // etcd stopped and started again
)

// soakFault is one fault of a soak's schedule: over the window [at, to) of
// the fake clock, or at the instant at (to 0).
type soakFault struct {
	kind   string
	at, to time.Duration
	target string // the node, zone or pod
}

func (f soakFault) String() string {
	s := fmt.Sprintf("+%v %s", f.at, f.kind)
	if f.to != 0 {
		s = fmt.Sprintf("+%v..+%v %s", f.at, f.to, f.kind)
	}
	if f.target != "" {
		s += " " + f.target
	}
	return s
}

// The soak's cluster: three zones of two nodes, each node with a pod of
// each kind (tolerating unreachable for 60s; admission's 300s; forever).
var (
	soakZones = []string{"a", "b", "c"}
	soakKinds = []string{"60s", "default", "forever"}
	soakEnd   = 30 * time.Minute
	// faults end by soakEnd minus this, so that the end state can be checked
	soakQuiet = 5 * time.Minute
)

// soakNodes is the cluster's node names in order.
func soakNodes() []string {
	var out []string
	for _, z := range soakZones {
		out = append(out, z+"-0", z+"-1")
	}
	return out
}

// soakSchedule draws a seed's faults: four to eight, the first an outage of
// a node or a zone of two to nearly seven minutes (so that every seed
// taints and evicts), then any kind; the controller's API outages and
// watch expiries do not overlap each other; at most one API server and
// one etcd restart. Node c-0 never goes down and zone c never as a whole,
// so the cluster is never fully disrupted (that would lift every taint, by
// design, and is TestAllZonesDown's case). Every window ends by +25m.
func soakSchedule(seed int64) []soakFault {
	r := rand.New(rand.NewSource(seed))
	sec := func(lo, hi int) time.Duration { return time.Duration(lo+r.Intn(hi-lo+1)) * time.Second }
	last := int((soakEnd - soakQuiet) / time.Second)
	var downable []string
	for _, n := range soakNodes() {
		if n != "c-0" {
			downable = append(downable, n)
		}
	}
	outage := func(zone bool) soakFault {
		d := sec(60, 400)
		at := sec(30, last-int(d/time.Second))
		if zone {
			return soakFault{kind: faultZoneOutage, at: at, to: at + d, target: soakZones[r.Intn(2)]}
		}
		return soakFault{kind: faultNodeOutage, at: at, to: at + d, target: downable[r.Intn(len(downable))]}
	}
	first := outage(r.Intn(2) == 0)
	first.to = first.at + sec(120, 400)
	if first.to > soakEnd-soakQuiet {
		first.at, first.to = first.at-(first.to-(soakEnd-soakQuiet)), soakEnd-soakQuiet
	}
	out := []soakFault{first}
	kinds := []string{faultNodeOutage, faultZoneOutage, faultAPIOutage, faultWatchExpiry, faultNodeConflicts, faultPodConflicts,
		faultAgentRestart, faultPodDeleted, faultAPIServerRestart, faultEtcdRestart}
	overlaps := func(f soakFault) bool {
		for _, g := range out {
			if (g.kind == faultAPIOutage || g.kind == faultWatchExpiry) && f.at < g.to && g.at < f.to {
				return true
			}
		}
		return false
	}
	restarted := map[string]bool{}
	for n := 4 + r.Intn(5); len(out) < n; {
		k := kinds[r.Intn(len(kinds))]
		var f soakFault
		switch k {
		case faultNodeOutage, faultZoneOutage:
			f = outage(k == faultZoneOutage)
		case faultAPIOutage, faultWatchExpiry:
			d := sec(10, 90)
			if k == faultWatchExpiry {
				d = 60 * time.Second // long enough for every informer to re-watch
			}
			at := sec(30, last-int(d/time.Second))
			f = soakFault{kind: k, at: at, to: at + d}
			if overlaps(f) {
				continue
			}
		case faultNodeConflicts, faultPodConflicts:
			d := sec(30, 120)
			at := sec(30, last-int(d/time.Second))
			f = soakFault{kind: k, at: at, to: at + d}
		case faultAgentRestart:
			f = soakFault{kind: k, at: sec(30, last-5), target: soakNodes()[r.Intn(6)]}
		case faultPodDeleted:
			node := downable[r.Intn(len(downable))]
			f = soakFault{kind: k, at: sec(30, last), target: node + "-" + soakKinds[r.Intn(len(soakKinds))]}
		case faultAPIServerRestart, faultEtcdRestart:
			if restarted[k] {
				continue
			}
			restarted[k] = true
			f = soakFault{kind: k, at: sec(30, last)}
		}
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}

// soakTotals sums what the soak's seeds did, for the report.
type soakTotals struct {
	mu                                 sync.Mutex
	seeds, instants, checks, evictions int
	faults                             map[string]int
	wall                               time.Duration
}

func (s *soakTotals) String() string {
	var kinds []string
	for k, n := range s.faults {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	total := 0
	for _, n := range s.faults {
		total += n
	}
	return fmt.Sprintf("soak: %d seeds, %v of cluster time each, %d instants stepped, %d faults injected (%s), %d invariant checks, %d evictions; %v wall",
		s.seeds, soakEnd, s.instants, total, strings.Join(kinds, ", "), s.checks, s.evictions, s.wall.Round(time.Second))
}

// soakSeeds is 1..5, or 1..200 with NODELIFE_LONG=1 (without the race
// detector), or the seed or range NODELIFE_SOAK_SEED names ("7", "6-40").
func soakSeeds(t *testing.T) []int64 {
	if v := os.Getenv("NODELIFE_SOAK_SEED"); v != "" {
		lo, hi, isRange := strings.Cut(v, "-")
		first, err := strconv.ParseInt(lo, 10, 64)
		require.NoError(t, err, "NODELIFE_SOAK_SEED=%q: want N or A-B", v)
		last := first
		if isRange {
			last, err = strconv.ParseInt(hi, 10, 64)
			require.NoError(t, err, "NODELIFE_SOAK_SEED=%q: want N or A-B", v)
		}
		var out []int64
		for seed := first; seed <= last; seed++ {
			out = append(out, seed)
		}
		require.NotEmpty(t, out, "NODELIFE_SOAK_SEED=%q: an empty range", v)
		return out
	}
	n := 5
	if os.Getenv("NODELIFE_LONG") == "1" && !raceEnabled {
		n = 200
	}
	var out []int64
	for i := 1; i <= n; i++ {
		out = append(out, int64(i))
	}
	return out
}

// A soak (nodelife issue 34, point 4): for each seed, a random schedule of
// the faults of the e2e fault tests over a three-zone cluster (six agents
// with node identities, eighteen pods, one controller with upstream's
// defaults), thirty minutes of cluster time on the fake clock against the
// real API server and etcd. After every instant it checks:
//
//   - a pod is deleted only once its node has carried the unreachable
//     NoExecute taint for as long as the pod tolerates it (60s, admission's
//     300s; never for the pods tolerating it forever);
//   - the NoExecute taint never comes off a node while its agent is down;
//   - a node whose agent is running is never Ready=Unknown (the controller
//     does not blame nodes for its own blindness: point 2);
//
// and at the end: the controller never evicted a pod twice, its write
// errors are only the injected ones (500, 409), and every node is Ready
// and untainted. Five seeds by default, 200 with NODELIFE_LONG=1 (about an
// hour); a failing seed prints its schedule and the command that replays
// it.
func TestSoak(t *testing.T) {
	totals := &soakTotals{faults: map[string]int{}}
	began := time.Now()
	for _, seed := range soakSeeds(t) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) { runSoak(t, seed, totals) })
	}
	totals.wall = time.Since(began)
	t.Log(totals)
	fmt.Println(totals)
}

func runSoak(t *testing.T, seed int64, totals *soakTotals) {
	sched := soakSchedule(seed)
	t.Cleanup(func() {
		if t.Failed() {
			var lines []string
			for _, f := range sched {
				lines = append(lines, "  "+f.String())
			}
			t.Logf("seed %d, schedule:\n%s\nreplay: cd cmd/cluster/e2e && NODELIFE_SOAK_SEED=%d go test -run 'TestSoak$' -v .",
				seed, strings.Join(lines, "\n"), seed)
		}
	})
	h := newHarness(t)

	// when each node's agent is down: its outages and restart gaps
	down := map[string][]window{}
	var apiFaults []apiFault
	var nodeConflicts, podConflicts []window
	for _, f := range sched {
		w := window{from: f.at, to: f.to}
		switch f.kind {
		case faultNodeOutage:
			down[f.target] = append(down[f.target], w)
		case faultZoneOutage:
			down[f.target+"-0"] = append(down[f.target+"-0"], w)
			down[f.target+"-1"] = append(down[f.target+"-1"], w)
		case faultAgentRestart:
			down[f.target] = append(down[f.target], window{from: f.at, to: f.at + 5*time.Second})
		case faultAPIOutage:
			apiFaults = append(apiFaults, apiFault{window: w})
		case faultWatchExpiry:
			apiFaults = append(apiFaults, apiFault{window: w, gone: true})
		case faultNodeConflicts:
			nodeConflicts = append(nodeConflicts, w)
		case faultPodConflicts:
			podConflicts = append(podConflicts, w)
		}
	}
	isDown := func(node string, off time.Duration) bool {
		for _, w := range down[node] {
			if off > w.from && off < w.to {
				return true
			}
		}
		return false
	}

	// the cluster
	agentOpts := func(node string) agent.Options {
		return agent.Options{NodeName: node, Clock: h.clock, RunPods: true,
			Labels: map[string]string{corev1.LabelTopologyRegion: "r", corev1.LabelTopologyZone: node[:1]}}
	}
	tolerations := map[string][]corev1.Toleration{
		"60s":     tolerateUnreachable(60),
		"forever": {{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
	}
	agents := map[string]*stepper{}
	for _, node := range soakNodes() {
		for _, kind := range soakKinds {
			h.createPod(node+"-"+kind, node, tolerations[kind], "")
		}
		h.addAgent(node, node[:1], agentOpts(node), nil)
		agents[node] = h.steppers[len(h.steppers)-1]
		for _, w := range down[node] {
			if !slices.ContainsFunc(sched, func(f soakFault) bool { return f.kind == faultAgentRestart && f.at == w.from && f.target == node }) {
				agents[node].pauses = append(agents[node].pauses, w)
			}
		}
	}

	// the controller, behind the injected API faults
	o := newOutage(h, apiFaults...)
	within := func(ws []window) (int, bool) {
		off := h.clock.Now().Sub(h.start)
		for i, w := range ws {
			if off >= w.from && off < w.to {
				return i, true
			}
		}
		return 0, false
	}
	cf := &conflicter{seen: map[string]bool{}, match: func(p string) (string, bool) {
		if i, ok := within(nodeConflicts); ok && isNodeStatus(p) {
			return fmt.Sprintf("%d %s", i, p), true
		}
		if i, ok := within(podConflicts); ok && isPodStatus(h.ns, p) {
			return fmt.Sprintf("%d %s", i, p), true
		}
		return "", false
	}}
	var acts []controller.Action
	client := h.clientVia(func(rt http.RoundTripper) http.RoundTripper { return cf.wrap(o.wrap(rt)) })
	h.addControllerOn("controller", client, controller.Options{Record: func(a controller.Action) { acts = append(acts, a) }}, func(c *controller.Controller) {
		o.sync()
		if o.failing() {
			h.waitBlind(c)
			return
		}
		h.waitCaughtUp(c)
	})

	// the invariants, after every instant
	instants, checks := 0, 0
	taintedSince := map[string]time.Duration{} // node -> since when unreachable:NoExecute is on
	deletedAt := map[string]time.Duration{}
	external := map[string]bool{} // pods the test deleted itself
	h.check = func(now time.Time) {
		off := now.Sub(h.start)
		instants++
		for _, node := range soakNodes() {
			on := h.seen[node+" "+unreachableNoExecute] == "on"
			since, was := taintedSince[node]
			switch {
			case on && !was:
				taintedSince[node] = off
			case !on && was:
				checks++
				require.False(t, isDown(node, off), "+%v: %s's NoExecute taint (on since +%v) came off while its agent is down", off, node, since)
				delete(taintedSince, node)
			}
			if !isDown(node, off) {
				checks++
				require.NotEqual(t, "Unknown", h.seen[node+" Ready"], "+%v: %s is Unknown while its agent runs", off, node)
			}
		}
		for _, node := range soakNodes() {
			for _, kind := range soakKinds {
				pod := node + "-" + kind
				if h.seen[pod+" deleted"] != "yes" || external[pod] {
					continue
				}
				if _, seen := deletedAt[pod]; seen {
					continue
				}
				deletedAt[pod] = off
				checks++
				require.NotEqual(t, "forever", kind, "+%v: %s deleted though it tolerates unreachable forever", off, pod)
				tolerated := map[string]time.Duration{"60s": 60 * time.Second, "default": 300 * time.Second}[kind]
				since, on := taintedSince[node]
				require.True(t, on, "+%v: %s deleted while its node is not tainted", off, pod)
				require.GreaterOrEqual(t, off-since, tolerated, "+%v: %s deleted %v after its node's taint (+%v); it tolerates %v", off, pod, off-since, since, tolerated)
			}
		}
	}

	// the instant faults, in order
	s := testcluster.Shared(t)
	for _, f := range sched {
		switch f.kind {
		case faultAgentRestart:
			h.run(f.at)
			old := agents[f.target]
			old.pause = &window{from: f.at}
			a, err := agent.New(h.nodeClient(f.target), agentOpts(f.target))
			require.NoError(t, err)
			st := &stepper{name: f.target + " (restarted)", step: a.Step, due: h.at(f.at + 5*time.Second), pauses: old.pauses}
			h.steppers = append(h.steppers, st)
			agents[f.target] = st
		case faultPodDeleted:
			h.run(f.at)
			zero := int64(0)
			err := h.client.CoreV1().Pods(h.ns).Delete(h.ctx, f.target, metav1.DeleteOptions{GracePeriodSeconds: &zero})
			if !apierrors.IsNotFound(err) {
				require.NoError(t, err)
			}
			external[f.target] = true
		case faultAPIServerRestart:
			h.run(f.at)
			_, err := s.RestartAPIServer()
			require.NoError(t, err)
			h.waitAPI()
		case faultEtcdRestart:
			h.run(f.at)
			_, err := s.RestartEtcd(time.Second)
			require.NoError(t, err)
			h.waitAPI()
		}
	}
	h.run(soakEnd)

	// the end: one eviction per pod, only injected errors, all well
	evicted := map[string]int{}
	for _, a := range acts {
		if a.Err != nil {
			injected := (apierrors.IsInternalError(a.Err) || apierrors.IsConflict(a.Err)) && strings.Contains(a.Err.Error(), "injected")
			require.True(t, injected, "+%v: %s %s: %v", a.At.Sub(h.start), a.Kind, a.Message, a.Err)
			continue
		}
		if a.Kind == controller.KindEvict {
			evicted[a.Pod.UID]++
			require.Equal(t, 1, evicted[a.Pod.UID], "%s evicted twice", a.Pod.Key())
		}
	}
	for _, node := range soakNodes() {
		checks++
		require.Equal(t, "True", h.seen[node+" Ready"], "%s at the end", node)
		for k := range h.seen {
			require.False(t, strings.HasPrefix(k, node+" taint "), "%s at the end: %s", node, k)
		}
	}
	totals.mu.Lock()
	defer totals.mu.Unlock()
	totals.seeds++
	totals.instants += instants
	totals.checks += checks
	totals.evictions += len(evicted)
	for _, f := range sched {
		totals.faults[f.kind]++
	}
	t.Logf("seed %d: %d faults, %d instants, %d checks, %d evictions", seed, len(sched), instants, checks, len(evicted))
}
