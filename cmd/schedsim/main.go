// Command schedsim runs scheduling policies over GPU cluster traces with
// the FGD paper's protocol (package sim/sched), or replays them over time
// (-replay), and writes one row per
// (trace, policy, seed) with the columns of the paper's
// analysis_allo_discrete.csv, a comparison table, and optionally the
// allocation curves as SVG:
//
//	go run ./cmd/schedsim -csv alloc.csv -svg alloc.svg \
//	    -expected ../shared/data/traces/fgd-expected/analysis_allo_discrete.default.csv
//
// Flags:
//
//	-nodes file       node list (../shared/data/traces/openb/openb_node_list_gpu_node.csv)
//	-pods files       pod lists, comma-separated
//	                  (../shared/data/traces/openb/openb_pod_list_default.csv)
//	-policies list    Random,DotProd,GpuClustering,GpuPacking,BestFit,FGD (all six)
//	-seeds list       seeds: numbers and ranges, comma-separated (42-51)
//	-tune r           arrived GPU requests as a multiple of the cluster's GPUs (1.3)
//	-shuffle          shuffle the pods by seed (true)
//	-csv file         write the rows there ("-": stdout)
//	-svg file         draw the allocation curves: per policy the median
//	                  over seeds and the band between the lowest and highest;
//	                  with -replay, the GPU allocation over time per policy
//	                  (median over seeds), without the faults dashed and
//	                  with them solid, the times nodes were down shaded by
//	                  how many
//	-expected file    the paper's rows, to put beside the table
//	-shard i/n        run only the i-th of n contiguous parts of the runs
//	                  (from 0); shard 0 writes the header, so the shards'
//	                  CSVs concatenated in order are the whole run's
//	-workers n        runs at once (the machine's cores)
//	-replay           replay the pods over time instead (sched.Replay): each
//	                  arrives at its creation time, waits in kube-scheduler's
//	                  queue until it fits, and leaves at its deletion time;
//	                  the CSV then has one row per (trace, policy, seed) with
//	                  the pods never bound, those that waited, the waits'
//	                  quantiles, the mean allocation of GPU, CPU and memory
//	                  over time and the peak GPU allocation
//	-durations        with -replay: pods run their traced durations from
//	                  their binding
//	-load f           with -replay: creation times divided by f, each pod
//	                  staying as long (1)
//	-faults file      with -replay: a node fault trace (StepFun's InfiniteHBD
//	                  JSON); each pod list is then replayed without it and
//	                  with it ("<list>+faults"), its nodes put on the
//	                  cluster's by the run's seed (trace.AssignFaults), and
//	                  the node lifecycle running beside the scheduler
//	                  (sched.Replay.Faults); the rows gain the pods evicted,
//	                  the time from an eviction to the replacement's binding
//	                  and the GPU-hours lost
//	-fault-scale f    with -faults: multiply the fault trace's times by f
//	                  (0, the default: cut it at the replay's last event)
//	-fault-model m    with -replay: generated faults (trace.FaultModel),
//	                  KEY=VALUE,...: mtbf and mttr (each node's own
//	                  failures), rack, rack-mtbf and rack-mttr (racks of
//	                  that many consecutive nodes of the list failing
//	                  together), drain-every and drain-for (maintenances:
//	                  each node cordoned, drained and down once a period);
//	                  durations as 36h or 30d, drawn by the run's seed over
//	                  the replay's span; added to -faults' windows. The
//	                  rows' drained column counts the pods drained, apart
//	                  from those the node lifecycle evicted
//
// Progress goes to stderr every few seconds.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "schedsim:", err)
		os.Exit(2)
	}
}
