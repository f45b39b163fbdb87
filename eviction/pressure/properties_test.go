package pressure

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"
)

var (
	genSignal = rapid.SampledFrom(Signals())
	genLayout = rapid.SampledFrom([]Layout{LayoutSingle, LayoutImageFs, LayoutSplit})
	genQty    = rapid.SampledFrom([]string{"", "0", "1", "500m", "1Ki", "64Mi", "100Mi", "128M", "1Gi", "2Gi"})
	genPrio   = rapid.SampledFrom([]int32{-100, 0, 0, 10, 1000, 1999999999, 2000000000})
)

func genOptU64(t *rapid.T, label string) *uint64 {
	if rapid.IntRange(0, 9).Draw(t, label+"?") == 0 {
		return nil
	}
	v := rapid.SampledFrom([]uint64{0, 1, 1000, ki, mi, 100 * mi, gi, 3 * gi}).Draw(t, label)
	return &v
}

// genPod draws a pod with plain containers (no init containers, pod-level
// resources or overhead), so that the naive oracle's request is a sum.
func genPod(t *rapid.T, i int) Pod {
	p := Pod{Name: fmt.Sprintf("p%d", rapid.IntRange(0, 5).Draw(t, "name")), Namespace: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "ns"),
		UID: fmt.Sprintf("uid-%d", i)}
	if rapid.Bool().Draw(t, "hasPrio") {
		v := genPrio.Draw(t, "prio")
		p.Priority = &v
	}
	p.Static = rapid.IntRange(0, 9).Draw(t, "static") == 0
	p.Mirror = rapid.IntRange(0, 9).Draw(t, "mirror") == 0
	for c := rapid.IntRange(0, 3).Draw(t, "containers"); c > 0; c-- {
		ct := Container{Name: fmt.Sprintf("c%d", c)}
		if s := genQty.Draw(t, "memreq"); s != "" {
			ct.Requests.Memory = qv(s)
		}
		if s := genQty.Draw(t, "ephreq"); s != "" {
			ct.Requests.EphemeralStorage = qv(s)
		}
		p.Containers = append(p.Containers, ct)
	}
	for v := rapid.IntRange(0, 2).Draw(t, "volumes"); v > 0; v-- {
		p.Volumes = append(p.Volumes, Volume{Name: fmt.Sprintf("v%d", v), Local: rapid.Bool().Draw(t, "local")})
	}
	if rapid.IntRange(0, 5).Draw(t, "nostats") == 0 {
		return p
	}
	st := &PodStats{WorkingSetBytes: genOptU64(t, "ws"), ProcessCount: genOptU64(t, "procs")}
	for _, c := range p.Containers {
		st.Containers = append(st.Containers, ContainerStats{Name: c.Name, WorkingSetBytes: genOptU64(t, "cws"),
			Rootfs: &FsUsage{UsedBytes: genOptU64(t, "rootfs"), InodesUsed: genOptU64(t, "rootfsInodes")},
			Logs:   &FsUsage{UsedBytes: genOptU64(t, "logs"), InodesUsed: genOptU64(t, "logsInodes")}})
	}
	for _, v := range p.Volumes {
		st.Volumes = append(st.Volumes, VolumeStats{Name: v.Name, FsUsage: FsUsage{UsedBytes: genOptU64(t, "vol"), InodesUsed: genOptU64(t, "volInodes")}})
	}
	p.Stats = st
	return p
}

func genPods(t *rapid.T) []Pod {
	n := rapid.IntRange(0, 12).Draw(t, "n")
	pods := make([]Pod, n)
	for i := range pods {
		pods[i] = genPod(t, i)
	}
	return pods
}

// naiveLess is upstream's multiSorter written from the reference's words,
// with resource.Quantity arithmetic and per-comparison recomputation, plus
// the namespace/name/UID tie-break.
func naiveLess(s Signal, l Layout, a, b *Pod) bool {
	stats := func(p *Pod) bool { return p.Stats != nil }
	cmpBool := func(x, y bool) int {
		if x == y {
			return 0
		}
		if x {
			return -1
		}
		return 1
	}
	prio := func() int {
		pa, pb := a.priority(), b.priority()
		switch {
		case pa < pb:
			return -1
		case pa > pb:
			return 1
		}
		return 0
	}
	request := func(p *Pod, r Resource) resource.Quantity {
		var sum resource.Quantity
		for _, c := range p.Containers {
			switch r {
			case ResourceMemory:
				sum.Add(c.Requests.Memory)
			case ResourceEphemeralStorage:
				sum.Add(c.Requests.EphemeralStorage)
			}
		}
		return sum
	}
	usage := func(p *Pod) resource.Quantity {
		var u resource.Quantity
		switch s.Resource() {
		case ResourceMemory:
			if p.Stats.WorkingSetBytes != nil {
				u.Add(*resource.NewQuantity(int64(*p.Stats.WorkingSetBytes), resource.BinarySI))
			}
		case ResourcePIDs:
			if p.Stats.ProcessCount != nil {
				u.Add(*resource.NewQuantity(int64(*p.Stats.ProcessCount), resource.DecimalSI))
			}
		default:
			inodes := s.Resource() == ResourceInodes
			pick := func(f *FsUsage) {
				if f == nil {
					return
				}
				v := f.UsedBytes
				if inodes {
					v = f.InodesUsed
				}
				if v != nil {
					u.Add(*resource.NewQuantity(int64(*v), resource.BinarySI))
				}
			}
			parts := DiskParts(s, l)
			for _, c := range p.Stats.Containers {
				if parts&PartRootfs != 0 {
					pick(c.Rootfs)
				}
				if parts&PartLogs != 0 {
					pick(c.Logs)
				}
			}
			if parts&PartLocalVolumes != 0 {
				for _, v := range p.Volumes {
					for _, vs := range p.Stats.Volumes {
						if v.Local && vs.Name == v.Name {
							pick(&vs.FsUsage)
							break
						}
					}
				}
			}
		}
		return u
	}
	var chain []func() int
	statsFirst := func(next func() int) func() int {
		return func() int {
			if !stats(a) || !stats(b) {
				return cmpBool(!stats(a), !stats(b))
			}
			return next()
		}
	}
	if s == SignalPIDAvailable {
		chain = []func() int{prio, statsFirst(func() int { ua, ub := usage(a), usage(b); return ub.Cmp(ua) })}
	} else {
		exceeds := func(p *Pod) bool { r := request(p, s.Resource()); u := usage(p); return u.Cmp(r) > 0 }
		excess := func(p *Pod) resource.Quantity {
			u := usage(p)
			req := ResourceMemory
			if !s.isMemory() {
				req = ResourceEphemeralStorage
			}
			u.Sub(request(p, req))
			return u
		}
		chain = []func() int{
			statsFirst(func() int { return cmpBool(exceeds(a), exceeds(b)) }),
			prio,
			statsFirst(func() int { ea, eb := excess(a), excess(b); return eb.Cmp(ea) }),
		}
	}
	for _, f := range chain {
		if c := f(); c != 0 {
			return c < 0
		}
	}
	return tieBreak(a, b) < 0
}

func uids(rs []Ranked) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Pod.UID
	}
	return out
}

// Rank agrees with the naive upstream comparators, its comparator is a
// strict weak order (here total), and the result does not depend on the
// input order.
func TestPropertyRankOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := genPods(t)
		s, l := genSignal.Draw(t, "signal"), genLayout.Draw(t, "layout")
		got, err := Rank(s, l, pods, RankOptions{})
		if err != nil {
			t.Fatal(err)
		}
		naive := make([]*Pod, len(pods))
		for i := range pods {
			naive[i] = &pods[i]
		}
		sort.SliceStable(naive, func(i, j int) bool { return naiveLess(s, l, naive[i], naive[j]) })
		for i := range naive {
			if naive[i].UID != got[i].Pod.UID {
				t.Fatalf("position %d: naive %s, Rank %s\nnaive %v\nrank  %v", i, naive[i].UID, got[i].Pod.UID, naive, uids(got))
			}
		}
		// The sort's comparator is a strict weak order (total here, UIDs
		// being unique): irreflexive, antisymmetric, and consistent with
		// the sorted result, which with pairwise checks implies
		// transitivity over the sorted sequence.
		order := keyOrder(pods)
		keys := make([]sortKey, len(got))
		for i, r := range got {
			keys[i] = packKey(&got[i], s == SignalPIDAvailable, int32(r.Index))
		}
		for i := range keys {
			if order(keys[i], keys[i]) != 0 {
				t.Fatalf("not irreflexive at %d", i)
			}
			for j := range keys {
				c1, c2 := order(keys[i], keys[j]), order(keys[j], keys[i])
				if (c1 < 0) != (c2 > 0) || (i < j && c1 >= 0) {
					t.Fatalf("order broken between %d and %d: %d %d", i, j, c1, c2)
				}
			}
		}
		perm := rapid.Permutation(pods).Draw(t, "perm")
		again, _ := Rank(s, l, perm, RankOptions{})
		if !slices.Equal(uids(got), uids(again)) {
			t.Fatalf("order depends on input order:\n%v\n%v", uids(got), uids(again))
		}
	})
}

// Under memory pressure a pod above its request with lower priority never
// ranks after a pod within its request with higher priority.
func TestPropertyMemoryOrdering(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := genPods(t)
		s := rapid.SampledFrom([]Signal{SignalMemoryAvailable, SignalAllocatableMemoryAvailable}).Draw(t, "signal")
		got, _ := Rank(s, LayoutSingle, pods, RankOptions{})
		for i := range got {
			for j := i + 1; j < len(got); j++ {
				late, early := got[j], got[i]
				if late.HasStats && early.HasStats && late.Exceeds && !early.Exceeds && late.Priority < early.Priority {
					t.Fatalf("%s (exceeds, priority %d) ranks after %s (within, priority %d)", late.Pod.UID, late.Priority, early.Pod.UID, early.Priority)
				}
			}
		}
	})
}

// No step ever evicts a critical pod, whatever the pressure and config.
func TestPropertyCriticalNeverSelected(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods := genPods(t)
		for i := range pods {
			if rapid.Bool().Draw(t, "limit") && len(pods[i].Containers) > 0 {
				pods[i].Containers[0].Limits.EphemeralStorage = qv("1Ki")
			}
		}
		cfg := DefaultConfig()
		cfg.Layout = genLayout.Draw(t, "layout")
		cfg.LocalStorageCapacityIsolation = rapid.Bool().Draw(t, "localStorage")
		m, err := NewManager(cfg)
		if err != nil {
			t.Fatal(err)
		}
		obs := Observations{}
		for _, s := range Signals() {
			if rapid.Bool().Draw(t, "observe "+string(s)) {
				obs[s] = Observation{Available: rapid.Int64Range(-10, 2*gi).Draw(t, "avail"), Capacity: 100 * gi}
			}
		}
		r := m.Step(obs, pods, t0)
		if e := r.Decision.Evict; e != nil && e.Pod.IsCritical() {
			t.Fatalf("critical pod %s selected", e.Pod.UID)
		}
		for _, e := range r.Decision.LocalStorage {
			if e.Pod.IsCritical() {
				t.Fatalf("critical pod %s evicted for local storage", e.Pod.UID)
			}
		}
		if r.Decision.Evict == nil && r.Decision.Kind == DecideEvict {
			t.Fatal("evict decision without a pod")
		}
		if len(r.Decision.Ranked) > 0 {
			for _, p := range PlanEvictions(*r.Decision.Threshold, obs[r.Decision.Threshold.Signal], r.Decision.Ranked).Pods {
				if p.Critical {
					t.Fatalf("critical pod %s planned", p.Pod.UID)
				}
			}
		}
	})
}

var genValue = rapid.OneOf(
	rapid.SampledFrom([]string{"0%", "100%", "0.0%", "100.0%", "10%%", "1", "100Mi", "1.5Gi", "2G", "500m", "1e3", "12.5%", "0.001%", "99.99%"}),
	rapid.Custom(func(t *rapid.T) string {
		return fmt.Sprintf("%g%%", rapid.Float64Range(0, 100).Draw(t, "pct"))
	}),
	rapid.Custom(func(t *rapid.T) string {
		return fmt.Sprintf("%d%s", rapid.IntRange(1, 1<<20).Draw(t, "n"), rapid.SampledFrom([]string{"", "Ki", "Mi", "Gi", "k", "M"}).Draw(t, "suffix"))
	}),
)

// Parsing printed thresholds gives the same thresholds back.
func TestPropertyParsePrintStable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := Settings{EvictionHard: map[string]string{}, EvictionSoft: map[string]string{}, EvictionSoftGracePeriod: map[string]string{}, EvictionMinimumReclaim: map[string]string{}}
		for _, sig := range Signals() {
			k := string(sig)
			if rapid.Bool().Draw(t, "hard "+k) {
				s.EvictionHard[k] = genValue.Draw(t, "hardValue")
			}
			if rapid.Bool().Draw(t, "soft "+k) {
				s.EvictionSoft[k] = genValue.Draw(t, "softValue")
				s.EvictionSoftGracePeriod[k] = rapid.SampledFrom([]string{"0s", "1s", "1m30s", "10m"}).Draw(t, "grace")
			}
			if rapid.Bool().Draw(t, "reclaim "+k) {
				s.EvictionMinimumReclaim[k] = rapid.SampledFrom([]string{"0", "1Mi", "5%", "150%", "0.5%"}).Draw(t, "reclaim")
			}
		}
		if rapid.Bool().Draw(t, "pods") {
			s.EnforceNodeAllocatable = []string{"pods"}
		}
		ths, err := s.Parse()
		if err != nil {
			t.Fatalf("generated settings do not parse: %v", err)
		}
		printed := FormatThresholds(ths)
		again, err := printed.Parse()
		if err != nil {
			t.Fatalf("printed settings do not parse: %v\n%+v", err, printed)
		}
		if a, b := sortedStrings(ths), sortedStrings(again); a != b {
			t.Fatalf("\n%s\n%s", a, b)
		}
		for i := range ths {
			if !ths[i].Value.equal(findSame(again, ths[i]).Value) {
				t.Fatalf("value changed: %v", ths[i])
			}
		}
	})
}

func sortedStrings(ths []Threshold) string {
	s := make([]string, len(ths))
	for i, t := range ths {
		s[i] = t.String()
	}
	slices.Sort(s)
	return strings.Join(s, "; ")
}

func findSame(ths []Threshold, t Threshold) Threshold {
	for _, o := range ths {
		if o.String() == t.String() {
			return o
		}
	}
	return Threshold{}
}
