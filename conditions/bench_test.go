package conditions

import (
	"fmt"
	"testing"
	"time"
)

// benchNodes returns n nodes that posted Ready True and hold a lease.
func benchNodes(n int) []NodeObservation {
	nodes := make([]NodeObservation, n)
	for i := range nodes {
		nodes[i] = NodeObservation{
			Name:              fmt.Sprintf("node-%06d", i),
			CreationTimestamp: t0,
			Conditions: []Condition{
				{Type: MemoryPressure, Status: False, LastHeartbeatTime: t0, LastTransitionTime: t0},
				{Type: DiskPressure, Status: False, LastHeartbeatTime: t0, LastTransitionTime: t0},
				{Type: PIDPressure, Status: False, LastHeartbeatTime: t0, LastTransitionTime: t0},
				{Type: Ready, Status: True, LastHeartbeatTime: t0, LastTransitionTime: t0},
			},
			HasLease:       true,
			LeaseRenewTime: t0,
		}
	}
	return nodes
}

// BenchmarkMonitorPass measures one steady-state monitor pass: healthy nodes
// renew their lease every pass, and one node in 1000 has gone silent and is
// rewritten to Unknown (the only allocations).
func BenchmarkMonitorPass(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			nodes := benchNodes(n)
			m, _ := NewMonitor(DefaultMonitorConfig())
			m.Step(t0, nodes)
			now := t0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				now = now.Add(5 * time.Second)
				for j := range nodes {
					if j%1000 != 0 {
						nodes[j].LeaseRenewTime = now
					}
				}
				// Every pass, start the silent nodes' record afresh so they time out again.
				for j := 0; j < n; j += 1000 {
					r, _ := m.Record(nodes[j].Name)
					r.ProbeTimestamp = now.Add(-time.Hour)
					r.SavedReady.Status, r.HasSavedReady = True, true
					m.records[nodes[j].Name] = r
				}
				b.StartTimer()
				ups := m.Step(now, nodes)
				if len(ups) != n/1000 {
					b.Fatalf("%d updates, want %d", len(ups), n/1000)
				}
			}
		})
	}
}

func BenchmarkObserve(b *testing.B) {
	cfg := DefaultMonitorConfig()
	node := benchNodes(1)[0]
	rec := cfg.Observe(t0, HealthRecord{}, node).Record
	now := t0.Add(5 * time.Second)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h := cfg.Observe(now, rec, node)
		if h.TimedOut {
			b.Fatal("timed out")
		}
	}
}
