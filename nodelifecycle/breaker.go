package nodelifecycle

import (
	"strconv"
)

// The lease circuit breaker (Config.LeaseCircuitBreaker), upstream's
// consistency store for leases: one resource version for the whole
// controller, recorded when a node's live lease is newer than the cached
// one, and cleared at the first node health check that finds the cache
// caught up.

// breaking reports whether the breaker can trip: the gate is on and the
// caller answers for the live leases.
func (c *Controller) breaking() bool { return c.cfg.LeaseCircuitBreaker && c.leaseView != nil }

// held reports whether a tripped breaker holds the next node back (the
// lease cache has not reached tripRV), and clears the trip otherwise, as
// upstream's check at the start of each node's health update does. A cache
// version that is unknown, or that does not compare with tripRV, clears
// it.
func (c *Controller) held() bool {
	if c.tripRV == "" {
		return false
	}
	if c.leaseView != nil {
		if order, ok := compareResourceVersions(c.tripRV, c.leaseView.CacheResourceVersion()); ok && order > 0 {
			return true
		}
	}
	c.tripRV = ""
	return false
}

// checkLease asks for the live lease of a node whose cached lease has
// expired (its record, after this pass's probes, is rec) and reports
// whether the node is to be held, with the reason; a newer live lease
// trips the breaker.
func (c *Controller) checkLease(node string, rec string) (hold bool, message string) {
	rv, found, err := c.leaseView.LiveLease(node)
	switch {
	case err != nil:
		return true, "cannot read the live lease to confirm the expiry: " + err.Error()
	case !found:
		return false, "" // no lease at all: the expiry stands
	case rv == rec:
		return false, ""
	}
	// Keep the newest version asked for; one that does not compare
	// replaces the one recorded, as upstream's store does.
	if order, ok := compareResourceVersions(c.tripRV, rv); c.tripRV == "" || !ok || order < 0 {
		c.tripRV = rv
	}
	cached := rec
	if cached == "" {
		cached = "none"
	}
	return true, "the live lease (resource version " + rv + ") is not the cached one (" + cached +
		"): node health waits until the lease cache reaches " + c.tripRV
}

// compareResourceVersions orders two resource versions as the API server
// defines them for comparison: decimal integers without a leading zero,
// the longer the greater. ok is false when either is not of that form.
func compareResourceVersions(a, b string) (order int, ok bool) {
	if !wellFormedRV(a) || !wellFormedRV(b) {
		return 0, false
	}
	switch {
	case len(a) != len(b):
		if len(a) < len(b) {
			return -1, true
		}
		return 1, true
	case a < b:
		return -1, true
	case a > b:
		return 1, true
	}
	return 0, true
}

func wellFormedRV(s string) bool {
	if s == "" || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// heldMessage sums up the nodes a stale lease cache held back in a pass.
func heldMessage(n int, want, cache string) string {
	if cache == "" {
		cache = "unknown"
	}
	return strconv.Itoa(n) + " node(s) held: the lease cache is at resource version " + cache + ", behind the live lease's " + want
}
