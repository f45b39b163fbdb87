package conformance

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
	memstate "k8s.io/kubernetes/pkg/kubelet/cm/memorymanager/state"
	upstream "k8s.io/utils/cpuset"

	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// randomCPUSet draws a set of up to 12 CPUs below 64 (empty at times).
func randomCPUSet(r *rand.Rand) cpuset.CPUSet {
	var cpus []int
	for n := r.Intn(13); n > 0; n-- {
		cpus = append(cpus, r.Intn(64))
	}
	s, _ := cpuset.New(cpus...)
	return s
}

func toUpstream(s cpuset.CPUSet) upstream.CPUSet { return upstream.New(s.List()...) }

// randomCPUState draws a CPU Manager state: a policy, a pool, up to 4 pods
// of up to 3 containers (names with the odd character JSON escapes), and
// pod-level entries when pods is set.
func randomCPUState(r *rand.Rand, pods bool) checkpoint.CPUState {
	name := func(prefix string) string {
		return prefix + []string{"", "-1", "<&>", "é", " x", "\""}[r.Intn(6)] + fmt.Sprint(r.Intn(5))
	}
	s := checkpoint.CPUState{PolicyName: []string{"none", "static"}[r.Intn(2)], DefaultCPUSet: randomCPUSet(r)}
	if r.Intn(4) > 0 {
		s.Entries = map[string]map[string]cpuset.CPUSet{}
		for p := r.Intn(5); p > 0; p-- {
			pod := name("pod")
			s.Entries[pod] = map[string]cpuset.CPUSet{}
			for c := r.Intn(4); c > 0; c-- {
				s.Entries[pod][name("ctr")] = randomCPUSet(r)
			}
		}
	}
	if pods && r.Intn(3) > 0 {
		s.PodEntries = map[string]cpuset.CPUSet{}
		for p := 1 + r.Intn(3); p > 0; p-- {
			s.PodEntries[name("pod")] = randomCPUSet(r)
		}
	}
	return s
}

// cpuStateText prints a state, nodelife's or upstream's, for comparison.
func cpuStateText(policy string, def string, entries map[string]map[string]string, pods map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "policy=%s default=%s", policy, def)
	var lines []string
	for pod, ctrs := range entries {
		for ctr, cpus := range ctrs {
			lines = append(lines, fmt.Sprintf(" %q/%q=%s", pod, ctr, cpus))
		}
	}
	for pod, cpus := range pods {
		lines = append(lines, fmt.Sprintf(" pod:%q=%s", pod, cpus))
	}
	sort.Strings(lines)
	return b.String() + strings.Join(lines, "")
}

func ourCPUText(s checkpoint.CPUState) string {
	entries := map[string]map[string]string{}
	for pod, ctrs := range s.Entries {
		entries[pod] = map[string]string{}
		for ctr, cpus := range ctrs {
			entries[pod][ctr] = cpus.String()
		}
	}
	pods := map[string]string{}
	for pod, cpus := range s.PodEntries {
		pods[pod] = cpus.String()
	}
	return cpuStateText(s.PolicyName, s.DefaultCPUSet.String(), entries, pods)
}

// The examples' states of package checkpoint, so that the checksums their
// outputs show are checked against upstream too.
func exampleCPUStates() []checkpoint.CPUState {
	p := func(s string) cpuset.CPUSet { c, _ := cpuset.Parse(s); return c }
	return []checkpoint.CPUState{
		{PolicyName: "static", DefaultCPUSet: p("0-1,4-7"), Entries: map[string]map[string]cpuset.CPUSet{"6b1d0c6e-pod": {"app": p("2-3")}}},
		{PolicyName: "static", PodEntries: map[string]cpuset.CPUSet{"pod-1": p("4-5")}},
	}
}

// TestDifferentialCPUCheckpointWrite compares the files MarshalCPU writes
// with the ones v1.37.2's checkpoint structs marshal: V4 (what every
// v1.37 kubelet writes), and V2 and V3 (what v1.36 wrote, without and
// with PodLevelResourceManagers; their structs remain upstream).
func TestDifferentialCPUCheckpointWrite(t *testing.T) {
	c := compare(t, "checkpoint.MarshalCPU", "state.CPUManagerCheckpoint (V4), CPUManagerCheckpointV3 and CPUManagerCheckpointV2 .MarshalCheckpoint",
		"CPU Manager states: none/static, a pool and up to 4 pods of up to 3 containers of up to 12 CPUs, names JSON escapes, pod-level entries for V3 and V4; formats V4, V3 and V2; and the package's example states")
	r := rand.New(rand.NewSource(39))
	n := inputs(t)
	for i := 0; i < n; i++ {
		format := []checkpoint.CPUFormat{checkpoint.CPUFormatV4, checkpoint.CPUFormatV3, checkpoint.CPUFormatV2}[r.Intn(3)]
		s := randomCPUState(r, format != checkpoint.CPUFormatV2)
		if i < len(exampleCPUStates()) {
			s = exampleCPUStates()[i]
			format = checkpoint.CPUFormatV2
			if len(s.PodEntries) > 0 {
				format = checkpoint.CPUFormatV3
			}
		}
		entries := map[string]map[string]string{}
		for pod, ctrs := range s.Entries {
			entries[pod] = map[string]string{}
			for ctr, cpus := range ctrs {
				entries[pod][ctr] = cpus.String()
			}
		}
		pods := state.PodCPUAssignments{}
		for pod, cpus := range s.PodEntries {
			pods[pod] = state.PodEntry{CPUSet: toUpstream(cpus)}
		}
		var want []byte
		var err error
		switch format {
		case checkpoint.CPUFormatV4:
			cp := &state.CPUManagerCheckpoint{CheckpointData: state.CPUManagerCheckpointData{PolicyName: s.PolicyName, DefaultCPUSet: s.DefaultCPUSet.String(), Entries: entries, PodEntries: pods}}
			want, err = cp.MarshalCheckpoint()
		case checkpoint.CPUFormatV3:
			cp := &state.CPUManagerCheckpointV3{PolicyName: s.PolicyName, DefaultCPUSet: s.DefaultCPUSet.String(), Entries: entries, PodEntries: pods}
			want, err = cp.MarshalCheckpoint()
		default:
			cp := &state.CPUManagerCheckpointV2{PolicyName: s.PolicyName, DefaultCPUSet: s.DefaultCPUSet.String(), Entries: entries}
			want, err = cp.MarshalCheckpoint()
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := checkpoint.MarshalCPU(s, format)
		if err != nil {
			c.disagree("input %d: %v", i, err)
			continue
		}
		if string(got) != string(want) {
			c.disagree("input %d (%v): %s, upstream %s", i, format, got, want)
			continue
		}
		c.agree()
	}
}

// mutateCheckpoint damages a file the way a disk, an editor or another
// version could: a changed byte, another checksum, checksum 0, another
// policy, an unparsable CPU list, null entries, a key in other case, or
// the file cut short.
func mutateCheckpoint(r *rand.Rand, data []byte) []byte {
	s := string(data)
	switch r.Intn(12) {
	case 0:
		if len(data) > 0 {
			b := []byte(s)
			const junk = "{}[]\",:0123456789abc-"
			b[r.Intn(len(b))] = junk[r.Intn(len(junk))]
			return b
		}
	case 1:
		i := strings.LastIndex(s, `"checksum":`)
		return []byte(s[:i] + `"checksum":` + fmt.Sprint(r.Uint32()) + "}")
	case 2:
		i := strings.LastIndex(s, `"checksum":`)
		return []byte(s[:i] + `"checksum":0}`)
	case 3:
		return []byte(strings.Replace(s, `"policyName":"none"`, `"policyName":"static"`, 1))
	case 4:
		return []byte(strings.Replace(s, `"defaultCpuSet":"`, `"defaultCpuSet":"x`, 1))
	case 5:
		return []byte(strings.Replace(s, `"defaultCpuSet"`, `"defaultCPUSet"`, 1))
	case 6:
		return []byte(strings.Replace(s, `{"policyName"`, `{"entries":null,"policyName"`, 1))
	case 7:
		return data[:r.Intn(len(data)+1)]
	case 8:
		if i := strings.LastIndex(s, `"dataChecksum":`); i >= 0 {
			return []byte(s[:i] + `"dataChecksum":` + []string{"0", fmt.Sprint(r.Uint32())}[r.Intn(2)] + "}")
		}
	case 9:
		if i := strings.Index(s, `,"data":`); i >= 0 {
			return []byte(s[:i] + "}") // the V4 part cut off: an older format's file
		}
	}
	return data
}

// TestDifferentialCPUCheckpointRead restores the same files with ReadCPU
// and with v1.37.2's state.NewCheckpointState, with the
// PodLevelResourceManagers gate off (the default) and on: files written
// as V1, V2, V3 or V4, intact or damaged, read with the policy they name
// or another, a V1 file's containers known or not.
func TestDifferentialCPUCheckpointRead(t *testing.T) {
	for _, gate := range []bool{false, true} {
		t.Run(fmt.Sprintf("PodLevelResourceManagers=%v", gate), func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.PodLevelResourceManagers, gate)
			c := compare(t, fmt.Sprintf("checkpoint.ReadCPU (PodLevelResourceManagers=%v)", gate), "state.NewCheckpointState",
				"cpu_manager_state files written as V1, V2, V3 or V4 by nodelife, intact or damaged (a byte, the checksum, checksum 0, the data checksum, the data cut off, policy, a CPU list, null entries, key case, cut short), read under the policy they name or the other, V1 containers known or not")
			dir := t.TempDir()
			name := "cpu_manager_state"
			r := rand.New(rand.NewSource(40))
			logger := logr.Discard()
			n := inputs(t)
			accepted := 0
			defer func() { t.Logf("%d of %d files restored by both, the rest refused by both", accepted, n) }()
			for i := 0; i < n; i++ {
				s := randomCPUState(r, true)
				var data []byte
				var err error
				known := map[string]checkpoint.ContainerRef{}
				cm := containermap.NewContainerMap()
				switch r.Intn(4) {
				case 0: // V1, by container ID (v1.37 no longer reads it)
					byID := map[string]cpuset.CPUSet{}
					for pod, ctrs := range s.Entries {
						for ctr, cpus := range ctrs {
							id := fmt.Sprintf("cid-%d", len(byID))
							byID[id] = cpus
							if r.Intn(8) > 0 {
								known[id] = checkpoint.ContainerRef{PodUID: pod, Container: ctr}
								cm.Add(pod, ctr, id)
							}
						}
					}
					data, err = checkpoint.MarshalCPUV1(s.PolicyName, s.DefaultCPUSet, byID)
				case 1:
					s.PodEntries = nil
					data, err = checkpoint.MarshalCPU(s, checkpoint.CPUFormatV2)
				case 2:
					data, err = checkpoint.MarshalCPU(s, checkpoint.CPUFormatV3)
				default:
					data, err = checkpoint.MarshalCPU(s, checkpoint.CPUFormatV4)
				}
				if err != nil {
					t.Fatal(err)
				}
				data = mutateCheckpoint(r, data)
				policy := s.PolicyName
				if r.Intn(6) == 0 {
					policy = map[string]string{"none": "static", "static": "none"}[policy]
				}
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
					t.Fatal(err)
				}
				got, _, err := checkpoint.ReadCPU(data, checkpoint.CPUReadOptions{PolicyName: policy, PodLevelResourceManagers: gate, InitialContainers: known})
				st, uerr := state.NewCheckpointState(logger, dir, name, policy, cm)
				switch {
				case (err == nil) != (uerr == nil):
					c.disagree("%s (policy %s): nodelife %v, upstream %v", data, policy, err, uerr)
				case err != nil:
					c.agree()
				default:
					entries := map[string]map[string]string{}
					for pod, ctrs := range st.GetCPUAssignments() {
						entries[pod] = map[string]string{}
						for ctr, cpus := range ctrs {
							entries[pod][ctr] = cpus.String()
						}
					}
					pods := map[string]string{}
					for pod, e := range st.GetPodCPUAssignments() {
						pods[pod] = e.CPUSet.String()
					}
					want := cpuStateText(policy, st.GetDefaultCPUSet().String(), entries, pods)
					if have := ourCPUText(got); have != want {
						c.disagree("%s: nodelife %s, upstream %s", data, have, want)
						continue
					}
					accepted++
					c.agree()
				}
			}
		})
	}
}

// randomMemoryState draws a Memory Manager state: a policy, 1-4 NUMA nodes
// (a null one at times) with tables for memory and up to two huge page
// sizes, cells, and up to 3 pods of up to 2 containers with blocks; pod
// blocks when pods is set.
func randomMemoryState(r *rand.Rand, pods bool) checkpoint.MemoryState {
	s := checkpoint.MemoryState{PolicyName: []string{"None", "Static"}[r.Intn(2)]}
	u := func() uint64 { return uint64(r.Int63n(1 << 40)) }
	ints := func() []int {
		switch r.Intn(4) {
		case 0:
			return nil
		case 1:
			return []int{}
		}
		var out []int
		for n := 1 + r.Intn(3); n > 0; n-- {
			out = append(out, r.Intn(4))
		}
		return out
	}
	blocks := func() []checkpoint.MemoryBlock {
		if r.Intn(5) == 0 {
			return nil
		}
		var out []checkpoint.MemoryBlock
		for n := 1 + r.Intn(2); n > 0; n-- {
			out = append(out, checkpoint.MemoryBlock{NUMAAffinity: ints(), Type: []string{"memory", "hugepages-2Mi", "hugepages-1Gi"}[r.Intn(3)], Size: u()})
		}
		return out
	}
	if r.Intn(6) > 0 {
		s.MachineState = map[int]*checkpoint.NUMANodeState{}
		for id := 0; id < 1+r.Intn(4); id++ {
			if r.Intn(10) == 0 {
				s.MachineState[id] = nil
				continue
			}
			n := &checkpoint.NUMANodeState{NumberOfAssignments: r.Intn(5), Cells: ints()}
			if r.Intn(8) > 0 {
				n.MemoryMap = map[string]*checkpoint.MemoryTable{}
				for _, res := range []string{"memory", "hugepages-2Mi", "hugepages-1Gi"}[:1+r.Intn(3)] {
					n.MemoryMap[res] = &checkpoint.MemoryTable{TotalMemSize: u(), SystemReserved: u(), Allocatable: u(), Reserved: u(), Free: u()}
				}
			}
			s.MachineState[id] = n
		}
	}
	if r.Intn(4) > 0 {
		s.Entries = map[string]map[string][]checkpoint.MemoryBlock{}
		for p := r.Intn(4); p > 0; p-- {
			pod := fmt.Sprintf("pod%d", r.Intn(5))
			s.Entries[pod] = map[string][]checkpoint.MemoryBlock{}
			for c := r.Intn(3); c > 0; c-- {
				s.Entries[pod][fmt.Sprintf("ctr%d", r.Intn(3))] = blocks()
			}
		}
	}
	if pods && r.Intn(3) > 0 {
		s.PodEntries = map[string][]checkpoint.MemoryBlock{}
		for p := 1 + r.Intn(2); p > 0; p-- {
			s.PodEntries[fmt.Sprintf("pod%d", r.Intn(5))] = blocks()
		}
	}
	return s
}

func toUpstreamBlocks(bs []checkpoint.MemoryBlock) []memstate.Block {
	if bs == nil {
		return nil
	}
	out := []memstate.Block{}
	for _, b := range bs {
		out = append(out, memstate.Block{NUMAAffinity: b.NUMAAffinity, Type: v1.ResourceName(b.Type), Size: b.Size})
	}
	return out
}

// memoryText prints a restored state as the kubelet's state holds it
// (nil and empty alike), in order.
func memoryText(s checkpoint.MemoryState) string {
	var lines []string
	blocks := func(bs []checkpoint.MemoryBlock) string {
		var parts []string
		for _, b := range bs {
			parts = append(parts, fmt.Sprintf("{%v %s %d}", b.NUMAAffinity, b.Type, b.Size))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	for id, n := range s.MachineState {
		if n == nil {
			lines = append(lines, fmt.Sprintf("node%d=nil", id))
			continue
		}
		var res []string
		for name, t := range n.MemoryMap {
			res = append(res, fmt.Sprintf("%s=%v", name, *t))
		}
		sort.Strings(res)
		lines = append(lines, fmt.Sprintf("node%d={%d %v %v}", id, n.NumberOfAssignments, n.Cells, res))
	}
	for pod, ctrs := range s.Entries {
		for ctr, bs := range ctrs {
			lines = append(lines, fmt.Sprintf("%s/%s=%s", pod, ctr, blocks(bs)))
		}
	}
	for pod, bs := range s.PodEntries {
		lines = append(lines, fmt.Sprintf("pod:%s=%s", pod, blocks(bs)))
	}
	sort.Strings(lines)
	return strings.Join(lines, " ")
}

// fromUpstreamMemory is the state upstream's restore holds, in nodelife's
// types, so that both sides print through memoryText.
func fromUpstreamMemory(st memstate.State) checkpoint.MemoryState {
	blocks := func(bs []memstate.Block) []checkpoint.MemoryBlock {
		var out []checkpoint.MemoryBlock
		for _, b := range bs {
			out = append(out, checkpoint.MemoryBlock{NUMAAffinity: b.NUMAAffinity, Type: string(b.Type), Size: b.Size})
		}
		return out
	}
	s := checkpoint.MemoryState{MachineState: map[int]*checkpoint.NUMANodeState{},
		Entries: map[string]map[string][]checkpoint.MemoryBlock{}, PodEntries: map[string][]checkpoint.MemoryBlock{}}
	for id, n := range st.GetMachineState() {
		if n == nil {
			s.MachineState[id] = nil
			continue
		}
		c := &checkpoint.NUMANodeState{NumberOfAssignments: n.NumberOfAssignments, Cells: n.Cells, MemoryMap: map[string]*checkpoint.MemoryTable{}}
		for name, t := range n.MemoryMap {
			c.MemoryMap[string(name)] = &checkpoint.MemoryTable{TotalMemSize: t.TotalMemSize, SystemReserved: t.SystemReserved,
				Allocatable: t.Allocatable, Reserved: t.Reserved, Free: t.Free}
		}
		s.MachineState[id] = c
	}
	for pod, ctrs := range st.GetMemoryAssignments() {
		s.Entries[pod] = map[string][]checkpoint.MemoryBlock{}
		for ctr, bs := range ctrs {
			s.Entries[pod][ctr] = blocks(bs)
		}
	}
	for pod, e := range st.GetPodMemoryAssignments() {
		s.PodEntries[pod] = blocks(e.MemoryBlocks)
	}
	return s
}

// upstreamMemoryState converts a state to upstream's types.
func upstreamMemoryState(s checkpoint.MemoryState) (memstate.NUMANodeMap, memstate.ContainerMemoryAssignments, memstate.PodMemoryAssignments) {
	var machine memstate.NUMANodeMap
	if s.MachineState != nil {
		machine = memstate.NUMANodeMap{}
		for id, n := range s.MachineState {
			if n == nil {
				machine[id] = nil
				continue
			}
			un := &memstate.NUMANodeState{NumberOfAssignments: n.NumberOfAssignments, Cells: n.Cells}
			if n.MemoryMap != nil {
				un.MemoryMap = map[v1.ResourceName]*memstate.MemoryTable{}
				for res, t := range n.MemoryMap {
					un.MemoryMap[v1.ResourceName(res)] = &memstate.MemoryTable{TotalMemSize: t.TotalMemSize, SystemReserved: t.SystemReserved, Allocatable: t.Allocatable, Reserved: t.Reserved, Free: t.Free}
				}
			}
			machine[id] = un
		}
	}
	var entries memstate.ContainerMemoryAssignments
	if s.Entries != nil {
		entries = memstate.ContainerMemoryAssignments{}
		for pod, ctrs := range s.Entries {
			entries[pod] = map[string][]memstate.Block{}
			for ctr, bs := range ctrs {
				entries[pod][ctr] = toUpstreamBlocks(bs)
			}
		}
	}
	pods := memstate.PodMemoryAssignments{}
	for pod, bs := range s.PodEntries {
		pods[pod] = memstate.PodEntry{MemoryBlocks: toUpstreamBlocks(bs)}
	}
	return machine, entries, pods
}

// TestDifferentialMemoryCheckpoint compares MarshalMemory with the file
// v1.37.2's memory manager state writes for the same state (its
// checkpoint state, SetMachineState, SetMemoryAssignments and, with the
// gate, SetPodMemoryAssignments): V3 whatever the gate; and ReadMemory
// with its restore (NewCheckpointState) on those files and on the V1 and
// V2 files nodelife writes for the state, intact or damaged, with the
// PodLevelResourceManagers gate off and on.
func TestDifferentialMemoryCheckpoint(t *testing.T) {
	for _, gate := range []bool{false, true} {
		t.Run(fmt.Sprintf("PodLevelResourceManagers=%v", gate), func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.PodLevelResourceManagers, gate)
			w := compare(t, fmt.Sprintf("checkpoint.MarshalMemory (PodLevelResourceManagers=%v)", gate), "memorymanager/state: the file its checkpoint state writes",
				"Memory Manager states: None/Static, 1-4 NUMA nodes (null at times) with tables for memory and huge pages, cells nil, empty or set, up to 3 pods of up to 2 containers with blocks, pod blocks with the gate")
			rd := compare(t, fmt.Sprintf("checkpoint.ReadMemory (PodLevelResourceManagers=%v)", gate), "memorymanager/state.NewCheckpointState",
				"those files intact or damaged (a byte, the checksum, checksum 0, policy, key case, cut short, a table null), read under the policy they name or the other")
			dir := t.TempDir()
			logger := logr.Discard()
			r := rand.New(rand.NewSource(41))
			n := inputs(t)
			accepted := 0
			defer func() { t.Logf("%d of %d files restored by both", accepted, n) }()
			for i := 0; i < n; i++ {
				s := randomMemoryState(r, gate)
				if i == 0 && !gate {
					s = exampleMemoryState() // its checksum is in the package's example
				}
				// what upstream writes for s
				wdir := filepath.Join(dir, "w")
				os.RemoveAll(wdir)
				ust, err := memstate.NewCheckpointState(logger, wdir, "memory_manager_state", s.PolicyName)
				if err != nil {
					t.Fatal(err)
				}
				machine, entries, pods := upstreamMemoryState(s)
				ust.SetMachineState(machine)
				ust.SetMemoryAssignments(entries)
				if gate {
					ust.SetPodMemoryAssignments(pods)
				}
				want, err := os.ReadFile(filepath.Join(wdir, "memory_manager_state"))
				if err != nil {
					t.Fatal(err)
				}
				got, err := checkpoint.MarshalMemory(s, checkpoint.MemoryFormatV3)
				switch {
				case err != nil:
					w.disagree("input %d: %v", i, err)
				case string(got) != string(want):
					w.disagree("input %d: %s, upstream %s", i, got, want)
				default:
					w.agree()
				}

				data := got
				if old := []checkpoint.MemoryFormat{checkpoint.MemoryFormatV1, checkpoint.MemoryFormatV2}[r.Intn(2)]; r.Intn(3) == 0 && (old == checkpoint.MemoryFormatV2 || len(s.PodEntries) == 0) {
					if data, err = checkpoint.MarshalMemory(s, old); err != nil {
						t.Fatal(err)
					}
				}
				data = mutateMemoryCheckpoint(r, data)
				policy := s.PolicyName
				if r.Intn(6) == 0 {
					policy = map[string]string{"None": "Static", "Static": "None"}[policy]
				}
				if err := os.WriteFile(filepath.Join(dir, "memory_manager_state"), data, 0o600); err != nil {
					t.Fatal(err)
				}
				ours, _, err := checkpoint.ReadMemory(data, checkpoint.MemoryReadOptions{PolicyName: policy, PodLevelResourceManagers: gate})
				var st memstate.State
				var uerr error
				panicked := func() (p bool) {
					defer func() { p = recover() != nil }()
					st, uerr = memstate.NewCheckpointState(logger, dir, "memory_manager_state", policy)
					return false
				}()
				switch {
				case panicked:
					if err != nil && strings.Contains(err.Error(), "is null") {
						rd.deviate("null-memory-table")
						continue
					}
					rd.disagree("%s: upstream panicked, nodelife %v", data, err)
				case (err == nil) != (uerr == nil):
					rd.disagree("%s (policy %s): nodelife %v, upstream %v", data, policy, err, uerr)
				case err != nil:
					rd.agree()
				default:
					if have, want := memoryText(ours), memoryText(fromUpstreamMemory(st)); have != want {
						rd.disagree("%s: nodelife %s, upstream %s", data, have, want)
						continue
					}
					accepted++
					rd.agree()
				}
			}
		})
	}
}

// mutateMemoryCheckpoint damages a memory checkpoint as mutateCheckpoint
// does a CPU one, and at times nulls a memory table.
func mutateMemoryCheckpoint(r *rand.Rand, data []byte) []byte {
	s := string(data)
	switch r.Intn(10) {
	case 0: // a null table in a file with checksum 0, which V1 accepts unverified
		s = strings.Replace(s, `"memory":{"total"`, `"memory":null,"x":{"total"`, 1)
		return []byte(s[:strings.LastIndex(s, `"checksum":`)] + `"checksum":0}`)
	case 1:
		return []byte(strings.Replace(s, `"policyName":"Static"`, `"policyName":"None"`, 1))
	case 2:
		return []byte(strings.Replace(s, `"machineState"`, `"MachineState"`, 1))
	}
	return mutateCheckpoint(r, data)
}

// exampleMemoryState is ExampleMarshalMemory's state.
func exampleMemoryState() checkpoint.MemoryState {
	const gi = 1 << 30
	return checkpoint.MemoryState{PolicyName: "Static",
		MachineState: map[int]*checkpoint.NUMANodeState{
			0: {NumberOfAssignments: 1, Cells: []int{0}, MemoryMap: map[string]*checkpoint.MemoryTable{
				"memory": {TotalMemSize: 8 * gi, SystemReserved: gi, Allocatable: 7 * gi, Reserved: gi, Free: 6 * gi}}},
			1: {Cells: []int{1}, MemoryMap: map[string]*checkpoint.MemoryTable{
				"memory": {TotalMemSize: 8 * gi, Allocatable: 8 * gi, Free: 8 * gi}}},
		},
		Entries: map[string]map[string][]checkpoint.MemoryBlock{"pod-1": {"app": {{NUMAAffinity: []int{0}, Type: "memory", Size: gi}}}},
	}
}
