package cgroup

import (
	"strings"

	"github.com/nodelife/nodelife/core"
)

// Name is a cgroup name in the kubelet's driver-neutral form: the list of
// components from the root, [] being the root itself. Guaranteed pods live
// under [kubepods], the others under [kubepods burstable] and
// [kubepods besteffort], each pod in a leaf "pod"+UID.
//
// A component may not contain "/" (the cgroupfs separator) or "_" (kept
// free so that the systemd escaping of "-" can be reversed); upstream
// panics on both, NewName and Validate return ErrInvalidName instead.
type Name []string

// The components of the kubelet's QoS tree.
const (
	// KubepodsComponent is the node-allocatable cgroup all pods live in.
	KubepodsComponent = "kubepods"
	// BurstableComponent is the QoS cgroup of Burstable pods.
	BurstableComponent = "burstable"
	// BestEffortComponent is the QoS cgroup of BestEffort pods.
	BestEffortComponent = "besteffort"
	// PodComponentPrefix starts every pod cgroup's leaf: "pod" + UID.
	PodComponentPrefix = "pod"
)

const sliceSuffix = ".slice"

// NewName returns parent followed by components, as a new slice that
// shares no memory with parent (reusing parent's array was
// kubernetes#68416). Each new component is checked as Validate does.
func NewName(parent Name, components ...string) (Name, error) {
	for _, c := range components {
		if err := validComponent(c); err != nil {
			return nil, err
		}
	}
	out := make(Name, 0, len(parent)+len(components))
	out = append(out, parent...)
	return append(out, components...), nil
}

func validComponent(c string) error {
	switch {
	case c == "":
		return wrap(ErrInvalidName, "empty component")
	case c == "." || c == "..":
		return wrap(ErrInvalidName, "component "+quote(c)+" is a relative path element")
	case strings.ContainsRune(c, '/'):
		return wrap(ErrInvalidName, "component "+quote(c)+" contains \"/\"")
	case strings.ContainsRune(c, '_'):
		return wrap(ErrInvalidName, "component "+quote(c)+" contains \"_\", which the systemd form reserves for escaping \"-\"")
	}
	return nil
}

// Validate reports the first component that cannot be represented in both
// driver forms: empty, "." or "..", or containing "/" or "_". The root is
// valid.
func (n Name) Validate() error {
	for _, c := range n {
		if err := validComponent(c); err != nil {
			return err
		}
	}
	return nil
}

// Equal reports whether n and m have the same components.
func (n Name) Equal(m Name) bool {
	if len(n) != len(m) {
		return false
	}
	for i := range n {
		if n[i] != m[i] {
			return false
		}
	}
	return true
}

// String returns the cgroupfs form.
func (n Name) String() string { return n.Cgroupfs() }

// Cgroupfs returns the cgroupfs path of n: "/" followed by the components
// joined with "/", with empty components dropped as upstream's path.Join
// drops them. The root is "/". [kubepods burstable pod123] is
// "/kubepods/burstable/pod123".
func (n Name) Cgroupfs() string {
	size := 1
	for _, c := range n {
		size += len(c) + 1
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteByte('/')
	first := true
	for _, c := range n {
		if c == "" {
			continue
		}
		if !first {
			b.WriteByte('/')
		}
		b.WriteString(c)
		first = false
	}
	return b.String()
}

// ParseCgroupfs splits a cgroupfs path into a Name the way upstream does:
// drop one leading "/", split on "/". "/" and "" are the root; "/a/" is
// [a ""] (a trailing empty component that Cgroupfs drops again). It never
// fails; call Validate to reject names that do not round-trip.
func ParseCgroupfs(path string) Name {
	if path != "" && path[0] == '/' {
		path = path[1:]
	}
	if path == "" {
		return Name{}
	}
	n := make(Name, 0, strings.Count(path, "/")+1)
	for {
		i := strings.IndexByte(path, '/')
		if i < 0 {
			return append(n, path)
		}
		n = append(n, path[:i])
		path = path[i+1:]
	}
}

// EscapeSystemd turns a component into its systemd form: every "-"
// becomes "_" ("pod-123" -> "pod_123").
func EscapeSystemd(component string) string { return strings.ReplaceAll(component, "-", "_") }

// UnescapeSystemd reverses EscapeSystemd: every "_" becomes "-".
func UnescapeSystemd(part string) string { return strings.ReplaceAll(part, "_", "-") }

// SystemdSlice returns the systemd unit name of n without its parents:
// the escaped components joined with "-" plus ".slice"
// ([kubepods burstable pod-1] -> "kubepods-burstable-pod_1.slice"). The root
// is "-.slice". Components are checked as Validate does.
func (n Name) SystemdSlice() (string, error) {
	if n.isRoot() {
		return "-" + sliceSuffix, nil
	}
	if err := n.Validate(); err != nil {
		return "", err
	}
	size := len(sliceSuffix)
	for _, c := range n {
		size += len(c) + 1
	}
	var b strings.Builder
	b.Grow(size)
	for i, c := range n {
		if i > 0 {
			b.WriteByte('-')
		}
		for j := 0; j < len(c); j++ {
			if c[j] == '-' {
				b.WriteByte('_')
			} else {
				b.WriteByte(c[j])
			}
		}
	}
	b.WriteString(sliceSuffix)
	return b.String(), nil
}

func (n Name) isRoot() bool { return len(n) == 0 || (len(n) == 1 && n[0] == "") }

// Systemd returns the systemd cgroup path of n: SystemdSlice expanded so
// that every "-" prefix becomes a parent slice. [kubepods burstable] is
// "/kubepods.slice/kubepods-burstable.slice"; the root is "/". Where
// upstream's ToSystemd panics (a component that cannot be expanded), this
// returns ErrInvalidName.
func (n Name) Systemd() (string, error) {
	if n.isRoot() {
		return "/", nil
	}
	slice, err := n.SystemdSlice()
	if err != nil {
		return "", err
	}
	return ExpandSlice(slice)
}

// SystemdParentAndUnit returns the two values libcontainer's systemd
// driver takes for n: the parent slice (the base name of the expanded
// path's directory, "-.slice" at the top) and the unit (the base name).
// [kubepods burstable] gives ("kubepods.slice", "kubepods-burstable.slice").
func (n Name) SystemdParentAndUnit() (parent, unit string, err error) {
	if n.isRoot() {
		return "", "", wrap(ErrInvalidName, "the root cgroup has no parent slice")
	}
	unit, err = n.SystemdSlice()
	if err != nil {
		return "", "", err
	}
	if len(n) == 1 {
		return "-" + sliceSuffix, unit, nil
	}
	parent, err = n[:len(n)-1].SystemdSlice()
	return parent, unit, err
}

// ExpandSlice expands a systemd slice name into its cgroup path, as
// systemd and runc do: "test-a-b.slice" is
// "/test.slice/test-a.slice/test-a-b.slice" and "-.slice" is "/". The name
// must end in ".slice", contain no "/" and have no empty "-"-separated
// part (no leading, trailing or doubled "-", not a bare ".slice").
func ExpandSlice(slice string) (string, error) {
	if !strings.HasSuffix(slice, sliceSuffix) {
		return "", wrap(ErrInvalidName, "slice "+quote(slice)+" does not end in \".slice\"")
	}
	if strings.ContainsRune(slice, '/') {
		return "", wrap(ErrInvalidName, "slice "+quote(slice)+" contains \"/\"")
	}
	base := strings.TrimSuffix(slice, sliceSuffix)
	if base == "-" {
		return "/", nil
	}
	// The expanded path repeats each prefix: sum over parts of
	// (1 + prefix + part + ".slice").
	parts := strings.Count(base, "-") + 1
	size := 0
	for i := 0; i < len(base); i++ {
		if base[i] == '-' {
			size += 1 + i + len(sliceSuffix)
		}
	}
	size += 1 + len(base) + len(sliceSuffix)
	var b strings.Builder
	b.Grow(size)
	start := 0
	for p := 0; p < parts; p++ {
		end := strings.IndexByte(base[start:], '-')
		if end < 0 {
			end = len(base)
		} else {
			end += start
		}
		if end == start {
			return "", wrap(ErrInvalidName, "slice "+quote(slice)+" has an empty component")
		}
		b.WriteByte('/')
		b.WriteString(base[:end])
		b.WriteString(sliceSuffix)
		start = end + 1
	}
	return b.String(), nil
}

// ParseSystemd turns a systemd cgroup path or slice name back into a Name,
// as upstream does: only the base name counts, ".slice" is trimmed, the
// rest is split on "-" and each part unescaped ("_" -> "-"). "/", "" and
// "-.slice" are the root. A base name with an empty part ("a--b.slice",
// "-a.slice") is ErrInvalidName; upstream would return a name with an empty
// component.
func ParseSystemd(path string) (Name, error) {
	base := strings.TrimRight(path, "/")
	base = base[strings.LastIndexByte(base, '/')+1:]
	base = strings.TrimSuffix(base, sliceSuffix)
	if base == "" || base == "-" {
		return Name{}, nil
	}
	out := make(Name, 0, strings.Count(base, "-")+1)
	for _, part := range strings.Split(base, "-") {
		if part == "" {
			return nil, wrap(ErrInvalidName, "systemd name "+quote(path)+" has an empty component")
		}
		out = append(out, UnescapeSystemd(part))
	}
	return out, nil
}

// Driver is a cgroup driver, named as in the kubelet's cgroupDriver
// setting and the runtimes' configuration.
type Driver string

// The two cgroup drivers.
const (
	// DriverCgroupfs writes cgroupfs directly; names are Name.Cgroupfs.
	DriverCgroupfs Driver = "cgroupfs"
	// DriverSystemd asks systemd for slices and scopes; names are
	// Name.Systemd. Required for cgroup v2 by the Kubernetes docs.
	DriverSystemd Driver = "systemd"
)

// DriverFromCRI maps the CRI RuntimeConfig cgroup driver enum (KEP-4033:
// SYSTEMD = 0, CGROUPFS = 1 in the CRI proto) to a Driver.
func DriverFromCRI(v int32) (Driver, error) {
	switch v {
	case 0:
		return DriverSystemd, nil
	case 1:
		return DriverCgroupfs, nil
	}
	return "", wrap(ErrInvalidInput, "unknown CRI cgroup driver value "+itoa(int64(v)))
}

// ParseDriver accepts "cgroupfs" and "systemd".
func ParseDriver(s string) (Driver, error) {
	switch Driver(s) {
	case DriverCgroupfs, DriverSystemd:
		return Driver(s), nil
	}
	return "", wrap(ErrInvalidInput, "unknown cgroup driver "+quote(s)+" (want \"cgroupfs\" or \"systemd\")")
}

// Path returns n in the form of driver d.
func (d Driver) Path(n Name) (string, error) {
	switch d {
	case DriverCgroupfs:
		if err := n.Validate(); err != nil {
			return "", err
		}
		return n.Cgroupfs(), nil
	case DriverSystemd:
		return n.Systemd()
	}
	return "", wrap(ErrInvalidInput, "unknown cgroup driver "+quote(string(d)))
}

// Parse reads a path in the form of driver d back into a Name.
func (d Driver) Parse(path string) (Name, error) {
	switch d {
	case DriverCgroupfs:
		return ParseCgroupfs(path), nil
	case DriverSystemd:
		return ParseSystemd(path)
	}
	return nil, wrap(ErrInvalidInput, "unknown cgroup driver "+quote(string(d)))
}

// NodeAllocatableRoot returns the cgroup all pods live in: the kubelet's
// --cgroup-root (cgroupfs form, "/" by default) followed by "kubepods"
// when --cgroups-per-qos is on (the default), or the cgroup root itself
// when it is off.
func NodeAllocatableRoot(cgroupRoot string, cgroupsPerQOS bool) (Name, error) {
	root := ParseCgroupfs(cgroupRoot)
	if err := root.Validate(); err != nil {
		return nil, err
	}
	if !cgroupsPerQOS {
		return root, nil
	}
	return NewName(root, KubepodsComponent)
}

// QOSName returns the QoS cgroup of class under the node-allocatable root:
// the root itself for Guaranteed, root/burstable and root/besteffort for
// the others.
func QOSName(root Name, class core.PodQOSClass) (Name, error) {
	switch class {
	case core.PodQOSGuaranteed:
		return NewName(root)
	case core.PodQOSBurstable:
		return NewName(root, BurstableComponent)
	case core.PodQOSBestEffort:
		return NewName(root, BestEffortComponent)
	}
	return nil, wrap(ErrInvalidInput, "unknown QoS class "+quote(string(class)))
}

// PodName returns the cgroup of the pod with the given UID and class:
// QOSName(root, class) followed by "pod"+uid. Under the systemd driver
// [kubepods burstable pod1234-5678] becomes
// /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234_5678.slice.
func PodName(root Name, class core.PodQOSClass, uid string) (Name, error) {
	if uid == "" {
		return nil, wrap(ErrInvalidName, "empty pod UID")
	}
	qos, err := QOSName(root, class)
	if err != nil {
		return nil, err
	}
	return NewName(qos, PodComponentPrefix+uid)
}
