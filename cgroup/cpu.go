package cgroup

import (
	"math"
	"strconv"

	"github.com/nodelife/nodelife/internal/enum"
)

// CPU constants of the kubelet's cgroup helpers (pkg/kubelet/cm) and the
// kernel's scheduler limits.
const (
	// MinShares is the smallest cpu.shares value the kernel accepts; the
	// kubelet writes it for a zero request, because the kernel would read 0
	// as its default of 1024.
	MinShares uint64 = 2
	// MaxShares is the largest cpu.shares value the kernel accepts.
	MaxShares uint64 = 262144
	// SharesPerCPU is the cpu.shares value of one whole CPU.
	SharesPerCPU = 1024
	// MilliCPUPerCPU is the number of milliCPU in one CPU.
	MilliCPUPerCPU = 1000
	// QuotaPeriod is the default CFS period in microseconds (100ms), the
	// value upstream uses unless the CPUCFSQuotaPeriod feature gate is on.
	QuotaPeriod int64 = 100000
	// MinQuotaPeriod is both the smallest CFS period and the smallest CFS
	// quota the kubelet writes, in microseconds (1ms).
	MinQuotaPeriod int64 = 1000
	// MaxQuotaPeriod is the largest CFS period the kernel accepts, in
	// microseconds (1s).
	MaxQuotaPeriod int64 = 1000000
	// MinMilliCPULimit is the smallest CPU limit that the CFS quota can
	// express exactly with the default period (10m = 1000us of 100000us).
	MinMilliCPULimit int64 = 10
	// MinWeight and MaxWeight bound cgroup v2 cpu.weight.
	MinWeight uint64 = 1
	// MaxWeight is the largest cgroup v2 cpu.weight.
	MaxWeight uint64 = 10000
	// NoQuota is the CFS quota that means "no limit" (cpu.cfs_quota_us -1,
	// cpu.max "max").
	NoQuota int64 = -1
)

// maxMilliCPUForShares is the largest milliCPU whose shares are not capped
// at MaxShares: 256000m * 1024 / 1000 = 262144.
const maxMilliCPUForShares = int64(MaxShares) * MilliCPUPerCPU / SharesPerCPU

// MilliCPUToShares converts a CPU request in milliCPU to cpu.shares the way
// the kubelet does: 0 gives MinShares, anything else is
// milliCPU*1024/1000 with integer division, clamped to
// [MinShares, MaxShares]. A negative request gives MinShares. 100m gives
// 102, 1000m gives 1024.
func MilliCPUToShares(milliCPU int64) uint64 {
	// 2m..256000m map onto 2..262144 shares exactly; one unsigned
	// comparison tells whether milliCPU is outside that range.
	if uint64(milliCPU-2) > uint64(maxMilliCPUForShares-2) {
		if milliCPU < 2 {
			return MinShares
		}
		return MaxShares
	}
	return uint64(milliCPU) * SharesPerCPU / MilliCPUPerCPU
}

// MilliCPUToSharesChecked is MilliCPUToShares for callers that want to hear
// about inputs the conversion silently clamps: a negative request, or one
// above 256000m (whose shares would be capped at MaxShares).
func MilliCPUToSharesChecked(milliCPU int64) (uint64, error) {
	if milliCPU < 0 {
		return 0, wrap(ErrOutOfRange, "milliCPU "+strconv.FormatInt(milliCPU, 10)+" is negative")
	}
	if milliCPU > maxMilliCPUForShares {
		return 0, wrap(ErrOutOfRange, "milliCPU "+strconv.FormatInt(milliCPU, 10)+" exceeds 256000 (cpu.shares would be capped at 262144)")
	}
	return MilliCPUToShares(milliCPU), nil
}

// MilliCPUToQuota converts a CPU limit in milliCPU to a CFS quota in
// microseconds for the given period: 0 gives 0 (no quota set), anything else
// is milliCPU*period/1000 with integer division and a floor of
// MinQuotaPeriod. 250m over 100000us gives 25000; 5m gives 1000.
//
// Upstream replaces period with QuotaPeriod unless the CPUCFSQuotaPeriod
// feature gate is on; here the period is always the one given, so pass
// QuotaPeriod to get the gate-off behaviour. A caller that does not enforce
// CPU limits (cpuCFSQuota=false) writes NoQuota instead.
func MilliCPUToQuota(milliCPU, period int64) int64 {
	if milliCPU == 0 {
		return 0
	}
	// Guard the multiplication: limits beyond what fits are capped the way a
	// quota of that size would be (far above any real period).
	if milliCPU > 0 && period > 0 && milliCPU > math.MaxInt64/period {
		return math.MaxInt64 / MilliCPUPerCPU
	}
	quota := milliCPU * period / MilliCPUPerCPU
	if quota < MinQuotaPeriod {
		return MinQuotaPeriod
	}
	return quota
}

// MilliCPUToQuotaChecked is MilliCPUToQuota with a negative limit and a
// period outside [MinQuotaPeriod, MaxQuotaPeriod] reported as errors.
func MilliCPUToQuotaChecked(milliCPU, period int64) (int64, error) {
	if milliCPU < 0 {
		return 0, wrap(ErrOutOfRange, "milliCPU "+strconv.FormatInt(milliCPU, 10)+" is negative")
	}
	if err := checkPeriod(period); err != nil {
		return 0, err
	}
	return MilliCPUToQuota(milliCPU, period), nil
}

func checkPeriod(period int64) error {
	if period < MinQuotaPeriod || period > MaxQuotaPeriod {
		return wrap(ErrOutOfRange, "CFS period "+strconv.FormatInt(period, 10)+"us is outside 1000..1000000")
	}
	return nil
}

// SharesToMilliCPU is the inverse of MilliCPUToShares used to read a request
// back from cpu.shares: ceil(shares*1000/1024) for shares >= MinShares,
// else 0. Because MilliCPUToShares truncates, the round trip gives back the
// request or slightly more (102 shares read back as 100m). Shares above
// MaxShares are converted as they are, as upstream does; the result
// saturates at math.MaxInt64 where upstream's int64 arithmetic would wrap.
// The division is exact integer arithmetic (upstream divides in float64,
// which rounds beyond 2^53).
func SharesToMilliCPU(shares uint64) int64 {
	if shares < MinShares {
		return 0
	}
	if shares <= (math.MaxUint64-SharesPerCPU)/MilliCPUPerCPU {
		// Every shares value a cgroup can hold: one multiply and a shift.
		return int64((shares*MilliCPUPerCPU + SharesPerCPU - 1) / SharesPerCPU)
	}
	whole, rest := shares/SharesPerCPU, shares%SharesPerCPU
	if whole > (math.MaxInt64-MilliCPUPerCPU)/MilliCPUPerCPU {
		return math.MaxInt64
	}
	return int64(whole*MilliCPUPerCPU + (rest*MilliCPUPerCPU+SharesPerCPU-1)/SharesPerCPU)
}

// SharesToMilliCPUChecked is SharesToMilliCPU with shares outside
// [MinShares, MaxShares] reported as an error (SharesToMilliCPU maps those
// below to 0 and converts those above as they are).
func SharesToMilliCPUChecked(shares uint64) (int64, error) {
	if err := checkShares(shares); err != nil {
		return 0, err
	}
	return SharesToMilliCPU(shares), nil
}

func checkShares(shares uint64) error {
	if shares < MinShares || shares > MaxShares {
		return wrap(ErrOutOfRange, "cpu.shares "+strconv.FormatUint(shares, 10)+" is outside 2..262144")
	}
	return nil
}

// QuotaToMilliCPU reads a CPU limit back from a CFS quota and period:
// quota*1000/period with integer division; NoQuota (or any negative quota)
// gives 0, and so does a period that is not positive (upstream divides by
// it; the caller was supposed to check).
func QuotaToMilliCPU(quota, period int64) int64 {
	if quota < 0 || period <= 0 {
		return 0
	}
	if quota > math.MaxInt64/MilliCPUPerCPU {
		return quota / period * MilliCPUPerCPU
	}
	if period == QuotaPeriod {
		// The default period: quota*1000/100000 is quota/100, a division
		// by a constant instead of a hardware divide.
		return quota / (QuotaPeriod / MilliCPUPerCPU)
	}
	return quota * MilliCPUPerCPU / period
}

// QuotaToMilliCPUChecked is QuotaToMilliCPU with a period outside
// [MinQuotaPeriod, MaxQuotaPeriod] and a quota that is neither NoQuota nor
// at least MinQuotaPeriod reported as errors.
func QuotaToMilliCPUChecked(quota, period int64) (int64, error) {
	if err := checkPeriod(period); err != nil {
		return 0, err
	}
	if quota != NoQuota && quota < MinQuotaPeriod {
		return 0, wrap(ErrOutOfRange, "CFS quota "+strconv.FormatInt(quota, 10)+"us is neither -1 nor at least 1000")
	}
	return QuotaToMilliCPU(quota, period), nil
}

// SystemdRoundedQuota is the CFS quota that the systemd cgroup driver
// actually writes for quota over period: systemd keeps CPU quota as whole
// percent of a CPU, so the quota per second is rounded up to a multiple of
// 10ms (runc#4622). A 15m limit (1500us of 100000us) is written as 2000us.
// Quotas that are not positive and periods that are not positive are
// returned unchanged.
func SystemdRoundedQuota(quota, period int64) int64 {
	if quota <= 0 || period <= 0 || quota > math.MaxInt64/1000000 {
		return quota
	}
	perSec := quota * 1000000 / period
	if perSec%10000 != 0 {
		perSec = (perSec/10000 + 1) * 10000
	}
	if perSec > math.MaxInt64/period {
		return quota
	}
	return perSec * period / 1000000
}

// WeightFormula is a conversion between cgroup v1 cpu.shares and cgroup v2
// cpu.weight. Two are in use at once (reference: kubernetes#131216): the
// kubelet writes the pod and QoS cgroups itself with the linear one, while
// container cgroups get whatever the runtime (runc, crun) converts the
// shares it receives over CRI with.
type WeightFormula int

const (
	// WeightLinear is 1 + (shares-2)*9999/262142, integer division, 10000
	// from MaxShares up. The kubelet's own formula for pod and QoS cgroups,
	// and the one of runc <= 1.3.1 and crun < 1.23. 1024 shares give 39.
	WeightLinear WeightFormula = iota
	// WeightQuadratic is ceil(10^((l*l+125*l)/612 - 7/34)) with
	// l = log2(shares), through (2, 1), (1024, 100) and (262144, 10000): the
	// formula of runc >= 1.3.2 and crun >= 1.23 (opencontainers/cgroups#20),
	// so that 1024 shares get systemd's default weight of 100.
	WeightQuadratic
)

// String returns "linear" or "quadratic".
func (f WeightFormula) String() string {
	return enum.Name(f, "WeightFormula", "linear", "quadratic")
}

// Weight converts cpu.shares to cpu.weight. 0 means "not set" and gives 0
// under both formulas (upstream's linear helper has no case for it and
// would wrap around); shares below MinShares give MinWeight, shares at or
// above MaxShares give MaxWeight. An unknown formula is treated as
// WeightLinear.
func (f WeightFormula) Weight(shares uint64) uint64 {
	if shares-(MinShares+1) < MaxShares-(MinShares+1) && f != WeightQuadratic {
		// Inside the range (one unsigned comparison): the linear formula,
		// in 32 bits, where (262143-2)*9999 still fits.
		return uint64(1 + uint32(shares-2)*9999/262142)
	}
	switch {
	case shares == 0:
		return 0
	case shares <= MinShares:
		return MinWeight
	case shares >= MaxShares:
		return MaxWeight
	}
	if f == WeightQuadratic {
		return quadraticWeight(shares)
	}
	return 1 + (shares-2)*9999/262142
}

// quadraticWeightFormula is the quadratic formula as runc and crun compute
// it, in float64. Weight uses a table derived from it (see
// quadraticFirstShares); the tests check the two agree on every shares
// value.
func quadraticWeightFormula(shares uint64) uint64 {
	l := math.Log2(float64(shares))
	exp := (l*l+125*l)/612.0 - 7.0/34.0
	return uint64(math.Ceil(math.Pow(10, exp)))
}

// quadraticBlock is the log2 of the shares step of quadraticCoarse.
const quadraticBlock = 4

// quadraticCoarse[b] is the quadratic weight of shares b<<quadraticBlock
// (of MinShares for b = 0); Weight starts there and walks up the
// breakpoints, a few steps at most because the curve rises by less than
// one weight per share.
var quadraticCoarse = func() [MaxShares>>quadraticBlock + 1]uint16 {
	var c [MaxShares>>quadraticBlock + 1]uint16
	w := MinWeight
	for b := range c {
		s := max(uint64(b)<<quadraticBlock, MinShares)
		for w < MaxWeight && uint64(quadraticFirstShares[w+1-2]) <= s {
			w++
		}
		c[b] = uint16(w)
	}
	return c
}()

func quadraticWeight(shares uint64) uint64 {
	w := uint64(quadraticCoarse[shares>>quadraticBlock])
	for w < MaxWeight && uint64(quadraticFirstShares[w+1-2]) <= shares {
		w++
	}
	return w
}

// Shares converts cpu.weight back to cpu.shares. 0 gives 0, weights are
// clamped to [MinWeight, MaxWeight] first.
//
// For WeightLinear this is the kubelet's inverse, (weight-1)*262142/9999 +
// 2, which does not always give back the shares that produced the weight
// (1024 -> 39 -> 998, and 998 -> 38): compare readbacks with
// SharesEqualAfterRoundTrip. WeightQuadratic has no closed-form inverse
// upstream; here it is the smallest shares value >= MinShares whose weight
// is the given one, so Weight(Shares(w)) == w for every w in 1..10000.
func (f WeightFormula) Shares(weight uint64) uint64 {
	if weight == 0 {
		return 0
	}
	weight = min(max(weight, MinWeight), MaxWeight)
	if f == WeightQuadratic {
		return quadraticShares(weight)
	}
	return (weight-1)*262142/9999 + 2
}

// quadraticShares returns the smallest shares value >= MinShares whose
// quadratic weight is at least weight.
func quadraticShares(weight uint64) uint64 {
	if weight <= MinWeight {
		return MinShares
	}
	return uint64(quadraticFirstShares[weight-2])
}

// WeightChecked is Weight with shares outside [MinShares, MaxShares]
// reported as an error.
func (f WeightFormula) WeightChecked(shares uint64) (uint64, error) {
	if err := checkShares(shares); err != nil {
		return 0, err
	}
	if f != WeightLinear && f != WeightQuadratic {
		return 0, wrap(ErrInvalidInput, "unknown weight formula "+f.String())
	}
	return f.Weight(shares), nil
}

// SharesChecked is Shares with a weight outside [MinWeight, MaxWeight]
// reported as an error.
func (f WeightFormula) SharesChecked(weight uint64) (uint64, error) {
	if weight < MinWeight || weight > MaxWeight {
		return 0, wrap(ErrOutOfRange, "cpu.weight "+strconv.FormatUint(weight, 10)+" is outside 1..10000")
	}
	if f != WeightLinear && f != WeightQuadratic {
		return 0, wrap(ErrInvalidInput, "unknown weight formula "+f.String())
	}
	return f.Shares(weight), nil
}

// SharesEqualAfterRoundTrip says whether readback, the shares value
// computed with f.Shares from a cpu.weight read from cgroupfs, is what
// allocated shares turn into after the trip through cpu.weight: either
// allocated itself or f.Shares(f.Weight(allocated)). A kubelet comparing
// the two directly would see a resize that never happened (1024 reads back
// as 998 under WeightLinear).
func SharesEqualAfterRoundTrip(f WeightFormula, allocated, readback uint64) bool {
	return readback == allocated || readback == f.Shares(f.Weight(allocated))
}
