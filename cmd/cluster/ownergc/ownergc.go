package ownergc

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/utils/clock"

	"github.com/nodelife/nodelife/gc"
)

// Options configure a Collector. The zero value is usable: upstream's
// collector on the real clock, with kube-controller-manager's periods.
type Options struct {
	// Clock is the collector's time (Run's intervals, SyncTimeout, the
	// events' timestamps); nil means the real clock.
	Clock clock.Clock
	// Owner are the planner's options (ForegroundBlockingOnly, say); its
	// Scopes is replaced by what discovery finds.
	Owner gc.OwnerOptions
	// Interval is the least time between two passes of Run, and the wait
	// before a pass that could not finish its work (a failed or refused
	// write, an owner the caches did not have yet, an informer still
	// listing) is tried again; 0 means one second.
	Interval time.Duration
	// Rediscover is the time between two discoveries of Run, which find
	// custom resources that came or went; 0 means 30 seconds, the period
	// kube-controller-manager gives its collector.
	Rediscover time.Duration
	// SyncTimeout is how long a resource whose informer has not listed
	// yet holds every pass back; after it, passes go on without that
	// resource's objects, as upstream's collector goes on since
	// kubernetes#125796 (one CRD with a broken conversion webhook had
	// stopped all collection, kubernetes#101078). Its objects are then
	// unknown to the graph: a dependent of theirs that blocks a foreground
	// deletion does not hold it, one of an orphaning owner is not patched
	// and is collected once the owner is gone. 0 means 30 seconds,
	// kube-controller-manager's.
	SyncTimeout time.Duration
	// WaitForSync makes an informer that has not listed hold every pass
	// back however long it takes: no collection at all while a resource
	// cannot be listed, but no dependent ever missed.
	WaitForSync bool
	// Ignored are resources never watched nor collected, besides events
	// (core and events.k8s.io), which are always left out.
	Ignored []schema.GroupResource
	// Component is the source of the events the collector posts; ""
	// means "garbage-collector-controller", upstream's.
	Component string
}

// Collector collects objects whose owners are gone. Its methods are not
// safe for concurrent use: one goroutine calls Sync, Pass, Discover and
// Close, or Run alone.
type Collector struct {
	disc   discovery.DiscoveryInterface
	meta   metadata.Interface
	events typedcorev1.EventsGetter
	opts   Options

	monitors map[schema.GroupVersionResource]*monitor
	served   map[string]served
	scopes   gc.KindScopes
	where    map[gc.GroupVersionKind]located
	absent   map[absentKey]bool
	changed  chan struct{}
}

// New returns a Collector reading and writing through disc, meta and
// events (events may be nil: no events are posted). It starts nothing:
// the first Discover, Sync or Run starts the informers, Close or the end
// of Run stops them.
func New(disc discovery.DiscoveryInterface, meta metadata.Interface, events typedcorev1.EventsGetter, opts Options) (*Collector, error) {
	switch {
	case disc == nil || meta == nil:
		return nil, errors.New("ownergc: New needs a discovery and a metadata client")
	case opts.Interval < 0:
		return nil, fmt.Errorf("ownergc: Options.Interval %v is negative", opts.Interval)
	case opts.Rediscover < 0:
		return nil, fmt.Errorf("ownergc: Options.Rediscover %v is negative", opts.Rediscover)
	case opts.SyncTimeout < 0:
		return nil, fmt.Errorf("ownergc: Options.SyncTimeout %v is negative", opts.SyncTimeout)
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.Interval == 0 {
		opts.Interval = time.Second
	}
	if opts.Rediscover == 0 {
		opts.Rediscover = 30 * time.Second
	}
	if opts.SyncTimeout == 0 {
		opts.SyncTimeout = 30 * time.Second
	}
	if opts.Component == "" {
		opts.Component = gc.OwnerGCComponent
	}
	return &Collector{disc: disc, meta: meta, events: events, opts: opts,
		monitors: map[schema.GroupVersionResource]*monitor{}, absent: map[absentKey]bool{},
		changed: make(chan struct{}, 1)}, nil
}

// Result is what one pass read and did.
type Result struct {
	// Resources and Objects count what the informers hold.
	Resources, Objects int
	// Unsynced lists the resources whose informers had not listed yet.
	Unsynced []schema.GroupVersionResource
	// Waiting: one of them was within Options.SyncTimeout (or
	// Options.WaitForSync is set), so the pass planned nothing.
	Waiting bool
	// Plan is the plan the pass carried out (as far as Unconfirmed,
	// Conflicts and Errors allowed).
	Plan gc.OwnerPlan
	// Patched, Finalized and Deleted are the objects written: references
	// patched, finalizers removed, deleted (a write that found the object
	// gone counts as done).
	Patched, Finalized, Deleted []gc.ObjectRef
	// Events counts the events posted.
	Events int
	// Unconfirmed are the objects whose plan entries were skipped because
	// an owner the caches did not hold was found by a live read: the
	// informer had not caught up yet. The next pass plans them again.
	Unconfirmed []gc.ObjectRef
	// Conflicts are the objects whose write the API server refused
	// because they changed since the caches read them; the next pass sees
	// the change.
	Conflicts []gc.ObjectRef
	// Errors are the writes and live reads that failed otherwise.
	Errors []error
}

// unfinished reports whether the pass left work for a later pass.
func (r *Result) unfinished() bool {
	return r.Waiting || len(r.Unconfirmed)+len(r.Conflicts)+len(r.Errors) > 0
}

// entry is a cached object with the resource it was read from.
type entry struct {
	res  *resource
	meta *metav1.ObjectMeta
}

// Sync discovers the resources (starting their informers the first
// time), waits until no informer holds passes back (see
// Options.SyncTimeout) or ctx ends, and runs one pass. A Sync right after
// a write may not see it yet: an informer learns of a change a moment
// after it is made, so callers that wait for an effect Sync until they
// see it (or use Run, which passes on every change).
func (c *Collector) Sync(ctx context.Context) (Result, error) {
	if err := c.Discover(); err != nil {
		return Result{}, err
	}
	for {
		unsynced, wait := c.unsynced(c.opts.Clock.Now())
		if !wait {
			break
		}
		select {
		case <-ctx.Done():
			return Result{}, fmt.Errorf("ownergc: informers of %v have not listed: %w", unsynced, ctx.Err())
		case <-time.After(10 * time.Millisecond): // polled in real time: informers list on the network's time, not the clock's
		}
	}
	return c.Pass(ctx)
}

// Pass plans from what the informers hold and carries out the plan (or,
// while an informer within Options.SyncTimeout has not listed, only
// reports Waiting): every object's metadata, the scopes discovery found,
// gc.NewOwnerGraph and OwnerGraph.Plan. Before a plan entry acts on a
// reference the graph found dangling, a live read of the owner confirms
// it is gone (an informer may lag behind another: a dependent seen
// before its owner), as upstream's collector reads an owner before it
// deletes a dependent; owners confirmed gone are remembered (a UID never
// comes back). Then the writes, in the order gc.OwnerPlan gives: patches,
// finalizer removals, deletions, events.
func (c *Collector) Pass(ctx context.Context) (Result, error) {
	res := Result{Resources: len(c.monitors)}
	if res.Unsynced, res.Waiting = c.unsynced(c.opts.Clock.Now()); res.Waiting {
		return res, nil
	}
	byUID := map[types.UID]entry{}
	var objs []gc.Object
	for _, m := range c.watched() {
		for _, item := range m.inf.GetStore().List() {
			p, ok := item.(*metav1.PartialObjectMetadata)
			if !ok {
				continue
			}
			if _, dup := byUID[p.UID]; dup {
				continue // served under two resources
			}
			byUID[p.UID] = entry{res: &m.res, meta: &p.ObjectMeta}
			objs = append(objs, gc.FromMeta(m.res.apiVersion, m.res.kind, &p.ObjectMeta))
		}
	}
	res.Objects = len(objs)
	opts := c.opts.Owner
	opts.Scopes = c.scopes.Lookup
	g, err := gc.NewOwnerGraph(objs, opts)
	if err != nil {
		return res, fmt.Errorf("ownergc: %w", err)
	}
	res.Plan = g.Plan()
	skip := c.confirm(ctx, g, &res)
	c.carryOut(ctx, &res, byUID, skip)
	return res, nil
}

// Close stops every informer. A later Discover, Sync or Run starts them
// again.
func (c *Collector) Close() {
	for gvr, m := range c.monitors {
		close(m.stop)
		delete(c.monitors, gvr)
	}
}

// Run discovers, then passes whenever an informer sees a change that
// matters to the owner graph (owner references, deletion, finalizers, an
// object added or gone), at most once per Options.Interval, and again
// after Options.Interval when a pass left work (see Result); it
// discovers again every Options.Rediscover. It returns when ctx ends,
// with the informers stopped. Errors (discovery failing, a failed write)
// are passed to onError when set.
func (c *Collector) Run(ctx context.Context, onError func(error)) error {
	defer c.Close()
	report := func(err error) {
		if err != nil && onError != nil {
			onError(err)
		}
	}
	clk := c.opts.Clock
	var rediscover <-chan time.Time
	discover := true
	var next time.Time
	for {
		if discover {
			report(c.Discover())
			discover = false
			rediscover = clk.After(c.opts.Rediscover)
		}
		if wait := next.Sub(clk.Now()); wait > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-clk.After(wait):
			}
		}
		select { // this pass sees the change that asked for it
		case <-c.changed:
		default:
		}
		next = clk.Now().Add(c.opts.Interval)
		res, err := c.Pass(ctx)
		report(err)
		for _, e := range res.Errors {
			report(e)
		}
		var retry <-chan time.Time
		if err != nil || res.unfinished() {
			retry = clk.After(c.opts.Interval)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.changed:
		case <-retry:
		case <-rediscover:
			discover = true
		}
	}
}
