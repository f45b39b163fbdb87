package scenario

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/memory"
)

// numaMachine is the tour's two-socket machine: one NUMA node per socket,
// six cores of two threads each (node 0: CPUs 0-5 and 12-17, node 1: 6-11
// and 18-23), 16Gi of memory per node of which four 1Gi huge pages, 1Gi
// reserved per node.
func numaMachine() (*cpu.Machine, []memory.NUMANode, map[int]map[string]uint64, error) {
	var cpuNodes []cpu.NUMANode
	var memNodes []memory.NUMANode
	reserved := map[int]map[string]uint64{}
	for s := 0; s < 2; s++ {
		n := cpu.NUMANode{ID: s}
		for c := 0; c < 6; c++ {
			n.Cores = append(n.Cores, cpu.Core{ID: c, SocketID: s, Threads: []int{6*s + c, 12 + 6*s + c}})
		}
		cpuNodes = append(cpuNodes, n)
		memNodes = append(memNodes, memory.NUMANode{ID: s, Memory: 16 << 30, HugePages: []memory.HugePages{{PageSizeKiB: 1 << 20, NumPages: 4}}})
		reserved[s] = map[string]uint64{memory.ResourceMemory: 1 << 30}
	}
	topo, err := cpu.Discover(24, 2, cpuNodes)
	if err != nil {
		return nil, nil, nil, err
	}
	m, err := cpu.NewMachine(topo)
	return m, memNodes, reserved, err
}

// guaranteedPod returns a pod of one container asking the same requests
// and limits.
func guaranteedPod(uid string, cpus, mem, huge string) core.Pod {
	l := core.ResourceList{core.ResourceCPU: resource.MustParse(cpus), core.ResourceMemory: resource.MustParse(mem)}
	if huge != "" {
		l["hugepages-1Gi"] = resource.MustParse(huge)
	}
	lim := core.ResourceList{}
	for k, v := range l {
		lim[k] = v.DeepCopy()
	}
	return core.Pod{UID: uid, Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{Requests: l, Limits: lim}}}}
}

func blocksText(bs []checkpoint.MemoryBlock) string {
	var parts []string
	for _, b := range bs {
		parts = append(parts, fmt.Sprintf("%s %dGi on %v", b.Type, b.Size>>30, b.NUMAAffinity))
	}
	return strings.Join(parts, ", ")
}

func hintsText(ph topology.ProviderHints) string {
	var parts []string
	for _, name := range []string{"cpu", "memory", "hugepages-1Gi"} {
		if hs, ok := ph[name]; ok {
			parts = append(parts, fmt.Sprintf("%s %v", name, hs))
		}
	}
	return strings.Join(parts, ", ")
}

// NUMA admits a Guaranteed pod (6 CPUs, 4Gi of memory, 2Gi of 1Gi huge
// pages) on the two-socket machine under each topology manager policy,
// after a database pod has taken 8 CPUs of node 0 and 10Gi of node 1's
// memory: the CPU manager can only place it on node 1, the memory manager
// only on node 0. none and best-effort admit it (best-effort on node 0,
// not preferred: its CPUs straddle the nodes); restricted and
// single-numa-node refuse it with a TopologyAffinityError.
func NUMA(Options) (Report, error) {
	r := Report{Name: "numa", Title: "a Guaranteed pod (6 CPUs, 4Gi, 2Gi of 1Gi pages) on a two-socket machine under each topology manager policy"}
	m, memNodes, reserved, err := numaMachine()
	if err != nil {
		return r, err
	}
	info := topology.NUMAInfo{Nodes: m.NUMANodes()}
	n0, _ := topology.NewBitMask(0)
	n1, _ := topology.NewBitMask(1)
	for _, policy := range []topology.Policy{topology.PolicyNone, topology.PolicyBestEffort, topology.PolicyRestricted, topology.PolicySingleNUMANode} {
		cpus, err := cpu.NewStatic(cpu.Config{Machine: m, NumReserved: 2, TopologyPolicy: policy})
		if err != nil {
			return r, err
		}
		mem, err := memory.NewStatic(memory.Config{Nodes: memNodes, Reserved: reserved})
		if err != nil {
			return r, err
		}
		if err := cpus.Start(checkpoint.CPUState{}); err != nil {
			return r, err
		}
		if err := mem.Start(checkpoint.MemoryState{}); err != nil {
			return r, err
		}
		db := guaranteedPod("db", "8", "10Gi", "")
		dbCPUs, err := cpus.Allocate(db, "app", topology.Hint{Affinity: n0, Preferred: true})
		if err != nil {
			return r, err
		}
		dbMem, err := mem.Allocate(db, "app", topology.Hint{Affinity: n1, Preferred: true})
		if err != nil {
			return r, err
		}
		if policy == topology.PolicyNone {
			r.fact("setup", "db", "", "reserved CPUs %s; db holds CPUs %s and %s", cpus.Reserved(), dbCPUs, blocksText(dbMem))
		}
		web := guaranteedPod("web", "6", "4Gi", "2Gi")
		cpuHints, err := cpus.Hints(web, "app")
		if err != nil {
			return r, err
		}
		memHints, err := mem.Hints(web, "app")
		if err != nil {
			return r, err
		}
		if policy == topology.PolicyNone {
			r.fact("hints", "web", "", "hints: %s; %s", hintsText(cpuHints), hintsText(memHints))
		}
		// The topology manager as the kubelet's admit handler runs it:
		// the merge of both managers' hints, then both allocations.
		tm, err := topology.NewManager(topology.ManagerConfig{Policy: policy, NUMA: info, Providers: []topology.Provider{cpus.Provider(), mem.Provider()}})
		if err != nil {
			return r, err
		}
		a, err := tm.Admit(web)
		if err != nil {
			return r, err
		}
		if !a.Admit {
			r.fact("admit", "web", a.Reason, "%-16s merged %v: refused (%s): %s", policy, a.Hint, a.Reason, a.Why)
			continue
		}
		hint := a.Containers[0].Hint
		got := cpus.CPUs(web.UID, "app")
		blocks, _ := mem.Blocks(web.UID, "app")
		merged := fmt.Sprintf("merged %v", hint)
		if policy == topology.PolicyNone {
			merged = "no merge" // the none policy aligns nothing: the managers place the pod alone
		}
		r.fact("admit", "web", "Admitted", "%-16s %s: admitted, CPUs %s, %s", policy, merged, got, blocksText(blocks))
	}
	return r, nil
}
