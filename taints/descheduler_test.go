package taints

import (
	"testing"
)

// The descheduler's table (kubernetes-sigs/descheduler at 7d2b28bf2,
// pkg/framework/plugins/removepodsviolatingnodetaints/node_taint_test.go,
// TestDeletePodsViolatingNodeTaints), its taint part: the rows whose count
// of evicted pods follows from the taints, tolerations and the plugin's
// taint arguments alone, each named as there, its pods and nodes built as
// its helpers build them. The count is the pods, on the nodes the row
// gives the plugin, that violate a counted taint. The rows left out turn
// on the evictor (eviction limits per node, namespace and in all;
// critical, mirror and local-storage pods; whether a pod fits on another
// node).
func TestDeschedulerDeletePodsViolatingNodeTaints(t *testing.T) {
	const src = "descheduler node_taint_test.go TestDeletePodsViolatingNodeTaints"
	noSchedule := func(key, value string) Taint { return Taint{Key: key, Value: value, Effect: TaintEffectNoSchedule} }
	// createNoScheduleTaint ignores its key and value arguments: every
	// taint it makes is testTaint<index>=test<index>, so withBothTaints1
	// puts testTaint1=test1 on the node twice (the real test, run, says
	// so: p15 alone is evicted in the last row).
	testTaint1 := noSchedule("testTaint1", "test1") // withTestTaint1
	testingTaint1 := testTaint1                     // withTestingTaint1, as built
	preferTestTaint1 := Taint{Key: "testTaint1", Value: "test1", Effect: TaintEffectPreferNoSchedule}
	// addTolerationToPod replaces the pod's tolerations with one, operator
	// empty (Equal).
	tol := func(key, value string, effect Effect) []Toleration {
		return []Toleration{{Key: key, Value: value, Effect: effect}}
	}
	tol1 := tol("testTaint1", "test1", TaintEffectNoSchedule) // withTestTaintToleration1
	tolX := tol("testTaintX1", "testX1", TaintEffectNoSchedule)
	type pod struct {
		node string
		tols []Toleration
	}
	rows := []struct {
		name    string
		pods    []pod
		nodes   map[string][]Taint
		filter  ViolationFilter
		evicted int
	}{
		{name: "Pods not tolerating node taint should be evicted",
			pods: []pod{{"n1", tol1}, {"n1", nil}, {"n1", tol1}}, nodes: map[string][]Taint{"n1": {testTaint1}}, evicted: 1},
		{name: "Pods with tolerations but not tolerating node taint should be evicted",
			pods: []pod{{"n1", tol1}, {"n1", tol1}, {"n1", tolX}}, nodes: map[string][]Taint{"n1": {testTaint1}}, evicted: 1},
		{name: "Pods not tolerating PreferNoSchedule node taint should not be evicted when not enabled",
			pods:  []pod{{"n5", tol("testTaint0", "test0", TaintEffectPreferNoSchedule)}},
			nodes: map[string][]Taint{"n5": {preferTestTaint1}}, evicted: 0},
		{name: "Pods not tolerating PreferNoSchedule node taint should be evicted when enabled",
			pods:  []pod{{"n5", tol("testTaint0", "test0", TaintEffectPreferNoSchedule)}},
			nodes: map[string][]Taint{"n5": {preferTestTaint1}}, filter: ViolationFilter{IncludePreferNoSchedule: true}, evicted: 1},
		{name: "Pods not tolerating excluded node taints (by key) should not be evicted",
			pods: []pod{{"n1", nil}}, nodes: map[string][]Taint{"n1": {testTaint1}},
			filter: ViolationFilter{ExcludedTaints: []string{"excludedTaint1", "testTaint1"}}, evicted: 0},
		{name: "Pods not tolerating excluded node taints (by key and value) should not be evicted",
			pods: []pod{{"n1", nil}}, nodes: map[string][]Taint{"n1": {testTaint1}},
			filter: ViolationFilter{ExcludedTaints: []string{"testTaint1=test1"}}, evicted: 0},
		{name: "The excluded taint matches the key of node1's taint, but does not match the value",
			pods: []pod{{"n1", nil}}, nodes: map[string][]Taint{"n1": {testTaint1}},
			filter: ViolationFilter{ExcludedTaints: []string{"testTaint1=test2"}}, evicted: 1},
		// The row's pod is on n1, the only node it gives the plugin n7.
		{name: "Pods tolerating included taints should not get evicted even with other taints present",
			pods: []pod{{"n1", tol1}}, nodes: map[string][]Taint{"n7": {testTaint1, testingTaint1}},
			filter: ViolationFilter{IncludedTaints: []string{"testTaint1=test1"}}, evicted: 0},
		{name: "Pods not tolerating not included taints should not get evicted",
			pods: []pod{{"n1", tol1}, {"n1", nil}, {"n1", tolX}}, nodes: map[string][]Taint{"n1": {testTaint1}},
			filter: ViolationFilter{IncludedTaints: []string{"testTaint2=test2"}}, evicted: 0},
		{name: "Pods tolerating includedTaint should not get evicted. Pods not tolerating includedTaints should get evicted",
			pods: []pod{{"n1", tol1}, {"n1", nil}, {"n1", tol1}}, nodes: map[string][]Taint{"n1": {testTaint1}},
			filter: ViolationFilter{IncludedTaints: []string{"testTaint1=test1"}}, evicted: 1},
		// addTolerationToPod replaces: p15 tolerates testingTaint1 only.
		{name: "Pods not tolerating all taints are evicted when includedTaints is empty",
			pods:  []pod{{"n7", tol1}, {"n7", tol("testingTaint1", "testing1", TaintEffectNoSchedule)}},
			nodes: map[string][]Taint{"n7": {testTaint1, testingTaint1}}, evicted: 1},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			evicted := 0
			for _, p := range r.pods {
				nodeTaints, ok := r.nodes[p.node]
				if !ok {
					continue
				}
				if _, violated := r.filter.Violation(p.tols, nodeTaints); violated {
					evicted++
				}
			}
			if evicted != r.evicted {
				t.Errorf("%s: %d pods evicted, want %d", src, evicted, r.evicted)
			}
		})
	}
}

func TestViolationFilterCounts(t *testing.T) {
	for _, r := range []struct {
		f    ViolationFilter
		t    Taint
		want bool
	}{
		{ViolationFilter{}, Taint{Key: "k", Effect: TaintEffectNoExecute}, false},
		{ViolationFilter{IncludePreferNoSchedule: true}, Taint{Key: "k", Effect: TaintEffectNoExecute}, false},
		{ViolationFilter{}, Taint{Key: "k", Effect: TaintEffectPreferNoSchedule}, false},
		{ViolationFilter{IncludedTaints: []string{}}, Taint{Key: "k", Effect: TaintEffectNoSchedule}, false}, // empty, not nil: none
		{ViolationFilter{IncludedTaints: []string{"k"}}, Taint{Key: "k", Value: "v", Effect: TaintEffectNoSchedule}, true},
		{ViolationFilter{IncludedTaints: []string{"k="}}, Taint{Key: "k", Effect: TaintEffectNoSchedule}, false}, // no value: key only
		{ViolationFilter{ExcludedTaints: []string{"k=v"}}, Taint{Key: "k", Value: "v", Effect: TaintEffectNoSchedule}, false},
		{ViolationFilter{ExcludedTaints: []string{"k=v"}}, Taint{Key: "k", Value: "w", Effect: TaintEffectNoSchedule}, true},
		{ViolationFilter{ExcludedTaints: []string{"k"}, IncludedTaints: []string{"k"}}, Taint{Key: "k", Effect: TaintEffectNoSchedule}, false},
	} {
		if got := r.f.Counts(r.t); got != r.want {
			t.Errorf("%+v counts %v: %v, want %v", r.f, r.t, got, r.want)
		}
	}
}
