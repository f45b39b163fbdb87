package cgroup

import (
	"errors"
	"math"
	"strconv"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/enum"
	"github.com/nodelife/nodelife/release"
)

// ReservationPolicy is how MemoryQoS protects requested memory from
// reclaim (the kubelet's memoryReservationPolicy, 1.36).
type ReservationPolicy int

const (
	// ReservationNone protects nothing: the 1.36 default, after memory.min
	// locked memory for overcommitted Burstable pods (kubernetes#131077,
	// #137719). At the QoS level it writes explicit zeros (kubepods
	// memory.min, burstable memory.low) to reset an earlier configuration's
	// values (kubernetes#137584).
	ReservationNone ReservationPolicy = iota
	// ReservationTiered protects Guaranteed pods and containers with
	// memory.min and Burstable ones with memory.low; BestEffort gets
	// nothing. At the QoS level kubepods memory.min covers the Guaranteed
	// and the Burstable requests, and burstable memory.low its own.
	ReservationTiered
	// ReservationLegacyMin is MemoryQoS before 1.36 (KEP-2570): memory.min
	// is the memory request for every class that has one.
	ReservationLegacyMin
)

// String returns "None", "TieredReservation" or "LegacyMin".
func (p ReservationPolicy) String() string {
	return enum.Name(p, "ReservationPolicy", "None", "TieredReservation", "LegacyMin")
}

// protectionFile is the file the policy protects a request of class with.
func (p ReservationPolicy) protectionFile(class core.PodQOSClass) (string, bool) {
	switch p {
	case ReservationLegacyMin:
		return MemoryMinFile, true
	case ReservationTiered:
		switch class {
		case core.PodQOSGuaranteed:
			return MemoryMinFile, true
		case core.PodQOSBurstable:
			return MemoryLowFile, true
		}
	}
	return "", false
}

// MemoryQoSConfig configures MemoryQoS (KEP-2570, cgroup v2 only, kernel
// 5.9+; see CheckRequirements). The feature gate is beta and on since
// 1.37, with no throttling factor and ReservationNone by default, which
// protects nothing and throttles nothing: DefaultMemoryQoSConfig.
//
// The zero value has no page size and is not usable: start from
// DefaultMemoryQoSConfig or MemoryQoSConfigFor.
type MemoryQoSConfig struct {
	// ThrottlingFactor is memoryThrottlingFactor: how far between request
	// and limit memory.high sits. 0 is the field unset, the default since
	// 1.37: no memory.high is written at all. Before 1.37 it defaulted to
	// 0.9 (0.8 in the alpha, before the 1.27 formula change). Must be 0 or
	// in (0, 1].
	ThrottlingFactor float64
	// PageSize is the host's page size in bytes (os.Getpagesize: 4096 on
	// x86, often 65536 on arm64); memory.high is rounded down to it.
	PageSize int64
	// Policy is the memory reservation policy.
	Policy ReservationPolicy
	// SkipBestEffortHigh is upstream before 1.37 (kubernetes#138139):
	// a container's memory.high is skipped whenever request == limit,
	// which also skipped BestEffort containers (0 == 0, kubernetes#137685).
	// Off: only request == limit > 0 is skipped and a container without a
	// request gets floor(factor*(limit or allocatable)/page)*page.
	SkipBestEffortHigh bool
	// ContainerHighUnderPodLimit is upstream before 1.37: a container
	// without a memory limit gets its own memory.high even when the pod has
	// a pod-level memory limit. Off: such a container gets none, the pod
	// cgroup's memory.high throttling it (PodMemoryHigh).
	ContainerHighUnderPodLimit bool
	// NoPodMemoryHigh is upstream before 1.37: the pod cgroup never gets
	// memory.high. Off: a pod with pod-level resources and declared memory
	// limits gets one (PodMemoryHigh).
	NoPodMemoryHigh bool
	// NoKubepodsLow is upstream before 1.37: ReservationTiered writes
	// kubepods memory.min = G + B but no kubepods memory.low. Off (1.37):
	// kubepods memory.low = B as well, the ancestor cover of the Burstable
	// pods' memory.low.
	NoKubepodsLow bool
}

// DefaultMemoryQoSConfig returns the kubelet's MemoryQoS defaults of the
// current release: no throttling factor, 4 KiB pages and ReservationNone.
func DefaultMemoryQoSConfig() MemoryQoSConfig { return MemoryQoSConfigFor(release.Current) }

// MemoryQoSConfigFor returns the kubelet's MemoryQoS defaults in release v
// (taken as release.Oldest or release.Current when outside them), with 4
// KiB pages: since 1.37 no throttling factor and ReservationNone; 1.36
// factor 0.9, ReservationNone and the container and QoS-level rules of
// that release (SkipBestEffortHigh, ContainerHighUnderPodLimit,
// NoPodMemoryHigh, NoKubepodsLow); before 1.36 the same with
// ReservationLegacyMin.
func MemoryQoSConfigFor(v release.Version) MemoryQoSConfig {
	v = v.Clamp()
	c := MemoryQoSConfig{PageSize: 4096, Policy: ReservationNone}
	if !v.AtLeast(release.V1_37) {
		c.ThrottlingFactor = 0.9
		c.SkipBestEffortHigh, c.ContainerHighUnderPodLimit, c.NoPodMemoryHigh, c.NoKubepodsLow = true, true, true, true
	}
	if !v.AtLeast(release.V1_36) {
		c.Policy = ReservationLegacyMin
	}
	return c
}

// Validate reports a factor outside (0, 1] (other than 0, unset), a page
// size that is not positive and an unknown policy, all at once.
func (c MemoryQoSConfig) Validate() error {
	var errs []error
	if c.ThrottlingFactor != 0 && !(c.ThrottlingFactor > 0 && c.ThrottlingFactor <= 1) {
		errs = append(errs, wrap(ErrInvalidInput, "ThrottlingFactor "+strconv.FormatFloat(c.ThrottlingFactor, 'g', -1, 64)+" is not in (0, 1]"))
	}
	if c.PageSize <= 0 {
		errs = append(errs, wrap(ErrInvalidInput, "PageSize "+itoa(c.PageSize)+" is not positive"))
	}
	if c.Policy < ReservationNone || c.Policy > ReservationLegacyMin {
		errs = append(errs, wrap(ErrInvalidInput, "unknown Policy "+c.Policy.String()))
	}
	return errors.Join(errs...)
}

// MemoryValues are the MemoryQoS files of one container cgroup; 0 means
// "not written" unless a flag below says otherwise.
type MemoryValues struct {
	Min, Low, High int64
	// ResetProtection says memory.min and memory.low are written as 0: a
	// container the policy does not protect has them reset (since 1.36).
	ResetProtection bool
	// HighMax says memory.high is written as "max": a container with
	// MemoryQoS off on cgroup v2 since 1.37 (ContainerWithoutMemoryQoS).
	HighMax bool
	// HighSkipped says why memory.high is not written, empty when it is.
	HighSkipped string
}

// Unified returns the values as the CRI unified map (only the files that
// are written).
func (v MemoryValues) Unified() map[string]string {
	out := map[string]string{}
	if v.ResetProtection {
		out[MemoryMinFile], out[MemoryLowFile] = "0", "0"
	}
	for _, f := range [3]struct {
		name string
		v    int64
	}{{MemoryMinFile, v.Min}, {MemoryLowFile, v.Low}, {MemoryHighFile, v.High}} {
		if f.v != 0 {
			out[f.name] = strconv.FormatInt(f.v, 10)
		}
	}
	if v.HighMax {
		out[MemoryHighFile] = "max"
	}
	return out
}

// ContainerWithoutMemoryQoS returns the MemoryQoS files of a container
// cgroup with the feature off: on cgroup v2 since 1.37, memory.high is
// written as "max", which lifts a throttle left by an earlier
// configuration when a pod is resized; nothing otherwise.
func ContainerWithoutMemoryQoS(cgroupV2 bool, v release.Version) MemoryValues {
	return MemoryValues{HighMax: cgroupV2 && v.Clamp().AtLeast(release.V1_37)}
}

// Container returns the MemoryQoS values of a container of a pod of the
// given class, with its memory request and limit and the node's
// allocatable memory, in bytes:
//
//   - memory.min or memory.low = the request, per Policy, when non-zero;
//     otherwise, under ReservationNone or ReservationTiered, both reset to
//     0 (ResetProtection);
//   - memory.high, only with a ThrottlingFactor, = floor((request +
//     factor*(limit - request)) / page) * page, with allocatable in place
//     of a zero limit; written only when it is non-zero and above the
//     request, and never when request == limit > 0 (a Guaranteed container
//     needs no throttling before its limit).
//
// With a request of 100Mi, a limit of 200Mi, factor 0.9 and 4 KiB pages,
// memory.high is 199229440. ContainerInPod also applies the pod's
// pod-level memory limit.
//
// A config that fails Validate writes nothing and says why in HighSkipped.
func (c MemoryQoSConfig) Container(class core.PodQOSClass, request, limit, allocatable int64) MemoryValues {
	return c.container(class, request, limit, allocatable, false)
}

// ContainerInPod is Container for the named container of p (an init or
// regular container; MemoryValues{} when there is none), its class,
// request and limit read from p under opts: a container without a memory
// limit in a pod whose pod-level resources set a memory limit gets no
// memory.high of its own (unless ContainerHighUnderPodLimit), the pod
// cgroup's throttling it instead.
func (c MemoryQoSConfig) ContainerInPod(p core.Pod, name string, opts QOSOptions, allocatable int64) MemoryValues {
	for _, cs := range [2][]core.Container{p.InitContainers, p.Containers} {
		for i := range cs {
			if cs[i].Name != name {
				continue
			}
			r := cs[i].Resources
			limit := r.Limits.Memory()
			underPod := limit == 0 && !c.ContainerHighUnderPodLimit && opts.podLevel(p) && p.PodLevelResourcesSet() && !isZero(p.Resources.Limits, core.ResourceMemory)
			return c.container(PodQOS(p, opts), r.Requests.Memory(), limit, allocatable, underPod)
		}
	}
	return MemoryValues{}
}

func (c MemoryQoSConfig) container(class core.PodQOSClass, request, limit, allocatable int64, underPodLimit bool) MemoryValues {
	var v MemoryValues
	if err := c.Validate(); err != nil {
		v.HighSkipped = err.Error()
		return v
	}
	if file, ok := c.Policy.protectionFile(class); ok && request > 0 {
		if file == MemoryMinFile {
			v.Min = request
		} else {
			v.Low = request
		}
	} else if c.Policy != ReservationLegacyMin {
		v.ResetProtection = true
	}
	switch {
	case c.ThrottlingFactor == 0:
		v.HighSkipped = "no memory throttling factor"
		return v
	case underPodLimit:
		v.HighSkipped = "no memory limit of its own under the pod-level memory limit"
		return v
	case request == limit && (limit > 0 || c.SkipBestEffortHigh):
		v.HighSkipped = "request equals limit"
		return v
	}
	top := limit
	if top == 0 {
		top = allocatable
	}
	if top <= 0 {
		v.HighSkipped = "no limit and no allocatable memory"
		return v
	}
	high := int64(math.Floor(float64(request)+(float64(top)-float64(request))*c.ThrottlingFactor)/float64(c.PageSize)) * c.PageSize
	if high == 0 || high <= request {
		v.HighSkipped = "memory.high would not be above the request"
		return v
	}
	v.High = high
	return v
}

// PodMemoryHigh returns the memory.high of the pod cgroup, 0 when none is
// written (upstream v1.37's ApplyPodLevelMemoryHigh): only with a
// ThrottlingFactor, without NoPodMemoryHigh, for a pod whose pod-level
// resources are set (core.Pod.PodLevelResourcesSet, gate on) and whose memory limit
// is declared (at the pod level, or by every init and regular container);
// with the pod's effective memory request and limit (PodRequests,
// PodLimits), floor((request + factor*(limit - request)) / page) * page
// when the limit is not 0, not equal to a non-zero request, and the
// result is above the request.
func (c MemoryQoSConfig) PodMemoryHigh(p core.Pod, opts QOSOptions) int64 {
	if c.Validate() != nil || c.ThrottlingFactor == 0 || c.NoPodMemoryHigh || !opts.podLevel(p) || !p.PodLevelResourcesSet() {
		return 0
	}
	if _, mem := containersDeclareLimits(p); !mem && isZero(p.Resources.Limits, core.ResourceMemory) {
		return 0
	}
	request, limit := PodRequests(p, opts).Memory(), PodLimits(p, opts).Memory()
	if (request == limit && request != 0) || limit == 0 {
		return 0
	}
	high := int64(math.Floor(float64(request)+(float64(limit)-float64(request))*c.ThrottlingFactor)/float64(c.PageSize)) * c.PageSize
	if high > 0 && high > request {
		return high
	}
	return 0
}

// isZero reports whether l has no name or a zero quantity of it.
func isZero(l core.ResourceList, name core.ResourceName) bool {
	q := l[name]
	return q.IsZero()
}

// containersDeclareLimits reports whether every init and regular container
// of p sets a non-zero cpu limit, and a non-zero memory limit, of its own.
func containersDeclareLimits(p core.Pod) (cpu, mem bool) {
	cpu, mem = true, true
	for _, cs := range [2][]core.Container{p.InitContainers, p.Containers} {
		for i := range cs {
			if isZero(cs[i].Resources.Limits, core.ResourceCPU) {
				cpu = false
			}
			if isZero(cs[i].Resources.Limits, core.ResourceMemory) {
				mem = false
			}
		}
	}
	return cpu, mem
}

// qosProtection sets the QoS-level protection files of out from the
// summed memory requests of the Guaranteed (g) and Burstable (b) pods, as
// upstream's setMemoryQoS (pkg/kubelet/cm/qos_container_manager_linux.go)
// and, for ReservationLegacyMin, as the kubelet before 1.36; see QOSConfigs.
// resetOnUpdate writes ReservationNone's zeros here, as 1.36 did on every
// update (since 1.37 they are written once, by QOSStartConfigs).
func (c MemoryQoSConfig) qosProtection(g, b int64, resetOnUpdate bool, out *QOSCgroupConfigs) {
	switch c.Policy {
	case ReservationLegacyMin:
		if g+b > 0 {
			setUnified(&out.Root, MemoryMinFile, g+b)
		}
		if b > 0 {
			setUnified(&out.Burstable, MemoryMinFile, b)
		}
	case ReservationTiered:
		// The parent covers its children: kubepods protects the Guaranteed
		// and the Burstable requests, and (since 1.37) covers the Burstable
		// pods' soft protection; burstable protects its own softly.
		setUnified(&out.Root, MemoryMinFile, g+b)
		if !c.NoKubepodsLow {
			setUnified(&out.Root, MemoryLowFile, b)
		}
		setUnified(&out.Burstable, MemoryLowFile, b)
	default:
		if resetOnUpdate {
			// Zeros, written on purpose: they reset protection left on the
			// cgroups by an earlier configuration (kubernetes#137584).
			setUnified(&out.Root, MemoryMinFile, 0)
			setUnified(&out.Burstable, MemoryLowFile, 0)
		}
	}
}

// setUnified sets one cgroup v2 file of rc.
func setUnified(rc *ResourceConfig, file string, v int64) {
	if rc.Unified == nil {
		rc.Unified = map[string]string{}
	}
	rc.Unified[file] = strconv.FormatInt(v, 10)
}
