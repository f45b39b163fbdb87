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
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager/state"
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
// with the ones v1.36.3's checkpoint structs marshal: V2 (what the kubelet
// writes by default) and V3 (with PodLevelResourceManagers).
func TestDifferentialCPUCheckpointWrite(t *testing.T) {
	c := compare(t, "checkpoint.MarshalCPU", "state.CPUManagerCheckpointV2/CPUManagerCheckpoint.MarshalCheckpoint",
		"CPU Manager states: none/static, a pool and up to 4 pods of up to 3 containers of up to 12 CPUs, names JSON escapes, pod-level entries for V3; formats V2 and V3; and the package's example states")
	r := rand.New(rand.NewSource(39))
	n := inputs(t)
	for i := 0; i < n; i++ {
		v3 := r.Intn(2) == 0
		s := randomCPUState(r, v3)
		if i < len(exampleCPUStates()) {
			s, v3 = exampleCPUStates()[i], len(exampleCPUStates()[i].PodEntries) > 0
		}
		entries := map[string]map[string]string{}
		for pod, ctrs := range s.Entries {
			entries[pod] = map[string]string{}
			for ctr, cpus := range ctrs {
				entries[pod][ctr] = cpus.String()
			}
		}
		var want []byte
		var err error
		format := checkpoint.CPUFormatV2
		if v3 {
			format = checkpoint.CPUFormatV3
			cp := &state.CPUManagerCheckpoint{PolicyName: s.PolicyName, DefaultCPUSet: s.DefaultCPUSet.String(), Entries: entries, PodEntries: state.PodCPUAssignments{}}
			for pod, cpus := range s.PodEntries {
				cp.PodEntries[pod] = state.PodEntry{CPUSet: toUpstream(cpus)}
			}
			want, err = cp.MarshalCheckpoint()
		} else {
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
	}
	return data
}

// TestDifferentialCPUCheckpointRead restores the same files with ReadCPU
// and with v1.36.3's state.NewCheckpointState, with the
// PodLevelResourceManagers gate off (the default) and on: files written
// as V1, V2 or V3, intact or damaged, read with the policy they name or
// another, a V1 file's containers known or not.
func TestDifferentialCPUCheckpointRead(t *testing.T) {
	for _, gate := range []bool{false, true} {
		t.Run(fmt.Sprintf("PodLevelResourceManagers=%v", gate), func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.PodLevelResourceManagers, gate)
			c := compare(t, fmt.Sprintf("checkpoint.ReadCPU (PodLevelResourceManagers=%v)", gate), "state.NewCheckpointState",
				"cpu_manager_state files written as V1, V2 or V3 by nodelife, intact or damaged (a byte, the checksum, checksum 0, policy, a CPU list, null entries, key case, cut short), read under the policy they name or the other, V1 containers known or not")
			dir := t.TempDir()
			name := "cpu_manager_state"
			r := rand.New(rand.NewSource(40))
			logger := logr.Discard()
			n := inputs(t) / 2
			accepted := 0
			defer func() { t.Logf("%d of %d files restored by both, the rest refused by both", accepted, n) }()
			for i := 0; i < n; i++ {
				s := randomCPUState(r, true)
				var data []byte
				var err error
				known := map[string]checkpoint.ContainerRef{}
				cm := containermap.NewContainerMap()
				switch r.Intn(3) {
				case 0: // V1, by container ID
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
				default:
					data, err = checkpoint.MarshalCPU(s, checkpoint.CPUFormatV3)
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
