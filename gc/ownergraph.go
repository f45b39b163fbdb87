package gc

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// OwnerGCComponent is the event source of the owner-reference collector.
const OwnerGCComponent = "garbage-collector-controller"

// EventOwnerRefInvalidNamespace is the collector's only event: a dependent
// refers by UID to an observed namespaced owner in another namespace (or
// a cluster-scoped dependent to a namespaced owner).
const EventOwnerRefInvalidNamespace = "OwnerRefInvalidNamespace"

// OwnerOptions configures the owner-reference collector. The zero value is
// upstream's behaviour with the built-in kinds of DefaultKindScopes.
type OwnerOptions struct {
	// Scopes resolves an owner reference's apiVersion and kind; nil means
	// DefaultKindScopes().Lookup. A kind it does not know pins every
	// dependent that refers to it (upstream requeues such a dependent
	// forever and never deletes it).
	Scopes ScopeLookup
	// ForegroundBlockingOnly makes a foreground deletion reach only the
	// dependents that block it: a reference without blockOwnerDeletion
	// to an owner being deleted in the foreground counts as solid, so
	// such a dependent stays until the owner is gone and is then collected
	// with its own policy. Upstream deletes every dependent of a
	// foreground-deleting owner at once (kubernetes#121113, open; PR
	// kubernetes#121114 closed unmerged).
	ForegroundBlockingOnly bool
}

// RefState is the classification of one owner reference, upstream's
// classifyReferences plus the cases it answers with an error.
type RefState uint8

// The owner reference states.
const (
	// RefSolid: the object at the reference's coordinates has its UID and
	// is not being deleted in the foreground. The dependent stays.
	RefSolid RefState = iota
	// RefWaiting: the owner is being deleted in the foreground
	// (deletionTimestamp and foregroundDeletion).
	RefWaiting
	// RefDangling: nothing with the reference's UID is at its coordinates
	// (the owner is gone, its name was reused by another UID, or the UID
	// belongs to an object in another namespace, of another kind or name).
	RefDangling
	// RefUnresolvable: a cluster-scoped dependent refers to a namespaced
	// kind. Upstream forgets the dependent: never deleted, never retried.
	RefUnresolvable
	// RefUnknownKind: the apiVersion/kind is not served. Upstream retries
	// the dependent forever and never deletes it.
	RefUnknownKind
	// RefInvalid: the reference breaks the API server's validation (empty
	// apiVersion, kind, name or uid, or a malformed apiVersion), so real
	// objects never carry it. Treated like RefUnknownKind: the dependent
	// is pinned, and a warning names the reference.
	RefInvalid
)

var refStateNames = [...]string{"Solid", "Waiting", "Dangling", "Unresolvable", "UnknownKind", "Invalid"}

// String returns the state's name, e.g. "Dangling".
func (s RefState) String() string {
	if int(s) < len(refStateNames) {
		return refStateNames[s]
	}
	return fmt.Sprintf("RefState(%d)", s)
}

// refBlocking is set in refInfo when the reference has
// blockOwnerDeletion=true; the low bits hold the RefState.
const refBlocking = 0x80

// ObjectEvent is an event recorded on an object (its involvedObject).
type ObjectEvent struct {
	// Object is the involved object.
	Object ObjectRef
	Event
}

// OwnerWarning reports input the collector works around: a reference the
// API server would have rejected, an unknown kind, a self-reference.
type OwnerWarning struct {
	// Object is the object whose references are in question.
	Object ObjectRef
	// Reason is one of the OwnerReason warning values.
	Reason OwnerReason
	// Message names the reference and the problem.
	Message string
}

// OwnerGraph is a snapshot of the owner-reference graph: every observed
// object with its references classified. It is immutable, so any number
// of goroutines may plan and explain from it (upstream's graph is written
// by one goroutine while workers read it, kubernetes#135621).
//
// UIDs are interned to dense indices; references and the reverse
// (dependent) edges are flat arrays, so the graph costs a few tens of
// bytes per object beyond the input.
type OwnerGraph struct {
	objs  []Object
	opts  OwnerOptions
	byUID uidIndex

	// refStart[i]..refStart[i+1] index object i's references in refOwner
	// and refInfo. refOwner is the index of the observed object with the
	// reference's UID, or -1.
	refStart []int32
	refOwner []int32
	refInfo  []uint8

	// depStart[i]..depStart[i+1] index depRef: the references (by index)
	// whose UID is object i's, in reference order.
	depStart []int32
	depRef   []int32

	warnings []OwnerWarning
	events   []ObjectEvent
	// anyForeground: some object is deleting in the foreground (without
	// that, there is no deadlock to look for).
	anyForeground bool
}

// NewOwnerGraph builds the graph of objects and classifies every owner
// reference. objects is not copied and must not change while the graph is
// in use. An object with an empty UID, or two with the same UID, is an
// ErrInvalidInput error; malformed references, unknown kinds and
// self-references are warnings (see Warnings). Two objects at the same
// coordinates with different UIDs, which a cluster cannot hold, are not
// detected: a reference resolves to the one with its UID.
func NewOwnerGraph(objects []Object, opts OwnerOptions) (*OwnerGraph, error) {
	n := len(objects)
	if n >= math.MaxInt32 {
		return nil, wrap(ErrInvalidInput, fmt.Sprintf("%d objects is more than a graph holds", n))
	}
	lookup := opts.Scopes
	if lookup == nil {
		lookup = DefaultKindScopes().Lookup
	}
	// One pass over the objects checks the UIDs, hashes them and places
	// their references: at a million objects each pass over the input
	// costs more than the work done in it.
	seed := maphash.MakeSeed()
	hashes := make([]uint64, n)
	refStart := make([]int32, n+1)
	total := 0
	for i := range objects {
		o := &objects[i]
		if o.UID == "" {
			return nil, wrap(ErrInvalidInput, fmt.Sprintf("object %d (%s) has an empty UID", i, o.Ref()))
		}
		hashes[i] = hashUID(seed, o.UID)
		refStart[i] = int32(total)
		if total += len(o.OwnerReferences); total >= math.MaxInt32 {
			return nil, wrap(ErrInvalidInput, "more owner references than a graph holds (2^31-1)")
		}
	}
	refStart[n] = int32(total)
	index, dups := newUIDIndex(objects, seed, hashes)
	if len(dups) > 0 {
		return nil, duplicateError(objects, dups)
	}
	g := &OwnerGraph{objs: objects, opts: opts, byUID: index, refStart: refStart}
	g.refOwner = make([]int32, total)
	g.refInfo = make([]uint8, total)
	g.depStart = make([]int32, n+1)
	g.resolveOwners()

	memo := scopeMemo{lookup: lookup}
	j := int32(0)
	for i := range objects {
		o := &objects[i]
		g.anyForeground = g.anyForeground || o.deletingDependents()
		controllers := 0
		for k := range o.OwnerReferences {
			r := &o.OwnerReferences[k]
			owner := g.refOwner[j]
			if owner >= 0 && objects[owner].UID != r.UID {
				// Another UID with the same tag: look up properly.
				owner, _ = g.lookup(r.UID)
				g.refOwner[j] = owner
			}
			if owner >= 0 {
				g.depStart[owner+1]++
			}
			state := g.classify(o, r, owner, &memo)
			info := uint8(state)
			if blocks(r) {
				info |= refBlocking
			}
			g.refInfo[j] = info
			j++
			if r.Controller != nil && *r.Controller {
				controllers++
			}
			g.noteReference(o, r, owner, state)
		}
		if controllers > 1 {
			g.warn(o, OwnerReasonMultipleControllers, fmt.Sprintf("%d owner references have controller=true; the API server allows one", controllers))
		}
	}

	// Reverse edges by counting sort: depStart[i+1] holds i's count, made
	// into i's end offset; placing the references backwards moves each
	// depStart[i+1] down to i's start and leaves each owner's references
	// in reference order.
	for i := 1; i <= n; i++ {
		g.depStart[i] += g.depStart[i-1]
	}
	g.depRef = make([]int32, g.depStart[n])
	for r := len(g.refOwner) - 1; r >= 0; r-- {
		if owner := g.refOwner[r]; owner >= 0 {
			g.depStart[owner+1]--
			g.depRef[g.depStart[owner+1]] = int32(r)
		}
	}
	// Now depStart[i+1] is i's start; shift to the usual form.
	copy(g.depStart[:n], g.depStart[1:n+1])
	g.depStart[n] = int32(len(g.depRef))

	slices.SortStableFunc(g.warnings, func(a, b OwnerWarning) int {
		if c := compareRefs(&a.Object, &b.Object); c != 0 {
			return c
		}
		if c := strings.Compare(string(a.Reason), string(b.Reason)); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	slices.SortStableFunc(g.events, func(a, b ObjectEvent) int {
		if c := compareRefs(&a.Object, &b.Object); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return g, nil
}

func duplicateError(objects []Object, dups []types.UID) error {
	slices.Sort(dups)
	dups = slices.Compact(dups)
	u := dups[0]
	var holders []string
	for i := range objects {
		if objects[i].UID == u {
			holders = append(holders, objects[i].Ref().String())
		}
	}
	slices.Sort(holders)
	msg := fmt.Sprintf("UID %q is held by %d objects (%s)", u, len(holders), strings.Join(holders, ", "))
	if len(dups) > 1 {
		msg += fmt.Sprintf(" and %d more UIDs are duplicated", len(dups)-1)
	}
	return wrap(ErrInvalidInput, msg)
}

// scopeMemo remembers the last answer of the scope lookup: consecutive
// references usually name the same kind.
type scopeMemo struct {
	lookup           ScopeLookup
	apiVersion, kind string
	scope            Scope
	valid            bool
}

func (m *scopeMemo) get(apiVersion, kind string) Scope {
	if m.valid && m.apiVersion == apiVersion && m.kind == kind {
		return m.scope
	}
	m.apiVersion, m.kind, m.scope, m.valid = apiVersion, kind, m.lookup(apiVersion, kind), true
	return m.scope
}

// refValid reports whether the API server would accept the reference.
func refValid(r *metav1.OwnerReference) bool {
	if r.Kind == "" || r.Name == "" || r.UID == "" {
		return false
	}
	_, _, ok := parseAPIVersion(r.APIVersion)
	return ok
}

// classify is upstream's per-reference check (isDangling and the
// classification after it) against the snapshot instead of live GETs:
// the identity at the reference's coordinates is the observed object
// with its UID if, and only if, that object sits at those coordinates.
func (g *OwnerGraph) classify(d *Object, r *metav1.OwnerReference, owner int32, memo *scopeMemo) RefState {
	if !refValid(r) {
		return RefInvalid
	}
	scope := memo.get(r.APIVersion, r.Kind)
	switch scope {
	case ScopeNamespaced:
		if d.Namespace == "" {
			return RefUnresolvable
		}
	case ScopeCluster:
	default:
		return RefUnknownKind
	}
	if owner < 0 {
		return RefDangling
	}
	o := &g.objs[owner]
	if !atCoordinates(o, r, d, scope) {
		return RefDangling
	}
	if o.deletingDependents() && !(g.opts.ForegroundBlockingOnly && !blocks(r)) {
		return RefWaiting
	}
	return RefSolid
}

// atCoordinates reports whether o is what a GET at r's coordinates from
// dependent d returns: same API group (any served version reaches the same
// object), the kind or its lowercase form, the name, and the dependent's
// namespace for a namespaced kind or none for a cluster-scoped one.
func atCoordinates(o *Object, r *metav1.OwnerReference, d *Object, scope Scope) bool {
	ns := ""
	if scope == ScopeNamespaced {
		ns = d.Namespace
	}
	return o.Name == r.Name && o.Namespace == ns && apiGroup(o.APIVersion) == apiGroup(r.APIVersion) &&
		(o.Kind == r.Kind || lowerEqual(r.Kind, o.Kind))
}

// noteReference records the warnings and the event one reference causes.
func (g *OwnerGraph) noteReference(d *Object, r *metav1.OwnerReference, owner int32, state RefState) {
	switch state {
	case RefInvalid:
		g.warn(d, OwnerReasonInvalidOwnerRef, fmt.Sprintf("owner reference %s is invalid (%s); the object is never collected", describeRef(r), refProblem(r)))
	case RefUnknownKind:
		g.warn(d, OwnerReasonUnknownOwnerKind, fmt.Sprintf("owner reference %s names a kind that is not served; the object is never collected while it is there", describeRef(r)))
	case RefUnresolvable:
		g.warn(d, OwnerReasonNamespacedOwnerOfClusterScoped, fmt.Sprintf("owner reference %s: cluster-scoped objects cannot refer to namespaced owners; the object is never collected", describeRef(r)))
	}
	if r.UID == d.UID {
		g.warn(d, OwnerReasonSelfOwner, fmt.Sprintf("owner reference %s is the object itself; it is its own solid owner and is never collected", describeRef(r)))
	}
	if owner >= 0 {
		o := &g.objs[owner]
		if o.Namespace != "" && o.Namespace != d.Namespace {
			g.events = append(g.events, ObjectEvent{Object: d.Ref(), Event: Event{
				Type:    EventTypeWarning,
				Reason:  EventOwnerRefInvalidNamespace,
				Message: fmt.Sprintf("ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not exist in namespace %q", r.APIVersion, r.Kind, d.Namespace, r.Name, r.UID, d.Namespace),
			}})
		}
	}
}

func (g *OwnerGraph) warn(d *Object, reason OwnerReason, msg string) {
	g.warnings = append(g.warnings, OwnerWarning{Object: d.Ref(), Reason: reason, Message: msg})
}

// describeRef prints a reference as "apiVersion/Kind name (uid u)".
func describeRef(r *metav1.OwnerReference) string {
	return fmt.Sprintf("%s/%s %s (uid %q)", r.APIVersion, r.Kind, r.Name, r.UID)
}

func refProblem(r *metav1.OwnerReference) string {
	var p []string
	if _, _, ok := parseAPIVersion(r.APIVersion); !ok {
		p = append(p, fmt.Sprintf("apiVersion %q does not parse", r.APIVersion))
	}
	if r.Kind == "" {
		p = append(p, "empty kind")
	}
	if r.Name == "" {
		p = append(p, "empty name")
	}
	if r.UID == "" {
		p = append(p, "empty uid")
	}
	return strings.Join(p, ", ")
}

// Len returns the number of observed objects.
func (g *OwnerGraph) Len() int { return len(g.objs) }

// Warnings returns the warnings of the build, ordered by object.
func (g *OwnerGraph) Warnings() []OwnerWarning { return slices.Clone(g.warnings) }

// Events returns the OwnerRefInvalidNamespace events, ordered by object.
// Upstream emits one when its graph builder first sees the mismatch;
// this returns one per offending reference of the snapshot.
func (g *OwnerGraph) Events() []ObjectEvent { return slices.Clone(g.events) }

// Virtual returns the owners that are referenced but not observed (the
// graph's virtual nodes, whose references are dangling unless their kind
// is unknown), one per UID with the coordinates of the first referencing
// object in the collector's order.
func (g *OwnerGraph) Virtual() []ObjectRef {
	first := map[types.UID]ObjectRef{}
	for i := range g.objs {
		d := &g.objs[i]
		for k := range d.OwnerReferences {
			r := &d.OwnerReferences[k]
			if _, ok := g.lookup(r.UID); ok {
				continue
			}
			v := ObjectRef{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: d.Namespace, Name: r.Name, UID: r.UID}
			if old, ok := first[r.UID]; !ok || compareRefs(&v, &old) < 0 {
				first[r.UID] = v
			}
		}
	}
	out := make([]ObjectRef, 0, len(first))
	for _, v := range first {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b ObjectRef) int { return compareRefs(&a, &b) })
	return out
}

// lookup returns the index of the object with UID u.
func (g *OwnerGraph) lookup(u types.UID) (int32, bool) { return g.byUID.find(g.objs, u) }

// resolveOwners sets refOwner[j] to the index of the object whose UID
// hash matches reference j's (the table's 32-bit tag and slot), or -1; the
// classifying pass confirms the UID itself and looks up again on a
// mismatch. A reference with the UID of the one before it shares its
// owner (listings keep an owner's dependents together); the others are
// probed in partitionHashes order, so that at a million objects the
// probes walk the table region by region instead of missing the cache on
// each one.
func (g *OwnerGraph) resolveOwners() {
	const sameAsPrevious = -2
	var hashes []uint64
	var refs []int32 // reference index of each probe
	var prev types.UID
	j := int32(0)
	for i := range g.objs {
		for k := range g.objs[i].OwnerReferences {
			u := g.objs[i].OwnerReferences[k].UID
			switch {
			case u == "":
				g.refOwner[j] = -1
			case j > 0 && u == prev:
				g.refOwner[j] = sameAsPrevious
			default:
				hashes = append(hashes, hashUID(g.byUID.seed, u))
				refs = append(refs, j)
			}
			prev = u
			j++
		}
	}
	sorted, order := partitionHashes(hashes, refs)
	for k, h := range sorted {
		g.refOwner[order[k]] = g.byUID.probe(h)
	}
	for j := range g.refOwner {
		if g.refOwner[j] == sameAsPrevious {
			g.refOwner[j] = g.refOwner[j-1]
		}
	}
}

func (g *OwnerGraph) state(j int32) RefState     { return RefState(g.refInfo[j] &^ refBlocking) }
func (g *OwnerGraph) blocking(j int32) bool      { return g.refInfo[j]&refBlocking != 0 }
func (g *OwnerGraph) hasDependents(i int32) bool { return g.depStart[i+1] > g.depStart[i] }

// refObject returns the object holding reference j.
func (g *OwnerGraph) refObject(j int32) int32 {
	// refStart is non-decreasing; find the last i with refStart[i] <= j.
	lo, hi := 0, len(g.objs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if g.refStart[mid+1] <= j {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return int32(lo)
}

// blockingDependents returns the dependents of i holding a blocking
// reference to its UID, each once, in object order.
func (g *OwnerGraph) blockingDependents(i int32) []int32 { return g.dependentsOf(i, true) }

func (g *OwnerGraph) hasBlockingDependents(i int32) bool {
	for _, j := range g.depRef[g.depStart[i]:g.depStart[i+1]] {
		if g.blocking(j) {
			return true
		}
	}
	return false
}

// dependents returns the objects with a reference to i's UID, each once.
func (g *OwnerGraph) dependents(i int32) []int32 { return g.dependentsOf(i, false) }

// dependentsOf returns the objects with a reference (a blocking one if
// blockingOnly) to i's UID, each once, in object order: depRef lists an
// owner's references in reference order, so one object's are adjacent.
func (g *OwnerGraph) dependentsOf(i int32, blockingOnly bool) []int32 {
	var out []int32
	for _, j := range g.depRef[g.depStart[i]:g.depStart[i+1]] {
		if blockingOnly && !g.blocking(j) {
			continue
		}
		if d := g.refObject(j); len(out) == 0 || out[len(out)-1] != d {
			out = append(out, d)
		}
	}
	return out
}
