// Package checkpoint reads and writes the kubelet's topology checkpoint
// files byte for byte as k8s.io/kubernetes v1.37 does (and v1.36, with
// LegacyRestore and the formats it wrote): the CPU Manager's
// cpu_manager_state (formats V4, V3, V2 and V1) and the Memory Manager's
// memory_manager_state (V3, V2 and V1), checksums included.
//
// # Usage
//
//	data, err := checkpoint.MarshalCPU(state, checkpoint.CPUFormatV4) // CPUFormatFor(release.V1_36): V2
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
// Since v1.37 each kubelet writes one format whatever its gates: the
// previous format's fields (the CPU Manager's V2, the Memory Manager's
// V1), so that a kubelet rolled back can read the file, plus "data", the
// whole state as a JSON string, and "dataChecksum", the FNV-32a hash of
// "(string)" and that string, which is the one a v1.37 kubelet checks:
// the CPU Manager's V4 and the Memory Manager's V3. Its restore reads that
// format; when the file has no data and no data checksum, the older ones
// (CPU: V3, then V2, V1 no longer; memory: V2, then V1), migrated forward;
// a file with data that does not parse or does not match its checksum is
// refused without trying the older ones. A V3 checksum may be over either
// type name V3 had; a V2 CPU checksum may be 0 or over either name (only
// the older with PodLevelResourceManagers); a memory V2 checksum must be
// over the older name and a memory V1 checksum may be 0.
//
// Before v1.37 (LegacyRestore, and the formats v1.36 wrote): the CPU
// Manager's V1 keys CPUs by container ID; V2 by pod UID and container
// name (what v1.36.3 writes by default); V3 adds pod-level entries
// (written with the alpha PodLevelResourceManagers gate). V1 and V2 files
// with checksum 0 are accepted unverified, as upstream accepts files of
// its old file backend. Reading follows the kubelet's restore: with the
// gate off, V2, then V1 (migrated with the container IDs the caller
// knows); with it on, V3, then V2, then V1, migrated forward. As
// upstream, the migration to V3 writes over what the failed V3 attempt
// read: the V2 read's policy, pool and entries replace only what they
// have, and the pod-level entries stay, so a V3 file with checksum 0 (or
// whose checksum is over the V2 shape) is read whole. A file
// that none of them reads, a checksum that does not match, a policy other
// than the configured one or a CPU list that does not parse is refused
// with an error that says which.
//
// The Memory Manager's formats before v1.37: V1 holds the machine state
// (each NUMA node's table per resource, in bytes) and the containers'
// blocks (what v1.36.3 writes by default); V2 adds pod-level blocks (with
// the gate).
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
