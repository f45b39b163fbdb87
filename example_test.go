package nodelife_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife"
	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/release"
)

// One value runs every package as a release. Here three of them: the
// controller's grace period and lease circuit breaker (on since v1.37),
// the kubelet's memory.available on a node with 4Gi available and 3Gi of
// huge pages (net of them since v1.37), and the QoS class of a pod whose
// two containers ask 1 and 2 cpus limited to 2 and 1: the sums match
// (v1.36, Guaranteed), each container does not (v1.37, Burstable).
func ExampleProfileFor() {
	four, one := uint64(4<<30), uint64(1<<30)
	node := pressure.NodeStats{Memory: &pressure.MemoryStats{AvailableBytes: &four, WorkingSetBytes: &one}, HugePagesCapacityBytes: 3 << 30}
	ctr := func(req, lim string) core.Container {
		mem := resource.MustParse("1Gi")
		return core.Container{Resources: core.ResourceRequirements{
			Requests: core.ResourceList{core.ResourceCPU: resource.MustParse(req), core.ResourceMemory: mem},
			Limits:   core.ResourceList{core.ResourceCPU: resource.MustParse(lim), core.ResourceMemory: mem}}}
	}
	pod := core.Pod{Containers: []core.Container{ctr("1", "2"), ctr("2", "1")}}

	for _, v := range []release.Version{release.V1_36, release.V1_37} {
		p := nodelife.ProfileFor(v)
		avail := p.Pressure.Observe(node)[pressure.SignalMemoryAvailable].Available
		fmt.Printf("%v: grace %v, lease circuit breaker %v, memory.available %v, QoS %s\n", p.Release,
			p.NodeLifecycle.NodeMonitorGracePeriod, p.NodeLifecycle.LeaseCircuitBreaker,
			resource.NewQuantity(avail, resource.BinarySI), cgroup.ComputeQOS(pod, p.QOS))
	}
	// Output:
	// 1.36: grace 50s, lease circuit breaker false, memory.available 4Gi, QoS Guaranteed
	// 1.37: grace 50s, lease circuit breaker true, memory.available 1Gi, QoS Burstable
}
