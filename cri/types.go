package cri

import (
	"github.com/nodelife/nodelife/core"
	"time"

	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/internal/enum"
)

// ContainerState is a CRI container state (the type gc uses, so that one
// runtime listing feeds both packages).
type ContainerState = gc.ContainerState

// The CRI container states.
const (
	ContainerCreated = gc.ContainerCreated // CONTAINER_CREATED
	ContainerRunning = gc.ContainerRunning // CONTAINER_RUNNING
	ContainerExited  = gc.ContainerExited  // CONTAINER_EXITED
	ContainerUnknown = gc.ContainerUnknown // CONTAINER_UNKNOWN
)

// SandboxState is a CRI pod sandbox state (gc's type).
type SandboxState = gc.SandboxState

// The CRI sandbox states.
const (
	SandboxReady    = gc.SandboxReady    // SANDBOX_READY
	SandboxNotReady = gc.SandboxNotReady // SANDBOX_NOTREADY
)

// NamespaceMode is a CRI namespace mode; the values are the CRI enum's.
type NamespaceMode int

// The CRI namespace modes.
const (
	NamespacePod       NamespaceMode = iota // POD: the pod's own namespace
	NamespaceContainer                      // CONTAINER
	NamespaceNode                           // NODE: the host's namespace
	NamespaceTarget                         // TARGET
)

// String returns the CRI name, e.g. "NODE".
func (m NamespaceMode) String() string {
	return enum.Name(m, "NamespaceMode", "POD", "CONTAINER", "NODE", "TARGET")
}

// restartPolicy returns the pod's restart policy with the API default.
func restartPolicy(p *core.Pod) core.RestartPolicy {
	if p.RestartPolicy == "" {
		return core.RestartPolicyAlways
	}
	return p.RestartPolicy
}

// podString returns the pod as the kubelet's format.Pod prints it:
// "name_namespace(uid)".
func podString(p *core.Pod) string { return p.Name + "_" + p.Namespace + "(" + p.UID + ")" }

// SandboxNetwork is a sandbox's network status as the runtime reports it.
type SandboxNetwork struct {
	// IP is the sandbox's primary IP; empty when it has none.
	IP string
}

// SandboxStatus is one of the pod's sandboxes, as PodSandboxStatus
// reports it.
type SandboxStatus struct {
	// ID is the sandbox ID.
	ID string
	// State is READY or NOTREADY.
	State SandboxState
	// Attempt is metadata.attempt: 0 for the pod's first sandbox, one more
	// for each re-creation.
	Attempt uint32
	// CreatedAt orders the sandboxes: the newest decides.
	CreatedAt time.Time
	// NetworkMode is linux.namespaces.options.network: NODE for a
	// hostNetwork pod, POD otherwise.
	NetworkMode NamespaceMode
	// Network is the network status; nil when the runtime reported none
	// (then a missing IP does not count).
	Network *SandboxNetwork
}

// ProbeResult is the latest result of a liveness or startup probe, as the
// kubelet's probe results managers hold it.
type ProbeResult int

// The probe results.
const (
	// ProbeNone: no result recorded (upstream's "not found": the container
	// has no such probe, or its worker has not run yet).
	ProbeNone ProbeResult = iota
	// ProbeUnknown: the worker set the startup probe's initial value.
	ProbeUnknown
	// ProbeSuccess: the probe passed (also the liveness initial value).
	ProbeSuccess
	// ProbeFailure: the probe failed FailureThreshold times in a row.
	ProbeFailure
)

// String returns the result's name.
func (r ProbeResult) String() string {
	return enum.Name(r, "ProbeResult", "None", "Unknown", "Success", "Failure")
}

// ContainerStatus is one container instance the runtime knows for the pod
// (the kubelet's kubecontainer.Status), of any state: a container name can
// have several, the newest decides.
type ContainerStatus struct {
	// ID is the container ID.
	ID string
	// SandboxID is the ID of the sandbox it was created in (the
	// container's podSandboxId). Since 1.37 the init containers' decisions
	// read only the current sandbox's containers; when no status of the
	// pod carries a SandboxID, every status counts as the current
	// sandbox's (a caller with one sandbox need not fill it in).
	SandboxID string
	// Name is the spec container's name.
	Name string
	// State is its CRI state.
	State ContainerState
	// CreatedAt orders the instances of one name: the newest decides.
	CreatedAt time.Time
	// FinishedAt is when it exited (the crash-loop back-off counts from
	// it).
	FinishedAt time.Time
	// ExitCode is its exit code once exited.
	ExitCode int32
	// Reason is the runtime's reason, e.g. "OOMKilled" (which makes an
	// init container failed whatever its exit code).
	Reason string
	// Hash is the value of its io.kubernetes.container.hash label.
	Hash uint64
	// Liveness and Startup are the latest liveness and startup probe
	// results for this container ID.
	Liveness, Startup ProbeResult
}

// PodStatus is what the runtime reports about a pod.
type PodStatus struct {
	// Sandboxes are the pod's sandboxes, in any order.
	Sandboxes []SandboxStatus
	// Containers are the pod's container instances, in any order.
	Containers []ContainerStatus
}
