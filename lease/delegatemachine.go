package lease

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/nodelife/nodelife/internal/clock"
	"github.com/nodelife/nodelife/internal/minheap"
)

// DelegateConfig configures a Delegate. The zero value is not usable:
// start from DefaultDelegateConfig.
type DelegateConfig struct {
	// HolderIdentity is the delegate's identity, written as the holder of
	// every lease it renews.
	HolderIdentity string
	// Namespace is where the node leases live (NodeLeaseNamespace).
	Namespace string
	// LeaseDurationSeconds is written into leases the delegate creates or
	// takes over (kwok's --node-lease-duration-seconds, 40).
	LeaseDurationSeconds int32
	// RenewInterval is how often a held lease is renewed, and a foreign
	// one looked at again (kwok: a quarter of the duration, 10 s).
	RenewInterval time.Duration
	// JitterFactor stretches each interval by up to this fraction
	// (kwok's renewIntervalJitter, 0.04), drawn from Rand.
	JitterFactor float64
	// Rand returns numbers in [0, 1) for the jitter; nil: no jitter.
	Rand func() float64
}

// DefaultDelegateConfig returns kwok's node lease controller's defaults
// for identity.
func DefaultDelegateConfig(identity string) DelegateConfig {
	return DelegateConfig{HolderIdentity: identity, Namespace: NodeLeaseNamespace, LeaseDurationSeconds: DefaultNodeLeaseDurationSeconds,
		RenewInterval: time.Duration(float64(DefaultNodeLeaseDurationSeconds) * DefaultRenewIntervalFraction * float64(time.Second)),
		JitterFactor:  DefaultHeartbeatJitter}
}

// Validate returns every problem of c at once, each naming its field and
// value.
func (c DelegateConfig) Validate() error {
	var errs []error
	if c.HolderIdentity == "" {
		errs = append(errs, fmt.Errorf("%w: HolderIdentity must not be empty", ErrInvalidConfig))
	}
	if c.LeaseDurationSeconds <= 0 {
		errs = append(errs, fmt.Errorf("%w: LeaseDurationSeconds %d must be > 0", ErrInvalidConfig, c.LeaseDurationSeconds))
	}
	if c.RenewInterval <= 0 {
		errs = append(errs, fmt.Errorf("%w: RenewInterval %v must be > 0", ErrInvalidConfig, c.RenewInterval))
	}
	if !(c.JitterFactor >= 0) || math.IsInf(c.JitterFactor, 0) {
		errs = append(errs, fmt.Errorf("%w: JitterFactor %v must be a finite number >= 0", ErrInvalidConfig, c.JitterFactor))
	}
	return errors.Join(errs...)
}

// DelegateRequest is one write a Delegate asks for.
type DelegateRequest struct {
	// Op is OpCreate (the node has no lease) or OpUpdate (the lease last
	// seen, renewed or taken over).
	Op Op
	// Node is the node, and the lease's name.
	Node string
	// Lease is the lease to write.
	Lease Lease
	// Transition says the write takes the lease over from another holder
	// (one more LeaseTransitions).
	Transition bool
	// Managed says that once the write succeeds the node is the
	// delegate's: its first lease write, or a takeover (kwok's
	// onNodeManaged).
	Managed bool
}

// DelegateReady is what a Delegate's Step asks for: the writes, in order,
// and when to step again (zero: when a node is held or a write is done).
type DelegateReady struct {
	Requests []DelegateRequest
	Next     time.Time
}

// Delegate renews the leases of many nodes under one identity, as kwok's
// node lease controller does for its fake nodes: a node it is asked to
// hold gets a lease if it has none; a lease the delegate holds, or may hold
// (MayHold: no holder, or its holder's lease expired), is renewed every
// RenewInterval, a takeover counting one more transition (RenewFor); a
// lease another holder keeps renewing is left alone and looked at again
// every RenewInterval. A lease that will expire before the next interval
// is looked at when it expires (NextTry). The caller reads the leases
// (Observe, Forget), makes the writes Step asks for and reports each with
// Done. Not safe for concurrent use.
type Delegate struct {
	cfg   DelegateConfig
	nodes map[string]*delegated
	seen  map[string]Lease
	due   []delegateDue
	last  time.Time
}

type delegated struct {
	first    bool
	pending  bool
	interval time.Duration
	gen      uint64
}

type delegateDue struct {
	at   time.Time
	node string
	gen  uint64
}

func dueLess(a, b *delegateDue) bool {
	return a.at.Before(b.at) || (a.at.Equal(b.at) && a.node < b.node)
}

// NewDelegate returns a Delegate for cfg, or cfg's validation error.
func NewDelegate(cfg DelegateConfig) (*Delegate, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Delegate{cfg: cfg, nodes: map[string]*delegated{}, seen: map[string]Lease{}}, nil
}

// Hold starts renewing node's lease, at now (kwok's TryHold); a node
// already held is left as it is.
func (d *Delegate) Hold(now time.Time, node string) {
	if _, ok := d.nodes[node]; ok {
		return
	}
	now = clock.Clamp(&d.last, now, false)
	n := &delegated{first: true}
	d.nodes[node] = n
	d.schedule(node, n, now)
}

// Release stops renewing node's lease (kwok's ReleaseHold); a write under
// way is forgotten.
func (d *Delegate) Release(node string) { delete(d.nodes, node) }

// Observe records node lease l (by its Name) as read from the API server,
// the lease a later Step decides from.
func (d *Delegate) Observe(l Lease) { d.seen[l.Name] = l }

// Forget records that node's lease is gone.
func (d *Delegate) Forget(node string) { delete(d.seen, node) }

// Held reports whether the delegate holds node's lease as last seen.
func (d *Delegate) Held(node string) bool {
	l, ok := d.seen[node]
	return ok && l.HolderIdentity != nil && *l.HolderIdentity == d.cfg.HolderIdentity
}

func (d *Delegate) schedule(node string, n *delegated, at time.Time) {
	n.gen++
	d.due = minheap.Push(d.due, delegateDue{at: at, node: node, gen: n.gen}, dueLess)
}

// interval draws one jittered interval, as wait.Jitter.
func (d *Delegate) interval() time.Duration {
	i := d.cfg.RenewInterval
	if d.cfg.Rand != nil && d.cfg.JitterFactor > 0 {
		i += time.Duration(d.cfg.Rand() * d.cfg.JitterFactor * float64(i))
	}
	return i
}

// Step returns the writes due at now, by due time and node name: a
// create for a held node without a lease, an update for a lease it may
// hold; a lease held by another, unexpired, is looked at again an
// interval later. A node whose write is under way is not asked about
// again until Done. A now earlier than one seen is clamped.
func (d *Delegate) Step(now time.Time) DelegateReady {
	now = clock.Clamp(&d.last, now, true)
	var r DelegateReady
	for len(d.due) > 0 && !d.due[0].at.After(now) {
		var it delegateDue
		it, d.due = minheap.Pop(d.due, dueLess)
		n := d.nodes[it.node]
		if n == nil || n.gen != it.gen || n.pending {
			continue
		}
		n.interval = d.interval()
		l, ok := d.seen[it.node]
		switch {
		case !ok:
			n.pending = true
			nl := Lease{Namespace: d.cfg.Namespace, Name: it.node, HolderIdentity: ptrTo(d.cfg.HolderIdentity),
				LeaseDurationSeconds: ptrTo(d.cfg.LeaseDurationSeconds), RenewTime: ptrTo(now)}
			r.Requests = append(r.Requests, DelegateRequest{Op: OpCreate, Node: it.node, Lease: nl, Managed: true})
		case MayHold(l, d.cfg.HolderIdentity, now):
			n.pending = true
			nl, transition := RenewFor(l, d.cfg.HolderIdentity, d.cfg.LeaseDurationSeconds, now)
			r.Requests = append(r.Requests, DelegateRequest{Op: OpUpdate, Node: it.node, Lease: nl, Transition: transition, Managed: n.first || transition})
		default:
			d.schedule(it.node, n, now.Add(n.interval))
		}
	}
	slices.SortStableFunc(r.Requests, func(a, b DelegateRequest) int { return cmp.Compare(a.Node, b.Node) })
	if len(d.due) > 0 {
		r.Next = d.due[0].at
	}
	return r
}

// Done reports the outcome of a request of Step at now, with the lease the
// server returned for an OK write (nil: the lease sent). After a
// successful write the node is looked at again NextTry later; after a
// failure, an interval later. A request of a node released since, or
// not under way, is ignored.
func (d *Delegate) Done(now time.Time, req DelegateRequest, outcome Outcome, server *Lease) {
	now = clock.Clamp(&d.last, now, true)
	n := d.nodes[req.Node]
	if n == nil || !n.pending {
		return
	}
	n.pending = false
	if outcome != OK {
		d.schedule(req.Node, n, now.Add(n.interval))
		return
	}
	l := req.Lease
	if server != nil {
		l = *server
	}
	d.seen[req.Node] = l
	expires, ok := l.ExpiresAt()
	if !ok || l.HolderIdentity == nil {
		d.schedule(req.Node, n, now.Add(n.interval))
		return
	}
	n.first = false
	d.schedule(req.Node, n, now.Add(NextTry(n.interval, expires.Sub(now), MayHold(l, d.cfg.HolderIdentity, now))))
}
