package cpu_test

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// A kubelet restarted with full-pcpus-only finds in its checkpoint a
// container that got 3 CPUs (2, 4 and 8) under the previous policy, on the
// two-socket machine of 2 threads per core with CPU 0 reserved. v1.37's
// static policy looks the container up in the state before the SMT check
// and keeps its CPUs; v1.36's checks first and refuses it ("requested 3
// cpus not multiple cpus per core = 2"). A new container asking 3 CPUs is
// refused by both.
func TestCheckpointedContainerBeforeSMTCheck(t *testing.T) {
	topo, _ := twoSockets()
	m, err := cpu.NewMachine(topo)
	if err != nil {
		t.Fatal(err)
	}
	three := core.ResourceList{core.ResourceCPU: resource.MustParse("3"), core.ResourceMemory: resource.MustParse("1Gi")}
	pod := core.Pod{UID: "pod-1", Containers: []core.Container{
		{Name: "app", Resources: core.ResourceRequirements{Requests: three, Limits: three}},
		{Name: "new", Resources: core.ResourceRequirements{Requests: three, Limits: three}}}}
	set := func(s string) cpuset.CPUSet {
		c, err := cpuset.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	st := checkpoint.CPUState{PolicyName: cpu.PolicyName, DefaultCPUSet: set("0-1,3,5-7,9-11"),
		Entries: map[string]map[string]cpuset.CPUSet{"pod-1": {"app": set("2,4,8")}}}
	for _, c := range []struct {
		v       release.Version
		keepApp bool
	}{{release.V1_37, true}, {release.V1_36, false}} {
		cfg := cpu.ConfigFor(c.v)
		cfg.Machine, cfg.NumReserved, cfg.Options = m, 1, cpu.Options{FullPCPUsOnly: true}
		p, err := cpu.NewStatic(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(st); err != nil {
			t.Fatal(err)
		}
		got, err := p.Allocate(pod, "app", topology.Hint{Any: true})
		var smt cpu.SMTAlignmentError
		if c.keepApp {
			if err != nil || !got.Equals(set("2,4,8")) {
				t.Errorf("%v: app = %v, %v; want its checkpointed 2,4,8", c.v, got, err)
			}
		} else if !errors.As(err, &smt) || err.Error() != "SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2" {
			t.Errorf("%v: app = %v, %v; want the SMT alignment error", c.v, got, err)
		}
		if _, err := p.Allocate(pod, "new", topology.Hint{Any: true}); !errors.As(err, &smt) {
			t.Errorf("%v: a new container of 3 CPUs: %v, want the SMT alignment error", c.v, err)
		}
	}
}

// v1.37's align-by-socket in the distributed allocator. Two sockets of two
// NUMA nodes each (node i holds CPUs 4i..4i+3, two cores of two threads;
// nodes 0 and 1 on socket 0, 2 and 3 on socket 1), CPUs 6 and 7 held, so
// node 1 has 2 free and the others 4; 8 CPUs in groups of 2 (full cores).
// Two nodes are needed (8 groups on the machine, 2 per node, 4 wanted):
// the even share is 4, which node 1 cannot give, so the candidate pairs
// are {0,2}, {0,3} and {2,3}, each leaving free counts of the same spread.
// Without align-by-socket the first wins: nodes 0 and 2 (CPUs 0-3, 8-11),
// across the sockets, as v1.36 allocates whatever the option. With it
// (v1.37), {2,3}, inside socket 1, beats any pair across sockets: CPUs
// 8-15.
func TestDistributedAlignBySocket(t *testing.T) {
	topo := cpu.Topology{NumCPUs: 16, NumCores: 8, NumUncoreCache: 2, NumSockets: 2, NumNUMANodes: 4, CPUs: map[int]cpu.CPUInfo{}}
	for c := 0; c < 16; c++ {
		topo.CPUs[c] = cpu.CPUInfo{NUMANodeID: c / 4, SocketID: c / 8, CoreID: c / 2, UncoreCacheID: c / 8}
	}
	m, err := cpu.NewMachine(topo)
	if err != nil {
		t.Fatal(err)
	}
	free, _ := cpuset.Parse("0-5,8-15")
	for _, c := range []struct {
		align bool
		want  string
	}{{false, "0-3,8-11"}, {true, "8-15"}} {
		got, err := m.TakeDistributed(free, 8, 2, cpu.TakeOptions{AlignBySocket: c.align})
		if err != nil || got.String() != c.want {
			t.Errorf("AlignBySocket %v: %v, %v; want %s", c.align, got, err, c.want)
		}
	}
	// The static policy passes its option since v1.37, not before.
	for _, c := range []struct {
		v    release.Version
		want string
	}{{release.V1_37, "8-15"}, {release.V1_36, "0-3,8-11"}} {
		cfg := cpu.ConfigFor(c.v)
		cfg.Machine, cfg.Options = m, cpu.Options{FullPCPUsOnly: true, DistributeCPUsAcrossNUMA: true, AlignBySocket: true}
		p, err := cpu.NewStatic(cfg)
		if err != nil {
			t.Fatal(err)
		}
		held, _ := cpuset.Parse("6-7")
		def, _ := cpuset.Parse("0-5,8-15")
		if err := p.Start(checkpoint.CPUState{PolicyName: cpu.PolicyName, DefaultCPUSet: def,
			Entries: map[string]map[string]cpuset.CPUSet{"other": {"c": held}}}); err != nil {
			t.Fatal(err)
		}
		eight := core.ResourceList{core.ResourceCPU: resource.MustParse("8"), core.ResourceMemory: resource.MustParse("1Gi")}
		pod := core.Pod{UID: "p", Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{Requests: eight, Limits: eight}}}}
		got, err := p.Allocate(pod, "app", topology.Hint{Any: true})
		if err != nil || got.String() != c.want {
			t.Errorf("%v: the static policy gives %v, %v; want %s", c.v, got, err, c.want)
		}
	}
}
