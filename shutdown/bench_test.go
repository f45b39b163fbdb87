package shutdown

import (
	"fmt"
	"testing"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/coretest"
	"github.com/nodelife/nodelife/taints"
)

var benchSizes = []int{1_000, 10_000, 100_000}

// benchConfig has 10 phases, priorities 0, 1000, ..., 9000.
func benchConfig() Config {
	var c Config
	for i := 0; i < 10; i++ {
		c.ShutdownGracePeriodByPodPriority = append(c.ShutdownGracePeriodByPodPriority, PhaseConfig{Priority: int32(i * 1000), ShutdownGracePeriodSeconds: int64(10 + i)})
	}
	return c
}

// benchPods returns n pods spread over the 10 phases, a third without a
// priority and a third with their own grace period.
func benchPods(n int) []core.Pod {
	pods := make([]core.Pod, n)
	for i := range pods {
		pods[i] = core.Pod{Namespace: fmt.Sprintf("ns-%03d", i%500), Name: fmt.Sprintf("pod-%06d", i), UID: fmt.Sprint(i), Phase: core.PodRunning}
		if i%3 != 0 {
			p := int32(i%10000) + 500
			pods[i].Priority = &p
		}
		if i%3 == 1 {
			g := int64(i % 30)
			pods[i].TerminationGracePeriodSeconds = &g
		}
	}
	return pods
}

// BenchmarkPlan: dividing n pods into 10 phases (the issue asks for 100k
// under 50ms).
func BenchmarkPlan(b *testing.B) {
	c := benchConfig()
	for _, n := range benchSizes {
		pods := benchPods(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := c.Plan(pods); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkManagerShutdown: a whole shutdown of n pods, each reported
// terminated: Start, n PodTerminated calls, phases completing early.
func BenchmarkManagerShutdown(b *testing.B) {
	c := benchConfig()
	for _, n := range benchSizes {
		pods := benchPods(n)
		m0, _ := NewManager(c)
		m0.Start(t0, pods)
		var keys [][]string // per phase, the keys in kill order
		for _, ph := range m0.Plan().Phases {
			var ks []string
			for _, pp := range ph.Pods {
				ks = append(ks, pp.Pod.Key())
			}
			keys = append(keys, ks)
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				m, err := NewManager(c)
				if err != nil {
					b.Fatal(err)
				}
				now := t0
				m.Start(now, pods)
				for m.State() == StateShuttingDown {
					for _, k := range keys[m.Phase()] {
						now = now.Add(time.Millisecond)
						m.PodTerminated(now, k)
					}
				}
			}
		})
	}
}

// BenchmarkOutOfService: force deletion order and volume decisions for n
// terminating pods, each with one volume.
func BenchmarkOutOfService(b *testing.B) {
	node := core.Node{Conditions: coretest.Ready(conditions.Unknown), Taints: []taints.Taint{{Key: taints.TaintNodeOutOfService, Effect: taints.TaintEffectNoExecute}}}
	for _, n := range benchSizes {
		pods := benchPods(n)
		vols := make([]AttachedVolume, n)
		for i := range pods {
			d := t0.Add(-time.Duration(i%977) * time.Second)
			pods[i].DeletionTimestamp = &d
			pods[i].CreationTimestamp = t0.Add(-time.Duration(i%1013) * time.Hour)
			vols[i] = AttachedVolume{Name: "vol-" + pods[i].Name, MountedByNode: true, Pods: []string{pods[i].Key()}}
		}
		var c OutOfServiceConfig
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c.Plan(t0, node, pods, vols)
			}
		})
	}
}
