package cgroup_test

import (
	"errors"
	"fmt"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/release"
	"k8s.io/apimachinery/pkg/api/resource"
)

func list(kv ...string) core.ResourceList {
	out := core.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[core.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

// A 100m request, a 250m limit: what the kubelet writes on v1 and v2.
func ExampleMilliCPUToShares() {
	shares := cgroup.MilliCPUToShares(100)
	fmt.Println("cpu.shares:", shares)
	fmt.Println("cpu.weight (kubelet, linear):", cgroup.WeightLinear.Weight(shares))
	fmt.Println("cpu.weight (runc 1.4, quadratic):", cgroup.WeightQuadratic.Weight(shares))
	fmt.Println("read back:", cgroup.SharesToMilliCPU(shares), "m")
	// Output:
	// cpu.shares: 102
	// cpu.weight (kubelet, linear): 4
	// cpu.weight (runc 1.4, quadratic): 17
	// read back: 100 m
}

func ExampleMilliCPUToQuota() {
	quota := cgroup.MilliCPUToQuota(15, cgroup.QuotaPeriod)
	fmt.Println("cpu.max:", cgroup.FormatCPUMax(quota, cgroup.QuotaPeriod))
	fmt.Println("under systemd:", cgroup.SystemdRoundedQuota(quota, cgroup.QuotaPeriod))
	fmt.Println("no limit:", cgroup.FormatCPUMax(cgroup.NoQuota, cgroup.QuotaPeriod))
	// Output:
	// cpu.max: 1500 100000
	// under systemd: 2000
	// no limit: max 100000
}

// One CPU of shares under both formulas (kubernetes#131216).
func ExampleWeightFormula_Weight() {
	for _, f := range []cgroup.WeightFormula{cgroup.WeightLinear, cgroup.WeightQuadratic} {
		fmt.Printf("%s: 1024 -> %d, 2000 -> %d\n", f, f.Weight(1024), f.Weight(2000))
	}
	// Output:
	// linear: 1024 -> 39, 2000 -> 77
	// quadratic: 1024 -> 100, 2000 -> 170
}

func ExampleWeightFormula_Shares() {
	fmt.Println(cgroup.WeightLinear.Shares(39), cgroup.WeightQuadratic.Shares(100))
	_, err := cgroup.WeightLinear.SharesChecked(0)
	fmt.Println(err)
	// Output:
	// 998 1012
	// cgroup: value out of range: cpu.weight 0 is outside 1..10000
}

// A kubelet that reads cpu.weight back must not see a resize that never
// happened.
func ExampleSharesEqualAfterRoundTrip() {
	readback := cgroup.WeightLinear.Shares(cgroup.WeightLinear.Weight(1024))
	fmt.Println(readback, cgroup.SharesEqualAfterRoundTrip(cgroup.WeightLinear, 1024, readback))
	// Output: 998 true
}

func ExamplePodName() {
	root, _ := cgroup.NodeAllocatableRoot("/", true)
	pod, _ := cgroup.PodName(root, core.PodQOSBurstable, "6c1a4e95-6bb6-11e6-bc26-28d2444e470d")
	fs, _ := cgroup.DriverCgroupfs.Path(pod)
	sd, _ := cgroup.DriverSystemd.Path(pod)
	fmt.Println(fs)
	fmt.Println(sd)
	// Output:
	// /kubepods/burstable/pod6c1a4e95-6bb6-11e6-bc26-28d2444e470d
	// /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice
}

func ExampleName_Systemd() {
	n := cgroup.Name{"test", "a", "b"}
	path, _ := n.Systemd()
	parent, unit, _ := n.SystemdParentAndUnit()
	fmt.Println(path)
	fmt.Println(parent, unit)
	_, err := cgroup.Name{"kubepods", "bad_name"}.Systemd()
	fmt.Println(err)
	// Output:
	// /test.slice/test-a.slice/test-a-b.slice
	// test-a.slice test-a-b.slice
	// cgroup: invalid cgroup name: component "bad_name" contains "_", which the systemd form reserves for escaping "-"
}

func ExampleExpandSlice() {
	p, _ := cgroup.ExpandSlice("kubepods-besteffort.slice")
	fmt.Println(p)
	_, err := cgroup.ExpandSlice("kubepods--x.slice")
	fmt.Println(err)
	// Output:
	// /kubepods.slice/kubepods-besteffort.slice
	// cgroup: invalid cgroup name: slice "kubepods--x.slice" has an empty component
}

func ExampleParseSystemd() {
	n, _ := cgroup.ParseSystemd("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12_34.slice")
	fmt.Printf("%q %s\n", []string(n), n.Cgroupfs())
	// Output: ["kubepods" "burstable" "pod12-34"] /kubepods/burstable/pod12-34
}

// An agent inside a container finds its pod from /proc/self/cgroup.
func ExampleParsePodCgroup() {
	lines, _ := cgroup.ParseProcCgroup("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod0f1e_2d3c.slice/crio-9a8b.scope\n")
	path, _ := cgroup.UnifiedPath(lines)
	pc, _ := cgroup.ParsePodCgroup(path)
	fmt.Println(pc.Driver, pc.QOSClass, pc.PodUID, pc.ContainerID)
	// Output: systemd BestEffort 0f1e-2d3c 9a8b
}

func ExampleDetect() {
	statfs := func(path string) (int64, error) {
		if path == cgroup.RootMountpoint {
			return cgroup.Cgroup2SuperMagic, nil
		}
		return 0, errors.New("not mounted")
	}
	v, err := cgroup.Detect(statfs)
	fmt.Println(v, v.Unified(), cgroup.FsTypeName(cgroup.Cgroup2SuperMagic), err)
	// Output: v2 true cgroup2fs <nil>
}

func ExampleCheckRequirements() {
	r := cgroup.CheckRequirements(cgroup.Host{
		Version:        cgroup.V2,
		Kernel:         "5.4.0-150-generic",
		RuntimeVersion: "containerd 1.7.2",
		KubeletDriver:  cgroup.DriverSystemd,
		RuntimeDriver:  cgroup.DriverCgroupfs,
		MemoryQoS:      true,
	})
	for _, c := range r.Checks {
		fmt.Printf("%-15s %-5s %s\n", c.Requirement, c.Status, c.Message)
	}
	// Output:
	// CgroupV2        Met   the host runs cgroup v2
	// Kernel          Unmet kernel 5.4.0-150-generic is older than 5.8.0, which cgroup v2 needs
	// Runtime         Met   containerd 1.7.2 is 1.4.0 or newer
	// KubeletSystemd  Met   the kubelet uses the systemd cgroup driver
	// RuntimeSystemd  Unmet the runtime uses the "cgroupfs" cgroup driver; cgroup v2 needs systemd
	// MemoryQoSKernel Unmet kernel 5.4.0-150-generic is older than 5.9.0, which MemoryQoS (kubernetes#137719) needs
}

func ExampleComputeQOS() {
	pod := core.Pod{Containers: []core.Container{
		{Name: "app", Resources: core.ResourceRequirements{Requests: list("cpu", "500m", "memory", "1Gi"), Limits: list("cpu", "500m", "memory", "1Gi")}},
		{Name: "log", Resources: core.ResourceRequirements{Requests: list("cpu", "50m")}},
	}}
	fmt.Println(cgroup.ComputeQOS(pod, cgroup.QOSOptions{}))
	pod.Containers = pod.Containers[:1]
	fmt.Println(cgroup.ComputeQOS(pod, cgroup.QOSOptions{}))
	// Output:
	// Burstable
	// Guaranteed
}

func ExampleResourceConfigForPod() {
	pod := core.Pod{Containers: []core.Container{
		{Name: "app", Resources: core.ResourceRequirements{Requests: list("cpu", "250m", "memory", "256Mi"), Limits: list("cpu", "500m", "memory", "512Mi")}},
	}}
	qos := cgroup.DefaultMemoryQoSConfig()
	qos.Policy = cgroup.ReservationTiered
	rc := cgroup.ResourceConfigForPod(pod, cgroup.PodConfigOptions{CPUPeriod: uint64(cgroup.QuotaPeriod), MemoryQoS: &qos})
	fmt.Println("shares", *rc.CPUShares, "quota", *rc.CPUQuota, "period", *rc.CPUPeriod, "memory", *rc.Memory)
	fmt.Println(rc.Unified)
	// Output:
	// shares 256 quota 50000 period 100000 memory 536870912
	// map[memory.low:268435456]
}

func ExampleQOSConfigs() {
	pods := []core.Pod{
		{Containers: []core.Container{{Resources: core.ResourceRequirements{Requests: list("cpu", "1", "memory", "1Gi"), Limits: list("cpu", "1", "memory", "1Gi")}}}},
		{Containers: []core.Container{{Resources: core.ResourceRequirements{Requests: list("cpu", "300m", "memory", "512Mi")}}}},
		{Containers: []core.Container{{}}},
	}
	c := cgroup.QOSConfigs(pods, cgroup.QOSConfigOptions{Allocatable: list("memory", "8Gi"), QOSReservedMemoryPercent: 100})
	fmt.Println("burstable:", *c.Burstable.CPUShares, "shares,", *c.Burstable.Memory, "bytes")
	fmt.Println("besteffort:", *c.BestEffort.CPUShares, "shares,", *c.BestEffort.Memory, "bytes")
	// Output:
	// burstable: 307 shares, 7516192768 bytes
	// besteffort: 2 shares, 6979321856 bytes
}

func ExampleMemoryQoSConfig_Container() {
	const mi = 1 << 20
	cfg := cgroup.DefaultMemoryQoSConfig() // v1.37: no throttling factor
	fmt.Println(cfg.Container(core.PodQOSBurstable, 100*mi, 200*mi, 0).HighSkipped)
	cfg.ThrottlingFactor = 0.9 // memoryThrottlingFactor: 0.9
	fmt.Println(cfg.Container(core.PodQOSBurstable, 100*mi, 200*mi, 0).Unified())
	fmt.Println(cfg.Container(core.PodQOSBestEffort, 0, 0, 8<<30).Unified())
	fmt.Println(cfg.Container(core.PodQOSGuaranteed, 1<<30, 1<<30, 8<<30).HighSkipped)
	// Output:
	// no memory throttling factor
	// map[memory.high:199229440 memory.low:0 memory.min:0]
	// map[memory.high:7730937856 memory.low:0 memory.min:0]
	// request equals limit
}

// The issue's worked numbers: a node with 40Gi of memory and 5Gi of swap.
func ExampleContainerSwap() {
	pod := core.Pod{Containers: []core.Container{
		{Name: "app", Resources: core.ResourceRequirements{Requests: list("memory", "1Gi"), Limits: list("memory", "2Gi")}},
	}}
	cfg := cgroup.SwapConfig{Behavior: cgroup.LimitedSwap, Version: cgroup.V2, Controller: true, NodeMemory: 40 << 30, NodeSwap: 5 << 30}
	d, _ := cgroup.ContainerSwap(pod, pod.Containers[0], cfg, cgroup.QOSOptions{})
	fmt.Println(d.Reason, d.SwapMax)

	critical := core.SystemCriticalPriority
	pod.Priority = &critical
	d, _ = cgroup.ContainerSwap(pod, pod.Containers[0], cfg, cgroup.QOSOptions{})
	fmt.Println(d.Reason, d.SwapMax, d.Message)
	// Output:
	// Granted 134217728
	// CriticalPod 0 critical pods (static, mirror or priority >= 2000000000) do not swap
}

func ExampleNodeAllocatable() {
	threshold := resource.MustParse("100Mi")
	alloc := cgroup.NodeAllocatable(
		list("cpu", "4", "memory", "16Gi"),
		list("cpu", "100m", "memory", "1Gi"),
		list("cpu", "100m", "memory", "500Mi"),
		[]cgroup.EvictionReservation{{Resource: core.ResourceMemory, Quantity: &threshold}},
	)
	cpu, mem := alloc[core.ResourceCPU], alloc[core.ResourceMemory]
	fmt.Println(cpu.String(), mem.Value())
	// Output: 3800m 15476981760
}

func ExampleFit() {
	alloc := list("cpu", "1", "memory", "1Gi", "pods", "110")
	running := []core.ResourceList{list("cpu", "600m"), list("cpu", "300m", "memory", "512Mi")}
	for _, in := range cgroup.Fit(alloc, running, list("cpu", "200m", "memory", "256Mi")) {
		fmt.Printf("insufficient %s: %s requested, %s used of %s\n", in.Resource, in.Requested.String(), in.Used.String(), in.Allocatable.String())
	}
	// Output: insufficient cpu: 200m requested, 900m used of 1
}

func ExampleParsePSI() {
	psi, _ := cgroup.ParsePSI("some avg10=1.50 avg60=0.12 avg300=0.05 total=12345\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=6789\n")
	fmt.Println(psi.Some.Avg10, psi.Some.Total, psi.Full.Total)
	_, err := cgroup.ParsePSI("some avg10 total=1")
	fmt.Println(err)
	// Output:
	// 1.5 12345 6789
	// cgroup: malformed file content: PSI line 1: field "avg10" has no "="
}

func ExampleParseCPUMax() {
	q, p, _ := cgroup.ParseCPUMax("50000 100000\n")
	fmt.Println(q, p, cgroup.QuotaToMilliCPU(q, p))
	// Output: 50000 100000 500
}

func ExampleParseProcCgroup() {
	lines, _ := cgroup.ParseProcCgroup("4:memory:/kubepods/burstable/pod1/abc\n0::/kubepods/burstable/pod1/abc\n")
	for _, l := range lines {
		fmt.Println(l.HierarchyID, l.Controllers, l.Path)
	}
	// Output:
	// 4 [memory] /kubepods/burstable/pod1/abc
	// 0 [] /kubepods/burstable/pod1/abc
}

func ExampleParseRuntimeVersion() {
	name, rel, _ := cgroup.ParseRuntimeVersion("containerd github.com/containerd/containerd v1.7.2 0cae528d")
	fmt.Println(name, rel, rel.AtLeast(cgroup.MinContainerd()))
	k, _ := cgroup.ParseRelease("5.15.0-91-generic")
	fmt.Println(k, k.AtLeast(cgroup.MinKernelMemoryQoS()))
	// Output:
	// containerd 1.7.2 true
	// 5.15.0 true
}

// A sidecar runs beside the app; the init container runs beside the sidecar
// started before it.
func ExamplePodRequests() {
	pod := core.Pod{
		InitContainers: []core.Container{
			{Name: "proxy", RestartPolicy: core.ContainerRestartPolicyAlways, Resources: core.ResourceRequirements{Requests: list("cpu", "100m")}},
			{Name: "migrate", Resources: core.ResourceRequirements{Requests: list("cpu", "500m")}},
		},
		Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{Requests: list("cpu", "300m")}}},
		Overhead:   list("cpu", "50m"),
	}
	reqs := cgroup.PodRequests(pod, cgroup.QOSOptions{})
	fmt.Println(reqs.MilliCPU(), "m")
	// Output: 650 m
}

// The API server copies a missing request from its limit.
func ExampleDefaultRequests() {
	pod := core.Pod{Containers: []core.Container{{Name: "app", Resources: core.ResourceRequirements{Limits: list("cpu", "1", "memory", "1Gi")}}}}
	fmt.Println(cgroup.ComputeQOS(pod, cgroup.QOSOptions{}), cgroup.ComputeQOS(cgroup.DefaultRequests(pod), cgroup.QOSOptions{}))
	// Output: Burstable Guaranteed
}

// kubernetes#125409: the kubepods weight grows with the node.
func ExampleNodeAllocatableConfig() {
	rc := cgroup.NodeAllocatableConfig(list("cpu", "64", "memory", "250Gi"))
	fmt.Println(*rc.CPUShares, cgroup.WeightLinear.Weight(*rc.CPUShares))
	// Output: 65536 2500
}

func ExampleSwapLimit() {
	limit, _ := cgroup.SwapLimit(1<<30, 40<<30, 5<<30)
	fmt.Println(limit)
	_, err := cgroup.SwapLimit(50<<30, 40<<30, 5<<30)
	fmt.Println(err)
	// Output:
	// 134217728
	// cgroup: invalid input: container memory request 53687091200 is larger than node memory capacity 42949672960
}

func ExampleContainerScope() {
	s, _ := cgroup.ContainerScope("containerd", "0123abcd")
	fmt.Println(s)
	// Output: cri-containerd-0123abcd.scope
}

// KEP-4033: the runtime reports its cgroup driver over CRI.
func ExampleDriverFromCRI() {
	d, _ := cgroup.DriverFromCRI(0)
	fmt.Println(d)
	// Output: systemd
}

func ExampleParseMemoryValue() {
	v, _ := cgroup.ParseMemoryValue("max\n")
	w, _ := cgroup.ParseCPUWeight("100\n")
	fmt.Println(v, cgroup.FormatMemoryValue(v), w)
	// Output: -1 max 100
}

// A pod resized in place: container a shrinks from 2 cpus to 1 and b grows
// from 1 to 2; the kubelet allocated both, the runtime applied neither yet.
// v1.37 counts the larger of the sums (3 cpus), v1.36 the larger per
// container (2 + 2).
func ExampleEffectivePodRequests() {
	p := core.Pod{Containers: []core.Container{
		{Name: "a", Resources: core.ResourceRequirements{Requests: list("cpu", "1")}},
		{Name: "b", Resources: core.ResourceRequirements{Requests: list("cpu", "2")}},
	}}
	st := core.ResizeStatus{Containers: []core.ContainerResizeStatus{
		{Name: "a", Allocated: list("cpu", "1"), Actuated: &core.ResourceRequirements{Requests: list("cpu", "2")}},
		{Name: "b", Allocated: list("cpu", "2"), Actuated: &core.ResourceRequirements{Requests: list("cpu", "1")}},
	}}
	v137 := cgroup.EffectivePodRequests(p, st, cgroup.QOSOptions{})
	v136 := cgroup.EffectivePodRequests(p, st, cgroup.QOSOptionsFor(release.V1_36))
	fmt.Printf("v1.37: %dm, v1.36: %dm\n", v137.MilliCPU(), v136.MilliCPU())
	// Output:
	// v1.37: 3000m, v1.36: 4000m
}

// Container a's cpu limit is raised from 1 to 3 while b keeps 1, and the
// runtime still applies the old values: the pod's limits count the new one
// (4 cpus), unless the resize is Infeasible, when only what runs counts.
func ExampleEffectivePodLimits() {
	p := core.Pod{Containers: []core.Container{
		{Name: "a", Resources: core.ResourceRequirements{Limits: list("cpu", "3")}},
		{Name: "b", Resources: core.ResourceRequirements{Limits: list("cpu", "1")}},
	}}
	st := core.ResizeStatus{Containers: []core.ContainerResizeStatus{
		{Name: "a", Actuated: &core.ResourceRequirements{Limits: list("cpu", "1")}},
		{Name: "b", Actuated: &core.ResourceRequirements{Limits: list("cpu", "1")}},
	}}
	fmt.Println(cgroup.EffectivePodLimits(p, st, cgroup.QOSOptions{}).MilliCPU())
	st.Infeasible = true
	fmt.Println(cgroup.EffectivePodLimits(p, st, cgroup.QOSOptions{}).MilliCPU())
	// Output:
	// 4000
	// 2000
}
