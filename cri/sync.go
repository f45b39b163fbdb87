package cri

import (
	"fmt"
	"github.com/nodelife/nodelife/core"
	"slices"
	"time"

	"github.com/nodelife/nodelife/release"
)

// SyncOptions select upstream variants of the pod sync decisions. The zero
// value is current upstream (1.37); SyncOptionsFor gives earlier releases'.
type SyncOptions struct {
	// LegacySidecarContainers restores the init-container path of
	// kubelets before 1.33 (the LegacySidecarContainers feature gate, on
	// by default until 1.33) for pods without a restartable init
	// container: findNextInitContainerToRun, which starts one init
	// container at a time and, unlike the current path, counts a pod
	// whose regular containers have all exited as initialized when a new
	// sandbox is needed.
	LegacySidecarContainers bool
	// LegacyFullSpecHash compares running containers with the hash of
	// core.Container.SpecJSON (HashContainerJSON, kubelets 1.17 to 1.30)
	// instead of the name-and-image hash of 1.31 and later.
	LegacyFullSpecHash bool
	// InitializedByAnySandbox restores the init-container rules of
	// kubelets before 1.37: a pod counts as initialized when the newest
	// instance of one of its regular containers, in any sandbox, is
	// created or running (an exited one does not count, a workaround for
	// node reboots), and each init container is judged by its newest
	// instance in any sandbox. Since 1.37 both read only the containers of
	// the current sandbox (the newest, when READY): a regular container
	// there in any state, exited included, means initialized, and an old
	// sandbox's init containers no longer count.
	InitializedByAnySandbox bool
}

// SyncOptionsFor returns the pod sync variants of Kubernetes release v
// (taken as release.Oldest or release.Current when outside them): the
// sandbox-scoped init rules from 1.37, the sidecar-aware init path from
// 1.33 (LegacySidecarContainers before), the name-and-image container hash
// from 1.31 (LegacyFullSpecHash before).
func SyncOptionsFor(v release.Version) SyncOptions {
	v = v.Clamp()
	return SyncOptions{
		LegacySidecarContainers: !v.AtLeast(release.V1_33),
		LegacyFullSpecHash:      !v.AtLeast(release.V1_31),
		InitializedByAnySandbox: !v.AtLeast(release.V1_37),
	}
}

// SandboxReason says why a new sandbox is needed.
type SandboxReason string

// The sandbox reasons, in the order upstream's PodSandboxChanged tests them.
const (
	SandboxReasonNone             SandboxReason = ""                       // the newest sandbox is fine
	SandboxReasonMissing          SandboxReason = "NoSandbox"              // the pod has no sandbox yet
	SandboxReasonMultipleReady    SandboxReason = "MultipleReadySandboxes" // more than one sandbox is READY
	SandboxReasonNotReady         SandboxReason = "SandboxNotReady"        // the newest sandbox is not READY
	SandboxReasonNetworkNamespace SandboxReason = "NetworkNamespaceChanged"
	SandboxReasonNoIP             SandboxReason = "NoIP" // a pod-network sandbox reports no IP
)

// StartReason says why a container is started.
type StartReason string

// The start reasons.
const (
	// StartNewSandbox: a new sandbox is created and everything starts
	// afresh (the first init container, or the containers to run).
	StartNewSandbox StartReason = "NewSandbox"
	// StartNotCreated: the runtime has no instance of the container.
	StartNotCreated StartReason = "NotCreated"
	// StartCreated: the newest instance is stuck in CONTAINER_CREATED.
	StartCreated StartReason = "Created"
	// StartExited: the newest instance exited and the restart policy
	// restarts it (a sidecar always restarts).
	StartExited StartReason = "Exited"
	// StartUnknown: the newest instance is in CONTAINER_UNKNOWN; it is
	// killed first.
	StartUnknown StartReason = "Unknown"
	// StartDefinitionChanged: the running instance's hash differs from the
	// spec's; it is killed first.
	StartDefinitionChanged StartReason = "DefinitionChanged"
	// StartLivenessProbe and StartStartupProbe: the running instance
	// failed that probe; it is killed first.
	StartLivenessProbe StartReason = "LivenessProbe"
	StartStartupProbe  StartReason = "StartupProbe"
	// StartNextInit: the init container before it has completed (or
	// started, for a sidecar), or it is the first.
	StartNextInit StartReason = "NextInitContainer"
	// StartInitFailed: the init container failed and the pod's restart
	// policy retries it.
	StartInitFailed StartReason = "InitContainerFailed"
)

// KillReason says why a container is killed; the probe and unknown-state
// values are upstream's containerKillReason strings.
type KillReason string

// The kill reasons.
const (
	// KillDefinitionChanged: the spec's hash changed (upstream passes an
	// empty reason); always restarted.
	KillDefinitionChanged KillReason = "DefinitionChanged"
	// KillLivenessProbe: the liveness probe failed; restarted unless the
	// pod's policy is Never (a sidecar always).
	KillLivenessProbe KillReason = "LivenessProbe"
	// KillStartupProbe: the startup probe failed; restarted as for
	// liveness.
	KillStartupProbe KillReason = "StartupProbe"
	// KillUnknown: the instance is in CONTAINER_UNKNOWN and may still run;
	// killed before its restart so that two never run.
	KillUnknown KillReason = "Unknown"
)

// ContainerStart is a container to start.
type ContainerStart struct {
	// Index is the container's index in its spec list (InitContainers,
	// Containers or EphemeralContainers).
	Index int
	// Name is the container's name.
	Name string
	// Reason says why.
	Reason StartReason
	// Message says why, for a log line.
	Message string
}

// ContainerKill is a running (or possibly running) container instance to
// kill.
type ContainerKill struct {
	// ID is the instance's container ID.
	ID string
	// Name is the container's name.
	Name string
	// Init reports an init container.
	Init bool
	// Reason says why.
	Reason KillReason
	// Message is upstream's message, e.g. "Container app definition
	// changed, will be restarted".
	Message string
}

// PodActions is the outcome of one pod sync decision (the kubelet's
// podActions), with the reason for each part.
type PodActions struct {
	// CreateSandbox: create a new sandbox (after killing the pod).
	CreateSandbox bool
	// SandboxReason and SandboxMessage say why the newest sandbox cannot
	// be used (set whenever one is needed, even when CreateSandbox ends
	// up false because nothing would run in it).
	SandboxReason  SandboxReason
	SandboxMessage string
	// SandboxID is the newest sandbox's ID ("" when there is none, and, as
	// upstream, when its network namespace mode changed).
	SandboxID string
	// Attempt is the attempt number of the sandbox to create, or of the
	// current one.
	Attempt uint32
	// KillPod: kill every container and the sandbox first.
	KillPod bool
	// KillPodMessage says why.
	KillPodMessage string
	// InitContainersToStart, ContainersToStart and
	// EphemeralContainersToStart list the containers to start, in spec
	// order.
	InitContainersToStart, ContainersToStart, EphemeralContainersToStart []ContainerStart
	// ContainersToKill lists the instances to kill when KillPod is false:
	// init containers in spec order, then regular containers in spec
	// order. (Upstream keeps a map.)
	ContainersToKill []ContainerKill
}

// The kubelet's messages for the parts of a decision.
const (
	msgKillPodForSandbox = "the pod sandbox changed: every container is killed and a new sandbox started"
	msgKillPodAllDead    = "no container is running or to be started: the pod is killed"
	msgKillPodInitFailed = "an init container failed and the pod's restart policy is Never: the pod is killed"
	msgSandboxDone       = "no container would run in a new sandbox: the pod is killed and no sandbox created"
)

// view is the decision's read-only view of its input.
type view struct {
	pod    *core.Pod
	opts   SyncOptions
	status []ContainerStatus
	// newest maps a container name to the index of its newest instance;
	// nil when there are few instances (then a scan finds it).
	newest map[string]int
	// active holds the statuses of the current sandbox's containers (all
	// of them when none carries a sandbox ID).
	active []ContainerStatus
}

func newView(pod *core.Pod, st *PodStatus, opts SyncOptions) view {
	v := view{pod: pod, opts: opts, status: st.Containers}
	if !opts.InitializedByAnySandbox {
		v.active = activeStatuses(st)
	}
	if len(st.Containers) > 16 {
		v.newest = make(map[string]int, len(st.Containers))
		for i := range st.Containers {
			c := &st.Containers[i]
			if j, ok := v.newest[c.Name]; !ok || newerStatus(c, &st.Containers[j]) {
				v.newest[c.Name] = i
			}
		}
	}
	return v
}

// activeStatuses returns the statuses of the containers of the pod's
// current sandbox: the newest one, when it is READY (the kubelet's
// ActiveContainerStatuses). When no status carries a sandbox ID, every
// status counts as the current sandbox's.
func activeStatuses(st *PodStatus) []ContainerStatus {
	tracked := false
	for i := range st.Containers {
		if st.Containers[i].SandboxID != "" {
			tracked = true
			break
		}
	}
	if !tracked {
		return st.Containers
	}
	var cur *SandboxStatus
	for i := range st.Sandboxes {
		sb := &st.Sandboxes[i]
		if cur == nil || newer(sb.CreatedAt, sb.ID, cur.CreatedAt, cur.ID) {
			cur = sb
		}
	}
	if cur == nil || cur.State != SandboxReady {
		return nil
	}
	var out []ContainerStatus
	for i := range st.Containers {
		if st.Containers[i].SandboxID == cur.ID {
			out = append(out, st.Containers[i])
		}
	}
	return out
}

// findInit returns the instance an init container is judged by: its
// newest in the current sandbox, or (InitializedByAnySandbox) in any.
func (v *view) findInit(name string) *ContainerStatus {
	if v.opts.InitializedByAnySandbox {
		return v.find(name)
	}
	return newestInstance(v.active, name, false)
}

// newerStatus reports whether a is newer than b (newer).
func newerStatus(a, b *ContainerStatus) bool { return newer(a.CreatedAt, a.ID, b.CreatedAt, b.ID) }

// newer orders runtime objects newest first: the later creation time, then
// the greater ID (upstream's sorts leave ties to chance).
func newer(aCreated time.Time, aID string, bCreated time.Time, bID string) bool {
	if c := aCreated.Compare(bCreated); c != 0 {
		return c > 0
	}
	return aID > bID
}

// find returns the newest instance of the named container, or nil
// (kubecontainer's FindContainerStatusByName over its newest-first list).
func (v *view) find(name string) *ContainerStatus {
	if v.newest != nil {
		if i, ok := v.newest[name]; ok {
			return &v.status[i]
		}
		return nil
	}
	return newestInstance(v.status, name, false)
}

// newestInstance returns the newest instance of the named container, only
// among exited ones when exited is set, or nil.
func newestInstance(status []ContainerStatus, name string, exited bool) *ContainerStatus {
	var best *ContainerStatus
	for i := range status {
		c := &status[i]
		if c.Name == name && (!exited || c.State == ContainerExited) && (best == nil || newerStatus(c, best)) {
			best = c
		}
	}
	return best
}

// changed reports whether the instance's hash differs from the spec's.
func (v *view) changed(c *core.Container, s *ContainerStatus) bool {
	if v.opts.LegacyFullSpecHash {
		return HashContainerJSON(c.SpecJSON) != s.Hash
	}
	return HashContainer(c.Name, c.Image) != s.Hash
}

// restartOnFailure is upstream's shouldRestartOnFailure: the pod policy is
// not Never.
func (v *view) restartOnFailure() bool { return restartPolicy(v.pod) != core.RestartPolicyNever }

// succeeded reports whether the container's newest instance exited 0.
func (v *view) succeeded(name string) bool {
	s := v.find(name)
	return s != nil && s.State == ContainerExited && s.ExitCode == 0
}

// initFailed is upstream's isInitContainerFailed.
func initFailed(s *ContainerStatus) bool {
	return s.Reason == "OOMKilled" || (s.State == ContainerExited && s.ExitCode != 0) || s.State == ContainerUnknown
}

// stateWord is the kubelet's name for a container state, as its messages
// quote it ("created", "running", "exited", "unknown").
func stateWord(s ContainerState) string {
	switch s {
	case ContainerCreated:
		return "created"
	case ContainerRunning:
		return "running"
	case ContainerExited:
		return "exited"
	}
	return "unknown"
}

// sandboxDecision is upstream's PodSandboxChanged with its reason.
func sandboxDecision(pod *core.Pod, sandboxes []SandboxStatus) (create bool, attempt uint32, id string, reason SandboxReason, msg string) {
	if len(sandboxes) == 0 {
		return true, 0, "", SandboxReasonMissing, "No sandbox for pod can be found. Need to start a new one"
	}
	newest, ready := 0, 0
	for i := range sandboxes {
		s := &sandboxes[i]
		if s.State == SandboxReady {
			ready++
		}
		if newer(s.CreatedAt, s.ID, sandboxes[newest].CreatedAt, sandboxes[newest].ID) {
			newest = i
		}
	}
	s := &sandboxes[newest]
	switch {
	case ready > 1:
		return true, s.Attempt + 1, s.ID, SandboxReasonMultipleReady, "Multiple sandboxes are ready for Pod. Need to reconcile them"
	case s.State != SandboxReady:
		return true, s.Attempt + 1, s.ID, SandboxReasonNotReady, "No ready sandbox for pod can be found. Need to start a new one"
	case s.NetworkMode != networkMode(pod):
		return true, s.Attempt + 1, "", SandboxReasonNetworkNamespace,
			fmt.Sprintf("Sandbox for pod has changed. Need to start a new one (network namespace %s, the pod needs %s)", s.NetworkMode, networkMode(pod))
	case !pod.HostNetwork && s.Network != nil && s.Network.IP == "":
		return true, s.Attempt + 1, s.ID, SandboxReasonNoIP, "Sandbox for pod has no IP address. Need to start a new one"
	}
	return false, s.Attempt, s.ID, SandboxReasonNone, ""
}

// networkMode is the sandbox network namespace mode the pod needs.
func networkMode(pod *core.Pod) NamespaceMode {
	if pod.HostNetwork {
		return NamespaceNode
	}
	return NamespacePod
}

// hasRestartableInit reports whether the pod has a sidecar.
func hasRestartableInit(pod *core.Pod) bool {
	for i := range pod.InitContainers {
		if pod.InitContainers[i].RestartPolicy == core.ContainerRestartPolicyAlways {
			return true
		}
	}
	return false
}

// ComputePodActions is the kubelet's pod sync decision
// (kubeGenericRuntimeManager.computePodActions) for the desired pod and
// what the runtime reports about it.
//
// A new sandbox is needed when the pod has none, more than one is READY,
// the newest is not READY, its network namespace mode is not the pod's,
// or a pod-network sandbox reports an empty IP; the pod is then killed and
// everything starts afresh (the first init container, or every container
// except, under OnFailure, those that succeeded) - except that under
// Never, once a sandbox existed and containers ran, nothing is re-created,
// and nothing is created when no container would start and the pod has
// initialized.
//
// With a usable sandbox: ephemeral containers never seen start; init
// containers progress (computeInitContainerActions: the next one after the
// last completed, failed ones retried unless the policy is Never, which
// kills the pod; sidecars restarted when exited, unknown, changed or
// failing their probes); once initialized, each regular container that is
// not running starts when ShouldRestart says so (an unknown one is killed
// first), and a running one is killed when its hash changed (restarted
// whatever the policy), or its liveness or startup probe failed
// (restarted unless the policy is Never). When nothing is kept and nothing
// starts, the pod is killed.
//
// Not modelled: in-place resize (InPlacePodVerticalScaling) and the
// per-container restart rules (ContainerRestartRules: alpha in v1.34, beta
// and on by default since v1.35). An unknown restart policy, a restart
// policy on a regular or ephemeral container or other than Always on an
// init container, and empty or duplicate container names return an error
// naming the value and no actions; the input is not modified.
func ComputePodActions(pod core.Pod, status PodStatus, opts SyncOptions) (PodActions, error) {
	var a PodActions
	if err := checkPod(&pod); err != nil {
		return a, err
	}
	v := newView(&pod, &status, opts)
	create, attempt, id, reason, msg := sandboxDecision(&pod, status.Sandboxes)
	a.CreateSandbox, a.KillPod = create, create
	a.Attempt, a.SandboxID, a.SandboxReason, a.SandboxMessage = attempt, id, reason, msg
	restartable := hasRestartableInit(&pod) || !opts.LegacySidecarContainers

	if create {
		a.KillPodMessage = msgKillPodForSandbox
		if !v.restartOnFailure() && attempt != 0 && len(status.Containers) != 0 {
			a.CreateSandbox = false
			a.KillPodMessage = "the pod sandbox changed and the restart policy is Never: the pod is killed and no sandbox created"
			return a, nil
		}
		var toStart []ContainerStart
		for i := range pod.Containers {
			c := &pod.Containers[i]
			if pod.RestartPolicy == core.RestartPolicyOnFailure && v.succeeded(c.Name) {
				continue
			}
			toStart = append(toStart, ContainerStart{i, c.Name, StartNewSandbox, "starting in a new sandbox"})
		}
		if len(toStart) == 0 {
			var initialized bool
			if restartable {
				initialized = v.anyRegularCreated()
			} else {
				_, _, initialized = v.nextInit()
			}
			if initialized {
				a.CreateSandbox = false
				a.KillPodMessage = msgSandboxDone
				return a, nil
			}
		}
		if len(pod.InitContainers) != 0 {
			a.InitContainersToStart = []ContainerStart{{0, pod.InitContainers[0].Name, StartNewSandbox, "the first init container, in a new sandbox"}}
			return a, nil
		}
		a.ContainersToStart = toStart
		return a, nil
	}

	for i := range pod.EphemeralContainers {
		c := &pod.EphemeralContainers[i]
		if v.find(c.Name) == nil {
			a.EphemeralContainersToStart = append(a.EphemeralContainersToStart,
				ContainerStart{i, c.Name, StartNotCreated, "ephemeral containers start once and are never restarted"})
		}
	}

	if !restartable {
		if !v.legacyInitActions(&a) {
			return a, nil
		}
	} else if initialized := v.initActions(&a); a.KillPod || !initialized {
		return a, nil
	}

	keep := 0
	for i := range pod.Containers {
		c := &pod.Containers[i]
		s := v.find(c.Name)
		if s == nil || s.State != ContainerRunning {
			if restart, why := shouldRestart(&pod, s); restart {
				a.ContainersToStart = append(a.ContainersToStart, ContainerStart{i, c.Name, why, startMessage(&pod, s, why)})
				if s != nil && s.State == ContainerUnknown {
					a.ContainersToKill = append(a.ContainersToKill, ContainerKill{s.ID, c.Name, false, KillUnknown,
						fmt.Sprintf("Container is in %q state, try killing it before restart", stateWord(s.State))})
				}
			}
			continue
		}
		restart := v.restartOnFailure()
		var k ContainerKill
		var why StartReason
		switch {
		case v.changed(c, s):
			k, why, restart = ContainerKill{s.ID, c.Name, false, KillDefinitionChanged, fmt.Sprintf("Container %s definition changed", c.Name)}, StartDefinitionChanged, true
		case s.Liveness == ProbeFailure:
			k, why = ContainerKill{s.ID, c.Name, false, KillLivenessProbe, fmt.Sprintf("Container %s failed liveness probe", c.Name)}, StartLivenessProbe
		case s.Startup == ProbeFailure:
			k, why = ContainerKill{s.ID, c.Name, false, KillStartupProbe, fmt.Sprintf("Container %s failed startup probe", c.Name)}, StartStartupProbe
		default:
			keep++
			continue
		}
		if restart {
			k.Message += ", will be restarted"
			a.ContainersToStart = append(a.ContainersToStart, ContainerStart{i, c.Name, why, k.Message})
		}
		a.ContainersToKill = append(a.ContainersToKill, k)
	}
	if keep == 0 && len(a.ContainersToStart) == 0 {
		a.KillPod = true
		a.KillPodMessage = msgKillPodAllDead
		if restartable {
			// Sidecars must not keep a pod alive whose containers are done.
			a.InitContainersToStart = nil
		}
	}
	return a, nil
}

// shouldRestart is kubecontainer.ShouldContainerBeRestarted for a
// container whose newest instance is s (nil: none), with why.
func shouldRestart(pod *core.Pod, s *ContainerStatus) (bool, StartReason) {
	policy := restartPolicy(pod)
	switch {
	case pod.Deleting():
		return false, ""
	case s == nil:
		return true, StartNotCreated
	case s.State == ContainerRunning:
		return false, ""
	case s.State == ContainerUnknown:
		return true, StartUnknown
	case s.State == ContainerCreated:
		return true, StartCreated
	case policy == core.RestartPolicyNever:
		return false, ""
	case policy == core.RestartPolicyOnFailure && s.ExitCode == 0:
		return false, ""
	}
	return true, StartExited
}

// startMessage is the sentence for a start decided by shouldRestart, built
// only when a plan needs it.
func startMessage(pod *core.Pod, s *ContainerStatus, why StartReason) string {
	switch why {
	case StartNotCreated:
		return "the container has not been created"
	case StartUnknown:
		return `the container is in "unknown" state; it is killed and started again`
	case StartCreated:
		return `the container is stuck in "created" state; it is started again`
	}
	return fmt.Sprintf("the container exited with code %d and the restart policy is %s", s.ExitCode, restartPolicy(pod))
}

// ShouldRestart reports whether the kubelet starts the container again
// given its newest instance (nil: none), as
// kubecontainer.ShouldContainerBeRestarted: never once the pod is being
// deleted; a container never created, in CONTAINER_CREATED or in
// CONTAINER_UNKNOWN state always; a running one never; an exited one per
// the pod's restart policy (Always: yes; OnFailure: when the exit code is
// not 0; Never: no).
func ShouldRestart(pod core.Pod, newest *ContainerStatus) bool {
	ok, _ := shouldRestart(&pod, newest)
	return ok
}

// anyRegularCreated is upstream's hasAnyRegularContainerCreated.
func (v *view) anyRegularCreated() bool {
	for i := range v.pod.Containers {
		if s := v.find(v.pod.Containers[i].Name); s != nil && s.State != ContainerUnknown {
			return true
		}
	}
	return false
}

// nextInit is upstream's findNextInitContainerToRun: the newest instance
// of the last failed init container (with that container), or the next
// init container to run, or done.
func (v *view) nextInit() (failed *ContainerStatus, next int, done bool) {
	inits := v.pod.InitContainers
	if len(inits) == 0 {
		return nil, -1, true
	}
	for i := range v.pod.Containers {
		if s := v.find(v.pod.Containers[i].Name); s != nil && s.State == ContainerRunning {
			return nil, -1, true
		}
	}
	for i := len(inits) - 1; i >= 0; i-- {
		if s := v.find(inits[i].Name); s != nil && initFailed(s) {
			return s, i, false
		}
	}
	for i := len(inits) - 1; i >= 0; i-- {
		s := v.find(inits[i].Name)
		switch {
		case s == nil:
			continue
		case s.State == ContainerRunning:
			return nil, -1, false
		case s.State == ContainerExited:
			if i == len(inits)-1 {
				return nil, -1, true
			}
			return nil, i + 1, false
		}
	}
	return nil, 0, false
}

// legacyInitActions is the init-container step of kubelets before 1.33
// for pods without sidecars; it reports whether the pod has initialized.
func (v *view) legacyInitActions(a *PodActions) bool {
	failed, next, done := v.nextInit()
	if done {
		return true
	}
	if next < 0 {
		return false // an init container is running
	}
	c := &v.pod.InitContainers[next]
	if failed != nil && !v.restartOnFailure() {
		a.killForInitFailure()
		return false
	}
	start := ContainerStart{next, c.Name, StartNextInit, "the init containers before it have completed"}
	if failed != nil {
		start.Reason, start.Message = StartInitFailed, initFailedMessage(c.Name, failed)
		if failed.State == ContainerUnknown {
			a.ContainersToKill = append(a.ContainersToKill, ContainerKill{failed.ID, c.Name, true, KillUnknown,
				unknownInitMessage(failed)})
		}
	}
	a.InitContainersToStart = []ContainerStart{start}
	return false
}

// initFailedMessage says how a failed init container ended and that it is
// retried.
func initFailedMessage(name string, s *ContainerStatus) string {
	how := fmt.Sprintf("exit code %d", s.ExitCode)
	switch {
	case s.State == ContainerUnknown:
		how = `state "unknown"`
	case s.Reason != "":
		how = fmt.Sprintf("exit code %d, reason %s", s.ExitCode, s.Reason)
	}
	return fmt.Sprintf("init container %s failed (%s); the restart policy retries it", name, how)
}

// unknownInitMessage is the kubelet's message for killing an init
// container in an unknown state before its restart.
func unknownInitMessage(s *ContainerStatus) string {
	return fmt.Sprintf("Init container is in %q state, try killing it before restart", stateWord(s.State))
}

// killForInitFailure kills the pod because an init container failed under
// the Never policy.
func (a *PodActions) killForInitFailure() {
	a.KillPod = true
	a.KillPodMessage = msgKillPodInitFailed
}

// initActions is upstream's computeInitContainerActions: it appends the
// init containers to start and kill and reports whether the pod has
// initialized.
func (v *view) initActions(a *PodActions) bool {
	inits := v.pod.InitContainers
	if len(inits) == 0 {
		return true
	}
	initialized := false
	if v.opts.InitializedByAnySandbox {
		for i := range v.pod.Containers {
			if s := v.find(v.pod.Containers[i].Name); s != nil && (s.State == ContainerCreated || s.State == ContainerRunning) {
				// Exited ones do not count: after a node reboot every
				// container has exited and the new sandbox is not initialized.
				initialized = true
				break
			}
		}
	} else {
		// A regular container in the current sandbox, in any state: an old
		// sandbox's containers cannot make the new one initialized.
	active:
		for i := range v.active {
			for j := range v.pod.Containers {
				if v.active[i].Name == v.pod.Containers[j].Name {
					initialized = true
					break active
				}
			}
		}
	}
	before := initialized // the init containers before the current one have initialized
	restartOnFailure := v.restartOnFailure()
	var starts []ContainerStart
	var kills []ContainerKill
	start := func(i int, why StartReason, msg string) {
		starts = append(starts, ContainerStart{i, inits[i].Name, why, msg})
	}
	kill := func(s *ContainerStatus, why KillReason, msg string) {
		kills = append(kills, ContainerKill{s.ID, s.Name, true, why, msg})
	}
	next := func(i int) {
		if i == len(inits)-1 {
			initialized = true
		} else if !before {
			done := "completed"
			if inits[i].RestartPolicy == core.ContainerRestartPolicyAlways {
				done = "started"
			}
			starts = append(starts, ContainerStart{i + 1, inits[i+1].Name, StartNextInit,
				fmt.Sprintf("init container %s has %s", inits[i].Name, done)})
		}
	}
loop:
	for i := len(inits) - 1; i >= 0; i-- {
		c := &inits[i]
		sidecar := c.RestartPolicy == core.ContainerRestartPolicyAlways
		s := v.findInit(c.Name)
		if s == nil {
			if before && sidecar {
				start(i, StartNotCreated, "the sidecar has no instance although the pod has initialized")
			}
			continue
		}
		if before && !sidecar {
			continue // once initialized, only sidecars are kept running
		}
		switch s.State {
		case ContainerCreated:
			start(i, StartCreated, `the init container is stuck in "created" state; it is started again`)
		case ContainerRunning:
			if !sidecar {
				break // wait for it to complete
			}
			if c.HasStartupProbe && s.Startup != ProbeSuccess {
				if s.Startup == ProbeFailure {
					msg := fmt.Sprintf("Init container %s failed startup probe", c.Name)
					kill(s, KillStartupProbe, msg)
					start(i, StartStartupProbe, msg)
				}
				break // wait for the startup probe
			}
			next(i)
			if v.changed(c, s) {
				msg := fmt.Sprintf("Init container %s definition changed", c.Name)
				kill(s, KillDefinitionChanged, msg)
				start(i, StartDefinitionChanged, msg)
				break
			}
			if c.HasLivenessProbe && s.Liveness == ProbeFailure {
				msg := fmt.Sprintf("Init container %s failed liveness probe", c.Name)
				kill(s, KillLivenessProbe, msg)
				start(i, StartLivenessProbe, msg)
			}
		case ContainerExited:
			if sidecar {
				start(i, StartExited, fmt.Sprintf("the sidecar exited with code %d; sidecars always restart", s.ExitCode))
				break
			}
			if initFailed(s) {
				if !restartOnFailure {
					a.killForInitFailure()
					starts = nil
					break loop
				}
				start(i, StartInitFailed, initFailedMessage(c.Name, s))
				break
			}
			next(i)
		default: // unknown
			msg := unknownInitMessage(s)
			if !sidecar && !restartOnFailure {
				a.killForInitFailure()
				starts = nil
				break loop
			}
			kill(s, KillUnknown, msg)
			start(i, StartUnknown, msg)
		}
		before = true
	}
	if a.KillPod {
		a.ContainersToKill = append(a.ContainersToKill, reversed(kills)...)
		return false
	}
	if !before {
		start(0, StartNextInit, "no init container has started yet")
	}
	a.InitContainersToStart = append(a.InitContainersToStart, reversed(starts)...)
	a.ContainersToKill = append(a.ContainersToKill, reversed(kills)...)
	return initialized
}

func reversed[T any](s []T) []T {
	slices.Reverse(s)
	return s
}

// checkPod rejects an unknown restart policy, a restart policy other than
// Always on an init container or any on another container, and empty and
// duplicate container names (init, regular and ephemeral containers share
// one namespace of names). Small pods are
// checked pairwise, without allocating; large ones through a sorted copy.
func checkPod(pod *core.Pod) error {
	lists := [3][]core.Container{pod.InitContainers, pod.Containers, pod.EphemeralContainers}
	n := len(lists[0]) + len(lists[1]) + len(lists[2])
	name := func(k int) string {
		for _, l := range lists {
			if k < len(l) {
				return l[k].Name
			}
			k -= len(l)
		}
		return ""
	}
	dup := func(s string) error {
		return wrap(ErrInvalidInput, fmt.Sprintf("pod %s: container name %q is used twice", podString(pod), s))
	}
	switch pod.RestartPolicy {
	case "", core.RestartPolicyAlways, core.RestartPolicyOnFailure, core.RestartPolicyNever:
	default:
		return wrap(ErrInvalidInput, fmt.Sprintf("pod %s: unsupported restart policy %q (Always, OnFailure or Never)", podString(pod), pod.RestartPolicy))
	}
	for i := range pod.InitContainers {
		if p := pod.InitContainers[i].RestartPolicy; p != "" && p != core.ContainerRestartPolicyAlways {
			return wrap(ErrInvalidInput, fmt.Sprintf("pod %s: init container %q has restart policy %q; only Always (a sidecar) is allowed", podString(pod), pod.InitContainers[i].Name, p))
		}
	}
	for _, l := range lists[1:] {
		for i := range l {
			if l[i].RestartPolicy != "" {
				return wrap(ErrInvalidInput, fmt.Sprintf("pod %s: container %q has restart policy %q; per-container restart rules (ContainerRestartRules, beta since v1.35) are not modelled", podString(pod), l[i].Name, l[i].RestartPolicy))
			}
		}
	}
	for k := 0; k < n; k++ {
		if name(k) == "" {
			return wrap(ErrInvalidInput, "pod "+podString(pod)+": a container has an empty name")
		}
	}
	if n <= 16 {
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				if name(a) == name(b) {
					return dup(name(a))
				}
			}
		}
		return nil
	}
	names := make([]string, n)
	for k := range names {
		names[k] = name(k)
	}
	slices.Sort(names)
	for k := 1; k < n; k++ {
		if names[k] == names[k-1] {
			return dup(names[k])
		}
	}
	return nil
}
