package ownergc_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/nodelife/nodelife/cmd/cluster/ownergc"
	"github.com/nodelife/nodelife/gc"
)

var (
	secrets = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	verbs   = metav1.Verbs{"get", "list", "watch", "delete", "patch"}
)

func object(apiVersion, kind, name, uid string, owners ...metav1.OwnerReference) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: apiVersion, Kind: kind},
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: uidOf(uid), ResourceVersion: "1", OwnerReferences: owners}}
}

func owner(apiVersion, kind, name, uid string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uidOf(uid)}
}

// fakes returns a discovery serving core's configmaps and secrets and, when
// withWidgets, example.com's widgets, and a metadata client holding objs.
func fakes(withWidgets bool, objs ...runtime.Object) (*fakediscovery.FakeDiscovery, *metadatafake.FakeMetadataClient) {
	scheme := runtime.NewScheme()
	metav1.AddMetaToScheme(scheme)
	disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}}
	disc.Resources = []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "configmaps", Namespaced: true, Kind: "ConfigMap", Verbs: verbs},
		{Name: "secrets", Namespaced: true, Kind: "Secret", Verbs: verbs},
	}}}
	if withWidgets {
		disc.Resources = append(disc.Resources, &metav1.APIResourceList{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{
			{Name: "widgets", Namespaced: true, Kind: "Widget", Verbs: verbs},
		}})
	}
	return disc, metadatafake.NewSimpleMetadataClient(scheme, objs...)
}

func newCollector(t *testing.T, disc discovery.DiscoveryInterface, meta *metadatafake.FakeMetadataClient, opts ownergc.Options) *ownergc.Collector {
	t.Helper()
	c, err := ownergc.New(disc, meta, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func sync(t *testing.T, c *ownergc.Collector) ownergc.Result {
	t.Helper()
	res, err := c.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	return res
}

// namesOf returns the names of the objects of xs, each found by obj.
func namesOf[T any](xs []T, obj func(*T) gc.ObjectRef) []string {
	var out []string
	for i := range xs {
		out = append(out, obj(&xs[i]).Name)
	}
	return out
}

func refNames(refs []gc.ObjectRef) []string {
	return namesOf(refs, func(r *gc.ObjectRef) gc.ObjectRef { return *r })
}

func deletionNames(p gc.OwnerPlan) []string {
	return namesOf(p.Deletions, func(d *gc.OwnerDeletion) gc.ObjectRef { return d.Object })
}

func heldNames(p gc.OwnerPlan) []string {
	return namesOf(p.Held, func(h *gc.OwnerHold) gc.ObjectRef { return h.Object })
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %q, want %q", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: got %q, want %q", what, got, want)
		}
	}
}

// gets counts the GETs of a resource the metadata client served.
func gets(meta *metadatafake.FakeMetadataClient, gvr schema.GroupVersionResource) int {
	n := 0
	for _, a := range meta.Actions() {
		if a.GetVerb() == "get" && a.GetResource() == gvr {
			n++
		}
	}
	return n
}

// The owner of a dependent is of a resource the collector does not watch
// (secrets ignored here; the same holds while an informer lags behind
// another): the graph sees the reference dangling and plans the
// dependent's deletion, but the live read of the owner finds it, so the
// dependent stays. Once the owner is gone the read confirms it and the
// dependent goes; an owner confirmed gone is not read again.
func TestOwnerReadLiveBeforeDelete(t *testing.T) {
	disc, meta := fakes(false,
		object("v1", "Secret", "key", "u-key"),
		object("v1", "ConfigMap", "uses-key", "u-uses-key", owner("v1", "Secret", "key", "u-key")),
		object("v1", "ConfigMap", "lost", "u-lost", owner("v1", "Secret", "never", "u-never")))
	c := newCollector(t, disc, meta, ownergc.Options{Ignored: []schema.GroupResource{secrets.GroupResource()}})

	res := sync(t, c)
	if res.Resources != 1 || res.Objects != 2 {
		t.Fatalf("watched %d resources, %d objects; want 1 (configmaps), 2", res.Resources, res.Objects)
	}
	equal(t, "planned", deletionNames(res.Plan), []string{"lost", "uses-key"})
	equal(t, "unconfirmed", refNames(res.Unconfirmed), []string{"uses-key"})
	equal(t, "deleted", refNames(res.Deleted), []string{"lost"})
	if n := gets(meta, secrets); n != 2 {
		t.Fatalf("%d GETs of secrets, want 2 (key, never)", n)
	}

	if err := meta.Resource(secrets).Namespace("shop").Delete(context.Background(), "key", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	res = sync(t, c)
	// lost may still be in the informer's cache (the delete's watch event
	// not in yet): deleting it again finds it gone, which counts as done.
	if d := refNames(res.Deleted); !slices.Contains(d, "uses-key") || len(res.Unconfirmed) != 0 {
		t.Fatalf("after the owner went: deleted %q, unconfirmed %v; want uses-key deleted", d, res.Unconfirmed)
	}
	if n := gets(meta, secrets); n != 3 {
		t.Fatalf("%d GETs of secrets, want 3 (the first sync's two, key again)", n)
	}
	// The fake keeps a deleted object in its informer's cache only until
	// the watch event lands; whatever the cache holds, neither owner is
	// read again: both are remembered gone.
	_ = sync(t, c)
	if n := gets(meta, secrets); n != 3 {
		t.Fatalf("%d GETs of secrets, want still 3", n)
	}
}

// widgetAndDependent serves widgets, with a Widget owning a ConfigMap,
// to a new collector.
func widgetAndDependent(t *testing.T) (*fakediscovery.FakeDiscovery, *ownergc.Collector) {
	disc, meta := fakes(true,
		object("example.com/v1", "Widget", "w", "u-w"),
		object("v1", "ConfigMap", "of-widget", "u-of-widget", owner("example.com/v1", "Widget", "w", "u-w")))
	return disc, newCollector(t, disc, meta, ownergc.Options{})
}

// A custom resource that stops being served (its definition deleted) is
// no longer watched after the next discovery: its objects leave the
// graph, and references to its kind are pinned (an unknown kind), not
// dangling.
func TestRediscoverDropsGoneResources(t *testing.T) {
	disc, c := widgetAndDependent(t)
	res := sync(t, c)
	if res.Resources != 3 || res.Objects != 2 || len(res.Plan.Deletions) != 0 {
		t.Fatalf("with widgets: %d resources, %d objects, %d deletions; want 3, 2, 0", res.Resources, res.Objects, len(res.Plan.Deletions))
	}
	disc.Resources = disc.Resources[:1]
	res = sync(t, c)
	if res.Resources != 2 || res.Objects != 1 || len(res.Plan.Deletions) != 0 {
		t.Fatalf("without widgets: %d resources, %d objects, %d deletions; want 2, 1, 0", res.Resources, res.Objects, len(res.Plan.Deletions))
	}
	equal(t, "held", heldNames(res.Plan), []string{"of-widget"})
}

// When discovery fails for one group version, what the last discovery
// found for it stays: its informer keeps running and its objects keep
// their dependents. Had the widgets been dropped, of-widget would be
// pinned (unknown kind) and the widget's own dependent would lose its
// owner's scope.
func TestPartialDiscoveryKeepsWhatWasFound(t *testing.T) {
	disc, c := widgetAndDependent(t)
	sync(t, c)
	disc.Resources = disc.Resources[:1]
	disc.PrependReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, &discovery.ErrGroupDiscoveryFailed{Groups: map[schema.GroupVersion]error{widgets.GroupVersion(): context.DeadlineExceeded}}
	})
	res := sync(t, c)
	if res.Resources != 3 || res.Objects != 2 || len(res.Plan.Held) != 0 || len(res.Plan.Deletions) != 0 {
		t.Fatalf("after a failed discovery of widgets: %d resources, %d objects, held %v, %d deletions; want 3, 2, none, 0",
			res.Resources, res.Objects, heldNames(res.Plan), len(res.Plan.Deletions))
	}
}

// New names the bad option.
func TestNewRejects(t *testing.T) {
	disc, meta := fakes(false)
	for _, tc := range []struct {
		opts ownergc.Options
		want string
	}{
		{ownergc.Options{Interval: -1}, "ownergc: Options.Interval -1ns is negative"},
		{ownergc.Options{Rediscover: -1}, "ownergc: Options.Rediscover -1ns is negative"},
		{ownergc.Options{SyncTimeout: -time.Second}, "ownergc: Options.SyncTimeout -1s is negative"},
	} {
		if _, err := ownergc.New(disc, meta, nil, tc.opts); err == nil || err.Error() != tc.want {
			t.Errorf("New(%+v) = %v, want %q", tc.opts, err, tc.want)
		}
	}
	if _, err := ownergc.New(nil, meta, nil, ownergc.Options{}); err == nil {
		t.Error("New without discovery: no error")
	}
}

// A resource whose informer cannot list (widgets here: every list fails,
// a CRD with a broken conversion webhook, say) holds passes back for
// Options.SyncTimeout; after it, passes go on without its objects, as
// upstream's collector does. With WaitForSync they never do.
func TestUnlistableResource(t *testing.T) {
	objs := []runtime.Object{object("v1", "ConfigMap", "lost", "u-lost", owner("v1", "ConfigMap", "never", "u-never"))}
	broken := func(meta *metadatafake.FakeMetadataClient) {
		meta.PrependReactor("list", "widgets", func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, nil, errors.New("conversion webhook for example.com/v1, Kind=Widget failed")
		})
	}

	disc, meta := fakes(true, objs...)
	broken(meta)
	clk := testingclock.NewFakeClock(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC))
	c := newCollector(t, disc, meta, ownergc.Options{Clock: clk}) // SyncTimeout 30 s
	if err := c.Discover(); err != nil {
		t.Fatal(err)
	}
	// The other two informers list at once (on the network's time); the
	// widgets' never does. Until the timeout, every pass waits.
	var res ownergc.Result
	for i := 0; i < 500; i++ {
		var err error
		if res, err = c.Pass(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(res.Unsynced) == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !res.Waiting || len(res.Unsynced) != 1 || res.Unsynced[0] != widgets || len(res.Deleted) != 0 {
		t.Fatalf("before the timeout: waiting %v, unsynced %v, deleted %v; want waiting on widgets, nothing deleted", res.Waiting, res.Unsynced, res.Deleted)
	}
	clk.Step(29 * time.Second)
	if res, _ = c.Pass(context.Background()); !res.Waiting {
		t.Fatal("29 s after the informer started: not waiting any more, want waiting")
	}
	clk.Step(time.Second)
	res = sync(t, c)
	if res.Waiting || len(res.Unsynced) != 1 || res.Unsynced[0] != widgets {
		t.Fatalf("after the timeout: waiting %v, unsynced %v; want not waiting, widgets unsynced", res.Waiting, res.Unsynced)
	}
	equal(t, "deleted after the timeout", refNames(res.Deleted), []string{"lost"})

	disc, meta = fakes(true, objs...)
	broken(meta)
	c = newCollector(t, disc, meta, ownergc.Options{SyncTimeout: time.Millisecond, WaitForSync: true})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := c.Sync(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitForSync: Sync = %v, want the context's deadline", err)
	}
	if res, _ := c.Pass(context.Background()); !res.Waiting || len(res.Deleted) != 0 {
		t.Fatalf("WaitForSync: waiting %v, deleted %v; want waiting, nothing deleted", res.Waiting, res.Deleted)
	}
}

// A discovery that finds no deletable resource changes nothing (upstream
// skips it, kubernetes#61201): the informers keep running.
func TestEmptyDiscoveryChangesNothing(t *testing.T) {
	disc, meta := fakes(false, object("v1", "ConfigMap", "a", "u-a"))
	c := newCollector(t, disc, meta, ownergc.Options{})
	sync(t, c)
	disc.Resources = nil
	if err := c.Discover(); err == nil || err.Error() != "ownergc: discovery found no deletable resource; still watching 2" {
		t.Fatalf("Discover = %v", err)
	}
	res, err := c.Pass(context.Background())
	if err != nil || res.Resources != 2 || res.Objects != 1 {
		t.Fatalf("after an empty discovery: %d resources, %d objects, %v; want 2, 1", res.Resources, res.Objects, err)
	}
}
