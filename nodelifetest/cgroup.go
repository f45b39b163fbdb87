package nodelifetest

import (
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/cgroup"
)

// MilliCPU draws cpu amounts in millicores from -1000 to 400000, the
// edges of the shares and quota conversions (0, 1, 2, 1000, 256000 and
// the values around them) more often than the rest.
func MilliCPU() *rapid.Generator[int64] {
	return rapid.OneOf(
		rapid.SampledFrom([]int64{-1, 0, 1, 2, 3, 9, 10, 11, 999, 1000, 1001, 255999, 256000, 256001, 262144}),
		rapid.Int64Range(-1000, 400000),
	)
}

// QuotaPeriods draws CFS periods (microseconds) within the kernel's range.
func QuotaPeriods() *rapid.Generator[int64] {
	return rapid.OneOf(rapid.SampledFrom([]int64{cgroup.MinQuotaPeriod, 100000, cgroup.MaxQuotaPeriod}),
		rapid.Int64Range(cgroup.MinQuotaPeriod, cgroup.MaxQuotaPeriod))
}

// Shares draws cgroup v1 cpu.shares values from 1 to 2^20, the bounds
// MinShares and MaxShares and 1024 included.
func Shares() *rapid.Generator[uint64] {
	return rapid.OneOf(rapid.SampledFrom([]uint64{1, cgroup.MinShares, 1024, cgroup.MaxShares, 1 << 20}), rapid.Uint64Range(1, 1<<20))
}

// Weights draws cgroup v2 cpu.weight values within MinWeight..MaxWeight.
func Weights() *rapid.Generator[uint64] {
	return rapid.OneOf(rapid.SampledFrom([]uint64{cgroup.MinWeight, 100, cgroup.MaxWeight}), rapid.Uint64Range(cgroup.MinWeight, cgroup.MaxWeight))
}

// CgroupNames draws cgroup names for the cgroupfs and systemd drivers:
// up to 6 components of lower-case letters, digits, dots and dashes, with
// "kubepods" often first.
func CgroupNames() *rapid.Generator[cgroup.Name] {
	component := rapid.StringMatching(`[a-z0-9][a-z0-9.-]{0,12}`)
	return rapid.Custom(func(t *rapid.T) cgroup.Name {
		var n cgroup.Name
		if rapid.Bool().Draw(t, "kubepods") {
			n = append(n, cgroup.KubepodsComponent)
		}
		for i := rapid.IntRange(0, 5).Draw(t, "components"); i > 0; i-- {
			n = append(n, component.Draw(t, "component"))
		}
		return n
	})
}

// Bytes draws byte counts from 0 to max: the page-size edges (0, 1, 4095,
// 4096, 4097), max and the values next to it more often than the rest.
func Bytes(max int64) *rapid.Generator[int64] {
	var edges []int64
	for _, v := range []int64{0, 1, 4095, 4096, 4097, max - 1, max} {
		if v >= 0 && v <= max {
			edges = append(edges, v)
		}
	}
	return rapid.OneOf(rapid.SampledFrom(edges), rapid.Int64Range(0, max))
}
