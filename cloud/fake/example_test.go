package fake_test

import (
	"context"
	"fmt"

	"github.com/nodelife/nodelife/cloud"
	"github.com/nodelife/nodelife/cloud/fake"
	"github.com/nodelife/nodelife/core"
)

func ExampleCloud() {
	ctx := context.Background()
	c := fake.New()
	c.Add("n1", fake.Instance{Metadata: cloud.InstanceMetadata{ProviderID: "fake://i-1", NodeAddresses: fake.Addresses("InternalIP", "10.0.0.1")}})
	n := &core.Node{Name: "n1"}
	exists, _ := c.InstanceExists(ctx, n)
	c.SetShutdown("n1", true)
	down, _ := c.InstanceShutdown(ctx, n)
	fmt.Println(exists, down)

	_ = c.CreateRoute(ctx, "kind", "uid-1", cloud.Route{TargetNode: "n1", DestinationCIDR: "10.244.0.0/24"})
	c.AddRoute(cloud.Route{Name: "prod-x", TargetNode: "p1", DestinationCIDR: "10.8.0.0/24"})
	mine, _ := c.ListRoutes(ctx, "kind")
	fmt.Println(len(mine), mine[0].Name, len(c.Routes()))

	c.Fail("InstanceExists", nil)
	_, err := c.InstanceExists(ctx, n)
	fmt.Println(err)
	c.Heal("InstanceExists")
	c.Remove("n1")
	exists, err = c.InstanceExists(ctx, n)
	fmt.Println(exists, err, c.Calls["InstanceExists"])
	// Output:
	// true true
	// 1 kind-uid-1-10.244.0.0/24 2
	// fake cloud: injected failure
	// false <nil> 3
}
