package conformance

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager/bitmask"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	ucpuset "k8s.io/utils/cpuset"

	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// seqOp is one step of a sequence through the static policy: a
// container's hints ("hints"), a pod's ("podhints"), an allocation with
// the hint at index Pick of the last hints computed (no affinity when
// Pick is -1 or there are none), or a removal.
type seqOp struct {
	Kind      string
	Pod       *v1.Pod `json:",omitempty"`
	Container string
	Pick      int
}

// seqCall is a whole sequence: the policy's configuration and its steps.
type seqCall struct {
	Topo        cpu.Topology
	NumReserved int
	Reserved    string
	Options     map[string]string
	TMPolicy    string
	Ops         []seqOp
	// RestartReserved and RestartOptions configure the restart at the
	// end (a kubelet whose reservation or options changed, at times).
	RestartReserved int
	RestartOptions  map[string]string
}

// seqResult is what each side printed: the policy's creation and each
// step's outcome.
type seqResult struct {
	Created string
	Steps   []string
	// Restart is what Start said on the state the steps left, in a new
	// policy (a kubelet restart).
	Restart string
}

// upstreamStore is the topology manager as the CPU manager sees it: the
// hint of the next allocation and the policy's name.
type upstreamStore struct {
	hint   topologymanager.TopologyHint
	policy topologymanager.Policy
}

func (s *upstreamStore) GetAffinity(logr.Logger, string, string) topologymanager.TopologyHint {
	return s.hint
}
func (s *upstreamStore) GetPolicy() topologymanager.Policy { return s.policy }
func (s *upstreamStore) Name() string                      { return "container" }

func printUpstreamHints(m map[string][]topologymanager.TopologyHint) (string, []topology.Hint) {
	if m == nil {
		return "none", nil
	}
	hs, ok := m["cpu"]
	if !ok {
		return fmt.Sprintf("no cpu entry %v", m), nil
	}
	var out []topology.Hint
	for _, h := range hs {
		out = append(out, fromUpstreamHint(h))
	}
	return printHintList(hs == nil, out), out
}

func printHintList(isNil bool, hs []topology.Hint) string {
	if isNil {
		return "cpu:nil"
	}
	var b strings.Builder
	b.WriteString("cpu:[")
	for i, h := range hs {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(h.String())
	}
	b.WriteString("]")
	return b.String()
}

func printOurHints(ph topology.ProviderHints, err error) (string, []topology.Hint) {
	if err != nil {
		return "error " + err.Error(), nil
	}
	if ph == nil {
		return "none", nil
	}
	hs, ok := ph[cpu.ResourceName]
	if !ok {
		return fmt.Sprintf("no cpu entry %v", ph), nil
	}
	return printHintList(hs == nil, hs), hs
}

func pickHint(last []topology.Hint, pick int) topology.Hint {
	if pick < 0 || len(last) == 0 {
		return topology.Hint{Any: true}
	}
	return last[pick%len(last)]
}

func printState(def string, entries map[string]map[string]string) string {
	var parts []string
	for pod, cs := range entries {
		for name, set := range cs {
			parts = append(parts, pod+"/"+name+"="+set)
		}
	}
	slices.Sort(parts)
	return "default=" + def + " " + strings.Join(parts, " ")
}

func upstreamTMPolicy(name string) topologymanager.Policy {
	info := &topologymanager.NUMAInfo{Nodes: []int{0}, NUMADistances: topologymanager.NUMADistances{0: {10}}}
	switch name {
	case string(topology.PolicySingleNUMANode):
		return topologymanager.NewSingleNumaNodePolicy(info, topologymanager.PolicyOptions{})
	case string(topology.PolicyBestEffort):
		return topologymanager.NewBestEffortPolicy(info, topologymanager.PolicyOptions{})
	}
	return topologymanager.NewNonePolicy()
}

// runUpstreamSequence runs sc through v1.36.3's static policy (in the
// helper process, with CPUManagerPolicyAlphaOptions on).
func runUpstreamSequence(sc *seqCall) *seqResult {
	if err := utilfeature.DefaultMutableFeatureGate.Set("CPUManagerPolicyAlphaOptions=true"); err != nil {
		panic(err)
	}
	logger := logr.Discard()
	store := &upstreamStore{policy: upstreamTMPolicy(sc.TMPolicy)}
	reserved, _ := ucpuset.Parse(sc.Reserved)
	topo := upstreamCPUTopology(sc.Topo)
	pol, err := cpumanager.NewStaticPolicy(logger, topo, sc.NumReserved, reserved, store, sc.Options)
	if err != nil {
		return &seqResult{Created: "refused"}
	}
	st := state.NewMemoryState(logger)
	if err := pol.Start(logger, st); err != nil {
		return &seqResult{Created: "start: " + err.Error()}
	}
	res := &seqResult{Created: "allocatable " + pol.GetAllocatableCPUs(st).String()}
	var last []topology.Hint
	for _, op := range sc.Ops {
		var out string
		switch op.Kind {
		case "hints":
			c := findV1Container(op.Pod, op.Container)
			out, last = printUpstreamHints(pol.GetTopologyHints(logger, st, op.Pod, c, lifecycle.AddOperation))
		case "podhints":
			out, last = printUpstreamHints(pol.GetPodTopologyHints(logger, st, op.Pod, lifecycle.AddOperation))
		case "allocate":
			h := pickHint(last, op.Pick)
			store.hint = topologymanager.TopologyHint{Preferred: h.Preferred}
			if !h.Any {
				store.hint.NUMANodeAffinity, _ = bitmask.NewBitMask(h.Affinity.Nodes()...)
			}
			err := pol.Allocate(logger, st, op.Pod, findV1Container(op.Pod, op.Container), lifecycle.AddOperation)
			out = fmt.Sprintf("err=%v", err)
		case "remove":
			err := pol.RemoveContainer(logger, st, string(op.Pod.UID), op.Container)
			out = fmt.Sprintf("err=%v", err)
		}
		entries := map[string]map[string]string{}
		for pod, cs := range st.GetCPUAssignments() {
			entries[pod] = map[string]string{}
			for name, set := range cs {
				entries[pod][name] = set.String()
			}
		}
		res.Steps = append(res.Steps, out+" "+printState(st.GetDefaultCPUSet().String(), entries))
	}
	again, err := cpumanager.NewStaticPolicy(logger, topo, sc.RestartReserved, restartReserved(sc), store, sc.RestartOptions)
	if err != nil {
		res.Restart = "refused"
		return res
	}
	st2 := state.NewMemoryState(logger)
	st2.SetDefaultCPUSet(st.GetDefaultCPUSet())
	st2.SetCPUAssignments(st.GetCPUAssignments())
	res.Restart = fmt.Sprintf("%v", again.Start(logger, st2) == nil)
	return res
}

func findV1Container(p *v1.Pod, name string) *v1.Container {
	for i := range p.Spec.InitContainers {
		if p.Spec.InitContainers[i].Name == name {
			return &p.Spec.InitContainers[i]
		}
	}
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == name {
			return &p.Spec.Containers[i]
		}
	}
	return nil
}

// runOurSequence runs sc through cpu.Static.
func runOurSequence(sc *seqCall) *seqResult {
	m, err := cpu.NewMachine(sc.Topo)
	if err != nil {
		return &seqResult{Created: "machine: " + err.Error()}
	}
	opts, err := cpu.ParseOptions(sc.Options, cpu.OptionGates{AlphaOptions: true})
	if err != nil {
		return &seqResult{Created: "refused"}
	}
	reserved, _ := cpuset.Parse(sc.Reserved)
	cfg := cpu.ConfigFor(upstreamRelease)
	cfg.Machine, cfg.NumReserved, cfg.Reserved, cfg.Options, cfg.TopologyPolicy = m, sc.NumReserved, reserved, opts, topology.Policy(sc.TMPolicy)
	p, err := cpu.NewStatic(cfg)
	if err != nil {
		return &seqResult{Created: "refused"}
	}
	if err := p.Start(checkpoint.CPUState{}); err != nil {
		return &seqResult{Created: "start: " + err.Error()}
	}
	res := &seqResult{Created: "allocatable " + m.CPUs().Difference(p.Reserved()).String()}
	var last []topology.Hint
	for _, op := range sc.Ops {
		var out string
		pod := kubeapi.Pod(op.Pod)
		switch op.Kind {
		case "hints":
			out, last = printOurHints(p.Hints(pod, op.Container))
		case "podhints":
			out, last = printOurHints(p.PodHints(pod))
		case "allocate":
			_, err := p.Allocate(pod, op.Container, pickHint(last, op.Pick))
			out = fmt.Sprintf("err=%v", err)
		case "remove":
			p.RemoveContainer(pod.UID, op.Container)
			out = "err=<nil>"
		}
		st := p.State()
		entries := map[string]map[string]string{}
		for pod, cs := range st.Entries {
			entries[pod] = map[string]string{}
			for name, set := range cs {
				entries[pod][name] = set.String()
			}
		}
		res.Steps = append(res.Steps, out+" "+printState(st.DefaultCPUSet.String(), entries))
	}
	ropts, err := cpu.ParseOptions(sc.RestartOptions, cpu.OptionGates{AlphaOptions: true})
	if err != nil {
		res.Restart = "refused"
		return res
	}
	ours, _ := cpuset.Parse(restartReserved(sc).String())
	rcfg := cpu.ConfigFor(upstreamRelease)
	rcfg.Machine, rcfg.NumReserved, rcfg.Reserved, rcfg.Options, rcfg.TopologyPolicy = m, sc.RestartReserved, ours, ropts, topology.Policy(sc.TMPolicy)
	again, err := cpu.NewStatic(rcfg)
	if err != nil {
		res.Restart = "refused"
		return res
	}
	res.Restart = fmt.Sprintf("%v", again.Start(p.State()) == nil)
	return res
}

// restartReserved is the reserved list of the restart: the sequence's when
// the count did not change, else none (chosen by topology).
func restartReserved(sc *seqCall) ucpuset.CPUSet {
	if sc.RestartReserved == sc.NumReserved {
		r, _ := ucpuset.Parse(sc.Reserved)
		return r
	}
	return ucpuset.New()
}

// cpuPod draws a pod for the CPU manager: 1-3 containers and 0-2 init
// containers (half of them sidecars) asking 0-6 whole CPUs, at times a
// fractional amount or none; Guaranteed four times in five, and one in
// fifteen with pod-level resources.
func cpuPod(r *rand.Rand, k int) *v1.Pod {
	p := &v1.Pod{}
	p.Name, p.UID = fmt.Sprintf("pod%d", k), types.UID(fmt.Sprintf("uid-%d", k))
	guaranteed := r.Intn(5) != 0
	container := func(name string) v1.Container {
		c := v1.Container{Name: name}
		amount := []string{"1", "2", "3", "4", "6", "1", "2", "500m", "1500m", ""}[r.Intn(10)]
		if amount == "" {
			return c
		}
		l := v1.ResourceList{v1.ResourceCPU: resource.MustParse(amount), v1.ResourceMemory: resource.MustParse("100Mi")}
		c.Resources.Requests = l
		if guaranteed {
			c.Resources.Limits = l.DeepCopy()
		}
		return c
	}
	addContainers(r, p, container)
	if r.Intn(15) == 0 {
		l := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("1Gi")}
		p.Spec.Resources = &v1.ResourceRequirements{Requests: l, Limits: l.DeepCopy()}
	}
	return p
}

// addContainers gives p 0-2 init containers (init0, ...; half of them
// sidecars) and 1-3 app containers (app0, ...), each drawn by container.
func addContainers(r *rand.Rand, p *v1.Pod, container func(name string) v1.Container) {
	for i := 0; i < r.Intn(3); i++ {
		c := container(fmt.Sprintf("init%d", i))
		if r.Intn(2) == 0 {
			always := v1.ContainerRestartPolicyAlways
			c.RestartPolicy = &always
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	}
	for i := 0; i < 1+r.Intn(3); i++ {
		p.Spec.Containers = append(p.Spec.Containers, container(fmt.Sprintf("app%d", i)))
	}
}

var cpuOptionNames = []string{cpu.OptionFullPCPUsOnly, cpu.OptionDistributeCPUsAcrossNUMA, cpu.OptionAlignBySocket,
	cpu.OptionDistributeCPUsAcrossCores, cpu.OptionStrictCPUReservation, cpu.OptionPreferAlignByUncoreCache}

// randomSequence draws a policy configuration and 10-40 steps: pods
// admitted container by container (hints, then an allocation with one of
// them or none), at times the pod's hints first, and removals of
// containers, some never allocated.
func randomSequence(r *rand.Rand) seqCall {
	_, topo := pickMachine(r)
	sc := seqCall{Topo: topo, NumReserved: r.Intn(4), Options: map[string]string{},
		TMPolicy: []string{"none", "best-effort", "single-numa-node"}[r.Intn(3)]}
	if sc.NumReserved > 0 && r.Intn(3) == 0 {
		ids := make([]int, 0, len(topo.CPUs))
		for id := range topo.CPUs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		set, _ := cpuset.New(ids[:min(sc.NumReserved, len(ids))]...)
		sc.Reserved = set.String()
	}
	for _, name := range cpuOptionNames {
		if r.Intn(4) == 0 {
			sc.Options[name] = "true"
		}
	}
	sc.RestartReserved, sc.RestartOptions = sc.NumReserved, sc.Options
	switch r.Intn(6) {
	case 0:
		sc.RestartReserved = sc.NumReserved + 1
	case 1:
		sc.RestartOptions = map[string]string{}
		for k, v := range sc.Options {
			sc.RestartOptions[k] = v
		}
		if sc.RestartOptions[cpu.OptionStrictCPUReservation] == "true" {
			delete(sc.RestartOptions, cpu.OptionStrictCPUReservation)
		} else {
			sc.RestartOptions[cpu.OptionStrictCPUReservation] = "true"
		}
	}
	var allocated []seqOp
	pods := 0
	for steps := 10 + r.Intn(31); len(sc.Ops) < steps; {
		if len(allocated) > 0 && r.Intn(4) == 0 {
			victim := allocated[r.Intn(len(allocated))]
			sc.Ops = append(sc.Ops, seqOp{Kind: "remove", Pod: victim.Pod, Container: victim.Container})
			continue
		}
		pod := cpuPod(r, pods)
		pods++
		if r.Intn(3) == 0 {
			sc.Ops = append(sc.Ops, seqOp{Kind: "podhints", Pod: pod})
		}
		for _, c := range slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers) {
			if r.Intn(4) != 0 {
				sc.Ops = append(sc.Ops, seqOp{Kind: "hints", Pod: pod, Container: c.Name})
			}
			op := seqOp{Kind: "allocate", Pod: pod, Container: c.Name, Pick: r.Intn(20) - 2}
			sc.Ops = append(sc.Ops, op)
			allocated = append(allocated, op)
		}
	}
	return sc
}

// TestDifferentialCPUStaticPolicy runs generated sequences of admissions
// and removals through cpu.Static and v1.36.3's static policy (in the
// helper process, as distribute-cpus-across-numa can hang upstream) and
// compares every step: hints, allocation errors and the whole state, and
// a restart at the end.
func TestDifferentialCPUStaticPolicy(t *testing.T) {
	c := compare(t, "cpu.Static (Start, Hints, PodHints, Allocate, RemoveContainer)", "cpumanager.NewStaticPolicy's Start, GetTopologyHints, GetPodTopologyHints, Allocate, RemoveContainer",
		"sequences of 10-40 steps (each step one input) on upstream's test topologies and random machines: 0-3 reserved CPUs "+
			"(chosen or listed), each CPU manager option one time in four, topology manager none/best-effort/single-numa-node; pods "+
			"of 1-3 containers and 0-2 init containers or sidecars asking 0-6 whole, fractional or no CPUs, Guaranteed or not, "+
			"pod-level resources one in fifteen; hints per container or pod, allocations with one of the hints or none, removals; "+
			"at the end a restart (Start on the state each side left; one time in three with one more reserved CPU or strict-cpu-reservation switched)")
	r := rand.New(rand.NewSource(7))
	h := startHelper(t)
	defer func() { h.stop() }()
	var w hangWait
	for seq := 0; c.inputs < inputs(t); seq++ {
		sc := randomSequence(r)
		ours := runOurSequence(&sc)
		wait := 3 * time.Second
		if w.hung < 1 {
			wait = 20 * time.Second
		}
		a, ok := h.call(helperCall{Sequence: &sc}, wait)
		if !ok {
			t.Logf("sequence %d: upstream did not return in %v; nodelife's last step: %v", seq, wait, ours.Steps[len(ours.Steps)-1])
			c.deviate("distribute-loops")
			w.hung++
			continue
		}
		up := a.Sequence
		if up.Created != ours.Created {
			c.disagree("sequence %d: created: nodelife %q, upstream %q (options %v, reserved %d %q)", seq, ours.Created, up.Created, sc.Options, sc.NumReserved, sc.Reserved)
			continue
		}
		if len(up.Steps) == 0 {
			c.agree()
			continue
		}
		same := true
		for i := range up.Steps {
			if up.Steps[i] != ours.Steps[i] {
				c.disagree("sequence %d step %d (%s %s/%s): nodelife %s, upstream %s (options %v)", seq, i, sc.Ops[i].Kind, sc.Ops[i].Pod.Name, sc.Ops[i].Container, ours.Steps[i], up.Steps[i], sc.Options)
				same = false
				break
			}
			c.agree()
		}
		if same {
			c.check(map[bool]string{true: "", false: fmt.Sprintf("sequence %d: restart accepted: nodelife %s, upstream %s", seq, ours.Restart, up.Restart)}[ours.Restart == up.Restart])
		}
	}
}
