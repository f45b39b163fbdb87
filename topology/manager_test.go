package topology_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
)

// recorder is a fake provider that answers from tables and records every
// call in one shared log.
type recorder struct {
	name     string
	log      *[]string
	hints    map[string]topology.ProviderHints // by container
	podHints topology.ProviderHints
	fail     map[string]error // Allocate's error by container
}

func (r *recorder) provider() topology.Provider {
	return topology.Provider{
		Name: r.name,
		Hints: func(pod core.Pod, c string) (topology.ProviderHints, error) {
			*r.log = append(*r.log, fmt.Sprintf("%s hints %s/%s", r.name, pod.UID, c))
			return r.hints[c], nil
		},
		PodHints: func(pod core.Pod) (topology.ProviderHints, error) {
			*r.log = append(*r.log, fmt.Sprintf("%s podhints %s", r.name, pod.UID))
			return r.podHints, nil
		},
		Allocate: func(pod core.Pod, c string, h topology.Hint) error {
			*r.log = append(*r.log, fmt.Sprintf("%s allocate %s/%s %s", r.name, pod.UID, c, h.Bits()))
			return r.fail[c]
		},
	}
}

type typedError struct{}

func (typedError) Error() string { return "only whole cores" }
func (typedError) Type() string  { return "SMTAlignmentError" }

func mask(t *testing.T, nodes ...int) topology.BitMask {
	t.Helper()
	m, err := topology.NewBitMask(nodes...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// twoContainerPod has init container "init" and app container "app".
var twoContainerPod = core.Pod{UID: "p", InitContainers: []core.Container{{Name: "init"}}, Containers: []core.Container{{Name: "app"}}}

// TestManagerScopes follows the kubelet's topology manager scopes
// (topologymanager/scope_container.go, scope_pod.go, scope_none.go of
// v1.36.3) call by call on a two-node machine with two providers.
func TestManagerScopes(t *testing.T) {
	n0, n1, both := mask(t, 0), mask(t, 1), mask(t, 0, 1)
	cpuHints := map[string]topology.ProviderHints{
		"init": {"cpu": {{Affinity: n0, Preferred: true}, {Affinity: n1, Preferred: true}, {Affinity: both}}},
		"app":  {"cpu": {{Affinity: n1, Preferred: true}, {Affinity: both}}},
	}
	memHints := map[string]topology.ProviderHints{
		"init": {"memory": {{Affinity: n1, Preferred: true}, {Affinity: both}}},
		"app":  {"memory": {{Affinity: n0, Preferred: true}, {Affinity: both}}},
	}
	podCPU := topology.ProviderHints{"cpu": {{Affinity: n1, Preferred: true}, {Affinity: both}}}
	podMem := topology.ProviderHints{"memory": {{Affinity: n0, Preferred: true}, {Affinity: n1, Preferred: true}, {Affinity: both}}}
	tests := []struct {
		name    string
		policy  topology.Policy
		scope   topology.Scope
		fail    map[string]error // the memory provider's
		admit   bool
		reason  string
		message string
		refused string        // the container named on a refusal
		hint    topology.Hint // and its hint
		log     []string
	}{{
		// Container scope: init merges to node 1 (cpu 0 or 1, memory 1),
		// app's hints share no preferred node (cpu 1, memory 0): under
		// best-effort the narrowest non-preferred merge of the size of
		// the narrowest hints (1 node): cpu {both} AND memory {0} = {0},
		// cpu {1} AND memory {both} = {1}; the lower, node 0.
		name: "container/best-effort", policy: topology.PolicyBestEffort, scope: topology.ScopeContainer, admit: true,
		log: []string{
			"cpu hints p/init", "memory hints p/init", "cpu allocate p/init {10 (preferred)}", "memory allocate p/init {10 (preferred)}",
			"cpu hints p/app", "memory hints p/app", "cpu allocate p/app {01}", "memory allocate p/app {01}",
		},
	}, {
		// The empty scope is container scope.
		name: "default scope/best-effort", policy: topology.PolicyBestEffort, admit: true,
		log: []string{
			"cpu hints p/init", "memory hints p/init", "cpu allocate p/init {10 (preferred)}", "memory allocate p/init {10 (preferred)}",
			"cpu hints p/app", "memory hints p/app", "cpu allocate p/app {01}", "memory allocate p/app {01}",
		},
	}, {
		// restricted refuses app's non-preferred merge: init stays
		// allocated, as upstream leaves it.
		name: "container/restricted", policy: topology.PolicyRestricted, scope: topology.ScopeContainer,
		reason: "TopologyAffinityError", message: "Resources cannot be allocated with Topology locality",
		refused: "app", hint: topology.Hint{Affinity: n0},
		log: []string{
			"cpu hints p/init", "memory hints p/init", "cpu allocate p/init {10 (preferred)}", "memory allocate p/init {10 (preferred)}",
			"cpu hints p/app", "memory hints p/app",
		},
	}, {
		// Pod scope: one merge of the pod hints (node 1), every container
		// allocated on it; no container hints asked.
		name: "pod/single-numa-node", policy: topology.PolicySingleNUMANode, scope: topology.ScopePod, admit: true,
		log: []string{
			"cpu podhints p", "memory podhints p",
			"cpu allocate p/init {10 (preferred)}", "memory allocate p/init {10 (preferred)}",
			"cpu allocate p/app {10 (preferred)}", "memory allocate p/app {10 (preferred)}",
		},
	}, {
		// none: no hints, every container allocated without affinity;
		// the scope is ignored.
		name: "none", policy: topology.PolicyNone, scope: "bogus", admit: true,
		log: []string{"cpu allocate p/init {00}", "memory allocate p/init {00}", "cpu allocate p/app {00}", "memory allocate p/app {00}"},
	}, {
		// An allocation error with a Type: its reason and text.
		name: "typed error", policy: topology.PolicyNone, fail: map[string]error{"app": typedError{}},
		reason: "SMTAlignmentError", message: "only whole cores", refused: "app",
		log: []string{"cpu allocate p/init {00}", "memory allocate p/init {00}", "cpu allocate p/app {00}", "memory allocate p/app {00}"},
	}, {
		// Any other error: UnexpectedAdmissionError, upstream's sentence;
		// the providers after the failing one are not called.
		name: "plain error", policy: topology.PolicyBestEffort, scope: topology.ScopePod, fail: map[string]error{"init": errors.New("boom")},
		reason: "UnexpectedAdmissionError", message: "Allocate failed due to boom, which is unexpected",
		refused: "init", hint: topology.Hint{Affinity: n1, Preferred: true},
		log: []string{"cpu podhints p", "memory podhints p", "cpu allocate p/init {10 (preferred)}", "memory allocate p/init {10 (preferred)}"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			c := &recorder{name: "cpu", log: &log, hints: cpuHints, podHints: podCPU}
			m := &recorder{name: "memory", log: &log, hints: memHints, podHints: podMem, fail: tc.fail}
			mgr, err := topology.NewManager(topology.ManagerConfig{Policy: tc.policy, Scope: tc.scope, NUMA: topology.NUMAInfo{Nodes: []int{0, 1}},
				Providers: []topology.Provider{c.provider(), m.provider()}})
			if err != nil {
				t.Fatal(err)
			}
			a, err := mgr.Admit(twoContainerPod)
			if err != nil {
				t.Fatal(err)
			}
			if a.Admit != tc.admit || a.Reason != tc.reason || a.Message != tc.message {
				t.Errorf("Admit = %v %q %q, want %v %q %q", a.Admit, a.Reason, a.Message, tc.admit, tc.reason, tc.message)
			}
			if a.Refused != tc.refused || a.Hint != tc.hint {
				t.Errorf("refused %q on %v, want %q on %v", a.Refused, a.Hint, tc.refused, tc.hint)
			}
			if got, want := strings.Join(log, "\n"), strings.Join(tc.log, "\n"); got != want {
				t.Errorf("calls:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestManagerAffinity checks the hints kept per container and what
// Admission lists on a refusal.
func TestManagerAffinity(t *testing.T) {
	var log []string
	n1 := mask(t, 1)
	r := &recorder{name: "cpu", log: &log, hints: map[string]topology.ProviderHints{
		"init": {"cpu": {{Affinity: n1, Preferred: true}}},
		"app":  {"cpu": {{Affinity: n1, Preferred: true}}},
	}, fail: map[string]error{"app": errors.New("no room")}}
	m, err := topology.NewManager(topology.ManagerConfig{Policy: topology.PolicySingleNUMANode, NUMA: topology.NUMAInfo{Nodes: []int{0, 1}}, Providers: []topology.Provider{r.provider()}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := m.Admit(twoContainerPod)
	if err != nil {
		t.Fatal(err)
	}
	want := topology.Hint{Affinity: n1, Preferred: true}
	if a.Admit || len(a.Containers) != 1 || a.Containers[0] != (topology.ContainerHint{Container: "init", Hint: want}) {
		t.Fatalf("Admission = %+v, want a refusal listing init on node 1", a)
	}
	// The failed container's hint is kept too: upstream stores it before
	// allocating.
	for _, c := range []string{"init", "app"} {
		if h, ok := m.Affinity("p", c); !ok || h != want {
			t.Errorf("Affinity(p, %s) = %v %v, want %v", c, h, ok, want)
		}
	}
	m.RemoveContainer("p", "init")
	if _, ok := m.Affinity("p", "init"); ok {
		t.Error("init's hint kept after RemoveContainer")
	}
	if _, ok := m.Affinity("p", "app"); !ok {
		t.Error("app's hint lost with init's")
	}
	m.RemoveContainer("p", "app")
	m.RemoveContainer("p", "app") // twice: nothing to do
	if _, ok := m.Affinity("p", "app"); ok {
		t.Error("app's hint kept after RemoveContainer")
	}
}

// TestManagerErrors checks that configuration problems are all named at
// once and that a provider's hint error is returned, not a refusal.
func TestManagerErrors(t *testing.T) {
	nine := topology.NUMAInfo{Nodes: []int{0, 1, 2, 3, 4, 5, 6, 7, 8}}
	_, err := topology.NewManager(topology.ManagerConfig{Policy: topology.PolicyRestricted, Scope: "node", NUMA: nine,
		Providers: []topology.Provider{{Name: "gpu"}}})
	for _, want := range []string{`scope "node" is not container or pod`, "9 NUMA nodes, more than MaxAllowableNUMANodes 8", `provider 0 ("gpu") lacks`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewManager error %v, want it to name %q", err, want)
		}
	}
	if !errors.Is(err, topology.ErrInvalid) {
		t.Errorf("error %v does not wrap ErrInvalid", err)
	}
	if _, err := topology.NewManager(topology.ManagerConfig{Policy: "tight"}); err == nil || !strings.Contains(err.Error(), `policy "tight"`) {
		t.Errorf("unknown policy: %v", err)
	}
	// none ignores scope, options and the NUMA nodes, as the kubelet does.
	if _, err := topology.NewManager(topology.ManagerConfig{Policy: topology.PolicyNone, Scope: "node", NUMA: nine}); err != nil {
		t.Errorf("none: %v", err)
	}
	var zero topology.Manager
	if _, err := zero.Admit(twoContainerPod); !errors.Is(err, topology.ErrInvalid) {
		t.Errorf("zero Manager: %v, want ErrInvalid", err)
	}
	bad := errors.New("unknown container")
	p := topology.Provider{Name: "cpu",
		Hints:    func(core.Pod, string) (topology.ProviderHints, error) { return nil, bad },
		PodHints: func(core.Pod) (topology.ProviderHints, error) { return nil, nil },
		Allocate: func(core.Pod, string, topology.Hint) error { t.Error("allocated after a hint error"); return nil },
	}
	m, _ := topology.NewManager(topology.ManagerConfig{Policy: topology.PolicyBestEffort, NUMA: topology.NUMAInfo{Nodes: []int{0}}, Providers: []topology.Provider{p}})
	if _, err := m.Admit(twoContainerPod); !errors.Is(err, bad) || !strings.Contains(err.Error(), `provider "cpu"`) {
		t.Errorf("Admit error %v, want the provider's, naming it", err)
	}
}
