package core_test

import (
	"fmt"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// A node counts as ready only with a Ready condition that is True; one
// that never posted a Ready condition is not ready.
func ExampleNode_Ready() {
	lost := core.Node{Name: "node-a", Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.Unknown}}}
	fresh := core.Node{Name: "node-b"}
	fmt.Println(lost.Ready(), lost.ReadyStatus())
	fmt.Println(fresh.Ready(), fresh.ReadyStatus() == "")
	// Output:
	// false Unknown
	// false true
}

// The out-of-service taint counts by its key alone, whatever its value
// and effect.
func ExampleNode_HasTaintKey() {
	n := core.Node{Taints: []taints.Taint{{Key: taints.TaintNodeOutOfService, Value: "nodeshutdown", Effect: taints.TaintEffectNoSchedule}}}
	fmt.Println(n.HasTaintKey(taints.TaintNodeOutOfService), n.HasTaintKey(taints.TaintNodeUnreachable))
	// Output: true false
}

// A pod the kubelet evicted for node pressure is Failed with reason
// Evicted; a pod that failed on its own is not evicted.
func ExamplePod_Evicted() {
	evicted := core.Pod{Namespace: "shop", Name: "web-0", Phase: core.PodFailed, Reason: core.PodReasonEvicted}
	crashed := core.Pod{Namespace: "shop", Name: "web-1", Phase: core.PodFailed, Reason: "Error"}
	fmt.Println(evicted.Key(), evicted.Evicted())
	fmt.Println(crashed.Key(), crashed.Evicted())
	// Output:
	// shop/web-0 true
	// shop/web-1 false
}

// Only Succeeded and Failed are terminal; Unknown is not.
func ExamplePodPhase_Terminated() {
	for _, p := range []core.PodPhase{core.PodPending, core.PodRunning, core.PodSucceeded, core.PodFailed, core.PodUnknown} {
		fmt.Println(p, p.Terminated())
	}
	// Output:
	// Pending false
	// Running false
	// Succeeded true
	// Failed true
	// Unknown false
}
