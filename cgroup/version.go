package cgroup

import (
	"strconv"

	"github.com/nodelife/nodelife/internal/enum"
)

// Filesystem magic numbers (statfs f_type) that tell the cgroup versions
// apart.
const (
	// Cgroup2SuperMagic is the f_type of a cgroup v2 (unified) mount.
	Cgroup2SuperMagic int64 = 0x63677270
	// TmpfsMagic is the f_type of the tmpfs that holds the v1 controller
	// mounts at /sys/fs/cgroup on v1 and hybrid hosts.
	TmpfsMagic int64 = 0x01021994
	// CgroupSuperMagic is the f_type of a cgroup v1 controller mount.
	CgroupSuperMagic int64 = 0x27e0eb
)

// The mount points the detection looks at.
const (
	// RootMountpoint is where the cgroup hierarchy is mounted.
	RootMountpoint = "/sys/fs/cgroup"
	// UnifiedMountpoint is where hybrid hosts mount their cgroup v2
	// hierarchy next to the v1 controllers.
	UnifiedMountpoint = "/sys/fs/cgroup/unified"
)

// Version is the cgroup layout of a host.
type Version int

const (
	// V1 is the legacy layout: a tmpfs at /sys/fs/cgroup with one mount
	// per controller. In maintenance since Kubernetes 1.31; from 1.35 the
	// kubelet refuses to start on it unless failCgroupV1 is false.
	V1 Version = iota
	// Hybrid is V1 plus a cgroup2 mount at /sys/fs/cgroup/unified that
	// holds no controllers. The kubelet treats it as V1.
	Hybrid
	// V2 is the unified layout: one cgroup2 mount at /sys/fs/cgroup.
	V2
)

// String returns "v1", "hybrid" or "v2".
func (v Version) String() string { return enum.Name(v, "Version", "v1", "hybrid", "v2") }

// Unified reports whether v is the unified (cgroup v2) layout, the
// question upstream's IsCgroup2UnifiedMode answers. Hybrid is not
// unified: swap, MemoryQoS and PSI need V2.
func (v Version) Unified() bool { return v == V2 }

// DetectVersion decides the layout from the statfs f_type of
// RootMountpoint and, when that is tmpfs, of UnifiedMountpoint (pass 0 when
// it does not exist). A root that is cgroup2 is V2; tmpfs with a cgroup2
// unified mount is Hybrid; anything else is V1, as upstream assumes v1
// whenever the root is not cgroup2.
func DetectVersion(rootFsType, unifiedFsType int64) Version {
	switch {
	case rootFsType == Cgroup2SuperMagic:
		return V2
	case rootFsType == TmpfsMagic && unifiedFsType == Cgroup2SuperMagic:
		return Hybrid
	}
	return V1
}

// StatfsFunc returns the statfs f_type of the filesystem mounted at path;
// a caller on Linux wraps unix.Statfs. Tests pass a map lookup.
type StatfsFunc func(path string) (fsType int64, err error)

// Detect runs DetectVersion with statfs injected. If the root cannot be
// examined it returns V1 with the error (upstream silently assumes v1; the
// error lets a caller decide otherwise). A unified mount that cannot be
// examined is simply absent: most v1 hosts have none.
func Detect(statfs StatfsFunc) (Version, error) {
	if statfs == nil {
		return V1, wrap(ErrInvalidInput, "nil StatfsFunc")
	}
	root, err := statfs(RootMountpoint)
	if err != nil {
		return V1, wrap(ErrInvalidInput, "statfs "+RootMountpoint+": "+err.Error())
	}
	var unified int64
	if root == TmpfsMagic {
		if t, err := statfs(UnifiedMountpoint); err == nil {
			unified = t
		}
	}
	return DetectVersion(root, unified), nil
}

// FsTypeName returns the name `stat -fc %T` prints for a filesystem magic:
// "cgroup2fs", "tmpfs", "cgroupfs", or "UNKNOWN (0x...)" as stat prints for
// types it does not know.
func FsTypeName(magic int64) string {
	switch magic {
	case Cgroup2SuperMagic:
		return "cgroup2fs"
	case TmpfsMagic:
		return "tmpfs"
	case CgroupSuperMagic:
		return "cgroupfs"
	}
	return "UNKNOWN (0x" + strconv.FormatInt(magic, 16) + ")"
}

// FsTypeMagic is the inverse of FsTypeName for the three names it knows,
// so the output of `stat -fc %T /sys/fs/cgroup` can be fed to
// DetectVersion. ok is false for any other name.
func FsTypeMagic(name string) (magic int64, ok bool) {
	switch name {
	case "cgroup2fs":
		return Cgroup2SuperMagic, true
	case "tmpfs":
		return TmpfsMagic, true
	case "cgroupfs":
		return CgroupSuperMagic, true
	}
	return 0, false
}
