package sched

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/sim/trace"
	"github.com/nodelife/nodelife/taints"
)

// t0 is the scheduler's start in the hand-worked cases.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func gpuPod(name string) PodInfo {
	return PodInfo{Name: name, MilliCPU: 1000, MemoryMiB: 1024, GPUs: 1, GPUMilli: MilliGPU}
}

// oneGPU is a cluster of one node with one GPU and 8 CPUs.
func oneGPU() []NodeInfo {
	return []NodeInfo{NodeInfoOf(trace.NodeRecord{Name: "n1", MilliCPU: 8000, MemoryMiB: 65536, GPUs: 1, Model: "T4"})}
}

func mustScheduler(t *testing.T, nodes []NodeInfo) *Scheduler {
	t.Helper()
	s, err := NewScheduler(t0, Config{Policy: BestFit{}}, nodes)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func names(r Round) string {
	var b []string
	for _, p := range r.Bound {
		b = append(b, "+"+p.Pod)
	}
	for _, f := range r.Failed {
		b = append(b, "-"+f.Pod)
	}
	return strings.Join(b, " ")
}

// A pod that fits nowhere waits in the pool; the periodic flush tries it
// again after five minutes, on the 30-second periods from the start; the
// deletion of the pod holding the GPU tries it at once. Worked by hand
// from kube-scheduler's queue (see Scheduler).
func TestSchedulerPoolAndFlush(t *testing.T) {
	s := mustScheduler(t, oneGPU())
	must(t, s.Add(at(0), gpuPod("a")))
	if r := s.Step(at(0)); names(r) != "+a" || !r.Next.IsZero() {
		t.Fatalf("at 0: %q next %v, want +a and nothing next", names(r), r.Next)
	}
	must(t, s.Add(at(time.Second), gpuPod("b")))
	r := s.Step(at(time.Second))
	if names(r) != "-b" || r.Failed[0].Reason != "0/1 nodes are available: 1 Insufficient GPU" || r.Failed[0].Failures != 1 {
		t.Fatalf("at 1s: %+v", r)
	}
	// Timestamp 1s; it must have waited more than 5m: the first period
	// after 5m1s is 5m30s.
	if want := at(5*time.Minute + 30*time.Second); !r.Next.Equal(want) || !s.Next().Equal(want) {
		t.Fatalf("next %v (Next() %v), want %v", r.Next, s.Next(), want)
	}
	// Nothing is due before it.
	if r := s.Step(at(5*time.Minute + 29*time.Second)); names(r) != "" {
		t.Fatalf("at 5m29s: %q, want nothing", names(r))
	}
	r = s.Step(at(5*time.Minute + 30*time.Second))
	if names(r) != "-b" || r.Failed[0].Failures != 2 {
		t.Fatalf("at 5m30s: %+v", r)
	}
	// Timestamp 5m30s: more than 10m30s is 11m.
	if want := at(11 * time.Minute); !r.Next.Equal(want) {
		t.Fatalf("next %v, want %v", r.Next, want)
	}
	d, err := s.Delete(at(8*time.Minute), "a")
	if err != nil || d.Node != 0 || !d.Arrived.Equal(t0) {
		t.Fatalf("delete a: %+v %v", d, err)
	}
	// b's backoff after two failures, 2s from 5m30s, is long over: it is
	// active and bound.
	if !s.Next().Equal(at(8 * time.Minute)) {
		t.Fatalf("Next %v after the deletion, want 8m", s.Next())
	}
	r = s.Step(at(8 * time.Minute))
	if names(r) != "+b" || r.Bound[0].Attempts != 2 || !r.Bound[0].Arrived.Equal(at(time.Second)) || !r.Next.IsZero() {
		t.Fatalf("at 8m: %+v", r)
	}
	if s.Pending() != 0 || s.Nodes()[0].GPUMilliLeft[0] != 0 {
		t.Fatalf("pending %d, GPU left %d", s.Pending(), s.Nodes()[0].GPUMilliLeft[0])
	}
}

// A new pod in the active queue goes before an older one whose backoff
// has not ended, since the backoff queue is taken only when the active
// queue is empty.
func TestSchedulerActiveBeforeBackoff(t *testing.T) {
	s := mustScheduler(t, oneGPU())
	must(t, s.Add(at(0), gpuPod("x")))
	s.Step(at(0))
	must(t, s.Add(at(0), gpuPod("b")))
	if r := s.Step(at(0)); names(r) != "-b" {
		t.Fatalf("at 0: %q", names(r))
	}
	// b failed at 0: backoff 1s, so backing off until the 1s window.
	if _, err := s.Delete(at(700*time.Millisecond), "x"); err != nil {
		t.Fatal(err)
	}
	must(t, s.Add(at(700*time.Millisecond), gpuPod("e")))
	if r := s.Step(at(700 * time.Millisecond)); names(r) != "+e -b" {
		t.Fatalf("at 0.7s: %q, want e bound before b is tried", names(r))
	}
	// Once b's backoff is over it is active, and goes by Timestamp:
	// b (0.7s) before f (2s).
	if _, err := s.Delete(at(2*time.Second), "e"); err != nil {
		t.Fatal(err)
	}
	must(t, s.Add(at(2*time.Second), gpuPod("f")))
	// b failed at 0.7s, its second failure: 2s of backoff, to 2.7s,
	// truncated to 2s, which is not before the window of 2s: still
	// backing off, so f goes first again.
	if r := s.Step(at(2 * time.Second)); names(r) != "+f -b" {
		t.Fatalf("at 2s: %q, want f first (b backs off to 2s)", names(r))
	}
}

// Among pods moved back by one deletion, those out of backoff are tried
// by Timestamp; those still backing off after them, by expiry.
func TestSchedulerOrderAfterDeletion(t *testing.T) {
	nodes := []NodeInfo{NodeInfoOf(trace.NodeRecord{Name: "n1", MilliCPU: 4000, MemoryMiB: 65536, GPUs: 2, Model: "T4"})}
	s := mustScheduler(t, nodes)
	must(t, s.Add(at(0), gpuPod("h1")))
	must(t, s.Add(at(0), gpuPod("h2")))
	s.Step(at(0))
	// c fails at 0 (backoff to 1s), d and e at 10s (to 11s); each wants
	// one GPU.
	must(t, s.Add(at(0), gpuPod("c")))
	s.Step(at(0))
	must(t, s.Add(at(10*time.Second), gpuPod("d")))
	must(t, s.Add(at(10*time.Second), gpuPod("e")))
	if r := s.Step(at(10 * time.Second)); names(r) != "-d -e" {
		t.Fatalf("at 10s: %q", names(r))
	}
	// At 10.5s one GPU frees: c (out of backoff) is tried first and bound;
	// d and e back off to 11s and are tried after, in arrival order.
	if _, err := s.Delete(at(10500*time.Millisecond), "h1"); err != nil {
		t.Fatal(err)
	}
	if r := s.Step(at(10500 * time.Millisecond)); names(r) != "+c -d -e" {
		t.Fatalf("at 10.5s: %q, want +c -d -e", names(r))
	}
	if reason, ok := s.Reason("d"); !ok || reason != "0/1 nodes are available: 1 Insufficient GPU" {
		t.Fatalf("Reason(d) = %q, %v", reason, ok)
	}
	// A pending pod's deletion moves nobody.
	if d, err := s.Delete(at(11*time.Second), "e"); err != nil || d.Node != -1 {
		t.Fatalf("delete pending e: %+v %v", d, err)
	}
	if r := s.Step(at(11 * time.Second)); names(r) != "" {
		t.Fatalf("at 11s: %q, want nothing", names(r))
	}
}

func TestSchedulerErrors(t *testing.T) {
	if _, err := NewScheduler(t0, Config{}, oneGPU()); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "no Policy") {
		t.Errorf("no policy: %v", err)
	}
	_, err := NewScheduler(t0, Config{Policy: BestFit{}, PodInitialBackoff: 20 * time.Second, PodMaxInUnschedulable: -time.Second}, oneGPU())
	if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "PodInitialBackoff 20s is above PodMaxBackoff 10s") ||
		!strings.Contains(err.Error(), "PodMaxInUnschedulable -1s is negative") {
		t.Errorf("bad durations: %v", err)
	}
	s := mustScheduler(t, oneGPU())
	must(t, s.Add(at(0), gpuPod("a")))
	if err := s.Add(at(0), gpuPod("a")); !errors.Is(err, ErrDuplicatePod) || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("duplicate: %v", err)
	}
	if err := s.Add(at(0), PodInfo{Name: "m", GPUs: 2, GPUMilli: 500}); !errors.Is(err, ErrInvalidPod) || !strings.Contains(err.Error(), `"m": a share of a GPU (500) for 2 GPUs`) {
		t.Errorf("shared multi-GPU: %v", err)
	}
	if err := s.Add(at(0), PodInfo{Name: "neg", MilliCPU: -1, GPUs: 1, GPUMilli: 1500}); !errors.Is(err, ErrInvalidPod) ||
		!strings.Contains(err.Error(), `"neg": cpu -1m, memory 0 MiB, 1 GPUs of 1500 thousandths`) {
		t.Errorf("negative: %v", err)
	}
	// The caller's nodes are not modified.
	nodes := oneGPU()
	s2, _ := NewScheduler(t0, Config{Policy: BestFit{}}, nodes)
	must(t, s2.Add(at(0), gpuPod("a")))
	s2.Step(at(0))
	if nodes[0].GPUMilliLeft[0] != MilliGPU || nodes[0].MilliCPULeft != 8000 || s2.Nodes()[0].GPUMilliLeft[0] != 0 {
		t.Errorf("caller's node %s, scheduler's %s", nodes[0].String(), s2.Nodes()[0].String())
	}
	if _, err := s.Delete(at(0), "zz"); !errors.Is(err, ErrUnknownPod) || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("unknown: %v", err)
	}
}

func TestBackoffFor(t *testing.T) {
	s := mustScheduler(t, oneGPU())
	want := []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	for fails, w := range want {
		if got := s.backoffFor(fails); got != w {
			t.Errorf("backoff after %d failures: %v, want %v", fails, got, w)
		}
	}
	if got := s.backoffFor(1000); got != 10*time.Second {
		t.Errorf("backoff after 1000 failures: %v", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Generated runs of Add, Delete, SetTaints, AddNode and Step at increasing
// times (some pods tolerating one of the taints): after every
// Step no pending pod fits any node (the queue leaves no pod waiting that
// could be placed: every event that may make room moves the pods it may
// help back), no
// node is over-allocated, the nodes hold exactly the bound pods, and
// every pod is bound at most once.
func TestPropertySchedulerWorkConserving(t *testing.T) {
	for seed := int64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var nodes []NodeInfo
		for i := range 1 + rng.Intn(4) {
			nodes = append(nodes, NodeInfoOf(trace.NodeRecord{Name: fmt.Sprint("n", i), MilliCPU: int64(2000 + rng.Intn(6000)),
				MemoryMiB: 16384, GPUs: rng.Intn(3), Model: []string{"T4", "V100"}[rng.Intn(2)]}))
		}
		policies := []Policy{&Random{}, DotProduct{}, GPUClustering{}, GPUPacking{}, BestFit{}}
		s, err := NewScheduler(t0, Config{Policy: policies[rng.Intn(len(policies))], Seed: seed}, nodes)
		must(t, err)
		now := t0
		bound := map[string]PodInfo{}
		everBound := map[string]bool{}
		pending := map[string]PodInfo{}
		n := 0
		for range 200 {
			now = now.Add(time.Duration(rng.Intn(400)) * time.Second)
			switch k := rng.Intn(12); {
			case k == 10:
				// Taint or untaint a node.
				var ts []taints.Taint
				if rng.Intn(2) == 0 {
					ts = []taints.Taint{{Key: []string{taints.TaintNodeUnreachable, taints.TaintNodeNotReady}[rng.Intn(2)],
						Effect: []taints.Effect{taints.TaintEffectNoSchedule, taints.TaintEffectNoExecute, taints.TaintEffectPreferNoSchedule}[rng.Intn(3)]}}
				}
				must(t, s.SetTaints(now, s.Nodes()[rng.Intn(len(s.Nodes()))].Name, ts))
			case k == 11:
				if len(s.Nodes()) < 8 {
					must(t, s.AddNode(now, NodeInfoOf(trace.NodeRecord{Name: fmt.Sprint("added", len(s.Nodes())), MilliCPU: int64(2000 + rng.Intn(6000)),
						MemoryMiB: 16384, GPUs: rng.Intn(3), Model: "T4"})))
				}
			case k < 5:
				p := PodInfo{Name: fmt.Sprint("p", n), MilliCPU: int64(rng.Intn(3000)), MemoryMiB: int64(rng.Intn(4096))}
				if g := rng.Intn(3); g > 0 {
					p.GPUs, p.GPUMilli = g, MilliGPU
					if g == 1 && rng.Intn(2) == 0 {
						p.GPUMilli = int64(100 + rng.Intn(900))
					}
					if rng.Intn(4) == 0 {
						p.Models = []string{"T4"}
					}
				}
				if rng.Intn(4) == 0 {
					p.Tolerations = []taints.Toleration{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists}}
				}
				n++
				must(t, s.Add(now, p))
				pending[p.Name] = p
			case k < 8:
				var all []string
				for name := range bound {
					all = append(all, name)
				}
				for name := range pending {
					all = append(all, name)
				}
				if len(all) == 0 {
					continue
				}
				slices.Sort(all)
				name := all[rng.Intn(len(all))]
				d, err := s.Delete(now, name)
				must(t, err)
				if _, ok := bound[name]; ok != (d.Node >= 0) {
					t.Fatalf("seed %d: delete %s: node %d, bound %v", seed, name, d.Node, ok)
				}
				delete(bound, name)
				delete(pending, name)
			default:
				r := s.Step(now)
				for _, b := range r.Bound {
					if everBound[b.Pod] {
						t.Fatalf("seed %d: %s bound twice", seed, b.Pod)
					}
					everBound[b.Pod] = true
					bound[b.Pod] = pending[b.Pod]
					delete(pending, b.Pod)
				}
				if s.Pending() != len(pending) {
					t.Fatalf("seed %d: Pending %d, want %d", seed, s.Pending(), len(pending))
				}
				for name, p := range pending {
					for i := range s.Nodes() {
						if ok, _ := s.Nodes()[i].Fits(&p); ok {
							t.Fatalf("seed %d: %s waits but fits %s", seed, name, s.Nodes()[i].String())
						}
					}
				}
				checkNodes(t, seed, s, bound)
			}
		}
	}
}

// checkNodes checks that the nodes hold exactly the bound pods.
func checkNodes(t *testing.T, seed int64, s *Scheduler, bound map[string]PodInfo) {
	t.Helper()
	var cpu, mem, gpu [2]int64
	var pods int
	for _, n := range s.Nodes() {
		if n.MilliCPULeft < 0 || n.MemoryMiBLeft < 0 {
			t.Fatalf("seed %d: %s over-allocated", seed, n.String())
		}
		for _, l := range n.GPUMilliLeft {
			if l < 0 || l > MilliGPU {
				t.Fatalf("seed %d: %s GPU over-allocated", seed, n.String())
			}
			gpu[0] += MilliGPU - l
		}
		cpu[0] += n.MilliCPU - n.MilliCPULeft
		mem[0] += n.MemoryMiB - n.MemoryMiBLeft
		pods += n.Pods
	}
	for _, p := range bound {
		cpu[1] += p.MilliCPU
		mem[1] += p.MemoryMiB
		gpu[1] += p.TotalGPUMilli()
	}
	if cpu[0] != cpu[1] || mem[0] != mem[1] || gpu[0] != gpu[1] || pods != len(bound) {
		t.Fatalf("seed %d: nodes hold cpu %d mem %d gpu %d pods %d; bound pods %d %d %d %d", seed, cpu[0], mem[0], gpu[0], pods, cpu[1], mem[1], gpu[1], len(bound))
	}
}

var unreachable = []taints.Taint{{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoSchedule}}

// A tainted node takes no pod that does not tolerate the taint; removing
// the taint moves the pods TaintToleration rejected back at once
// (its queueing hint: untolerated before, tolerated now).
func TestSchedulerTaints(t *testing.T) {
	nodes := append(oneGPU(), NodeInfoOf(trace.NodeRecord{Name: "n2", MilliCPU: 8000, MemoryMiB: 65536, GPUs: 1, Model: "T4"}))
	s := mustScheduler(t, nodes)
	must(t, s.SetTaints(at(0), "n2", unreachable))
	must(t, s.Add(at(0), gpuPod("a")))
	must(t, s.Add(at(0), gpuPod("b")))
	r := s.Step(at(0))
	// Reasons with equal counts go in string order.
	if names(r) != "+a -b" || r.Failed[0].Reason != "0/2 nodes are available: 1 Insufficient GPU, 1 node(s) had untolerated taint(s)" {
		t.Fatalf("at 0: %q %+v", names(r), r.Failed)
	}
	// A pod that tolerates the taint goes there.
	tol := gpuPod("tol")
	tol.Tolerations = []taints.Toleration{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists}}
	must(t, s.Add(at(time.Second), tol))
	if r := s.Step(at(time.Second)); names(r) != "+tol" || s.Nodes()[r.Bound[0].Node].Name != "n2" {
		t.Fatalf("at 1s: %q", names(r))
	}
	// Untainting n2, now full, still moves b back: the hint looks at the
	// taints only; b fails again, on resources.
	must(t, s.SetTaints(at(10*time.Second), "n2", nil))
	r = s.Step(at(10 * time.Second))
	if names(r) != "-b" || r.Failed[0].Reason != "0/2 nodes are available: 2 Insufficient GPU" {
		t.Fatalf("at 10s: %q %+v", names(r), r.Failed)
	}
	if err := s.SetTaints(at(10*time.Second), "n9", nil); !errors.Is(err, ErrUnknownNode) || !strings.Contains(err.Error(), `"n9"`) {
		t.Errorf("unknown node: %v", err)
	}
}

// A pod that only taints rejected is not moved by a deletion (only
// NodeResourcesFit asks for those), nor by re-tainting with a taint it
// still does not tolerate; it is by the taint's removal.
func TestSchedulerTaintOnlyRejection(t *testing.T) {
	s := mustScheduler(t, oneGPU())
	must(t, s.Add(at(0), gpuPod("x")))
	s.Step(at(0))
	must(t, s.SetTaints(at(time.Second), "n1", unreachable))
	must(t, s.Add(at(time.Second), PodInfo{Name: "c", MilliCPU: 500}))
	if r := s.Step(at(time.Second)); names(r) != "-c" || r.Failed[0].Reason != "0/1 nodes are available: 1 node(s) had untolerated taint(s)" {
		t.Fatalf("at 1s: %+v", r)
	}
	if _, err := s.Delete(at(20*time.Second), "x"); err != nil {
		t.Fatal(err)
	}
	if r := s.Step(at(20 * time.Second)); names(r) != "" {
		t.Fatalf("after the deletion: %q, want nothing", names(r))
	}
	notReady := []taints.Taint{{Key: taints.TaintNodeNotReady, Effect: taints.TaintEffectNoSchedule}}
	must(t, s.SetTaints(at(30*time.Second), "n1", notReady))
	if r := s.Step(at(30 * time.Second)); names(r) != "" {
		t.Fatalf("after re-tainting: %q, want nothing", names(r))
	}
	must(t, s.SetTaints(at(40*time.Second), "n1", nil))
	if r := s.Step(at(40 * time.Second)); names(r) != "+c" {
		t.Fatalf("after untainting: %q, want +c", names(r))
	}
}

// An added node moves back the pods it may take: a node without GPUs does
// not move a GPU pod, one with a GPU does, and the pod goes there.
func TestSchedulerAddNode(t *testing.T) {
	s := mustScheduler(t, oneGPU())
	must(t, s.Add(at(0), gpuPod("a")))
	must(t, s.Add(at(0), gpuPod("w")))
	s.Step(at(0))
	must(t, s.AddNode(at(5*time.Second), NodeInfoOf(trace.NodeRecord{Name: "cpu", MilliCPU: 64000, MemoryMiB: 65536})))
	if r := s.Step(at(5 * time.Second)); names(r) != "" {
		t.Fatalf("after a CPU node: %q, want nothing", names(r))
	}
	must(t, s.AddNode(at(6*time.Second), NodeInfoOf(trace.NodeRecord{Name: "g", MilliCPU: 8000, MemoryMiB: 65536, GPUs: 1, Model: "T4"})))
	r := s.Step(at(6 * time.Second))
	if names(r) != "+w" || s.Nodes()[r.Bound[0].Node].Name != "g" || r.Bound[0].Node != 2 {
		t.Fatalf("after a GPU node: %q %+v", names(r), r.Bound)
	}
	if err := s.AddNode(at(7*time.Second), NodeInfoOf(trace.NodeRecord{Name: "g"})); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `node "g": want a name not taken`) {
		t.Errorf("duplicate node: %v", err)
	}
	bad := NodeInfoOf(trace.NodeRecord{Name: "bad", MilliCPU: 1000, GPUs: 1})
	bad.GPUMilliLeft[0] = 1200
	if err := s.AddNode(at(7*time.Second), bad); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `node "bad": cpu 1000m of 1000m left, memory 0 of 0 MiB left, GPUs left [1200]`) {
		t.Errorf("bad node: %v", err)
	}
	if _, err := NewScheduler(t0, Config{Policy: BestFit{}}, []NodeInfo{bad}); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `GPUs left [1200]`) {
		t.Errorf("bad node at the start: %v", err)
	}
	if _, err := NewScheduler(t0, Config{Policy: BestFit{}}, append(oneGPU(), oneGPU()...)); err == nil || !strings.Contains(err.Error(), `node "n1" appears twice`) {
		t.Errorf("duplicate nodes: %v", err)
	}
}
