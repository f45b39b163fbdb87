package admission_test

import (
	"errors"
	"testing"

	"github.com/nodelife/nodelife/admission"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
)

// TestTopologyHandler checks what reaches the providers (the pod's UID and
// containers, init containers first) and the two refusals: the manager's
// own result, and an error of a provider's hints.
func TestTopologyHandler(t *testing.T) {
	var seen []string
	var hintsErr error
	p := topology.Provider{Name: "dev",
		Hints: func(pod core.Pod, c string) (topology.ProviderHints, error) {
			seen = append(seen, pod.UID+"/"+c)
			return topology.ProviderHints{"example.com/gpu": {}}, hintsErr // no affinity can satisfy it
		},
		PodHints: func(core.Pod) (topology.ProviderHints, error) { return nil, nil },
		Allocate: func(core.Pod, string, topology.Hint) error { return nil },
	}
	m, err := topology.NewManager(topology.ManagerConfig{Policy: topology.PolicyBestEffort, NUMA: topology.NUMAInfo{Nodes: []int{0, 1}}, Providers: []topology.Provider{p}})
	if err != nil {
		t.Fatal(err)
	}
	h := admission.TopologyHandler(m)
	pod := &core.Pod{Name: "p", UID: "u", InitContainers: []core.Container{{Name: "i"}}, Containers: []core.Container{{Name: "a"}, {Name: "b"}}}
	// best-effort admits what it cannot align.
	if r := h.Admit(pod); !r.Admit || len(seen) != 3 || seen[0] != "u/i" || seen[1] != "u/a" || seen[2] != "u/b" {
		t.Fatalf("best-effort: %+v after hints for %v, want admitted after u/i, u/a, u/b", r, seen)
	}
	hintsErr = errors.New("unknown device plugin")
	r := h.Admit(pod)
	if r.Admit || r.Reason != "UnexpectedAdmissionError" || r.Message != `topology: provider "dev": unknown device plugin` {
		t.Errorf("hints error: %+v", r)
	}
}
