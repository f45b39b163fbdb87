package gc

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"
)

// Image GC event reasons, as the kubelet's events package.
const (
	// EventFreeDiskSpaceFailed: the space pass found fewer eligible bytes
	// than it had to free.
	EventFreeDiskSpaceFailed = "FreeDiskSpaceFailed"
	// EventInvalidDiskCapacity: the image filesystem reported capacity 0.
	EventInvalidDiskCapacity = "InvalidDiskCapacity"
	// EventImageGCFailed: the kubelet's event for an image GC that failed
	// on two or more consecutive runs (see ImagePlan.Err).
	EventImageGCFailed = "ImageGCFailed"
)

// ImagePolicy is the kubelet's image garbage-collection policy
// (KubeletConfiguration). The zero value is not usable; start from
// DefaultImagePolicy.
type ImagePolicy struct {
	// HighThresholdPercent is imageGCHighThresholdPercent
	// (--image-gc-high-threshold), default 85: image-filesystem usage at
	// or above it starts the space pass.
	HighThresholdPercent int
	// LowThresholdPercent is imageGCLowThresholdPercent
	// (--image-gc-low-threshold), default 80: the space pass frees down to
	// it.
	LowThresholdPercent int
	// MinAge is imageMinimumGCAge, default 2m: the space pass spares images
	// first detected less than MinAge ago (an image exactly MinAge old is
	// eligible). The age pass ignores it, as upstream.
	MinAge time.Duration
	// MaxAge is imageMaximumGCAge (KEP-4210, gate ImageMaximumGCAge),
	// default 0 = off: the age pass deletes unused images idle for longer
	// than MaxAge, once MaxAge has passed since GC began.
	MaxAge time.Duration
	// RuntimeClassInImageCriAPI keys image records by image ID and runtime
	// handler ("ID,handler"), as upstream under the feature gate of that
	// name; off, records are keyed by image ID alone and the handler of
	// the first detection is kept.
	RuntimeClassInImageCriAPI bool
}

// DefaultImagePolicy returns the kubelet's defaults: high 85%, low 80%,
// minimum age 2 minutes, no maximum age.
func DefaultImagePolicy() ImagePolicy {
	return ImagePolicy{HighThresholdPercent: 85, LowThresholdPercent: 80, MinAge: 2 * time.Minute}
}

// Validate returns every problem with p, joined, with the kubelet's
// configuration-validation messages: each threshold in 0..100, low below
// high, MaxAge not negative and, when set, greater than MinAge. Beyond
// upstream, which accepts it and behaves as if it were 0, a negative MinAge
// is rejected too.
func (p ImagePolicy) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, wrap(ErrInvalidPolicy, fmt.Sprintf(format, args...)))
	}
	if p.HighThresholdPercent < 0 || p.HighThresholdPercent > 100 {
		bad("imageGCHighThresholdPercent (--image-gc-high-threshold) %v must be between 0 and 100, inclusive", p.HighThresholdPercent)
	}
	if p.LowThresholdPercent < 0 || p.LowThresholdPercent > 100 {
		bad("imageGCLowThresholdPercent (--image-gc-low-threshold) %v must be between 0 and 100, inclusive", p.LowThresholdPercent)
	}
	if p.LowThresholdPercent >= p.HighThresholdPercent {
		bad("imageGCLowThresholdPercent (--image-gc-low-threshold) %v must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) %v", p.LowThresholdPercent, p.HighThresholdPercent)
	}
	if p.MaxAge < 0 {
		bad("imageMaximumGCAge %v must not be negative", p.MaxAge)
	}
	if p.MaxAge > 0 && p.MaxAge <= p.MinAge {
		bad("imageMaximumGCAge %v must be greater than imageMinimumGCAge %v", p.MaxAge, p.MinAge)
	}
	if p.MinAge < 0 {
		bad("imageMinimumGCAge %v must not be negative (upstream accepts it and behaves as for 0)", p.MinAge)
	}
	return errors.Join(errs...)
}

// Disabled reports whether the kubelet runs no periodic image GC at all
// under p: high threshold 100 and no maximum age. The eviction manager's
// PlanUnusedImages still works.
func (p ImagePolicy) Disabled() bool { return p.HighThresholdPercent == 100 && p.MaxAge == 0 }

// Image is one image as the runtime lists it (CRI ListImages).
type Image struct {
	// ID is the image ID.
	ID string
	// RuntimeHandler is spec.runtimeHandler, the runtime class handler it
	// was pulled for ("" for the default).
	RuntimeHandler string
	// Size is the size in bytes the runtime reports.
	Size int64
	// Pinned is the runtime's pinned flag (the sandbox image, typically):
	// a pinned image is never collected.
	Pinned bool
}

// ImageRef names the image a runtime container runs (its CRI imageRef and
// the runtime handler).
type ImageRef struct {
	// ID is the container's image ID.
	ID string
	// RuntimeHandler is the container's image runtime handler.
	RuntimeHandler string
}

// ImageRecord is what the image manager remembers about an image between
// runs.
type ImageRecord struct {
	// ID is the image ID.
	ID string
	// RuntimeHandler is the handler the image was first detected with.
	RuntimeHandler string
	// Size is the runtime-reported size in bytes, refreshed on every
	// detection.
	Size int64
	// Pinned is the runtime's pinned flag, refreshed on every detection.
	Pinned bool
	// FirstDetected is when the image was first listed.
	FirstDetected time.Time
	// LastUsed is the last detection that found a container (running or
	// exited) using the image; zero if never.
	LastUsed time.Time
	// InUse reports that a container used the image at the last detection.
	InUse bool
}

// key returns the record's key under p.
func (p ImagePolicy) key(id, handler string) string {
	if p.RuntimeClassInImageCriAPI {
		return id + "," + handler
	}
	return id
}

// DetectImages is the image manager's detection step at now: it returns
// the records for the images the runtime lists, in key order. An image
// seen for the first time is recorded as first detected at now; an image
// used by any of the runtime's containers (running or exited; only the
// image ID, and under RuntimeClassInImageCriAPI the handler, count) gets
// LastUsed = now and InUse; size and pinned are refreshed; records of
// images no longer listed are dropped. records and the other inputs are
// not modified.
//
// Upstream takes the first-detected time as an argument and the last-used
// time from the wall clock; here both are now. If the runtime lists one
// image twice, the larger size and either pinned flag win (upstream keeps
// the last entry's, which depends on the listing order).
func DetectImages(now time.Time, p ImagePolicy, records []ImageRecord, images []Image, used []ImageRef) []ImageRecord {
	old := make(map[string]*ImageRecord, len(records))
	for i := range records {
		old[p.key(records[i].ID, records[i].RuntimeHandler)] = &records[i]
	}
	inUse := make(map[string]bool, len(used))
	for _, u := range used {
		inUse[p.key(u.ID, u.RuntimeHandler)] = true
	}
	out := make([]ImageRecord, 0, len(images))
	index := make(map[string]int, len(images))
	for _, img := range images {
		k := p.key(img.ID, img.RuntimeHandler)
		if i, dup := index[k]; dup {
			out[i].Size = max(out[i].Size, img.Size)
			out[i].Pinned = out[i].Pinned || img.Pinned
			continue
		}
		r := ImageRecord{ID: img.ID, RuntimeHandler: img.RuntimeHandler, FirstDetected: now}
		if o, ok := old[k]; ok {
			r.RuntimeHandler, r.FirstDetected, r.LastUsed = o.RuntimeHandler, o.FirstDetected, o.LastUsed
		}
		if inUse[k] {
			r.LastUsed, r.InUse = now, true
		}
		r.Size, r.Pinned = img.Size, img.Pinned
		index[k] = len(out)
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b ImageRecord) int {
		return cmp.Or(strings.Compare(a.ID, b.ID), strings.Compare(a.RuntimeHandler, b.RuntimeHandler))
	})
	return out
}

// ImageReason says which pass deletes an image; the values are the labels
// of the kubelet's image_garbage_collected_total metric.
type ImageReason string

// The image deletion reasons.
const (
	// ImageReasonAge: unused for longer than MaxAge.
	ImageReasonAge ImageReason = "age"
	// ImageReasonSpace: deleted to bring usage down to the low threshold,
	// or by the eviction manager's delete-all-unused mode.
	ImageReasonSpace ImageReason = "space"
)

// ImageDeletion is one image to remove.
type ImageDeletion struct {
	// Image is the record of the image.
	Image ImageRecord
	// Reason is the pass that deletes it.
	Reason ImageReason
	// Message says why, for a log line.
	Message string
}

// FsStats is the image filesystem's usage, in bytes.
type FsStats struct {
	// Capacity is the filesystem's capacity; 0 (upstream's nil) makes the
	// space pass fail with InvalidDiskCapacity.
	Capacity int64
	// Available is the bytes available; above Capacity it is clamped to
	// Capacity, as upstream.
	Available int64
}

// ImagePlan is one run of the kubelet's image GC.
type ImagePlan struct {
	// Deletions lists the images to remove, in order: the age pass, then
	// the space pass (least recently used first).
	Deletions []ImageDeletion
	// Spare lists the eligible images the space pass did not need, in the
	// order it would take them. Upstream moves on to the next eligible
	// image when a removal fails; an executor that wants the same takes
	// them from Spare, in order, until AmountToFree is reached.
	Spare []ImageDeletion
	// AgePass reports that the age pass ran (MaxAge set and more than
	// MaxAge since GC began).
	AgePass bool
	// UsagePercent is 100 - floor(available*100/capacity), the figure
	// compared with the high threshold (0 when capacity is 0).
	UsagePercent int
	// SpacePass reports that usage was at or above the high threshold.
	SpacePass bool
	// AmountToFree is floor(capacity*(100-low)/100) - available when the
	// space pass runs, else 0.
	AmountToFree int64
	// Freed is the reported size of the space pass's deletions.
	Freed int64
	// Events are the events upstream records on the Node:
	// InvalidDiskCapacity, FreeDiskSpaceFailed.
	Events []Event
}

// Err returns the error upstream's GarbageCollect would return for this
// run if every deletion succeeds: the message of its warning event, or nil.
// The kubelet logs the first failure and records EventImageGCFailed with
// this message only when the previous run failed too.
func (p ImagePlan) Err() error {
	if len(p.Events) == 0 {
		return nil
	}
	return errors.New(p.Events[0].Message)
}

// candidate is an image that may be deleted, with its times unpacked as
// instants are, the fields laid out to fit 32 bytes (the sort moves them).
type candidate struct {
	luSec, fdSec   int64
	luNsec, fdNsec int32
	r              *ImageRecord
}

func (c *candidate) lastUsed() instant      { return instant{c.luSec, c.luNsec} }
func (c *candidate) firstDetected() instant { return instant{c.fdSec, c.fdNsec} }

// compareEviction orders images as the kubelet's eviction order: least
// recently used first, then first detected first; ID and handler make the
// order total (upstream's sort has no further tie-break).
func compareEviction(a, b candidate) int {
	if c := a.lastUsed().compare(b.lastUsed()); c != 0 {
		return c
	}
	if c := a.firstDetected().compare(b.firstDetected()); c != 0 {
		return c
	}
	if c := strings.Compare(a.r.ID, b.r.ID); c != 0 {
		return c
	}
	return strings.Compare(a.r.RuntimeHandler, b.r.RuntimeHandler)
}

// candidates returns the records upstream may delete (neither in use nor
// pinned), in eviction order, after checking the input.
func (p ImagePolicy) candidates(records []ImageRecord) ([]candidate, error) {
	seen := make(map[string]struct{}, len(records))
	c := make([]candidate, 0, len(records))
	for i := range records {
		r := &records[i]
		if r.ID == "" {
			return nil, wrap(ErrInvalidInput, fmt.Sprintf("image record %d has an empty ID", i))
		}
		if r.Size < 0 {
			return nil, wrap(ErrInvalidInput, fmt.Sprintf("image %q has negative size %d", r.ID, r.Size))
		}
		k := p.key(r.ID, r.RuntimeHandler)
		if _, dup := seen[k]; dup {
			return nil, wrap(ErrInvalidInput, fmt.Sprintf("duplicate image record %q", k))
		}
		seen[k] = struct{}{}
		if r.InUse || r.Pinned {
			continue
		}
		lu, fd := at(r.LastUsed), at(r.FirstDetected)
		c = append(c, candidate{luSec: lu.sec, fdSec: fd.sec, luNsec: lu.nsec, fdNsec: fd.nsec, r: r})
	}
	slices.SortFunc(c, compareEviction)
	return c, nil
}

// PlanImages is one run of the kubelet's image GC (GarbageCollect) at now,
// over records from DetectImages at the same now, with the image
// filesystem's stats fs and beganGC the time the kubelet's GC loop started.
//
// Images in use or pinned are never planned. The age pass (MaxAge set, and
// now - beganGC > MaxAge) deletes every other image with now - LastUsed >
// MaxAge. The space pass then computes usage% = 100 -
// floor(available*100/capacity); at or above the high threshold it frees
// floor(capacity*(100-low)/100) - available bytes, walking the remaining
// images least recently used first (ties: first detected, then ID) and
// skipping images with LastUsed not before now or first detected less than
// MinAge ago, until the reported sizes reach the amount. Capacity 0 ends
// the run with event InvalidDiskCapacity; an amount not reached, with
// FreeDiskSpaceFailed. The arithmetic is exact for any int64 sizes, where
// upstream's overflows above 92 PB.
//
// A policy that fails Validate, negative stats, a negative size, an empty
// ID or a duplicate record key return an error and no plan. records is not
// modified.
func PlanImages(now time.Time, p ImagePolicy, records []ImageRecord, fs FsStats, beganGC time.Time) (ImagePlan, error) {
	var plan ImagePlan
	if err := p.Validate(); err != nil {
		return plan, err
	}
	if fs.Capacity < 0 || fs.Available < 0 {
		return plan, wrap(ErrInvalidInput, fmt.Sprintf("image filesystem capacity %d and available %d must not be negative", fs.Capacity, fs.Available))
	}
	cands, err := p.candidates(records)
	if err != nil {
		return plan, err
	}
	if p.MaxAge > 0 && now.Sub(beganGC) > p.MaxAge {
		plan.AgePass = true
		kept := cands[:0]
		msg := fmt.Sprintf("unused for longer than imageMaximumGCAge %v", p.MaxAge)
		for _, c := range cands {
			if now.Sub(c.r.LastUsed) > p.MaxAge {
				plan.Deletions = append(plan.Deletions, ImageDeletion{Image: *c.r, Reason: ImageReasonAge, Message: msg})
				continue
			}
			kept = append(kept, c)
		}
		cands = kept
	}
	capacity, available := fs.Capacity, min(fs.Available, fs.Capacity)
	if capacity == 0 {
		plan.Events = append(plan.Events, Event{Type: EventTypeWarning, Reason: EventInvalidDiskCapacity, Message: "invalid capacity 0 on image filesystem"})
		return plan, nil
	}
	plan.UsagePercent = 100 - int(mulDiv(available, 100, capacity))
	if plan.UsagePercent < p.HighThresholdPercent {
		return plan, nil
	}
	plan.SpacePass = true
	plan.AmountToFree = mulDiv(capacity, int64(100-p.LowThresholdPercent), 100) - available
	plan.Freed = p.walk(&plan, cands, plan.AmountToFree, now,
		fmt.Sprintf("least recently used, freeing space to bring image filesystem usage from %d%% down to the low threshold %d%%", plan.UsagePercent, p.LowThresholdPercent))
	if plan.Freed < plan.AmountToFree {
		plan.Events = append(plan.Events, Event{Type: EventTypeWarning, Reason: EventFreeDiskSpaceFailed,
			Message: fmt.Sprintf("Failed to garbage collect required amount of images. Attempted to free %d bytes, but only found %d bytes eligible to free.", plan.AmountToFree, plan.Freed)})
	}
	return plan, nil
}

// walk is upstream's freeSpace: it appends the space-pass deletions to
// plan (and the eligible images left over to plan.Spare) and returns the
// bytes they free. It stops once the total reaches target, checked after
// each deletion.
func (p ImagePolicy) walk(plan *ImagePlan, cands []candidate, target int64, now time.Time, msg string) int64 {
	// Used before now, and first detected at least MinAge before now:
	// now - firstDetected >= MinAge is firstDetected <= now - MinAge, since
	// MinAge (at most 292 years) is never above the saturated difference
	// time.Sub would give.
	nowAt, cutoff := at(now), at(now.Add(-p.MinAge))
	eligible := func(c *candidate) bool {
		return c.lastUsed().compare(nowAt) < 0 && c.firstDetected().compare(cutoff) <= 0
	}
	// Count first, so that the deletions are laid out once: at cluster
	// scale the plan is most of the cost.
	var freed int64
	take, spare := 0, 0
	for i := range cands {
		switch c := &cands[i]; {
		case !eligible(c):
		case take > 0 && freed >= target:
			spare++
		default:
			take++
			freed = addSat(freed, c.r.Size)
		}
	}
	plan.Deletions = slices.Grow(plan.Deletions, take)
	if spare > 0 {
		plan.Spare = make([]ImageDeletion, 0, spare)
	}
	spareMsg := fmt.Sprintf("eligible, not needed to free %d bytes", target)
	for i := range cands {
		switch c := &cands[i]; {
		case !eligible(c):
		case take == 0:
			plan.Spare = append(plan.Spare, ImageDeletion{Image: *c.r, Reason: ImageReasonSpace, Message: spareMsg})
		default:
			take--
			plan.Deletions = append(plan.Deletions, ImageDeletion{Image: *c.r, Reason: ImageReasonSpace, Message: msg})
		}
	}
	return freed
}

// PlanUnusedImages is the eviction manager's DeleteUnusedImages at now:
// the space pass with no target, deleting every image that is neither in
// use nor pinned, was last used before now and is at least MinAge old,
// least recently used first. The age pass and the thresholds play no
// part.
func PlanUnusedImages(now time.Time, p ImagePolicy, records []ImageRecord) (ImagePlan, error) {
	var plan ImagePlan
	if err := p.Validate(); err != nil {
		return plan, err
	}
	cands, err := p.candidates(records)
	if err != nil {
		return plan, err
	}
	plan.SpacePass = true
	plan.AmountToFree = math.MaxInt64 // no target: every eligible image
	plan.Freed = p.walk(&plan, cands, math.MaxInt64, now,
		fmt.Sprintf("unused, unpinned and at least imageMinimumGCAge %v old (delete-all-unused mode)", p.MinAge))
	return plan, nil
}

// mulDiv returns floor(a*b/c) for a, b >= 0 and c > 0 with a*b/c fitting
// in int64, without overflow in between.
func mulDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(min(q, math.MaxInt64))
}

// addSat returns a+b for non-negative a and b, saturating at MaxInt64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
