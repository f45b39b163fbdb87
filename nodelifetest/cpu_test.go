package nodelifetest_test

import (
	"testing"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

func TestDistributionCPU(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	topo := draw(nodelifetest.CPUTopologies())
	checkShares(t, "CPUTopologies",
		share{"valid", func(i int) bool { return topo(i).Validate() == nil }, 1, 1},
		share{"several NUMA nodes", func(i int) bool { return topo(i).NumNUMANodes > 1 }, 0.2, 0.9},
		share{"more NUMA nodes than sockets", func(i int) bool { x := topo(i); return x.NumNUMANodes > x.NumSockets }, 0.05, 0.6},
		share{"threads per core", func(i int) bool { return topo(i).CPUsPerCore() > 1 }, 0.3, 0.95})
	opts := draw(nodelifetest.CPUOptions())
	checkShares(t, "CPUOptions",
		share{"valid", func(i int) bool { return opts(i).Validate() == nil }, 1, 1},
		share{"full-pcpus-only", func(i int) bool { return opts(i).FullPCPUsOnly }, 0.05, 0.5})
	pods := draw(nodelifetest.CPUPods("u"))
	checkShares(t, "CPUPods",
		share{"Guaranteed", func(i int) bool { return cgroup.PodQOS(pods(i), cgroup.QOSOptions{}) == core.PodQOSGuaranteed }, 0.3, 0.95},
		share{"init containers", func(i int) bool { return len(pods(i).InitContainers) > 0 }, 0.2, 0.9})
}

// twoNodeStatic is a started policy on a 4-CPU machine: CPUs 0-1 on
// node 0, 2-3 on node 1, one core each; CPU 0 reserved.
func twoNodeStatic(t *testing.T) (*cpu.Static, *cpu.Machine) {
	topo := cpu.Topology{NumCPUs: 4, NumCores: 4, NumSockets: 2, NumNUMANodes: 2, CPUs: map[int]cpu.CPUInfo{
		0: {CoreID: 0}, 1: {CoreID: 1}, 2: {NUMANodeID: 1, SocketID: 1, CoreID: 2}, 3: {NUMANodeID: 1, SocketID: 1, CoreID: 3}}}
	m, err := cpu.NewMachine(topo)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cpu.NewStatic(cpu.Config{Machine: m, NumReserved: 1})
	if err != nil {
		t.Fatal(err)
	}
	return p, m
}

func set(t *testing.T, s string) cpuset.CPUSet {
	cs, err := cpuset.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestCheckCPUPlanted(t *testing.T) {
	p, m := twoNodeStatic(t)
	for _, tc := range []struct {
		def     string
		entries map[string]map[string]string
		want    []string
	}{
		{"0-2", map[string]map[string]string{"a": {"c": "2-3"}}, []string{"a/c holds CPUs 2 of the shared pool"}},
		{"1-2", map[string]map[string]string{"a": {"c": "0,3"}}, []string{"a/c holds reserved CPUs 0"}},
		{"0-1", map[string]map[string]string{"a": {"c": "2"}, "b": {"c": "2-3"}}, []string{"CPU 2 is held by pods"}},
		{"0-1", map[string]map[string]string{"a": {"c": "2"}}, []string{"make 0-2, not the machine's 0-3"}},
	} {
		st := checkpoint.CPUState{DefaultCPUSet: set(t, tc.def), Entries: map[string]map[string]cpuset.CPUSet{}}
		for pod, cs := range tc.entries {
			st.Entries[pod] = map[string]cpuset.CPUSet{}
			for name, s := range cs {
				st.Entries[pod][name] = set(t, s)
			}
		}
		p.Adopt(st)
		wantViolation(t, nodelifetest.CheckCPUState(p, m, false), tc.want...)
	}
	p.Adopt(checkpoint.CPUState{DefaultCPUSet: set(t, "0-1"), Entries: map[string]map[string]cpuset.CPUSet{"a": {"init": set(t, "2-3"), "app": set(t, "2-3")}}})
	if err := nodelifetest.CheckCPUState(p, m, false); err != nil {
		t.Fatalf("an app container sharing its init container's CPUs: %v", err)
	}
	n1, _ := topology.NewBitMask(1)
	wantViolation(t, nodelifetest.CheckCPUAllocation(set(t, "1-2"), set(t, "2-3"), cpuset.CPUSet{}, 2, m, topology.PolicyBestEffort, topology.Hint{Any: true}), "not all free")
	wantViolation(t, nodelifetest.CheckCPUAllocation(set(t, "2"), set(t, "2-3"), cpuset.CPUSet{}, 2, m, topology.PolicyBestEffort, topology.Hint{Any: true}), "allocated 1 CPUs")
	wantViolation(t, nodelifetest.CheckCPUAllocation(set(t, "1-2"), set(t, "1-3"), cpuset.CPUSet{}, 2, m, topology.PolicySingleNUMANode, topology.Hint{Affinity: n1, Preferred: true}), "CPU 1 is on node 0")
	if err := nodelifetest.CheckCPUAllocation(set(t, "1-2"), set(t, "2-3"), set(t, "1"), 2, m, topology.PolicyBestEffort, topology.Hint{Affinity: n1}); err != nil {
		t.Fatalf("a reusable CPU: %v", err)
	}
}
