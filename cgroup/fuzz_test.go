package cgroup

import (
	"strings"
	"testing"

	"github.com/nodelife/nodelife/core"
)

// Name conversions: no panic on any string, and every name that validates
// round-trips through both driver forms.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"/", "", "-.slice", "/kubepods/burstable/pod12-34", "test-a-b.slice", "a--b.slice",
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod12_34.slice/cri-containerd-ab.scope", "/a/", "//", ".slice", "a_b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := ParseCgroupfs(s)
		_ = n.Cgroupfs()
		_, _ = n.Systemd()
		_, _, _ = n.SystemdParentAndUnit()
		_, _ = ExpandSlice(s)
		_, _ = ParsePodCgroup(s)
		_, _ = NewName(nil, s)
		if sd, err := ParseSystemd(s); err == nil {
			_, _ = sd.Systemd()
		}
		if n.Validate() == nil {
			if back := ParseCgroupfs(n.Cgroupfs()); !back.Equal(n) {
				t.Fatalf("cgroupfs round trip %q -> %v -> %v", s, n, back)
			}
			sd, err := n.Systemd()
			if err != nil {
				t.Fatalf("valid %v: %v", n, err)
			}
			if back, err := ParseSystemd(sd); err != nil || !back.Equal(n) {
				t.Fatalf("systemd round trip %v -> %q -> %v, %v", n, sd, back, err)
			}
		}
		if exp, err := ExpandSlice(s); err == nil && s != "-.slice" {
			// The expansion's last element is the slice itself.
			if !strings.HasSuffix(exp, "/"+s) {
				t.Fatalf("ExpandSlice(%q) = %q", s, exp)
			}
		}
	})
}

// cgroup file parsers: no panic, and what parses formats back to the
// same value.
func FuzzFileParsers(f *testing.F) {
	for _, s := range []string{
		"some avg10=0.00 avg60=0.12 avg300=0.05 total=12345\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=6789\n",
		"max 100000", "50000 100000", "max", "536870912", "100", "0::/", "12:cpu,cpuacct:/kubepods/pod1/abc\n0::/",
		"some avg10", "1e308 1", "=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if psi, err := ParsePSI(s); err == nil {
			for _, l := range []*PSILine{psi.Some, psi.Full} {
				if l != nil && !(l.Avg10 >= 0 && l.Avg10 <= 100 && l.Avg60 >= 0 && l.Avg60 <= 100 && l.Avg300 >= 0 && l.Avg300 <= 100) {
					t.Fatalf("PSI %q gave %+v", s, l)
				}
			}
		}
		if q, p, err := ParseCPUMax(s); err == nil {
			q2, p2, err := ParseCPUMax(FormatCPUMax(q, p))
			if err != nil || q2 != q || p2 != p {
				t.Fatalf("cpu.max %q -> %d %d -> %d %d %v", s, q, p, q2, p2, err)
			}
		}
		if v, err := ParseMemoryValue(s); err == nil {
			if v2, err := ParseMemoryValue(FormatMemoryValue(v)); err != nil || v2 != v {
				t.Fatalf("memory %q -> %d -> %d %v", s, v, v2, err)
			}
		}
		if w, err := ParseCPUWeight(s); err == nil && (w < MinWeight || w > MaxWeight) {
			t.Fatalf("cpu.weight %q = %d", s, w)
		}
		if lines, err := ParseProcCgroup(s); err == nil {
			for _, l := range lines {
				if l.HierarchyID < 0 {
					t.Fatalf("negative hierarchy in %q", s)
				}
			}
			_, _ = UnifiedPath(lines)
		}
		if r, err := ParseRelease(s); err == nil {
			if r2, err := ParseRelease(r.String()); err != nil || r2 != r {
				t.Fatalf("release %q -> %v -> %v %v", s, r, r2, err)
			}
		}
		_, _, _ = ParseRuntimeVersion(s)
		_ = CheckRequirements(Host{Kernel: s, RuntimeVersion: s, RuntimeName: s, KubeletDriver: Driver(s)})
	})
}

// Conversions: no panic and in range for any integers.
func FuzzConversions(f *testing.F) {
	f.Add(int64(100), int64(100000), uint64(1024), uint64(39))
	f.Add(int64(-1), int64(0), uint64(0), uint64(0))
	f.Add(int64(1)<<62, int64(-1), uint64(1)<<63, uint64(1)<<63)
	f.Fuzz(func(t *testing.T, m, period int64, shares, weight uint64) {
		if s := MilliCPUToShares(m); s < MinShares || s > MaxShares {
			t.Fatalf("shares %d", s)
		}
		if q := MilliCPUToQuota(m, period); m > 0 && period >= 0 && q < MinQuotaPeriod {
			t.Fatalf("quota %d for %d at %d", q, m, period)
		}
		_ = QuotaToMilliCPU(m, period)
		_ = SystemdRoundedQuota(m, period)
		_ = SharesToMilliCPU(shares)
		for _, f := range []WeightFormula{WeightLinear, WeightQuadratic} {
			if w := f.Weight(shares); w > MaxWeight || (shares > 0 && w < MinWeight) {
				t.Fatalf("%v weight %d for %d", f, w, shares)
			}
			if s := f.Shares(weight); s > MaxShares || (weight > 0 && s < MinShares) {
				t.Fatalf("%v shares %d for %d", f, s, weight)
			}
			_, _ = f.WeightChecked(shares)
			_, _ = f.SharesChecked(weight)
		}
		_, _ = MilliCPUToSharesChecked(m)
		_, _ = MilliCPUToQuotaChecked(m, period)
		_, _ = QuotaToMilliCPUChecked(m, period)
		_, _ = SwapLimit(m, period, int64(shares>>1))
		_ = MemoryQoSConfig{ThrottlingFactor: 0.9, PageSize: period}.Container(core.PodQOSBurstable, m, int64(shares>>1), int64(weight>>1))
	})
}
