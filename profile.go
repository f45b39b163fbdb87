package nodelife

import (
	"github.com/nodelife/nodelife/admission"
	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/topology/checkpoint"
	"github.com/nodelife/nodelife/topology/cpu"
)

// Profile is one Kubernetes release's defaults and feature gates for every
// package whose rules changed between releases: the one value that runs the
// whole library as that release. Each field is what its package's own
// preset returns for Release, so a component reads its field and needs no
// release of its own:
//
//	p := nodelife.ProfileFor(release.V1_36)
//	ctrl, err := nodelifecycle.New(p.NodeLifecycle)
//	evict, err := pressure.NewManager(p.Pressure)
//	class := cgroup.ComputeQOS(pod, p.QOS)
//
// The other packages (conditions, taints, eviction, shutdown, lease, gc,
// cloud, readiness, topology) take no release: their defaults are
// v1.37's, and an older rule of theirs is an option or a constant that a
// field above selects (the 40 s grace period before v1.32 is
// conditions.LegacyNodeMonitorGracePeriod, which NodeLifecycle carries) or
// that the caller sets.
//
// The zero Profile is not a release's: use ProfileFor. A field may be
// changed after ProfileFor (a node's own thresholds, a fix upstream never
// made); the profile keeps no other copy of it.
type Profile struct {
	// Release is the release the profile reproduces, clamped to
	// release.Oldest..release.Current.
	Release release.Version
	// NodeLifecycle is kube-controller-manager's node lifecycle
	// controller (nodelifecycle.ConfigFor): the grace period, the tainting
	// of nodes observed Ready, the lease circuit breaker.
	NodeLifecycle nodelifecycle.Config
	// Pressure is the kubelet's node-pressure eviction with its default
	// thresholds (pressure.ConfigFor): separate disk GC, huge pages net of
	// memory.available, the sidecars' ephemeral-storage limits.
	Pressure pressure.Config
	// QOS is the QoS class and request rules (cgroup.QOSOptionsFor), the
	// same value PodCgroup, QOSCgroups, Admission and CPUManager carry.
	QOS cgroup.QOSOptions
	// PodCgroup is the pod cgroup's values (cgroup.PodConfigOptionsFor):
	// MemoryQoS, the limits counted as declared.
	PodCgroup cgroup.PodConfigOptions
	// QOSCgroups is the QoS-level cgroups' values
	// (cgroup.QOSConfigOptionsFor); the node's figures (allocatable, huge
	// page sizes, cgroup v2) are the caller's.
	QOSCgroups cgroup.QOSConfigOptions
	// MemoryQoS is the MemoryQoS gate's settings whether or not the gate is
	// on (cgroup.MemoryQoSConfigFor): the throttling factor, the
	// reservation policy, the container rules.
	MemoryQoS cgroup.MemoryQoSConfig
	// PodSync is the pod sync's variants (cri.SyncOptionsFor): the init
	// containers judged on the current sandbox, the sidecar path, the
	// container hash.
	PodSync cri.SyncOptions
	// Admission is the kubelet's admission switches (admission.OptionsFor)
	// for a Linux kubelet.
	Admission admission.Options
	// CPUManager is the CPU Manager static policy's switches
	// (cpu.ConfigFor); the machine, the reservation, the policy options and
	// the topology policy are the node's, to be set before cpu.NewStatic.
	CPUManager cpu.Config
	// CPUCheckpoint and MemoryCheckpoint are the formats the kubelet
	// writes its cpu_manager_state and memory_manager_state files in
	// (checkpoint.CPUFormatFor, checkpoint.MemoryFormatFor).
	CPUCheckpoint    checkpoint.CPUFormat
	MemoryCheckpoint checkpoint.MemoryFormat
	// CPUCheckpointRead and MemoryCheckpointRead are how it reads them back
	// (checkpoint.CPUReadOptionsFor, checkpoint.MemoryReadOptionsFor); the
	// policy name and the runtime's containers are the node's.
	CPUCheckpointRead    checkpoint.CPUReadOptions
	MemoryCheckpointRead checkpoint.MemoryReadOptions
}

// ProfileFor returns release v's Profile, v taken as release.Oldest or
// release.Current when outside them (release.Parse refuses such a version
// from a command line). ProfileFor(release.Current) holds every package's
// defaults.
func ProfileFor(v release.Version) Profile {
	v = v.Clamp()
	return Profile{
		Release:              v,
		NodeLifecycle:        nodelifecycle.ConfigFor(v),
		Pressure:             pressure.ConfigFor(v),
		QOS:                  cgroup.QOSOptionsFor(v),
		PodCgroup:            cgroup.PodConfigOptionsFor(v),
		QOSCgroups:           cgroup.QOSConfigOptionsFor(v),
		MemoryQoS:            cgroup.MemoryQoSConfigFor(v),
		PodSync:              cri.SyncOptionsFor(v),
		Admission:            admission.OptionsFor(v),
		CPUManager:           cpu.ConfigFor(v),
		CPUCheckpoint:        checkpoint.CPUFormatFor(v),
		MemoryCheckpoint:     checkpoint.MemoryFormatFor(v),
		CPUCheckpointRead:    checkpoint.CPUReadOptionsFor(v),
		MemoryCheckpointRead: checkpoint.MemoryReadOptionsFor(v),
	}
}
