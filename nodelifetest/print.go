package nodelifetest

import (
	"strconv"
	"strings"
	"time"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/internal/compact"
	"github.com/nodelife/nodelife/internal/quantity"
)

// String prints the pod on one line, every field that is set and nothing
// that is not: quantities as kubectl writes them, pointers as their
// values (a nil pointer is left out, a pointer to zero prints 0), e.g.
//
//	Pod{ns/web uid=u1 node=a-0 priority=1000 containers=[app req{cpu:500m memory:1Gi}] tolerations=[node.kubernetes.io/unreachable:NoExecute(Exists) for 300s] ready}
//
// Property-test failures print drawn pods this way (GoString is the
// same), so the fields a property is about can be read.
func (p Pod) String() string {
	var b strings.Builder
	b.WriteString("Pod{")
	b.WriteString(p.Key())
	field := func(name, v string) {
		if v != "" {
			b.WriteString(" " + name + "=" + v)
		}
	}
	flag := func(name string, on bool) {
		if on {
			b.WriteString(" " + name)
		}
	}
	field("uid", p.UID)
	field("owner", p.OwnerKind)
	field("node", p.NodeName)
	if p.Priority != nil {
		field("priority", strconv.FormatInt(int64(*p.Priority), 10))
	}
	field("class", p.PriorityClassName)
	flag("static", p.Static)
	flag("mirror", p.Mirror)
	field("init", containersText(p.InitContainers))
	field("containers", containersText(p.Containers))
	if len(p.Overhead) > 0 {
		b.WriteString(" overhead" + p.Overhead.String())
	}
	if p.Resources != nil {
		b.WriteString(" pod-resources" + resourcesText(*p.Resources))
	}
	if len(p.HostPorts) > 0 {
		ports := make([]string, len(p.HostPorts))
		for i, hp := range p.HostPorts {
			ports[i] = strconv.FormatInt(int64(hp.HostPort), 10)
			if hp.Protocol != "" {
				ports[i] += "/" + hp.Protocol
			}
			if hp.HostIP != "" {
				ports[i] += "@" + hp.HostIP
			}
		}
		field("host-ports", "["+strings.Join(ports, " ")+"]")
	}
	if len(p.Tolerations) > 0 {
		tols := make([]string, len(p.Tolerations))
		for i := range p.Tolerations {
			tols[i] = p.Tolerations[i].String()
		}
		field("tolerations", "["+strings.Join(tols, ", ")+"]")
	}
	if p.TerminationGracePeriodSeconds != nil {
		field("grace", strconv.FormatInt(*p.TerminationGracePeriodSeconds, 10)+"s")
	}
	flag("ready", p.Ready)
	flag("terminating", p.Terminating)
	if p.Stats != nil {
		b.WriteString(" stats" + statsText(p.Stats))
	}
	if len(p.LocalVolumes) > 0 {
		field("volumes", "["+strings.Join(p.LocalVolumes, " ")+"]")
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String, so that %#v (rapid's form for drawn values, and
// go-cmp's) prints the pod compactly too.
func (p Pod) GoString() string { return p.String() }

// containersText prints "[name req{...} lim{...} restart=Always, ...]",
// or "" for none.
func containersText(cs []core.Container) string {
	if len(cs) == 0 {
		return ""
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Name + resourcesText(c.Resources)
		if c.RestartPolicy != "" {
			parts[i] += " restart=" + c.RestartPolicy
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// resourcesText prints " req{...} lim{...}", each only when set.
func resourcesText(r core.ResourceRequirements) string {
	var s string
	if len(r.Requests) > 0 {
		s += " req" + r.Requests.String()
	}
	if len(r.Limits) > 0 {
		s += " lim" + r.Limits.String()
	}
	return s
}

// statsText prints a pod's readings: "{ws=1Gi procs=3 eph=2Gi
// containers=[app ws=512Mi rootfs=1Gi/10i logs=5Mi] volumes=[cache
// 1Gi/3i]}" (used bytes, then inodes after the slash).
func statsText(s *pressure.PodStats) string {
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
func fsText(u pressure.FsUsage) string {
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

// String prints the cluster as a short table: its start, the nodes by
// zone (with any taint or cordon a node starts with) and one pod a line.
func (c Cluster) String() string {
	var b strings.Builder
	b.WriteString("Cluster at " + c.Start.UTC().Format(time.RFC3339) + "\n")
	var zones []string
	byZone := map[string][]string{}
	for _, n := range c.Nodes {
		z := n.Labels[eviction.LabelTopologyZone]
		if _, ok := byZone[z]; !ok {
			zones = append(zones, z)
		}
		name := n.Name
		for _, t := range n.Taints {
			name += " [" + t.String() + "]"
		}
		if n.Unschedulable {
			name += " [cordoned]"
		}
		byZone[z] = append(byZone[z], name)
	}
	for _, z := range zones {
		b.WriteString("  zone " + strconv.Quote(z) + ": " + strings.Join(byZone[z], ", ") + "\n")
	}
	for _, p := range c.Pods {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}

// GoString is String, for %#v.
func (c Cluster) GoString() string { return c.String() }

// String prints the scenario: its cluster (Cluster.String), then each
// fault on a line, "Outage [a-0 a-1] +1m0s..+3m20s", and its length.
func (s Scenario) String() string {
	var b strings.Builder
	b.WriteString("Scenario of " + s.Duration.String() + ": ")
	b.WriteString(s.Cluster.String())
	if len(s.Faults) == 0 {
		b.WriteString("  no faults\n")
	}
	for _, f := range s.Faults {
		b.WriteString("  fault " + f.String() + "\n")
	}
	return b.String()
}

// GoString is String, for %#v.
func (s Scenario) GoString() string { return s.String() }

// String prints the drawn space on one line, the prefix as written.
func (c CIDRSpace) String() string { return compact.Sprint(c) }

// GoString is String, for %#v (Go's own spells out a netip.Prefix's
// internals).
func (c CIDRSpace) GoString() string { return c.String() }

// String prints the drawn world on one line: prefixes as written, routes
// and nodes with their set fields.
func (w RouteWorld) String() string { return compact.Sprint(w) }

// GoString is String, for %#v.
func (w RouteWorld) GoString() string { return w.String() }

// String prints the drawn pod and its runtime status on one line, times
// in RFC 3339 and pointers as their values.
func (s SyncPod) String() string { return compact.Sprint(s) }

// GoString is String, for %#v.
func (s SyncPod) GoString() string { return s.String() }

// String prints the drawn machine on one line, sizes in decimal.
func (m MemoryMachine) String() string { return compact.Sprint(m) }

// GoString is String, for %#v (Go's own prints the sizes in
// hexadecimal).
func (m MemoryMachine) GoString() string { return m.String() }
