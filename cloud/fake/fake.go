package fake

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/nodelife/nodelife/cloud"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
)

// ErrInjected is the default error of a failure set with Fail.
var ErrInjected = errors.New("fake cloud: injected failure")

// Instance is one machine of the fake cloud.
type Instance struct {
	// Metadata is what InstanceMetadata returns (a copy).
	Metadata cloud.InstanceMetadata
	// Shutdown reports the machine as stopped.
	Shutdown bool
}

// Cloud is the fake provider.
type Cloud struct {
	instances map[string]*Instance
	routes    []cloud.Route
	failures  map[string]error
	// Calls counts calls per method name, for tests that check the
	// planners ask only what they need.
	Calls map[string]int
}

// New returns an empty cloud.
func New() *Cloud {
	return &Cloud{instances: map[string]*Instance{}, failures: map[string]error{}, Calls: map[string]int{}}
}

// Add creates (or replaces) the instance behind node name.
func (c *Cloud) Add(name string, in Instance) { c.instances[name] = &in }

// Remove deletes the instance behind node name: it no longer exists.
func (c *Cloud) Remove(name string) { delete(c.instances, name) }

// SetShutdown stops (true) or starts (false) the instance behind node name.
func (c *Cloud) SetShutdown(name string, shutdown bool) {
	if in, ok := c.instances[name]; ok {
		in.Shutdown = shutdown
	}
}

// Fail makes every later call of method ("InstanceExists",
// "InstanceShutdown", "InstanceMetadata", "ListRoutes", "CreateRoute",
// "DeleteRoute") return err (ErrInjected when err is nil); Heal undoes it.
func (c *Cloud) Fail(method string, err error) {
	if err == nil {
		err = ErrInjected
	}
	c.failures[method] = err
}

// Heal removes the failure set for method.
func (c *Cloud) Heal(method string) { delete(c.failures, method) }

func (c *Cloud) call(method string) error {
	c.Calls[method]++
	return c.failures[method]
}

// errNilNode is returned for a nil node.
var errNilNode = errors.New("fake cloud: nil node")

// InstanceExists reports whether node's instance exists.
func (c *Cloud) InstanceExists(_ context.Context, node *core.Node) (bool, error) {
	if err := c.call("InstanceExists"); err != nil {
		return false, err
	}
	if node == nil {
		return false, errNilNode
	}
	_, ok := c.instances[node.Name]
	return ok, nil
}

// InstanceShutdown reports whether node's instance is stopped; a missing
// instance is not shut down.
func (c *Cloud) InstanceShutdown(_ context.Context, node *core.Node) (bool, error) {
	if err := c.call("InstanceShutdown"); err != nil {
		return false, err
	}
	if node == nil {
		return false, errNilNode
	}
	in, ok := c.instances[node.Name]
	return ok && in.Shutdown, nil
}

// InstanceMetadata returns a copy of node's instance metadata, or an error
// when there is no such instance.
func (c *Cloud) InstanceMetadata(_ context.Context, node *core.Node) (*cloud.InstanceMetadata, error) {
	if err := c.call("InstanceMetadata"); err != nil {
		return nil, err
	}
	if node == nil {
		return nil, errNilNode
	}
	in, ok := c.instances[node.Name]
	if !ok {
		return nil, errors.New("fake cloud: instance " + node.Name + " not found")
	}
	m := in.Metadata
	m.NodeAddresses = slices.Clone(m.NodeAddresses)
	m.AdditionalLabels = maps.Clone(m.AdditionalLabels)
	return &m, nil
}

// ListRoutes returns the routes whose name starts with clusterName + "-",
// as providers filter by their naming prefix.
func (c *Cloud) ListRoutes(_ context.Context, clusterName string) ([]cloud.Route, error) {
	if err := c.call("ListRoutes"); err != nil {
		return nil, err
	}
	var out []cloud.Route
	for _, r := range c.routes {
		if strings.HasPrefix(r.Name, clusterName+"-") {
			r.TargetNodeAddresses = slices.Clone(r.TargetNodeAddresses)
			out = append(out, r)
		}
	}
	return out, nil
}

// CreateRoute adds r named clusterName-nameHint-CIDR.
func (c *Cloud) CreateRoute(_ context.Context, clusterName, nameHint string, r cloud.Route) error {
	if err := c.call("CreateRoute"); err != nil {
		return err
	}
	r.Name = clusterName + "-" + nameHint + "-" + r.DestinationCIDR
	r.TargetNodeAddresses = slices.Clone(r.TargetNodeAddresses)
	c.routes = append(c.routes, r)
	return nil
}

// DeleteRoute removes the routes with r's name, target and CIDR.
func (c *Cloud) DeleteRoute(_ context.Context, _ string, r cloud.Route) error {
	if err := c.call("DeleteRoute"); err != nil {
		return err
	}
	c.routes = slices.DeleteFunc(c.routes, func(x cloud.Route) bool {
		return x.Name == r.Name && x.TargetNode == r.TargetNode && x.DestinationCIDR == r.DestinationCIDR
	})
	return nil
}

// AddRoute puts a route in the table directly (another cluster's, or a
// stale one), bypassing failures.
func (c *Cloud) AddRoute(r cloud.Route) { c.routes = append(c.routes, r) }

// Routes returns every route in the table, of every cluster.
func (c *Cloud) Routes() []cloud.Route { return slices.Clone(c.routes) }

// Addresses is a helper for building instance addresses: pairs of type and
// address.
func Addresses(pairs ...string) []conditions.NodeAddress {
	var out []conditions.NodeAddress
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, conditions.NodeAddress{Type: conditions.NodeAddressType(pairs[i]), Address: pairs[i+1]})
	}
	return out
}
