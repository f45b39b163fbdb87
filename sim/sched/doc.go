// Package sched is the simulator's scheduling harness: a scheduler seam
// a research scheduler plugs its policy into (Policy: filter and score
// over a read-only view of the nodes with what is allocated on them, as
// kube-scheduler's score plugins), a model of nodes with GPUs per device
// (whole GPUs for multi-GPU pods, thousandths of one GPU for shared ones,
// the GPU models a pod allows), the six policies of the FGD paper (Weng
// et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
// Fragmentation Gradient Descent", USENIX ATC'23: Random, DotProduct,
// GPUClustering, GPUPacking, BestFit and FGD, as
// hkust-adsl/kubernetes-scheduler-simulator scores them), its
// fragmentation measure (Frag), and its experiment protocol (Experiment:
// pods shuffled by seed, the workload tuned to 1.3 times the cluster's
// GPUs, the GPU allocation recorded after every pod and discretized at
// every whole percent of arrived GPU requests, Curve).
//
// Beside the paper's arrival-only protocol, workloads run over time:
// Scheduler is kube-scheduler's loop over its queue (active queue,
// backoff, the unschedulable pool and its periodic flush, the requeue of
// waiting pods when a bound pod leaves) as a synchronous machine driven
// by Add, Delete and Step(now), and Replay runs a trace through it, pods
// arriving at their creation times and leaving at their deletion times
// (or running for their traced durations), with the allocation of GPU,
// CPU and memory over time, each pod's wait, and the reason of every pod
// that fit nowhere (ReplayResult, Waits, Quantile, MeanUse). A Replay
// with Faults (node fault windows, such as package trace reads from the
// InfiniteHBD fault trace) runs the library's node lifecycle controller
// beside the scheduler: silent kubelets, Unknown nodes, taints that the
// scheduler sees, evictions when tolerations run out, replacements that
// queue again; the result counts the evictions, the time to running
// again and the GPU-hours lost (Eviction, Recoveries, GPUHoursLost).
//
// Traces come from package trace (Alibaba's openb node and pod lists, or
// a user's own in the same format). Nothing here reads a clock or starts
// a goroutine; a run's randomness is a math/rand source seeded from the
// Experiment or Replay, so the same one gives the same result.
// cmd/schedsim runs the paper's table, and replays, on the machine's
// cores.
package sched
