package cgroup

import (
	"cmp"
	"errors"
	"strconv"
	"strings"

	"github.com/nodelife/nodelife/internal/enum"
)

// Release is a dotted numeric version: a kernel release or a runtime
// version with everything after the numbers dropped.
type Release struct {
	Major, Minor, Patch int
}

// String returns "major.minor.patch".
func (r Release) String() string {
	return strconv.Itoa(r.Major) + "." + strconv.Itoa(r.Minor) + "." + strconv.Itoa(r.Patch)
}

// Compare returns -1, 0 or +1 as r is older than, equal to or newer than o.
func (r Release) Compare(o Release) int {
	if c := cmp.Compare(r.Major, o.Major); c != 0 {
		return c
	}
	if c := cmp.Compare(r.Minor, o.Minor); c != 0 {
		return c
	}
	return cmp.Compare(r.Patch, o.Patch)
}

// AtLeast reports whether r is o or newer.
func (r Release) AtLeast(o Release) bool { return r.Compare(o) >= 0 }

// ParseRelease reads the leading "major.minor[.patch]" of a version
// string, after an optional "v": "5.15.0-91-generic" is 5.15.0,
// "v1.7.2" is 1.7.2, "1.6.12-0ubuntu1~22.04.3" is 1.6.12, "6.8" is 6.8.0.
// A string without at least major.minor is ErrInvalidVersion.
func ParseRelease(s string) (Release, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	var parts [3]int
	n := 0
	for n < 3 {
		i := 0
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i == 0 || i > 9 {
			break
		}
		parts[n], _ = strconv.Atoi(t[:i])
		n++
		t = t[i:]
		if len(t) == 0 || t[0] != '.' {
			break
		}
		t = t[1:]
	}
	if n < 2 {
		return Release{}, wrap(ErrInvalidVersion, "version "+quote(s)+" does not start with major.minor")
	}
	return Release{parts[0], parts[1], parts[2]}, nil
}

// ParseRuntimeVersion splits a runtime's version line into its name and
// release: "containerd 1.7.2" is ("containerd", 1.7.2), the output of
// `containerd --version` ("containerd github.com/containerd/containerd
// v1.7.2 <commit>") is ("containerd", 1.7.2), "cri-o 1.28.1" is ("cri-o",
// 1.28.1), and a bare "1.28.1" is ("", 1.28.1). The release is the first
// field that parses as one.
func ParseRuntimeVersion(s string) (name string, r Release, err error) {
	fields := strings.Fields(s)
	for i, f := range fields {
		if rel, err := ParseRelease(f); err == nil {
			if i > 0 {
				name = fields[0]
			}
			return name, rel, nil
		}
	}
	return "", Release{}, wrap(ErrInvalidVersion, "runtime version "+quote(s)+" has no major.minor field")
}

// Requirement identifies one thing cgroup v2 (or a feature on it) needs
// from a host.
type Requirement int

const (
	// RequireCgroupV2: the host runs the unified layout.
	RequireCgroupV2 Requirement = iota
	// RequireKernel: Linux 5.8 or newer.
	RequireKernel
	// RequireRuntime: containerd 1.4+ or CRI-O 1.20+.
	RequireRuntime
	// RequireKubeletSystemd: the kubelet uses the systemd cgroup driver.
	RequireKubeletSystemd
	// RequireRuntimeSystemd: the runtime uses the systemd cgroup driver.
	RequireRuntimeSystemd
	// RequireMemoryQoSKernel: Linux 5.9 or newer when MemoryQoS is on (a
	// memory.high livelock, kubernetes#137719).
	RequireMemoryQoSKernel
)

// String returns the requirement's name, e.g. "Kernel".
func (r Requirement) String() string {
	return enum.Name(r, "Requirement", "CgroupV2", "Kernel", "Runtime", "KubeletSystemd", "RuntimeSystemd", "MemoryQoSKernel")
}

// Status is the outcome of one requirement check.
type Status int

const (
	// Met: the host satisfies the requirement.
	Met Status = iota
	// Unmet: the host does not.
	Unmet
	// Unknown: the host description does not say (an empty field, a
	// runtime the docs do not list).
	Unknown
)

// String returns "Met", "Unmet" or "Unknown".
func (s Status) String() string { return enum.Name(s, "Status", "Met", "Unmet", "Unknown") }

// MinKernelV2 returns the kernel the Kubernetes cgroup v2 docs require:
// 5.8.
func MinKernelV2() Release { return Release{5, 8, 0} }

// MinKernelMemoryQoS returns the kernel MemoryQoS requires: 5.9.
func MinKernelMemoryQoS() Release { return Release{5, 9, 0} }

// MinContainerd returns the containerd release the cgroup v2 docs
// require: 1.4.
func MinContainerd() Release { return Release{1, 4, 0} }

// MinCRIO returns the CRI-O release the cgroup v2 docs require: 1.20.
func MinCRIO() Release { return Release{1, 20, 0} }

// Host describes what CheckRequirements needs to know about a node. Empty
// strings are "not known".
type Host struct {
	// Version is the detected cgroup layout.
	Version Version
	// Kernel is the kernel release, as `uname -r` prints it.
	Kernel string
	// RuntimeName and RuntimeVersion are what the CRI Version call returns
	// ("containerd" and "v1.7.2", "cri-o" and "1.28.1"). RuntimeVersion
	// alone may also hold a whole line such as "containerd 1.7.2".
	RuntimeName, RuntimeVersion string
	// KubeletDriver and RuntimeDriver are the cgroup drivers in use.
	KubeletDriver, RuntimeDriver Driver
	// MemoryQoS is whether the MemoryQoS feature is to be used.
	MemoryQoS bool
}

// Check is the result of one requirement.
type Check struct {
	Requirement Requirement
	Status      Status
	// Message says what was found and what is needed.
	Message string
}

// Report lists every requirement checked, in Requirement order.
type Report struct {
	Checks []Check
}

// OK reports whether every requirement is Met.
func (r Report) OK() bool {
	for _, c := range r.Checks {
		if c.Status != Met {
			return false
		}
	}
	return true
}

// Err joins one error per check that is not Met (nil when OK), each
// wrapping ErrRequirement.
func (r Report) Err() error {
	var errs []error
	for _, c := range r.Checks {
		if c.Status != Met {
			errs = append(errs, wrap(ErrRequirement, c.Status.String()+" "+c.Requirement.String()+": "+c.Message))
		}
	}
	return errors.Join(errs...)
}

// CheckRequirements checks h against what the Kubernetes docs list for
// cgroup v2 (Linux 5.8+, containerd 1.4+ or CRI-O 1.20+, the systemd
// driver on both kubelet and runtime) and, when h.MemoryQoS, Linux 5.9+. It
// returns every check, so a caller can print the lot; Report.Err gives the
// failures as one error.
func CheckRequirements(h Host) Report {
	checks := make([]Check, 0, 6)
	add := func(req Requirement, st Status, msg string) {
		checks = append(checks, Check{Requirement: req, Status: st, Message: msg})
	}

	if h.Version.Unified() {
		add(RequireCgroupV2, Met, "the host runs cgroup v2")
	} else {
		add(RequireCgroupV2, Unmet, "the host runs cgroup "+h.Version.String()+"; enable the unified hierarchy (systemd.unified_cgroup_hierarchy=1) or use a distribution that defaults to it")
	}

	kernel, kerr := ParseRelease(h.Kernel)
	kernelCheck := func(req Requirement, want Release, why string) {
		switch {
		case h.Kernel == "":
			add(req, Unknown, "kernel release not given; "+why+" needs Linux "+want.String()+" or newer")
		case kerr != nil:
			add(req, Unknown, "kernel release "+quote(h.Kernel)+" cannot be parsed; "+why+" needs Linux "+want.String()+" or newer")
		case kernel.AtLeast(want):
			add(req, Met, "kernel "+h.Kernel+" is "+want.String()+" or newer")
		default:
			add(req, Unmet, "kernel "+h.Kernel+" is older than "+want.String()+", which "+why+" needs")
		}
	}
	kernelCheck(RequireKernel, MinKernelV2(), "cgroup v2")

	name, rel, rerr := ParseRuntimeVersion(h.RuntimeVersion)
	if h.RuntimeName != "" {
		name = h.RuntimeName
	}
	switch want, known := runtimeMinimum(name); {
	case h.RuntimeVersion == "":
		add(RequireRuntime, Unknown, "runtime version not given; cgroup v2 needs containerd 1.4+ or CRI-O 1.20+")
	case rerr != nil:
		add(RequireRuntime, Unknown, "runtime version "+quote(h.RuntimeVersion)+" cannot be parsed")
	case !known:
		add(RequireRuntime, Unknown, "runtime "+quote(name)+" is not one the cgroup v2 docs list (containerd 1.4+, CRI-O 1.20+)")
	case rel.AtLeast(want):
		add(RequireRuntime, Met, name+" "+rel.String()+" is "+want.String()+" or newer")
	default:
		add(RequireRuntime, Unmet, name+" "+rel.String()+" is older than "+want.String()+", the first with cgroup v2 support")
	}

	driverCheck := func(req Requirement, who string, d Driver) {
		switch d {
		case DriverSystemd:
			add(req, Met, who+" uses the systemd cgroup driver")
		case "":
			add(req, Unknown, who+" cgroup driver not given; cgroup v2 needs systemd")
		default:
			add(req, Unmet, who+" uses the "+quote(string(d))+" cgroup driver; cgroup v2 needs systemd")
		}
	}
	driverCheck(RequireKubeletSystemd, "the kubelet", h.KubeletDriver)
	driverCheck(RequireRuntimeSystemd, "the runtime", h.RuntimeDriver)

	if h.MemoryQoS {
		kernelCheck(RequireMemoryQoSKernel, MinKernelMemoryQoS(), "MemoryQoS (kubernetes#137719)")
	}
	return Report{Checks: checks}
}

func runtimeMinimum(name string) (Release, bool) {
	switch strings.ToLower(name) {
	case "containerd":
		return MinContainerd(), true
	case "cri-o", "crio":
		return MinCRIO(), true
	}
	return Release{}, false
}
