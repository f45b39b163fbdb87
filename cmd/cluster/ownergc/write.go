package ownergc

import (
	"context"
	"encoding/json"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/gc"
)

// carryOut writes res.Plan: patches, then finalizer removals, then
// deletions (each phase only when the one before was carried out whole:
// no failed, refused or skipped write), then events. Entries on objects
// in skip are left to a later pass.
func (c *Collector) carryOut(ctx context.Context, res *Result, byUID map[types.UID]entry, skip map[types.UID]bool) {
	p := &res.Plan
	// done reports whether the write of ref went through (or found the
	// object gone), and files it under Conflicts or Errors otherwise.
	done := func(ref gc.ObjectRef, err error) bool {
		switch {
		case err == nil || apierrors.IsNotFound(err):
			return true
		case apierrors.IsConflict(err):
			res.Conflicts = append(res.Conflicts, ref)
		default:
			res.Errors = append(res.Errors, err)
		}
		return false
	}
	whole := true
	for _, patch := range p.Patches {
		o, found := byUID[patch.Object.UID]
		if !found || skip[patch.Object.UID] {
			whole = false
			continue
		}
		if !done(patch.Object, c.patch(ctx, o, map[string]any{"ownerReferences": patchedRefs(o.meta.OwnerReferences, patch)})) {
			whole = false
			continue
		}
		res.Patched = append(res.Patched, patch.Object)
	}
	if !whole {
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
		if !found || skip[ref.UID] {
			whole = false
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(o.meta.Finalizers), func(f string) bool { return slices.Contains(remove[ref.UID], f) })
		if !done(ref, c.patch(ctx, o, map[string]any{"finalizers": kept})) {
			whole = false
			continue
		}
		res.Finalized = append(res.Finalized, ref)
	}
	if !whole {
		return
	}
	for _, d := range p.Deletions {
		o, found := byUID[d.Object.UID]
		if !found || skip[d.Object.UID] {
			continue
		}
		pre := &metav1.Preconditions{UID: &d.Preconditions.UID}
		if d.Preconditions.ResourceVersion != "" {
			pre.ResourceVersion = &d.Preconditions.ResourceVersion
		}
		policy := d.Policy
		err := c.meta.Resource(o.res.gvr).Namespace(o.meta.Namespace).Delete(ctx, o.meta.Name, metav1.DeleteOptions{Preconditions: pre, PropagationPolicy: &policy})
		if done(d.Object, err) {
			res.Deleted = append(res.Deleted, d.Object)
		}
	}
	for _, e := range p.Events {
		if c.events == nil {
			break
		}
		if !skip[e.Object.UID] && done(e.Object, c.post(ctx, e)) {
			res.Events++
		}
	}
}

// patch writes fields into o's metadata with a JSON merge patch
// conditional on o's UID and resource version.
func (c *Collector) patch(ctx context.Context, o entry, fields map[string]any) error {
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
	now := metav1.NewTime(c.opts.Clock.Now())
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
