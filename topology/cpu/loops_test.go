package cpu_test

import (
	"fmt"
	"testing"

	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// TestUpstreamDistributeLoops works the loop of v1.36.3's distributed
// allocator by hand on 4 NUMA nodes of 3 cores of 2 threads (node i has
// cores 3i..3i+2, threads c and c+12), groups of 2 (full-pcpus-only), free
// CPUs 5, 5, 4 and 2 on nodes 0-3.
//
// 14 CPUs: 7 groups are needed, 3 per node at most, so 3 or 4 nodes. No 3
// nodes hold 7 whole groups (2+2+2 at best). All 4 do (2+2+2+1): an even
// share of (14/4/2)*2 = 2 each leaves 3, 3, 2 and 0 free and 6 CPUs to
// spread over a subset of the nodes still holding a group (0, 1, 2). Nodes
// 0 and 1 hold 6 free CPUs, enough by count, but one group each: after 4
// CPUs no node of the pair has a group left while 2 remain, and upstream
// loops forever. TakeDistributed skips the pair (as kubernetes#140730
// does) and spreads the 6 over nodes 0, 1 and 2: 4, 4, 4 and 2 CPUs.
//
// 12 CPUs: 6 groups; no 2 nodes hold 12 free CPUs; nodes 0, 1 and 2 hold
// 14 and 6 groups, an even share of 4 each, nothing left over: no loop
// (node 3, 2 free, cannot give 4).
func TestUpstreamDistributeLoops(t *testing.T) {
	topo, m, free := loopMachine()
	perNode := func(s cpuset.CPUSet) [4]int {
		var out [4]int
		for _, c := range s.List() {
			out[topo.CPUs[c].NUMANodeID]++
		}
		return out
	}
	if got := perNode(free); got != [4]int{5, 5, 4, 2} {
		t.Fatalf("free per node %v, want the example's 5 5 4 2", got)
	}
	for _, tc := range []struct {
		n     int
		loops bool
		per   [4]int
	}{{14, true, [4]int{4, 4, 4, 2}}, {12, false, [4]int{4, 4, 4, 0}}} {
		if got := m.UpstreamDistributeLoops(free, tc.n, 2, cpu.TakeOptions{}); got != tc.loops {
			t.Errorf("n=%d: UpstreamDistributeLoops %v, want %v", tc.n, got, tc.loops)
		}
		got, err := m.TakeDistributed(free, tc.n, 2, cpu.TakeOptions{})
		if err != nil || perNode(got) != tc.per || !got.IsSubsetOf(free) {
			t.Errorf("n=%d: TakeDistributed %s (per node %v) %v, want %v of the free CPUs", tc.n, got, perNode(got), err, tc.per)
		}
	}
	if m.UpstreamDistributeLoops(free, 14, 0, cpu.TakeOptions{}) {
		t.Error("group size 0 reported as a loop")
	}
}

// loopMachine is the example's machine: 4 NUMA nodes of 3 cores of 2
// threads, and its free CPUs (5, 5, 4 and 2 per node).
func loopMachine() (cpu.Topology, *cpu.Machine, cpuset.CPUSet) {
	var nodes []cpu.NUMANode
	for i := 0; i < 4; i++ {
		n := cpu.NUMANode{ID: i}
		for c := 3 * i; c < 3*i+3; c++ {
			n.Cores = append(n.Cores, cpu.Core{ID: c, SocketID: i, Threads: []int{c, c + 12}})
		}
		nodes = append(nodes, n)
	}
	topo, _ := cpu.Discover(24, 4, nodes)
	m, _ := cpu.NewMachine(topo)
	taken, _ := cpuset.New(0, 3, 6, 18, 10, 11, 22, 23)
	return topo, m, m.CPUs().Difference(taken)
}

// v1.36.3's distributed allocator never returns for 14 CPUs in groups of
// 2 here (see TestUpstreamDistributeLoops for the steps); TakeDistributed
// answers as upstream does since kubernetes#140730. Whole free cores are
// taken: 12 CPUs are cores 1-2, 4-5 and 7-8 (threads c and c+12); 14
// CPUs add core 9 of node 3 (its even share) to them.
func ExampleMachine_UpstreamDistributeLoops() {
	_, m, free := loopMachine()
	for _, n := range []int{12, 14} {
		got, err := m.TakeDistributed(free, n, 2, cpu.TakeOptions{})
		fmt.Printf("%d CPUs: upstream loops: %v; TakeDistributed: %s %v\n", n, m.UpstreamDistributeLoops(free, n, 2, cpu.TakeOptions{}), got, err)
	}
	// Output:
	// 12 CPUs: upstream loops: false; TakeDistributed: 1-2,4-5,7-8,13-14,16-17,19-20 <nil>
	// 14 CPUs: upstream loops: true; TakeDistributed: 1-2,4-5,7-9,13-14,16-17,19-21 <nil>
}
