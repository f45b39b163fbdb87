// Package cgroup holds everything the kubelet computes about cgroups, as
// plain functions of plain numbers:
//
//   - the cgroup layout of a host (DetectVersion, Detect with statfs
//     injected, FsTypeName) and what cgroup v2 needs from it
//     (CheckRequirements: kernel 5.8+, containerd 1.4+ or CRI-O 1.20+, the
//     systemd driver on both sides, kernel 5.9+ for MemoryQoS);
//   - cgroup names: the driver-neutral Name, its cgroupfs path and systemd
//     slice (ExpandSlice, ParseSystemd, ParseCgroupfs), the kubelet's QoS
//     tree (NodeAllocatableRoot, QOSName, PodName), runtime scopes and
//     reading a pod back out of a path (ParsePodCgroup);
//   - CPU conversions: milliCPU to cpu.shares and CFS quota and back, and
//     both shares-to-cpu.weight formulas in use (WeightLinear,
//     WeightQuadratic) with inverses and SharesEqualAfterRoundTrip, each
//     with a checked variant that rejects out-of-range input;
//   - QoS classes (ComputeQOS, PodQOS), effective pod requests and limits
//     (sidecars, overhead, pod-level resources), and the values of the pod,
//     QoS and node-allocatable cgroups (ResourceConfigForPod, QOSConfigs,
//     NodeAllocatableConfig);
//   - MemoryQoS (memory.min, memory.low, memory.high) and swap
//     (ContainerSwap, SwapLimit), each decision with the reason;
//   - node allocatable and the scheduler's fit rule (NodeAllocatable, Fit);
//   - parsers for PSI files, cpu.max, memory values, cpu.weight and
//     /proc/<pid>/cgroup.
//
// Nothing here touches cgroupfs, reads feature gates or caches a syscall:
// the cgroup version, page size, CFS period and feature switches are
// arguments.
//
// # Usage
//
// What a custom kubelet writes for a pod:
//
//	root, _ := cgroup.NodeAllocatableRoot("/", true)
//	class := cgroup.PodQOS(pod, cgroup.QOSOptions{}) // upstream v1.37 feature gates; QOSOptionsFor(release.V1_36) for v1.36
//	name, err := cgroup.PodName(root, class, pod.UID)
//	if err != nil { ... }
//	path, _ := cgroup.DriverSystemd.Path(name)
//	rc := cgroup.ResourceConfigForPod(pod, cgroup.PodConfigOptions{}) // kubelet defaults; see PodConfigOptions.Validate
//	weight := cgroup.WeightLinear.Weight(*rc.CPUShares) // on cgroup v2
//
// and for each container, its swap:
//
//	d, err := cgroup.ContainerSwap(pod, c, cgroup.SwapConfig{Behavior: cgroup.LimitedSwap, Version: v, Controller: true,
//		NodeMemory: memCapacity, NodeSwap: swapCapacity}, cgroup.QOSOptions{})
//	if d.SwapMax != "" { unified["memory.swap.max"] = d.SwapMax }
//	log.Print(d.Reason, ": ", d.Message)
//
// # Semantics
//
// CPU. Shares are milliCPU*1024/1000, truncated, 2 for zero, clamped to
// 2..262144 (100m is 102). The CFS quota is milliCPU*period/1000 with a
// floor of 1000us, 0 for no limit, and NoQuota (-1) when quotas are not
// enforced; the period is taken as given, where upstream silently uses
// 100000 unless the CPUCFSQuotaPeriod gate is on. The systemd driver rounds
// the quota up to 10ms per second (SystemdRoundedQuota, runc#4622).
//
// cpu.weight. WeightLinear, 1 + (shares-2)*9999/262142, is what the kubelet
// writes on the pod and QoS cgroups it manages; container cgroups get
// whatever the runtime computes from the shares it receives, which is
// WeightLinear up to runc 1.3.1 / crun 1.22 and WeightQuadratic from runc
// 1.3.2 / crun 1.23 (1024 shares: 39 against 100, kubernetes#131216). The
// linear inverse does not give back the shares that produced a weight
// (1024 -> 39 -> 998): compare readbacks with SharesEqualAfterRoundTrip.
//
// Names. A Name is a list of components; "/" and "_" are not allowed in
// one (upstream panics; here NewName and Validate return ErrInvalidName).
// The systemd form escapes "-" as "_", joins with "-", adds ".slice" and
// expands every prefix into a parent slice. Parsing the systemd form uses
// only the base name, as upstream does. Children never share memory with
// their parent (kubernetes#68416).
//
// QoS. Only cpu and memory count. Since v1.37 each init and regular
// container is classed on its own (request != limit is Burstable, both
// zero BestEffort, equal Guaranteed) and the pod is Burstable when any
// container is or when BestEffort and Guaranteed mix; with
// PodLevelResources a pod's spec.resources decide alone when they set cpu,
// memory or huge pages. A set status.qosClass wins (PodQOS). Requests are
// taken as given: use DefaultRequests for pods built by hand with limits
// only, as the API server would have defaulted them.
//
// Requests and limits. PodRequests and PodLimits aggregate the spec as the
// kubelet sizes a pod (sidecars beside the containers, init containers at
// their peak, pod-level values, overhead). A pod resized in place takes
// the room of the larger of its spec, allocated and actuated values
// (EffectivePodRequests, EffectivePodLimits, from its core.ResizeStatus): since
// v1.37 the larger of the three sums, before it the larger per container.
//
// Pod cgroup. Guaranteed pods get shares, quota, period and a memory limit;
// Burstable pods get shares, plus the quota only when every init and
// regular container declares a cpu limit of its own and the memory limit
// only when every one declares a memory limit (or the pod level does);
// BestEffort pods get 2 shares.
//
// MemoryQoS (cgroup v2; beta and on since v1.37, with no throttling factor
// by default). With a factor, memory.high = floor((request + factor*(limit
// - request)) / page) * page, with node allocatable in place of a missing
// limit; skipped when request == limit > 0, when not above the request,
// and for a container without a memory limit under a pod-level one (the
// pod cgroup then gets memory.high, PodMemoryHigh). memory.min/memory.low
// follow the ReservationPolicy, zeros written for what it does not
// protect; at the QoS level TieredReservation writes kubepods memory.min =
// the Guaranteed plus the Burstable requests, kubepods memory.low and
// burstable memory.low = the Burstable requests; any other policy (or the
// feature off) resets kubepods memory.min/low and burstable memory.low to
// zero once, at the kubelet's start (QOSStartConfigs; v1.36 wrote None's
// zeros on every update, kubernetes#137584).
//
// Swap. LimitedSwap applies only to containers of non-critical Burstable
// pods on cgroup v2 with the swap controller, with a memory request or
// limit and request != limit; the limit is request/nodeMemory*nodeSwap,
// truncated. Every refusal has a SwapReason.
//
// # Options
//
//   - WeightQuadratic: the runc 1.3.2+/crun 1.23+ cpu.weight formula, for
//     container cgroups on newer runtimes.
//   - QOSOptions.DisablePodLevelResources: ignore spec.resources, as on
//     clusters before 1.34, where the PodLevelResources gate was off (it is
//     on by default since 1.34, and in the zero value here).
//   - PodConfigOptions.DisableCPUQuota: cpuCFSQuota=false.
//   - MemoryQoSConfig.Policy: ReservationNone (the default since 1.36),
//     ReservationTiered, or ReservationLegacyMin (memory.min for every
//     request, before 1.36).
//   - MemoryQoSConfig.SkipBestEffortHigh: skip memory.high for BestEffort
//     containers as upstream did before kubernetes#138139
//     (kubernetes#137685).
//   - The presets of earlier releases: QOSOptionsFor (SumContainersQOS,
//     DisablePodLevelResourcesFixKubeletQOSClass), MemoryQoSConfigFor
//     (factor 0.9, NoPodMemoryHigh, ContainerHighUnderPodLimit,
//     NoKubepodsLow), PodConfigOptionsFor (DeclaredFromAggregatedLimits)
//     and QOSConfigOptionsFor (ResetOnUpdate).
//   - SwapConfig.Legacy: the 1.22-1.27 alpha swap behaviour the seeds
//     describe, including UnlimitedSwap (removed in 1.30,
//     kubernetes#122745).
package cgroup
