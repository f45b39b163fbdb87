package gc

import (
	"github.com/nodelife/nodelife/core"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What the external property tests (which draw from nodelifetest) need of
// the internal tests' helpers and naive references.

// NaiveOwners is the naive owner-reference collector of
// owner_naive_test.go.
type NaiveOwners struct{ w naiveOwners }

// NewNaiveOwners returns the naive collector over objs.
func NewNaiveOwners(objs []Object, opts OwnerOptions) NaiveOwners {
	return NaiveOwners{naiveOwners{objs, opts}}
}

// Plan is the naive collector's plan, one line per decision.
func (n NaiveOwners) Plan() []string { return n.w.plan() }

// Classify is how the naive collector reads d's reference r.
func (n NaiveOwners) Classify(d *Object, r metav1.OwnerReference) RefState { return n.w.classify(d, r) }

var (
	IsBlocking = isBlocking
	HasString  = hasString
	Steps      = steps
	Summary    = summary
	T0         = t0
	Ago        = ago
	ImageIDs   = imageIDs
)

// Terminated reports whether the pod GC counts p as terminated.
func Terminated(p *core.Pod) bool { return terminated(p) }
