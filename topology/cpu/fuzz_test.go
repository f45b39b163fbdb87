package cpu_test

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// fuzzTopology builds a machine of up to 32 CPUs from bytes: each CPU's
// NUMA node (0-3), socket, core and uncore cache from one byte each, the
// declared counts from the first bytes (so they may disagree with the
// CPUs, as upstream tolerates).
func fuzzTopology(data []byte) cpu.Topology {
	t := cpu.Topology{CPUs: map[int]cpu.CPUInfo{}}
	if len(data) < 5 {
		return t
	}
	t.NumCPUs, t.NumCores, t.NumSockets = int(data[0]%40), int(data[1]%40), int(data[2]%5)
	t.NumNUMANodes, t.NumUncoreCache = int(data[3]%5), int(data[4]%5)
	data = data[5:]
	for c := 0; len(data) >= 2 && c < 32; c++ {
		a, b := data[0], data[1]
		t.CPUs[c] = cpu.CPUInfo{NUMANodeID: int(a % 4), SocketID: int(a/4) % 3, CoreID: int(b % 16), UncoreCacheID: int(b/16) % 4}
		data = data[2:]
	}
	return t
}

// FuzzStatic feeds arbitrary machines, free sets and requests to the
// allocators, and arbitrary options, reservations and pods to the static
// policy: nothing panics or loops; an allocation returns only machine
// CPUs; the policy's state keeps its invariants after every step.
func FuzzStatic(f *testing.F) {
	f.Add([]byte{12, 6, 2, 2, 1, 0, 0, 5, 1, 2, 2, 7, 3, 4, 4, 9, 5, 0, 0, 5, 1, 2, 2, 7, 3, 4, 4, 9, 5}, uint64(0xffff), uint8(4), uint8(0), uint8(1), []byte{2, 4, 1, 3})
	f.Add([]byte{8, 4, 1, 0, 0, 0, 0, 0, 1, 0, 2, 0, 3, 0, 0, 0, 1, 0, 2, 0, 3}, uint64(0xf0), uint8(3), uint8(63), uint8(2), []byte{1, 1, 1})
	f.Fuzz(func(t *testing.T, machine []byte, free uint64, n, optBits, reserved uint8, pods []byte) {
		topo := fuzzTopology(machine)
		m, err := cpu.NewMachine(topo)
		if err != nil {
			return
		}
		var ids []int
		for c := 0; c < 64; c++ {
			if free&(1<<c) != 0 {
				ids = append(ids, c)
			}
		}
		avail, _ := cpuset.New(ids...)
		for _, group := range []int{1, 2} {
			if got, err := m.TakeDistributed(avail, int(n%40), group, cpu.TakeOptions{Sorting: cpu.Sorting(optBits % 2)}); err == nil && !got.IsSubsetOf(m.CPUs()) {
				t.Fatalf("distributed gave %s, not all CPUs of the machine %s", got, m.CPUs())
			}
		}
		if got, err := m.TakePacked(avail, int(n%40), cpu.TakeOptions{Sorting: cpu.Sorting(optBits % 2), PreferUncoreCache: optBits&2 != 0}); err == nil && !got.IsSubsetOf(m.CPUs()) {
			t.Fatalf("packed gave %s, not all CPUs of the machine %s", got, m.CPUs())
		}
		opts := cpu.Options{FullPCPUsOnly: optBits&4 != 0, DistributeCPUsAcrossNUMA: optBits&8 != 0, AlignBySocket: optBits&16 != 0,
			DistributeCPUsAcrossCores: optBits&32 != 0, StrictCPUReservation: optBits&64 != 0, PreferAlignByUncoreCache: optBits&128 != 0,
			ExactFreeCores: reserved&128 != 0}
		// Upstream hands out a CPU that is not free when a core or socket
		// has more CPUs than NumCPUs/NumCores (NumSockets) says
		// (kubernetes#140495): the state's invariants hold on other
		// machines.
		checkState := fitsCounts(topo, opts.ExactFreeCores)
		p, err := cpu.NewStatic(cpu.Config{Machine: m, NumReserved: int(reserved % 4), Options: opts})
		if err != nil {
			return
		}
		if err := p.Start(checkpoint.CPUState{}); err != nil {
			return
		}
		info := topology.NUMAInfo{Nodes: m.NUMANodes()}
		for i, b := range pods {
			uid := fmt.Sprintf("p%d", i%3)
			q := resource.MustParse(fmt.Sprint(int(b % 6)))
			if b&0x40 != 0 {
				q = resource.MustParse("1500m")
			}
			l := core.ResourceList{core.ResourceCPU: q, core.ResourceMemory: resource.MustParse("1Mi")}
			pod := core.Pod{UID: uid, Containers: []core.Container{{Name: "c", Resources: core.ResourceRequirements{Requests: l, Limits: l}}}}
			if b&0x80 != 0 {
				pod.InitContainers = []core.Container{{Name: "i", Resources: core.ResourceRequirements{Requests: l, Limits: l}}}
			}
			if b&0x20 != 0 {
				p.RemoveContainer(uid, "c")
				p.RemoveContainer(uid, "i")
				continue
			}
			if _, err := p.PodHints(pod); err != nil {
				t.Fatal(err)
			}
			for _, c := range append(pod.InitContainers, pod.Containers...) {
				hints, err := p.Hints(pod, c.Name)
				if err != nil {
					t.Fatal(err)
				}
				hint, _, err := topology.Merge(topology.PolicyBestEffort, info, topology.PolicyOptions{MaxAllowableNUMANodes: 8}, []topology.ProviderHints{hints})
				if err != nil {
					t.Fatal(err)
				}
				_, _ = p.Allocate(pod, c.Name, hint)
			}
			st := p.State()
			if !checkState {
				continue
			}
			for pod, cs := range st.Entries {
				for name, set := range cs {
					if !set.Intersection(st.DefaultCPUSet).IsEmpty() || !set.Intersection(p.Reserved()).IsEmpty() {
						t.Fatalf("%s/%s holds %s; shared %s, reserved %s", pod, name, set, st.DefaultCPUSet, p.Reserved())
					}
				}
			}
		}
	})
}

// fitsCounts reports whether no core has more CPUs than NumCPUs/NumCores
// (unless exactCores) and no socket more than NumCPUs/NumSockets.
func fitsCounts(t cpu.Topology, exactCores bool) bool {
	cores, sockets := map[int]int{}, map[int]int{}
	for _, info := range t.CPUs {
		cores[info.CoreID]++
		sockets[info.SocketID]++
	}
	for _, n := range cores {
		if n > t.CPUsPerCore() && !exactCores {
			return false
		}
	}
	for _, n := range sockets {
		if n > t.CPUsPerSocket() {
			return false
		}
	}
	return true
}
