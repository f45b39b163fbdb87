package cri

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/internal/enum"
)

// ItemKind is the kind of runtime object an executor acts on.
type ItemKind int

// The item kinds.
const (
	ItemImage ItemKind = iota
	ItemContainer
	ItemSandbox
)

// String returns "image", "container" or "sandbox".
func (k ItemKind) String() string { return enum.Name(k, "ItemKind", "image", "container", "sandbox") }

// Op is a runtime call.
type Op string

// The runtime calls an executor makes.
const (
	OpRemoveImage      Op = "RemoveImage"
	OpStopContainer    Op = "StopContainer"
	OpRemoveContainer  Op = "RemoveContainer"
	OpStopPodSandbox   Op = "StopPodSandbox"
	OpRemovePodSandbox Op = "RemovePodSandbox"
)

// Removed is an item the executor removed.
type Removed struct {
	// Kind and ID name the item.
	Kind ItemKind
	ID   string
	// Reason is the plan's reason for it (an ImageReason or a
	// ContainerReason, as a string).
	Reason string
	// Size is an image's reported size (0 for containers and sandboxes).
	Size int64
}

// Failed is an item the executor could not remove.
type Failed struct {
	// Kind and ID name the item.
	Kind ItemKind
	ID   string
	// Op is the call that failed; a failed stop means no removal was
	// tried, as upstream.
	Op Op
	// Err is the runtime's error.
	Err error
}

// Skipped is a planned item the executor did not act on.
type Skipped struct {
	// Kind and ID name the item.
	Kind ItemKind
	ID   string
	// Why says why: the context ended, or a spare image was not needed.
	Why string
}

// ExecResult is what an executor did with a plan, in the order it acted.
// Every planned item ends in exactly one of Removed, Failed and Skipped,
// except spare images, which appear only when the executor reached them.
type ExecResult struct {
	Removed []Removed
	Failed  []Failed
	Skipped []Skipped
	// Freed is the reported size of the images the space pass removed.
	Freed int64
	// Interrupted is the context's error when it ended before the plan
	// was done (the rest is in Skipped), else nil.
	Interrupted error
}

// Err joins the failures (each naming the item and the call) and the
// context's error, or returns nil when everything planned was done.
func (r ExecResult) Err() error {
	errs := make([]error, 0, len(r.Failed))
	for _, f := range r.Failed {
		errs = append(errs, fmt.Errorf("cri: %s %s %s: %w", f.Op, f.Kind, f.ID, f.Err))
	}
	if r.Interrupted != nil {
		errs = append(errs, fmt.Errorf("cri: %d planned items not done: %w", len(r.Skipped), r.Interrupted))
	}
	return errors.Join(errs...)
}

const whyCanceled = "the context ended before it was reached"

// ExecOptions tune the executors.
//
// The zero value is upstream's behaviour.
type ExecOptions struct {
	// StopTimeout is the grace a container in CONTAINER_UNKNOWN state gets
	// when it is stopped before removal (the kubelet kills it without its
	// pod, with its minimum grace period of 2s). Zero or negative means
	// 2s.
	StopTimeout time.Duration
	// NoSpares: do not replace failed space-pass deletions with the plan's
	// spare images (upstream moves on to the next candidate, so spares are
	// used by default).
	NoSpares bool
}

func (o ExecOptions) stopTimeout() time.Duration {
	if o.StopTimeout <= 0 {
		return 2 * time.Second
	}
	return o.StopTimeout
}

// ExecuteImagePlan removes the plan's images through the image service,
// in order, as the kubelet's image GC does: a failed removal is recorded
// and the next image tried; when space-pass removals fail, the plan's
// Spare images are removed in order until the space pass has freed
// AmountToFree (unless NoSpares). It stops when ctx ends, listing the rest
// as skipped. Nothing outside the plan is touched.
func ExecuteImagePlan(ctx context.Context, images ImageService, plan gc.ImagePlan, opts ExecOptions) ExecResult {
	var res ExecResult
	remove := func(d gc.ImageDeletion) bool {
		if err := images.RemoveImage(ctx, d.Image.ID); err != nil {
			res.Failed = append(res.Failed, Failed{ItemImage, d.Image.ID, OpRemoveImage, err})
			return false
		}
		res.Removed = append(res.Removed, Removed{ItemImage, d.Image.ID, string(d.Reason), d.Image.Size})
		return true
	}
	spaceFailed := false
	for i, d := range plan.Deletions {
		if ctx.Err() != nil {
			res.Interrupted = ctx.Err()
			for _, r := range plan.Deletions[i:] {
				res.Skipped = append(res.Skipped, Skipped{ItemImage, r.Image.ID, whyCanceled})
			}
			return res
		}
		ok := remove(d)
		if d.Reason == gc.ImageReasonSpace {
			if ok {
				res.Freed += d.Image.Size
			} else {
				spaceFailed = true
			}
		}
	}
	if !spaceFailed || opts.NoSpares {
		return res
	}
	for _, d := range plan.Spare {
		if res.Freed >= plan.AmountToFree {
			break
		}
		if ctx.Err() != nil {
			res.Interrupted = ctx.Err()
			break
		}
		if remove(d) {
			res.Freed += d.Image.Size
		}
	}
	return res
}

// interrupt records the context's end and lists the containers and
// sandboxes not reached as skipped.
func (r *ExecResult) interrupt(ctx context.Context, cs []gc.ContainerRemoval, ss []gc.SandboxRemoval) {
	r.Interrupted = ctx.Err()
	for _, c := range cs {
		r.Skipped = append(r.Skipped, Skipped{ItemContainer, c.Container.ID, whyCanceled})
	}
	for _, s := range ss {
		r.Skipped = append(r.Skipped, Skipped{ItemSandbox, s.Sandbox.ID, whyCanceled})
	}
}

// ExecuteContainerPlan removes the plan's containers, then its sandboxes,
// through the runtime service, in order, as the kubelet's container GC
// does: a container marked StopFirst (CONTAINER_UNKNOWN) is stopped first
// and, if that fails, not removed; a sandbox is always stopped first and,
// if that fails, not removed. Failures are recorded and the next item
// tried. It stops when ctx ends, listing the rest as skipped. Nothing
// outside the plan is touched.
func ExecuteContainerPlan(ctx context.Context, rt RuntimeService, plan gc.ContainerPlan, opts ExecOptions) ExecResult {
	var res ExecResult
	for i, r := range plan.Containers {
		if ctx.Err() != nil {
			res.interrupt(ctx, plan.Containers[i:], plan.Sandboxes)
			return res
		}
		id := r.Container.ID
		if r.StopFirst {
			if err := rt.StopContainer(ctx, id, opts.stopTimeout()); err != nil {
				res.Failed = append(res.Failed, Failed{ItemContainer, id, OpStopContainer, err})
				continue
			}
		}
		if err := rt.RemoveContainer(ctx, id); err != nil {
			res.Failed = append(res.Failed, Failed{ItemContainer, id, OpRemoveContainer, err})
			continue
		}
		res.Removed = append(res.Removed, Removed{ItemContainer, id, string(r.Reason), 0})
	}
	for i, s := range plan.Sandboxes {
		if ctx.Err() != nil {
			res.interrupt(ctx, nil, plan.Sandboxes[i:])
			return res
		}
		id := s.Sandbox.ID
		if err := rt.StopPodSandbox(ctx, id); err != nil {
			res.Failed = append(res.Failed, Failed{ItemSandbox, id, OpStopPodSandbox, err})
			continue
		}
		if err := rt.RemovePodSandbox(ctx, id); err != nil {
			res.Failed = append(res.Failed, Failed{ItemSandbox, id, OpRemovePodSandbox, err})
			continue
		}
		res.Removed = append(res.Removed, Removed{ItemSandbox, id, string(s.Reason), 0})
	}
	return res
}
