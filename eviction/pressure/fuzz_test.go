package pressure

import (
	"testing"
	"time"

	"github.com/nodelife/nodelife/core"
)

// FuzzThresholdGrammar feeds arbitrary settings to the parser: it never
// panics, and accepted thresholds print and re-parse to the same
// thresholds.
func FuzzThresholdGrammar(f *testing.F) {
	f.Add("memory.available", "100Mi", "nodefs.available", "10%", "1m30s", "500Mi", true)
	f.Add("nodefs.available", "0.0%", "nodefs.available", "100.0%", "0s", "5%", false)
	f.Add("imagefs.inodesFree", "10%%", "pid.available", "1e3", "-1s", "0%", true)
	f.Add("swap.available", "1Gi", "memory.available", "NaN%", "1h", "-1", false)
	f.Add("memory.available", "0", "containerfs.available", "1.5Gi", "10m", "150%", true)
	f.Fuzz(func(t *testing.T, hardKey, hardVal, softKey, softVal, grace, reclaim string, pods bool) {
		s := Settings{
			EvictionHard:            map[string]string{hardKey: hardVal},
			EvictionSoft:            map[string]string{softKey: softVal},
			EvictionSoftGracePeriod: map[string]string{softKey: grace},
			EvictionMinimumReclaim:  map[string]string{hardKey: reclaim},
		}
		if pods {
			s.EnforceNodeAllocatable = []string{"pods"}
		}
		_ = LintSettings(s)
		ths, err := s.Parse()
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		again, err := FormatThresholds(ths).Parse()
		if err != nil {
			t.Fatalf("printed settings do not parse: %v", err)
		}
		if a, b := sortedStrings(ths), sortedStrings(again); a != b {
			t.Fatalf("\n%s\n%s", a, b)
		}
		for i := range ths {
			if !ths[i].Value.equal(findSame(again, ths[i]).Value) {
				t.Fatalf("value changed: %v", ths[i])
			}
		}
		// Every accepted config builds a manager and steps without panic.
		m, err := NewManager(Config{Thresholds: ths, PressureTransitionPeriod: time.Minute, LocalStorageCapacityIsolation: true})
		if err != nil {
			t.Fatalf("parsed thresholds do not validate: %v", err)
		}
		obs := Observations{}
		for _, sig := range Signals() {
			obs[sig] = Observation{Available: 1, Capacity: 1 << 40}
		}
		m.Step(t0, obs, []core.Pod{{Name: "p"}}, nil)
	})
}

// FuzzFlags: the flag parsers never panic, and a parsed map prints and
// re-parses to the same map.
func FuzzFlags(f *testing.F) {
	f.Add("memory.available<500Mi,nodefs.available<1Gi")
	f.Add(" a < b ,, c<d<e,")
	f.Add("memory.available=1Gi")
	f.Fuzz(func(t *testing.T, v string) {
		for _, pair := range []struct {
			parse  func(string) (map[string]string, error)
			format func(map[string]string) string
		}{{ParseThresholdFlag, FormatThresholdFlag}, {ParseKeyValueFlag, FormatKeyValueFlag}} {
			m, err := pair.parse(v)
			if err != nil {
				continue
			}
			// Keys and values holding ',', a separator or spaces do not
			// survive printing; every other pair must.
			m2, _ := pair.parse(pair.format(m))
			for k, val := range m {
				if containsAny(k) || containsAny(val) {
					continue
				}
				if got, ok := m2[k]; !ok || got != val {
					t.Fatalf("%q: pair %q=%q printed as %q, re-parsed as %q", v, k, val, pair.format(m), got)
				}
			}
		}
	})
}

func containsAny(s string) bool {
	for _, r := range s {
		if r == ',' || r == '<' || r == '=' || r == ' ' || r == '\t' || r == '\n' {
			return true
		}
	}
	return false
}

// FuzzRankAndStep feeds arbitrary usage numbers to ranking and a step:
// no panic, and no critical pod selected.
func FuzzRankAndStep(f *testing.F) {
	f.Add(uint64(1<<30), uint64(100), int64(5), int64(-3), uint64(0), int32(0), int32(2000000000), byte(0))
	f.Add(^uint64(0), ^uint64(0), int64(-1<<63), int64(1<<62), uint64(1<<63), int32(-1<<31), int32(1<<31-1), byte(255))
	f.Fuzz(func(t *testing.T, ws, rootfs uint64, avail, capacity int64, inodes uint64, p1, p2 int32, flags byte) {
		a := ctr("c", "1Mi", "")
		a.Resources.Limits = rl("", "1Ki")
		static := map[string]string(nil)
		if flags&1 != 0 {
			static = map[string]string{core.ConfigSourceAnnotation: core.SourceFile}
		}
		mirror := map[string]string(nil)
		if flags&2 != 0 {
			mirror = map[string]string{core.ConfigMirrorAnnotation: "m"}
		}
		pods, stats := split([]tp{
			{Pod: core.Pod{Name: "a", UID: "a", Priority: &p1, Containers: []core.Container{a},
				Volumes: []core.Volume{{Name: "v", Source: core.VolumeEmptyDir, EmptyDir: &core.EmptyDirVolumeSource{SizeLimit: q("1Ki")}}}},
				st: &PodStats{WorkingSetBytes: &ws, ProcessCount: &inodes, EphemeralStorageUsedBytes: &rootfs,
					Containers: []ContainerStats{{Name: "c", WorkingSetBytes: &ws, Rootfs: &FsUsage{UsedBytes: &rootfs, InodesUsed: &inodes}, Logs: &FsUsage{}}},
					Volumes:    []VolumeStats{{Name: "v", FsUsage: FsUsage{UsedBytes: &rootfs}}}}},
			{Pod: core.Pod{Name: "b", UID: "b", Priority: &p2, Annotations: static}, st: &PodStats{WorkingSetBytes: &rootfs}},
			{Pod: core.Pod{Name: "c", UID: "c", Annotations: mirror}},
		})
		layout := Layout(flags>>2) % 3
		for _, s := range Signals() {
			if _, err := Rank(s, layout, pods, stats, RankOptions{InodeExcessIgnoresByteRequest: flags&16 != 0}); err != nil {
				t.Fatal(err)
			}
		}
		cfg := DefaultConfig()
		cfg.Layout, cfg.LocalStorageCapacityIsolation, cfg.SoftGracePodAware = layout, flags&32 != 0, flags&64 != 0
		m, err := NewManager(cfg)
		if err != nil {
			t.Fatal(err)
		}
		obs := Observations{}
		for _, s := range Signals() {
			obs[s] = Observation{Available: avail, Capacity: capacity}
		}
		r := m.Step(t0, obs, pods, stats)
		if e := r.Decision.Evict; e != nil && e.Pod.IsCritical() {
			t.Fatal("critical pod selected")
		}
		if r.Decision.Threshold != nil {
			PlanEvictions(*r.Decision.Threshold, obs[r.Decision.Threshold.Signal], r.Decision.Ranked)
		}
	})
}
