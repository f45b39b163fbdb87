package sched_test

import (
	"fmt"
	"time"

	"github.com/nodelife/nodelife/sim/sched"
	"github.com/nodelife/nodelife/sim/trace"
)

// MostGPULeft is a research scheduler's own policy, written outside the
// package: it spreads GPU pods to the nodes with the most GPU left, and
// GPU-less pods to the nodes with the most CPU left.
type MostGPULeft struct{}

// Name names the policy in results.
func (MostGPULeft) Name() string { return "MostGPULeft" }

// Score is the percent of the largest node's GPUs (or of the node's CPU)
// left.
func (MostGPULeft) Score(p *sched.PodInfo, n *sched.NodeInfo) int64 {
	if p.GPUs == 0 {
		return n.MilliCPULeft * sched.MaxScore / n.MilliCPU
	}
	return n.GPUMilliLeftTotal() * sched.MaxScore / sched.MaxSpecGPUMilli
}

// A policy of one's own beside two of the FGD paper's, on the same
// cluster and arrivals: two nodes of two GPUs each; two pods asking for
// half a GPU, then three asking for a whole one. Worked by hand:
// MostGPULeft puts the halves on different nodes, which leaves one free
// GPU on each: the third whole-GPU pod finds none. BestFit puts the
// second half beside the first (82 against 78 before rescaling), and
// GpuClustering puts it with its own class (95 against 43): both leave
// three free GPUs, and every pod is placed.
func ExampleExperiment() {
	nodes := []trace.NodeRecord{
		{Name: "a", MilliCPU: 32000, MemoryMiB: 65536, GPUs: 2, Model: "T4"},
		{Name: "b", MilliCPU: 32000, MemoryMiB: 65536, GPUs: 2, Model: "T4"},
	}
	pods := []trace.PodRecord{
		{Name: "s1", MilliCPU: 2000, MemoryMiB: 1024, GPUs: 1, GPUMilli: 500},
		{Name: "s2", MilliCPU: 2000, MemoryMiB: 1024, GPUs: 1, GPUMilli: 500},
		{Name: "w1", MilliCPU: 4000, MemoryMiB: 1024, GPUs: 1, GPUMilli: 1000},
		{Name: "w2", MilliCPU: 4000, MemoryMiB: 1024, GPUs: 1, GPUMilli: 1000},
		{Name: "w3", MilliCPU: 4000, MemoryMiB: 1024, GPUs: 1, GPUMilli: 1000},
	}
	for _, policy := range []sched.Policy{MostGPULeft{}, sched.BestFit{}, sched.GPUClustering{}} {
		res, err := sched.Experiment{Nodes: nodes, Pods: pods, Policy: policy, Seed: 42}.Run()
		if err != nil {
			fmt.Println(err)
			return
		}
		last := res.Samples[len(res.Samples)-1]
		fmt.Printf("%-13s %d of %d pods placed, %d of %d GPU thousandths allocated\n", policy.Name(),
			len(res.Pods)-len(res.Failed), len(res.Pods), last.UsedGPUMilli, res.GPUs*sched.MilliGPU)
		for _, f := range res.Failed {
			fmt.Println("  ", f.Pod+":", f.Reason)
		}
	}
	// Output:
	// MostGPULeft   4 of 5 pods placed, 3000 of 4000 GPU thousandths allocated
	//    w3: 0/2 nodes are available: 2 Insufficient GPU
	// BestFit       5 of 5 pods placed, 4000 of 4000 GPU thousandths allocated
	// GpuClustering 5 of 5 pods placed, 4000 of 4000 GPU thousandths allocated
}

// The same cluster and pods over time: each pod arrives 10 seconds after
// the one before, and the first half-GPU pod leaves at 600s. Worked by
// hand: under MostGPULeft the third whole-GPU pod (arrived at 40s) waits
// until that pod's GPU is free and is bound at 600s, after 560s; the
// GPUs allocated are 500, 1000, 2000 and 3000 thousandths over the
// first four 10-second steps, then 3000 until 600s: 1,745,000 over 600s
// of 4,000 is 72.7%. Under BestFit every pod is bound as it arrives,
// 4,000 from 40s: 96.0%.
func ExampleReplay() {
	nodes := []trace.NodeRecord{
		{Name: "a", MilliCPU: 32000, MemoryMiB: 65536, GPUs: 2, Model: "T4"},
		{Name: "b", MilliCPU: 32000, MemoryMiB: 65536, GPUs: 2, Model: "T4"},
	}
	pods := []trace.PodRecord{
		{Name: "s1", MilliCPU: 2000, MemoryMiB: 1024, GPUs: 1, GPUMilli: 500, Deleted: 600 * time.Second, HasDeleted: true},
		{Name: "s2", MilliCPU: 2000, MemoryMiB: 1024, GPUs: 1, GPUMilli: 500, Created: 10 * time.Second},
		{Name: "w1", MilliCPU: 4000, MemoryMiB: 1024, GPUs: 1, GPUMilli: 1000, Created: 20 * time.Second},
		{Name: "w2", MilliCPU: 4000, MemoryMiB: 1024, GPUs: 1, GPUMilli: 1000, Created: 30 * time.Second},
		{Name: "w3", MilliCPU: 4000, MemoryMiB: 1024, GPUs: 1, GPUMilli: 1000, Created: 40 * time.Second},
	}
	for _, policy := range []sched.Policy{MostGPULeft{}, sched.BestFit{}} {
		res, err := sched.Replay{Config: sched.Config{Policy: policy, Seed: 42}, Nodes: nodes, Pods: pods}.Run()
		if err != nil {
			fmt.Println(err)
			return
		}
		waits := res.Waits()
		fmt.Printf("%-11s longest wait %v, mean GPU allocation %.1f%%\n", policy.Name(), sched.Quantile(waits, 1), 100*res.MeanUse().GPU)
		for _, o := range res.Pods {
			if o.Failures > 0 {
				fmt.Printf("  %s waited from %v to %v: %s\n", o.Name, o.Arrived, o.BoundAt, o.Reason)
			}
		}
	}
	// Output:
	// MostGPULeft longest wait 9m20s, mean GPU allocation 72.7%
	//   w3 waited from 40s to 10m0s: 0/2 nodes are available: 2 Insufficient GPU
	// BestFit     longest wait 0s, mean GPU allocation 96.0%
}

// Driving the Scheduler by hand: one node with one GPU, two pods that
// want it. The second waits in the unschedulable pool with its reason;
// with nothing else happening, the periodic flush would try it again at
// 5m30s (it must wait more than five minutes, on the 30-second periods);
// the first pod's deletion at 2m tries it at once.
func ExampleScheduler() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	nodes := []sched.NodeInfo{sched.NodeInfoOf(trace.NodeRecord{Name: "n1", MilliCPU: 8000, MemoryMiB: 65536, GPUs: 1, Model: "T4"})}
	s, err := sched.NewScheduler(start, sched.Config{Policy: sched.BestFit{}}, nodes)
	if err != nil {
		fmt.Println(err)
		return
	}
	pod := func(name string) sched.PodInfo {
		return sched.PodInfo{Name: name, MilliCPU: 1000, MemoryMiB: 1024, GPUs: 1, GPUMilli: sched.MilliGPU}
	}
	show := func(r sched.Round) {
		for _, b := range r.Bound {
			fmt.Printf("%s bound to %s after %d failed attempts\n", b.Pod, s.Nodes()[b.Node].Name, b.Attempts)
		}
		for _, f := range r.Failed {
			fmt.Printf("%s waits: %s\n", f.Pod, f.Reason)
		}
		if !r.Next.IsZero() {
			fmt.Println("next flush at", r.Next.Sub(start))
		}
	}
	_ = s.Add(start, pod("a"))
	_ = s.Add(start.Add(time.Second), pod("b"))
	show(s.Step(start.Add(time.Second)))
	_, _ = s.Delete(start.Add(2*time.Minute), "a")
	show(s.Step(start.Add(2 * time.Minute)))
	// Output:
	// a bound to n1 after 0 failed attempts
	// b waits: 0/1 nodes are available: 1 Insufficient GPU
	// next flush at 5m30s
	// b bound to n1 after 1 failed attempts
}
