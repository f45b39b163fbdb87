// Package trace reads cluster traces for the simulator's scheduling
// harness: the nodes of a cluster and the pods that arrive on it, with
// their CPU, memory and GPU requests and, where the trace has them, their
// times.
//
// The format is the one Alibaba's openb traces use, as published with
// the FGD paper (Weng et al., "Beware of Fragmentation: Scheduling
// GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX
// ATC'23) and kept in cluster-trace-gpu-v2023: two CSV files with a header
// line, the columns found by name, in any order.
//
// A node list has the columns
//
//	sn          the node's name (or "name")
//	cpu_milli   its CPU, in millicores
//	memory_mib  its memory, in MiB
//	gpu         its number of GPUs (0 for a CPU node)
//	model       the GPU model ("V100M16", "T4", ...), empty for a CPU node
//
// and a pod list the columns
//
//	name            the pod's name
//	cpu_milli       its CPU request, in millicores
//	memory_mib      its memory request, in MiB
//	num_gpu         the number of GPUs it needs (0: none)
//	gpu_milli       the thousandths of each GPU it needs: 1000 for whole
//	                GPUs, less for a share of one GPU (0 when num_gpu is 0)
//	gpu_spec        optional: the GPU models it may run on, separated by
//	                "|"; empty for any
//	qos, pod_phase  optional: kept as they are
//	creation_time   optional: when it arrives, in seconds from the trace's start
//	deletion_time   optional: when it leaves, in seconds (empty: never)
//	scheduled_time  optional: when the trace's cluster bound it, in seconds
//
// The same format is the one to write a trace of one's own in: any other
// column is ignored. A malformed row is refused with the file, line and
// column named, and what the column must hold.
//
// Node faults come from a trace in the format of StepFun's InfiniteHBD
// fault trace (SIGCOMM'25): a JSON array of fault_start and fault_end
// events per node, times in days (ReadFaults gives the windows, each end
// closing the open start of its node and fault type). AssignFaults puts
// the trace's nodes on a cluster's by a seeded permutation; ScaleFaults
// and CutFaults fit the trace's time to a run's.
package trace
