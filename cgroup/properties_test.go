package cgroup_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifetest"
	"pgregory.net/rapid"
)

// Every conversion is monotone and stays in its range.
func TestPropertyConversionsMonotoneInRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := nodelifetest.MilliCPU().Draw(t, "a")
		b := rapid.Int64Range(a, 400000).Draw(t, "b")
		sa, sb := cgroup.MilliCPUToShares(a), cgroup.MilliCPUToShares(b)
		if sa > sb || sa < cgroup.MinShares || sb > cgroup.MaxShares {
			t.Fatalf("shares %d->%d, %d->%d", a, sa, b, sb)
		}
		period := nodelifetest.QuotaPeriods().Draw(t, "period")
		if a > 0 {
			qa, qb := cgroup.MilliCPUToQuota(a, period), cgroup.MilliCPUToQuota(b, period)
			if qa > qb || qa < cgroup.MinQuotaPeriod {
				t.Fatalf("quota %d->%d, %d->%d at period %d", a, qa, b, qb, period)
			}
			// Reading the quota back never overstates the limit.
			if back := cgroup.QuotaToMilliCPU(qb, period); back > b && qb != cgroup.MinQuotaPeriod {
				t.Fatalf("quota %d of %dm reads back as %dm", qb, b, back)
			}
		}
		if a >= 0 && a <= 256000 {
			// Reading shares back gives the request or a little more, never
			// less (the forward conversion truncates).
			if back := cgroup.SharesToMilliCPU(sa); a >= 2 && (back < a || back > a+1) {
				t.Fatalf("%dm -> %d shares -> %dm", a, sa, back)
			}
		}

		x := nodelifetest.Shares().Draw(t, "x")
		y := rapid.Uint64Range(x, 1<<20).Draw(t, "y")
		for _, f := range []cgroup.WeightFormula{cgroup.WeightLinear, cgroup.WeightQuadratic} {
			wx, wy := f.Weight(x), f.Weight(y)
			if wx > wy || wx < cgroup.MinWeight || wy > cgroup.MaxWeight {
				t.Fatalf("%v weight %d->%d, %d->%d", f, x, wx, y, wy)
			}
			if !cgroup.SharesEqualAfterRoundTrip(f, x, f.Shares(f.Weight(x))) {
				t.Fatalf("%v round trip of %d not recognised", f, x)
			}
			w1 := nodelifetest.Weights().Draw(t, "w1")
			w2 := rapid.Uint64Range(w1, cgroup.MaxWeight).Draw(t, "w2")
			if s1, s2 := f.Shares(w1), f.Shares(w2); s1 > s2 || s1 < cgroup.MinShares || s2 > cgroup.MaxShares {
				t.Fatalf("%v shares %d->%d, %d->%d", f, w1, s1, w2, s2)
			}
		}
		w := nodelifetest.Weights().Draw(t, "w")
		if got := cgroup.WeightQuadratic.Weight(cgroup.WeightQuadratic.Shares(w)); got != w {
			t.Fatalf("quadratic %d -> %d -> %d", w, cgroup.WeightQuadratic.Shares(w), got)
		}
	})
}

// Valid names survive both driver forms and back.
func TestPropertyNamesRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := nodelifetest.CgroupNames().Draw(t, "name")
		if err := n.Validate(); err != nil {
			t.Fatalf("generated name %v invalid: %v", n, err)
		}
		if back := cgroup.ParseCgroupfs(n.Cgroupfs()); !back.Equal(n) {
			t.Fatalf("cgroupfs %v -> %q -> %v", n, n.Cgroupfs(), back)
		}
		sd, err := n.Systemd()
		if err != nil {
			t.Fatalf("Systemd(%v): %v", n, err)
		}
		back, err := cgroup.ParseSystemd(sd)
		if err != nil || !back.Equal(n) {
			t.Fatalf("systemd %v -> %q -> %v, %v", n, sd, back, err)
		}
		slice, _ := n.SystemdSlice()
		if exp, err := cgroup.ExpandSlice(slice); err != nil || exp != sd {
			t.Fatalf("ExpandSlice(%q) = %q, %v; Systemd gave %q", slice, exp, err, sd)
		}
		if len(n) > 0 {
			// A pod under any valid root parses back to the same UID and class.
			uid := rapid.StringMatching(`[0-9a-f]{1,8}(-[0-9a-f]{1,8}){0,4}`).Draw(t, "uid")
			class := rapid.SampledFrom([]core.PodQOSClass{core.PodQOSGuaranteed, core.PodQOSBurstable, core.PodQOSBestEffort}).Draw(t, "class")
			root, _ := cgroup.NewName(n, cgroup.KubepodsComponent)
			pod, err := cgroup.PodName(root, class, uid)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []cgroup.Driver{cgroup.DriverCgroupfs, cgroup.DriverSystemd} {
				p, _ := d.Path(pod)
				pc, err := cgroup.ParsePodCgroup(p)
				if slices.ContainsFunc(n, looksLikeKubepods) {
					continue // the prefix holds its own "kubepods"; the first one wins
				}
				if err != nil || pc.PodUID != uid || pc.QOSClass != class || pc.Driver != d {
					t.Fatalf("%s ParsePodCgroup(%q) = %+v, %v", d, p, pc, err)
				}
			}
		}
	})
}

func looksLikeKubepods(c string) bool {
	c = strings.TrimSuffix(c, ".slice")
	return c[strings.LastIndexByte(c, '-')+1:] == cgroup.KubepodsComponent
}

// naiveSummedQOS restates the 1.36 QoS rule (requests and limits summed
// over the containers) with maps and no shortcuts.
func naiveSummedQOS(p core.Pod) core.PodQOSClass {
	reqs, lims := map[core.ResourceName]int64{}, map[core.ResourceName]int64{}
	allHaveLimits := true
	for _, c := range append(slices.Clone(p.Containers), p.InitContainers...) {
		for _, name := range []core.ResourceName{core.ResourceCPU, core.ResourceMemory} {
			if q, ok := c.Resources.Requests[name]; ok && q.Sign() > 0 {
				reqs[name] += q.MilliValue()
			}
			if q, ok := c.Resources.Limits[name]; ok && q.Sign() > 0 {
				lims[name] += q.MilliValue()
			} else {
				allHaveLimits = false
			}
		}
	}
	if len(reqs) == 0 && len(lims) == 0 {
		return core.PodQOSBestEffort
	}
	if !allHaveLimits || len(reqs) != len(lims) {
		return core.PodQOSBurstable
	}
	for name, r := range reqs {
		if lims[name] != r {
			return core.PodQOSBurstable
		}
	}
	return core.PodQOSGuaranteed
}

// naiveQOS restates the 1.37 rule (reference upstream-1.37.md, a class
// per container, then per pod) with a set of the classes seen.
func naiveQOS(p core.Pod) core.PodQOSClass {
	seen := map[core.PodQOSClass]bool{}
	for _, c := range append(slices.Clone(p.Containers), p.InitContainers...) {
		if len(c.Resources.Requests) == 0 && len(c.Resources.Limits) == 0 {
			seen[core.PodQOSBestEffort] = true
			continue
		}
		perResource := map[core.PodQOSClass]bool{}
		for _, name := range []core.ResourceName{core.ResourceCPU, core.ResourceMemory} {
			r, l := c.Resources.Requests[name], c.Resources.Limits[name]
			switch {
			case r.MilliValue() != l.MilliValue():
				perResource[core.PodQOSBurstable] = true
			case r.MilliValue() == 0:
				perResource[core.PodQOSBestEffort] = true
			default:
				perResource[core.PodQOSGuaranteed] = true
			}
		}
		if len(perResource) > 1 {
			seen[core.PodQOSBurstable] = true
		}
		for class := range perResource {
			seen[class] = true
		}
	}
	switch {
	case len(seen) == 0:
		return core.PodQOSBestEffort
	case seen[core.PodQOSBurstable], len(seen) > 1:
		return core.PodQOSBurstable
	}
	for class := range seen {
		return class
	}
	panic("unreachable")
}

// The QoS class matches the naive rules (1.37's and 1.36's) and does not depend on container
// order; neither do the pod's requests depend on the order of its regular
// containers.
func TestPropertyQOSOrderIndependent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := nodelifetest.OnePod(nodelifetest.Options{}).Draw(t, "pod")
		p.Resources = nil // pod-level resources decide on their own; the naive rule is the containers'
		want := naiveQOS(p)
		if got := cgroup.ComputeQOS(p, cgroup.QOSOptions{}); got != want {
			t.Fatalf("ComputeQOS = %s, naive %s for %+v", got, want, p)
		}
		summed := cgroup.QOSOptions{SumContainersQOS: true}
		if got, want := cgroup.ComputeQOS(p, summed), naiveSummedQOS(p); got != want {
			t.Fatalf("ComputeQOS (1.36, summed) = %s, naive %s for %+v", got, want, p)
		}
		q := p
		q.Containers = rapid.Permutation(p.Containers).Draw(t, "perm")
		q.InitContainers = rapid.Permutation(p.InitContainers).Draw(t, "initperm")
		if got := cgroup.ComputeQOS(q, cgroup.QOSOptions{}); got != want {
			t.Fatalf("permuted: %s, want %s", got, want)
		}
		q.InitContainers = p.InitContainers
		a, b := cgroup.PodRequests(p, cgroup.QOSOptions{}), cgroup.PodRequests(q, cgroup.QOSOptions{})
		if a.MilliCPU() != b.MilliCPU() || a.Memory() != b.Memory() {
			t.Fatalf("requests depend on container order: %v vs %v", a, b)
		}
	})
}

// The swap limit is never negative, never above the node's swap, and grows
// with the request.
func TestPropertySwapLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mem := max(nodelifetest.Bytes(1<<50).Draw(t, "mem"), 1)
		swap := nodelifetest.Bytes(1<<50).Draw(t, "swap")
		r1 := rapid.Int64Range(0, mem).Draw(t, "r1")
		r2 := rapid.Int64Range(r1, mem).Draw(t, "r2")
		l1, err1 := cgroup.SwapLimit(r1, mem, swap)
		l2, err2 := cgroup.SwapLimit(r2, mem, swap)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if l1 < 0 || l2 > swap || l1 > l2 {
			t.Fatalf("limits %d (req %d), %d (req %d) of swap %d, memory %d", l1, r1, l2, r2, swap, mem)
		}
	})
}

// memory.high, when written, is a whole number of pages strictly above the
// request and no more than the limit (or allocatable).
func TestPropertyMemoryHigh(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := cgroup.MemoryQoSConfig{
			ThrottlingFactor: rapid.Float64Range(0.01, 1).Draw(t, "factor"),
			PageSize:         rapid.SampledFrom([]int64{4096, 16384, 65536}).Draw(t, "page"),
		}
		req := nodelifetest.Bytes(1<<40).Draw(t, "req")
		lim := nodelifetest.Bytes(1<<41).Draw(t, "lim")
		alloc := nodelifetest.Bytes(1<<42).Draw(t, "alloc")
		v := cfg.Container(core.PodQOSBurstable, req, lim, alloc)
		top := lim
		if top == 0 {
			top = alloc
		}
		if v.High != 0 && (v.High <= req || v.High > top || v.High%cfg.PageSize != 0) {
			t.Fatalf("high %d for req %d lim %d alloc %d", v.High, req, lim, alloc)
		}
		if (v.High == 0) == (v.HighSkipped == "") {
			t.Fatalf("high %d with reason %q", v.High, v.HighSkipped)
		}
	})
}
