package nodelifetest

import (
	"strconv"
	"strings"
	"time"

	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/internal/compact"
)

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
