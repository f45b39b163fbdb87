package pressure

import (
	"strconv"
	"strings"

	"github.com/nodelife/nodelife/internal/quantity"
)

// String prints the reading on one line, each figure that is present:
// "{ws=1Gi procs=3 eph=2Gi containers=[app ws=512Mi rootfs=1Gi/10i
// logs=5Mi/-] volumes=[cache 1Gi/3i]}" (a filesystem's used bytes, then
// its inodes after the slash; "-" for a figure without a reading).
// Property-test failures print drawn readings this way.
func (s PodStats) String() string {
	var parts []string
	add := func(name string, v *uint64, bytes bool) {
		if v != nil {
			parts = append(parts, name+"="+uintText(*v, bytes))
		}
	}
	add("ws", s.WorkingSetBytes, true)
	add("procs", s.ProcessCount, false)
	add("eph", s.EphemeralStorageUsedBytes, true)
	if len(s.Containers) > 0 {
		cs := make([]string, len(s.Containers))
		for i, c := range s.Containers {
			cs[i] = c.Name
			if c.WorkingSetBytes != nil {
				cs[i] += " ws=" + uintText(*c.WorkingSetBytes, true)
			}
			if c.Rootfs != nil {
				cs[i] += " rootfs=" + fsText(*c.Rootfs)
			}
			if c.Logs != nil {
				cs[i] += " logs=" + fsText(*c.Logs)
			}
		}
		parts = append(parts, "containers=["+strings.Join(cs, ", ")+"]")
	}
	if len(s.Volumes) > 0 {
		vs := make([]string, len(s.Volumes))
		for i, v := range s.Volumes {
			vs[i] = v.Name + " " + fsText(v.FsUsage)
		}
		parts = append(parts, "volumes=["+strings.Join(vs, ", ")+"]")
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// fsText prints a filesystem reading as "1Gi/10i": used bytes, then
// inodes; "-" for a part without a reading.
func fsText(u FsUsage) string {
	used, inodes := "-", "-"
	if u.UsedBytes != nil {
		used = uintText(*u.UsedBytes, true)
	}
	if u.InodesUsed != nil {
		inodes = uintText(*u.InodesUsed, false) + "i"
	}
	return used + "/" + inodes
}

// uintText prints a reading, bytes as a quantity (values past int64 in
// digits).
func uintText(v uint64, bytes bool) string {
	if bytes && v <= 1<<62 {
		return quantity.Bytes(int64(v))
	}
	return strconv.FormatUint(v, 10)
}

// GoString is String, so that %#v (rapid's form for drawn values) prints
// a reading on one line, not as pointers.
func (s PodStats) GoString() string { return s.String() }
