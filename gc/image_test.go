package gc

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestImagePolicyValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*ImagePolicy)
		want []string // substrings, one per expected error
	}{
		{"defaults are valid", func(*ImagePolicy) {}, nil},
		{"high above 100", func(p *ImagePolicy) { p.HighThresholdPercent = 101 },
			[]string{"imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive"}},
		{"low negative", func(p *ImagePolicy) { p.LowThresholdPercent = -1 },
			[]string{"imageGCLowThresholdPercent (--image-gc-low-threshold) -1 must be between 0 and 100, inclusive"}},
		{"low equal to high (kubelet validation; the manager alone would accept it)", func(p *ImagePolicy) { p.LowThresholdPercent = 85 },
			[]string{"imageGCLowThresholdPercent (--image-gc-low-threshold) 85 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 85"}},
		{"max age negative", func(p *ImagePolicy) { p.MaxAge = -1 }, []string{"imageMaximumGCAge -1ns must not be negative"}},
		{"max age not above min age (upstream test)", func(p *ImagePolicy) { p.MaxAge, p.MinAge = 1, 2 },
			[]string{"imageMaximumGCAge 1ns must be greater than imageMinimumGCAge 2ns"}},
		{"max age equal to min age", func(p *ImagePolicy) { p.MaxAge = 2 * time.Minute },
			[]string{"imageMaximumGCAge 2m0s must be greater than imageMinimumGCAge 2m0s"}},
		{"min age negative (beyond upstream)", func(p *ImagePolicy) { p.MinAge = -time.Second }, []string{"imageMinimumGCAge -1s must not be negative"}},
		{"every problem at once", func(p *ImagePolicy) { p.HighThresholdPercent, p.LowThresholdPercent = 200, 300 },
			[]string{"high-threshold) 200", "low-threshold) 300 must be between", "300 must be less than"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := DefaultImagePolicy()
			c.edit(&p)
			err := p.Validate()
			if len(c.want) == 0 {
				mustNil(t, err)
				return
			}
			if !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("err = %v, want ErrInvalidPolicy", err)
			}
			if n := strings.Count(err.Error(), "gc: invalid policy"); n != len(c.want) {
				t.Errorf("%d errors in %q, want %d", n, err, len(c.want))
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err %q lacks %q", err, w)
				}
			}
			if _, perr := PlanImages(t0, p, nil, FsStats{Capacity: 1}, t0); perr == nil {
				t.Error("PlanImages accepted an invalid policy")
			}
		})
	}
}

func TestImagePolicyDisabled(t *testing.T) {
	p := DefaultImagePolicy()
	if p.Disabled() {
		t.Error("defaults disabled")
	}
	p.HighThresholdPercent = 100
	if !p.Disabled() {
		t.Error("high 100, no max age: not disabled")
	}
	p.MaxAge = time.Hour
	if p.Disabled() {
		t.Error("high 100 with max age: disabled")
	}
}

func TestDetectImages(t *testing.T) {
	p := DefaultImagePolicy()
	old := []ImageRecord{
		{ID: "kept", Size: 1, FirstDetected: ago(time.Hour), LastUsed: ago(30 * time.Minute), InUse: true},
		{ID: "used-again", Size: 5, FirstDetected: ago(2 * time.Hour)},
		{ID: "vanished", Size: 7, FirstDetected: ago(3 * time.Hour)},
	}
	images := []Image{
		{ID: "new", Size: 10},
		{ID: "kept", Size: 2, Pinned: true},
		{ID: "used-again", Size: 5},
		{ID: "new", Size: 12}, // listed twice: the larger size wins
	}
	got := DetectImages(t0, p, old, images, []ImageRef{{ID: "used-again"}, {ID: "not-listed"}})
	want := []ImageRecord{
		// No container uses it now: InUse clears, LastUsed stays; size and pinned refresh.
		{ID: "kept", Size: 2, Pinned: true, FirstDetected: ago(time.Hour), LastUsed: ago(30 * time.Minute)},
		// First seen now.
		{ID: "new", Size: 12, FirstDetected: t0},
		// In use now: LastUsed = now.
		{ID: "used-again", Size: 5, FirstDetected: ago(2 * time.Hour), LastUsed: t0, InUse: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("DetectImages (-want +got):\n%s", d)
	}
	if old[0].Size != 1 || !old[0].InUse {
		t.Error("DetectImages modified its input")
	}
}

func TestDetectImagesRuntimeHandlerKey(t *testing.T) {
	images := []Image{{ID: "img", RuntimeHandler: "kata", Size: 1}, {ID: "img", RuntimeHandler: "", Size: 1}}
	used := []ImageRef{{ID: "img", RuntimeHandler: "kata"}}

	// Gate off: one record keyed by ID, in use through any handler.
	got := DetectImages(t0, DefaultImagePolicy(), nil, images, used)
	if len(got) != 1 || !got[0].InUse || got[0].RuntimeHandler != "kata" {
		t.Errorf("gate off: %+v, want one in-use record with the first handler", got)
	}
	// Gate on: two records, only the kata one in use.
	p := DefaultImagePolicy()
	p.RuntimeClassInImageCriAPI = true
	got = DetectImages(t0, p, nil, images, used)
	if len(got) != 2 || got[0].RuntimeHandler != "" || got[0].InUse || got[1].RuntimeHandler != "kata" || !got[1].InUse {
		t.Errorf("gate on: %+v", got)
	}
}

// rec is an unused image record first detected an hour before t0.
func rec(id string, size int64, lastUsed time.Time) ImageRecord {
	return ImageRecord{ID: id, Size: size, FirstDetected: ago(time.Hour), LastUsed: lastUsed}
}

func TestPlanImagesSpacePass(t *testing.T) {
	p := DefaultImagePolicy()
	for _, c := range []struct {
		name      string
		records   []ImageRecord
		fs        FsStats
		usage     int
		amount    int64
		deletions []string
		spare     []string
		freed     int64
		event     string
	}{
		{
			// 100 - floor(151*100/1000) = 85 >= 85; free floor(1000*20/100) - 151 = 49.
			name:    "capacity 1000, available 151: usage 85 triggers at high 85",
			records: []ImageRecord{rec("a", 30, ago(10*time.Minute)), rec("b", 30, ago(5*time.Minute)), rec("c", 100, ago(time.Minute))},
			fs:      FsStats{Capacity: 1000, Available: 151},
			usage:   85, amount: 49, deletions: []string{"a", "b"}, spare: []string{"c"}, freed: 60,
		},
		{
			name:    "available 159: floor(15.9) = 15, still 85",
			records: []ImageRecord{rec("a", 50, ago(time.Minute))},
			fs:      FsStats{Capacity: 1000, Available: 159},
			usage:   85, amount: 41, deletions: []string{"a"}, freed: 50,
		},
		{
			name:    "available 160: usage 84 is below high, nothing",
			records: []ImageRecord{rec("a", 50, ago(time.Minute))},
			fs:      FsStats{Capacity: 1000, Available: 160},
			usage:   84,
		},
		{
			name:    "stops as soon as the total reaches the amount (exactly)",
			records: []ImageRecord{rec("a", 100, ago(3*time.Minute)), rec("b", 100, ago(2*time.Minute)), rec("c", 100, ago(time.Minute))},
			fs:      FsStats{Capacity: 1000, Available: 0},
			usage:   100, amount: 200, deletions: []string{"a", "b"}, spare: []string{"c"}, freed: 200,
		},
		{
			name:    "not enough eligible: FreeDiskSpaceFailed",
			records: []ImageRecord{rec("a", 30, ago(time.Minute)), rec("b", 20, ago(time.Minute))},
			fs:      FsStats{Capacity: 1000, Available: 0},
			usage:   100, amount: 200, deletions: []string{"a", "b"}, freed: 50,
			event: "Failed to garbage collect required amount of images. Attempted to free 200 bytes, but only found 50 bytes eligible to free.",
		},
		{
			name:    "available above capacity is clamped: usage 0",
			records: []ImageRecord{rec("a", 30, ago(time.Minute))},
			fs:      FsStats{Capacity: 1000, Available: 5000},
			usage:   0,
		},
		{
			name:    "capacity 0: InvalidDiskCapacity, no space pass",
			records: []ImageRecord{rec("a", 30, ago(time.Minute))},
			fs:      FsStats{},
			event:   "invalid capacity 0 on image filesystem",
		},
		{
			// floor((2^63-1)*20/100) = 1844674407370955161; upstream's int64 product overflows.
			name:    "exact arithmetic at MaxInt64 capacity",
			records: []ImageRecord{rec("a", math.MaxInt64, ago(time.Minute))},
			fs:      FsStats{Capacity: math.MaxInt64},
			usage:   100, amount: 1844674407370955161, deletions: []string{"a"}, freed: math.MaxInt64,
		},
		{
			name: "never-used images first, then by last use; ties by first detected, then ID",
			records: []ImageRecord{
				rec("used-late", 1, ago(time.Minute)),
				{ID: "z-never", Size: 1, FirstDetected: ago(2 * time.Hour)},
				{ID: "b-never", Size: 1, FirstDetected: ago(time.Hour)},
				{ID: "a-never", Size: 1, FirstDetected: ago(time.Hour)},
				rec("used-early", 1, ago(time.Hour)),
			},
			fs:    FsStats{Capacity: 100, Available: 0},
			usage: 100, amount: 20,
			deletions: []string{"z-never", "a-never", "b-never", "used-early", "used-late"}, freed: 5,
			event: "Failed to garbage collect required amount of images. Attempted to free 20 bytes, but only found 5 bytes eligible to free.",
		},
		{
			name: "in use, pinned, younger than MinAge and used at now are never taken",
			records: []ImageRecord{
				{ID: "in-use", Size: 100, FirstDetected: ago(time.Hour), LastUsed: t0, InUse: true},
				{ID: "pinned", Size: 100, FirstDetected: ago(time.Hour), Pinned: true},
				{ID: "young", Size: 100, FirstDetected: ago(2*time.Minute - time.Second)},
				{ID: "exactly-min-age", Size: 1, FirstDetected: ago(2 * time.Minute)},
				{ID: "used-at-now", Size: 100, FirstDetected: ago(time.Hour), LastUsed: t0},
			},
			fs:    FsStats{Capacity: 1000, Available: 0},
			usage: 100, amount: 200, deletions: []string{"exactly-min-age"}, freed: 1,
			event: "Failed to garbage collect required amount of images. Attempted to free 200 bytes, but only found 1 bytes eligible to free.",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan, err := PlanImages(t0, p, c.records, c.fs, ago(time.Hour))
			mustNil(t, err)
			if plan.UsagePercent != c.usage || plan.AmountToFree != c.amount || plan.Freed != c.freed {
				t.Errorf("usage %d amount %d freed %d, want %d %d %d", plan.UsagePercent, plan.AmountToFree, plan.Freed, c.usage, c.amount, c.freed)
			}
			if d := cmp.Diff(c.deletions, imageIDs(plan.Deletions)); d != "" {
				t.Errorf("deletions (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.spare, imageIDs(plan.Spare)); d != "" {
				t.Errorf("spare (-want +got):\n%s", d)
			}
			for _, d := range plan.Deletions {
				if d.Reason != ImageReasonSpace || d.Message == "" {
					t.Errorf("deletion %+v: want reason space and a message", d)
				}
			}
			var event string
			if len(plan.Events) > 0 {
				event = plan.Events[0].Message
				if plan.Events[0].Type != EventTypeWarning || plan.Err() == nil || plan.Err().Error() != event {
					t.Errorf("event %+v, Err %v", plan.Events[0], plan.Err())
				}
			} else if plan.Err() != nil {
				t.Errorf("Err %v without an event", plan.Err())
			}
			if event != c.event {
				t.Errorf("event %q, want %q", event, c.event)
			}
		})
	}
}

func TestPlanImagesAgePass(t *testing.T) {
	p := DefaultImagePolicy()
	p.MaxAge = 10 * time.Minute
	records := []ImageRecord{
		rec("idle-11m", 1, ago(11*time.Minute)),
		rec("idle-10m", 1, ago(10*time.Minute)), // exactly MaxAge: kept (strictly more is needed)
		{ID: "never-used-young", Size: 1, FirstDetected: ago(time.Minute)},
		{ID: "in-use", Size: 1, FirstDetected: ago(time.Hour), LastUsed: t0, InUse: true},
		{ID: "pinned", Size: 1, FirstDetected: ago(time.Hour), Pinned: true},
	}
	fs := FsStats{Capacity: 1000, Available: 1000}

	// GC began exactly MaxAge ago: the age pass waits.
	plan, err := PlanImages(t0, p, records, fs, ago(10*time.Minute))
	mustNil(t, err)
	if plan.AgePass || len(plan.Deletions) != 0 {
		t.Errorf("began MaxAge ago: %+v", plan)
	}
	// More than MaxAge: idle > MaxAge goes, MinAge is not checked.
	plan, err = PlanImages(t0, p, records, fs, ago(11*time.Minute))
	mustNil(t, err)
	if !plan.AgePass || plan.SpacePass {
		t.Errorf("AgePass %v SpacePass %v", plan.AgePass, plan.SpacePass)
	}
	if d := cmp.Diff([]string{"never-used-young", "idle-11m"}, imageIDs(plan.Deletions)); d != "" {
		t.Errorf("age deletions (-want +got):\n%s", d)
	}
	for _, d := range plan.Deletions {
		if d.Reason != ImageReasonAge {
			t.Errorf("%s: reason %s", d.Image.ID, d.Reason)
		}
	}
	// Then the space pass over what is left: idle-10m only (the others are
	// in use, pinned, or gone).
	plan, err = PlanImages(t0, p, records, FsStats{Capacity: 1000}, ago(11*time.Minute))
	mustNil(t, err)
	if d := cmp.Diff([]string{"never-used-young", "idle-11m", "idle-10m"}, imageIDs(plan.Deletions)); d != "" {
		t.Errorf("age then space (-want +got):\n%s", d)
	}
	if plan.Deletions[2].Reason != ImageReasonSpace || plan.Freed != 1 {
		t.Errorf("space part: %+v freed %d", plan.Deletions[2], plan.Freed)
	}
	// Capacity 0 after an age pass: the age deletions stand, then the event.
	plan, err = PlanImages(t0, p, records, FsStats{}, ago(11*time.Minute))
	mustNil(t, err)
	if len(plan.Deletions) != 2 || len(plan.Events) != 1 || plan.Events[0].Reason != EventInvalidDiskCapacity {
		t.Errorf("capacity 0 after age pass: %+v", plan)
	}
}

func TestPlanImagesBadInput(t *testing.T) {
	p := DefaultImagePolicy()
	for _, c := range []struct {
		name    string
		records []ImageRecord
		fs      FsStats
		want    string
	}{
		{"negative capacity", nil, FsStats{Capacity: -1}, "capacity -1 and available 0 must not be negative"},
		{"negative available", nil, FsStats{Capacity: 1, Available: -5}, "available -5"},
		{"negative size", []ImageRecord{{ID: "a", Size: -3}}, FsStats{Capacity: 1}, `image "a" has negative size -3`},
		{"empty ID", []ImageRecord{{ID: ""}}, FsStats{Capacity: 1}, "image record 0 has an empty ID"},
		{"duplicate", []ImageRecord{{ID: "a"}, {ID: "a"}}, FsStats{Capacity: 1}, `duplicate image record "a"`},
	} {
		_, err := PlanImages(t0, p, c.records, c.fs, t0)
		if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want ErrInvalidInput with %q", c.name, err, c.want)
		}
	}
}

func TestPlanUnusedImages(t *testing.T) {
	p := DefaultImagePolicy()
	records := []ImageRecord{
		rec("b", 10, ago(time.Minute)),
		rec("a", 10, ago(time.Hour)),
		{ID: "in-use", Size: 10, FirstDetected: ago(time.Hour), LastUsed: t0, InUse: true},
		{ID: "pinned", Size: 10, FirstDetected: ago(time.Hour), Pinned: true},
		{ID: "young", Size: 10, FirstDetected: ago(time.Minute)},
	}
	plan, err := PlanUnusedImages(t0, p, records)
	mustNil(t, err)
	if d := cmp.Diff([]string{"a", "b"}, imageIDs(plan.Deletions)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if plan.Freed != 20 || len(plan.Spare) != 0 || len(plan.Events) != 0 {
		t.Errorf("freed %d spare %v events %v", plan.Freed, plan.Spare, plan.Events)
	}
}
