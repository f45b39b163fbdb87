package cgroup

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/release"
)

// Cgroup v2 file names used in ResourceConfig.Unified.
const (
	MemoryMinFile  = "memory.min"
	MemoryLowFile  = "memory.low"
	MemoryHighFile = "memory.high"
	SwapMaxFile    = "memory.swap.max"
)

// UnlimitedHugePages is the huge page limit the kubelet writes on QoS
// cgroups: effectively unbounded (1<<62).
const UnlimitedHugePages int64 = 1 << 62

// ResourceConfig is the set of values the kubelet writes to one cgroup.
// A nil pointer means "leave as is".
//
// The zero value leaves everything as it is.
type ResourceConfig struct {
	// CPUShares is cpu.shares (v1) or, converted, cpu.weight (v2).
	CPUShares *uint64
	// CPUQuota and CPUPeriod are the CFS quota and period in microseconds;
	// a quota of NoQuota means unlimited.
	CPUQuota  *int64
	CPUPeriod *uint64
	// Memory is the memory limit in bytes.
	Memory *int64
	// HugePageLimit maps page size in bytes to a limit in bytes.
	HugePageLimit map[int64]int64
	// PidsLimit is the pids.max value.
	PidsLimit *int64
	// Unified holds raw cgroup v2 files (memory.min, memory.low,
	// memory.high, memory.swap.max).
	Unified map[string]string
}

// PodConfigOptions are the kubelet settings ResourceConfigForPod depends
// on. The zero value is the kubelet default.
type PodConfigOptions struct {
	QOSOptions
	// DisableCPUQuota is cpuCFSQuota=false: the quota becomes NoQuota.
	DisableCPUQuota bool
	// CPUPeriod is the CFS period in microseconds (cpuCFSQuotaPeriod); 0
	// means QuotaPeriod. Upstream ignores the setting and uses QuotaPeriod
	// unless the CPUCFSQuotaPeriod gate is on; leave it 0 to reproduce that.
	CPUPeriod uint64
	// MemoryQoS, when non-nil, turns the MemoryQoS feature on with this
	// configuration: the pod cgroup gets memory protection per
	// MemoryQoS.Policy and, with a throttling factor, memory.high
	// (MemoryQoSConfig.PodMemoryHigh). Nil is the gate off; with v1.37's
	// defaults (on, no factor, ReservationNone) the pod cgroup gets the
	// same values as with the gate off.
	MemoryQoS *MemoryQoSConfig
	// DeclaredFromAggregatedLimits decides whether a Burstable pod's cpu
	// and memory limits are "declared" from the limits each container
	// counts with in the pod's aggregate, as upstream before 1.37 did: an
	// init container without a limit that follows a sidecar with one
	// counted as declared. Off (1.37): from each init and regular
	// container's own limits.
	DeclaredFromAggregatedLimits bool
}

// PodConfigOptionsFor returns the kubelet's defaults for the pod cgroup in
// release v (taken as release.Oldest or release.Current when outside
// them): QOSOptionsFor(v), MemoryQoS on with MemoryQoSConfigFor(v) from
// 1.37 (beta) and off before (alpha), and DeclaredFromAggregatedLimits
// before 1.37.
func PodConfigOptionsFor(v release.Version) PodConfigOptions {
	o := PodConfigOptions{QOSOptions: QOSOptionsFor(v), DeclaredFromAggregatedLimits: !v.Clamp().AtLeast(release.V1_37)}
	if v.Clamp().AtLeast(release.V1_37) {
		m := MemoryQoSConfigFor(v)
		o.MemoryQoS = &m
	}
	return o
}

// Validate reports a CPUPeriod outside 1ms..1s (other than 0) and an
// invalid MemoryQoS, all at once, as the kubelet's configuration
// validation would.
func (o PodConfigOptions) Validate() error {
	var errs []error
	if o.CPUPeriod != 0 && (o.CPUPeriod < uint64(MinQuotaPeriod) || o.CPUPeriod > uint64(MaxQuotaPeriod)) {
		errs = append(errs, wrap(ErrOutOfRange, "CPUPeriod "+strconv.FormatUint(o.CPUPeriod, 10)+"us is outside 1000..1000000"))
	}
	if o.MemoryQoS != nil {
		if err := o.MemoryQoS.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ResourceConfigForPod returns the values of a pod's own cgroup as the
// kubelet computes them:
//
//   - cpu shares from the effective cpu request (PodRequests);
//   - Guaranteed: shares, quota, period and memory limit;
//   - Burstable: shares; quota and period only if every container (init
//     containers included) declares a cpu limit, the memory limit only if
//     every container declares one (pod-level limits count as declared);
//   - BestEffort: shares MinShares and nothing else;
//   - huge page limits from the huge page requests;
//   - with MemoryQoS, memory.min (or memory.low) from the memory request.
//
// Options are used as given; check them once with
// PodConfigOptions.Validate.
func ResourceConfigForPod(p core.Pod, opts PodConfigOptions) ResourceConfig {
	reqs := PodRequests(p, opts.QOSOptions)
	var lims core.ResourceList
	var cpuDeclared, memDeclared bool
	if opts.DeclaredFromAggregatedLimits {
		cpuDeclared, memDeclared = true, true
		lims = podLimits(p, opts.QOSOptions, func(cpuZero, memZero bool) {
			cpuDeclared = cpuDeclared && !cpuZero
			memDeclared = memDeclared && !memZero
		})
	} else {
		lims = PodLimits(p, opts.QOSOptions)
		cpuDeclared, memDeclared = containersDeclareLimits(p)
	}
	if opts.podLevel(p) {
		if q := p.Resources.Limits[core.ResourceCPU]; !q.IsZero() {
			cpuDeclared = true
		}
		if q := p.Resources.Limits[core.ResourceMemory]; !q.IsZero() {
			memDeclared = true
		}
	}

	period := opts.CPUPeriod
	if period == 0 {
		period = uint64(QuotaPeriod)
	}
	shares := MilliCPUToShares(reqs.MilliCPU())
	quota := MilliCPUToQuota(lims.MilliCPU(), int64(period))
	if opts.DisableCPUQuota {
		quota = NoQuota
	}
	memory := lims.Memory()

	var out ResourceConfig
	class := PodQOS(p, opts.QOSOptions)
	switch class {
	case core.PodQOSGuaranteed:
		out.CPUShares, out.CPUQuota, out.CPUPeriod, out.Memory = &shares, &quota, &period, &memory
	case core.PodQOSBurstable:
		out.CPUShares = &shares
		if cpuDeclared {
			out.CPUQuota, out.CPUPeriod = &quota, &period
		}
		if memDeclared {
			out.Memory = &memory
		}
	default:
		min := MinShares
		out.CPUShares = &min
	}
	out.HugePageLimit = HugePageLimits(reqs)
	if opts.MemoryQoS != nil {
		if file, ok := opts.MemoryQoS.Policy.protectionFile(class); ok {
			if m := reqs.Memory(); m > 0 {
				out.Unified = map[string]string{file: strconv.FormatInt(m, 10)}
			}
		}
		if high := opts.MemoryQoS.PodMemoryHigh(p, opts.QOSOptions); high > 0 {
			setUnified(&out, MemoryHighFile, high)
		}
	}
	return out
}

// QOSConfigOptions are the inputs of QOSConfigs besides the pods.
//
// The zero value is a node with nothing allocatable, no reserved
// memory, no huge pages and MemoryQoS off.
type QOSConfigOptions struct {
	QOSOptions
	// Allocatable is the node's allocatable resources; its memory is the
	// base of the QoS memory limits when QOSReservedMemoryPercent is set.
	Allocatable core.ResourceList
	// QOSReservedMemoryPercent is qosReserved's memory percentage (the
	// QOSReserved alpha feature): that share of higher-class requests is
	// kept out of reach of lower classes. 0 turns it off.
	QOSReservedMemoryPercent int64
	// HugePageSizes lists the host's huge page sizes in bytes; each gets an
	// unbounded limit on the QoS cgroups.
	HugePageSizes []int64
	// MemoryQoS, when non-nil, adds memory protection to the QoS cgroups.
	MemoryQoS *MemoryQoSConfig
	// CgroupV2 says the host runs cgroup v2 (QOSStartConfigs' resets are
	// written only there).
	CgroupV2 bool
	// ResetOnUpdate is upstream before 1.37: ReservationNone's zeros
	// (kubepods memory.min, burstable memory.low) are written by every
	// QOSConfigs, and QOSStartConfigs resets nothing. Off (1.37): they are
	// written once, at the kubelet's start (QOSStartConfigs), whenever
	// MemoryQoS is off or its policy is not ReservationTiered.
	ResetOnUpdate bool
}

// QOSConfigOptionsFor returns QOSConfigOptions with release v's switches
// (taken as release.Oldest or release.Current when outside them):
// QOSOptionsFor(v), MemoryQoS as PodConfigOptionsFor(v) has it, and
// ResetOnUpdate before 1.37. The node's figures (Allocatable, huge page
// sizes, CgroupV2) are left for the caller.
func QOSConfigOptionsFor(v release.Version) QOSConfigOptions {
	po := PodConfigOptionsFor(v)
	return QOSConfigOptions{QOSOptions: po.QOSOptions, MemoryQoS: po.MemoryQoS, ResetOnUpdate: !v.Clamp().AtLeast(release.V1_37)}
}

// QOSCgroupConfigs holds the values of the three QoS-level cgroups.
type QOSCgroupConfigs struct {
	// Root is the node-allocatable cgroup (kubepods), which is also where
	// Guaranteed pods live; only its MemoryQoS values are set here (see
	// NodeAllocatableConfig for the rest).
	Root ResourceConfig
	// Burstable and BestEffort are kubepods/burstable and
	// kubepods/besteffort.
	Burstable, BestEffort ResourceConfig
}

// QOSConfigs returns the values the kubelet's QoS container manager writes
// for the given active pods:
//
//   - besteffort cpu shares are MinShares; burstable shares are
//     MilliCPUToShares of the summed cpu requests of the Burstable pods;
//   - every huge page size is left unbounded;
//   - with QOSReservedMemoryPercent p and allocatable memory A (skipped when
//     A is 0 or unknown): burstable limit = A - G*p/100 and besteffort limit
//     = that - B*p/100, G and B the summed memory requests of the
//     Guaranteed and Burstable pods (not floored at zero, as upstream);
//   - with MemoryQoS, memory protection from the summed memory requests of
//     the Guaranteed (G) and Burstable (B) pods, per MemoryQoS.Policy, as
//     upstream v1.36's setMemoryQoS: ReservationTiered writes kubepods
//     memory.min = G + B (a parent's protection must cover its children's
//     for theirs to hold) and burstable memory.low = B, zeros included;
//     ReservationNone writes kubepods memory.min = 0 and burstable
//     memory.low = 0, so that protection an earlier configuration left on
//     the cgroups is reset (kubernetes#137584). ReservationLegacyMin
//     (upstream before 1.36) writes kubepods memory.min = G + B and
//     burstable memory.min = B, each only when non-zero.
func QOSConfigs(pods []core.Pod, opts QOSConfigOptions) QOSCgroupConfigs {
	var burstableMilliCPU, guaranteedMem, burstableMem int64
	for i := range pods {
		class := PodQOS(pods[i], opts.QOSOptions)
		if class == core.PodQOSBestEffort {
			continue
		}
		reqs := PodRequests(pods[i], opts.QOSOptions)
		if class == core.PodQOSBurstable {
			burstableMilliCPU += reqs.MilliCPU()
			burstableMem += reqs.Memory()
		} else {
			guaranteedMem += reqs.Memory()
		}
	}
	var out QOSCgroupConfigs
	bs, es := MilliCPUToShares(burstableMilliCPU), MinShares
	out.Burstable.CPUShares, out.BestEffort.CPUShares = &bs, &es
	out.unboundHugePages(opts.HugePageSizes)
	if p := opts.QOSReservedMemoryPercent; p > 0 {
		if alloc := opts.Allocatable.Memory(); alloc > 0 {
			bl := alloc - guaranteedMem*p/100
			el := bl - burstableMem*p/100
			out.Burstable.Memory, out.BestEffort.Memory = &bl, &el
		}
	}
	if opts.MemoryQoS != nil {
		opts.MemoryQoS.qosProtection(guaranteedMem, burstableMem, opts.ResetOnUpdate, &out)
	}
	return out
}

// unboundHugePages leaves every huge page size unbounded on the burstable
// and besteffort cgroups.
func (out *QOSCgroupConfigs) unboundHugePages(sizes []int64) {
	if len(sizes) == 0 {
		return
	}
	out.Burstable.HugePageLimit = map[int64]int64{}
	out.BestEffort.HugePageLimit = map[int64]int64{}
	for _, size := range sizes {
		out.Burstable.HugePageLimit[size] = UnlimitedHugePages
		out.BestEffort.HugePageLimit[size] = UnlimitedHugePages
	}
}

// QOSStartConfigs returns what the kubelet writes to the QoS cgroups when
// it starts (the QoS container manager's Start), before any QOSConfigs:
// besteffort cpu shares MinShares, every huge page size unbounded on both
// QoS cgroups, and, on cgroup v2 since 1.37 (ResetOnUpdate off), when
// MemoryQoS is off or its policy is not ReservationTiered, the memory
// protection an earlier configuration may have left reset: burstable
// memory.low = 0 and kubepods memory.min = memory.low = 0.
func QOSStartConfigs(opts QOSConfigOptions) QOSCgroupConfigs {
	var out QOSCgroupConfigs
	es := MinShares
	out.BestEffort.CPUShares = &es
	out.unboundHugePages(opts.HugePageSizes)
	if opts.CgroupV2 && !opts.ResetOnUpdate && (opts.MemoryQoS == nil || opts.MemoryQoS.Policy != ReservationTiered) {
		setUnified(&out.Burstable, MemoryLowFile, 0)
		setUnified(&out.Root, MemoryMinFile, 0)
		setUnified(&out.Root, MemoryLowFile, 0)
	}
	return out
}

// NodeAllocatableConfig returns what the kubelet writes to the
// node-allocatable cgroup (kubepods) for the given allocatable resources:
// cpu shares MilliCPUToShares(cpu), the memory limit, the pids limit and
// the huge page limits. The shares grow with the node's size, which starves
// system.slice on large nodes (kubernetes#125409, open upstream).
func NodeAllocatableConfig(allocatable core.ResourceList) ResourceConfig {
	var out ResourceConfig
	if q, ok := allocatable[core.ResourceCPU]; ok {
		s := MilliCPUToShares(q.MilliValue())
		out.CPUShares = &s
	}
	if q, ok := allocatable[core.ResourceMemory]; ok {
		m := q.Value()
		out.Memory = &m
	}
	if q, ok := allocatable[core.ResourcePIDs]; ok {
		p := q.Value()
		out.PidsLimit = &p
	}
	if hp := HugePageLimits(allocatable); len(hp) > 0 {
		out.HugePageLimit = hp
	}
	return out
}

// EvictionReservation is a hard eviction threshold as far as node
// allocatable is concerned: memory.available reserves memory,
// nodefs.available reserves ephemeral storage.
type EvictionReservation struct {
	// Resource is ResourceMemory or ResourceEphemeralStorage.
	Resource core.ResourceName
	// Quantity is an absolute threshold; when nil, Percentage of capacity
	// is used.
	Quantity *resource.Quantity
	// Percentage is a fraction of capacity (0.1 for "10%"). It is a
	// float32, as upstream's ThresholdValue.Percentage, so the reserved
	// bytes match upstream's to the byte.
	Percentage float32
}

// Bytes returns the amount r reserves out of capacity.
// A percentage that is negative or NaN reserves nothing.
func (r EvictionReservation) Bytes(capacity resource.Quantity) int64 {
	if r.Quantity != nil {
		return r.Quantity.Value()
	}
	if !(r.Percentage > 0) {
		return 0
	}
	return int64(float64(capacity.Value()) * float64(r.Percentage))
}

// NodeAllocatable returns capacity minus kube-reserved, system-reserved
// and the hard eviction thresholds, per resource in capacity, floored at
// zero, as the kubelet reports it in node.status.allocatable.
func NodeAllocatable(capacity, kubeReserved, systemReserved core.ResourceList, hardEviction []EvictionReservation) core.ResourceList {
	out := make(core.ResourceList, len(capacity))
	for _, name := range sortedNames(capacity) {
		v := capacity[name].DeepCopy()
		for _, l := range [2]core.ResourceList{kubeReserved, systemReserved} {
			if q, ok := l[name]; ok {
				v.Sub(q)
			}
		}
		for _, r := range hardEviction {
			if r.Resource == name {
				v.Sub(*resource.NewQuantity(r.Bytes(capacity[name]), resource.BinarySI))
			}
		}
		if v.Sign() < 0 {
			v = *resource.NewQuantity(0, v.Format)
		}
		out[name] = v
	}
	return out
}

// Insufficient is one resource a pod does not fit on a node for.
type Insufficient struct {
	Resource core.ResourceName
	// Requested is the new pod's request, Used the sum of the requests of
	// the pods already there, Allocatable the node's allocatable amount.
	Requested, Used, Allocatable resource.Quantity
}

// Fit checks the scheduler's resource rule from the node docs: a pod fits
// when, for every resource it requests, the requests of the pods already on
// the node plus its own are no more than the node's allocatable amount;
// and the node's "pods" allocatable bounds the number of pods. It returns
// the resources that do not fit, sorted by name; none means the pod fits.
func Fit(allocatable core.ResourceList, existing []core.ResourceList, pod core.ResourceList) []Insufficient {
	var out []Insufficient
	if alloc, ok := allocatable[core.ResourcePods]; ok && int64(len(existing))+1 > alloc.Value() {
		out = append(out, Insufficient{
			Resource:    core.ResourcePods,
			Requested:   *resource.NewQuantity(1, resource.DecimalSI),
			Used:        *resource.NewQuantity(int64(len(existing)), resource.DecimalSI),
			Allocatable: alloc.DeepCopy(),
		})
	}
	for _, name := range sortedNames(pod) {
		req := pod[name]
		if name == core.ResourcePods || req.Sign() <= 0 {
			continue
		}
		var used resource.Quantity
		for _, l := range existing {
			if q, ok := l[name]; ok {
				used.Add(q)
			}
		}
		total := used.DeepCopy()
		total.Add(req)
		alloc := allocatable[name]
		if total.Cmp(alloc) > 0 {
			out = append(out, Insufficient{Resource: name, Requested: req.DeepCopy(), Used: used, Allocatable: alloc.DeepCopy()})
		}
	}
	slices.SortStableFunc(out, func(a, b Insufficient) int { return strings.Compare(string(a.Resource), string(b.Resource)) })
	return out
}
