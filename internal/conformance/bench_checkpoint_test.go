package conformance

import (
	"fmt"
	"testing"

	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	upstream "k8s.io/utils/cpuset"

	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// checkpointPairs times the cpuset list syntax and the checkpoint files
// beside upstream: a CPU list of a 2-socket box, a static-policy
// cpu_manager_state of 100 containers on 256 CPUs, and a
// memory_manager_state of 8 NUMA nodes (memory and 1Gi pages) and 50
// containers, each written in the format v1.37 writes (V4, V3), and read
// with its checksum verified and its CPU lists parsed (upstream: the
// checkpoint struct's Unmarshal and VerifyChecksum, then the parses of its
// restore, without the file).
func checkpointPairs() []pair {
	list := "0-3,8-11,16,18-31,64-95,128,130,132-191"
	set, _ := cpuset.Parse(list)
	uset, _ := upstream.Parse(list)

	cpu := checkpoint.CPUState{PolicyName: "static", DefaultCPUSet: cpuset.Range(200, 255), Entries: map[string]map[string]cpuset.CPUSet{}}
	for i := 0; i < 100; i++ {
		pod := fmt.Sprintf("2f9c4a1e-0000-4000-8000-%012d", i/2)
		if cpu.Entries[pod] == nil {
			cpu.Entries[pod] = map[string]cpuset.CPUSet{}
		}
		cpu.Entries[pod][fmt.Sprintf("ctr-%d", i%2)] = cpuset.Range(2*i, 2*i+1)
	}
	cpuFile, _ := checkpoint.MarshalCPU(cpu, checkpoint.CPUFormatV4)
	upCPU := func() *state.CPUManagerCheckpoint {
		cp := &state.CPUManagerCheckpoint{CheckpointData: state.CPUManagerCheckpointData{PolicyName: cpu.PolicyName, DefaultCPUSet: cpu.DefaultCPUSet.String(),
			Entries: map[string]map[string]string{}, PodEntries: state.PodCPUAssignments{}}}
		for pod, ctrs := range cpu.Entries {
			cp.CheckpointData.Entries[pod] = map[string]string{}
			for ctr, cpus := range ctrs {
				cp.CheckpointData.Entries[pod][ctr] = cpus.String()
			}
		}
		return cp
	}

	mem := exampleMemoryState()
	mem.MachineState = map[int]*checkpoint.NUMANodeState{}
	for n := 0; n < 8; n++ {
		mem.MachineState[n] = &checkpoint.NUMANodeState{NumberOfAssignments: 12, Cells: []int{n}, MemoryMap: map[string]*checkpoint.MemoryTable{
			"memory":        {TotalMemSize: 64 << 30, SystemReserved: 1 << 30, Allocatable: 63 << 30, Reserved: 24 << 30, Free: 39 << 30},
			"hugepages-1Gi": {TotalMemSize: 16 << 30, Allocatable: 16 << 30, Reserved: 4 << 30, Free: 12 << 30}}}
	}
	mem.Entries = map[string]map[string][]checkpoint.MemoryBlock{}
	for i := 0; i < 50; i++ {
		mem.Entries[fmt.Sprintf("pod-%02d", i)] = map[string][]checkpoint.MemoryBlock{"app": {
			{NUMAAffinity: []int{i % 8}, Type: "memory", Size: 2 << 30}, {NUMAAffinity: []int{i % 8}, Type: "hugepages-1Gi", Size: 1 << 30}}}
	}
	memFile, _ := checkpoint.MarshalMemory(mem, checkpoint.MemoryFormatV3)
	machine, entries, _ := upstreamMemoryState(mem)
	upMem := func() *memstate.MemoryManagerCheckpoint {
		return &memstate.MemoryManagerCheckpoint{CheckpointData: memstate.MemoryManagerCheckpointData{PolicyName: mem.PolicyName, MachineState: machine.Clone(), Entries: entries.Clone()}}
	}

	return []pair{
		{"cpuset.Parse", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, _ := cpuset.Parse(list)
				sinkBool = s.IsEmpty()
			}
		}, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, _ := upstream.Parse(list)
				sinkBool = s.IsEmpty()
			}
		}},
		{"cpuset.String", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sinkString = set.String()
			}
		}, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sinkString = uset.String()
			}
		}},
		{"checkpoint.MarshalCPU/V4/containers=100", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				data, _ := checkpoint.MarshalCPU(cpu, checkpoint.CPUFormatV4)
				sinkString = string(data[:1])
			}
		}, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				data, _ := upCPU().MarshalCheckpoint()
				sinkString = string(data[:1])
			}
		}},
		{"checkpoint.ReadCPU/V4/containers=100", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, _, err := checkpoint.ReadCPU(cpuFile, checkpoint.CPUReadOptions{PolicyName: "static"})
				sinkBool = err == nil && s.DefaultCPUSet.IsEmpty()
			}
		}, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cp := &state.CPUManagerCheckpoint{CheckpointData: state.CPUManagerCheckpointData{Entries: map[string]map[string]string{}, PodEntries: state.PodCPUAssignments{}}}
				err := cp.UnmarshalCheckpoint(cpuFile)
				if err == nil {
					err = cp.VerifyChecksum()
				}
				def, _ := upstream.Parse(cp.CheckpointData.DefaultCPUSet)
				for _, ctrs := range cp.CheckpointData.Entries {
					for _, l := range ctrs {
						s, _ := upstream.Parse(l)
						sinkBool = s.IsEmpty()
					}
				}
				sinkBool = err == nil && def.IsEmpty()
			}
		}},
		{"checkpoint.MarshalMemory/V3/numa=8/containers=50", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				data, _ := checkpoint.MarshalMemory(mem, checkpoint.MemoryFormatV3)
				sinkString = string(data[:1])
			}
		}, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				data, _ := upMem().MarshalCheckpoint()
				sinkString = string(data[:1])
			}
		}},
		{"checkpoint.ReadMemory/V3/numa=8/containers=50", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, _, err := checkpoint.ReadMemory(memFile, checkpoint.MemoryReadOptions{PolicyName: "Static"})
				sinkBool = err == nil && len(s.Entries) == 0
			}
		}, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cp := &memstate.MemoryManagerCheckpoint{MemoryManagerCheckpointV1: memstate.MemoryManagerCheckpointV1{Entries: memstate.ContainerMemoryAssignments{}, MachineState: memstate.NUMANodeMap{}},
					CheckpointData: memstate.MemoryManagerCheckpointData{Entries: memstate.ContainerMemoryAssignments{}, PodEntries: memstate.PodMemoryAssignments{}, MachineState: memstate.NUMANodeMap{}}}
				err := cp.UnmarshalCheckpoint(memFile)
				if err == nil {
					err = cp.VerifyChecksum()
				}
				sinkBool = err == nil && len(cp.CheckpointData.Entries) == 0
			}
		}},
	}
}
