package pressure_test

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"testing"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/nodelifetest"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"
)

var genSignal = rapid.SampledFrom(pressure.Signals())

// drawPods draws up to 12 pods from nodelifetest with plain containers (no
// init containers, pod-level resources or overhead), so that the naive
// oracle's request is a sum, and names that collide (three per
// namespace), so that the tie-break reaches the UID.
func drawPods(t *rapid.T) ([]core.Pod, pressure.Stats) {
	drawn := nodelifetest.Pods(nodelifetest.Options{}).Draw(t, "pods")
	for i := range drawn {
		drawn[i].InitContainers, drawn[i].Overhead, drawn[i].Resources = nil, nil, nil
		drawn[i].Name = fmt.Sprintf("p%d", i%3)
	}
	return drawn, nodelifetest.PodStats(drawn).Draw(t, "stats")
}

// naiveLess is upstream's multiSorter written from the reference's words,
// with resource.Quantity arithmetic and per-comparison recomputation, plus
// the namespace/name/UID tie-break.
func naiveLess(s pressure.Signal, l pressure.Layout, st pressure.Stats, a, b *core.Pod) bool {
	stats := func(p *core.Pod) bool { return st[p.UID] != nil }
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
		pa, pb := pressure.PriorityOf(a), pressure.PriorityOf(b)
		switch {
		case pa < pb:
			return -1
		case pa > pb:
			return 1
		}
		return 0
	}
	request := func(p *core.Pod, r pressure.Resource) resource.Quantity {
		var sum resource.Quantity
		for _, c := range p.Containers {
			switch r {
			case pressure.ResourceMemory:
				sum.Add(c.Resources.Requests[core.ResourceMemory])
			case pressure.ResourceEphemeralStorage:
				sum.Add(c.Resources.Requests[core.ResourceEphemeralStorage])
			}
		}
		return sum
	}
	usage := func(p *core.Pod) resource.Quantity {
		ps := st[p.UID]
		var u resource.Quantity
		switch s.Resource() {
		case pressure.ResourceMemory:
			if ps.WorkingSetBytes != nil {
				u.Add(*resource.NewQuantity(int64(*ps.WorkingSetBytes), resource.BinarySI))
			}
		case pressure.ResourcePIDs:
			if ps.ProcessCount != nil {
				u.Add(*resource.NewQuantity(int64(*ps.ProcessCount), resource.DecimalSI))
			}
		default:
			inodes := s.Resource() == pressure.ResourceInodes
			pick := func(f *pressure.FsUsage) {
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
			parts := pressure.DiskParts(s, l)
			for _, c := range ps.Containers {
				if parts&pressure.PartRootfs != 0 {
					pick(c.Rootfs)
				}
				if parts&pressure.PartLogs != 0 {
					pick(c.Logs)
				}
			}
			if parts&pressure.PartLocalVolumes != 0 {
				for _, v := range p.Volumes {
					local := v.Source == core.VolumeHostPath || v.Source == core.VolumeGitRepo || v.Source == core.VolumeConfigMap ||
						(v.Source == core.VolumeEmptyDir && (v.EmptyDir == nil || v.EmptyDir.Medium == core.StorageMediumDefault))
					for _, vs := range ps.Volumes {
						if local && vs.Name == v.Name {
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
	if s == pressure.SignalPIDAvailable {
		chain = []func() int{prio, statsFirst(func() int { ua, ub := usage(a), usage(b); return ub.Cmp(ua) })}
	} else {
		exceeds := func(p *core.Pod) bool { r := request(p, s.Resource()); u := usage(p); return u.Cmp(r) > 0 }
		excess := func(p *core.Pod) resource.Quantity {
			u := usage(p)
			req := pressure.ResourceMemory
			if !pressure.IsMemory(s) {
				req = pressure.ResourceEphemeralStorage
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
	return pressure.TieBreak(a, b) < 0
}

func uids(rs []pressure.Ranked) []string {
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
		pods, stats := drawPods(t)
		s, l := genSignal.Draw(t, "signal"), nodelifetest.Layouts().Draw(t, "layout")
		got, err := pressure.Rank(s, l, pods, stats, pressure.RankOptions{})
		if err != nil {
			t.Fatal(err)
		}
		naive := make([]*core.Pod, len(pods))
		for i := range pods {
			naive[i] = &pods[i]
		}
		sort.SliceStable(naive, func(i, j int) bool { return naiveLess(s, l, stats, naive[i], naive[j]) })
		for i := range naive {
			if naive[i].UID != got[i].Pod.UID {
				t.Fatalf("position %d: naive %s, Rank %s\nnaive %v\nrank  %v", i, naive[i].UID, got[i].Pod.UID, naive, uids(got))
			}
		}
		// The sort's comparator is a strict weak order (total here, UIDs
		// being unique): irreflexive, antisymmetric, and consistent with
		// the sorted result, which with pairwise checks implies
		// transitivity over the sorted sequence.
		if err := pressure.CheckKeyOrder(pods, got, s); err != nil {
			t.Fatal(err)
		}
		perm := rapid.Permutation(pods).Draw(t, "perm")
		again, _ := pressure.Rank(s, l, perm, stats, pressure.RankOptions{})
		if !slices.Equal(uids(got), uids(again)) {
			t.Fatalf("order depends on input order:\n%v\n%v", uids(got), uids(again))
		}
	})
}

// Under memory pressure a pod above its request with lower priority never
// ranks after a pod within its request with higher priority.
func TestPropertyMemoryOrdering(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods, stats := drawPods(t)
		s := rapid.SampledFrom([]pressure.Signal{pressure.SignalMemoryAvailable, pressure.SignalAllocatableMemoryAvailable}).Draw(t, "signal")
		got, _ := pressure.Rank(s, pressure.LayoutSingle, pods, stats, pressure.RankOptions{})
		for i := range got {
			for j := i + 1; j < len(got); j++ {
				late, early := got[j], got[i]
				if late.Stats != nil && early.Stats != nil && late.Exceeds && !early.Exceeds && late.Priority < early.Priority {
					t.Fatalf("%s (exceeds, priority %d) ranks after %s (within, priority %d)", late.Pod.UID, late.Priority, early.Pod.UID, early.Priority)
				}
			}
		}
	})
}

// No step ever evicts a critical pod, whatever the pressure and config.
func TestPropertyCriticalNeverSelected(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pods, stats := drawPods(t)
		for i := range pods {
			if rapid.Bool().Draw(t, "limit") && len(pods[i].Containers) > 0 {
				c := &pods[i].Containers[0]
				c.Resources.Limits = maps.Clone(c.Resources.Limits)
				if c.Resources.Limits == nil {
					c.Resources.Limits = core.ResourceList{}
				}
				c.Resources.Limits[core.ResourceEphemeralStorage] = resource.MustParse("1Ki")
			}
		}
		cfg := pressure.DefaultConfig()
		cfg.Layout = nodelifetest.Layouts().Draw(t, "layout")
		cfg.LocalStorageCapacityIsolation = rapid.Bool().Draw(t, "localStorage")
		m, err := pressure.NewManager(cfg)
		if err != nil {
			t.Fatal(err)
		}
		obs := nodelifetest.Observations().Draw(t, "observations")
		r := m.Step(nodelifetest.Epoch(), obs, pods, stats)
		if e := r.Decision.Evict; e != nil && e.Pod.IsCritical() {
			t.Fatalf("critical pod %s selected", e.Pod.UID)
		}
		for _, e := range r.Decision.LocalStorage {
			if e.Pod.IsCritical() {
				t.Fatalf("critical pod %s evicted for local storage", e.Pod.UID)
			}
		}
		if r.Decision.Evict == nil && r.Decision.Kind == pressure.DecideEvict {
			t.Fatal("evict decision without a pod")
		}
		if len(r.Decision.Ranked) > 0 {
			for _, p := range pressure.PlanEvictions(*r.Decision.Threshold, obs[r.Decision.Threshold.Signal], r.Decision.Ranked).Pods {
				if p.Critical {
					t.Fatalf("critical pod %s planned", p.Pod.UID)
				}
			}
		}
	})
}

// Parsing printed thresholds gives the same thresholds back.
func TestPropertyParsePrintStable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := nodelifetest.EvictionSettings(nodelifetest.Options{}).Draw(t, "settings")
		ths, err := s.Parse()
		if err != nil {
			t.Fatalf("generated settings do not parse: %v", err)
		}
		printed := pressure.FormatThresholds(ths)
		again, err := printed.Parse()
		if err != nil {
			t.Fatalf("printed settings do not parse: %v\n%+v", err, printed)
		}
		if a, b := pressure.SortedStrings(ths), pressure.SortedStrings(again); a != b {
			t.Fatalf("\n%s\n%s", a, b)
		}
		for i := range ths {
			if !pressure.ValuesEqual(ths[i].Value, pressure.FindSame(again, ths[i]).Value) {
				t.Fatalf("value changed: %v", ths[i])
			}
		}
	})
}
