package ownergc

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"github.com/nodelife/nodelife/gc"
)

// resource is one deletable resource found by discovery.
type resource struct {
	gvr        schema.GroupVersionResource
	apiVersion string
	kind       string
}

// monitor is a running metadata informer on one resource.
type monitor struct {
	res     resource
	inf     cache.SharedIndexInformer
	stop    chan struct{}
	started time.Time
}

// served is what discovery said of one group version.
type served struct {
	list      *metav1.APIResourceList
	preferred bool
	// kept: discovery of the group version failed; this is what the
	// discovery before found.
	kept bool
}

// located is where the objects of one kind are read: its resource and
// whether it is namespaced.
type located struct {
	gvr        schema.GroupVersionResource
	namespaced bool
}

// Discover finds the deletable resources by discovery and starts a
// metadata informer on each new one and stops the informer of each that
// is no longer served (a custom resource whose definition went). When
// discovery fails for some group versions, what the last discovery found
// for them is kept, with the informers that had listed, as upstream's
// collector keeps its monitors (kubernetes#117992): a transient failure
// must not make their objects look gone. When discovery finds no
// deletable resource at all, nothing changes and Discover says so in its
// error, as upstream skips such a discovery (kubernetes#61201). Otherwise
// only an error of discovery as a whole is returned.
func (c *Collector) Discover() error {
	groups, lists, err := c.disc.ServerGroupsAndResources()
	var failed map[schema.GroupVersion]error
	if err != nil {
		var partial *discovery.ErrGroupDiscoveryFailed
		if !errors.As(err, &partial) {
			return fmt.Errorf("ownergc: discovery: %w", err)
		}
		failed = partial.Groups
	}
	preferred := map[string]bool{}
	for _, g := range groups {
		preferred[g.PreferredVersion.GroupVersion] = true
	}
	now := map[string]served{}
	for _, l := range lists {
		if l != nil {
			now[l.GroupVersion] = served{list: l, preferred: preferred[l.GroupVersion]}
		}
	}
	for gv := range failed {
		if old, ok := c.served[gv.String()]; ok {
			old.kept = true
			now[gv.String()] = old
		}
	}

	scopes := gc.KindScopes{}
	where := map[gc.GroupVersionKind]located{}
	want := map[schema.GroupVersionResource]resource{}
	for _, s := range now {
		gv, perr := schema.ParseGroupVersion(s.list.GroupVersion)
		if perr != nil {
			continue
		}
		for _, r := range s.list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue // a subresource
			}
			gvk := gc.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: r.Kind}
			scopes[gvk] = gc.ScopeCluster
			if r.Namespaced {
				scopes[gvk] = gc.ScopeNamespaced
			}
			gvr := gv.WithResource(r.Name)
			if hasVerbs(r.Verbs, "get") {
				where[gvk] = located{gvr: gvr, namespaced: r.Namespaced}
			}
			if !s.preferred || c.ignored(gvr.GroupResource()) || !hasVerbs(r.Verbs, "list", "watch", "delete") {
				continue
			}
			if m, ok := c.monitors[gvr]; s.kept && (!ok || !m.inf.HasSynced()) {
				continue // kept only with an informer that had listed
			}
			want[gvr] = resource{gvr: gvr, apiVersion: gv.String(), kind: r.Kind}
		}
	}
	if len(want) == 0 {
		return fmt.Errorf("ownergc: discovery found no deletable resource; still watching %d", len(c.monitors))
	}
	c.served, c.scopes, c.where = now, scopes, where
	for gvr, m := range c.monitors {
		if _, ok := want[gvr]; !ok {
			close(m.stop)
			delete(c.monitors, gvr)
		}
	}
	for gvr, r := range want {
		if _, ok := c.monitors[gvr]; !ok {
			if err := c.watch(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// watch starts a metadata informer on r.
func (c *Collector) watch(r resource) error {
	inf := metadatainformer.NewFilteredMetadataInformer(c.meta, r.gvr, metav1.NamespaceAll, 0, cache.Indexers{}, nil).Informer()
	if err := inf.SetTransform(slim); err != nil {
		return fmt.Errorf("ownergc: informer on %s: %w", r.gvr, err)
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.poke() },
		DeleteFunc: func(any) { c.poke() },
		UpdateFunc: func(old, cur any) {
			if !sameGraphInput(old, cur) {
				c.poke()
			}
		},
	})
	if err != nil {
		return fmt.Errorf("ownergc: informer on %s: %w", r.gvr, err)
	}
	m := &monitor{res: r, inf: inf, stop: make(chan struct{}), started: c.opts.Clock.Now()}
	c.monitors[r.gvr] = m
	go inf.Run(m.stop)
	return nil
}

// poke asks Run for a pass; a pass already asked for is enough.
func (c *Collector) poke() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// slim keeps of an object's metadata what the collector reads, so the
// informers' caches hold no managed fields, labels or annotations.
func slim(obj any) (any, error) {
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		m.ManagedFields, m.Labels, m.Annotations = nil, nil, nil
	}
	return obj, nil
}

// sameGraphInput reports whether an update left everything the owner
// graph reads as it was (a status write, say): no pass is needed for it.
// The cache still holds the new resource version, which the next pass's
// writes carry.
func sameGraphInput(old, cur any) bool {
	a, ok1 := old.(*metav1.PartialObjectMetadata)
	b, ok2 := cur.(*metav1.PartialObjectMetadata)
	if !ok1 || !ok2 {
		return false
	}
	return a.UID == b.UID && (a.DeletionTimestamp == nil) == (b.DeletionTimestamp == nil) &&
		slices.Equal(a.Finalizers, b.Finalizers) && apiequality.Semantic.DeepEqual(a.OwnerReferences, b.OwnerReferences)
}

// unsynced returns the resources whose informers have not listed yet,
// and whether one of them holds passes back: it started less than
// Options.SyncTimeout ago, or Options.WaitForSync is set.
func (c *Collector) unsynced(now time.Time) (out []schema.GroupVersionResource, wait bool) {
	for gvr, m := range c.monitors {
		if !m.inf.HasSynced() {
			out = append(out, gvr)
			wait = wait || c.opts.WaitForSync || now.Sub(m.started) < c.opts.SyncTimeout
		}
	}
	slices.SortFunc(out, compareGVR)
	return out, wait
}

// compareGVR orders resources by their string form, for a deterministic
// order of passes and reports.
func compareGVR(a, b schema.GroupVersionResource) int { return strings.Compare(a.String(), b.String()) }

// watched returns the running monitors in resource order.
func (c *Collector) watched() []*monitor {
	keys := slices.SortedFunc(maps.Keys(c.monitors), compareGVR)
	out := make([]*monitor, len(keys))
	for i, k := range keys {
		out[i] = c.monitors[k]
	}
	return out
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
