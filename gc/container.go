package gc

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodelife/nodelife/internal/enum"
)

// ContainerPolicy is the kubelet's dead-container GC policy. The zero value
// is not the default (MaxContainers 0 would keep no dead container); start
// from DefaultContainerPolicy.
type ContainerPolicy struct {
	// MinAge is the minimum age of a dead container before it may be
	// removed (--minimum-container-ttl-duration, default 0). A container
	// exactly MinAge old is eligible.
	MinAge time.Duration
	// MaxPerPodContainer is how many dead containers to keep per (pod,
	// container name) (--maximum-dead-containers-per-container, default
	// 1); negative means no limit.
	MaxPerPodContainer int
	// MaxContainers is how many dead containers to keep on the node in all
	// (--maximum-dead-containers, default -1); negative means no limit.
	MaxContainers int
}

// DefaultContainerPolicy returns the kubelet's defaults: MinAge 0,
// MaxPerPodContainer 1, MaxContainers -1.
func DefaultContainerPolicy() ContainerPolicy {
	return ContainerPolicy{MaxPerPodContainer: 1, MaxContainers: -1}
}

// Validate returns an error for a negative MinAge, with the message of the
// kubelet's container GC constructor. Negative limits are valid: they mean
// no limit.
func (p ContainerPolicy) Validate() error {
	if p.MinAge < 0 {
		return wrap(ErrInvalidPolicy, fmt.Sprintf("invalid minimum garbage collection age: %v", p.MinAge))
	}
	return nil
}

// ContainerState is a CRI container state; the values are the CRI enum's.
type ContainerState int

// The CRI container states.
const (
	ContainerCreated ContainerState = iota // CONTAINER_CREATED
	ContainerRunning                       // CONTAINER_RUNNING
	ContainerExited                        // CONTAINER_EXITED
	ContainerUnknown                       // CONTAINER_UNKNOWN
)

// String returns the CRI name, e.g. "CONTAINER_EXITED".
func (s ContainerState) String() string {
	return enum.Name(s, "ContainerState", "CONTAINER_CREATED", "CONTAINER_RUNNING", "CONTAINER_EXITED", "CONTAINER_UNKNOWN")
}

// Container is a container the kubelet manages (one carrying its labels;
// leave out the others, which the kubelet never collects), as CRI
// ListContainers reports it.
type Container struct {
	// ID is the container ID.
	ID string
	// PodUID is the pod UID from the container's labels.
	PodUID string
	// Name is the container's metadata name (the pod spec's container
	// name).
	Name string
	// SandboxID is the ID of its pod sandbox.
	SandboxID string
	// State is its CRI state.
	State ContainerState
	// CreatedAt is its creation time.
	CreatedAt time.Time
}

// PodState is what the kubelet's pod workers know about a pod, as far as
// garbage collection cares.
type PodState int

// The pod states.
const (
	// PodActive: the pod exists and is not terminated (or is being deleted
	// but not terminated yet). Its dead containers are trimmed by the
	// policy.
	PodActive PodState = iota
	// PodTerminated: the pod is terminated but not deleted. Its containers
	// and sandboxes go only in the eviction manager's delete-all mode
	// (ContainerGCInput.EvictNonDeletedPods).
	PodTerminated
	// PodRemoved: the pod was evicted, or deleted and terminated
	// (ShouldPodContentBeRemoved): all its dead containers and inactive
	// sandboxes go.
	PodRemoved
)

// String returns the state's name.
func (s PodState) String() string {
	return enum.Name(s, "PodState", "PodActive", "PodTerminated", "PodRemoved")
}

// ContainerGCInput is the state one container GC run looks at.
type ContainerGCInput struct {
	// Containers are the kubelet's containers, of every state.
	Containers []Container
	// Sandboxes are the kubelet's sandboxes, of every state.
	Sandboxes []Sandbox
	// Pods maps pod UIDs to their state. A UID missing from it is a pod
	// the pod workers never saw: PodRemoved once PodsSynced, else
	// PodActive.
	Pods map[string]PodState
	// PodsSynced reports that the pod workers have seen every pod of the
	// config sources, so that pods unknown to them are gone.
	PodsSynced bool
	// AllSourcesReady reports that every pod config source (API server,
	// files, HTTP) has synced; until then no container is removed because
	// its pod is gone (sandboxes are not held back, as upstream).
	AllSourcesReady bool
	// EvictNonDeletedPods is the eviction manager's
	// DeleteAllUnusedContainers mode: terminated pods count as removed.
	EvictNonDeletedPods bool
}

// removed reports whether the pod's content goes.
func (in *ContainerGCInput) removed(uid string) bool {
	s, ok := in.Pods[uid]
	if !ok {
		return in.PodsSynced
	}
	return s == PodRemoved || (in.EvictNonDeletedPods && s == PodTerminated)
}

// goneMessage says why the content of a removed pod goes.
func (in *ContainerGCInput) goneMessage(uid string) string {
	switch s, ok := in.Pods[uid]; {
	case !ok:
		return "the pod is unknown to the pod workers, which have synced every source"
	case s == PodTerminated:
		return "the pod is terminated and every unused container goes (delete-all mode)"
	default:
		return "the pod was deleted or evicted"
	}
}

// ContainerReason says why a container or sandbox is removed.
type ContainerReason string

// The removal reasons.
const (
	// ReasonPodRemoved: the pod was deleted or evicted (or, in delete-all
	// mode, terminated); all its dead containers and inactive sandboxes go.
	ReasonPodRemoved ContainerReason = "PodRemoved"
	// ReasonMaxPerPodContainer: more dead containers of one (pod, name)
	// than MaxPerPodContainer; the oldest go.
	ReasonMaxPerPodContainer ContainerReason = "MaxPerPodContainer"
	// ReasonMaxContainersPerUnit: above MaxContainers, every (pod, name)
	// is trimmed to max(MaxContainers/units, 1).
	ReasonMaxContainersPerUnit ContainerReason = "MaxContainersPerUnit"
	// ReasonMaxContainers: still above MaxContainers after that, the
	// oldest dead containers on the node go.
	ReasonMaxContainers ContainerReason = "MaxContainers"
	// ReasonOlderSandbox: an inactive sandbox of a live pod that is not
	// its newest sandbox.
	ReasonOlderSandbox ContainerReason = "OlderSandbox"
	// ReasonContainerDied: the kubelet's PLEG fast path, trimming a
	// container's exited instances when one dies (ContainerDeathPlan).
	ReasonContainerDied ContainerReason = "ContainerDied"
)

// ContainerRemoval is one container to remove.
type ContainerRemoval struct {
	// Container is the container.
	Container Container
	// StopFirst: the container is in CONTAINER_UNKNOWN state and may be
	// running; stop it first, and skip the removal if the stop fails.
	StopFirst bool
	// Reason is why it goes.
	Reason ContainerReason
	// Message says why, for a log line.
	Message string
}

// ContainerPlan is one run of the kubelet's container GC.
type ContainerPlan struct {
	// Containers lists the dead containers to remove, in order: those of
	// removed pods, then the per-unit trim, then the MaxContainers
	// trims; within each step by pod UID and container name, oldest first
	// (the last step: oldest first on the whole node).
	Containers []ContainerRemoval
	// Sandboxes lists the sandboxes to remove, by pod UID, oldest first.
	Sandboxes []SandboxRemoval
	// Kept is the number of evictable dead containers left.
	Kept int
}

// dead is an evictable container with its creation time unpacked.
type dead struct {
	c       *Container
	created instant
}

// olderDead orders containers oldest first; among equal creation times the
// smaller ID counts as older.
func olderDead(a, b dead) int {
	if c := a.created.compare(b.created); c != 0 {
		return c
	}
	return strings.Compare(a.c.ID, b.c.ID)
}

// unit is one evict unit: the evictable containers of one (pod UID,
// container name), newest first.
type unit struct {
	cs      []dead
	removed bool
}

// pending is a removal decided but not yet written out: the plan is built
// once its length is known, so that a million removals are not copied
// while the slice grows.
type pending struct {
	c    *Container
	kind uint8 // index into the plan's table of reasons and messages
}

// why is a reason and its message.
type why struct {
	reason ContainerReason
	msg    string
}

// PlanContainers is one run of the kubelet's container GC
// (containerGC.GarbageCollect without the log directories) at now.
//
// Evictable containers are those not running and created at least MinAge
// before now, grouped into evict units by (pod UID, container name). When
// all sources are ready, the units of removed pods lose every container.
// Each other unit keeps its newest MaxPerPodContainer (when not negative).
// If more than MaxContainers (when not negative) remain, every unit is
// trimmed to max(MaxContainers/units, 1) and, if that is not enough, the
// oldest on the node go until MaxContainers remain. Containers in
// CONTAINER_UNKNOWN state are marked StopFirst.
//
// Sandboxes: a sandbox is active when READY or referenced by any
// container. A removed pod loses all its inactive sandboxes; a live pod
// keeps its newest sandbox, whatever its state, and loses the older
// inactive ones.
//
// Upstream walks maps and sorts without a tie-break; here every order is
// total. A policy that fails Validate, an empty ID or a duplicate container
// or sandbox ID returns an error and no plan; the input is not modified.
func PlanContainers(now time.Time, p ContainerPolicy, in ContainerGCInput) (ContainerPlan, error) {
	var plan ContainerPlan
	if err := p.Validate(); err != nil {
		return plan, err
	}
	if err := checkContainerIDs(in.Containers); err != nil {
		return plan, err
	}
	sandboxes, err := sandboxIndex(in.Sandboxes)
	if err != nil {
		return plan, err
	}
	units, n := p.evictUnits(&in, now)
	out := make([]pending, 0, n)
	var table []why
	kind := func(w why) uint8 {
		for i := range table {
			if table[i] == w {
				return uint8(i)
			}
		}
		table = append(table, w)
		return uint8(len(table) - 1)
	}

	// Pods gone: everything of theirs.
	if in.AllSourcesReady {
		live := units[:0]
		for _, u := range units {
			if !u.removed {
				live = append(live, u)
				continue
			}
			k := kind(why{ReasonPodRemoved, in.goneMessage(u.cs[0].c.PodUID)})
			for i := len(u.cs) - 1; i >= 0; i-- {
				out = append(out, pending{u.cs[i].c, k})
			}
		}
		units = live
	}
	if p.MaxPerPodContainer >= 0 {
		out = trimUnits(out, units, p.MaxPerPodContainer, kind(why{ReasonMaxPerPodContainer,
			fmt.Sprintf("keeping the newest %d dead containers per pod and container name (MaxPerPodContainer)", p.MaxPerPodContainer)}))
	}
	total := 0
	for _, u := range units {
		total += len(u.cs)
	}
	if p.MaxContainers >= 0 && total > p.MaxContainers {
		perUnit := max(p.MaxContainers/len(units), 1)
		out = trimUnits(out, units, perUnit, kind(why{ReasonMaxContainersPerUnit,
			fmt.Sprintf("more than MaxContainers %d dead containers: keeping the newest %d per pod and container name", p.MaxContainers, perUnit)}))
		rest := make([]dead, 0, len(units)*perUnit)
		for _, u := range units {
			rest = append(rest, u.cs...)
		}
		if len(rest) > p.MaxContainers {
			slices.SortFunc(rest, olderDead)
			n := len(rest) - p.MaxContainers
			k := kind(why{ReasonMaxContainers, fmt.Sprintf("more than MaxContainers %d dead containers on the node: removing the oldest", p.MaxContainers)})
			for _, d := range rest[:n] {
				out = append(out, pending{d.c, k})
			}
			rest = rest[n:]
		}
		total = len(rest)
	}
	plan.Kept = total
	if len(out) > 0 {
		plan.Containers = make([]ContainerRemoval, len(out))
		for i, r := range out {
			plan.Containers[i] = removal(r.c, table[r.kind].reason, table[r.kind].msg)
		}
	}
	plan.Sandboxes = planSandboxes(&in, sandboxes)
	return plan, nil
}

// evictUnits groups the evictable containers into units sorted by (pod
// UID, name), each newest first, and returns them with the number of
// evictable containers. Grouping goes through a map of pods (the few
// container names of a pod are chained and scanned in place) and a
// counting pass, so that only pods, the names within each, and the
// containers within each unit are sorted.
func (p ContainerPolicy) evictUnits(in *ContainerGCInput, now time.Time) ([]unit, int) {
	newest := now.Add(-p.MinAge)
	podOf := make(map[string]int32, len(in.Pods))
	var podUID []string   // per pod
	var podFirst []int32  // per pod: its first unit
	var unitName []string // per unit
	var unitNext []int32  // per unit: the next unit of its pod, or -1
	var counts []int32    // per unit
	unitOf := make([]int32, len(in.Containers))
	n := 0
	for i := range in.Containers {
		c := &in.Containers[i]
		if c.State == ContainerRunning || c.CreatedAt.After(newest) {
			unitOf[i] = -1
			continue
		}
		pi, ok := podOf[c.PodUID]
		if !ok {
			pi = int32(len(podUID))
			podOf[c.PodUID] = pi
			podUID = append(podUID, c.PodUID)
			podFirst = append(podFirst, -1)
		}
		u := podFirst[pi]
		for u >= 0 && unitName[u] != c.Name {
			u = unitNext[u]
		}
		if u < 0 {
			u = int32(len(unitName))
			unitName = append(unitName, c.Name)
			unitNext = append(unitNext, podFirst[pi])
			counts = append(counts, 0)
			podFirst[pi] = u
		}
		unitOf[i] = u
		counts[u]++
		n++
	}
	pods := make([]int32, len(podUID))
	for i := range pods {
		pods[i] = int32(i)
	}
	slices.SortFunc(pods, func(a, b int32) int { return strings.Compare(podUID[a], podUID[b]) })
	// Lay the units out in (pod UID, name) order in one array.
	order := make([]int32, 0, len(unitName))
	units := make([]unit, 0, len(unitName))
	start := make([]int32, len(unitName))
	var off int32
	for _, pi := range pods {
		first := len(order)
		for u := podFirst[pi]; u >= 0; u = unitNext[u] {
			order = append(order, u)
		}
		mine := order[first:]
		if len(mine) > 1 {
			slices.SortFunc(mine, func(a, b int32) int { return strings.Compare(unitName[a], unitName[b]) })
		}
		removed := in.removed(podUID[pi])
		for _, u := range mine {
			start[u] = off
			off += counts[u]
			units = append(units, unit{removed: removed})
		}
	}
	all := make([]dead, n)
	fill := slices.Clone(start)
	for i := range in.Containers {
		u := unitOf[i]
		if u < 0 {
			continue
		}
		c := &in.Containers[i]
		all[fill[u]] = dead{c: c, created: at(c.CreatedAt)}
		fill[u]++
	}
	for k, u := range order {
		cs := all[start[u] : start[u]+counts[u] : start[u]+counts[u]]
		if len(cs) > 1 {
			slices.SortFunc(cs, func(a, b dead) int { return olderDead(b, a) })
		}
		units[k].cs = cs
	}
	return units, n
}

// trimUnits appends to out all but the newest keep containers of each
// unit, oldest first, and cuts the units down.
func trimUnits(out []pending, units []unit, keep int, kind uint8) []pending {
	for k := range units {
		u := &units[k]
		for i := len(u.cs) - 1; i >= keep; i-- {
			out = append(out, pending{u.cs[i].c, kind})
		}
		if len(u.cs) > keep {
			u.cs = u.cs[:keep]
		}
	}
	return out
}

func removal(c *Container, reason ContainerReason, msg string) ContainerRemoval {
	r := ContainerRemoval{Container: *c, StopFirst: c.State == ContainerUnknown, Reason: reason, Message: msg}
	if r.StopFirst {
		r.Message += "; the container is in unknown state, stop it before removal"
	}
	return r
}

// checkContainerIDs rejects empty and duplicate container IDs. It keys a
// map by a 64-bit FNV-1a hash of each ID and compares the IDs themselves
// only when hashes collide: a map of a million strings costs the garbage
// collector far more than one of integers.
func checkContainerIDs(cs []Container) error { return checkContainerIDsHashed(cs, fnv64) }

// checkContainerIDsHashed is checkContainerIDs with the hash function
// given, so that tests can force collisions.
func checkContainerIDsHashed(cs []Container, hash func(string) uint64) error {
	first := make(map[uint64]int32, len(cs))
	var more map[uint64][]int32 // further IDs with an already-seen hash
	for i := range cs {
		id := cs[i].ID
		if id == "" {
			return wrap(ErrInvalidInput, fmt.Sprintf("container %d has an empty ID", i))
		}
		h := hash(id)
		j, seen := first[h]
		if !seen {
			first[h] = int32(i)
			continue
		}
		if cs[j].ID == id {
			return wrap(ErrInvalidInput, fmt.Sprintf("duplicate container ID %q", id))
		}
		for _, k := range more[h] {
			if cs[k].ID == id {
				return wrap(ErrInvalidInput, fmt.Sprintf("duplicate container ID %q", id))
			}
		}
		if more == nil {
			more = map[uint64][]int32{}
		}
		more[h] = append(more[h], int32(i))
	}
	return nil
}

// fnv64 is the 64-bit FNV-1a hash of s.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// ContainerDeathPlan is the kubelet's fast path when the PLEG reports that
// container died of a pod whose containers (from the runtime's pod status)
// are podContainers: the exited instances of the same container name
// beyond the newest max(MaxPerPodContainer, 1), oldest first. With
// removeAll (the pod is deleted or evicted) every exited container of the
// pod goes, whatever its name. A died ID not among podContainers plans
// nothing, as upstream. MinAge plays no part here.
func ContainerDeathPlan(p ContainerPolicy, died string, podContainers []Container, removeAll bool) ([]ContainerRemoval, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkContainerIDs(podContainers); err != nil {
		return nil, err
	}
	keep := max(p.MaxPerPodContainer, 1)
	var name string
	if removeAll {
		keep = 0
	} else {
		i := slices.IndexFunc(podContainers, func(c Container) bool { return c.ID == died })
		if i < 0 {
			return nil, nil
		}
		name = podContainers[i].Name
	}
	var cands []dead
	for i := range podContainers {
		c := &podContainers[i]
		if c.State == ContainerExited && (removeAll || c.Name == name) {
			cands = append(cands, dead{c: c, created: at(c.CreatedAt)})
		}
	}
	if len(cands) <= keep {
		return nil, nil
	}
	slices.SortFunc(cands, olderDead)
	msg := fmt.Sprintf("container %s died: keeping the newest %d exited instances of %q", died, keep, name)
	if removeAll {
		msg = "the pod was deleted or evicted: removing all its exited containers"
	}
	out := make([]ContainerRemoval, 0, len(cands)-keep)
	for _, d := range cands[:len(cands)-keep] {
		out = append(out, ContainerRemoval{Container: *d.c, Reason: ReasonContainerDied, Message: msg})
	}
	return out, nil
}
