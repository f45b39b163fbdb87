package sched

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/sim/trace"
	"github.com/nodelife/nodelife/taints"
)

// faultScenario: three nodes, n1 with two GPUs of model A, n2 and n3 one
// GPU of model B each. p1 and p2 want model A, so n1; p2 tolerates
// unreachable:NoExecute for ever. p3 and p4 fill n2 and n3. p5, a pod
// without GPUs, arrives at 200s. n1's kubelet is silent from 100s to
// 1000s.
func faultScenario() Replay {
	s := time.Second
	gpu := func(name, model string) trace.PodRecord {
		return trace.PodRecord{Name: name, MilliCPU: 1000, MemoryMiB: 1024, GPUs: 1, GPUMilli: MilliGPU, Models: []string{model}}
	}
	return Replay{
		Config: Config{Policy: BestFit{}},
		Nodes: []trace.NodeRecord{
			{Name: "n1", MilliCPU: 8000, MemoryMiB: 65536, GPUs: 2, Model: "A"},
			{Name: "n2", MilliCPU: 8000, MemoryMiB: 65536, GPUs: 1, Model: "B"},
			{Name: "n3", MilliCPU: 8000, MemoryMiB: 65536, GPUs: 1, Model: "B"},
		},
		Pods: []trace.PodRecord{gpu("p1", "A"), gpu("p2", "A"), gpu("p3", "B"), gpu("p4", "B"),
			{Name: "p5", MilliCPU: 500, MemoryMiB: 512, Created: 200 * s}},
		Faults: []trace.FaultWindow{{Node: "n1", Start: 100 * s, End: 1000 * s}},
		Tolerations: func(p trace.PodRecord) []taints.Toleration {
			if p.Name != "p2" {
				return nil
			}
			return []taints.Toleration{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute}}
		},
	}
}

// The times, worked out from v1.37's defaults (nodelifecycle.DefaultConfig:
// monitor pass every 5s, grace period 50s; the DefaultTolerationSeconds
// admission's 300s):
//
//   - n1's last renewal is at 90s (every 10s, the last before the fault);
//     the pass at 90s sees it. The first pass more than 50s later is at
//     145s (140s - 90s is 50s, not more): n1 turns Unknown at 145s and is
//     tainted unreachable:NoSchedule and, first of its zone's queue,
//     unreachable:NoExecute at 145s.
//   - p1 tolerates unreachable:NoExecute for 300s: evicted at 445s. Its
//     replacement p1~1 may run only on n1 (model A), which is tainted:
//     it waits, failing at 445s and at the pool's flush at 750s (the
//     first 30-second period after 445s + 5m). p1 had run 445s:
//     445/3600 GPU-hours are lost. p2
//     tolerates the taint for ever and stays.
//   - p5 at 200s: n1 is tainted, so it goes to n2 or n3.
//   - At 1000s n1's kubelet is back and posts Ready; the controller
//     removes both taints at once; p1's deletion completes, freeing its
//     GPU; p1~1 is bound to n1 at 1000s, 555s after the eviction.
func TestReplayFaultScenario(t *testing.T) {
	s := time.Second
	res, err := faultScenario().Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Evictions) != 1 {
		t.Fatalf("evictions %+v, want p1's only", res.Evictions)
	}
	want := Eviction{Pod: "p1", Of: "p1", Node: "n1", At: 445 * s, Ran: 445 * s, GPUMilli: 1000, Rebound: 1000 * s, HasRebound: true}
	if res.Evictions[0] != want {
		t.Errorf("eviction %+v, want %+v", res.Evictions[0], want)
	}
	if got := res.GPUHoursLost(); math.Abs(got-445.0/3600) > 1e-12 {
		t.Errorf("GPU-hours lost %v, want %v", got, 445.0/3600)
	}
	if r := res.Recoveries(); fmt.Sprint(r) != "[9m15s]" {
		t.Errorf("recoveries %v, want [9m15s]", r)
	}
	byName := map[string]PodOutcome{}
	for _, o := range res.Pods {
		byName[o.Name] = o
	}
	if o := byName["p1"]; o.Evictions != 1 || !o.Bound || o.BoundAt != 0 || o.Node != "n1" || o.Failures != 2 ||
		o.Reason != "0/3 nodes are available: 2 GPU model not allowed, 1 node(s) had untolerated taint(s)" {
		t.Errorf("p1 %+v", o)
	}
	if o := byName["p2"]; o.Evictions != 0 || o.Node != "n1" {
		t.Errorf("p2 %+v", o)
	}
	if o := byName["p5"]; !o.Bound || o.BoundAt != 200*s || o.Node == "n1" {
		t.Errorf("p5 %+v", o)
	}
	// Through the fault, the GPU allocation stays at 4 of 4 (p1 holds its
	// GPU while it is deleted), five pods run (p1 among them until 1000s,
	// then p1~1) and one waits from 445s to 1000s.
	var at445, at1000 TimedSample
	for _, smp := range res.Samples {
		switch smp.At {
		case 445 * s:
			at445 = smp
		case 1000 * s:
			at1000 = smp
		}
	}
	if at445.Pending != 1 || at445.Running != 5 || at445.UsedGPUMilli != 4000 || at1000.Pending != 0 || at1000.Running != 5 || at1000.UsedGPUMilli != 4000 {
		t.Errorf("at 445s %+v, at 1000s %+v", at445, at1000)
	}
	if res.End != 1000*s {
		t.Errorf("end %v, want 1000s", res.End)
	}
}

// Without the fault nothing is evicted, and a fault shorter than the
// grace period and a monitor period changes nothing either.
func TestReplayShortFault(t *testing.T) {
	s := time.Second
	for _, faults := range [][]trace.FaultWindow{nil, {{Node: "n1", Start: 100 * s, End: 140 * s}}} {
		r := faultScenario()
		r.Faults = faults
		res, err := r.Run()
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Evictions) != 0 {
			t.Errorf("faults %v: evictions %+v", faults, res.Evictions)
		}
		for _, o := range res.Pods {
			if !o.Bound || o.Failures != 0 {
				t.Errorf("faults %v: %+v", faults, o)
			}
		}
	}
}

func TestReplayFaultErrors(t *testing.T) {
	r := faultScenario()
	r.Faults = append(r.Faults, trace.FaultWindow{Node: "n9", Start: 5 * time.Second, End: 6 * time.Second})
	if _, err := r.Run(); err == nil || !strings.Contains(err.Error(), `a fault of node "n9", which the cluster does not have`) {
		t.Errorf("unknown node: %v", err)
	}
	r = faultScenario()
	r.Faults[0].End = time.Second
	if _, err := r.Run(); err == nil || !strings.Contains(err.Error(), `a fault of node "n1" from 1m40s to 1s: times out of order`) {
		t.Errorf("window backwards: %v", err)
	}
}

// Faults too short to be noticed (under the 50s grace period, ending
// before the run's end) change nothing: the run with them, on
// the lifecycle's loop, gives the same pods and samples as the run
// without, on the scheduler's alone. One thing they do change, by design:
// a pod that leaves while its node is down holds its allocation until
// the node is back; so the windows are drawn where no pod leaves its node.
func TestPropertyShortFaultsChangeNothing(t *testing.T) {
	checked := 0
	for seed := int64(0); seed < 80; seed++ {
		nodes, pods := genTrace(seed)
		for _, durations := range []bool{false, true} {
			plain := Replay{Config: Config{Policy: BestFit{}, Seed: seed}, Nodes: nodes, Pods: pods, Durations: durations}
			want, err := plain.Run()
			if err != nil {
				t.Fatal(err)
			}
			// Windows end before the plain run's end, so that both runs
			// end together (a fault run lasts until its last fault).
			last := want.End
			rng := rand.New(rand.NewSource(seed))
			var faults []trace.FaultWindow
		draw:
			for range 1 + rng.Intn(6) {
				start := time.Duration(rng.Int63n(int64(max(last-50*time.Second, 1))))
				w := trace.FaultWindow{Node: nodes[rng.Intn(len(nodes))].Name, Start: start, End: start + time.Duration(rng.Intn(40))*time.Second}
				for _, o := range want.Pods {
					if o.Bound && o.Node == w.Node && o.HasLeft && w.Start <= o.Left && o.Left <= w.End {
						continue draw
					}
				}
				faults = append(faults, w)
			}
			withFaults := plain
			withFaults.Faults = faults
			got, err := withFaults.Run()
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got.Pods) != fmt.Sprint(want.Pods) || fmt.Sprint(got.Samples) != fmt.Sprint(want.Samples) || len(got.Evictions) != 0 {
				t.Fatalf("seed %d durations %v faults %v:\n got %v\n%v\nwant %v\n%v", seed, durations, faults, got.Pods, got.Samples, want.Pods, want.Samples)
			}
			checked += len(faults)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d windows drawn", checked)
	}
}

// Long faults: every eviction is of a pod on a node down (in the union of
// its overlapping fault windows) since at least 340s before (its last renewal up to 10s before the
// window, then more than the 50s grace period, then the default
// toleration's 300s); the replacement is bound after the eviction; the allocation
// stays within the cluster; two runs are identical.
func TestPropertyFaultEvictions(t *testing.T) {
	evictions := 0
	for seed := int64(0); seed < 80; seed++ {
		nodes, pods := genTrace(seed)
		rng := rand.New(rand.NewSource(seed + 1000))
		var faults []trace.FaultWindow
		for range 1 + rng.Intn(4) {
			start := time.Duration(rng.Intn(3600)) * time.Second
			faults = append(faults, trace.FaultWindow{Node: nodes[rng.Intn(len(nodes))].Name, Start: start,
				End: start + time.Duration(60+rng.Intn(3600))*time.Second})
		}
		r := Replay{Config: Config{Policy: GPUPacking{}, Seed: seed}, Nodes: nodes, Pods: pods, Faults: faults, Durations: seed%2 == 0}
		res, err := r.Run()
		if err != nil {
			t.Fatal(err)
		}
		var gpu, cpu int64
		for _, n := range nodes {
			gpu += int64(n.GPUs) * MilliGPU
			cpu += n.MilliCPU
		}
		for _, s := range res.Samples {
			if s.UsedGPUMilli > gpu || s.UsedMilliCPU > cpu || s.Pending < 0 || s.Running < 0 {
				t.Fatalf("seed %d: sample %+v beyond the cluster", seed, s)
			}
		}
		for _, e := range res.Evictions {
			evictions++
			inside := false
			for _, w := range downPeriods(faults) {
				if w.Node == e.Node && w.Start+340*time.Second <= e.At && e.At < w.End {
					inside = true
				}
			}
			if !inside || e.Ran < 0 || e.HasRebound && e.Rebound < e.At {
				t.Fatalf("seed %d: eviction %+v (faults %v)", seed, e, faults)
			}
		}
		again, _ := r.Run()
		if fmt.Sprint(again) != fmt.Sprint(res) {
			t.Fatalf("seed %d: two runs differ", seed)
		}
	}
	if evictions == 0 {
		t.Fatal("no generated fault evicted anything")
	}
}

// downPeriods merges each node's overlapping or touching fault windows
// into the periods the node is down.
func downPeriods(ws []trace.FaultWindow) []trace.FaultWindow {
	sorted := slices.Clone(ws)
	slices.SortFunc(sorted, func(a, b trace.FaultWindow) int {
		return cmp.Or(strings.Compare(a.Node, b.Node), cmp.Compare(a.Start, b.Start))
	})
	var out []trace.FaultWindow
	for _, w := range sorted {
		if n := len(out); n > 0 && out[n-1].Node == w.Node && w.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, w.End)
			continue
		}
		out = append(out, w)
	}
	return out
}

// A maintenance (trace.MaintenanceFault()) on n1 from 100s to 400s. n1 and
// n2 have GPUs of model A, one and two; p1 (one GPU) is bound at 0s to
// n1, the tighter fit under BestFit. p2 arrives at 200s, p3 at 300s, one
// GPU each.
//
//   - At 100s n1 is cordoned (the controller's unschedulable:NoSchedule
//     condition taint reaches the scheduler at once) and drained: p1 is
//     evicted, having run 100s (100/3600 GPU-hours lost), and its
//     replacement p1~1 goes to n2 at 100s, n1 being cordoned.
//   - n1's kubelet is down from 100s: Unknown and tainted at 145s (last
//     renewal at 90s), with no pod left to evict.
//   - p2 at 200s takes n2's second GPU. p3 at 300s fits nowhere (n1
//     cordoned and tainted, n2 full) and waits.
//   - At 400s n1 is back and uncordoned: its taints go, and p3 is bound
//     to it at 400s.
func TestReplayMaintenanceDrains(t *testing.T) {
	s := time.Second
	gpu := func(name string, created time.Duration) trace.PodRecord {
		return trace.PodRecord{Name: name, MilliCPU: 1000, MemoryMiB: 1024, GPUs: 1, GPUMilli: MilliGPU, Models: []string{"A"}, Created: created}
	}
	r := Replay{
		Config: Config{Policy: BestFit{}},
		Nodes: []trace.NodeRecord{
			{Name: "n1", MilliCPU: 8000, MemoryMiB: 65536, GPUs: 1, Model: "A"},
			{Name: "n2", MilliCPU: 8000, MemoryMiB: 65536, GPUs: 2, Model: "A"},
		},
		Pods:   []trace.PodRecord{gpu("p1", 0), gpu("p2", 200*s), gpu("p3", 300*s)},
		Faults: []trace.FaultWindow{{Node: "n1", Start: 100 * s, End: 400 * s, Type: trace.MaintenanceFault()}},
	}
	res, err := r.Run()
	if err != nil {
		t.Fatal(err)
	}
	want := []Eviction{{Pod: "p1", Of: "p1", Node: "n1", At: 100 * s, Ran: 100 * s, GPUMilli: 1000, Drained: true, Rebound: 100 * s, HasRebound: true}}
	if !slices.Equal(res.Evictions, want) {
		t.Fatalf("evictions %+v, want %+v", res.Evictions, want)
	}
	for _, w := range []struct {
		pod  string
		node string
		at   time.Duration
	}{{"p1", "n1", 0}, {"p2", "n2", 200 * s}, {"p3", "n1", 400 * s}} {
		i := slices.IndexFunc(res.Pods, func(o PodOutcome) bool { return o.Name == w.pod })
		if o := res.Pods[i]; !o.Bound || o.Node != w.node || o.BoundAt != w.at {
			t.Errorf("%s: %+v, want bound to %s at %v", w.pod, o, w.node, w.at)
		}
	}
	if got := res.GPUHoursLost(); math.Abs(got-100.0/3600) > 1e-12 {
		t.Errorf("GPU-hours lost %v, want 100/3600", got)
	}
}
