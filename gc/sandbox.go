package gc

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodelife/nodelife/internal/enum"
)

// Pod sandboxes: their CRI states, what the container GC reads of them, and
// the rules by which PlanContainers removes them.

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

// planSandboxes applies the sandbox rules; index maps sandbox IDs to
// their position in in.Sandboxes.
func planSandboxes(in *ContainerGCInput, index map[string]int) []SandboxRemoval {
	if len(in.Sandboxes) == 0 {
		return nil
	}
	referenced := make([]bool, len(in.Sandboxes))
	for i := range in.Containers {
		if j, ok := index[in.Containers[i].SandboxID]; ok {
			referenced[j] = true
		}
	}
	idx := make([]int, len(in.Sandboxes))
	for i := range idx {
		idx[i] = i
	}
	ss := in.Sandboxes
	// By pod, newest first.
	slices.SortFunc(idx, func(i, j int) int {
		a, b := &ss[i], &ss[j]
		if c := strings.Compare(a.PodUID, b.PodUID); c != 0 {
			return c
		}
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	var out []SandboxRemoval
	for start := 0; start < len(idx); {
		uid := ss[idx[start]].PodUID
		end := start + 1
		for end < len(idx) && ss[idx[end]].PodUID == uid {
			end++
		}
		keep, reason, msg := 1, ReasonOlderSandbox, "an inactive sandbox older than the pod's newest sandbox"
		if in.removed(uid) {
			keep, reason, msg = 0, ReasonPodRemoved, in.goneMessage(uid)
		}
		for i := end - 1; i >= start+keep; i-- {
			j := idx[i]
			if ss[j].State == SandboxReady || referenced[j] {
				continue
			}
			out = append(out, SandboxRemoval{Sandbox: ss[j], Reason: reason, Message: msg})
		}
		start = end
	}
	return out
}

// sandboxIndex maps sandbox IDs to their index in ss, rejecting empty and
// duplicate IDs.
func sandboxIndex(ss []Sandbox) (map[string]int, error) {
	index := make(map[string]int, len(ss))
	for i := range ss {
		if ss[i].ID == "" {
			return nil, wrap(ErrInvalidInput, fmt.Sprintf("sandbox %d has an empty ID", i))
		}
		if _, dup := index[ss[i].ID]; dup {
			return nil, wrap(ErrInvalidInput, fmt.Sprintf("duplicate sandbox ID %q", ss[i].ID))
		}
		index[ss[i].ID] = i
	}
	return index, nil
}
