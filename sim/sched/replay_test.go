package sched

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/sim/trace"
)

func tracePod(name string, gpus int, created, deleted, scheduled time.Duration) trace.PodRecord {
	p := trace.PodRecord{Name: name, MilliCPU: 1000, MemoryMiB: 1024, GPUs: gpus, Created: created}
	if gpus > 0 {
		p.GPUMilli = MilliGPU
	}
	if deleted >= 0 {
		p.Deleted, p.HasDeleted = deleted, true
	}
	if scheduled >= 0 {
		p.Scheduled, p.HasScheduled = scheduled, true
	}
	return p
}

// handReplay: one node with two GPUs; a and b take them, c waits until a
// leaves at 100s, d is deleted while it waits, e needs no GPU and never
// leaves, f arrives and leaves at 100s.
func handReplay() Replay {
	s := time.Second
	return Replay{
		Config: Config{Policy: BestFit{}},
		Nodes:  []trace.NodeRecord{{Name: "n1", MilliCPU: 8000, MemoryMiB: 65536, GPUs: 2, Model: "T4"}},
		Pods: []trace.PodRecord{
			tracePod("a", 1, 0, 100*s, 0),
			tracePod("b", 1, 10*s, 200*s, 10*s),
			tracePod("c", 1, 20*s, 300*s, 20*s),
			tracePod("d", 1, 30*s, 50*s, -1),
			tracePod("e", 0, 40*s, -1, 40*s),
			tracePod("f", 1, 100*s, 100*s, -1),
		},
	}
}

func TestReplayHandWorked(t *testing.T) {
	s := time.Second
	res, err := handReplay().Run()
	if err != nil {
		t.Fatal(err)
	}
	// At 100s: a leaves, f arrives, c (Timestamp 20s, its backoff over)
	// goes before f (100s) and takes the GPU, f fails and leaves.
	want := []TimedSample{
		{At: 0, Running: 1, UsedGPUMilli: 1000, UsedMilliCPU: 1000, UsedMemoryMiB: 1024},
		{At: 10 * s, Running: 2, UsedGPUMilli: 2000, UsedMilliCPU: 2000, UsedMemoryMiB: 2048},
		{At: 20 * s, Pending: 1, Running: 2, UsedGPUMilli: 2000, UsedMilliCPU: 2000, UsedMemoryMiB: 2048},
		{At: 30 * s, Pending: 2, Running: 2, UsedGPUMilli: 2000, UsedMilliCPU: 2000, UsedMemoryMiB: 2048},
		{At: 40 * s, Pending: 2, Running: 3, UsedGPUMilli: 2000, UsedMilliCPU: 3000, UsedMemoryMiB: 3072},
		{At: 50 * s, Pending: 1, Running: 3, UsedGPUMilli: 2000, UsedMilliCPU: 3000, UsedMemoryMiB: 3072},
		{At: 100 * s, Pending: 0, Running: 3, UsedGPUMilli: 2000, UsedMilliCPU: 3000, UsedMemoryMiB: 3072},
		{At: 200 * s, Running: 2, UsedGPUMilli: 1000, UsedMilliCPU: 2000, UsedMemoryMiB: 2048},
		{At: 300 * s, Running: 1, UsedMilliCPU: 1000, UsedMemoryMiB: 1024},
	}
	if got := fmt.Sprint(res.Samples); got != fmt.Sprint(want) {
		t.Errorf("samples\n got %v\nwant %v", got, fmt.Sprint(want))
	}
	reason := "0/1 nodes are available: 1 Insufficient GPU"
	wantPods := []PodOutcome{
		{Name: "a", Arrived: 0, BoundAt: 0, Bound: true, Node: "n1", Left: 100 * s, HasLeft: true},
		{Name: "b", Arrived: 10 * s, BoundAt: 10 * s, Bound: true, Node: "n1", Left: 200 * s, HasLeft: true},
		{Name: "c", Arrived: 20 * s, BoundAt: 100 * s, Bound: true, Node: "n1", Left: 300 * s, HasLeft: true, Failures: 1, Reason: reason},
		{Name: "d", Arrived: 30 * s, Left: 50 * s, HasLeft: true, Failures: 1, Reason: reason},
		{Name: "e", Arrived: 40 * s, BoundAt: 40 * s, Bound: true, Node: "n1"},
		{Name: "f", Arrived: 100 * s, Left: 100 * s, HasLeft: true, Failures: 1, Reason: reason},
	}
	if got := fmt.Sprint(res.Pods); got != fmt.Sprint(wantPods) {
		t.Errorf("pods\n got %v\nwant %v", got, fmt.Sprint(wantPods))
	}
	if res.End != 300*s || res.GPUs != 2 || res.MilliCPU != 8000 {
		t.Errorf("end %v, GPUs %d, CPU %d", res.End, res.GPUs, res.MilliCPU)
	}
	// Waits of a, b, c, e: 0, 0, 80s, 0.
	if w := res.Waits(); fmt.Sprint(w) != "[0s 0s 1m20s 0s]" || Quantile(w, 0.5) != 0 || Quantile(w, 0.75) != 0 || Quantile(w, 1) != 80*s {
		t.Errorf("waits %v, median %v, max %v", w, Quantile(w, 0.5), Quantile(w, 1))
	}
	// GPU thousandths over time: 1000 for 10s, 2000 for 190s, 1000 for
	// 100s: 490,000 over 300s of 2,000 = 0.81667. CPU: 1000×10 +
	// 2000×30 + 3000×160 + 2000×100 = 750,000 over 300s of 8,000.
	u := res.MeanUse()
	if math.Abs(u.GPU-490000.0/300/2000) > 1e-12 || math.Abs(u.CPU-750000.0/300/8000) > 1e-12 {
		t.Errorf("mean use %+v, want GPU %.5f CPU %.5f", u, 490000.0/300/2000, 750000.0/300/8000)
	}
}

// With Durations, c runs its 280s from 100s, so it leaves at 380s; b
// keeps its 190s; d and f, which the trace never scheduled, leave at
// their deletion times.
func TestReplayDurations(t *testing.T) {
	s := time.Second
	r := handReplay()
	r.Durations = true
	res, err := r.Run()
	if err != nil {
		t.Fatal(err)
	}
	left := map[string]time.Duration{}
	for _, o := range res.Pods {
		if o.HasLeft {
			left[o.Name] = o.Left
		}
	}
	if got, want := fmt.Sprint(left), fmt.Sprint(map[string]time.Duration{"a": 100 * s, "b": 200 * s, "c": 380 * s, "d": 50 * s, "f": 100 * s}); got != want {
		t.Errorf("left %s, want %s", got, want)
	}
	if res.End != 380*s {
		t.Errorf("end %v, want 6m20s", res.End)
	}
}

func TestReplayErrors(t *testing.T) {
	r := handReplay()
	r.Pods = append(r.Pods, r.Pods[0], trace.PodRecord{Name: "m", GPUs: 2, GPUMilli: 300}, trace.PodRecord{Name: "early", Created: -time.Second})
	r.Pods = append(r.Pods, trace.PodRecord{Name: "back", Created: time.Minute, Deleted: time.Second, HasDeleted: true})
	r.Policy = nil
	r.Load = -2
	_, err := r.Run()
	for _, want := range []string{"no Policy", `pod "a" appears twice`, `pod "m": a share of a GPU (300) for 2 GPUs`,
		`pod "early" created at -1s, deleted at 0s, scheduled at 0s: times out of order`,
		`pod "back" created at 1m0s, deleted at 1s, scheduled at 0s: times out of order`, "Load -2 must be a finite number >= 0"} {
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(fmt.Sprint(err), want) {
			t.Errorf("error %v, want it to say %q", err, want)
		}
	}
}

// Load 2 halves the creation times and keeps each pod's stay: a arrives
// at 0 and leaves at 100s, b at 5s (200s), c at 10s (290s), d at 15s
// (35s), e at 20s, f at 50s (50s). c waits from 10s to a's departure at
// 100s, f arrives while both GPUs are taken and leaves at once.
func TestReplayLoad(t *testing.T) {
	s := time.Second
	r := handReplay()
	r.Load = 2
	res, err := r.Run()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range res.Pods {
		got = append(got, fmt.Sprintf("%s %v-%v bound %v at %v", o.Name, o.Arrived, o.Left, o.Bound, o.BoundAt))
	}
	want := []string{"a 0s-1m40s bound true at 0s", "b 5s-3m15s bound true at 5s", "c 10s-4m50s bound true at 1m40s",
		"d 15s-35s bound false at 0s", "e 20s-0s bound true at 20s", "f 50s-50s bound false at 0s"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if res.End != 290*s {
		t.Errorf("end %v", res.End)
	}
}

func TestReplayLoadOutOfRange(t *testing.T) {
	r := handReplay()
	r.Load = 1e-300
	if _, err := r.Run(); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `Load 1e-300 puts pod "b" beyond the times this can count`) {
		t.Errorf("tiny load: %v", err)
	}
}

// genTrace is a generated cluster and trace for the properties: up to
// five nodes and 64 pods within an hour, most with deletion and
// scheduled times.
func genTrace(seed int64) ([]trace.NodeRecord, []trace.PodRecord) {
	rng := rand.New(rand.NewSource(seed))
	var nodes []trace.NodeRecord
	for i := range 1 + rng.Intn(5) {
		nodes = append(nodes, trace.NodeRecord{Name: fmt.Sprint("n", i), MilliCPU: int64(4000 + rng.Intn(8000)), MemoryMiB: 32768,
			GPUs: rng.Intn(4), Model: "T4"})
	}
	var pods []trace.PodRecord
	for i := range 5 + rng.Intn(60) {
		created := time.Duration(rng.Intn(3600)) * time.Second
		p := trace.PodRecord{Name: fmt.Sprint("p", i), MilliCPU: int64(rng.Intn(4000)), MemoryMiB: int64(rng.Intn(8192)), Created: created}
		if g := rng.Intn(3); g > 0 {
			p.GPUs, p.GPUMilli = g, MilliGPU
			if g == 1 && rng.Intn(2) == 0 {
				p.GPUMilli = int64(50 + rng.Intn(950))
			}
		}
		if rng.Intn(5) > 0 {
			p.Deleted, p.HasDeleted = created+time.Duration(rng.Intn(1800))*time.Second, true
			if rng.Intn(3) > 0 {
				p.Scheduled, p.HasScheduled = created+time.Duration(rng.Intn(60))*time.Second, true
				p.Scheduled = min(p.Scheduled, p.Deleted)
			}
		}
		pods = append(pods, p)
	}
	return nodes, pods
}

// Generated traces over every policy: at every sample no more is used
// than the cluster has, each pod is bound at most once, between its
// arrival and its departure, and the samples' counts match the outcomes;
// two runs are identical.
func TestPropertyReplay(t *testing.T) {
	for seed := int64(0); seed < 60; seed++ {
		nodes, pods := genTrace(seed)
		typical := Typical(pods, 95)
		for _, policy := range []Policy{&Random{}, DotProduct{}, GPUClustering{}, GPUPacking{}, BestFit{}, &FGD{Typical: typical}} {
			for _, durations := range []bool{false, true} {
				r := Replay{Config: Config{Policy: policy, Seed: seed}, Nodes: nodes, Pods: pods, Durations: durations}
				res, err := r.Run()
				if err != nil {
					t.Fatal(err)
				}
				checkReplay(t, fmt.Sprintf("seed %d %s durations %v", seed, policy.Name(), durations), r, res)
				again, _ := r.Run()
				if fmt.Sprint(again) != fmt.Sprint(res) {
					t.Fatalf("seed %d %s: two runs differ", seed, policy.Name())
				}
			}
		}
	}
}

func checkReplay(t *testing.T, what string, r Replay, res ReplayResult) {
	t.Helper()
	var gpu, cpu, mem int64
	for _, n := range r.Nodes {
		gpu += int64(n.GPUs) * MilliGPU
		cpu += n.MilliCPU
		mem += n.MemoryMiB
	}
	for i, s := range res.Samples {
		if s.UsedGPUMilli > gpu || s.UsedMilliCPU > cpu || s.UsedMemoryMiB > mem || s.Pending < 0 || s.Running < 0 {
			t.Fatalf("%s: sample %+v beyond the cluster (%d %d %d)", what, s, gpu, cpu, mem)
		}
		if i > 0 && s.At <= res.Samples[i-1].At {
			t.Fatalf("%s: samples out of order at %d", what, i)
		}
		// Count the pods pending and running after s.At from the outcomes.
		var pending, running int
		for _, o := range res.Pods {
			there := o.Arrived <= s.At && (!o.HasLeft || o.Left > s.At)
			switch {
			case !there:
			case o.Bound && o.BoundAt <= s.At:
				running++
			default:
				pending++
			}
		}
		if pending != s.Pending || running != s.Running {
			t.Fatalf("%s: at %v the outcomes have %d pending and %d running, the sample %+v", what, s.At, pending, running, s)
		}
	}
	for i, o := range res.Pods {
		p := r.Pods[i]
		if o.Name != p.Name || o.Arrived != p.Created {
			t.Fatalf("%s: outcome %d is %+v for pod %s", what, i, o, p.Name)
		}
		if o.Bound && (o.BoundAt < o.Arrived || (o.HasLeft && o.Left < o.BoundAt)) {
			t.Fatalf("%s: %+v bound outside its stay", what, o)
		}
		if !r.Durations && p.HasDeleted && (!o.HasLeft || o.Left != p.Deleted) {
			t.Fatalf("%s: %+v did not leave at %v", what, o, p.Deleted)
		}
		if !o.Bound && o.Failures == 0 && (!o.HasLeft || o.Left != o.Arrived) {
			t.Fatalf("%s: %+v never tried", what, o)
		}
	}
}
