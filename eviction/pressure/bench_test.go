package pressure

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
)

// benchPods builds n pods with a realistic spread: two containers each,
// requests from a few sizes, priorities from a few classes, working sets,
// rootfs, logs and one local volume.
func benchPods(n int) []tp {
	sizes := []string{"64Mi", "128Mi", "256Mi", "1Gi"}
	prios := []int32{0, 0, 100, 1000, 2000000000}
	pods := make([]tp, n)
	for i := range pods {
		ws := uint64(i%977) * mi
		disk := uint64(i%631) * mi
		prio := prios[i%len(prios)]
		pods[i] = tp{Pod: core.Pod{
			Name: fmt.Sprintf("pod-%d", i), Namespace: fmt.Sprintf("ns-%d", i%50), UID: fmt.Sprintf("uid-%d", i), Priority: &prio,
			Containers: []core.Container{ctr("app", sizes[i%4], sizes[(i+1)%4]), ctr("sidecar", sizes[(i+2)%4], "")},
			Volumes:    []core.Volume{local("cache")},
		}, st: &PodStats{WorkingSetBytes: &ws, ProcessCount: u64(uint64(i % 97)),
			Containers: []ContainerStats{
				{Name: "app", WorkingSetBytes: &ws, Rootfs: &FsUsage{UsedBytes: &disk, InodesUsed: u64(uint64(i % 1013))}, Logs: &FsUsage{UsedBytes: u64(mi)}},
				{Name: "sidecar", Rootfs: &FsUsage{UsedBytes: u64(ki)}, Logs: &FsUsage{UsedBytes: u64(ki)}},
			},
			Volumes: []VolumeStats{{Name: "cache", FsUsage: FsUsage{UsedBytes: &disk}}},
		}}
	}
	return pods
}

func BenchmarkRank(b *testing.B) {
	for _, sig := range []Signal{SignalMemoryAvailable, SignalNodeFsAvailable, SignalPIDAvailable} {
		for _, n := range []int{1000, 10000, 100000} {
			pods, stats := split(benchPods(n))
			b.Run(fmt.Sprintf("%s/n=%d", sig, n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := Rank(sig, LayoutImageFs, pods, stats, RankOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// benchThresholds returns n thresholds spread over every signal, hard and
// soft, quantities and percentages.
func benchThresholds(n int) []Threshold {
	out := make([]Threshold, 0, n)
	for i := 0; len(out) < n; i++ {
		s := Signals()[i%numSignals]
		t := Threshold{Signal: s, Operator: OpLessThan, MinReclaim: &ThresholdValue{Percentage: 0.01}}
		if i%2 == 0 {
			t.Value.Percentage = float32(i%50+1) / 100
		} else {
			t.Value.Quantity = resource.NewQuantity(int64(i+1)*mi, resource.BinarySI)
		}
		if i%3 == 0 {
			t.GracePeriod = time.Duration(i%5) * time.Minute
		}
		out = append(out, t)
	}
	return out
}

// BenchmarkStep is one manager step with 100 thresholds, memory pressure
// (so a 10k-pod ranking and an eviction) and the node otherwise healthy.
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		pods := benchPods(n)
		m, err := NewManager(Config{Thresholds: benchThresholds(100), Layout: LayoutImageFs, PressureTransitionPeriod: DefaultPressureTransitionPeriod, LocalStorageCapacityIsolation: true})
		if err != nil {
			b.Fatal(err)
		}
		obs := Observations{}
		for _, s := range Signals() {
			obs[s] = Observation{Available: 40 * gi, Capacity: 100 * gi}
		}
		obs[SignalMemoryAvailable] = Observation{Available: mi, Capacity: 64 * gi}
		b.Run(fmt.Sprintf("thresholds=100/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			now := t0
			for i := 0; i < b.N; i++ {
				now = now.Add(MonitoringPeriod)
				r := step(m, obs, pods, now)
				if r.Decision.Evict == nil {
					b.Fatal("no eviction")
				}
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	s := DefaultSettings("linux")
	s.EvictionSoft = map[string]string{"memory.available": "1Gi", "nodefs.available": "15%"}
	s.EvictionSoftGracePeriod = map[string]string{"memory.available": "1m30s", "nodefs.available": "2m"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := s.Parse(); err != nil {
			b.Fatal(err)
		}
	}
}
