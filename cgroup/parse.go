package cgroup

import (
	"strconv"
	"strings"

	"github.com/nodelife/nodelife/core"
)

// PSILine is one line of a pressure stall information file: the share of
// wall time in the last 10, 60 and 300 seconds (percent) during which some
// or all tasks stalled, and the total stall time in microseconds.
type PSILine struct {
	Avg10, Avg60, Avg300 float64
	Total                uint64
}

// PSI is the content of a cpu.pressure, memory.pressure or io.pressure file
// (or /proc/pressure/*). Some or Full is nil when its line is absent: irq
// has only a full line, and the system-wide cpu full line reads zero.
type PSI struct {
	Some, Full *PSILine
}

// ParsePSI parses a pressure file:
//
//	some avg10=0.00 avg60=0.12 avg300=0.05 total=12345
//	full avg10=0.00 avg60=0.00 avg300=0.00 total=6789
//
// Keys it does not know are ignored, as are lines other than "some" and
// "full"; a field without "=", a value that is not a number, a line kind
// given twice and a missing key are ErrMalformed. A missing file is a
// caller matter (kernel < 4.20, CONFIG_PSI off, cgroup.pressure=0): treat it
// as "no PSI".
func ParsePSI(data string) (PSI, error) {
	var out PSI
	for lineNo, line := range strings.Split(data, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		var dst **PSILine
		switch fields[0] {
		case "some":
			dst = &out.Some
		case "full":
			dst = &out.Full
		default:
			continue
		}
		if *dst != nil {
			return PSI{}, wrap(ErrMalformed, "PSI line "+strconv.Itoa(lineNo+1)+": second "+quote(fields[0])+" line")
		}
		var l PSILine
		seen := 0
		for _, f := range fields[1:] {
			key, val, ok := strings.Cut(f, "=")
			if !ok {
				return PSI{}, wrap(ErrMalformed, "PSI line "+strconv.Itoa(lineNo+1)+": field "+quote(f)+" has no \"=\"")
			}
			var err error
			switch key {
			case "avg10":
				l.Avg10, err = parsePercent(val)
				seen |= 1
			case "avg60":
				l.Avg60, err = parsePercent(val)
				seen |= 2
			case "avg300":
				l.Avg300, err = parsePercent(val)
				seen |= 4
			case "total":
				l.Total, err = strconv.ParseUint(val, 10, 64)
				seen |= 8
			}
			if err != nil {
				return PSI{}, wrap(ErrMalformed, "PSI line "+strconv.Itoa(lineNo+1)+": "+key+" value "+quote(val)+" is not a number")
			}
		}
		if seen != 15 {
			return PSI{}, wrap(ErrMalformed, "PSI line "+strconv.Itoa(lineNo+1)+": want avg10, avg60, avg300 and total")
		}
		*dst = &l
	}
	return out, nil
}

func parsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err == nil && !(v >= 0 && v <= 100) {
		return 0, strconv.ErrRange
	}
	return v, err
}

// ParseCPUMax parses cgroup v2 cpu.max, "$MAX $PERIOD" with "max" for no
// limit: "max 100000" is (NoQuota, 100000), "50000 100000" is (50000,
// 100000). A lone value takes the default period QuotaPeriod, as the kernel
// does when one is written. Period and quota must be positive integers.
func ParseCPUMax(data string) (quota, period int64, err error) {
	fields := strings.Fields(data)
	if len(fields) == 0 || len(fields) > 2 {
		return 0, 0, wrap(ErrMalformed, "cpu.max "+quote(data)+" is not \"$MAX $PERIOD\"")
	}
	period = QuotaPeriod
	if len(fields) == 2 {
		period, err = strconv.ParseInt(fields[1], 10, 64)
		if err != nil || period <= 0 {
			return 0, 0, wrap(ErrMalformed, "cpu.max period "+quote(fields[1])+" is not a positive integer")
		}
	}
	if fields[0] == "max" {
		return NoQuota, period, nil
	}
	quota, err = strconv.ParseInt(fields[0], 10, 64)
	if err != nil || quota <= 0 {
		return 0, 0, wrap(ErrMalformed, "cpu.max quota "+quote(fields[0])+" is neither \"max\" nor a positive integer")
	}
	return quota, period, nil
}

// FormatCPUMax is the inverse of ParseCPUMax: "max 100000" for NoQuota (or
// any negative quota).
func FormatCPUMax(quota, period int64) string {
	q := "max"
	if quota >= 0 {
		q = strconv.FormatInt(quota, 10)
	}
	return q + " " + strconv.FormatInt(period, 10)
}

// ParseMemoryValue parses a cgroup v2 memory file holding a byte count or
// "max" (memory.max, memory.high, memory.swap.max; memory.min and
// memory.low): "max" is -1. Trailing whitespace is ignored.
func ParseMemoryValue(data string) (int64, error) {
	s := strings.TrimSpace(data)
	if s == "max" {
		return -1, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, wrap(ErrMalformed, "memory value "+quote(data)+" is neither \"max\" nor a byte count")
	}
	return v, nil
}

// FormatMemoryValue is the inverse of ParseMemoryValue: "max" for a
// negative value.
func FormatMemoryValue(v int64) string {
	if v < 0 {
		return "max"
	}
	return strconv.FormatInt(v, 10)
}

// ParseCPUWeight parses cgroup v2 cpu.weight, an integer in 1..10000.
func ParseCPUWeight(data string) (uint64, error) {
	s := strings.TrimSpace(data)
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, wrap(ErrMalformed, "cpu.weight "+quote(data)+" is not an integer")
	}
	if v < MinWeight || v > MaxWeight {
		return 0, wrap(ErrOutOfRange, "cpu.weight "+s+" is outside 1..10000")
	}
	return v, nil
}

// ProcCgroup is one line of /proc/<pid>/cgroup: "ID:controllers:path".
// On cgroup v2 there is one line, "0::/path".
type ProcCgroup struct {
	// HierarchyID is 0 for the unified hierarchy.
	HierarchyID int
	// Controllers lists the v1 controllers of the hierarchy ("cpu",
	// "cpuacct", "name=systemd"); empty for v2.
	Controllers []string
	// Path is the cgroup path relative to the hierarchy's mount.
	Path string
}

// ParseProcCgroup parses the content of /proc/<pid>/cgroup. The path is
// everything after the second ":" (paths may contain ":"). A line without
// two ":" or with a hierarchy ID that is not a non-negative integer is
// ErrMalformed; blank lines are skipped.
func ParseProcCgroup(data string) ([]ProcCgroup, error) {
	var out []ProcCgroup
	for lineNo, line := range strings.Split(data, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		id, rest, ok1 := strings.Cut(line, ":")
		ctrls, path, ok2 := strings.Cut(rest, ":")
		if !ok1 || !ok2 {
			return nil, wrap(ErrMalformed, "/proc/self/cgroup line "+strconv.Itoa(lineNo+1)+" "+quote(line)+" is not \"ID:controllers:path\"")
		}
		n, err := strconv.Atoi(id)
		if err != nil || n < 0 {
			return nil, wrap(ErrMalformed, "/proc/self/cgroup line "+strconv.Itoa(lineNo+1)+": hierarchy ID "+quote(id)+" is not a non-negative integer")
		}
		e := ProcCgroup{HierarchyID: n, Path: path}
		if ctrls != "" {
			e.Controllers = strings.Split(ctrls, ",")
		}
		out = append(out, e)
	}
	return out, nil
}

// UnifiedPath returns the path of the unified (v2) hierarchy from parsed
// /proc/<pid>/cgroup lines: the line with ID 0 and no controllers.
func UnifiedPath(lines []ProcCgroup) (string, bool) {
	for _, l := range lines {
		if l.HierarchyID == 0 && len(l.Controllers) == 0 {
			return l.Path, true
		}
	}
	return "", false
}

// PodCgroup is what a cgroup path says about the pod and container it
// belongs to.
type PodCgroup struct {
	// Driver is the form the path is in.
	Driver Driver
	// QOSClass is the pod's class, from the QoS level of the path.
	QOSClass core.PodQOSClass
	// PodUID is the pod's UID, with "-" restored from the systemd form.
	PodUID string
	// ContainerID is the container's ID when the path goes below the pod,
	// with the runtime's scope prefix ("cri-containerd-", "crio-",
	// "docker-") and ".scope" suffix removed; empty otherwise.
	ContainerID string
}

// ParsePodCgroup reads the pod UID, QoS class and container ID out of a
// kubelet-managed cgroup path in either driver form, as agents that read
// /proc/self/cgroup need to (mapping "_" back to "-" in the systemd form,
// elastic/apm#165):
//
//	/kubepods/burstable/pod6c1a4e95-6bb6-11e6-bc26-28d2444e470d/0123abcd
//	/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice/cri-containerd-0123abcd.scope
//
// Anything before the "kubepods" component (a --cgroup-root prefix) is
// skipped. A path without a kubepods component or a pod component is
// ErrInvalidName.
func ParsePodCgroup(path string) (PodCgroup, error) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	out := PodCgroup{Driver: DriverCgroupfs, QOSClass: core.PodQOSGuaranteed}
	start := -1
	for i, p := range parts {
		if p == KubepodsComponent {
			start = i
			break
		}
		if strings.HasSuffix(p, sliceSuffix) && sliceLeaf(p) == KubepodsComponent {
			start, out.Driver = i, DriverSystemd
			break
		}
	}
	if start < 0 {
		return PodCgroup{}, wrap(ErrInvalidName, "path "+quote(path)+" has no kubepods component")
	}
	leaf := func(p string) string { return p }
	if out.Driver == DriverSystemd {
		leaf = sliceLeaf
	}
	rest := parts[start+1:]
	if len(rest) > 0 {
		switch leaf(rest[0]) {
		case BurstableComponent:
			out.QOSClass, rest = core.PodQOSBurstable, rest[1:]
		case BestEffortComponent:
			out.QOSClass, rest = core.PodQOSBestEffort, rest[1:]
		}
	}
	if len(rest) == 0 || !strings.HasPrefix(leaf(rest[0]), PodComponentPrefix) || len(leaf(rest[0])) == len(PodComponentPrefix) {
		return PodCgroup{}, wrap(ErrInvalidName, "path "+quote(path)+" has no pod component under kubepods")
	}
	out.PodUID = strings.TrimPrefix(leaf(rest[0]), PodComponentPrefix)
	if out.Driver == DriverSystemd {
		out.PodUID = UnescapeSystemd(out.PodUID)
	}
	if len(rest) > 1 {
		id := strings.TrimSuffix(rest[1], ".scope")
		for _, prefix := range [...]string{"cri-containerd-", "crio-", "docker-"} {
			if s, ok := strings.CutPrefix(id, prefix); ok {
				id = s
				break
			}
		}
		out.ContainerID = id
	}
	return out, nil
}

// sliceLeaf returns the component a systemd slice adds to its parent: the
// last "-"-separated part of the name without ".slice"
// ("kubepods-burstable.slice" -> "burstable"), still escaped.
func sliceLeaf(slice string) string {
	s := strings.TrimSuffix(slice, sliceSuffix)
	return s[strings.LastIndexByte(s, '-')+1:]
}

// ContainerScope returns the systemd scope a runtime puts a container in:
// "cri-containerd-<id>.scope" for containerd, "crio-<id>.scope" for
// CRI-O. With the cgroupfs driver the container's cgroup is just its ID
// under the pod's.
func ContainerScope(runtime, id string) (string, error) {
	switch strings.ToLower(runtime) {
	case "containerd":
		return "cri-containerd-" + id + ".scope", nil
	case "cri-o", "crio":
		return "crio-" + id + ".scope", nil
	}
	return "", wrap(ErrInvalidInput, "unknown runtime "+quote(runtime)+" (want containerd or cri-o)")
}
