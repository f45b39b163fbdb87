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
// Traces come from package trace (Alibaba's openb node and pod lists, or
// a user's own in the same format). Nothing here reads a clock or starts
// a goroutine; a run's randomness is a math/rand source seeded from the
// Experiment, so the same Experiment gives the same Result. cmd/schedsim
// runs the paper's table on the machine's cores.
package sched
