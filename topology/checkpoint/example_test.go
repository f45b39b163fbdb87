package checkpoint_test

import (
	"fmt"

	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// A static-policy node with CPUs 0-7: a Guaranteed container holds 2-3,
// the rest is the shared pool. The file is the one a v1.36.3 kubelet
// writes, checksum included; reading it back under another policy is
// refused as the kubelet refuses it.
func Example() {
	pool, _ := cpuset.Parse("0-1,4-7")
	held, _ := cpuset.Parse("2-3")
	state := checkpoint.CPUState{PolicyName: "static", DefaultCPUSet: pool,
		Entries: map[string]map[string]cpuset.CPUSet{"6b1d0c6e-pod": {"app": held}}}
	data, _ := checkpoint.MarshalCPU(state, checkpoint.CPUFormatV2)
	fmt.Println(string(data))

	back, format, err := checkpoint.ReadCPU(data, checkpoint.CPUReadOptions{PolicyName: "static"})
	fmt.Println(format, back.DefaultCPUSet, back.Entries["6b1d0c6e-pod"]["app"], err)
	_, _, err = checkpoint.ReadCPU(data, checkpoint.CPUReadOptions{PolicyName: "none"})
	fmt.Println(err)
	// Output:
	// {"policyName":"static","defaultCpuSet":"0-1,4-7","entries":{"6b1d0c6e-pod":{"app":"2-3"}},"checksum":524388956}
	// V2 0-1,4-7 2-3 <nil>
	// checkpoint: does not fit the configuration: configured policy "none" differs from state checkpoint policy "static"
}

// A V1 file (entries by container ID) is migrated by a kubelet before
// 1.37 with the container IDs the runtime reports; a v1.37 kubelet no
// longer reads it.
func ExampleReadCPU_v1() {
	pool, _ := cpuset.Parse("0-1")
	held, _ := cpuset.Parse("2-3")
	data, _ := checkpoint.MarshalCPUV1("static", pool, map[string]cpuset.CPUSet{"containerd://abc": held})
	s, format, err := checkpoint.ReadCPU(data, checkpoint.CPUReadOptions{PolicyName: "static", LegacyRestore: true,
		InitialContainers: map[string]checkpoint.ContainerRef{"containerd://abc": {PodUID: "pod-1", Container: "app"}}})
	fmt.Println(format, s.Entries["pod-1"]["app"], err)
	_, _, err = checkpoint.ReadCPU(data, checkpoint.CPUReadOptions{PolicyName: "static"})
	fmt.Println(err != nil)
	// Output:
	// V1 2-3 <nil>
	// true
}

// The file a v1.37 kubelet writes (V4): the V2 fields for a kubelet
// rolled back, and the state as a JSON string with its own checksum.
func ExampleMarshalCPU_v4() {
	pool, _ := cpuset.Parse("0-1,4-7")
	held, _ := cpuset.Parse("2-3")
	data, _ := checkpoint.MarshalCPU(checkpoint.CPUState{PolicyName: "static", DefaultCPUSet: pool,
		Entries: map[string]map[string]cpuset.CPUSet{"6b1d0c6e-pod": {"app": held}}}, checkpoint.CPUFormatFor(release.V1_37))
	fmt.Println(string(data))
	// Output:
	// {"policyName":"static","defaultCpuSet":"0-1,4-7","entries":{"6b1d0c6e-pod":{"app":"2-3"}},"checksum":524388956,"data":"{\"policyName\":\"static\",\"defaultCpuSet\":\"0-1,4-7\",\"entries\":{\"6b1d0c6e-pod\":{\"app\":\"2-3\"}}}","dataChecksum":510352637}
}

func ExampleMarshalCPU() {
	cpus, _ := cpuset.Parse("4-5")
	data, _ := checkpoint.MarshalCPU(checkpoint.CPUState{PolicyName: "static",
		PodEntries: map[string]cpuset.CPUSet{"pod-1": cpus}}, checkpoint.CPUFormatV3)
	fmt.Println(string(data))
	_, err := checkpoint.MarshalCPU(checkpoint.CPUState{PodEntries: map[string]cpuset.CPUSet{"pod-1": cpus}}, checkpoint.CPUFormatV2)
	fmt.Println(err)
	// Output:
	// {"policyName":"static","defaultCpuSet":"","podEntries":{"pod-1":{"cpuSet":"4-5"}},"checksum":4207276298}
	// checkpoint: does not fit the configuration: format V2 has no pod-level entries, and the state has 1
}

func ExampleMarshalCPUV1() {
	data, _ := checkpoint.MarshalCPUV1("none", cpuset.Range(0, 3), nil)
	fmt.Println(string(data))
	// Output: {"policyName":"none","defaultCpuSet":"0-3","checksum":2203202243}
}

// The Memory Manager's state of a two-node machine after a Guaranteed
// container got 1 GiB on node 0, written as v1.36.3 writes it (V1); the
// checksum is the kubelet's (conformance compares these files with the
// ones v1.36.3 writes).
func ExampleMarshalMemory() {
	const gi = 1 << 30
	s := checkpoint.MemoryState{PolicyName: "Static",
		MachineState: map[int]*checkpoint.NUMANodeState{
			0: {NumberOfAssignments: 1, Cells: []int{0}, MemoryMap: map[string]*checkpoint.MemoryTable{
				"memory": {TotalMemSize: 8 * gi, SystemReserved: gi, Allocatable: 7 * gi, Reserved: gi, Free: 6 * gi}}},
			1: {Cells: []int{1}, MemoryMap: map[string]*checkpoint.MemoryTable{
				"memory": {TotalMemSize: 8 * gi, Allocatable: 8 * gi, Free: 8 * gi}}},
		},
		Entries: map[string]map[string][]checkpoint.MemoryBlock{"pod-1": {"app": {{NUMAAffinity: []int{0}, Type: "memory", Size: gi}}}},
	}
	data, _ := checkpoint.MarshalMemory(s, checkpoint.MemoryFormatV1)
	fmt.Println(string(data))
	back, format, err := checkpoint.ReadMemory(data, checkpoint.MemoryReadOptions{PolicyName: "Static"})
	fmt.Println(format, back.MachineState[0].MemoryMap["memory"].Free/gi, back.Entries["pod-1"]["app"][0].Size/gi, err)
	// Output:
	// {"policyName":"Static","machineState":{"0":{"numberOfAssignments":1,"memoryMap":{"memory":{"total":8589934592,"systemReserved":1073741824,"allocatable":7516192768,"reserved":1073741824,"free":6442450944}},"cells":[0]},"1":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":8589934592,"systemReserved":0,"allocatable":8589934592,"reserved":0,"free":8589934592}},"cells":[1]}},"entries":{"pod-1":{"app":[{"numaAffinity":[0],"type":"memory","size":1073741824}]}},"checksum":2651368494}
	// V1 6 1 <nil>
}

// A file whose machine state has a null table: v1.36.3's kubelet panics
// restoring it; ReadMemory refuses it.
func ExampleReadMemory() {
	_, _, err := checkpoint.ReadMemory([]byte(`{"policyName":"Static","machineState":{"1":{"memoryMap":{"hugepages-2Mi":null}}},"checksum":0}`),
		checkpoint.MemoryReadOptions{PolicyName: "Static"})
	fmt.Println(err)
	// Output: checkpoint: corrupt: NUMA node 1's memory table for "hugepages-2Mi" is null
}

// The V1 file of ExampleReadCPU_v1 read with each release's defaults:
// v1.36 migrates it by container ID, v1.37 no longer reads V1.
func ExampleCPUReadOptionsFor() {
	pool, _ := cpuset.Parse("0-1")
	held, _ := cpuset.Parse("2-3")
	data, _ := checkpoint.MarshalCPUV1("static", pool, map[string]cpuset.CPUSet{"containerd://abc": held})
	for _, v := range []release.Version{release.V1_36, release.V1_37} {
		opts := checkpoint.CPUReadOptionsFor(v)
		opts.PolicyName = "static"
		opts.InitialContainers = map[string]checkpoint.ContainerRef{"containerd://abc": {PodUID: "pod-1", Container: "app"}}
		s, format, err := checkpoint.ReadCPU(data, opts)
		if err != nil {
			fmt.Println(v, "refused")
			continue
		}
		fmt.Println(v, format, s.Entries["pod-1"]["app"])
	}
	// Output:
	// 1.36 V1 2-3
	// 1.37 refused
}

// Kubelets before 1.37 read the memory_manager_state file the old way
// (V1 first); from 1.37 V3 first, and a damaged file is refused.
func ExampleMemoryReadOptionsFor() {
	fmt.Println(checkpoint.MemoryReadOptionsFor(release.V1_36).LegacyRestore, checkpoint.MemoryReadOptionsFor(release.V1_37).LegacyRestore)
	// Output: true false
}
