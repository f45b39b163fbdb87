package core

import "k8s.io/apimachinery/pkg/api/resource"

// VolumeSource names which of core/v1's VolumeSource fields a volume sets,
// by that field's JSON name. The library tells apart the sources named by
// the constants below; a volume of any other source carries its own field
// name ("secret", "persistentVolumeClaim", "projected", ...) or "", and is
// treated as a volume whose data lives off the node's disk.
type VolumeSource string

// The volume sources the library tells apart.
const (
	// VolumeHostPath is a hostPath volume: a directory of the node.
	VolumeHostPath VolumeSource = "hostPath"
	// VolumeEmptyDir is an emptyDir volume: scratch space made for the pod;
	// Volume.EmptyDir says its medium and size limit.
	VolumeEmptyDir VolumeSource = "emptyDir"
	// VolumeConfigMap is a configMap volume, written to the node's disk.
	VolumeConfigMap VolumeSource = "configMap"
	// VolumeGitRepo is a gitRepo volume (deprecated upstream), cloned onto
	// the node's disk.
	VolumeGitRepo VolumeSource = "gitRepo"
)

// StorageMedium is an emptyDir volume's medium, with core/v1's values.
type StorageMedium string

// The storage media of an emptyDir volume.
const (
	// StorageMediumDefault is the node's disk (the filesystem holding the
	// kubelet's root directory).
	StorageMediumDefault StorageMedium = ""
	// StorageMediumMemory is a tmpfs, counted against the pod's memory.
	StorageMediumMemory StorageMedium = "Memory"
	// StorageMediumHugePages is backed by huge pages.
	StorageMediumHugePages StorageMedium = "HugePages"
)

// Volume is a volume of a pod's spec (spec.volumes[]), the fields the
// library reads.
//
// The zero value is a volume with no name and no source the library tells
// apart: no planner counts it.
type Volume struct {
	// Name is name, unique within the pod; the stats summary reports a
	// volume's use under it.
	Name string
	// Source is which source the volume sets.
	Source VolumeSource
	// EmptyDir is the emptyDir source's settings; read only when Source is
	// VolumeEmptyDir, and nil there means the default medium without a
	// size limit.
	EmptyDir *EmptyDirVolumeSource
}

// EmptyDirVolumeSource is an emptyDir volume's settings.
//
// The zero value is the default medium without a size limit.
type EmptyDirVolumeSource struct {
	// Medium is medium.
	Medium StorageMedium
	// SizeLimit is sizeLimit; nil when not set.
	SizeLimit *resource.Quantity
}

// LocalEphemeral reports whether the volume's data sits on the node's disk
// and lives and dies with the pod, as upstream's IsLocalEphemeralVolume: a
// gitRepo, a configMap, or an emptyDir on the default medium.
func (v *Volume) LocalEphemeral() bool {
	switch v.Source {
	case VolumeGitRepo, VolumeConfigMap:
		return true
	case VolumeEmptyDir:
		return v.EmptyDir == nil || v.EmptyDir.Medium == StorageMediumDefault
	}
	return false
}
