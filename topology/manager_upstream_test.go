package topology_test

import (
	"testing"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/topology"
)

// TestUpstreamAdmit ports TestAdmit of k8s.io/kubernetes v1.36.3
// pkg/kubelet/cm/topologymanager/topology_manager_test.go: a two-node
// machine, one pod of one container, a mock provider returning the same
// hints for the container and the pod (none: no provider; "no hints": a
// provider without preference) and allocating nothing; each row's
// expected admission under both scopes, and TopologyAffinityError on a
// refusal, as upstream states them. The rows' QoS classes are kept as
// names: the mock provider, like upstream's, does not read them.
func TestUpstreamAdmit(t *testing.T) {
	n0, n1, both := topology.BitMask(1), topology.BitMask(2), topology.BitMask(3)
	preferred0 := []topology.Hint{{Affinity: n0, Preferred: true}, {Affinity: both}}
	preferredBoth := []topology.Hint{{Affinity: n0, Preferred: true}, {Affinity: n1, Preferred: true}, {Affinity: both}}
	nonePreferred := []topology.Hint{{Affinity: both}}
	noHints := []topology.Hint(nil) // mockHintProvider{}: no hints map at all
	rows := []struct {
		name      string
		policy    topology.Policy
		providers int // 0: no provider (the None rows), 1: the mock
		hints     []topology.Hint
		want      bool
	}{
		{"QOSClass set as BestEffort. None Policy. No Hints.", topology.PolicyNone, 0, nil, true},
		{"QOSClass set as Guaranteed. None Policy. No Hints.", topology.PolicyNone, 0, nil, true},
		{"QOSClass set as BestEffort. single-numa-node Policy. No Hints.", topology.PolicySingleNUMANode, 1, noHints, true},
		{"QOSClass set as BestEffort. Restricted Policy. No Hints.", topology.PolicyRestricted, 1, noHints, true},
		{"QOSClass set as Guaranteed. BestEffort Policy. Preferred Affinity.", topology.PolicyBestEffort, 1, preferred0, true},
		{"QOSClass set as Guaranteed. BestEffort Policy. More than one Preferred Affinity.", topology.PolicyBestEffort, 1, preferredBoth, true},
		{"QOSClass set as Burstable. BestEffort Policy. More than one Preferred Affinity.", topology.PolicyBestEffort, 1, preferredBoth, true},
		{"QOSClass set as Guaranteed. BestEffort Policy. No Preferred Affinity.", topology.PolicyBestEffort, 1, nonePreferred, true},
		{"QOSClass set as Guaranteed. Restricted Policy. Preferred Affinity.", topology.PolicyRestricted, 1, preferred0, true},
		{"QOSClass set as Burstable. Restricted Policy. Preferred Affinity.", topology.PolicyRestricted, 1, preferred0, true},
		{"QOSClass set as Guaranteed. Restricted Policy. More than one Preferred affinity.", topology.PolicyRestricted, 1, preferredBoth, true},
		{"QOSClass set as Burstable. Restricted Policy. More than one Preferred affinity.", topology.PolicyRestricted, 1, preferredBoth, true},
		{"QOSClass set as Guaranteed. Restricted Policy. No Preferred affinity.", topology.PolicyRestricted, 1, nonePreferred, false},
		{"QOSClass set as Burstable. Restricted Policy. No Preferred affinity.", topology.PolicyRestricted, 1, nonePreferred, false},
	}
	pod := core.Pod{UID: "pod", Containers: []core.Container{{Name: ""}}}
	for _, row := range rows {
		hints := topology.ProviderHints{"resource": row.hints}
		if row.hints == nil {
			hints = nil
		}
		mock := topology.Provider{Name: "mock",
			Hints:    func(core.Pod, string) (topology.ProviderHints, error) { return hints, nil },
			PodHints: func(core.Pod) (topology.ProviderHints, error) { return hints, nil },
			Allocate: func(core.Pod, string, topology.Hint) error { return nil },
		}
		for _, scope := range []topology.Scope{topology.ScopeContainer, topology.ScopePod} {
			cfg := topology.ManagerConfig{Policy: row.policy, Scope: scope,
				NUMA: topology.NUMAInfo{Nodes: []int{0, 1}, Distances: map[int][]uint64{0: {10, 11}, 1: {11, 10}}}}
			if row.providers == 1 {
				cfg.Providers = []topology.Provider{mock}
			}
			m, err := topology.NewManager(cfg)
			if err != nil {
				t.Fatalf("%s: %v", row.name, err)
			}
			a, err := m.Admit(pod)
			if err != nil {
				t.Fatalf("%s (%s scope): %v", row.name, scope, err)
			}
			if a.Admit != row.want || (!a.Admit && a.Reason != "TopologyAffinityError") {
				t.Errorf("%s (%s scope): admit %v reason %q, want %v", row.name, scope, a.Admit, a.Reason, row.want)
			}
		}
	}
}
