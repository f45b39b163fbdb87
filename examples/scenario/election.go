package scenario

import (
	"fmt"
	"math/rand"
	"strconv"
	"time"

	"github.com/nodelife/nodelife/lease"
)

// lockServer is the API server's side of a leader-election lock: one
// Lease with a resource version, compare-and-swap on update.
type lockServer struct {
	rec     lease.Record
	exists  bool
	version int
}

// do carries out a request from an elector and returns its outcome.
func (s *lockServer) do(step lease.ElectionStep) (lease.Outcome, lease.Record, string) {
	switch step.Op {
	case lease.OpGet:
		if !s.exists {
			return lease.NotFound, lease.Record{}, ""
		}
		return lease.OK, s.rec, strconv.Itoa(s.version)
	case lease.OpCreate:
		if s.exists {
			return lease.Conflict, lease.Record{}, ""
		}
	case lease.OpUpdate:
		if !s.exists || step.Version != strconv.Itoa(s.version) {
			return lease.Conflict, lease.Record{}, ""
		}
	}
	s.rec, s.exists = step.Record, true
	s.version++
	return lease.OK, s.rec, strconv.Itoa(s.version)
}

// LeaderElection runs client-go's leader election, as lease.Elector state
// machines, for controller-a, controller-b, ... against an in-memory lock
// with compare-and-swap (15s lease, 10s renew deadline, 2s retry).
// controller-a wins the lock and renews it every 2s; at +30s it is cut off
// from the API server. Its renew round fails until the 10s renew deadline,
// and it stops leading at +40s, before +43s, the MustStopBy fence (its last
// renewal plus the lease duration) that no other candidate can beat. The
// others take the lock once they have seen the record unchanged for 15s of
// their own clock. At +60s controller-a comes back, restarted as a
// follower; at +90s the leader shuts down and releases the lock, and a
// follower takes it at its next try rather than 15s later.
//
// Options.Size is the number of candidates (default 2), starting 0.5s
// apart; the first to poll after the lock is free takes it. Requests are
// instantaneous here, so updates conflict only if a caller wires in
// latency. Options.Seed adds client-go's retry jitter.
func LeaderElection(opts Options) (Report, error) {
	n := opts.Size
	if n <= 0 {
		n = 2
	}
	r := Report{Name: "leader-election", Title: fmt.Sprintf("%d candidates share a lock; the leader is cut off at +30s, back at +60s; the next leader releases at +90s", n)}
	var rnd func() float64
	if opts.Seed != 0 {
		rnd = rand.New(rand.NewSource(opts.Seed)).Float64
	}
	type candidate struct {
		name string
		e    *lease.Elector
		due  time.Time
		done bool
	}
	newCandidate := func(name string, due time.Time) (*candidate, error) {
		cfg := lease.DefaultElectionConfig(name)
		cfg.Rand, cfg.ReleaseOnCancel = rnd, true
		e, err := lease.NewElector(cfg)
		return &candidate{name: name, e: e, due: due}, err
	}
	var cs []*candidate
	for i := 0; i < n; i++ {
		c, err := newCandidate("controller-"+string(rune('a'+i%26))+suffix(i), Start.Add(time.Duration(i)*500*time.Millisecond))
		if err != nil {
			return r, err
		}
		cs = append(cs, c)
	}
	var server lockServer
	cutOff := func(c *candidate, now time.Time) bool {
		return c == cs[0] && !now.Before(Start.Add(30*time.Second)) && now.Before(Start.Add(60*time.Second))
	}
	leaders, conflicts, failed := 0, 0, false
	released := false
	end := Start.Add(120 * time.Second)
	for {
		// The candidate due first (ties: in order) acts.
		var c *candidate
		for _, x := range cs {
			if !x.done && (c == nil || x.due.Before(c.due)) {
				c = x
			}
		}
		if c == nil || c.due.After(end) {
			break
		}
		now := c.due
		off := now.Sub(Start)
		// +90s: the leader of the moment shuts down gracefully.
		if !released && !now.Before(Start.Add(90*time.Second)) && c.e.Leading() {
			released = true
			s := c.e.Release(now)
			if s.Op == lease.OpUpdate {
				server.do(s)
				r.at(off, "lease", c.name, "Released", "%s shuts down and releases the lock (empty holder, 1s lease)", c.name)
			}
			if s.Event != "" {
				r.at(off, "lease", c.name, "StoppedLeading", "%s", s.Event)
			}
			c.done = true
			continue
		}
		s := c.e.Step(now)
		for s.Op != lease.OpWait {
			outcome, rec, version := lease.Failed, lease.Record{}, ""
			if !cutOff(c, now) {
				outcome, rec, version = server.do(s)
			} else if !failed {
				failed = true
				r.at(off, "lease", c.name, "RenewFailed", "%s cannot reach the API server: renewal fails; its renew round ends at %s", c.name, Offset(off+10*time.Second))
			}
			if outcome == lease.Conflict {
				conflicts++
				r.at(off, "lease", c.name, "Conflict", "%s: %s of the lock lost the race (conflict)", c.name, s.Op)
			}
			s = c.e.Done(now, outcome, rec, version)
			if s.NewLeader != "" && s.NewLeader != c.name {
				r.at(off, "lease", c.name, "NewLeader", "%s sees leader %s", c.name, s.NewLeader)
			}
			if s.Event != "" && s.Leading {
				leaders++
				r.at(off, "lease", c.name, "BecameLeader", "%s (holder %s, transitions %d); must stop leader work by %s unless it renews",
					s.Event, server.rec.HolderIdentity, server.rec.LeaderTransitions, Offset(s.MustStopBy.Sub(Start)))
			}
		}
		if s.Event != "" && !s.Leading {
			r.at(off, "lease", c.name, "StoppedLeading", "%s: %s (its fence was %s)", s.Event, s.Message, Offset(c.e.MustStopBy().Sub(Start)))
		}
		if s.Next.IsZero() {
			// Stopped: client-go's process exits; controller-a restarts
			// when it can reach the API server again.
			c.done = true
			if c == cs[0] {
				back, err := newCandidate(c.name, Start.Add(60*time.Second))
				if err != nil {
					return r, err
				}
				cs[0] = back
				r.at(off, "lease", c.name, "Exit", "%s exits; it restarts at +60s", c.name)
			}
			continue
		}
		c.due = s.Next
	}
	r.figure("leaders", int64(leaders))
	r.figure("transitions", int64(server.rec.LeaderTransitions))
	r.figure("conflicts", int64(conflicts))
	return r, nil
}

// suffix tells candidates apart past the 26th.
func suffix(i int) string {
	if i < 26 {
		return ""
	}
	return strconv.Itoa(i / 26)
}
