package cgroup

import (
	"errors"
	"math"
	"strconv"

	"github.com/nodelife/nodelife/internal/enum"
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
func (p ReservationPolicy) protectionFile(class QOSClass) (string, bool) {
	switch p {
	case ReservationLegacyMin:
		return MemoryMinFile, true
	case ReservationTiered:
		switch class {
		case Guaranteed:
			return MemoryMinFile, true
		case Burstable:
			return MemoryLowFile, true
		}
	}
	return "", false
}

// MemoryQoSConfig configures MemoryQoS (KEP-2570, cgroup v2 only, kernel
// 5.9+; see CheckRequirements).
//
// The zero value is not usable (no throttling factor, no page size):
// start from DefaultMemoryQoSConfig.
type MemoryQoSConfig struct {
	// ThrottlingFactor is memoryThrottlingFactor: how far between request
	// and limit memory.high sits. Default 0.9 (0.8 in the alpha, before the
	// 1.27 formula change). Must be in (0, 1].
	ThrottlingFactor float64
	// PageSize is the host's page size in bytes (os.Getpagesize: 4096 on
	// x86, often 65536 on arm64); memory.high is rounded down to it.
	PageSize int64
	// Policy is the memory reservation policy.
	Policy ReservationPolicy
	// SkipBestEffortHigh restores the behaviour before kubernetes#138139:
	// memory.high is skipped whenever request == limit, which also skipped
	// BestEffort containers (0 == 0, kubernetes#137685). By default only
	// request == limit > 0 is skipped and BestEffort gets
	// floor(factor*allocatable/page)*page.
	SkipBestEffortHigh bool
}

// DefaultMemoryQoSConfig returns factor 0.9, 4 KiB pages and
// ReservationNone.
func DefaultMemoryQoSConfig() MemoryQoSConfig {
	return MemoryQoSConfig{ThrottlingFactor: 0.9, PageSize: 4096, Policy: ReservationNone}
}

// Validate reports a factor outside (0, 1], a page size that is not
// positive and an unknown policy, all at once.
func (c MemoryQoSConfig) Validate() error {
	var errs []error
	if !(c.ThrottlingFactor > 0 && c.ThrottlingFactor <= 1) {
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
// "not written".
type MemoryValues struct {
	Min, Low, High int64
	// HighSkipped says why memory.high is not written, empty when it is.
	HighSkipped string
}

// Unified returns the values as the CRI unified map (only the files that
// are written).
func (v MemoryValues) Unified() map[string]string {
	out := map[string]string{}
	for _, f := range [3]struct {
		name string
		v    int64
	}{{MemoryMinFile, v.Min}, {MemoryLowFile, v.Low}, {MemoryHighFile, v.High}} {
		if f.v != 0 {
			out[f.name] = strconv.FormatInt(f.v, 10)
		}
	}
	return out
}

// Container returns the MemoryQoS values of a container of a pod of the
// given class, with its memory request and limit and the node's
// allocatable memory, in bytes:
//
//   - memory.min or memory.low = the request, per Policy, when non-zero;
//   - memory.high = floor((request + factor*(limit - request)) / page) * page,
//     with allocatable in place of a zero limit; written only when it is
//     non-zero and above the request, and never when request == limit > 0
//     (a Guaranteed container needs no throttling before its limit).
//
// With a request of 100Mi, a limit of 200Mi, factor 0.9 and 4 KiB pages,
// memory.high is 199229440.
//
// A config that fails Validate writes nothing and says why in HighSkipped.
func (c MemoryQoSConfig) Container(class QOSClass, request, limit, allocatable int64) MemoryValues {
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
	}
	if request == limit && (limit > 0 || c.SkipBestEffortHigh) {
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

// qosProtection sets the QoS-level protection files of out from the
// summed memory requests of the Guaranteed (g) and Burstable (b) pods, as
// upstream v1.36's setMemoryQoS (pkg/kubelet/cm/qos_container_manager_linux.go)
// and, for ReservationLegacyMin, as the kubelet before 1.36; see QOSConfigs.
func (c MemoryQoSConfig) qosProtection(g, b int64, out *QOSCgroupConfigs) {
	set := func(rc *ResourceConfig, file string, v int64) {
		if rc.Unified == nil {
			rc.Unified = map[string]string{}
		}
		rc.Unified[file] = strconv.FormatInt(v, 10)
	}
	switch c.Policy {
	case ReservationLegacyMin:
		if g+b > 0 {
			set(&out.Root, MemoryMinFile, g+b)
		}
		if b > 0 {
			set(&out.Burstable, MemoryMinFile, b)
		}
	case ReservationTiered:
		// The parent covers its children: kubepods protects the Guaranteed
		// and the Burstable requests, burstable its own softly.
		set(&out.Root, MemoryMinFile, g+b)
		set(&out.Burstable, MemoryLowFile, b)
	default:
		// Zeros, written on purpose: they reset protection left on the
		// cgroups by an earlier configuration (kubernetes#137584).
		set(&out.Root, MemoryMinFile, 0)
		set(&out.Burstable, MemoryLowFile, 0)
	}
}
