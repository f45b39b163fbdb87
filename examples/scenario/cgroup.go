package scenario

import (
	"math"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
)

// Cgroup works out what the kubelet writes for a Burstable pod (250m/1Gi
// requested, 500m/2Gi limit) on a cgroup v2 node with 40Gi of memory and
// 5Gi of swap: the pod cgroup's name under the cgroupfs and systemd
// drivers, its cpu.weight under both shares-to-weight formulas, cpu.max,
// memory.max, MemoryQoS's memory.high, and the swap limit LimitedSwap
// grants.
func Cgroup(Options) (Report, error) {
	r := Report{Name: "cgroup", Title: "a Burstable pod (250m/1Gi requested, 500m/2Gi limit) on a cgroup v2 node with 40Gi of memory and 5Gi of swap"}
	q := resource.MustParse
	app := core.Container{Name: "app", Resources: core.ResourceRequirements{
		Requests: core.ResourceList{core.ResourceCPU: q("250m"), core.ResourceMemory: q("1Gi")},
		Limits:   core.ResourceList{core.ResourceCPU: q("500m"), core.ResourceMemory: q("2Gi")},
	}}
	p := core.Pod{UID: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", Containers: []core.Container{app}}
	class := cgroup.PodQOS(p, cgroup.QOSOptions{})
	root, err := cgroup.NodeAllocatableRoot("/", true)
	if err != nil {
		return r, err
	}
	name, err := cgroup.PodName(root, class, p.UID)
	if err != nil {
		return r, err
	}
	for _, d := range []cgroup.Driver{cgroup.DriverCgroupfs, cgroup.DriverSystemd} {
		path, err := d.Path(name)
		if err != nil {
			return r, err
		}
		r.fact("path", string(d), "", "%-8s %s", d, path)
	}
	memQoS := cgroup.DefaultMemoryQoSConfig()
	memQoS.ThrottlingFactor = 0.9 // memoryThrottlingFactor set (unset, no memory.high, by default since 1.37)
	rc := cgroup.ResourceConfigForPod(p, cgroup.PodConfigOptions{CPUPeriod: uint64(cgroup.QuotaPeriod), MemoryQoS: &memQoS})
	shares := *rc.CPUShares
	r.fact("values", "pod", string(class), "QoS %s: cpu.shares %d -> cpu.weight %d (kubelet, linear; %d under runc 1.3.2+), cpu.max %q, memory.max %d (%s)",
		class, shares, cgroup.WeightLinear.Weight(shares), cgroup.WeightQuadratic.Weight(shares),
		cgroup.FormatCPUMax(*rc.CPUQuota, int64(*rc.CPUPeriod)), *rc.Memory, gib(*rc.Memory))
	mv := memQoS.Container(class, app.Resources.Requests.Memory(), app.Resources.Limits.Memory(), 0)
	r.fact("values", "app", "", "MemoryQoS: memory.high %d (%s; memoryThrottlingFactor 0.9: request + 0.9 x (limit - request), whole 4KiB pages)", mv.High, aboutGi(mv.High))
	swap, err := cgroup.ContainerSwap(p, app, cgroup.SwapConfig{Behavior: cgroup.LimitedSwap, Version: cgroup.V2, Controller: true,
		NodeMemory: 40 << 30, NodeSwap: 5 << 30}, cgroup.QOSOptions{})
	if err != nil {
		return r, err
	}
	r.fact("swap", "app", swap.Reason.String(), "swap: %s, memory.swap.max %s%s", swap.Reason, swap.SwapMax, inBytes(swap.SwapMax))
	return r, nil
}

// aboutGi prints a byte count in GiB to two places: "about 1.9Gi".
func aboutGi(b int64) string {
	return "about " + strconv.FormatFloat(math.Round(float64(b)/(1<<30)*100)/100, 'f', -1, 64) + "Gi"
}

// inBytes returns " (128Mi)" for a cgroup file's byte count that a binary
// suffix shortens, and "" for anything else ("max", "0", an odd count).
func inBytes(v string) string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1024 {
		return ""
	}
	if q := gib(n); q != v {
		return " (" + q + ")"
	}
	return ""
}
