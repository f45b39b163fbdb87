package ownergc

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/gc"
)

// absentKey is an owner confirmed gone: nothing with the UID is at the
// coordinates. UIDs are never reused, so it stays gone.
type absentKey struct {
	gvr             schema.GroupVersionResource
	namespace, name string
	uid             types.UID
}

// maxAbsent bounds the owners remembered as gone; past it the memory is
// cleared (upstream keeps an LRU cache of 500).
const maxAbsent = 10000

// confirm reads, for every object a plan entry acts on, each owner the
// graph found dangling, live from the API server, and returns the objects
// to skip this pass: those with an owner found there after all (also
// listed in res.Unconfirmed) or that could not be read (res.Errors).
func (c *Collector) confirm(ctx context.Context, g *gc.OwnerGraph, res *Result) map[types.UID]bool {
	p := &res.Plan
	var acted []gc.ObjectRef
	for _, x := range p.Patches {
		acted = append(acted, x.Object)
	}
	for _, x := range p.FinalizerRemovals {
		acted = append(acted, x.Object)
	}
	for _, x := range p.Deletions {
		acted = append(acted, x.Object)
	}
	for _, x := range p.Events {
		acted = append(acted, x.Object)
	}
	skip := map[types.UID]bool{}
	seen := map[types.UID]bool{}
	for _, obj := range acted {
		if seen[obj.UID] {
			continue
		}
		seen[obj.UID] = true
		e, ok := g.Explain(obj.UID)
		if !ok {
			continue
		}
		for _, st := range e.Owners {
			if st.State != gc.RefDangling {
				continue
			}
			there, err := c.ownerThere(ctx, obj.Namespace, st.Ref)
			if err != nil {
				res.Errors = append(res.Errors, fmt.Errorf("ownergc: reading owner %s %q of %s: %w", st.Ref.Kind, st.Ref.Name, obj, err))
			}
			if err != nil || there {
				if err == nil {
					res.Unconfirmed = append(res.Unconfirmed, obj)
				}
				skip[obj.UID] = true
				break
			}
		}
	}
	return skip
}

// ownerThere reads the owner ref names for a dependent in namespace ns
// and reports whether an object with the reference's UID is there.
func (c *Collector) ownerThere(ctx context.Context, ns string, ref metav1.OwnerReference) (bool, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return false, err
	}
	loc, ok := c.where[gc.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: ref.Kind}]
	if !ok {
		return false, fmt.Errorf("kind %s %s cannot be read", ref.APIVersion, ref.Kind)
	}
	if !loc.namespaced {
		ns = ""
	}
	key := absentKey{gvr: loc.gvr, namespace: ns, name: ref.Name, uid: ref.UID}
	if c.absent[key] {
		return false, nil
	}
	m, err := c.meta.Resource(loc.gvr).Namespace(ns).Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return false, err
	case m.UID == ref.UID:
		return true, nil
	}
	if len(c.absent) >= maxAbsent {
		clear(c.absent)
	}
	c.absent[key] = true
	return false, nil
}
