package nodelifetest

import (
	"time"

	"pgregory.net/rapid"
)

// Epoch returns the time the generators draw around when Options.Now is
// zero: 2026-01-01T00:00:00Z.
func Epoch() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// Options steer the generators. Each generator reads the fields that
// concern it and says which; the zero value draws the whole range,
// invalid objects included, around Epoch.
type Options struct {
	// Valid keeps to objects the API server and the kubelet accept:
	// taints and tolerations that validate, owner graphs of live objects
	// with well-formed references, thresholds that parse.
	Valid bool
	// Now is the time drawn times are relative to; zero means Epoch.
	Now time.Time
	// Zones is how many zones Nodes and Clusters spread nodes over; 0
	// means up to 3, drawn. A cluster always has at least one zone.
	Zones int
	// MinPriority and MaxPriority bound drawn pod priorities when
	// MaxPriority > MinPriority; otherwise priorities come from a mix of
	// the values policies key on (negative, 0, ordinary,
	// system-cluster-critical, system-node-critical). Either way about a
	// quarter of the pods have no priority (nil).
	MinPriority, MaxPriority int32
	// MaxPods bounds the length of drawn pod lists (0 means 12).
	MaxPods int
	// MaxNodes bounds the number of nodes of a drawn cluster (0 means 9).
	MaxNodes int
	// Keys and Values, when set, are the pools Taints and Tolerations draw
	// keys and values from (Valid then only fixes the effect and
	// operator), so that collisions between drawn taints are common.
	Keys, Values []string
}

func (o Options) now() time.Time {
	if o.Now.IsZero() {
		return Epoch()
	}
	return o.Now
}

func (o Options) maxPods() int {
	if o.MaxPods <= 0 {
		return 12
	}
	return o.MaxPods
}

func (o Options) maxNodes() int {
	if o.MaxNodes <= 0 {
		return 9
	}
	return o.MaxNodes
}

// ago draws a time up to maxSeconds before now, in whole seconds.
func ago(t *rapid.T, now time.Time, maxSeconds int, label string) time.Time {
	return now.Add(-time.Duration(rapid.IntRange(0, maxSeconds).Draw(t, label)) * time.Second)
}

// rare is true about once in n draws. It shrinks to false: rapid shrinks
// a drawn integer toward the low end of its range, and only the highest
// value is true, so the rare case leaves a shrunk counterexample unless
// the failure needs it.
func rare(t *rapid.T, n int, label string) bool { return rapid.IntRange(0, n-1).Draw(t, label) == n-1 }

// usually is true in n-1 draws of n and shrinks to false: for an optional
// part most drawn objects have (a usage reading, say), which a shrunk
// counterexample sheds unless the failure needs it.
func usually(t *rapid.T, n int, label string) bool { return rapid.IntRange(0, n-1).Draw(t, label) > 0 }

func ptr[T any](v T) *T { return &v }
