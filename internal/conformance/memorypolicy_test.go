package conformance

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	_ "unsafe" // go:linkname, for the memory manager's reservation check

	"github.com/go-logr/logr"
	cadvisorapi "github.com/google/cadvisor/lib/model"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/cm/memorymanager"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager/bitmask"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/memory"
)

//go:linkname upstreamSystemReservedMemory k8s.io/kubernetes/pkg/kubelet/cm/memorymanager.getSystemReservedMemory
func upstreamSystemReservedMemory(machineInfo *cadvisorapi.MachineInfo, nodeAllocatableReservation v1.ResourceList, reservedMemory []kubeletconfig.MemoryReservation) (map[int]map[v1.ResourceName]uint64, error)

// memoryMachine is a machine for the memory manager: its NUMA nodes and
// the reserved memory per node.
type memoryMachine struct {
	nodes    []memory.NUMANode
	reserved map[int]map[string]uint64
}

func (m memoryMachine) machineInfo() *cadvisorapi.MachineInfo {
	mi := &cadvisorapi.MachineInfo{}
	for _, n := range m.nodes {
		node := cadvisorapi.Node{Id: n.ID, Memory: n.Memory}
		for _, hp := range n.HugePages {
			node.HugePages = append(node.HugePages, cadvisorapi.HugePagesInfo{PageSize: hp.PageSizeKiB, NumPages: hp.NumPages})
		}
		mi.Topology = append(mi.Topology, node)
	}
	return mi
}

func (m memoryMachine) upstreamReserved() map[int]map[v1.ResourceName]uint64 {
	out := map[int]map[v1.ResourceName]uint64{}
	for id, byName := range m.reserved {
		out[id] = map[v1.ResourceName]uint64{}
		for name, v := range byName {
			out[id][v1.ResourceName(name)] = v
		}
	}
	return out
}

const gib = uint64(1) << 30

// randomMemoryMachine draws 1-8 NUMA nodes (IDs in order, at times with a
// gap) of 2-16 GiB, every node with the same huge page sizes (none, 2Mi,
// 1Gi or both, as cAdvisor reports them) and 0-4 GiB of 2Mi pages or 0-4
// 1Gi pages, and a reservation of 0.5-1 GiB of memory on some nodes (on
// node 0 at least), at times huge pages too.
func randomMemoryMachine(r *rand.Rand) memoryMachine {
	var m memoryMachine
	sizes := [][]uint64{nil, {2048}, {1048576}, {2048, 1048576}}[r.Intn(4)]
	id := 0
	m.reserved = map[int]map[string]uint64{}
	for i := 1 + r.Intn(8); i > 0; i-- {
		n := memory.NUMANode{ID: id, Memory: uint64(2+r.Intn(15)) * gib}
		for _, s := range sizes {
			pages := uint64(r.Intn(5))
			if s == 2048 {
				pages *= 512
			}
			n.HugePages = append(n.HugePages, memory.HugePages{PageSizeKiB: s, NumPages: pages})
		}
		m.nodes = append(m.nodes, n)
		if id == 0 || r.Intn(2) == 0 {
			m.reserved[id] = map[string]uint64{memory.ResourceMemory: gib/2 + uint64(r.Intn(2))*gib/2}
			if len(sizes) > 0 && r.Intn(4) == 0 && n.HugePages[0].NumPages > 0 {
				m.reserved[id][memory.HugePageResource(sizes[0])] = sizes[0] * 1024
			}
		}
		id += 1 + r.Intn(8)/7
	}
	return m
}

// memoryPod draws a pod for the memory manager: 1-3 containers and 0-2
// init containers (half of them sidecars) asking 1 CPU and 256Mi-6Gi of
// memory, at times huge pages of a size the machine has (of any size once
// in sixty pods); Guaranteed four times in five.
func memoryPod(r *rand.Rand, k int, m memoryMachine) *v1.Pod {
	var sizes []string
	for _, hp := range m.nodes[0].HugePages {
		sizes = append(sizes, memory.HugePageResource(hp.PageSizeKiB))
	}
	if r.Intn(60) == 0 {
		sizes = []string{"hugepages-2Mi", "hugepages-1Gi"}
	}
	p := &v1.Pod{}
	p.Name, p.UID = fmt.Sprintf("pod%d", k), types.UID(fmt.Sprintf("uid-%d", k))
	guaranteed := r.Intn(5) != 0
	container := func(name string) v1.Container {
		l := v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"),
			v1.ResourceMemory: resource.MustParse([]string{"256Mi", "512Mi", "1Gi", "2Gi", "3Gi", "6Gi"}[r.Intn(6)])}
		if len(sizes) > 0 && r.Intn(3) == 0 {
			switch name := sizes[r.Intn(len(sizes))]; name {
			case "hugepages-2Mi":
				l[v1.ResourceName(name)] = resource.MustParse([]string{"2Mi", "64Mi", "1Gi"}[r.Intn(3)])
			default:
				l[v1.ResourceName(name)] = resource.MustParse([]string{"1Gi", "2Gi"}[r.Intn(2)])
			}
		}
		c := v1.Container{Name: name, Resources: v1.ResourceRequirements{Requests: l}}
		if guaranteed {
			c.Resources.Limits = l.DeepCopy()
		}
		return c
	}
	addContainers(r, p, container)
	return p
}

// memoryText prints a state with each container's blocks sorted by
// resource (upstream keeps them in Go map order).
func sortedMemoryText(s checkpoint.MemoryState) string {
	for _, cs := range s.Entries {
		for _, bs := range cs {
			slices.SortFunc(bs, func(a, b checkpoint.MemoryBlock) int { return strings.Compare(a.Type, b.Type) })
		}
	}
	return memoryText(s)
}

func printMemoryHints(h topology.ProviderHints, err error) string {
	if err != nil {
		return "error"
	}
	if h == nil {
		return "none"
	}
	var parts []string
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range h {
			if !yield(k) {
				return
			}
		}
	}) {
		var hs []string
		for _, x := range h[name] {
			hs = append(hs, x.String())
		}
		parts = append(parts, name+":"+fmt.Sprint(hs))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

func fromUpstreamHints(m map[string][]topologymanager.TopologyHint) topology.ProviderHints {
	if m == nil {
		return nil
	}
	out := topology.ProviderHints{}
	for name, hs := range m {
		out[name] = []topology.Hint{}
		for _, h := range hs {
			out[name] = append(out[name], fromUpstreamHint(h))
		}
	}
	return out
}

// TestDifferentialMemoryStaticPolicy runs generated sequences of
// admissions and removals through memory.Static and v1.36.3's static
// memory policy and compares every step: hints (container and pod), the
// allocation's error and the whole state (machine tables, groups,
// assignment counts, blocks).
func TestDifferentialMemoryStaticPolicy(t *testing.T) {
	c := compare(t, "memory.Static (Start, Hints, PodHints, Allocate, RemoveContainer)", "memorymanager.NewPolicyStatic's Start, GetTopologyHints, GetPodTopologyHints, Allocate, RemoveContainer",
		"sequences of 10-40 steps (each step one input) on random machines of 1-8 NUMA nodes (2-16 GiB, none, 2Mi or 1Gi huge pages, "+
			"reservations on some nodes); pods of 1-3 containers and 0-2 init containers or sidecars asking memory and at times huge pages, "+
			"Guaranteed or not; hints per container or pod, allocations with one of the memory hints, none, or a random set of the machine's nodes; removals; at the end a restart (Start on the state each side left)")
	r := rand.New(rand.NewSource(11))
	logger := logr.Discard()
	for seq := 0; c.inputs < inputs(t); seq++ {
		m := randomMemoryMachine(r)
		ours, err := memory.NewStatic(memory.Config{Nodes: m.nodes, Reserved: m.reserved, QOS: cgroup.QOSOptionsFor(upstreamRelease)})
		store := &upstreamStore{policy: topologymanager.NewNonePolicy()}
		theirs, uerr := memorymanager.NewPolicyStatic(logger, m.machineInfo(), m.upstreamReserved(), store)
		if (err == nil) != (uerr == nil) {
			c.disagree("sequence %d: NewStatic %v, upstream %v", seq, err, uerr)
			continue
		}
		if err != nil {
			c.agree()
			continue
		}
		st := memstate.NewMemoryState(logger)
		if err, uerr := ours.Start(checkpoint.MemoryState{}), theirs.Start(logger, st); (err == nil) != (uerr == nil) {
			c.disagree("sequence %d: Start %v, upstream %v", seq, err, uerr)
			continue
		}
		var last topology.ProviderHints
		var admitted []seqOp
		broken := false
		groupsBroken := false // a single-node allocation broke a group at some step (kubernetes#113035)
		for step, steps := 0, 10+r.Intn(31); step < steps; step++ {
			var what, nl, up string
			switch {
			case len(admitted) > 0 && r.Intn(4) == 0:
				victim := admitted[r.Intn(len(admitted))]
				what = "remove " + victim.Container
				ours.RemoveContainer(string(victim.Pod.UID), victim.Container)
				theirs.RemoveContainer(logger, st, string(victim.Pod.UID), victim.Container)
			default:
				pod := memoryPod(r, seq*100+step, m)
				np := kubeapi.Pod(pod)
				if r.Intn(3) == 0 {
					h, err := ours.PodHints(np)
					var uh topology.ProviderHints
					if panicked(func() { uh = fromUpstreamHints(theirs.GetPodTopologyHints(logger, st, pod, lifecycle.AddOperation)) }) {
						c.deviate("missing-memory-table")
						broken = true
						break
					}
					if a, b := printMemoryHints(h, err), printMemoryHints(uh, nil); a != b {
						c.disagree("sequence %d step %d: pod hints %s, upstream %s", seq, step, a, b)
						break
					}
					c.agree()
				}
				for _, ctr := range slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers) {
					h, err := ours.Hints(np, ctr.Name)
					var uh topology.ProviderHints
					if panicked(func() { uh = fromUpstreamHints(theirs.GetTopologyHints(logger, st, pod, &ctr, lifecycle.AddOperation)) }) {
						c.deviate("missing-memory-table")
						broken = true
						break
					}
					if a, b := printMemoryHints(h, err), printMemoryHints(uh, nil); a != b {
						c.disagree("sequence %d step %d %s: hints %s, upstream %s", seq, step, ctr.Name, a, b)
						break
					}
					last = h
					hint := topology.Hint{Any: true}
					switch k := r.Intn(10); {
					case k < 7 && len(last[memory.ResourceMemory]) > 0:
						hs := last[memory.ResourceMemory]
						hint = hs[r.Intn(len(hs))]
					case k == 7: // a random set of the machine's nodes
						var mask topology.BitMask
						for mask == 0 {
							for _, n := range m.nodes {
								if r.Intn(2) == 0 {
									mask |= 1 << uint(n.ID)
								}
							}
						}
						hint = topology.Hint{Affinity: mask, Preferred: r.Intn(2) == 0}
					}
					store.hint = topologymanager.TopologyHint{Preferred: hint.Preferred}
					if !hint.Any {
						store.hint.NUMANodeAffinity, _ = bitmask.NewBitMask(hint.Affinity.Nodes()...)
					}
					_, err = ours.Allocate(np, ctr.Name, hint)
					var uerr error
					if panicked(func() { uerr = theirs.Allocate(context.Background(), st, pod, &ctr, lifecycle.AddOperation) }) {
						c.deviate("missing-memory-table")
						broken = true
						break
					}
					nl += fmt.Sprintf(" %s:%v", ctr.Name, err)
					up += fmt.Sprintf(" %s:%v", ctr.Name, uerr)
					admitted = append(admitted, seqOp{Pod: pod, Container: ctr.Name})
				}
				what = "admit " + pod.Name
			}
			if broken {
				break // upstream's state is no longer comparable
			}
			groupsBroken = groupsBroken || nodelifetest.CheckMemoryGroups(ours.State()) != nil
			nl += " " + sortedMemoryText(ours.State())
			up += " " + sortedMemoryText(fromUpstreamMemory(st))
			if nl != up {
				c.disagree("sequence %d step %d (%s):\nnodelife %s\nupstream %s", seq, step, what, nl, up)
				broken = true
				break
			}
			c.agree()
		}
		if broken {
			continue
		}
		// A kubelet restart: each side validates its own state, restored.
		again, _ := memory.NewStatic(memory.Config{Nodes: m.nodes, Reserved: m.reserved, QOS: cgroup.QOSOptionsFor(upstreamRelease)})
		restored := ours.State()
		uagain, _ := memorymanager.NewPolicyStatic(logger, m.machineInfo(), m.upstreamReserved(), store)
		ust := memstate.NewMemoryState(logger)
		ust.SetMachineState(st.GetMachineState())
		ust.SetMemoryAssignments(st.GetMemoryAssignments())
		err, uerr = again.Start(restored), uagain.Start(logger, ust)
		if groupsBroken {
			// Upstream replays the containers' blocks in Go map order; once a
			// group was broken its answer can depend on that order. Every
			// such restart is the documented deviation when some order (of
			// up to 51 tries) gives nodelife's answer, so that the count
			// does not depend on the first try's order.
			for try := 0; (err == nil) != (uerr == nil) && try < 50; try++ {
				u2, _ := memorymanager.NewPolicyStatic(logger, m.machineInfo(), m.upstreamReserved(), store)
				s2 := memstate.NewMemoryState(logger)
				s2.SetMachineState(st.GetMachineState())
				s2.SetMemoryAssignments(st.GetMemoryAssignments())
				uerr = u2.Start(logger, s2)
			}
			if (err == nil) != (uerr == nil) {
				c.disagree("sequence %d: restart after a broken group: nodelife %v, upstream %v in 51 tries", seq, err, uerr)
			} else {
				c.deviate("restart-order")
			}
			continue
		}
		if (err == nil) != (uerr == nil) {
			c.disagree("sequence %d: restart: nodelife %v, upstream %v", seq, err, uerr)
			continue
		}
		c.agree()
	}
}

// TestDifferentialMemorySystemReserved compares memory.SystemReserved with
// getSystemReservedMemory (unexported, by linkname).
func TestDifferentialMemorySystemReserved(t *testing.T) {
	c := compare(t, "memory.SystemReserved", "memorymanager.getSystemReservedMemory (unexported, by linkname)",
		"random machines as for the policy; 0-4 --reserved-memory entries on existing or missing nodes (memory, hugepages-2Mi, 1Gi, cpu), "+
			"node allocatable reservations equal to their sums or off by one, 0 or 100Mi")
	r := rand.New(rand.NewSource(12))
	quantities := []string{"0", "1", "100Mi", "512Mi", "1Gi", "2Mi", "1.5Gi"}
	names := []v1.ResourceName{v1.ResourceMemory, v1.ResourceMemory, "hugepages-2Mi", "hugepages-1Gi", v1.ResourceCPU}
	for i := 0; i < inputs(t); i++ {
		m := randomMemoryMachine(r)
		var ours []memory.Reservation
		var theirs []kubeletconfig.MemoryReservation
		sums := v1.ResourceList{}
		for k := r.Intn(5); k > 0; k-- {
			node := int32(r.Intn(len(m.nodes) + 1))
			l := v1.ResourceList{}
			for j := 1 + r.Intn(2); j > 0; j-- {
				name := names[r.Intn(len(names))]
				l[name] = resource.MustParse(quantities[r.Intn(len(quantities))])
			}
			for name, q := range l {
				s := sums[name]
				s.Add(q)
				sums[name] = s
			}
			theirs = append(theirs, kubeletconfig.MemoryReservation{NumaNode: node, Limits: l})
			cl := core.ResourceList{}
			for name, q := range l {
				cl[core.ResourceName(name)] = q.DeepCopy()
			}
			ours = append(ours, memory.Reservation{NUMANode: node, Limits: cl})
		}
		alloc := v1.ResourceList{}
		for name, q := range sums {
			switch r.Intn(6) {
			case 0:
				q.Add(resource.MustParse("1"))
			case 1:
				continue
			}
			alloc[name] = q
		}
		if r.Intn(5) == 0 {
			alloc[v1.ResourceMemory] = resource.MustParse([]string{"0", "100Mi"}[r.Intn(2)])
		}
		calloc := core.ResourceList{}
		for name, q := range alloc {
			calloc[core.ResourceName(name)] = q.DeepCopy()
		}
		got, err := memory.SystemReserved(m.nodes, calloc, ours)
		want, uerr := upstreamSystemReservedMemory(m.machineInfo(), alloc, theirs)
		if (err == nil) != (uerr == nil) {
			c.disagree("input %d: nodelife %v %v, upstream %v %v (reservations %v, allocatable %v)", i, got, err, want, uerr, theirs, alloc)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(fromUpstreamReserved(want)) {
			c.disagree("input %d: nodelife %v, upstream %v", i, got, want)
			continue
		}
		c.agree()
	}
}

// panicked runs f and reports whether it panicked.
func panicked(f func()) (p bool) {
	defer func() {
		if recover() != nil {
			p = true
		}
	}()
	f()
	return false
}

func fromUpstreamReserved(m map[int]map[v1.ResourceName]uint64) map[int]map[string]uint64 {
	if m == nil {
		return nil
	}
	out := map[int]map[string]uint64{}
	for id, byName := range m {
		out[id] = map[string]uint64{}
		for name, v := range byName {
			out[id][string(name)] = v
		}
	}
	return out
}
