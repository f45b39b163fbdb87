package cgroup

import (
	"errors"
	"math"
	"testing"
)

// Upstream pkg/kubelet/cm/helpers_linux.go: m*1024/1000 truncated, 0 -> 2,
// clamp [2, 262144].
func TestMilliCPUToShares(t *testing.T) {
	for _, c := range []struct {
		m    int64
		want uint64
	}{
		{0, 2}, {-5, 2}, {1, 2}, {2, 2}, {3, 3}, {10, 10}, {100, 102}, {250, 256}, {500, 512},
		{1000, 1024}, {1500, 1536}, {64000, 65536}, {256000, 262144}, {256001, 262144}, {1 << 62, 262144},
	} {
		if got := MilliCPUToShares(c.m); got != c.want {
			t.Errorf("MilliCPUToShares(%d) = %d, want %d", c.m, got, c.want)
		}
	}
}

func TestMilliCPUToSharesChecked(t *testing.T) {
	if got, err := MilliCPUToSharesChecked(100); err != nil || got != 102 {
		t.Errorf("100m: %d, %v", got, err)
	}
	for _, m := range []int64{-1, 256001} {
		if _, err := MilliCPUToSharesChecked(m); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("MilliCPUToSharesChecked(%d) err = %v, want ErrOutOfRange", m, err)
		}
	}
}

func TestMilliCPUToQuota(t *testing.T) {
	for _, c := range []struct {
		m, period, want int64
	}{
		{0, 100000, 0},                          // no limit: quota unset
		{5, 100000, 1000},                       // 500us floored to the 1ms minimum
		{10, 100000, 1000},                      // MinMilliCPULimit is exact
		{15, 100000, 1500},                      // not a multiple of 10m: see SystemdRoundedQuota
		{250, 100000, 25000},                    // the classic 250m
		{1000, 100000, 100000},                  // one CPU
		{2500, 100000, 250000},                  // 2.5 CPUs
		{250, 50000, 12500},                     // custom period (CPUCFSQuotaPeriod)
		{20, 10000, 1000},                       // 200us floored
		{-100, 100000, 1000},                    // negative limits hit the floor, as upstream
		{1 << 62, 100000, math.MaxInt64 / 1000}, // would overflow: capped instead of wrapping
	} {
		if got := MilliCPUToQuota(c.m, c.period); got != c.want {
			t.Errorf("MilliCPUToQuota(%d, %d) = %d, want %d", c.m, c.period, got, c.want)
		}
	}
	if _, err := MilliCPUToQuotaChecked(100, 999); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("period 999: %v", err)
	}
	if _, err := MilliCPUToQuotaChecked(-1, 100000); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("milliCPU -1: %v", err)
	}
	if got, err := MilliCPUToQuotaChecked(250, 1000000); err != nil || got != 250000 {
		t.Errorf("period 1s: %d, %v", got, err)
	}
}

func TestInverses(t *testing.T) {
	for _, c := range []struct {
		shares uint64
		want   int64
	}{{0, 0}, {1, 0}, {2, 2}, {102, 100}, {256, 250}, {1024, 1000}, {262144, 256000},
		// Above MaxShares, as upstream's SharesToMilliCPU: ceil(300000*1000/1024).
		{300000, 292969},
		// Where upstream's shares*1000 leaves int64 (it wraps): 2^62 shares
		// are 2^52 CPUs, 2^52*1000 milliCPU, which fits; 2^64-1 does not
		// and saturates.
		{1 << 62, 4503599627370496000}, {math.MaxUint64, math.MaxInt64}} {
		if got := SharesToMilliCPU(c.shares); got != c.want {
			t.Errorf("SharesToMilliCPU(%d) = %d, want %d", c.shares, got, c.want)
		}
	}
	for _, c := range []struct{ q, p, want int64 }{
		{25000, 100000, 250}, {100000, 100000, 1000}, {NoQuota, 100000, 0}, {1000, 100000, 10},
		{12500, 50000, 250}, {25000, 0, 0}, {25000, -1, 0},
	} {
		if got := QuotaToMilliCPU(c.q, c.p); got != c.want {
			t.Errorf("QuotaToMilliCPU(%d, %d) = %d, want %d", c.q, c.p, got, c.want)
		}
	}
	if _, err := SharesToMilliCPUChecked(1); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("shares 1: %v", err)
	}
	if _, err := QuotaToMilliCPUChecked(500, 100000); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("quota 500: %v", err)
	}
	if _, err := QuotaToMilliCPUChecked(25000, 0); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("period 0: %v", err)
	}
	if got, err := QuotaToMilliCPUChecked(NoQuota, 100000); err != nil || got != 0 {
		t.Errorf("no quota: %d, %v", got, err)
	}
}

// The two shares -> cpu.weight formulas (reference §1.4, §2): linear
// 1 + (s-2)*9999/262142; quadratic ceil(10^((l^2+125l)/612 - 7/34)).
// Expected values computed by hand from the formulas (and checked with a
// separate Python script), not by this package.
func TestWeight(t *testing.T) {
	for _, c := range []struct {
		shares, linear, quadratic uint64
	}{
		{0, 0, 0}, {1, 1, 1}, {2, 1, 1}, {3, 1, 2}, {10, 1, 4}, {102, 4, 17}, {512, 20, 59},
		{1024, 39, 100},   // kubernetes#131216: 39 against systemd's 100
		{2000, 77, 170},   // runc#4896: --cpu-shares 2000 gives 77 on 1.3.1, 170 on 1.4.0
		{4096, 157, 303},  // four CPUs
		{10240, 391, 639}, // ten CPUs
		{100000, 3815, 4340},
		{262143, 9999, 10000}, {262144, 10000, 10000}, {1 << 40, 10000, 10000},
	} {
		if got := WeightLinear.Weight(c.shares); got != c.linear {
			t.Errorf("linear Weight(%d) = %d, want %d", c.shares, got, c.linear)
		}
		if got := WeightQuadratic.Weight(c.shares); got != c.quadratic {
			t.Errorf("quadratic Weight(%d) = %d, want %d", c.shares, got, c.quadratic)
		}
	}
}

// website#54835: under the linear formula many milliCPU values share one
// weight; by the formula 80m..104m all give 4.
func TestLinearWeightPlateau(t *testing.T) {
	for m := int64(79); m <= 105; m++ {
		want := uint64(4)
		if m == 79 {
			want = 3
		} else if m == 105 {
			want = 5
		}
		if got := WeightLinear.Weight(MilliCPUToShares(m)); got != want {
			t.Errorf("%dm: weight %d, want %d", m, got, want)
		}
	}
}

func TestShares(t *testing.T) {
	for _, c := range []struct {
		f      WeightFormula
		weight uint64
		want   uint64
	}{
		{WeightLinear, 0, 0},
		{WeightLinear, 1, 2},
		{WeightLinear, 39, 998},   // 38*262142/9999 + 2
		{WeightLinear, 100, 2597}, // DataDog/datadog-agent#43760: weight 100 read with the old inverse
		{WeightLinear, 10000, 262144},
		{WeightLinear, 20000, 262144}, // clamped to MaxWeight first
		{WeightQuadratic, 0, 0},
		{WeightQuadratic, 1, 2},
		{WeightQuadratic, 2, 3},
		{WeightQuadratic, 100, 1012}, // 1012..1024 all give 100; the smallest is returned
		{WeightQuadratic, 170, 1986},
		{WeightQuadratic, 10000, 262115},
	} {
		if got := c.f.Shares(c.weight); got != c.want {
			t.Errorf("%v Shares(%d) = %d, want %d", c.f, c.weight, got, c.want)
		}
	}
	// Quadratic: the smallest shares value >= 2 with that weight, for every
	// weight.
	for w := MinWeight; w <= MaxWeight; w++ {
		s := WeightQuadratic.Shares(w)
		if WeightQuadratic.Weight(s) != w {
			t.Fatalf("quadratic Weight(Shares(%d) = %d) = %d", w, s, WeightQuadratic.Weight(s))
		}
		if s > MinShares && WeightQuadratic.Weight(s-1) >= w {
			t.Fatalf("quadratic Shares(%d) = %d is not the smallest", w, s)
		}
	}
	// Linear: the kubelet's inverse lands within the weight's shares range
	// or just below it (1024 -> 39 -> 998 -> 38).
	if got := WeightLinear.Weight(WeightLinear.Shares(39)); got != 38 {
		t.Errorf("linear 39 -> 998 -> %d, want 38", got)
	}
}

func TestSharesEqualAfterRoundTrip(t *testing.T) {
	for _, c := range []struct {
		f                   WeightFormula
		allocated, readback uint64
		want                bool
	}{
		{WeightLinear, 1024, 1024, true},
		{WeightLinear, 1024, 998, true}, // 1024 -> 39 -> 998
		{WeightLinear, 1024, 997, false},
		{WeightLinear, 1024, 1023, false},
		{WeightQuadratic, 1024, 1024, true},
		{WeightQuadratic, 2000, WeightQuadratic.Shares(170), true},
		{WeightQuadratic, 2000, 1024, false},
	} {
		if got := SharesEqualAfterRoundTrip(c.f, c.allocated, c.readback); got != c.want {
			t.Errorf("%v SharesEqualAfterRoundTrip(%d, %d) = %v, want %v", c.f, c.allocated, c.readback, got, c.want)
		}
	}
}

func TestWeightChecked(t *testing.T) {
	if _, err := WeightLinear.WeightChecked(1); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("shares 1: %v", err)
	}
	if _, err := WeightQuadratic.WeightChecked(262145); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("shares 262145: %v", err)
	}
	if got, err := WeightQuadratic.WeightChecked(1024); err != nil || got != 100 {
		t.Errorf("1024: %d %v", got, err)
	}
	if _, err := WeightLinear.SharesChecked(0); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("weight 0: %v", err)
	}
	if _, err := WeightLinear.SharesChecked(10001); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("weight 10001: %v", err)
	}
	if _, err := WeightFormula(7).WeightChecked(1024); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("unknown formula: %v", err)
	}
	if _, err := WeightFormula(7).SharesChecked(100); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("unknown formula: %v", err)
	}
	if s := WeightFormula(7).String(); s != "WeightFormula(7)" {
		t.Errorf("String = %q", s)
	}
}

// runc#4622: systemd keeps CPU quota in whole percent of a CPU, so the
// quota per second rounds up to 10ms.
func TestSystemdRoundedQuota(t *testing.T) {
	for _, c := range []struct{ q, p, want int64 }{
		{1500, 100000, 2000},   // 15m -> 20m
		{1000, 100000, 1000},   // 10m stays
		{25000, 100000, 25000}, // 250m stays
		{25100, 100000, 26000}, // 251m -> 260m
		{12500, 50000, 12500},  // 250m at a 50ms period: 250000us/s, a multiple
		{1000, 50000, 1000},    // 20m at 50ms: 20000us/s
		{1100, 50000, 1500},    // 22m at 50ms: 22000 -> 30000us/s -> 1500
		{NoQuota, 100000, NoQuota},
		{0, 100000, 0},
		{1500, 0, 1500},
	} {
		if got := SystemdRoundedQuota(c.q, c.p); got != c.want {
			t.Errorf("SystemdRoundedQuota(%d, %d) = %d, want %d", c.q, c.p, got, c.want)
		}
	}
}
