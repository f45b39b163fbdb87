package cgroup

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"
)

// Every conversion is monotone and stays in its range.
func TestPropertyConversionsMonotoneInRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.Int64Range(-1000, 400000).Draw(t, "a")
		b := rapid.Int64Range(a, 400000).Draw(t, "b")
		sa, sb := MilliCPUToShares(a), MilliCPUToShares(b)
		if sa > sb || sa < MinShares || sb > MaxShares {
			t.Fatalf("shares %d->%d, %d->%d", a, sa, b, sb)
		}
		period := rapid.Int64Range(MinQuotaPeriod, MaxQuotaPeriod).Draw(t, "period")
		if a > 0 {
			qa, qb := MilliCPUToQuota(a, period), MilliCPUToQuota(b, period)
			if qa > qb || qa < MinQuotaPeriod {
				t.Fatalf("quota %d->%d, %d->%d at period %d", a, qa, b, qb, period)
			}
			// Reading the quota back never overstates the limit.
			if back := QuotaToMilliCPU(qb, period); back > b && qb != MinQuotaPeriod {
				t.Fatalf("quota %d of %dm reads back as %dm", qb, b, back)
			}
		}
		if a >= 0 && a <= 256000 {
			// Reading shares back gives the request or a little more, never
			// less (the forward conversion truncates).
			if back := SharesToMilliCPU(sa); a >= 2 && (back < a || back > a+1) {
				t.Fatalf("%dm -> %d shares -> %dm", a, sa, back)
			}
		}

		x := rapid.Uint64Range(1, 1<<20).Draw(t, "x")
		y := rapid.Uint64Range(x, 1<<20).Draw(t, "y")
		for _, f := range []WeightFormula{WeightLinear, WeightQuadratic} {
			wx, wy := f.Weight(x), f.Weight(y)
			if wx > wy || wx < MinWeight || wy > MaxWeight {
				t.Fatalf("%v weight %d->%d, %d->%d", f, x, wx, y, wy)
			}
			if !SharesEqualAfterRoundTrip(f, x, f.Shares(f.Weight(x))) {
				t.Fatalf("%v round trip of %d not recognised", f, x)
			}
			w1 := rapid.Uint64Range(MinWeight, MaxWeight).Draw(t, "w1")
			w2 := rapid.Uint64Range(w1, MaxWeight).Draw(t, "w2")
			if s1, s2 := f.Shares(w1), f.Shares(w2); s1 > s2 || s1 < MinShares || s2 > MaxShares {
				t.Fatalf("%v shares %d->%d, %d->%d", f, w1, s1, w2, s2)
			}
		}
		w := rapid.Uint64Range(MinWeight, MaxWeight).Draw(t, "w")
		if got := WeightQuadratic.Weight(WeightQuadratic.Shares(w)); got != w {
			t.Fatalf("quadratic %d -> %d -> %d", w, WeightQuadratic.Shares(w), got)
		}
	})
}

var componentGen = rapid.StringMatching(`[a-z0-9][a-z0-9.-]{0,12}`)

func validName(t *rapid.T) Name {
	n := rapid.SliceOfN(componentGen, 0, 6).Draw(t, "name")
	for _, c := range n {
		if c == "." || c == ".." {
			t.Skip("relative component")
		}
	}
	return Name(n)
}

// Valid names survive both driver forms and back.
func TestPropertyNamesRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := validName(t)
		if err := n.Validate(); err != nil {
			t.Fatalf("generated name %v invalid: %v", n, err)
		}
		if back := ParseCgroupfs(n.Cgroupfs()); !back.Equal(n) {
			t.Fatalf("cgroupfs %v -> %q -> %v", n, n.Cgroupfs(), back)
		}
		sd, err := n.Systemd()
		if err != nil {
			t.Fatalf("Systemd(%v): %v", n, err)
		}
		back, err := ParseSystemd(sd)
		if err != nil || !back.Equal(n) {
			t.Fatalf("systemd %v -> %q -> %v, %v", n, sd, back, err)
		}
		slice, _ := n.SystemdSlice()
		if exp, err := ExpandSlice(slice); err != nil || exp != sd {
			t.Fatalf("ExpandSlice(%q) = %q, %v; Systemd gave %q", slice, exp, err, sd)
		}
		if len(n) > 0 {
			// A pod under any valid root parses back to the same UID and class.
			uid := rapid.StringMatching(`[0-9a-f]{1,8}(-[0-9a-f]{1,8}){0,4}`).Draw(t, "uid")
			class := rapid.SampledFrom([]QOSClass{Guaranteed, Burstable, BestEffort}).Draw(t, "class")
			root, _ := NewName(n, KubepodsComponent)
			pod, err := PodName(root, class, uid)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []Driver{DriverCgroupfs, DriverSystemd} {
				p, _ := d.Path(pod)
				pc, err := ParsePodCgroup(p)
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
	return c[strings.LastIndexByte(c, '-')+1:] == KubepodsComponent
}

func quantityGen(t *rapid.T, label string) resource.Quantity {
	return *resource.NewMilliQuantity(rapid.Int64Range(0, 4000).Draw(t, label), resource.DecimalSI)
}

func containerGen(t *rapid.T, i int) Container {
	c := Container{Name: string(rune('a' + i)), Resources: Resources{Requests: ResourceList{}, Limits: ResourceList{}}}
	for _, name := range []ResourceName{ResourceCPU, ResourceMemory} {
		if rapid.IntRange(0, 3).Draw(t, "lim"+string(name)) > 0 {
			c.Resources.Limits[name] = quantityGen(t, "limq"+string(name))
		}
		// Requests are often equal to the limit, so that Guaranteed pods
		// and their near misses are common.
		switch rapid.IntRange(0, 3).Draw(t, "req"+string(name)) {
		case 1:
			c.Resources.Requests[name] = quantityGen(t, "reqq"+string(name))
		case 2, 3:
			if q, ok := c.Resources.Limits[name]; ok {
				c.Resources.Requests[name] = q.DeepCopy()
			}
		}
	}
	if rapid.IntRange(0, 3).Draw(t, "sidecar") == 0 {
		c.RestartPolicy = ContainerRestartPolicyAlways
	}
	return c
}

// naiveQOS restates the QoS rule with maps and no shortcuts.
func naiveQOS(p Pod) QOSClass {
	reqs, lims := map[ResourceName]int64{}, map[ResourceName]int64{}
	allHaveLimits := true
	for _, c := range append(slices.Clone(p.Containers), p.InitContainers...) {
		for _, name := range []ResourceName{ResourceCPU, ResourceMemory} {
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
		return BestEffort
	}
	if !allHaveLimits || len(reqs) != len(lims) {
		return Burstable
	}
	for name, r := range reqs {
		if lims[name] != r {
			return Burstable
		}
	}
	return Guaranteed
}

// The QoS class matches the naive rule and does not depend on container
// order; neither do the pod's requests depend on the order of its regular
// containers.
func TestPropertyQOSOrderIndependent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var p Pod
		for i := rapid.IntRange(0, 4).Draw(t, "n"); i > 0; i-- {
			c := containerGen(t, i)
			c.RestartPolicy = ""
			p.Containers = append(p.Containers, c)
		}
		for i := rapid.IntRange(0, 3).Draw(t, "ninit"); i > 0; i-- {
			p.InitContainers = append(p.InitContainers, containerGen(t, 10+i))
		}
		want := naiveQOS(p)
		if got := ComputeQOS(p, QOSOptions{}); got != want {
			t.Fatalf("ComputeQOS = %s, naive %s for %+v", got, want, p)
		}
		q := p
		q.Containers = rapid.Permutation(p.Containers).Draw(t, "perm")
		q.InitContainers = rapid.Permutation(p.InitContainers).Draw(t, "initperm")
		if got := ComputeQOS(q, QOSOptions{}); got != want {
			t.Fatalf("permuted: %s, want %s", got, want)
		}
		q.InitContainers = p.InitContainers
		a, b := PodRequests(p, QOSOptions{}), PodRequests(q, QOSOptions{})
		if a.MilliCPU() != b.MilliCPU() || a.Memory() != b.Memory() {
			t.Fatalf("requests depend on container order: %v vs %v", a, b)
		}
	})
}

// The swap limit is never negative, never above the node's swap, and grows
// with the request.
func TestPropertySwapLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mem := rapid.Int64Range(1, 1<<50).Draw(t, "mem")
		swap := rapid.Int64Range(0, 1<<50).Draw(t, "swap")
		r1 := rapid.Int64Range(0, mem).Draw(t, "r1")
		r2 := rapid.Int64Range(r1, mem).Draw(t, "r2")
		l1, err1 := SwapLimit(r1, mem, swap)
		l2, err2 := SwapLimit(r2, mem, swap)
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
		cfg := MemoryQoSConfig{
			ThrottlingFactor: rapid.Float64Range(0.01, 1).Draw(t, "factor"),
			PageSize:         rapid.SampledFrom([]int64{4096, 16384, 65536}).Draw(t, "page"),
		}
		req := rapid.Int64Range(0, 1<<40).Draw(t, "req")
		lim := rapid.Int64Range(0, 1<<41).Draw(t, "lim")
		alloc := rapid.Int64Range(0, 1<<42).Draw(t, "alloc")
		v := cfg.Container(Burstable, req, lim, alloc)
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
