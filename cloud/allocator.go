package cloud

import (
	"errors"
	"net/netip"
	"strconv"

	"github.com/nodelife/nodelife/core"
)

// Default node CIDR mask sizes (kube-controller-manager's
// --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6).
const (
	DefaultNodeMaskSizeIPv4 = 24
	DefaultNodeMaskSizeIPv6 = 64
)

// RangeAllocatorConfig is the node IPAM controller's range allocator
// configuration (kube-controller-manager --cluster-cidr,
// --node-cidr-mask-size-ipv4/-ipv6, --service-cluster-ip-range).
//
// The zero value is not usable (no cluster CIDR).
type RangeAllocatorConfig struct {
	// ClusterCIDRs are the cluster CIDRs, one per IP family: one, or a
	// dual-stack pair whose first is the primary family. A node gets one
	// pod CIDR from each, in this order.
	ClusterCIDRs []netip.Prefix
	// NodeMaskSizeIPv4 and NodeMaskSizeIPv6 are the node CIDR sizes; 0
	// means the default (24 and 64).
	NodeMaskSizeIPv4, NodeMaskSizeIPv6 int
	// ServiceCIDRs are the Service IP ranges: wherever one overlaps a
	// cluster CIDR, its blocks are occupied up front so no node gets them.
	ServiceCIDRs []netip.Prefix
	// ReleaseOnPartialFailure releases the CIDRs already taken for a node
	// when a later family is exhausted. Upstream keeps them (the first
	// family's CIDR leaks until the controller restarts); off by default.
	ReleaseOnPartialFailure bool
}

func (c RangeAllocatorConfig) maskSize(p netip.Prefix) int {
	if p.Addr().Is4() {
		if c.NodeMaskSizeIPv4 == 0 {
			return DefaultNodeMaskSizeIPv4
		}
		return c.NodeMaskSizeIPv4
	}
	if c.NodeMaskSizeIPv6 == 0 {
		return DefaultNodeMaskSizeIPv6
	}
	return c.NodeMaskSizeIPv6
}

// Validate reports every problem with c at once: no cluster CIDR, more than
// two, a pair of one family, invalid prefixes, negative mask sizes.
func (c RangeAllocatorConfig) Validate() error {
	var errs []error
	switch n := len(c.ClusterCIDRs); {
	case n == 0:
		errs = append(errs, wrap(ErrInvalidConfig, "ClusterCIDRs is empty"))
	case n > 2:
		errs = append(errs, wrap(ErrInvalidConfig, "ClusterCIDRs has "+strconv.Itoa(n)+" CIDRs; at most two (one per IP family) are allowed"))
	case n == 2 && c.ClusterCIDRs[0].IsValid() && c.ClusterCIDRs[1].IsValid() && c.ClusterCIDRs[0].Addr().Is4() == c.ClusterCIDRs[1].Addr().Is4():
		errs = append(errs, wrap(ErrInvalidConfig, "ClusterCIDRs "+c.ClusterCIDRs[0].String()+" and "+c.ClusterCIDRs[1].String()+
			" are of one IP family; two CIDRs must be a dual-stack pair"))
	}
	for i, p := range c.ClusterCIDRs {
		if !p.IsValid() {
			errs = append(errs, wrap(ErrInvalidConfig, "ClusterCIDRs["+strconv.Itoa(i)+"] "+quote(p.String())+" is not a valid prefix"))
		}
	}
	if c.NodeMaskSizeIPv4 < 0 {
		errs = append(errs, wrap(ErrInvalidConfig, "NodeMaskSizeIPv4 "+strconv.Itoa(c.NodeMaskSizeIPv4)+" is negative"))
	}
	if c.NodeMaskSizeIPv6 < 0 {
		errs = append(errs, wrap(ErrInvalidConfig, "NodeMaskSizeIPv6 "+strconv.Itoa(c.NodeMaskSizeIPv6)+" is negative"))
	}
	for i, p := range c.ServiceCIDRs {
		if !p.IsValid() {
			errs = append(errs, wrap(ErrInvalidConfig, "ServiceCIDRs["+strconv.Itoa(i)+"] "+quote(p.String())+" is not a valid prefix"))
		}
	}
	return errors.Join(errs...)
}

// RangeAllocator is the node IPAM controller's range allocator as a
// synchronous state machine: it owns one CIDRSet per cluster CIDR and, for
// each node it is shown, says which pod CIDRs to write. It writes nothing;
// the caller patches spec.podCIDRs and reports back.
//
// It is not safe for concurrent use.
//
// There is no zero value: use NewRangeAllocator.
type RangeAllocator struct {
	cfg  RangeAllocatorConfig
	sets []*CIDRSet
}

// NewRangeAllocator builds the allocator as the controller starts: the sets,
// the Service ranges occupied, then the pod CIDRs of existing nodes
// occupied. A node CIDR that does not parse or lies outside its cluster CIDR
// fails the start, as upstream, with the node and the value named.
func NewRangeAllocator(cfg RangeAllocatorConfig, existing []core.Node) (*RangeAllocator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a := &RangeAllocator{cfg: cfg}
	for _, p := range cfg.ClusterCIDRs {
		s, err := NewCIDRSet(p, cfg.maskSize(p))
		if err != nil {
			return nil, err
		}
		a.sets = append(a.sets, s)
	}
	for _, svc := range cfg.ServiceCIDRs {
		for _, s := range a.sets {
			if svc.Addr().Is4() == s.cluster.Addr().Is4() && svc.Masked().Overlaps(s.cluster) {
				if err := s.Occupy(svc); err != nil {
					return nil, err
				}
			}
		}
	}
	for i := range existing {
		if err := a.occupy(&existing[i]); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Sets returns the allocator's CIDR sets, one per cluster CIDR in order (for
// inspection; do not change them behind the allocator's back).
func (a *RangeAllocator) Sets() []*CIDRSet { return a.sets }

// parsePodCIDRs parses a node's pod CIDRs against the sets: each must parse
// and there must be a set for its position.
func (a *RangeAllocator) parsePodCIDRs(n *core.Node) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, len(n.PodCIDRs))
	for i, s := range n.PodCIDRs {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, wrap(ErrInvalidCIDR, "node "+quote(n.Name)+" pod CIDR "+quote(s)+" does not parse: "+err.Error())
		}
		if i >= len(a.sets) {
			return nil, wrap(ErrInvalidCIDR, "node "+quote(n.Name)+" has pod CIDR "+s+" at index "+strconv.Itoa(i)+
				", which does not exist in the cluster CIDRs configuration")
		}
		out[i] = p
	}
	return out, nil
}

func (a *RangeAllocator) occupy(n *core.Node) error {
	ps, err := a.parsePodCIDRs(n)
	if err != nil {
		return err
	}
	for i, p := range ps {
		if err := a.sets[i].Occupy(p); err != nil {
			return wrap(ErrInvalidCIDR, "node "+quote(n.Name)+": "+err.Error())
		}
	}
	return nil
}

// PodCIDRUpdate is the allocator's answer for one node.
type PodCIDRUpdate struct {
	// Node is the node's name.
	Node string
	// PodCIDRs, when not nil, are the pod CIDRs to write to the node's
	// spec.podCIDRs (and spec.podCIDR, the first), one per cluster CIDR.
	PodCIDRs []netip.Prefix
	// Reason is "CIDRAssigned", "CIDROccupied" (the node had its CIDRs,
	// now marked used), "NodeDeleting" (nothing to do) or
	// "CIDRNotAvailable" (the event upstream records on exhaustion).
	Reason string
}

// Strings returns the pod CIDRs as the strings spec.podCIDRs holds.
func (u PodCIDRUpdate) Strings() []string {
	out := make([]string, len(u.PodCIDRs))
	for i, p := range u.PodCIDRs {
		out[i] = p.String()
	}
	return out
}

// Sync is the allocator's decision for a node added or updated: a node
// being deleted is left alone; a node with pod CIDRs has them occupied;
// a node without gets the next free block of every cluster CIDR. When one is
// exhausted the error wraps ErrCIDRExhausted and Reason is
// "CIDRNotAvailable"; the blocks already taken for the node stay taken
// (upstream) unless ReleaseOnPartialFailure is set.
func (a *RangeAllocator) Sync(n core.Node) (PodCIDRUpdate, error) {
	u := PodCIDRUpdate{Node: n.Name}
	switch {
	case n.Deleting():
		u.Reason = "NodeDeleting"
		return u, nil
	case len(n.PodCIDRs) > 0:
		u.Reason = "CIDROccupied"
		return u, a.occupy(&n)
	}
	for i, s := range a.sets {
		p, err := s.AllocateNext()
		if err != nil {
			if a.cfg.ReleaseOnPartialFailure {
				for j := 0; j < i; j++ {
					_ = a.sets[j].Release(u.PodCIDRs[j])
				}
			}
			u.PodCIDRs, u.Reason = nil, "CIDRNotAvailable"
			return u, wrap(err, "node "+quote(n.Name)+", cluster CIDR "+s.cluster.String())
		}
		u.PodCIDRs = append(u.PodCIDRs, p)
	}
	u.Reason = "CIDRAssigned"
	return u, nil
}

// Abort releases the CIDRs of an update the caller could not write (the
// node's patch failed), as upstream does after its retries.
func (a *RangeAllocator) Abort(u PodCIDRUpdate) error {
	var errs []error
	for i, p := range u.PodCIDRs {
		if i < len(a.sets) {
			if err := a.sets[i].Release(p); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Delete releases a deleted node's pod CIDRs. A CIDR that does not parse or
// lies outside its cluster CIDR is an error naming it; the others are
// released.
func (a *RangeAllocator) Delete(n core.Node) error {
	ps, err := a.parsePodCIDRs(&n)
	if err != nil {
		return err
	}
	var errs []error
	for i, p := range ps {
		if err := a.sets[i].Release(p); err != nil {
			errs = append(errs, wrap(ErrInvalidCIDR, "node "+quote(n.Name)+": "+err.Error()))
		}
	}
	return errors.Join(errs...)
}
