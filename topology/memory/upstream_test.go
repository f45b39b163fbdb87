package memory

import (
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
	"github.com/nodelife/nodelife/topology/checkpoint"
)

// upstreamCase is one row of testdata/upstream_policy_static.json, the
// testStaticPolicy tables of upstream's policy_static_test.go.
type upstreamCase struct {
	Test, Description    string
	Assignments          map[string]map[string][]checkpoint.MemoryBlock
	ExpectedAssignments  map[string]map[string][]checkpoint.MemoryBlock
	MachineState         map[string]*checkpoint.NUMANodeState
	ExpectedMachineState map[string]*checkpoint.NUMANodeState
	SystemReserved       map[string]map[string]uint64
	ExpectedError        *string
	MachineInfo          []struct {
		ID, Memory int64
		HugePages  []struct{ PageSize, NumPages uint64 }
	}
	Pod          *upstreamPod
	TopologyHint *struct {
		Nodes     []int
		Preferred bool
	}
	ExpectedTopologyHints map[string][]struct {
		Nodes     []int
		Preferred bool
	}
	InitContainersReusableMemory    map[string]map[string]map[string]uint64
	PodLevelResourcesEnabled        bool
	PodLevelResourceManagersEnabled bool
}

type upstreamContainer struct {
	Name             string
	Requests, Limits map[string]string
	Restart          string
}

type upstreamPod struct {
	UID          string
	Containers   []upstreamContainer
	Init         []upstreamContainer
	PodResources *upstreamContainer
}

func resources(c upstreamContainer) core.ResourceRequirements {
	list := func(m map[string]string) core.ResourceList {
		out := core.ResourceList{}
		for k, v := range m {
			out[core.ResourceName(k)] = resource.MustParse(v)
		}
		return out
	}
	return core.ResourceRequirements{Requests: list(c.Requests), Limits: list(c.Limits)}
}

func (u upstreamPod) pod() core.Pod {
	p := core.Pod{UID: u.UID}
	conv := func(cs []upstreamContainer) []core.Container {
		var out []core.Container
		for _, c := range cs {
			out = append(out, core.Container{Name: c.Name, Resources: resources(c), RestartPolicy: c.Restart})
		}
		return out
	}
	p.Containers, p.InitContainers = conv(u.Containers), conv(u.Init)
	if u.PodResources != nil {
		r := resources(*u.PodResources)
		p.Resources = &r
	}
	return p
}

func machineState(m map[string]*checkpoint.NUMANodeState) map[int]*checkpoint.NUMANodeState {
	if m == nil {
		return nil
	}
	out := map[int]*checkpoint.NUMANodeState{}
	for k, v := range m {
		id, _ := strconv.Atoi(k)
		if v.MemoryMap == nil {
			v.MemoryMap = map[string]*checkpoint.MemoryTable{}
		}
		out[id] = v
	}
	return out
}

// sameAssignments compares as upstream's areContainerMemoryAssignmentsEqual:
// the same containers with the same blocks, in any order.
func sameAssignments(a, b map[string]map[string][]checkpoint.MemoryBlock) bool {
	if len(a) != len(b) {
		return false
	}
	for pod, cs := range a {
		if len(cs) != len(b[pod]) {
			return false
		}
		for name, bs := range cs {
			want, ok := b[pod][name]
			if !ok || len(bs) != len(want) {
				return false
			}
			for _, x := range bs {
				found := false
				for _, y := range want {
					if x.Type == y.Type && x.Size == y.Size && reflect.DeepEqual(sortedInts(x.NUMAAffinity), sortedInts(y.NUMAAffinity)) {
						found = true
					}
				}
				if !found {
					return false
				}
			}
		}
	}
	return true
}

// TestUpstreamStaticPolicy runs upstream's testStaticPolicy tables
// (policy_static_test.go: TestStaticPolicyStart, TestStaticPolicyAllocate,
// ...WithInitContainers, ...WithRestartableInitContainers,
// TestStaticPolicyRemoveContainer, TestStaticPolicyGetTopologyHints,
// TestStaticPolicyGetPodTopologyHints) as upstream runs them: the state
// set by hand, one call, the error, assignments and machine state (as
// upstream's areMachineStatesEqual compares them) or hints. Rows that
// need the PodLevelResourceManagers gate are skipped (not modelled).
func TestUpstreamStaticPolicy(t *testing.T) {
	data, err := os.ReadFile("testdata/upstream_policy_static.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Cases []upstreamCase }
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	ran, skipped := 0, 0
	for _, tc := range file.Cases {
		if tc.PodLevelResourceManagersEnabled {
			skipped++
			continue
		}
		ran++
		t.Run(tc.Test+"/"+tc.Description, func(t *testing.T) { runUpstreamCase(t, tc) })
	}
	if ran != 45 || skipped != 6 {
		t.Fatalf("%d rows ran, %d skipped; want 45 and 6", ran, skipped)
	}
}

func runUpstreamCase(t *testing.T, tc upstreamCase) {
	var nodes []NUMANode
	for _, n := range tc.MachineInfo {
		node := NUMANode{ID: int(n.ID), Memory: uint64(n.Memory)}
		for _, hp := range n.HugePages {
			node.HugePages = append(node.HugePages, HugePages{PageSizeKiB: hp.PageSize, NumPages: hp.NumPages})
		}
		nodes = append(nodes, node)
	}
	reserved := map[int]map[string]uint64{}
	for k, v := range tc.SystemReserved {
		id, _ := strconv.Atoi(k)
		reserved[id] = v
	}
	cfg := Config{Nodes: nodes, Reserved: reserved}
	if tc.Test == "TestStaticPolicyAllocate" {
		cfg.QOS.DisablePodLevelResources = !tc.PodLevelResourcesEnabled
	}
	p, err := NewStatic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st := checkpoint.MemoryState{MachineState: machineState(tc.MachineState), Entries: tc.Assignments}
	hint := topology.Hint{Any: true}
	if h := tc.TopologyHint; h != nil {
		hint.Preferred = h.Preferred
		if h.Nodes != nil {
			hint.Any = false
			hint.Affinity, _ = topology.NewBitMask(h.Nodes...)
		}
	}
	wantErr := ""
	if tc.ExpectedError != nil {
		wantErr = *tc.ExpectedError
	}
	checkErr := func(err error) bool {
		t.Helper()
		switch {
		case wantErr == "" && err != nil:
			t.Fatalf("unexpected error %v", err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(wantErr, "[memorymanager] "))):
			t.Fatalf("error %v, want %q", err, wantErr)
		}
		return err != nil
	}
	var pod core.Pod
	if tc.Pod != nil {
		pod = tc.Pod.pod()
	}
	switch tc.Test {
	case "TestStaticPolicyStart":
		if checkErr(p.Start(st)) {
			return
		}
	case "TestStaticPolicyRemoveContainer":
		p.Adopt(st)
		p.RemoveContainer("pod1", "container1")
	case "TestStaticPolicyAllocate":
		p.Adopt(st)
		_, err := p.Allocate(pod, pod.Containers[0].Name, hint)
		if checkErr(err) {
			return
		}
	case "TestStaticPolicyAllocateWithInitContainers", "TestStaticPolicyAllocateWithRestartableInitContainers":
		p.Adopt(st)
		for uid, masks := range tc.InitContainersReusableMemory {
			p.reuse[uid] = map[topology.BitMask]map[string]uint64{}
			for m, byName := range masks {
				v, err := strconv.ParseUint(m, 2, 64)
				if err != nil {
					t.Fatal(err)
				}
				p.reuse[uid][topology.BitMask(v)] = byName
			}
		}
		for _, c := range pod.InitContainers {
			_, err := p.Allocate(pod, c.Name, hint)
			if checkErr(err) {
				return
			}
		}
		for _, c := range pod.Containers {
			_, err := p.Allocate(pod, c.Name, hint)
			checkErr(err)
		}
	case "TestStaticPolicyGetTopologyHints", "TestStaticPolicyGetPodTopologyHints":
		p.Adopt(st)
		var got topology.ProviderHints
		if tc.Test == "TestStaticPolicyGetTopologyHints" {
			got, _ = p.Hints(pod, pod.Containers[0].Name)
		} else {
			got, _ = p.PodHints(pod)
		}
		var want topology.ProviderHints
		if tc.ExpectedTopologyHints != nil {
			want = topology.ProviderHints{}
			for name, hs := range tc.ExpectedTopologyHints {
				want[name] = []topology.Hint{}
				for _, h := range hs {
					m, _ := topology.NewBitMask(h.Nodes...)
					want[name] = append(want[name], topology.Hint{Affinity: m, Preferred: h.Preferred})
				}
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("hints %v, want %v", got, want)
		}
		return
	default:
		t.Fatalf("unknown test %s", tc.Test)
	}
	now := p.State()
	want := tc.ExpectedAssignments
	if want == nil {
		want = map[string]map[string][]checkpoint.MemoryBlock{}
	}
	if !sameAssignments(now.Entries, want) {
		t.Fatalf("assignments %v, want %v", now.Entries, want)
	}
	if why := machinesDiffer(now.MachineState, machineState(tc.ExpectedMachineState)); why != "" {
		t.Fatalf("machine state differs: %s\n got %v", why, now.MachineState)
	}
}
