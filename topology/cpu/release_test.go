package cpu_test

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/cgroup"
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
	three := cgroup.ResourceList{cgroup.ResourceCPU: resource.MustParse("3"), cgroup.ResourceMemory: resource.MustParse("1Gi")}
	pod := cgroup.Pod{UID: "pod-1", Containers: []cgroup.Container{
		{Name: "app", Resources: cgroup.Resources{Requests: three, Limits: three}},
		{Name: "new", Resources: cgroup.Resources{Requests: three, Limits: three}}}}
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
		cfg := cpu.Config{Machine: m, NumReserved: 1, Options: cpu.Options{FullPCPUsOnly: true}}.For(c.v)
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
