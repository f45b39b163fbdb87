package lease_test

import (
	"fmt"
	"time"

	"github.com/nodelife/nodelife/lease"
)

// The node lease back-off: 200ms doubling to 7s, then 7s for ever.
func ExampleDefaultBackoff() {
	b := lease.DefaultBackoff()
	for i := 0; i < 8; i++ {
		fmt.Print(b.Next(), " ")
	}
	fmt.Println()
	// Output: 200ms 400ms 800ms 1.6s 3.2s 6.4s 7s 7s
}

func ExampleBackoff_Reset() {
	b := lease.DefaultBackoff()
	b.Next()
	b.Next()
	b.Reset()
	fmt.Println(b.Next())
	// Output: 200ms
}

// The seed's kube-apiserver lease on kind-control-plane, and the name the
// current derivation gives the same host.
func ExampleIdentityLeaseName() {
	fmt.Println(lease.LegacyIdentityLeaseName("kind-control-plane"))
	fmt.Println(lease.IdentityLeaseName("kind-control-plane"))
	fmt.Println(lease.IdentityHolder(lease.IdentityLeaseName("kind-control-plane"), "9cbf54e5-1136-44bd-8f9a-1dcd15c346b4"))
	// Output:
	// kube-apiserver-c4vwjftbvpc5os2vvzle4qg27a
	// apiserver-c7uylvfxlbqccnk6myfkwetzze
	// apiserver-c7uylvfxlbqccnk6myfkwetzze_9cbf54e5-1136-44bd-8f9a-1dcd15c346b4
}

func ExampleLegacyIdentityLeaseName() {
	fmt.Println(lease.LegacyIdentityLeaseName("master-0.example.com"))
	// Output: kube-apiserver-kesqfbklf3pt6xq5d2s32ta6ge
}

func ExampleIdentityLease() {
	l := lease.IdentityLease(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "kind-control-plane", "u1")
	fmt.Println(l.Namespace, l.Name, l.Holder(), *l.LeaseDurationSeconds, l.Labels)
	// Output: kube-system apiserver-c7uylvfxlbqccnk6myfkwetzze apiserver-c7uylvfxlbqccnk6myfkwetzze_u1 3600 map[apiserver.kubernetes.io/identity:kube-apiserver kubernetes.io/hostname:kind-control-plane]
}

// A dead API server's lease goes at the first hourly collection after it
// expired.
func ExamplePlanIdentityLeaseGC() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	live := lease.IdentityLease(now.Add(-10*time.Second), "cp-1", "u1")
	dead := lease.IdentityLease(now.Add(-61*time.Minute), "cp-2", "u2")
	for _, d := range lease.PlanIdentityLeaseGC(now, []lease.Lease{live, dead}) {
		fmt.Println(d.Lease.Labels["kubernetes.io/hostname"], d.Delete, d.Reason)
	}
	// Output:
	// cp-2 true Expired
	// cp-1 false Live
}

func ExampleLease_Expired() {
	renew := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := int32(40)
	l := lease.Lease{RenewTime: &renew, LeaseDurationSeconds: &d}
	fmt.Println(l.Expired(renew.Add(40*time.Second)), l.Expired(renew.Add(41*time.Second)), lease.Lease{}.Expired(renew))
	// Output: false true true
}

func ExampleWorkloadLeaseName() {
	fmt.Println(lease.WorkloadLeaseName("example-foo", "prod/foo-deployment"))
	_, err := lease.WorkloadLeaseName("Example_Foo", "prod/foo")
	fmt.Println(err != nil)
	// Output:
	// example-foo-2qbqoxddbh <nil>
	// true
}

// A node's heartbeat: fetch the lease at start, update it, then renew every
// 10 seconds; a failed get backs off 200ms. The Node's UID (from its
// registration) makes the lease owned by the Node.
func ExampleHeartbeat() {
	h, err := lease.NewHeartbeat(lease.DefaultHeartbeatConfig("node-1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	h.SetNodeUID("6e3d1f0c")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	show := func(s lease.HeartbeatStep) {
		switch s.Op {
		case lease.OpWait:
			fmt.Println("wait until", s.Next.Sub(t0))
		case lease.OpUpdate, lease.OpCreate:
			o := s.Object().OwnerReferences[0]
			fmt.Println(s.Op, s.Object().Name, "renewTime", s.RenewTime.Sub(t0), "owner", o.Kind, o.Name, o.UID)
		default:
			fmt.Println(s.Op)
		}
	}
	show(h.Step(t0))
	show(h.Done(t0, lease.Failed, nil))
	show(h.Step(t0.Add(200 * time.Millisecond)))
	show(h.Done(t0.Add(200*time.Millisecond), lease.OK, nil))
	show(h.Done(t0.Add(300*time.Millisecond), lease.OK, nil))
	show(h.Step(t0.Add(10300 * time.Millisecond)))
	// Output:
	// Get
	// wait until 200ms
	// Get
	// Update node-1 renewTime 200ms owner Node node-1 6e3d1f0c
	// wait until 10.3s
	// Update node-1 renewTime 10.3s owner Node node-1 6e3d1f0c
}

// Before its Node is registered the kubelet cannot make its lease's owner
// reference, so it does not create the lease (upstream's newLease fails and
// the create waits for the next round); once the UID is known the lease is
// created owned by the Node.
func ExampleHeartbeat_SetNodeUID() {
	h, _ := lease.NewHeartbeat(lease.DefaultHeartbeatConfig("node-1"))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h.Step(t0)                           // Get
	s := h.Done(t0, lease.NotFound, nil) // no lease: create it?
	fmt.Println(s.Op, "until", s.Next.Sub(t0), "-", s.Message)
	h.SetNodeUID("6e3d1f0c") // the Node is registered
	h.Step(s.Next)           // Get
	s = h.Done(s.Next, lease.NotFound, nil)
	fmt.Println(s.Op, s.Object().OwnerReferences)
	// Output:
	// Wait until 10s - the Node's UID is unknown (SetNodeUID): cannot make the lease's owner reference; lease not created, will retry
	// Create [{v1 Node node-1 6e3d1f0c <nil> <nil>}]
}

// A hand-over: a holds the lock and stops renewing at 0s; b, which first
// saw a's record at 1s, takes it once 15 seconds of its own observation
// have passed, at or after a's MustStopBy.
func ExampleElector() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, _ := lease.NewElector(lease.DefaultElectionConfig("a"))
	b, _ := lease.NewElector(lease.DefaultElectionConfig("b"))

	a.Step(t0)
	create := a.Done(t0, lease.NotFound, lease.Record{}, "")
	s := a.Done(t0, lease.OK, lease.Record{}, "1")
	fmt.Println(s.Event, "| must stop by", s.MustStopBy.Sub(t0))
	lock := create.Record // a is now stuck and never renews

	for sec := 1; ; sec += 2 {
		now := t0.Add(time.Duration(sec) * time.Second)
		b.Step(now)
		s := b.Done(now, lease.OK, lock, "1")
		if s.NewLeader != "" {
			fmt.Println(sec, "s: b sees leader", s.NewLeader)
		}
		if s.Op == lease.OpUpdate {
			fmt.Println(sec, "s: b writes holder", s.Record.HolderIdentity, "transitions", s.Record.LeaderTransitions)
			fmt.Println(b.Done(now, lease.OK, lease.Record{}, "2").Event)
			break
		}
	}
	// a finds out when its renew round times out: it started at 2s.
	a.Step(t0.Add(2 * time.Second))
	fmt.Println(a.Done(t0.Add(2*time.Second), lease.Conflict, lease.Record{}, "").Op)
	fmt.Println(a.Step(t0.Add(12 * time.Second)).Event)
	// Output:
	// a became leader | must stop by 15s
	// 1 s: b sees leader a
	// 17 s: b writes holder b transitions 1
	// b became leader
	// Get
	// a stopped leading
}

// Jitter stretches an interval by a draw of the caller's: 10 s with the
// kubelet's factor of 0.04 and a draw of 0.25 is 10.1 s; a draw outside
// (0, 1) or a factor of 0 leaves it as it is.
func ExampleJitter() {
	fmt.Println(lease.Jitter(10*time.Second, lease.DefaultHeartbeatJitter, 0.25))
	fmt.Println(lease.Jitter(10*time.Second, lease.DefaultHeartbeatJitter, 1))
	fmt.Println(lease.Jitter(10*time.Second, 0, 0.25))
	// Output:
	// 10.1s
	// 10s
	// 10s
}

// kwok speaks for a node whose kubelet renewed its lease at t0 for 40 s.
// At t0+30s the kubelet still holds it: kwok looks again a renew interval
// later. At t0+41s the kubelet's lease has expired (at t0+40s): kwok takes
// it over, for its own 30 s, and the takeover counts as a transition.
func ExampleMayHold() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	holder, duration := "n1", int32(40)
	l := lease.Lease{Name: "n1", HolderIdentity: &holder, LeaseDurationSeconds: &duration, RenewTime: &t0}
	for _, now := range []time.Time{t0.Add(30 * time.Second), t0.Add(41 * time.Second)} {
		held := lease.MayHold(l, "kwok", now)
		if held {
			l, _ = lease.RenewFor(l, "kwok", 30, now)
		}
		expires, _ := l.ExpiresAt()
		fmt.Printf("+%v: may hold %v, holder %s, transitions %d, look again in %v\n",
			now.Sub(t0), held, l.Holder(), transitions(l), lease.NextTry(10*time.Second, expires.Sub(now), held))
	}
	// Output:
	// +30s: may hold false, holder n1, transitions 0, look again in 10s
	// +41s: may hold true, holder kwok, transitions 1, look again in 10s
}

func transitions(l lease.Lease) int32 {
	if l.LeaseTransitions == nil {
		return 0
	}
	return *l.LeaseTransitions
}

// A lease held by another delegate, taken over at its third transition,
// then renewed: the second renewal keeps the holder, duration and count.
func ExampleRenewFor() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	other, n := "edge-hub-2", int32(2)
	l := lease.Lease{Name: "n7", HolderIdentity: &other, LeaseTransitions: &n}
	l, took := lease.RenewFor(l, "edge-hub-1", 40, t0)
	fmt.Println(l.Holder(), *l.LeaseDurationSeconds, *l.LeaseTransitions, took)
	l, took = lease.RenewFor(l, "edge-hub-1", 60, t0.Add(10*time.Second))
	fmt.Println(l.Holder(), *l.LeaseDurationSeconds, *l.LeaseTransitions, took, l.RenewTime.Sub(t0))
	// Output:
	// edge-hub-1 40 3 true
	// edge-hub-1 40 3 false 10s
}

// When a delegate looks at a lease again: a renew interval later, unless
// a lease it holds expires before, then at its expiry, but not before a
// second.
func ExampleNextTry() {
	fmt.Println(lease.NextTry(10*time.Second, 30*time.Second, true))
	fmt.Println(lease.NextTry(10*time.Second, 4*time.Second, true))
	fmt.Println(lease.NextTry(10*time.Second, 200*time.Millisecond, true))
	fmt.Println(lease.NextTry(10*time.Second, 4*time.Second, false))
	// Output:
	// 10s
	// 4s
	// 1s
	// 10s
}

// A delegate renewing the leases of two fake nodes, as kwok's node lease
// controller: fake-1 has no lease and gets one; fake-2's lease belongs to
// a kubelet that stopped renewing at +0s, so the delegate leaves it until
// it has expired (+40s), and takes it over at the next look after that,
// +50s. The caller writes each request and reports it done.
func ExampleDelegate() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := lease.DefaultDelegateConfig("kwok-controller")
	cfg.JitterFactor = 0
	d, err := lease.NewDelegate(cfg)
	if err != nil {
		panic(err)
	}
	holder, forty := "kubelet", int32(40)
	d.Observe(lease.Lease{Namespace: lease.NodeLeaseNamespace, Name: "fake-2", HolderIdentity: &holder, LeaseDurationSeconds: &forty, RenewTime: &t0})
	d.Hold(t0, "fake-1")
	d.Hold(t0, "fake-2")
	for now := t0; now.Before(t0.Add(time.Minute)); {
		r := d.Step(now)
		for _, q := range r.Requests {
			if q.Managed {
				fmt.Printf("+%v %s %s (holder %s, transitions %d)\n", now.Sub(t0), q.Op, q.Node, q.Lease.Holder(), transitions(q.Lease))
			}
			d.Done(now, q, lease.OK, nil)
		}
		now = d.Step(now).Next
	}
	// Output:
	// +0s Create fake-1 (holder kwok-controller, transitions 0)
	// +50s Update fake-2 (holder kwok-controller, transitions 1)
}
