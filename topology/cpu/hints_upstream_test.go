package cpu_test

import (
	"reflect"
	"testing"

	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// TestUpstreamGetTopologyHints runs upstream's TestGetTopologyHints table
// (topology_hints_test.go returnTestCases, without its two rows that need
// the PodLevelResourceManagers gate) on its machine (returnMachineInfo: two
// sockets of three cores, threads i and i+6, no reserved CPU), expected
// hints as upstream states them.
func TestUpstreamGetTopologyHints(t *testing.T) {
	var nodes []cpu.NUMANode
	for s := 0; s < 2; s++ {
		n := cpu.NUMANode{ID: s}
		for c := 0; c < 3; c++ {
			n.Cores = append(n.Cores, cpu.Core{ID: c, SocketID: s, Threads: []int{3*s + c, 3*s + c + 6}, UncoreCaches: []int{1}})
		}
		nodes = append(nodes, n)
	}
	topo, err := cpu.Discover(12, 2, nodes)
	if err != nil {
		t.Fatal(err)
	}
	m := mustMachine(t, topo)
	first, _ := topology.NewBitMask(0)
	second, _ := topology.NewBitMask(1)
	cross, _ := topology.NewBitMask(0, 1)
	h := func(m topology.BitMask, preferred bool) topology.Hint {
		return topology.Hint{Affinity: m, Preferred: preferred}
	}
	for _, tc := range []struct {
		name     string
		request  string
		podLevel bool
		assigned string // the container's CPUs, "" for none
		shared   string
		want     []topology.Hint
	}{
		{"Request 2 CPUs, 4 available on NUMA 0, 6 available on NUMA 1", "2", false, "", "2-11", []topology.Hint{h(first, true), h(second, true), h(cross, false)}},
		{"Request 5 CPUs, 4 available on NUMA 0, 6 available on NUMA 1", "5", false, "", "2-11", []topology.Hint{h(second, true), h(cross, false)}},
		{"Request 7 CPUs, 4 available on NUMA 0, 6 available on NUMA 1", "7", false, "", "2-11", []topology.Hint{h(cross, true)}},
		{"Request 11 CPUs, 4 available on NUMA 0, 6 available on NUMA 1", "11", false, "", "2-11", nil},
		{"Request 2 CPUs, 1 available on NUMA 0, 1 available on NUMA 1", "2", false, "", "0,3", []topology.Hint{h(cross, false)}},
		{"Request more CPUs than available", "5", false, "", "0-3", nil},
		{"Regenerate Single-Node NUMA Hints if already allocated 1/2", "2", false, "0,6", "", []topology.Hint{h(first, true), h(cross, false)}},
		{"Regenerate Single-Node NUMA Hints if already allocated 1/2 (upstream names the second row as the first)", "2", false, "3,9", "", []topology.Hint{h(second, true), h(cross, false)}},
		{"Regenerate Cross-NUMA Hints if already allocated", "11", false, "0-10", "", []topology.Hint{h(cross, true)}},
		{"Requested less than already allocated", "2", false, "0,3,6,9", "", []topology.Hint{}},
		{"Requested more than already allocated", "11", false, "0,3,6,9", "", []topology.Hint{}},
		{"Pod has pod level resources but PodLevelResourceManagersEnabled is disabled, no hint generation", "2", true, "", "0-3", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := cpu.NewStatic(cpu.Config{Machine: m})
			if err != nil {
				t.Fatal(err)
			}
			st := checkpoint.CPUState{DefaultCPUSet: mustSet(t, tc.shared)}
			if tc.assigned != "" {
				st.Entries = map[string]map[string]cpuset.CPUSet{"fakePod": {"fakeContainer": mustSet(t, tc.assigned)}}
			}
			p.Adopt(st)
			pod := makePod("fakePod", "fakeContainer", tc.request, tc.request)
			if tc.podLevel {
				r := makePod("", "", "3", "3").Containers[0].Resources
				pod.Resources = &r
			}
			got, err := p.Hints(pod, "fakeContainer")
			if err != nil {
				t.Fatal(err)
			}
			hints := got[cpu.ResourceName]
			if len(tc.want) == 0 && len(hints) == 0 {
				return
			}
			if !reflect.DeepEqual(hints, tc.want) {
				t.Fatalf("hints %v, want %v", hints, tc.want)
			}
		})
	}
}
