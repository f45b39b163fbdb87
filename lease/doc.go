// Package lease holds the lease-based decisions of a node and of the
// control plane as values and synchronous state machines:
//
//   - Lease, the coordination.k8s.io/v1 object, and its expiry;
//   - Backoff, an exponential back-off usable on its own (the node lease
//     controller's 200ms..7s by default);
//   - Heartbeat, the kubelet's node lease controller: renew every 10s with
//     jitter, retry updates, fall back to get-or-create with back-off, say
//     when the repeated-failure hook must run, and make the lease owned by
//     its Node (SetNodeUID);
//   - Elector, client-go's leader election, with a MustStopBy deadline that
//     tells a leader how long it may go on working;
//   - Delegate, renewing many nodes' leases under one identity (kwok, a
//     virtual-kubelet provider, an edge hub), as kwok's node lease
//     controller: a foreign holder is respected until its lease expires,
//     then the lease is taken over and the transition counted; its rules
//     are MayHold, RenewFor and NextTry, usable alone;
//   - API server identity leases: IdentityLeaseName (current) and
//     LegacyIdentityLeaseName (the seed's), holder identities, labels and
//     PlanIdentityLeaseGC; and WorkloadLeaseName for a workload's own
//     leases.
//
// Nothing here reads the clock or talks to the API server: each step says
// which request to make (get, create, update) or until when to wait, and the
// caller reports the outcome.
//
// # Usage
//
// A custom kubelet's heartbeat:
//
//	h, _ := lease.NewHeartbeat(lease.DefaultHeartbeatConfig(nodeName))
//	h.SetNodeUID(node.UID) // once the Node is registered: it owns the lease
//	s := h.Step(now)
//	for {
//		switch s.Op {
//		case lease.OpWait:
//			sleepUntil(s.Next)
//			s = h.Next(now())
//			continue
//		case lease.OpGet:
//			obj, outcome := get()
//			s = h.Done(now(), outcome, obj)
//		case lease.OpUpdate, lease.OpCreate:
//			obj, outcome := write(s.Op, s.Object())
//			s = h.Done(now(), outcome, obj)
//		}
//		if s.RepeatedFailure { closeConnections() }
//	}
//
// A controller's leader election works the same way with Elector's Next and
// Done; while ElectionStep.Leading it may work, and it must have stopped by
// ElectionStep.MustStopBy whatever happens.
//
// # Semantics
//
// Heartbeat. A round renews the cached lease with up to 5 immediate
// updates; a conflict fetches the lease again and uses up an attempt; other
// failures after the first call the repeated-failure hook. When the updates
// run out the lease is fetched (created if missing, and then not updated in
// the same round) and updated again with 5 more attempts. Fetches that fail
// are retried after 200ms, 400ms, ... up to 7s, without limit. The next
// round starts 10s (x up to 1.04) after the end of the previous one.
//
// The lease is owned by its Node (NodeOwner, on by default as in the
// kubelet): a lease written without owner references gets apiVersion v1,
// kind Node, the node's name and the UID given to SetNodeUID, so that
// deleting the Node collects the lease. Without the UID (upstream: the
// Node lookup fails, as before registration) the lease is not created that
// round, and updating an ownerless lease fails each attempt before any
// request; a lease that already has owners needs no UID.
//
// Election. A candidate reads the lock; with no lock it creates one
// (transitions 0). A record held by someone else is respected until the
// candidate has seen it unchanged for the record's lease duration on its
// own clock; record timestamps are never compared with the clock, so clock
// skew does not matter but clocks running at different rates do. A new
// holder increments the transitions and sets AcquireTime; a renewal keeps
// both. Failed acquisitions are retried every RetryPeriod x (1 to 2.2). A
// leader renews every RetryPeriod; a renew round that has not succeeded
// RenewDeadline after it began ends the leadership. A leader that releases
// writes an empty holder with a 1s lease.
//
// Identity leases. An API server's lease is named "apiserver-" plus 26
// base32 characters of the SHA-256 of its hostname and "kube-apiserver"; it
// lasts 3600s, is renewed every 10s, and is deleted by any API server's
// hourly collection once renewTime + 3600s has passed (or when either field
// is missing).
package lease
