package lease

import "time"

// Leases renewed on behalf of others.
//
// One process may hold many nodes' leases under one identity: kwok's node
// lease controller for its fake nodes, a virtual-kubelet provider, an
// edge hub speaking for nodes behind it. Such a delegate must not fight a
// kubelet or another delegate that holds a lease: it respects a foreign
// holder until that holder's lease has expired, then takes the lease over,
// counting the transition. These are kwok's rules
// (pkg/kwok/controllers/node_lease_controller.go), as decisions on a
// Lease value; the caller reads and writes the leases.

// MayHold reports whether identity may renew l at now: the lease has no
// holder, or identity holds it, or it lacks a renew time or a duration, or
// its holder's renewTime + leaseDurationSeconds is before now (a holder
// whose lease expires exactly at now still has it). An empty holder
// identity ("") is a holder like any other; only an unset one is none.
func MayHold(l Lease, identity string, now time.Time) bool {
	if l.HolderIdentity == nil || *l.HolderIdentity == identity {
		return true
	}
	return l.Expired(now)
}

// RenewFor returns l renewed at now by identity, for durationSeconds when
// it takes the lease over: a lease identity did not hold gets identity as
// its holder, durationSeconds as its duration, and one more transition
// (LeaseTransitions, from 0 when unset), and transition is true; a lease
// it holds keeps its holder, duration and transitions. Either way the
// renew time is now. Only MayHold's leases should be renewed; l is not
// modified.
func RenewFor(l Lease, identity string, durationSeconds int32, now time.Time) (renewed Lease, transition bool) {
	renewed = l
	if l.HolderIdentity == nil || *l.HolderIdentity != identity {
		transition = true
		var n int32
		if l.LeaseTransitions != nil {
			n = *l.LeaseTransitions
		}
		renewed.HolderIdentity, renewed.LeaseDurationSeconds, renewed.LeaseTransitions = ptrTo(identity), ptrTo(durationSeconds), ptrTo(n+1)
	}
	renewed.RenewTime = ptrTo(now)
	return renewed, transition
}

// NextTry is how long a delegate waits before it looks at a lease again,
// given its renew interval, the time left until the lease expires (its
// ExpiresAt minus now) and whether it may hold the lease: a lease it may
// not hold is looked at again a renew interval later, and so is one it
// holds that expires after the interval; one it holds that expires
// sooner is looked at when it expires, but not before a second.
func NextTry(renewInterval, untilExpiry time.Duration, held bool) time.Duration {
	switch {
	case !held, renewInterval < untilExpiry:
		return renewInterval
	case untilExpiry < time.Second:
		return time.Second
	}
	return untilExpiry
}
