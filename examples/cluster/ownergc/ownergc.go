package ownergc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"

	"github.com/nodelife/nodelife/gc"
)

// Options configure a Collector.
type Options struct {
	// Owner are the planner's options (ForegroundBlockingOnly, say); its
	// Scopes is replaced by what discovery finds.
	Owner gc.OwnerOptions
	// Interval is the time between two Syncs of Run; 0 means one second.
	Interval time.Duration
	// Ignored are resources never listed nor collected, besides events
	// (core and events.k8s.io), which are always left out.
	Ignored []schema.GroupResource
	// Component is the source of the events the collector posts; ""
	// means "garbage-collector-controller", upstream's.
	Component string
}

// Collector collects objects whose owners are gone. It is not safe for
// concurrent Syncs.
type Collector struct {
	disc   discovery.DiscoveryInterface
	meta   metadata.Interface
	events typedcorev1.EventsGetter
	opts   Options
}

// New returns a Collector reading and writing through disc, meta and
// events (events may be nil: no events are posted).
func New(disc discovery.DiscoveryInterface, meta metadata.Interface, events typedcorev1.EventsGetter, opts Options) (*Collector, error) {
	switch {
	case disc == nil || meta == nil:
		return nil, errors.New("ownergc: New needs a discovery and a metadata client")
	case opts.Interval < 0:
		return nil, fmt.Errorf("ownergc: Options.Interval %v is negative", opts.Interval)
	}
	if opts.Interval == 0 {
		opts.Interval = time.Second
	}
	if opts.Component == "" {
		opts.Component = "garbage-collector-controller"
	}
	return &Collector{disc: disc, meta: meta, events: events, opts: opts}, nil
}

// Result is what one Sync read and did.
type Result struct {
	// Resources and Objects count what was listed.
	Resources, Objects int
	// Plan is the plan the Sync carried out (as far as Errors allowed).
	Plan gc.OwnerPlan
	// Patched, Finalized and Deleted are the objects written: references
	// patched, finalizers removed, deleted (a write that found the object
	// gone counts as done).
	Patched, Finalized, Deleted []gc.ObjectRef
	// Events counts the events posted.
	Events int
	// Errors are the writes that failed (a conflict among them: the next
	// Sync sees the change) and the resources that could not be listed.
	Errors []error
}

// resource is one deletable resource found by discovery.
type resource struct {
	gvr        schema.GroupVersionResource
	apiVersion string
	kind       string
}

// discover returns the deletable resources (of their groups' preferred
// versions) and the scope of every served version of every kind.
func (c *Collector) discover() ([]resource, gc.KindScopes, error) {
	groups, all, err := c.disc.ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, nil, fmt.Errorf("ownergc: discovery: %w", err)
	}
	preferred := map[string]bool{}
	for _, g := range groups {
		preferred[g.PreferredVersion.GroupVersion] = true
	}
	scopes := gc.KindScopes{}
	var out []resource
	for _, list := range all {
		gv, perr := schema.ParseGroupVersion(list.GroupVersion)
		if perr != nil {
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue // a subresource
			}
			s := gc.ScopeCluster
			if r.Namespaced {
				s = gc.ScopeNamespaced
			}
			scopes[gc.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: r.Kind}] = s
			gr := schema.GroupResource{Group: gv.Group, Resource: r.Name}
			if preferred[list.GroupVersion] && !c.ignored(gr) && hasVerbs(r.Verbs, "list", "watch", "delete") {
				out = append(out, resource{gvr: gv.WithResource(r.Name), apiVersion: gv.String(), kind: r.Kind})
			}
		}
	}
	slices.SortFunc(out, func(a, b resource) int { return strings.Compare(a.gvr.String(), b.gvr.String()) })
	return out, scopes, nil
}

func (c *Collector) ignored(gr schema.GroupResource) bool {
	if gr.Resource == "events" && (gr.Group == "" || gr.Group == "events.k8s.io") {
		return true
	}
	return slices.Contains(c.opts.Ignored, gr)
}

func hasVerbs(have metav1.Verbs, want ...string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// listed is an object as listed, with the resource it was listed from.
type listed struct {
	res  *resource
	meta metav1.ObjectMeta
}

// Sync lists every deletable object, plans and carries out the plan.
func (c *Collector) Sync(ctx context.Context) (Result, error) {
	var res Result
	resources, scopes, err := c.discover()
	if err != nil {
		return res, err
	}
	res.Resources = len(resources)
	byUID := map[types.UID]listed{}
	var objs []gc.Object
	for i := range resources {
		r := &resources[i]
		list, err := c.meta.Resource(r.gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			// A resource that cannot be listed (its CRD just went, say):
			// its objects are unknown this time; references to them are
			// pinned by the planner only if the kind is unknown, so the
			// Sync goes on without them.
			res.Errors = append(res.Errors, fmt.Errorf("list %s: %w", r.gvr, err))
			continue
		}
		for k := range list.Items {
			m := list.Items[k].ObjectMeta
			if _, dup := byUID[m.UID]; dup {
				continue // served under two resources
			}
			byUID[m.UID] = listed{res: r, meta: m}
			objs = append(objs, gc.FromMeta(r.apiVersion, r.kind, &m))
		}
	}
	if len(res.Errors) > 0 {
		// A dependent's owner may be among what could not be listed: it
		// would look gone. Collect nothing on a partial view.
		return res, nil
	}
	res.Objects = len(objs)
	opts := c.opts.Owner
	opts.Scopes = scopes.Lookup
	g, err := gc.NewOwnerGraph(objs, opts)
	if err != nil {
		return res, fmt.Errorf("ownergc: %w", err)
	}
	res.Plan = g.Plan()
	c.carryOut(ctx, &res, byUID)
	return res, nil
}

// carryOut writes res.Plan: patches, then finalizer removals, then
// deletions (each phase only when the one before had no failed write),
// then events.
func (c *Collector) carryOut(ctx context.Context, res *Result, byUID map[types.UID]listed) {
	p := &res.Plan
	failed := func(err error) bool {
		if err == nil || apierrors.IsNotFound(err) {
			return false
		}
		res.Errors = append(res.Errors, err)
		return true
	}
	ok := true
	for _, patch := range p.Patches {
		o, found := byUID[patch.Object.UID]
		if !found {
			continue
		}
		err := c.patch(ctx, o, map[string]any{"ownerReferences": patchedRefs(o.meta.OwnerReferences, patch)})
		if failed(err) {
			ok = false
			continue
		}
		res.Patched = append(res.Patched, patch.Object)
	}
	if !ok {
		return
	}
	// Removals of one object go in one write (each needs the version the
	// one before left).
	remove := map[types.UID][]string{}
	var order []gc.ObjectRef
	for _, f := range p.FinalizerRemovals {
		if _, seen := remove[f.Object.UID]; !seen {
			order = append(order, f.Object)
		}
		remove[f.Object.UID] = append(remove[f.Object.UID], f.Finalizer)
	}
	for _, ref := range order {
		o, found := byUID[ref.UID]
		if !found {
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(o.meta.Finalizers), func(f string) bool { return slices.Contains(remove[ref.UID], f) })
		if failed(c.patch(ctx, o, map[string]any{"finalizers": kept})) {
			ok = false
			continue
		}
		res.Finalized = append(res.Finalized, ref)
	}
	if !ok {
		return
	}
	for _, d := range p.Deletions {
		o, found := byUID[d.Object.UID]
		if !found {
			continue
		}
		pre := &metav1.Preconditions{UID: &d.Preconditions.UID}
		if d.Preconditions.ResourceVersion != "" {
			pre.ResourceVersion = &d.Preconditions.ResourceVersion
		}
		policy := d.Policy
		err := c.meta.Resource(o.res.gvr).Namespace(o.meta.Namespace).Delete(ctx, o.meta.Name, metav1.DeleteOptions{Preconditions: pre, PropagationPolicy: &policy})
		if failed(err) {
			continue
		}
		res.Deleted = append(res.Deleted, d.Object)
	}
	for _, e := range p.Events {
		if c.events == nil {
			break
		}
		if !failed(c.post(ctx, e)) {
			res.Events++
		}
	}
}

// patch writes fields into o's metadata with a JSON merge patch
// conditional on o's UID and resource version.
func (c *Collector) patch(ctx context.Context, o listed, fields map[string]any) error {
	fields["uid"] = o.meta.UID
	fields["resourceVersion"] = o.meta.ResourceVersion
	body, err := json.Marshal(map[string]any{"metadata": fields})
	if err != nil {
		return err
	}
	_, err = c.meta.Resource(o.res.gvr).Namespace(o.meta.Namespace).Patch(ctx, o.meta.Name, types.MergePatchType, body, metav1.PatchOptions{})
	return err
}

// patchedRefs returns refs with p's owners removed and, when p.Unblock,
// every blockOwnerDeletion=true made false.
func patchedRefs(refs []metav1.OwnerReference, p gc.RefPatch) []metav1.OwnerReference {
	out := []metav1.OwnerReference{}
	for _, r := range refs {
		if slices.Contains(p.RemoveOwners, r.UID) {
			continue
		}
		if p.Unblock && r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
			f := false
			r.BlockOwnerDeletion = &f
		}
		out = append(out, r)
	}
	return out
}

// post records e as a core/v1 Event on its object.
func (c *Collector) post(ctx context.Context, e gc.ObjectEvent) error {
	ns := e.Object.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	now := metav1.Now()
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: e.Object.Name + ".", Namespace: ns},
		InvolvedObject: corev1.ObjectReference{APIVersion: e.Object.APIVersion, Kind: e.Object.Kind, Namespace: e.Object.Namespace,
			Name: e.Object.Name, UID: e.Object.UID},
		Type: e.Type, Reason: e.Reason, Message: e.Message, Source: corev1.EventSource{Component: c.opts.Component},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	_, err := c.events.Events(ns).Create(ctx, ev, metav1.CreateOptions{})
	return err
}

// Run calls Sync every Options.Interval until ctx ends; a Sync's error
// (discovery failing, say) is passed to onError when set and the next
// Sync tries again.
func (c *Collector) Run(ctx context.Context, onError func(error)) error {
	t := time.NewTicker(c.opts.Interval)
	defer t.Stop()
	for {
		if _, err := c.Sync(ctx); err != nil && onError != nil {
			onError(err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
