package ownergc_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	fakediscovery "k8s.io/client-go/discovery/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/nodelife/nodelife/cmd/cluster/ownergc"
)

// A ConfigMap whose owner is gone (no object has its UID, which a live
// read confirms) is collected; its sibling, whose owner is there, is not. Fake clients stand in for the
// API server here; cmd/cluster/e2e runs the collector against a real
// one.
func ExampleCollector_Sync() {
	cm := func(name, uid string, owners ...metav1.OwnerReference) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: uidOf(uid), ResourceVersion: "1", OwnerReferences: owners}}
	}
	owner := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "settings", UID: uidOf("u-settings")}
	gone := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "old", UID: uidOf("u-old")}
	scheme := runtime.NewScheme()
	metav1.AddMetaToScheme(scheme)
	meta := metadatafake.NewSimpleMetadataClient(scheme,
		cm("settings", "u-settings"), cm("kept", "u-kept", owner), cm("orphaned", "u-orphaned", gone))
	disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}}
	disc.Resources = []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "configmaps", Namespaced: true, Kind: "ConfigMap", Verbs: metav1.Verbs{"get", "list", "watch", "delete", "patch"}},
	}}}
	c, err := ownergc.New(disc, meta, nil, ownergc.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close() // stops the informers Sync started
	res, err := c.Sync(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Resources, "resource,", res.Objects, "objects")
	for _, d := range res.Plan.Deletions {
		fmt.Println("delete", d.Object, d.Policy, d.Reason)
	}
	fmt.Println("deleted:", res.Deleted)
	// Output:
	// 1 resource, 3 objects
	// delete ConfigMap shop/orphaned Background AllOwnersGone
	// deleted: [ConfigMap shop/orphaned]
}

func uidOf(s string) types.UID { return types.UID(s) }
