package conformance

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/go-logr/logr"
	cadvisorapi "github.com/google/cadvisor/lib/model"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/memorymanager"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	ucpuset "k8s.io/utils/cpuset"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/memory"
)

// staticPolicy is what the CPU and memory managers' static policies have
// in common: hints and allocations on a state of type S.
type staticPolicy[S any] interface {
	GetTopologyHints(logr.Logger, S, *v1.Pod, *v1.Container, lifecycle.Operation) map[string][]topologymanager.TopologyHint
	GetPodTopologyHints(logr.Logger, S, *v1.Pod, lifecycle.Operation) map[string][]topologymanager.TopologyHint
	AllocatePod(logr.Logger, S, *v1.Pod, lifecycle.Operation) error
}

// upstreamProvider is a manager as the topology manager calls it: its
// static policy on its state (the CPU and memory managers add only the
// removal of stale state, which these sequences never leave).
type upstreamProvider[S any] struct {
	pol staticPolicy[S]
	st  S
	// alloc is the policy's Allocate: the CPU policy's takes a logger,
	// the memory policy's a context.
	alloc func(context.Context, S, *v1.Pod, *v1.Container) error
}

// cpuProvider and memProvider wrap the static CPU and memory policies.
func cpuProvider(pol cpumanager.Policy, st state.State) *upstreamProvider[state.State] {
	return &upstreamProvider[state.State]{pol: pol, st: st, alloc: func(_ context.Context, s state.State, pod *v1.Pod, c *v1.Container) error {
		return pol.Allocate(logr.Discard(), s, pod, c, lifecycle.AddOperation)
	}}
}

func memProvider(pol memorymanager.Policy, st memstate.State) *upstreamProvider[memstate.State] {
	return &upstreamProvider[memstate.State]{pol: pol, st: st, alloc: func(ctx context.Context, s memstate.State, pod *v1.Pod, c *v1.Container) error {
		return pol.Allocate(ctx, s, pod, c, lifecycle.AddOperation)
	}}
}

func (p *upstreamProvider[S]) GetTopologyHints(_ logr.Logger, pod *v1.Pod, c *v1.Container, op lifecycle.Operation) map[string][]topologymanager.TopologyHint {
	return p.pol.GetTopologyHints(logr.Discard(), p.st, pod, c, op)
}
func (p *upstreamProvider[S]) GetPodTopologyHints(_ logr.Logger, pod *v1.Pod, op lifecycle.Operation) map[string][]topologymanager.TopologyHint {
	return p.pol.GetPodTopologyHints(logr.Discard(), p.st, pod, op)
}
func (p *upstreamProvider[S]) AllocatePod(_ logr.Logger, pod *v1.Pod, op lifecycle.Operation) error {
	return p.pol.AllocatePod(logr.Discard(), p.st, pod, op)
}
func (p *upstreamProvider[S]) Allocate(ctx context.Context, pod *v1.Pod, c *v1.Container, _ lifecycle.Operation) error {
	return p.alloc(ctx, p.st, pod, c)
}

// managerMachine draws a machine for the topology manager: a CPU topology
// of at most 4 NUMA nodes (upstream's fixtures and random ones; upstream
// merges by walking every combination of hints, which on 8 nodes with
// three resources takes seconds per container) and, per NUMA node, 2-16
// GiB of memory, at times with 0-4 1Gi huge pages on every node, 0.5-1
// GiB reserved on the first node and at times on others.
func managerMachine(r *rand.Rand) (cpu.Topology, *cpu.Machine, memoryMachine) {
	for {
		_, topo := pickMachine(r)
		m, err := cpu.NewMachine(topo)
		if err != nil || len(m.NUMANodes()) > 4 {
			continue
		}
		var mm memoryMachine
		mm.reserved = map[int]map[string]uint64{}
		pages := r.Intn(2) == 0
		for i, id := range m.NUMANodes() {
			n := memory.NUMANode{ID: id, Memory: uint64(2+r.Intn(15)) * gib}
			if pages {
				n.HugePages = []memory.HugePages{{PageSizeKiB: 1 << 20, NumPages: uint64(r.Intn(5))}}
			}
			mm.nodes = append(mm.nodes, n)
			if i == 0 || r.Intn(3) == 0 {
				mm.reserved[id] = map[string]uint64{memory.ResourceMemory: gib/2 + uint64(r.Intn(2))*gib/2}
			}
		}
		return topo, m, mm
	}
}

// managerPod draws a pod of 1-3 containers and 0-2 init containers (half
// of them sidecars) asking 0-6 whole or fractional CPUs, 256Mi-3Gi of
// memory and at times 1Gi huge pages (when the machine has them);
// Guaranteed four times in five.
func managerPod(r *rand.Rand, k int, pages bool) *v1.Pod {
	p := &v1.Pod{}
	p.Name, p.UID = fmt.Sprintf("pod%d", k), types.UID(fmt.Sprintf("uid-%d", k))
	guaranteed := r.Intn(5) != 0
	addContainers(r, p, func(name string) v1.Container {
		l := v1.ResourceList{
			v1.ResourceCPU:    resource.MustParse([]string{"1", "2", "3", "4", "6", "1", "2", "500m", "1500m"}[r.Intn(9)]),
			v1.ResourceMemory: resource.MustParse([]string{"256Mi", "512Mi", "1Gi", "2Gi", "3Gi"}[r.Intn(5)]),
		}
		if pages && r.Intn(3) == 0 {
			l["hugepages-1Gi"] = resource.MustParse("1Gi")
		}
		c := v1.Container{Name: name, Resources: v1.ResourceRequirements{Requests: l}}
		if guaranteed {
			c.Resources.Limits = l.DeepCopy()
		}
		return c
	})
	return p
}

// TestDifferentialTopologyManager admits generated pods through
// topology.Manager with cpu.Static and memory.Static as providers, and
// through v1.36.3's topology manager (NewManager, its Admit) with the
// static CPU and memory policies as providers, in the kubelet's order;
// whole pods are removed between admissions. Each step compares the admit
// result (admit, reason, message), the hint kept for each container, and
// both managers' whole states.
func TestDifferentialTopologyManager(t *testing.T) {
	c := compare(t, "topology.Manager (Admit, with cpu.Static and memory.Static as providers)", "topologymanager.NewManager's Admit, with the static CPU and memory policies as hint providers",
		"sequences of 10-30 steps (each step one input) on upstream's CPU test topologies and random machines of at most 4 NUMA nodes "+
			"with 2-16 GiB per node and at times 1Gi huge pages; topology manager policy none, best-effort, restricted or single-numa-node, "+
			"scope container or pod; 0-3 reserved CPUs, full-pcpus-only, strict-cpu-reservation and prefer-align-cpus-by-uncorecache "+
			"each one time in four; pods of 1-3 containers and 0-2 init containers or sidecars asking 0-6 whole or fractional CPUs, "+
			"memory and at times huge pages, Guaranteed or not; admissions, and removals of whole pods")
	r := rand.New(rand.NewSource(37))
	logger := logr.Discard()
	outcomes := map[string]int{} // upstream's, by reason ("" admitted)
	defer func() { t.Logf("upstream's admissions by reason (empty: admitted): %v", outcomes) }()
	policies := []topology.Policy{topology.PolicyNone, topology.PolicyBestEffort, topology.PolicyRestricted, topology.PolicySingleNUMANode}
	for seq := 0; c.inputs < inputs(t); seq++ {
		topo, machine, mm := managerMachine(r)
		policy := policies[r.Intn(len(policies))]
		scope := []topology.Scope{topology.ScopeContainer, topology.ScopePod}[r.Intn(2)]
		numReserved := 1 + r.Intn(3)
		opts := map[string]string{}
		for _, name := range []string{cpu.OptionFullPCPUsOnly, cpu.OptionStrictCPUReservation, cpu.OptionPreferAlignByUncoreCache} {
			if r.Intn(4) == 0 {
				opts[name] = "true"
			}
		}

		// Upstream.
		var nodes []cadvisorapi.Node
		for _, id := range machine.NUMANodes() {
			nodes = append(nodes, cadvisorapi.Node{Id: id})
		}
		tm, err := topologymanager.NewManager(logr.Discard(), nodes, string(policy), string(scope), nil)
		if err != nil {
			t.Fatalf("sequence %d: upstream NewManager: %v", seq, err)
		}
		upol, uerr := cpumanager.NewStaticPolicy(logger, upstreamCPUTopology(topo), numReserved, ucpuset.New(), tm, opts)
		umem, merr := memorymanager.NewPolicyStatic(logger, mm.machineInfo(), mm.upstreamReserved(), tm)
		// nodelife.
		copts, err := cpu.ParseOptions(opts, cpu.OptionGates{})
		if err != nil {
			t.Fatalf("sequence %d: options %v: %v", seq, opts, err)
		}
		ccfg := cpu.ConfigFor(upstreamRelease)
		ccfg.Machine, ccfg.NumReserved, ccfg.Options, ccfg.TopologyPolicy = machine, numReserved, copts, policy
		cpus, err := cpu.NewStatic(ccfg)
		mem, err2 := memory.NewStatic(memory.Config{Nodes: mm.nodes, Reserved: mm.reserved, QOS: cgroup.QOSOptionsFor(upstreamRelease)})
		if (err == nil) != (uerr == nil) || (err2 == nil) != (merr == nil) {
			c.disagree("sequence %d: policies created: cpu %v memory %v; upstream cpu %v memory %v", seq, err, err2, uerr, merr)
			continue
		}
		if err != nil || err2 != nil {
			c.agree()
			continue
		}
		ust, umst := state.NewMemoryState(logger), memstate.NewMemoryState(logger)
		if err := upol.Start(logger, ust); err != nil {
			t.Fatalf("sequence %d: upstream cpu Start: %v", seq, err)
		}
		if err := umem.Start(logger, umst); err != nil {
			t.Fatalf("sequence %d: upstream memory Start: %v", seq, err)
		}
		tm.AddHintProvider(logger, cpuProvider(upol, ust))
		tm.AddHintProvider(logger, memProvider(umem, umst))
		if err := cpus.Start(checkpoint.CPUState{}); err != nil {
			t.Fatalf("sequence %d: cpu Start: %v", seq, err)
		}
		if err := mem.Start(checkpoint.MemoryState{}); err != nil {
			t.Fatalf("sequence %d: memory Start: %v", seq, err)
		}
		m, err := topology.NewManager(topology.ManagerConfig{Policy: policy, Scope: scope, NUMA: topology.NUMAInfo{Nodes: machine.NUMANodes()},
			Providers: []topology.Provider{cpus.Provider(), mem.Provider()}})
		if err != nil {
			t.Fatalf("sequence %d: NewManager: %v", seq, err)
		}

		var admitted []*v1.Pod
		pages := len(mm.nodes[0].HugePages) > 0
		for step, steps := 0, 10+r.Intn(21); step < steps; step++ {
			var what, nl, up string
			if len(admitted) > 0 && r.Intn(4) == 0 {
				i := r.Intn(len(admitted))
				pod := admitted[i]
				admitted = slices.Delete(admitted, i, i+1)
				what = "remove " + pod.Name
				for _, ctr := range slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers) {
					cpus.RemoveContainer(string(pod.UID), ctr.Name)
					mem.RemoveContainer(string(pod.UID), ctr.Name)
					m.RemoveContainer(string(pod.UID), ctr.Name)
					_ = upol.RemoveContainer(logger, ust, string(pod.UID), ctr.Name)
					umem.RemoveContainer(logger, umst, string(pod.UID), ctr.Name)
				}
			} else {
				pod := managerPod(r, seq*100+step, pages)
				what = "admit " + pod.Name
				a, err := m.Admit(kubeapi.Pod(pod))
				if err != nil {
					t.Fatalf("sequence %d step %d: Admit: %v", seq, step, err)
				}
				ua := tm.Admit(context.Background(), &lifecycle.PodAdmitAttributes{Pod: pod, Operation: lifecycle.AddOperation})
				outcomes[ua.Reason]++
				nl = fmt.Sprintf("admit=%v reason=%q message=%q", a.Admit, a.Reason, a.Message)
				up = fmt.Sprintf("admit=%v reason=%q message=%q", ua.Admit, ua.Reason, ua.Message)
				for _, ctr := range slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers) {
					h, ok := m.Affinity(string(pod.UID), ctr.Name)
					if !ok {
						h = topology.Hint{Any: true}
					}
					nl += " " + ctr.Name + ":" + h.String()
					up += " " + ctr.Name + ":" + fromUpstreamHint(tm.GetAffinity(logr.Discard(), string(pod.UID), ctr.Name)).String()
				}
				// A refused pod's containers allocated before the refusal
				// stay allocated on both sides (the kubelet drops them
				// later as stale state): it is removed like any pod.
				admitted = append(admitted, pod)
			}
			nl += " cpu " + ourCPUText(cpus.State()) + " memory " + sortedMemoryText(mem.State())
			up += " cpu " + upstreamCPUText(ust) + " memory " + sortedMemoryText(fromUpstreamMemory(umst))
			if nl != up {
				c.disagree("sequence %d step %d (%s, %s scope %s, options %v):\nnodelife %s\nupstream %s", seq, step, what, policy, scope, opts, nl, up)
				break
			}
			c.agree()
		}
	}
}

// upstreamCPUText prints upstream's CPU Manager state as ourCPUText
// prints nodelife's.
func upstreamCPUText(st state.State) string {
	entries := map[string]map[string]string{}
	for pod, cs := range st.GetCPUAssignments() {
		entries[pod] = map[string]string{}
		for name, set := range cs {
			entries[pod][name] = set.String()
		}
	}
	return cpuStateText(cpu.PolicyName, st.GetDefaultCPUSet().String(), entries, map[string]string{})
}
