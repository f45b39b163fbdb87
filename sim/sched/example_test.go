package sched_test

import (
	"fmt"

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
