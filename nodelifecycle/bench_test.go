package nodelifecycle

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/taints"
)

// benchCluster builds upstream's scalability envelope: nodes in three
// zones, podsPerNode pods each with admission's 300s tolerations, every
// node Ready with a lease renewed at start, and runs the first monitor
// pass.
func benchCluster(tb testing.TB, nodes, podsPerNode int) (*Controller, time.Time) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c, err := New(DefaultConfig())
	if err != nil {
		tb.Fatal(err)
	}
	tols := taints.WithDefaultTolerationSeconds(nil, 300, 300)
	for i := 0; i < nodes; i++ {
		name := fmt.Sprintf("node-%05d", i)
		zone := string(rune('a' + i%3))
		c.UpsertNode(core.Node{Name: name, UID: "uid-" + name, CreationTimestamp: start.Add(-time.Hour),
			Labels:     map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: zone},
			Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, LastHeartbeatTime: start, LastTransitionTime: start}}})
		c.UpsertLease(Lease{Node: name, RenewTime: start})
		for k := 0; k < podsPerNode; k++ {
			c.UpsertPod(corePod(PodState{Namespace: "ns", Name: fmt.Sprintf("%s-%d", name, k), UID: fmt.Sprintf("%d-%d", i, k), NodeName: name, Ready: true, Tolerations: tols}))
		}
	}
	c.StepAll(start)
	return c, start
}

// One lease renewal, then a Step between monitor passes: 5,000 nodes of
// 30 pods, and issue 48's 100,000 nodes of 10 pods (a million pods; about
// 20 s to build).
func BenchmarkStepAfterLeaseRenewal(b *testing.B) {
	for _, size := range []struct{ nodes, pods int }{{5000, 30}, {100000, 10}} {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", size.nodes, size.nodes*size.pods), func(b *testing.B) {
			c, start := benchCluster(b, size.nodes, size.pods)
			names := benchNames(size.nodes)
			now := start.Add(time.Second)
			c.StepAll(now)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				now = now.Add(time.Nanosecond)
				c.UpsertLease(Lease{Node: names[i%size.nodes], RenewTime: now})
				if r := c.StepAll(now); len(r.Actions) != 0 {
					b.Fatalf("unexpected actions %v", r.Actions)
				}
			}
		})
	}
}

// A lease renewal recorded by name (UpsertLease) and through a ref taken
// once (RenewLease), at 100,000 nodes, renewing them in turn as their
// kubelets would: what a simulator pays per renewal.
func BenchmarkLeaseRenewal(b *testing.B) {
	c, start := benchCluster(b, 100000, 0)
	names := benchNames(100000)
	refs := make([]LeaseRef, len(names))
	for i, name := range names {
		refs[i], _ = c.LeaseRef(name)
	}
	b.Run("UpsertLease", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			c.UpsertLease(Lease{Node: names[i%len(names)], RenewTime: start.Add(time.Duration(i)), ResourceVersion: "7"})
		}
	})
	b.Run("RenewLease", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			c.RenewLease(refs[i%len(refs)], start.Add(time.Duration(i)), "7")
		}
	})
}

// benchNames are benchCluster's node names.
func benchNames(n int) []string {
	names := make([]string, n)
	for k := range names {
		names[k] = fmt.Sprintf("node-%05d", k)
	}
	return names
}

// A monitor pass over a healthy cluster whose kubelets renew their leases
// every 10s (steady state: every node quiet), and the same pass when every
// node posted a new status since the last one (every node observed in
// full); at 1,000 and 5,000 nodes of 30 pods, and issue 48's 100,000
// nodes of 10 pods.
func BenchmarkMonitorPass(b *testing.B) {
	for _, size := range []struct{ nodes, pods int }{{1000, 30}, {5000, 30}, {100000, 10}} {
		n := size.nodes
		for _, posted := range []bool{false, true} {
			name := fmt.Sprintf("nodes=%d", n)
			if size.pods != 30 {
				name += fmt.Sprintf("/pods=%d", n*size.pods)
			}
			if posted {
				name += "/all-posted"
			}
			b.Run(name, func(b *testing.B) {
				c, start := benchCluster(b, n, size.pods)
				names := benchNames(n)
				now := start
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					now = now.Add(c.cfg.NodeMonitorPeriod)
					b.StopTimer()
					for _, name := range names {
						if i%2 == 0 { // renewals every 10s
							c.UpsertLease(Lease{Node: name, RenewTime: now})
						}
						if posted {
							node, _ := c.Node(name)
							node.Conditions = []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, LastHeartbeatTime: now, LastTransitionTime: start}}
							c.UpsertNode(node)
						}
					}
					if posted {
						c.StepAll(now.Add(-time.Millisecond)) // the condition taints of the upserts, before the pass
					}
					b.StartTimer()
					c.StepAll(now)
				}
			})
		}
	}
}

// zoneOutage cuts zone a, one of three zones of 5,000 nodes x 30 pods,
// off at start and steps at every Next, renewing the other zones' leases
// every 10s, until every pod of zone a is evicted (at 0.1 nodes/s that is
// about 4h40m of cluster time); it returns the evictions.
func zoneOutage(tb testing.TB, c *Controller, start time.Time, names []string) int {
	evicted, now := 0, start
	renew := start.Add(10 * time.Second)
	for now.Before(start.Add(6 * time.Hour)) {
		if !now.Before(renew) {
			for i, name := range names {
				if i%3 != 0 {
					c.UpsertLease(Lease{Node: name, RenewTime: renew})
				}
			}
			renew = renew.Add(10 * time.Second)
		}
		r := c.StepAll(now)
		for _, a := range r.Actions {
			if a.Kind == KindEvict {
				evicted++
			}
		}
		if evicted == 1667*30 {
			return evicted
		}
		now = r.Next
		if renew.Before(now) {
			now = renew
		}
	}
	tb.Fatalf("only %d pods evicted in six hours", evicted)
	return evicted
}

// A zone of 1,667 nodes (50,010 pods) cut off, from the first Unknown to
// the last eviction; the lease renewals of the other zones are included.
func BenchmarkZoneOutage(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c, start := benchCluster(b, 5000, 30)
		names := benchNames(5000)
		b.StartTimer()
		zoneOutage(b, c, start, names)
	}
}

// TestStatePerPod measures the heap the Controller holds per pod.
func TestStatePerPod(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 150,000 pods")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c, _ := benchCluster(t, 5000, 30)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perPod := float64(after.HeapAlloc-before.HeapAlloc) / 150000
	t.Logf("state: %.0f bytes per pod (nodes and leases included), %d nodes", perPod, len(c.nodes))
	if perPod > 1024 {
		t.Fatalf("state is %.0f bytes per pod, over 1 KB", perPod)
	}
}

// A monitor pass over a healthy cluster whose kubelets renew every 10s on
// schedules (SetRenewals), with the event-driven pass (the default) and
// the every-node pass (EveryNodePass), at 5,000 nodes of 30 pods and
// 100,000 nodes of 10: what a simulator pays per pass.
func BenchmarkMonitorPassRenewals(b *testing.B) {
	for _, size := range []struct{ nodes, pods int }{{5000, 30}, {100000, 10}} {
		for _, every := range []bool{false, true} {
			mode := "event-driven"
			if every {
				mode = "every-node"
			}
			b.Run(fmt.Sprintf("nodes=%d/%s", size.nodes, mode), func(b *testing.B) {
				c, start := benchCluster(b, size.nodes, size.pods)
				c.cfg.EveryNodePass = every
				for _, name := range benchNames(size.nodes) {
					ref, _ := c.LeaseRef(name)
					c.SetRenewals(ref, Periodic{First: start, Every: 10 * time.Second})
				}
				now := start.Add(c.cfg.NodeMonitorPeriod)
				c.StepAll(now) // every node looked at once after its schedule came
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					now = now.Add(c.cfg.NodeMonitorPeriod)
					if r := c.StepAll(now); len(r.Actions) != 0 {
						b.Fatalf("unexpected actions %v", r.Actions)
					}
				}
			})
		}
	}
}
