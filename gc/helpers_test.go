package gc

import (
	"testing"
	"time"
)

// t0 is the reference time of the tests.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// ago returns t0 - d.
func ago(d time.Duration) time.Time { return t0.Add(-d) }

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// imageIDs returns the IDs of ds in order.
func imageIDs(ds []ImageDeletion) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Image.ID)
	}
	return out
}

// containerIDs returns the IDs of rs in order.
func containerIDs(rs []ContainerRemoval) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Container.ID)
	}
	return out
}

// mustNil fails t on a non-nil error.
func mustNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}
