// Package checkpoint reads and writes the kubelet's topology checkpoint
// files byte for byte as k8s.io/kubernetes v1.36.3 does: the CPU
// Manager's cpu_manager_state (formats V1, V2 and V3) and the Memory
// Manager's memory_manager_state (V1 and V2), checksums included.
//
// # Usage
//
//	data, err := checkpoint.MarshalCPU(state, checkpoint.CPUFormatV2)
//	state, format, err := checkpoint.ReadCPU(data, checkpoint.CPUReadOptions{PolicyName: "static"})
//	data, err = checkpoint.MarshalMemory(mem, checkpoint.MemoryFormatV1)
//	mem, mformat, err := checkpoint.ReadMemory(data, checkpoint.MemoryReadOptions{PolicyName: "Static"})
//
// # Semantics
//
// A checkpoint is JSON with a checksum: the FNV-32a hash of the text the
// kubelet's dump.ForHash prints for the checkpoint struct with checksum 0
// (go-spew's "%#v" with sorted keys), a text that names Go types such as
// "state.CPUManagerCheckpoint". The package prints that text itself, so a
// file it writes is the file a kubelet writes, and it accepts the files
// the kubelet accepts, but for two: a CPU ID above cpuset.MaxCPU (see
// package cpuset) and the null memory table below.
//
// The CPU Manager's formats: V1 keys CPUs by container ID; V2 by pod UID
// and container name (what v1.36.3 writes by default); V3 adds pod-level
// entries (written with the alpha PodLevelResourceManagers gate). V1 and
// V2 files with checksum 0 are accepted unverified, as upstream accepts
// files of its old file backend. Reading follows the kubelet's restore:
// with the gate off, V2, then V1 (migrated with the container IDs the
// caller knows); with it on, V3, then V2, then V1, migrated forward. As
// upstream, the migration to V3 writes over what the failed V3 attempt
// read: the V2 read's policy, pool and entries replace only what they
// have, and the pod-level entries stay, so a V3 file with checksum 0 (or
// whose checksum is over the V2 shape) is read whole. A file
// that none of them reads, a checksum that does not match, a policy other
// than the configured one or a CPU list that does not parse is refused
// with an error that says which.
//
// The Memory Manager's formats: V1 holds the machine state (each NUMA
// node's table per resource, in bytes) and the containers' blocks (what
// v1.36.3 writes by default); V2 adds pod-level blocks (with the gate).
// V1 files with checksum 0 are accepted unverified. The restore reads V1
// with the gate off, V2 then V1 with it on, migrating into what the V2
// attempt left as for the CPU file. The kubelet writes a copy of its state
// in which the machine state, entries, cells and block lists are never
// nil; MarshalMemory writes the same. One difference: a null memory table
// makes the kubelet's state copy dereference nil and panic; ReadMemory
// refuses the file, naming the node and resource.
//
// go-spew prints a nil pointer that ends a map (a null NUMA node last)
// so that the next field loses its type; the hashed text here does the
// same, or such files would not verify.
package checkpoint
