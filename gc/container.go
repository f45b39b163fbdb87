package gc

import (
	"cmp"
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

// SandboxState is a CRI pod sandbox state; the values are the CRI enum's.
type SandboxState int

// The CRI sandbox states.
const (
	SandboxReady    SandboxState = iota // SANDBOX_READY
	SandboxNotReady                     // SANDBOX_NOTREADY
)

// String returns the CRI name, e.g. "SANDBOX_READY".
func (s SandboxState) String() string {
	return enum.Name(s, "SandboxState", "SANDBOX_READY", "SANDBOX_NOTREADY")
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

// Sandbox is a pod sandbox the kubelet manages, as CRI ListPodSandbox
// reports it.
type Sandbox struct {
	// ID is the sandbox ID.
	ID string
	// PodUID is metadata.uid.
	PodUID string
	// State is its CRI state.
	State SandboxState
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
		return "pod " + uid + " is unknown to the pod workers, which have synced every source"
	case s == PodTerminated:
		return "pod " + uid + " is terminated and every unused container goes (delete-all mode)"
	default:
		return "pod " + uid + " was deleted or evicted"
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

// SandboxRemoval is one sandbox to remove. The kubelet stops a sandbox
// before removing it and skips the removal if the stop fails.
type SandboxRemoval struct {
	// Sandbox is the sandbox.
	Sandbox Sandbox
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

// olderContainer orders containers oldest first; among equal creation
// times the smaller ID counts as older.
func olderContainer(a, b *Container) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
}

// unit is one evict unit: a run of evictable containers of one (pod UID,
// container name), newest first.
type unit struct {
	cs      []*Container
	removed bool
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
func PlanContainers(p ContainerPolicy, in ContainerGCInput, now time.Time) (ContainerPlan, error) {
	var plan ContainerPlan
	if err := p.Validate(); err != nil {
		return plan, err
	}
	if err := checkIDs(in.Containers, in.Sandboxes); err != nil {
		return plan, err
	}
	units := p.evictUnits(&in, now)

	// Pods gone: everything of theirs.
	if in.AllSourcesReady {
		live := units[:0]
		for _, u := range units {
			if !u.removed {
				live = append(live, u)
				continue
			}
			for i := len(u.cs) - 1; i >= 0; i-- {
				plan.Containers = append(plan.Containers, removal(u.cs[i], ReasonPodRemoved, in.goneMessage(u.cs[i].PodUID)))
			}
		}
		units = live
	}
	if p.MaxPerPodContainer >= 0 {
		trimUnits(&plan, units, p.MaxPerPodContainer, ReasonMaxPerPodContainer,
			fmt.Sprintf("keeping the newest %d dead containers per pod and container name (MaxPerPodContainer)", p.MaxPerPodContainer))
	}
	total := 0
	for _, u := range units {
		total += len(u.cs)
	}
	if p.MaxContainers >= 0 && total > p.MaxContainers {
		perUnit := max(p.MaxContainers/len(units), 1)
		trimUnits(&plan, units, perUnit, ReasonMaxContainersPerUnit,
			fmt.Sprintf("more than MaxContainers %d dead containers: keeping the newest %d per pod and container name", p.MaxContainers, perUnit))
		var rest []*Container
		for _, u := range units {
			rest = append(rest, u.cs...)
		}
		if len(rest) > p.MaxContainers {
			slices.SortFunc(rest, olderContainer)
			n := len(rest) - p.MaxContainers
			for _, c := range rest[:n] {
				plan.Containers = append(plan.Containers, removal(c, ReasonMaxContainers,
					fmt.Sprintf("more than MaxContainers %d dead containers on the node: removing the oldest", p.MaxContainers)))
			}
			rest = rest[n:]
		}
		total = len(rest)
	}
	plan.Kept = total
	plan.Sandboxes = planSandboxes(&in)
	return plan, nil
}

// evictUnits groups the evictable containers into units sorted by (pod
// UID, name), each newest first.
func (p ContainerPolicy) evictUnits(in *ContainerGCInput, now time.Time) []unit {
	newest := now.Add(-p.MinAge)
	idx := make([]*Container, 0, len(in.Containers))
	for i := range in.Containers {
		c := &in.Containers[i]
		if c.State == ContainerRunning || c.CreatedAt.After(newest) {
			continue
		}
		idx = append(idx, c)
	}
	slices.SortFunc(idx, func(a, b *Container) int {
		if c := cmp.Or(strings.Compare(a.PodUID, b.PodUID), strings.Compare(a.Name, b.Name)); c != 0 {
			return c
		}
		return olderContainer(b, a)
	})
	var units []unit
	for start := 0; start < len(idx); {
		end := start + 1
		for end < len(idx) && idx[end].PodUID == idx[start].PodUID && idx[end].Name == idx[start].Name {
			end++
		}
		units = append(units, unit{cs: idx[start:end:end], removed: in.removed(idx[start].PodUID)})
		start = end
	}
	return units
}

// trimUnits removes all but the newest keep containers of each unit,
// oldest first.
func trimUnits(plan *ContainerPlan, units []unit, keep int, reason ContainerReason, msg string) {
	for k := range units {
		u := &units[k]
		for i := len(u.cs) - 1; i >= keep; i-- {
			plan.Containers = append(plan.Containers, removal(u.cs[i], reason, msg))
		}
		if len(u.cs) > keep {
			u.cs = u.cs[:keep]
		}
	}
}

func removal(c *Container, reason ContainerReason, msg string) ContainerRemoval {
	r := ContainerRemoval{Container: *c, StopFirst: c.State == ContainerUnknown, Reason: reason, Message: msg}
	if r.StopFirst {
		r.Message += "; the container is in unknown state, stop it before removal"
	}
	return r
}

// planSandboxes applies the sandbox rules.
func planSandboxes(in *ContainerGCInput) []SandboxRemoval {
	if len(in.Sandboxes) == 0 {
		return nil
	}
	referenced := make(map[string]bool, len(in.Containers))
	for i := range in.Containers {
		referenced[in.Containers[i].SandboxID] = true
	}
	idx := make([]*Sandbox, len(in.Sandboxes))
	for i := range in.Sandboxes {
		idx[i] = &in.Sandboxes[i]
	}
	// By pod, newest first.
	slices.SortFunc(idx, func(a, b *Sandbox) int {
		if c := strings.Compare(a.PodUID, b.PodUID); c != 0 {
			return c
		}
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(b.ID, a.ID))
	})
	var out []SandboxRemoval
	for start := 0; start < len(idx); {
		end := start + 1
		for end < len(idx) && idx[end].PodUID == idx[start].PodUID {
			end++
		}
		keep, reason, msg := 1, ReasonOlderSandbox, "an inactive sandbox older than the pod's newest sandbox"
		if uid := idx[start].PodUID; in.removed(uid) {
			keep, reason, msg = 0, ReasonPodRemoved, in.goneMessage(uid)
		}
		for i := end - 1; i >= start+keep; i-- {
			s := idx[i]
			if s.State == SandboxReady || referenced[s.ID] {
				continue
			}
			out = append(out, SandboxRemoval{Sandbox: *s, Reason: reason, Message: msg})
		}
		start = end
	}
	return out
}

// checkIDs rejects empty and duplicate container and sandbox IDs.
func checkIDs(cs []Container, ss []Sandbox) error {
	seen := make(map[string]struct{}, len(cs))
	for i := range cs {
		if cs[i].ID == "" {
			return wrap(ErrInvalidInput, fmt.Sprintf("container %d has an empty ID", i))
		}
		if _, dup := seen[cs[i].ID]; dup {
			return wrap(ErrInvalidInput, fmt.Sprintf("duplicate container ID %q", cs[i].ID))
		}
		seen[cs[i].ID] = struct{}{}
	}
	clear(seen)
	for i := range ss {
		if ss[i].ID == "" {
			return wrap(ErrInvalidInput, fmt.Sprintf("sandbox %d has an empty ID", i))
		}
		if _, dup := seen[ss[i].ID]; dup {
			return wrap(ErrInvalidInput, fmt.Sprintf("duplicate sandbox ID %q", ss[i].ID))
		}
		seen[ss[i].ID] = struct{}{}
	}
	return nil
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
	if err := checkIDs(podContainers, nil); err != nil {
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
	var cands []*Container
	for i := range podContainers {
		c := &podContainers[i]
		if c.State == ContainerExited && (removeAll || c.Name == name) {
			cands = append(cands, c)
		}
	}
	if len(cands) <= keep {
		return nil, nil
	}
	slices.SortFunc(cands, olderContainer)
	msg := fmt.Sprintf("container %s died: keeping the newest %d exited instances of %q", died, keep, name)
	if removeAll {
		msg = "the pod was deleted or evicted: removing all its exited containers"
	}
	out := make([]ContainerRemoval, 0, len(cands)-keep)
	for _, c := range cands[:len(cands)-keep] {
		out = append(out, ContainerRemoval{Container: *c, Reason: ReasonContainerDied, Message: msg})
	}
	return out, nil
}
