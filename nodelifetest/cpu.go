package nodelifetest

import (
	_ "embed" // the upstream test topologies
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// CPUTopologies draws machines as cAdvisor describes them, built with
// cpu.Discover: 1-4 sockets; one NUMA node per socket, 2-4 per socket or
// one for all sockets (at most 8 nodes); 1-8 cores per NUMA node and
// socket, 1, 2 or 4 threads per core numbered as Linux does (siblings a
// core count apart) or adjacent; 0-3 uncore caches per node.
func CPUTopologies() *rapid.Generator[cpu.Topology] {
	return rapid.Custom(func(t *rapid.T) cpu.Topology {
		sockets := rapid.IntRange(1, 4).Draw(t, "sockets")
		numaPerSocket, shared := 1, false
		switch rapid.IntRange(0, 3).Draw(t, "numa layout") {
		case 1:
			numaPerSocket = rapid.IntRange(2, 4).Draw(t, "numa per socket")
		case 2:
			shared = true
		}
		for sockets*numaPerSocket > 8 {
			numaPerSocket--
		}
		cores := rapid.IntRange(1, 8).Draw(t, "cores")
		threads := rapid.SampledFrom([]int{1, 2, 4}).Draw(t, "threads")
		uncores := rapid.IntRange(0, 3).Draw(t, "uncores")
		adjacent := rapid.Bool().Draw(t, "adjacent threads")
		total := sockets * numaPerSocket * cores
		byNode := map[int]*cpu.NUMANode{}
		var order []int
		i := 0
		for s := 0; s < sockets; s++ {
			for k := 0; k < numaPerSocket; k++ {
				node := s*numaPerSocket + k
				if shared {
					node = 0
				}
				if byNode[node] == nil {
					byNode[node] = &cpu.NUMANode{ID: node}
					order = append(order, node)
				}
				for c := 0; c < cores; c++ {
					core := cpu.Core{ID: c, SocketID: s}
					for th := 0; th < threads; th++ {
						id := th*total + i
						if adjacent {
							id = i*threads + th
						}
						core.Threads = append(core.Threads, id)
					}
					if uncores > 0 {
						core.UncoreCaches = []int{(s*numaPerSocket+k)*uncores + c*uncores/cores}
					}
					byNode[node].Cores = append(byNode[node].Cores, core)
					i++
				}
			}
		}
		var nodes []cpu.NUMANode
		for _, id := range order {
			nodes = append(nodes, *byNode[id])
		}
		topo, err := cpu.Discover(total*threads, sockets, nodes)
		if err != nil {
			t.Fatalf("nodelifetest: CPUTopologies drew an invalid machine: %v", err) // never: every drawn machine is valid
		}
		return topo
	})
}

// CPUOptions draws static policy options that pass cpu.Options.Validate,
// each option about one time in four.
func CPUOptions() *rapid.Generator[cpu.Options] {
	return rapid.Custom(func(t *rapid.T) cpu.Options {
		for {
			o := cpu.Options{
				FullPCPUsOnly:             rare(t, 4, "full-pcpus-only"),
				DistributeCPUsAcrossNUMA:  rare(t, 4, "distribute-cpus-across-numa"),
				AlignBySocket:             rare(t, 4, "align-by-socket"),
				DistributeCPUsAcrossCores: rare(t, 4, "distribute-cpus-across-cores"),
				StrictCPUReservation:      rare(t, 4, "strict-cpu-reservation"),
				PreferAlignByUncoreCache:  rare(t, 4, "prefer-align-cpus-by-uncorecache"),
			}
			if o.Validate() == nil {
				return o
			}
		}
	})
}

// CPUPods draws pods for the CPU manager with UID uid: 1-3 app
// containers and 0-2 init containers (half of them sidecars) asking 0-4
// whole CPUs (at times a fractional amount or none), requests equal to
// limits (Guaranteed) four times in five.
func CPUPods(uid string) *rapid.Generator[core.Pod] {
	return rapid.Custom(func(t *rapid.T) core.Pod {
		guaranteed := !rare(t, 5, "burstable")
		container := func(name string) core.Container {
			c := core.Container{Name: name}
			amount := rapid.SampledFrom([]string{"1", "2", "3", "4", "1", "2", "1500m", ""}).Draw(t, "cpu")
			if amount == "" {
				return c
			}
			l := core.ResourceList{core.ResourceCPU: resource.MustParse(amount), core.ResourceMemory: resource.MustParse("64Mi")}
			c.Resources.Requests = l
			if guaranteed {
				c.Resources.Limits = core.ResourceList{core.ResourceCPU: resource.MustParse(amount), core.ResourceMemory: resource.MustParse("64Mi")}
			}
			return c
		}
		return podOf(t, uid, container)
	})
}

// podOf draws the containers of a pod with UID uid: 0-2 init containers
// (init0, ...; each a sidecar half the time) and 1-3 app containers
// (app0, ...), each drawn by container.
func podOf(t *rapid.T, uid string, container func(name string) core.Container) core.Pod {
	p := core.Pod{UID: uid}
	for i := rapid.IntRange(0, 2).Draw(t, "init containers"); i > 0; i-- {
		c := container(fmt.Sprintf("init%d", len(p.InitContainers)))
		if rapid.Bool().Draw(t, "sidecar") {
			c.RestartPolicy = core.ContainerRestartPolicyAlways
		}
		p.InitContainers = append(p.InitContainers, c)
	}
	for i := rapid.IntRange(1, 3).Draw(t, "containers"); i > 0; i-- {
		p.Containers = append(p.Containers, container(fmt.Sprintf("app%d", len(p.Containers))))
	}
	return p
}

// CheckCPUState checks a static policy's state: no CPU is both shared and
// held exclusively, none held by containers of two pods, no reserved CPU
// held, and the shared pool with every held CPU makes exactly the
// machine's CPUs (less the reserved ones under strict-cpu-reservation).
// Containers of one pod may hold the same CPUs (an app container reusing
// its init container's).
func CheckCPUState(p *cpu.Static, m *cpu.Machine, strict bool) error {
	st := p.State()
	all := m.CPUs()
	if strict {
		all = all.Difference(p.Reserved())
	}
	known := st.DefaultCPUSet
	owner := map[int]string{}
	for pod, cs := range st.Entries {
		for name, set := range cs {
			if in := set.Intersection(st.DefaultCPUSet); !in.IsEmpty() {
				return checkErr("%s/%s holds CPUs %s of the shared pool %s", pod, name, in, st.DefaultCPUSet)
			}
			if in := set.Intersection(p.Reserved()); !in.IsEmpty() {
				return checkErr("%s/%s holds reserved CPUs %s", pod, name, in)
			}
			for _, c := range set.List() {
				if o, ok := owner[c]; ok && o != pod {
					return checkErr("CPU %d is held by pods %s and %s", c, o, pod)
				}
				owner[c] = pod
			}
			known = known.Union(set)
		}
	}
	if !known.Equals(all) {
		return checkErr("the shared pool and the held CPUs make %s, not the machine's %s", known, all)
	}
	return nil
}

// CheckCPUAllocation checks one allocation: the CPUs were free (in
// available, the allocatable CPUs before it, or reusable, the pod's
// reusable ones), number exactly want, and under the single-numa-node
// policy lie on the one node of the admitted hint.
func CheckCPUAllocation(got, available, reusable cpuset.CPUSet, want int, m *cpu.Machine, policy topology.Policy, hint topology.Hint) error {
	if !got.IsSubsetOf(available.Union(reusable)) {
		return checkErr("allocated %s, not all free (free %s, reusable %s)", got, available, reusable)
	}
	if got.Size() != want {
		return checkErr("allocated %d CPUs (%s), want %d", got.Size(), got, want)
	}
	if policy == topology.PolicySingleNUMANode && !hint.Any && want > 0 {
		for _, c := range got.List() {
			if info, _ := m.Info(c); !hint.Affinity.IsSet(info.NUMANodeID) {
				return checkErr("single-numa-node admitted %v but CPU %d is on node %d", hint, c, info.NUMANodeID)
			}
		}
	}
	return nil
}

//go:embed upstream_cpu_topologies.txt
var upstreamCPUTopologies string

// UpstreamCPUTopologies returns, fresh each call, the 23 CPU topologies of
// upstream's CPU manager tests (pkg/kubelet/cm/cpumanager/policy_test.go,
// v1.36.3) by their names there (topoDualSocketHT,
// topoDualSocketMultiNumaPerSocketHTLarge, ...), with upstream's declared
// counts, which do not always match the CPUs (topoSingleSocketHT declares
// no NUMA node; one topology declares 128 CPUs and lists 64).
func UpstreamCPUTopologies() map[string]cpu.Topology {
	out := map[string]cpu.Topology{}
	var name string
	for _, line := range strings.Split(upstreamCPUTopologies, "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "topo "):
			name = strings.TrimPrefix(line, "topo ")
			out[name] = cpu.Topology{CPUs: map[int]cpu.CPUInfo{}}
		case strings.HasPrefix(line, "Num"):
			t := out[name]
			for _, kv := range strings.Fields(line) {
				k, v, _ := strings.Cut(kv, "=")
				n, err := strconv.Atoi(v)
				if err != nil {
					continue // the embedded file has none (TestCPUFixturesAreUpstreams compares it with upstream's)
				}
				*map[string]*int{"NumCPUs": &t.NumCPUs, "NumSockets": &t.NumSockets, "NumCores": &t.NumCores,
					"NumUncoreCache": &t.NumUncoreCache, "NumNUMANodes": &t.NumNUMANodes}[k] = n
			}
			out[name] = t
		default:
			var c, core, socket, numa, uncore int
			if _, err := fmt.Sscan(line, &c, &core, &socket, &numa, &uncore); err != nil {
				continue // as above
			}
			out[name].CPUs[c] = cpu.CPUInfo{CoreID: core, SocketID: socket, NUMANodeID: numa, UncoreCacheID: uncore}
		}
	}
	return out
}
