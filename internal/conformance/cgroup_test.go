package conformance

import (
	"fmt"
	"maps"
	"math"
	"math/rand"
	"strings"
	"testing"
	_ "unsafe" // go:linkname, for the kubelet's unexported cpu.weight helpers

	libcontainercgroups "github.com/opencontainers/cgroups"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	kubefeatures "k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/cm"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
)

// The kubelet's linear shares <-> cpu.weight conversions are unexported
// (pkg/kubelet/cm/cgroup_manager_linux.go getCPUWeight, used for the pod and
// QoS cgroups it writes, and cgroup_v2_manager_linux.go cpuWeightToCPUShares,
// used to read them back); they are reached by name. linkname.s lets these
// declarations go without a body.

//go:linkname kubeletCPUWeight k8s.io/kubernetes/pkg/kubelet/cm.getCPUWeight
func kubeletCPUWeight(cpuShares *uint64) uint64

//go:linkname kubeletCPUWeightToShares k8s.io/kubernetes/pkg/kubelet/cm.cpuWeightToCPUShares
func kubeletCPUWeightToShares(cpuWeight uint64) uint64

// randomInt64 draws from where the conversions' rules change: small values,
// the API's range, the clamp boundaries, and the edges of int64.
func randomInt64(r *rand.Rand) int64 {
	switch r.Intn(8) {
	case 0:
		return int64(r.Intn(21)) - 10
	case 1, 2:
		return int64(r.Intn(5000))
	case 3:
		return int64(r.Intn(300_000_000))
	case 4:
		edges := []int64{1, 2, 3, 9, 10, 11, 999, 1000, 1001, 1023, 1024, 1025, 262143, 262144, 262145, 256000, 256001,
			math.MaxInt64, math.MinInt64, math.MaxInt64 / 1024, math.MaxInt64/1024 + 1, math.MaxInt64 / 1000, math.MaxInt64/1000 + 1,
			math.MaxInt64 / 100000, math.MaxInt64/100000 + 1, -1, -2, 1 << 53, 1<<53 + 1}
		return edges[r.Intn(len(edges))]
	case 5:
		return r.Int63()
	case 6:
		return -r.Int63()
	default:
		return int64(r.Intn(1 << 20))
	}
}

func randomPeriod(r *rand.Rand) int64 {
	periods := []int64{100000, 100000, 100000, 1000, 50000, 1000000, 10000, 1, 0, -1, 999, 1001}
	if r.Intn(5) == 0 {
		return randomInt64(r)
	}
	return periods[r.Intn(len(periods))]
}

// mulOverflows reports whether a*b leaves int64.
func mulOverflows(a, b int64) bool {
	if a == 0 || b == 0 {
		return false
	}
	c := a * b
	return c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64)
}

func TestDifferentialMilliCPUToShares(t *testing.T) {
	c := compare(t, "cgroup.MilliCPUToShares", "pkg/kubelet/cm.MilliCPUToShares",
		"milliCPU: small, negative, clamp boundaries (1..262144 shares), edges of int64")
	r := rand.New(rand.NewSource(21))
	for i, n := 0, inputs(t); i < n; i++ {
		m := randomInt64(r)
		up, nl := cm.MilliCPUToShares(m), cgroup.MilliCPUToShares(m)
		switch {
		case up == nl:
			c.agree()
		case mulOverflows(m, 1024):
			c.deviate("wraps")
		default:
			c.disagree("%d: upstream %d, nodelife %d", m, up, nl)
		}
	}
}

func TestDifferentialMilliCPUToQuota(t *testing.T) {
	for _, gate := range []bool{true, false} {
		t.Run(fmt.Sprintf("CPUCFSQuotaPeriod=%v", gate), func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, kubefeatures.CPUCFSQuotaPeriod, gate)
			c := compare(t, "cgroup.MilliCPUToQuota", fmt.Sprintf("pkg/kubelet/cm.MilliCPUToQuota (CPUCFSQuotaPeriod=%v)", gate),
				"milliCPU as above; period 100ms most often, other periods, 0, negatives and random")
			r := rand.New(rand.NewSource(22))
			for i, n := 0, inputs(t); i < n; i++ {
				m, p := randomInt64(r), randomPeriod(r)
				up, nl := cm.MilliCPUToQuota(m, p), cgroup.MilliCPUToQuota(m, p)
				// The period upstream really uses.
				eff := p
				if !gate {
					eff = cm.QuotaPeriod
				}
				switch {
				case up == nl:
					c.agree()
				case mulOverflows(m, eff):
					c.deviate("wraps")
				case eff != p && up == cgroup.MilliCPUToQuota(m, eff):
					c.deviate("cfs-period")
				default:
					c.disagree("%d over %d: upstream %d, nodelife %d", m, p, up, nl)
				}
			}
		})
	}
}

func TestDifferentialSharesToMilliCPU(t *testing.T) {
	c := compare(t, "cgroup.SharesToMilliCPU", "pkg/kubelet/cm.SharesToMilliCPU",
		"cpu.shares: 0-3, the API's range 2..262144, and values up to 2^63 (upstream takes an int64, so larger ones are not comparable)")
	r := rand.New(rand.NewSource(23))
	for i, n := 0, inputs(t); i < n; i++ {
		s := randomInt64(r)
		if s < 0 {
			s = -s
		}
		if s < 0 { // math.MinInt64
			s = 0
		}
		up, nl := cm.SharesToMilliCPU(s), cgroup.SharesToMilliCPU(uint64(s))
		switch {
		case up == nl:
			c.agree()
		case mulOverflows(s, 1000):
			c.deviate("wraps")
		case s*1000 > 1<<53:
			c.deviate("float64")
		default:
			c.disagree("%d shares: upstream %d, nodelife %d", s, up, nl)
		}
	}
}

func TestDifferentialQuotaToMilliCPU(t *testing.T) {
	c := compare(t, "cgroup.QuotaToMilliCPU", "pkg/kubelet/cm.QuotaToMilliCPU",
		"quota: -1 (no limit), other negatives, small, large; period as for MilliCPUToQuota, 0 included")
	r := rand.New(rand.NewSource(24))
	for i, n := 0, inputs(t); i < n; i++ {
		q, p := randomInt64(r), randomPeriod(r)
		nl := cgroup.QuotaToMilliCPU(q, p)
		up, panicked := catch(func() int64 { return cm.QuotaToMilliCPU(q, p) })
		switch {
		case panicked:
			c.deviate("panics")
		case up == nl:
			c.agree()
		case q < -1:
			c.deviate("negative-quota")
		case mulOverflows(q, 1000):
			c.deviate("wraps")
		case p < 0:
			c.deviate("negative-period")
		default:
			c.disagree("%d over %d: upstream %d, nodelife %d", q, p, up, nl)
		}
	}
}

func randomShares(r *rand.Rand) uint64 {
	switch r.Intn(4) {
	case 0:
		return uint64(r.Intn(5))
	case 1:
		return uint64(2 + r.Intn(262143))
	case 2:
		return uint64(262140 + r.Intn(10))
	default:
		return uint64(r.Intn(1 << 20))
	}
}

func TestDifferentialCPUWeight(t *testing.T) {
	r := rand.New(rand.NewSource(25))
	n := inputs(t)
	lin := compare(t, "cgroup.WeightLinear.Weight", "pkg/kubelet/cm.getCPUWeight (unexported, by linkname)",
		"cpu.shares 0..2^20: below, inside and above 2..262144")
	quad := compare(t, "cgroup.WeightQuadratic.Weight", "github.com/opencontainers/cgroups.ConvertCPUSharesToCgroupV2Value (v0.0.6)",
		"cpu.shares 0..2^20: below, inside and above 2..262144")
	inv := compare(t, "cgroup.WeightLinear.Shares", "pkg/kubelet/cm.cpuWeightToCPUShares (unexported, by linkname)",
		"cpu.weight 1..10000, and one in ten from 0..20000")
	for i := 0; i < n; i++ {
		s := randomShares(r)
		switch up, nl := kubeletCPUWeight(&s), cgroup.WeightLinear.Weight(s); {
		case up == nl:
			lin.agree()
		case s < 2:
			lin.deviate("wraps")
		default:
			lin.disagree("%d shares: upstream %d, nodelife %d", s, up, nl)
		}
		if up, nl := libcontainercgroups.ConvertCPUSharesToCgroupV2Value(s), cgroup.WeightQuadratic.Weight(s); up != nl {
			quad.disagree("%d shares: upstream %d, nodelife %d", s, up, nl)
		} else {
			quad.agree()
		}
		w := uint64(1 + r.Intn(10000))
		if r.Intn(10) == 0 {
			w = uint64(r.Intn(20001)) // 0 and above 10000 too
		}
		switch up, nl := kubeletCPUWeightToShares(w), cgroup.WeightLinear.Shares(w); {
		case up == nl:
			inv.agree()
		case w < 1 || w > 10000:
			inv.deviate("wraps")
		default:
			inv.disagree("weight %d: upstream %d, nodelife %d", w, up, nl)
		}
	}
	// nil is the kubelet's "not set"; nodelife's 0.
	if kubeletCPUWeight(nil) != cgroup.WeightLinear.Weight(0) {
		t.Errorf("unset shares: upstream %d, nodelife %d", kubeletCPUWeight(nil), cgroup.WeightLinear.Weight(0))
	}
}

var componentPool = []string{
	"kubepods", "burstable", "besteffort", "pod1234-abcd-5678", "pod" + strings.Repeat("f", 32), "system", "kubelet",
	"a-b-c", "x", "-", "--", "a-", "-a", "", ".", "..", "a_b", "a/b", "k8s.io", "é", "a.slice", "slice", "\xff",
}

func randomComponents(r *rand.Rand) []string {
	out := make([]string, r.Intn(5))
	for i := range out {
		out[i] = componentPool[r.Intn(len(componentPool))]
		if r.Intn(6) == 0 {
			out[i] = mangle(r, out[i])
		}
	}
	return out
}

// catch calls f and reports whether it panicked (upstream panics on some
// inputs nodelife answers with an error).
func catch[T any](f func() T) (v T, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	return f(), false
}

func sameName(up cm.CgroupName, nl cgroup.Name) bool {
	if len(up) != len(nl) {
		return false
	}
	for i := range up {
		if up[i] != nl[i] {
			return false
		}
	}
	return true
}

func TestDifferentialCgroupNames(t *testing.T) {
	r := rand.New(rand.NewSource(26))
	n := inputs(t)
	const tried = "0-4 components from the kubelet's names, with \"-\", \"_\", \"/\", \".\", \"..\", empty, non-ASCII and mangled ones"
	newName := compare(t, "cgroup.NewName", "pkg/kubelet/cm.NewCgroupName", tried)
	systemd := compare(t, "cgroup.Name.Systemd", "pkg/kubelet/cm.CgroupName.ToSystemd", tried+" (names both sides accept)")
	cgroupfs := compare(t, "cgroup.Name.Cgroupfs", "pkg/kubelet/cm.CgroupName.ToCgroupfs", tried+" (names both sides accept)")
	parseSystemd := compare(t, "cgroup.ParseSystemd", "pkg/kubelet/cm.ParseSystemdToCgroupName",
		"systemd paths made from the names above, and their mangled forms")
	parseCgroupfs := compare(t, "cgroup.ParseCgroupfs", "pkg/kubelet/cm.ParseCgroupfsToCgroupName",
		"cgroupfs paths made from the names above, and their mangled forms")
	for newName.inputs < n || systemd.inputs < n {
		comps := randomComponents(r)
		up, upPanicked := catch(func() cm.CgroupName { return cm.NewCgroupName(nil, comps...) })
		upOK := !upPanicked
		nl, err := cgroup.NewName(nil, comps...)
		switch {
		case upOK && err == nil && sameName(up, nl):
			newName.agree()
		case !upOK && err != nil:
			newName.deviate("panics")
		case upOK && err != nil && stricterName(comps):
			newName.deviate("stricter-name")
		default:
			newName.disagree("%q: upstream %q (ok %v), nodelife %q (%v)", comps, up, upOK, nl, err)
		}
		if upOK && err == nil {
			upS, panicked := catch(up.ToSystemd)
			nlS, nlErr := nl.Systemd()
			switch {
			case panicked && nlErr != nil:
				systemd.deviate("panics")
			case !panicked && nlErr == nil && upS == nlS:
				systemd.agree()
			default:
				systemd.disagree("%q: upstream %q (panicked %v), nodelife %q (%v)", comps, upS, panicked, nlS, nlErr)
			}
			cgroupfs.check(diffString(up.ToCgroupfs(), nl.Cgroupfs()))
		}

		var path string
		if r.Intn(2) == 0 {
			path = "/" + strings.Join(comps, "/")
		} else {
			path = strings.Join(comps, "-") + ".slice"
		}
		path = mangle(r, path)
		upP := cm.ParseSystemdToCgroupName(path)
		nlP, perr := cgroup.ParseSystemd(path)
		switch {
		case perr == nil && sameName(upP, nlP):
			parseSystemd.agree()
		case perr != nil && hasEmpty(upP):
			parseSystemd.deviate("stricter-name")
		case perr == nil && len(nlP) == 0 && len(upP) > 0 && (hasEmpty(upP) || upP[0] == "/" || upP[0] == "."):
			parseSystemd.deviate("systemd-root")
		default:
			parseSystemd.disagree("%q: upstream %q, nodelife %q (%v)", path, upP, nlP, perr)
		}
		if up, nl := cm.ParseCgroupfsToCgroupName(path), cgroup.ParseCgroupfs(path); !sameName(up, nl) {
			parseCgroupfs.disagree("%q: upstream %q, nodelife %q", path, up, nl)
		} else {
			parseCgroupfs.agree()
		}
	}
}

// stricterName reports whether comps has a component nodelife refuses and
// upstream takes: empty, ".", "..", or with "_" (which upstream refuses only
// in NewCgroupName, not in a parsed --cgroup-root).
func stricterName(comps []string) bool {
	for _, c := range comps {
		if c == "" || c == "." || c == ".." || strings.Contains(c, "_") {
			return true
		}
	}
	return false
}

func hasEmpty(n cm.CgroupName) bool {
	for _, c := range n {
		if c == "" {
			return true
		}
	}
	return false
}

func TestDifferentialNodeAllocatableRoot(t *testing.T) {
	c := compare(t, "cgroup.NodeAllocatableRoot (+ Name.Cgroupfs, Name.Systemd)", "pkg/kubelet/cm.NodeAllocatableRoot (cgroupfs and systemd drivers)",
		"--cgroup-root values (\"/\", \"\", nested paths, trailing slashes, mangled), --cgroups-per-qos on and off")
	r := rand.New(rand.NewSource(27))
	roots := []string{"/", "", "/kubelet", "/a/b", "/a/b/", "kubelet", "//x", "/system.slice", "/x-y"}
	for i, n := 0, inputs(t); i < n; i++ {
		root := roots[r.Intn(len(roots))]
		if r.Intn(4) == 0 {
			root = mangle(r, root)
		}
		perQOS := r.Intn(2) == 0
		nl, err := cgroup.NodeAllocatableRoot(root, perQOS)
		upFs := cm.NodeAllocatableRoot(root, perQOS, "cgroupfs")
		upSd, panicked := catch(func() string { return cm.NodeAllocatableRoot(root, perQOS, "systemd") })
		if err != nil {
			if panicked || stricterName(cm.ParseCgroupfsToCgroupName(root)) {
				c.deviate("stricter-name")
			} else {
				c.disagree("root %q perQOS %v: nodelife error %v, upstream %q", root, perQOS, err, upFs)
			}
			continue
		}
		nlSd, sdErr := nl.Systemd()
		switch {
		case nl.Cgroupfs() != upFs:
			c.disagree("root %q perQOS %v cgroupfs: upstream %q, nodelife %q", root, perQOS, upFs, nl.Cgroupfs())
		case panicked && sdErr != nil:
			c.deviate("panics")
		case panicked || sdErr != nil || upSd != nlSd:
			c.disagree("root %q perQOS %v systemd: upstream %q (panicked %v), nodelife %q (%v)", root, perQOS, upSd, panicked, nlSd, sdErr)
		default:
			c.agree()
		}
	}
}

func TestDifferentialHugePageLimits(t *testing.T) {
	c := compare(t, "cgroup.HugePageLimits", "pkg/kubelet/cm.HugePageLimits",
		"resource lists of 0-5 entries: hugepages-2Mi, -1Gi, -64Ki, -1048576, malformed sizes (hugepages-, hugepages-0, hugepages-x, hugepages--1Mi), cpu and memory")
	r := rand.New(rand.NewSource(28))
	names := []string{"hugepages-2Mi", "hugepages-1Gi", "hugepages-64Ki", "hugepages-1048576", "hugepages-2097152", "hugepages-",
		"hugepages-0", "hugepages-x", "hugepages--1Mi", "hugepages-1.5Mi", "cpu", "memory", "hugepages-2M"}
	values := []string{"0", "2Mi", "4Mi", "1Gi", "3", "100m", "1e9", "512Ki"}
	for i, n := 0, inputs(t); i < n; i++ {
		l := v1.ResourceList{}
		for j := r.Intn(6); j > 0; j-- {
			name := names[r.Intn(5)] // well-formed sizes
			if r.Intn(5) == 0 {
				name = names[r.Intn(len(names))]
			}
			l[v1.ResourceName(name)] = resource.MustParse(values[r.Intn(len(values))])
		}
		up, nl := cm.HugePageLimits(l), cgroup.HugePageLimits(toCgroupList(l))
		switch {
		case maps.Equal(up, nl):
			c.agree()
		case maps.Equal(positiveSizes(up), nl):
			c.deviate("hugepage-size")
		default:
			c.disagree("%v: upstream %v, nodelife %v", l, up, nl)
		}
	}
}

func toCgroupList(l v1.ResourceList) core.ResourceList {
	out := core.ResourceList{}
	for k, v := range l {
		out[core.ResourceName(k)] = v
	}
	return out
}

// positiveSizes drops the page sizes upstream files malformed names under
// (0 for a size that does not parse, or a negative size).
func positiveSizes(m map[int64]int64) map[int64]int64 {
	out := map[int64]int64{}
	for k, v := range m {
		if k > 0 {
			out[k] = v
		}
	}
	return out
}
