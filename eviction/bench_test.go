package eviction

import (
	"fmt"
	"testing"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

var benchSizes = []int{1_000, 10_000, 100_000}

// BenchmarkPlanDisruption: zone states and rates for n nodes in 100 zones,
// a tenth of them not ready.
func BenchmarkPlanDisruption(b *testing.B) {
	for _, n := range benchSizes {
		nodes := make([]ZoneNode, n)
		for i := range nodes {
			nodes[i] = ZoneNode{Name: fmt.Sprintf("node-%06d", i), Zone: ZoneKey(map[string]string{LabelTopologyZone: fmt.Sprintf("zone-%02d", i%100)}), Ready: conditions.True}
			if i%10 == 0 {
				nodes[i].Ready = conditions.Unknown
			}
		}
		c := DefaultConfig()
		prev, _ := c.PlanDisruption(nil, nodes)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := c.PlanDisruption(prev.Next, nodes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPlanNode: NoExecute planning for n pods on an unreachable,
// not-ready node, each pod with the admission defaults plus one more
// toleration, a third of them already scheduled.
func BenchmarkPlanNode(b *testing.B) {
	nodeTaints := []taints.Taint{
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute, TimeAdded: t0},
		{Key: "example.com/maintenance", Effect: taints.TaintEffectNoSchedule},
	}
	tols := append([]taints.Toleration{{Key: "example.com/dedicated", Operator: taints.TolerationOpEqual, Value: "db", Effect: taints.TaintEffectNoSchedule}},
		taints.DefaultNoExecuteTolerations()...)
	for _, n := range benchSizes {
		pods := make([]core.Pod, n)
		sched := make(map[string]Scheduled)
		for i := range pods {
			pods[i] = core.Pod{Namespace: fmt.Sprintf("ns-%03d", i%500), Name: fmt.Sprintf("pod-%06d", i), UID: fmt.Sprint(i), Tolerations: tols}
			if i%3 == 0 {
				sched[pods[i].Key()] = Scheduled{CreatedAt: t0, At: t0.Add(300 * time.Second)}
			}
		}
		var c NoExecuteConfig
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c.PlanNode(t0.Add(10*time.Second), nodeTaints, pods, sched)
			}
		})
	}
}

// BenchmarkPlanNodes: NoExecute planning for 100k pods spread as a real
// cluster holds them, 1000 tainted nodes of 100 pods (upstream's default
// max-pods is 110), one PlanNode call per node.
func BenchmarkPlanNodes(b *testing.B) {
	nodeTaints := []taints.Taint{{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute, TimeAdded: t0}}
	tols := taints.DefaultNoExecuteTolerations()
	const nodes, perNode = 1000, 100
	podsByNode := make([][]core.Pod, nodes)
	sched := make(map[string]Scheduled)
	for n := range podsByNode {
		for i := 0; i < perNode; i++ {
			p := core.Pod{Namespace: fmt.Sprintf("ns-%03d", (n*perNode+i)%500), Name: fmt.Sprintf("pod-%06d", n*perNode+i), UID: fmt.Sprint(n*perNode + i), Tolerations: tols}
			podsByNode[n] = append(podsByNode[n], p)
			if i%3 == 0 {
				sched[p.Key()] = Scheduled{CreatedAt: t0, At: t0.Add(300 * time.Second)}
			}
		}
	}
	var c NoExecuteConfig
	b.Run(fmt.Sprintf("n=%d", nodes*perNode), func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, pods := range podsByNode {
				c.PlanNode(t0.Add(10*time.Second), nodeTaints, pods, sched)
			}
		}
	})
}

// BenchmarkQueue: Add, Remove and a processed Try on a queue holding n
// items; each is O(log n).
func BenchmarkQueue(b *testing.B) {
	for _, n := range benchSizes {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("node-%06d", i)
		}
		b.Run(fmt.Sprintf("op=add-remove/n=%d", n), func(b *testing.B) {
			q, _ := NewRateLimitedQueue(0.1, FixedQueueOptions())
			for i, name := range names {
				q.Add(t0.Add(time.Duration(i%977)*time.Millisecond), name, "")
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				name := names[i%n]
				q.Remove(name)
				q.Add(t0.Add(time.Duration(i%977)*time.Millisecond), name, "")
			}
		})
		b.Run(fmt.Sprintf("op=try-retry/n=%d", n), func(b *testing.B) {
			q, _ := NewRateLimitedQueue(1e9, FixedQueueOptions()) // a token every ns
			for i, name := range names {
				q.Add(t0.Add(time.Duration(i%977)*time.Millisecond), name, "")
			}
			now := t0.Add(time.Second)
			retry := func(Item) (bool, time.Duration) { return false, time.Second }
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				now = now.Add(time.Nanosecond)
				if q.Try(now, retry) == 0 {
					now = now.Add(2 * time.Second)
				}
			}
		})
	}
}
