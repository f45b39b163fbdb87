package lease

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hbCall is one scripted exchange with a Heartbeat: a Next at time s, or a
// Done with an outcome, and what must come back.
type hbCall struct {
	s        float64
	next     bool    // Next instead of Done
	outcome  Outcome // for Done
	op       Op
	at       float64 // for Wait: when
	renew    float64 // for Update/Create: the renewTime written
	repeated bool
	msg      string // substring of Message
}

func runHeartbeat(t *testing.T, h *Heartbeat, script []hbCall) {
	t.Helper()
	for i, c := range script {
		var s HeartbeatStep
		if c.next {
			s = h.Step(at(c.s))
		} else {
			s = h.Done(at(c.s), c.outcome, nil)
		}
		ok := s.Op == c.op && s.RepeatedFailure == c.repeated && strings.Contains(s.Message, c.msg)
		switch c.op {
		case OpWait:
			ok = ok && s.Next.Equal(at(c.at))
		case OpUpdate, OpCreate:
			o := s.Object()
			ok = ok && o.RenewTime.Equal(at(c.renew)) &&
				o.Holder() == "node-1" && *o.LeaseDurationSeconds == 40 && o.Name == "node-1" && o.Namespace == "kube-node-lease"
		}
		if !ok {
			t.Fatalf("call %d (t=%vs): got %v at %v repeated %v %q, want %v at %v repeated %v %q",
				i, c.s, s.Op, s.Next.Sub(t0), s.RepeatedFailure, s.Message, c.op, c.at, c.repeated, c.msg)
		}
	}
}

func newHB(t *testing.T) *Heartbeat {
	h, err := NewHeartbeat(DefaultHeartbeatConfig("node-1"))
	if err != nil {
		t.Fatal(err)
	}
	h.SetNodeUID("node-uid")
	return h
}

// Start-up with an existing lease: get it, update it, then renew every 10s
// (0.25 x 40s) with no jitter source.
func TestHeartbeatHappyPath(t *testing.T) {
	runHeartbeat(t, newHB(t), []hbCall{
		{s: 0, next: true, op: OpGet},
		{s: 0.1, outcome: OK, op: OpUpdate, renew: 0.1},
		{s: 0.2, outcome: OK, op: OpWait, at: 10.2},
		{s: 5, next: true, op: OpWait, at: 10.2},
		{s: 10.2, next: true, op: OpUpdate, renew: 10.2},
		{s: 10.2, next: true, op: OpUpdate, renew: 10.2}, // outstanding request repeated
		{s: 10.3, outcome: OK, op: OpWait, at: 20.3},
	})
}

// No lease yet: get (NotFound), create, and the round ends without an
// update of the lease just created.
func TestHeartbeatCreate(t *testing.T) {
	runHeartbeat(t, newHB(t), []hbCall{
		{s: 0, next: true, op: OpGet},
		{s: 0, outcome: NotFound, op: OpCreate, renew: 0},
		{s: 0.5, outcome: OK, op: OpWait, at: 10.5, msg: "created lease"},
		{s: 10.5, next: true, op: OpUpdate, renew: 10.5},
	})
}

// Update failures: five immediate attempts, the repeated-failure hook on
// every failure after the first; then a get-or-create paced 200ms, 400ms,
// ...; then a second loop of five; then the round ends.
func TestHeartbeatRetriesAndBackoff(t *testing.T) {
	h := newHB(t)
	runHeartbeat(t, h, []hbCall{
		{s: 0, next: true, op: OpGet},
		{s: 0, outcome: NotFound, op: OpCreate, renew: 0},
		{s: 0, outcome: OK, op: OpWait, at: 10},
		{s: 10, next: true, op: OpUpdate, renew: 10},
		{s: 11, outcome: Failed, op: OpUpdate, renew: 11, msg: "retrying"},
		{s: 12, outcome: Failed, op: OpUpdate, renew: 12, repeated: true},
		{s: 13, outcome: Failed, op: OpUpdate, renew: 13, repeated: true},
		{s: 14, outcome: Failed, op: OpUpdate, renew: 14, repeated: true},
		{s: 15, outcome: Failed, op: OpGet, repeated: true, msg: "failed 5 attempts to update lease"},
		{s: 15, outcome: Failed, op: OpWait, at: 15.2},
		{s: 15.1, next: true, op: OpWait, at: 15.2},
		{s: 15.2, next: true, op: OpGet},
		{s: 15.2, outcome: Failed, op: OpWait, at: 15.6},
		{s: 15.6, next: true, op: OpGet},
		{s: 15.6, outcome: Failed, op: OpWait, at: 16.4},
		{s: 16.4, next: true, op: OpGet},
		{s: 16.4, outcome: OK, op: OpUpdate, renew: 16.4},
		{s: 17, outcome: Failed, op: OpUpdate, renew: 17},
		{s: 18, outcome: Failed, op: OpUpdate, renew: 18, repeated: true},
		{s: 19, outcome: Failed, op: OpUpdate, renew: 19, repeated: true},
		{s: 20, outcome: Failed, op: OpUpdate, renew: 20, repeated: true},
		{s: 21, outcome: Failed, op: OpWait, at: 31, repeated: true, msg: "failed 5 attempts"},
		{s: 31, next: true, op: OpUpdate, renew: 31},
	})
}

// A conflict fetches the lease again (never the repeated-failure hook) and
// uses up an attempt: three conflicts and two failures exhaust the loop.
func TestHeartbeatConflict(t *testing.T) {
	runHeartbeat(t, newHB(t), []hbCall{
		{s: 0, next: true, op: OpGet},
		{s: 0, outcome: OK, op: OpUpdate, renew: 0},
		{s: 0, outcome: OK, op: OpWait, at: 10},
		{s: 10, next: true, op: OpUpdate, renew: 10},
		{s: 10, outcome: Conflict, op: OpGet, msg: "conflicted"}, // attempt 1 used
		{s: 10, outcome: OK, op: OpUpdate, renew: 10},
		{s: 10, outcome: Conflict, op: OpGet}, // attempt 2
		{s: 10, outcome: OK, op: OpUpdate, renew: 10},
		{s: 10, outcome: Failed, op: OpUpdate, renew: 10, repeated: true}, // attempt 3 failed, i=2 > 0
		{s: 10, outcome: Conflict, op: OpGet},                             // attempt 4
		{s: 10, outcome: OK, op: OpUpdate, renew: 10},
		{s: 11, outcome: Conflict, op: OpGet}, // attempt 5: get first, then the loop is over
		{s: 11, outcome: OK, op: OpGet, msg: "failed 5 attempts"},
		{s: 11, outcome: OK, op: OpUpdate, renew: 11}, // second loop
		{s: 11, outcome: OK, op: OpWait, at: 21},
	})
}

func TestHeartbeatJitterAndClamp(t *testing.T) {
	cfg := DefaultHeartbeatConfig("node-1")
	cfg.Rand = func() float64 { return 0.5 }
	h, err := NewHeartbeat(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.SetNodeUID("node-uid")
	h.Step(at(0))
	h.Done(at(0), NotFound, nil)
	// 10s x (1 + 0.5 x 0.04) = 10.2s.
	if s := h.Done(at(1), OK, nil); s.Op != OpWait || !s.Next.Equal(at(11.2)) {
		t.Fatalf("jittered wait %+v", s)
	}
	// A clock step back is clamped: still waiting for 11.2.
	if s := h.Step(at(-100)); s.Op != OpWait || !s.Next.Equal(at(11.2)) {
		t.Fatalf("clamped %+v", s)
	}
	if l, ok := h.Cached(); !ok || !l.RenewTime.Equal(at(0)) {
		t.Errorf("cached %+v", l)
	}
}

func TestHeartbeatConfigValidate(t *testing.T) {
	if err := DefaultHeartbeatConfig("n").Validate(); err != nil {
		t.Fatal(err)
	}
	if d := DefaultHeartbeatConfig("n").RenewInterval(); d != 10*time.Second {
		t.Errorf("RenewInterval %v", d)
	}
	c := HeartbeatConfig{LeaseDurationSeconds: -1, RenewIntervalFraction: 0.99, JitterFactor: 0.5, Backoff: DefaultBackoff()}
	err := c.Validate()
	for _, w := range []string{"HolderIdentity is empty", "LeaseDurationSeconds -1 must be > 0", "can renew after the lease expires", "MaxUpdateRetries 0 must be >= 1"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Validate() = %v, want %q", err, w)
		}
	}
	if _, err := NewHeartbeat(c); err == nil {
		t.Error("NewHeartbeat accepted an invalid config")
	}
}

// The node lease's owner reference, as the kubelet's SetNodeOwnerFunc
// (pkg/kubelet/util/nodelease.go) with the lease controller's newLease
// (k8s.io/component-helpers/apimachinery/lease/controller.go), v1.36.3: a
// lease written without owner references gets the Node's; when the Node's
// UID cannot be had, the create is skipped for the round, and each update
// attempt fails before any request.
func TestHeartbeatNodeOwner(t *testing.T) {
	existing := Lease{Namespace: NodeLeaseNamespace, Name: "node-1", HolderIdentity: ptrTo("node-1"), LeaseDurationSeconds: ptrTo(int32(40)), RenewTime: ptrTo(t0)}
	owner := NodeOwnerReference("node-1", "uid-1")

	// An older kubelet's lease without owner, UID known: the update adds it.
	h := newHB(t)
	h.SetNodeUID("uid-1")
	h.Step(at(0))
	s := h.Done(at(0), OK, &existing)
	if s.Op != OpUpdate || len(s.Object().OwnerReferences) != 1 || s.Object().OwnerReferences[0] != owner {
		t.Fatalf("update of an ownerless lease: %+v", s.Object())
	}

	// UID unknown: the get finds the lease, five update attempts fail
	// without a request (the later four are repeated failures), and the
	// round ends; the next round retries from the cached lease, fetches it
	// again after five more, and ends the same way.
	h, _ = NewHeartbeat(DefaultHeartbeatConfig("node-1"))
	if s := h.Step(at(0)); s.Op != OpGet {
		t.Fatalf("first step %v", s.Op)
	}
	s = h.Done(at(0), OK, &existing)
	if s.Op != OpWait || !s.Next.Equal(at(10)) || !s.RepeatedFailure || !strings.Contains(s.Message, "failed 5 attempts") {
		t.Fatalf("round without UID: %+v", s)
	}
	if s = h.Step(at(10)); s.Op != OpGet || !s.RepeatedFailure {
		t.Fatalf("second round: %+v", s)
	}
	if s = h.Done(at(10), OK, &existing); s.Op != OpWait || !s.Next.Equal(at(20)) {
		t.Fatalf("second round end: %+v", s)
	}
	// Once the UID is known, the next round's update carries the owner.
	h.SetNodeUID("uid-1")
	if s = h.Step(at(20)); s.Op != OpUpdate || s.Object().OwnerReferences[0] != owner {
		t.Fatalf("third round: %+v", s)
	}

	// A lease that already has an owner needs no UID.
	owned := existing
	owned.OwnerReferences = []metav1.OwnerReference{owner}
	h, _ = NewHeartbeat(DefaultHeartbeatConfig("node-1"))
	h.Step(at(0))
	if s = h.Done(at(0), OK, &owned); s.Op != OpUpdate || s.Object().OwnerReferences[0] != owner {
		t.Fatalf("owned lease: %+v", s)
	}

	// NodeOwner off (the generic lease controller): no owner, no UID needed.
	cfg := DefaultHeartbeatConfig("node-1")
	cfg.NodeOwner = false
	h, _ = NewHeartbeat(cfg)
	h.Step(at(0))
	if s = h.Done(at(0), NotFound, nil); s.Op != OpCreate || s.Object().OwnerReferences != nil {
		t.Fatalf("without NodeOwner: %+v", s)
	}
}
