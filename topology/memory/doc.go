// Package memory is the kubelet's Memory Manager static policy as a pure,
// synchronous state machine, as k8s.io/kubernetes v1.37.2
// pkg/kubelet/cm/memorymanager decides it: the per-NUMA table of memory
// and huge pages with its reservations, topology hints over NUMA groups,
// allocation and release for the containers of Guaranteed pods, init
// containers' reusable memory, and the validation of --reserved-memory.
//
// # Usage
//
// Describe the machine's NUMA nodes (what cAdvisor reports), check the
// reservation and create the policy:
//
//	reserved, err := memory.SystemReserved(nodes, nodeAllocatableReservation, reservations)
//	p, err := memory.NewStatic(memory.Config{Nodes: nodes, Reserved: reserved})
//	err = p.Start(restored) // checkpoint.ReadMemory's state, or the zero state
//
// Then, for each pod the kubelet admits, per container (or once per pod,
// in the topology manager's pod scope): collect p.Hints (p.PodHints) with
// the other providers', merge them with topology.Merge, and call
// p.Allocate with the merged hint; on removal call p.RemoveContainer.
// p.State is what the checkpoint keeps (checkpoint.MarshalMemory).
//
// # Semantics
//
// Only Guaranteed pods get NUMA memory; each container's memory and huge
// page requests become blocks on a set of NUMA nodes, taken from the
// nodes' free memory in order. Nodes used together form a group: a node
// serving a multi-node allocation serves only allocations of exactly that
// group, and a node serving single-node allocations joins no group. A
// hint is offered for every set of nodes that could hold the requests
// under these rules, preferred when it has as few nodes as the smallest
// set whose allocatable memory could ever hold them. A regular init
// container's memory is reusable by the pod's next containers on the same
// nodes. The machine state starts from each node's memory less the
// reserved memory and the huge pages, and each huge page size less its
// reservation.
//
// Upstream's arithmetic is kept (unsigned: a reservation above a node's
// memory wraps around). Where upstream dereferences a missing table (a
// huge page size one node lacks, a block naming a node the machine state
// does not have) and panics, the policy counts the missing table as
// empty. Blocks of a container list its resources sorted by name;
// upstream lists them in Go map order.
//
// Not modelled: the PodLevelResourceManagers gate (beta and off in v1.37; a pod
// with pod-level resources gets no NUMA memory, as upstream with the gate
// off), the BestEffort policy (Windows) and the none policy.
package memory
