package lease

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkHeartbeatSteady: one steady renewal, Next then Done with the
// server's lease; the issue asks for zero allocations.
func BenchmarkHeartbeatSteady(b *testing.B) {
	h, err := NewHeartbeat(DefaultHeartbeatConfig("node-1"))
	if err != nil {
		b.Fatal(err)
	}
	h.SetNodeUID("node-uid")
	server := Lease{Namespace: NodeLeaseNamespace, Name: "node-1", HolderIdentity: ptrTo("node-1"), LeaseDurationSeconds: ptrTo(int32(40)), RenewTime: ptrTo(t0),
		OwnerReferences: []metav1.OwnerReference{NodeOwnerReference("node-1", "node-uid")}}
	h.Step(t0)
	s := h.Done(t0, NotFound, nil)
	s = h.Done(t0, OK, &server)
	now := s.Next
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if s = h.Step(now); s.Op != OpUpdate {
			b.Fatalf("op %v", s.Op)
		}
		s = h.Done(now, OK, &server)
		now = s.Next
	}
}

// BenchmarkElectionSteady: one renewal round of a leader, Next (fast-path
// update) then Done; the issue asks for zero allocations.
func BenchmarkElectionSteady(b *testing.B) {
	e, err := NewElector(DefaultElectionConfig("a"))
	if err != nil {
		b.Fatal(err)
	}
	e.Step(t0)
	e.Done(t0, NotFound, Record{}, "")
	s := e.Done(t0, OK, Record{}, "1")
	now := s.Next
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if s = e.Step(now); s.Op != OpUpdate {
			b.Fatalf("op %v", s.Op)
		}
		s = e.Done(now, OK, Record{}, "1")
		now = s.Next.Add(time.Nanosecond)
	}
}

// BenchmarkIdentityLeaseName: the issue asks for under 2us.
func BenchmarkIdentityLeaseName(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = IdentityLeaseName("ip-10-0-1-23.ec2.internal")
	}
}

func BenchmarkLegacyIdentityLeaseName(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = LegacyIdentityLeaseName("ip-10-0-1-23.ec2.internal")
	}
}
