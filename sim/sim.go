package sim

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/lease"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/readiness"
	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/taints"
)

// DefaultStart returns the virtual wall-clock time a run starts at when
// Config.Start is zero: 2026-03-01 12:00 UTC.
func DefaultStart() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

// Outage cuts nodes off from the API server: their heartbeats and status
// posts fail from From to To (times since the start).
type Outage struct {
	// Zone is the zone's name: "a", "b", ... in a synthetic cluster; in an
	// explicit one the printable zone "region/zone" or just its zone part.
	Zone string
	// Nodes is how many of the zone's nodes are cut off, counting from its
	// first; 0 means all of them.
	Nodes int
	// Names are further nodes to cut off by name (explicit clusters only).
	Names []string
	// From and To bound the outage; To 0 means it lasts to the end.
	From, To time.Duration
}

// LeaseCacheStall is a window in which the node lifecycle controller's
// lease cache receives nothing: its lease watch hangs without an error
// (and the informer never relists) while the API server keeps taking the
// kubelets' renewals, the case the lease circuit breaker of v1.37 is for
// (nodelifecycle.Config.LeaseCircuitBreaker). At To the cache catches up
// with every node's lease.
type LeaseCacheStall struct {
	// From and To bound the stall; To 0 means it lasts to the end.
	From, To time.Duration
}

// Config describes a simulated cluster. The zero value is a valid
// three-zone cluster of 150 nodes, simulated for 15 minutes with upstream
// defaults and no outage.
//
// With Cluster set, the cluster is that one instead of a synthetic one:
// Zones, NodesPerZone, Nodes, PodsPerNode and TolerationSeconds are
// ignored, pods keep their own tolerations, and the scenarios Shutdowns,
// Pressures and CloudDeletions, which need real pods, become available.
type Config struct {
	// Cluster, when set, is the explicit cluster to simulate.
	Cluster *Cluster
	// Shutdowns, Pressures and CloudDeletions are the scenarios beyond
	// connectivity loss (explicit clusters only).
	Shutdowns      []Shutdown
	Pressures      []Pressure
	CloudDeletions []CloudDeletion
	// Zones is the number of zones, named "a", "b", ... (1 to 26; 0 means 3).
	Zones int
	// NodesPerZone is the number of nodes in each zone (0 means 50).
	NodesPerZone int
	// Nodes, when positive, is the number of nodes in all instead: they
	// are spread over the zones, the first Nodes % Zones zones getting one
	// more.
	Nodes int
	// PodsPerNode is the number of pods on each node (0 means 2; negative
	// means none).
	PodsPerNode int
	// Duration is the simulated time (0 means 15 minutes; at most 24h).
	Duration time.Duration
	// Start is the virtual wall-clock time of the start (zero means
	// DefaultStart).
	Start time.Time
	// Seed seeds every random choice: kubelet start offsets within the
	// first renew interval and the heartbeats' jitter. 0 means none at all:
	// every kubelet starts at once and renews exactly every 10s.
	Seed int64
	// Outages are the connectivity losses to simulate.
	Outages []Outage
	// LeaseCacheStalls are windows in which the controller's lease cache
	// stalls (see LeaseCacheStall). The controller answers the lease
	// circuit breaker from the simulated API server's leases and its
	// cache's resource version; each renewal is a write with the next
	// resource version.
	LeaseCacheStalls []LeaseCacheStall
	// ReadinessRules are node readiness rules (package readiness) a
	// simulated Node Readiness Controller enforces beside the node
	// lifecycle controller: every node starts reporting the rules' own
	// condition types at the status they require, each node event
	// (a condition, label or taint change) runs the rules on the node, and
	// their taints go on the nodes, where NoExecute ones evict through the
	// taint eviction controller like any other. ReadinessOptions picks
	// upstream's bug fixes.
	ReadinessRules   []readiness.Rule
	ReadinessOptions readiness.Options
	// ConditionEpisodes change node conditions for a while: what the
	// readiness rules react to.
	ConditionEpisodes []ConditionEpisode
	// Controller configures the node lifecycle and taint eviction
	// controllers: kube-controller-manager's flags and nodelife's options
	// (nil means nodelifecycle.DefaultConfig).
	Controller *nodelifecycle.Config
	// Release is the Kubernetes release every simulated component runs as
	// (0 means release.Current, v1.37), from nodelife.ProfileFor(Release):
	// the controllers' configuration when Controller is nil
	// (Profile.NodeLifecycle), the kubelets' node-pressure eviction for a
	// Pressure without its own Eviction (Profile.Pressure: from v1.37 the
	// node's huge pages are taken off memory.available), their admission
	// under Placement (Profile.Admission) and the requests a replacement is
	// scored by (Profile.QOS). Releases before release.Oldest or after
	// release.Current are refused.
	Release release.Version
	// TolerationSeconds is how long pods tolerate the not-ready and
	// unreachable NoExecute taints (0 means 300, the DefaultTolerationSeconds
	// admission plugin's default; negative means forever).
	TolerationSeconds int64
	// NotReadyTolerationSeconds and UnreachableTolerationSeconds are
	// kube-apiserver's --default-not-ready-toleration-seconds and
	// --default-unreachable-toleration-seconds (nil means 300): a pod of an
	// explicit cluster that no toleration covers for the key gets one, as
	// the DefaultTolerationSeconds admission plugin gives it when the pod
	// is created (pods read from a cluster have theirs already).
	NotReadyTolerationSeconds, UnreachableTolerationSeconds *int64
	// Placement places each replacement pod of an explicit cluster on a
	// node whose kubelet would admit it, as kube-scheduler would, roughly
	// (see placement.go's comment and the package doc); one that fits
	// nowhere waits, and its workload counts it lost for want of room.
	// Off, replacements are assumed to find room at once.
	Placement bool
	// NodeLeaseDurationSeconds is the kubelets' nodeLeaseDurationSeconds
	// (0 means 40); they renew their lease every quarter of it, as the
	// kubelet does (nodeLeaseRenewIntervalFraction, not configurable).
	NodeLeaseDurationSeconds int32
	// SampleEvery is the timeline's resolution (0 means 10s).
	SampleEvery time.Duration
	// Progress, when set, is called about once per simulated minute with
	// the simulated time done and the total.
	Progress func(done, total time.Duration)
}

// Event is something the simulated controllers did.
type Event struct {
	// At is the time since the start.
	At time.Duration
	// Kind is one of "outage", "reconnect", "unknown", "ready", "noschedule",
	// "zone", "taint", "untaint", "evict", "cancel"; explicit clusters add
	// "shutdown", "notready", "kill", "poweroff", "pressure", "condition",
	// "pressure-evict", "pressure-end", "instance-deleted", "nodedelete",
	// "forcedelete" and "gone"; a lease cache stall adds "lease-cache" and
	// the lease circuit breaker's "hold".
	Kind string
	// Zone is the zone's name ("" for an event about nodes of several
	// zones).
	Zone string
	// Object is the node, pod or zone the event is about.
	Object string
	// Reason is the machine-readable reason nodelife returned.
	Reason string
	// Message is a sentence for people.
	Message string
}

// ZoneSample is one zone at one point of the timeline.
type ZoneSample struct {
	// Zone is the zone's name.
	Zone string
	// Ready, NotReady and Unknown count nodes by the API server's Ready
	// status (no condition counts as Unknown).
	Ready, NotReady, Unknown int
	// Tainted counts nodes with a not-ready or unreachable NoExecute taint.
	Tainted int
	// Evicted counts the zone's pods evicted so far.
	Evicted int
	// State is the zone's disruption state after the last monitor pass.
	State eviction.ZoneState
}

// Sample is the cluster at one point of the timeline.
type Sample struct {
	At    time.Duration
	Zones []ZoneSample
}

// Totals sum a run up.
type Totals struct {
	Nodes, Pods                 int
	Evicted, Tainted, Cancelled int
	Heartbeats, MonitorPasses   int
	TaintPasses, QueueEvents    int
	// Killed (graceful shutdown), PressureEvicted (node-pressure
	// eviction), ForceDeleted (pod GC), NodesDeleted (cloud node
	// lifecycle) and Skipped (pods of an explicit cluster not simulated:
	// unscheduled or finished) are about the scenarios of explicit
	// clusters.
	Killed          int `json:",omitempty"`
	PressureEvicted int `json:",omitempty"`
	ForceDeleted    int `json:",omitempty"`
	NodesDeleted    int `json:",omitempty"`
	Skipped         int `json:",omitempty"`
	// Unscheduled (no spec.nodeName), Finished (Succeeded or Failed) and
	// Orphaned (bound to a node the cluster does not have) split Skipped
	// by reason.
	Unscheduled int `json:",omitempty"`
	Finished    int `json:",omitempty"`
	Orphaned    int `json:",omitempty"`
	// Refused is Cluster.Refused: objects of the source left out as
	// invalid, not among Nodes, Pods or Skipped.
	Refused int `json:",omitempty"`
}

// Orphan is a pod of an explicit cluster bound to a node the cluster does
// not have (for a while after a node is deleted, its pods still name it):
// it is not simulated.
type Orphan struct {
	// Pod is "namespace/name"; Node is its spec.nodeName.
	Pod, Node string
}

// Result is a finished run.
type Result struct {
	// Zones are the zone names, in order.
	Zones []string
	// Duration is the simulated time.
	Duration time.Duration
	// ZoneNodes and ZonePods are the number of nodes and pods of each zone
	// at the start, in zone order.
	ZoneNodes, ZonePods []int
	// Events are in the order they happened.
	Events []Event
	// Timeline samples the cluster every Config.SampleEvery, from 0 to
	// Duration.
	Timeline []Sample
	// Totals sum the run up.
	Totals Totals
	// Pods are the pods of an explicit cluster that the scenarios touched,
	// in namespace/name order, with their fate.
	Pods []Outcome `json:",omitempty"`
	// Workloads are the workloads of an explicit cluster with pods the
	// scenarios touched, by name, with their lost replicas over time.
	Workloads []Workload `json:",omitempty"`
	// Orphans are the pods of an explicit cluster bound to a node it does
	// not have, not simulated, in namespace/name order.
	Orphans []Orphan `json:",omitempty"`
	// Settings are the cluster settings the run used, under the names
	// of the upstream flags and fields that set them.
	Settings []Setting
	// Windows are the scenarios' time windows, in the order of the
	// configuration: outages, shutdowns, pressure, cloud deletions.
	Windows []Window `json:",omitempty"`
}

// Window is when a scenario acts and on which zones.
type Window struct {
	// Kind is "outage", "shutdown", "pressure" or "cloud-delete".
	Kind string
	// Label names the scenario and its nodes ("outage eu-1b", "shutdown
	// w-1a2").
	Label string
	// From and To bound it; a shutdown lasts to the end, a cloud deletion
	// is an instant (From == To).
	From, To time.Duration
	// Zones are the zones of its nodes, by name.
	Zones []string
}

// windows lists the scenarios' windows.
func (r *run) windows() []Window {
	var out []Window
	add := func(kind string, zone string, count int, names []string, from, to time.Duration) {
		to = min(to, r.cfg.Duration)
		w := Window{Kind: kind, From: from, To: to}
		for _, i := range r.selectNodes(zone, count, names) {
			if z := r.zones[r.nodes[i].zi]; !slices.Contains(w.Zones, z) {
				w.Zones = append(w.Zones, z)
			}
		}
		slices.Sort(w.Zones)
		// the selector as given: "eu-1b", "eu-1b (2 nodes)", "w-1a1+w-1b2"
		var what []string
		if zone != "" && count > 0 {
			what = append(what, fmt.Sprintf("%s (%d nodes)", zone, count))
		} else if zone != "" {
			what = append(what, zone)
		}
		w.Label = kind + " " + strings.Join(append(what, names...), "+")
		out = append(out, w)
	}
	for _, o := range r.cfg.Outages {
		to := o.To
		if to == 0 { // to the end
			to = r.cfg.Duration
		}
		add("outage", o.Zone, o.Nodes, o.Names, o.From, to)
	}
	for _, s := range r.cfg.Shutdowns {
		add("shutdown", s.Zone, s.Nodes, s.Names, s.At, r.cfg.Duration)
	}
	for _, p := range r.cfg.Pressures {
		add("pressure", "", 0, []string{p.Node}, p.From, p.To)
	}
	for _, d := range r.cfg.CloudDeletions {
		add("cloud-delete", d.Zone, d.Nodes, d.Names, d.At, d.At)
	}
	return out
}

// Setting is one cluster setting a run used.
type Setting struct {
	// Component is kube-controller-manager, kubelet or kube-apiserver.
	Component string
	// Name is the flag (--node-monitor-grace-period) or the configuration
	// field (nodeLeaseDurationSeconds); the kubelet's renewInterval is not
	// a setting of its own but a quarter of nodeLeaseDurationSeconds, shown
	// for the reader.
	Name string
	// Value is the value as the flag would take it ("50s", "0.1").
	Value string
}

// settings lists the values c runs with.
func (c Config) settings() []Setting {
	lc := c.Controller
	kcm := func(name, v string) Setting { return Setting{"kube-controller-manager", name, v} }
	renew := time.Duration(float64(time.Duration(c.NodeLeaseDurationSeconds)*time.Second) * lease.DefaultRenewIntervalFraction)
	out := []Setting{
		kcm("--node-monitor-period", lc.NodeMonitorPeriod.String()),
		kcm("--node-monitor-grace-period", lc.NodeMonitorGracePeriod.String()),
		kcm("--node-startup-grace-period", lc.NodeStartupGracePeriod.String()),
		kcm("--node-eviction-rate", strconv.FormatFloat(lc.NodeEvictionRate, 'g', -1, 64)),
		kcm("--secondary-node-eviction-rate", strconv.FormatFloat(lc.SecondaryNodeEvictionRate, 'g', -1, 64)),
		kcm("--unhealthy-zone-threshold", strconv.FormatFloat(float64(lc.UnhealthyZoneThreshold), 'g', -1, 32)),
		kcm("--large-cluster-size-threshold", strconv.Itoa(lc.LargeClusterSizeThreshold)),
	}
	if g := gatesBeyond136(lc); g != "" {
		// After the controller's flags: the gates that differ from v1.36.
		out = append(out, kcm("--feature-gates", g))
	}
	out = append(out,
		Setting{"kubelet", "nodeLeaseDurationSeconds", strconv.Itoa(int(c.NodeLeaseDurationSeconds))},
		Setting{"kubelet", "renewInterval", renew.String()})
	if len(c.Pressures) > 0 && c.Release.AtLeast(release.V1_37) {
		// The kubelet's gate that changes a pressure episode, on since v1.37.
		out = append(out, Setting{"kubelet", "--feature-gates", "HugepageAwareEviction=true"})
	}
	return append(out,
		Setting{"kube-apiserver", "--default-not-ready-toleration-seconds", strconv.FormatInt(*c.NotReadyTolerationSeconds, 10)},
		Setting{"kube-apiserver", "--default-unreachable-toleration-seconds", strconv.FormatInt(*c.UnreachableTolerationSeconds, 10)})
}

// gatesBeyond136 lists, as --feature-gates takes them, the controller's
// feature gates whose value differs from v1.36's defaults ("" when none
// does): NodeControllerLeaseCircuitBreaker, on since v1.37.
func gatesBeyond136(lc *nodelifecycle.Config) string {
	if lc.LeaseCircuitBreaker {
		return "NodeControllerLeaseCircuitBreaker=true"
	}
	return ""
}

// ErrInvalidConfig is wrapped by every configuration error.
var ErrInvalidConfig = errors.New("sim: invalid config")

// withDefaults fills in the zero fields.
func (c Config) withDefaults() Config {
	if c.Zones == 0 {
		c.Zones = 3
	}
	if c.NodesPerZone == 0 {
		c.NodesPerZone = 50
	}
	if c.PodsPerNode == 0 {
		c.PodsPerNode = 2
	} else if c.PodsPerNode < 0 {
		c.PodsPerNode = 0
	}
	if c.Duration == 0 {
		c.Duration = 15 * time.Minute
	}
	if c.Start.IsZero() {
		c.Start = DefaultStart()
	}
	if c.Release == 0 {
		c.Release = release.Current
	}
	if c.Controller == nil {
		lc := nodelife.ProfileFor(c.Release).NodeLifecycle
		c.Controller = &lc
	}
	if c.TolerationSeconds == 0 {
		c.TolerationSeconds = taints.DefaultTolerationSeconds
	}
	if c.NotReadyTolerationSeconds == nil {
		v := taints.DefaultTolerationSeconds
		c.NotReadyTolerationSeconds = &v
	}
	if c.UnreachableTolerationSeconds == nil {
		v := taints.DefaultTolerationSeconds
		c.UnreachableTolerationSeconds = &v
	}
	if c.NodeLeaseDurationSeconds == 0 {
		c.NodeLeaseDurationSeconds = lease.DefaultNodeLeaseDurationSeconds
	}
	if c.SampleEvery == 0 {
		c.SampleEvery = 10 * time.Second
	}
	return c
}

// zoneSize is the number of nodes of zone z.
func (c Config) zoneSize(z int) int {
	if c.Nodes <= 0 {
		return c.NodesPerZone
	}
	n := c.Nodes / c.Zones
	if z < c.Nodes%c.Zones {
		n++
	}
	return n
}

// MaxNodes bounds the cluster size a run accepts.
const MaxNodes = 1_000_000

// Validate returns every problem of the configuration, joined, each naming
// the field and its value.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...))
	}
	if c.Cluster != nil {
		c.validateCluster(bad)
	} else {
		c.validateSynthetic(bad)
	}
	if c.Duration < 0 || c.Duration > 24*time.Hour {
		bad("Duration %v is not in (0, 24h]", c.Duration)
	}
	if c.Release != c.Release.Clamp() {
		bad("Release %v is not one of %v to %v", c.Release, release.Oldest, release.Current)
	}
	if c.SampleEvery < 0 || (c.SampleEvery > 0 && c.SampleEvery < time.Second) {
		bad("SampleEvery %v is below 1s", c.SampleEvery)
	}
	if c.NodeLeaseDurationSeconds < 0 {
		bad("NodeLeaseDurationSeconds %d is negative", c.NodeLeaseDurationSeconds)
	}
	for i, w := range c.LeaseCacheStalls {
		if w.From < 0 {
			bad("LeaseCacheStalls[%d].From %v is negative", i, w.From)
		}
		if w.To != 0 && w.To <= w.From {
			bad("LeaseCacheStalls[%d].To %v is not after From %v", i, w.To, w.From)
		}
	}
	for i, rule := range c.ReadinessRules {
		if err := rule.Validate(); err != nil {
			bad("ReadinessRules[%d] (%s): %v", i, rule.Name, err)
		}
	}
	for i, ep := range c.ConditionEpisodes {
		if ep.Type == "" || !ep.Status.Valid() {
			bad("ConditionEpisodes[%d]: condition %q status %q", i, ep.Type, ep.Status)
		}
		if ep.From < 0 || (ep.To != 0 && ep.To <= ep.From) {
			bad("ConditionEpisodes[%d]: From %v, To %v", i, ep.From, ep.To)
		}
	}
	for i, o := range c.Outages {
		if o.From < 0 {
			bad("Outages[%d].From %v is negative", i, o.From)
		}
		if o.To != 0 && o.To <= o.From {
			bad("Outages[%d].To %v is not after From %v", i, o.To, o.From)
		}
	}
	if err := c.Controller.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("%w: Controller: %w", ErrInvalidConfig, err))
	}
	return errors.Join(errs...)
}

// validateSynthetic checks the fields of a synthetic cluster.
func (c Config) validateSynthetic(bad func(string, ...any)) {
	if len(c.Shutdowns) > 0 || len(c.Pressures) > 0 || len(c.CloudDeletions) > 0 {
		bad("Shutdowns, Pressures and CloudDeletions need an explicit Cluster")
	}
	if c.Zones < 1 || c.Zones > 26 {
		bad("Zones %d is not in [1, 26]", c.Zones)
	}
	switch {
	case c.Nodes < 0:
		bad("Nodes %d is negative", c.Nodes)
	case c.Nodes > MaxNodes:
		bad("Nodes %d is above %d", c.Nodes, MaxNodes)
	case c.Nodes > 0 && c.Nodes < c.Zones:
		bad("Nodes %d is fewer than the %d zones", c.Nodes, c.Zones)
	case c.Nodes > 0:
	case c.NodesPerZone < 1:
		bad("NodesPerZone %d is not positive", c.NodesPerZone)
	case c.Zones >= 1 && c.Zones <= 26 && c.NodesPerZone > MaxNodes/c.Zones:
		bad("Zones x NodesPerZone = %d x %d is above %d nodes", c.Zones, c.NodesPerZone, MaxNodes)
	}
	if c.PodsPerNode > 1000 {
		bad("PodsPerNode %d is above 1000", c.PodsPerNode)
	}
	for i, o := range c.Outages {
		if len(o.Zone) != 1 || o.Zone[0] < 'a' || int(o.Zone[0]-'a') >= c.Zones {
			bad("Outages[%d].Zone %q is not one of the %d zones", i, o.Zone, c.Zones)
		}
		if len(o.Zone) == 1 {
			if z := int(o.Zone[0]) - 'a'; z >= 0 && z < c.Zones && (o.Nodes < 0 || o.Nodes > c.zoneSize(z)) {
				bad("Outages[%d].Nodes %d is not in [0, %d]", i, o.Nodes, c.zoneSize(z))
			}
		}
		if len(o.Names) > 0 {
			bad("Outages[%d].Names needs an explicit Cluster", i)
		}
	}
}

type node struct {
	name, zone string // zone is the zone key
	pressured  bool   // its kubelet reported MemoryPressure at some point of a pressure episode
	zi         int
	created    time.Time
	hb         *lease.Heartbeat
	lease      lease.Lease // the node's Lease as last written (hasLease)
	hasLease   bool
	leaseRV    uint64 // the resource version of that write
	rvs        string // leaseRV formatted (rv), "" before
	rvsOf      uint64 // the leaseRV rvs is of
	quiet      bool   // renews through run.renew (renewals.go) from quietFrom
	quietFrom  time.Time
	bulk       bool // it renews through run.renew now
	// lazy is set when its renewals are made as the controller reads them
	// (renewals.go): lzLast is the last one made, lzNext the next one's
	// time (Unix nanoseconds), lzFrom its last renewal written before,
	// lzCount how many were made.
	lazy                   bool
	lzFrom, lzLast, lzNext int64
	lzCount                int
	retryAlone             bool                   // cut off to the end, it retries alone (retryUntilEnd)
	ref                    nodelifecycle.LeaseRef // for deliverLease, when hasRef
	hasRef                 bool
	rand                   func() float64         // its heartbeat's jitter draws (nil: none)
	conds                  []conditions.Condition // set through setConds
	ready                  conditions.Status      // the Ready status in conds ("" none)
	taints                 []taints.Taint
	labels                 map[string]string
	pods                   []int
	cut                    [][2]time.Time // outage windows (zero end: none)

	off          bool              // powered off: the kubelet is silent for good
	shutting     bool              // graceful shutdown under way: posts Ready=False
	instanceGone bool              // deleted from the cloud
	deleted      bool              // the Node object is deleted
	annotations  map[string]string // metadata.annotations: an explicit cluster's (a NodePolicy reads them), readiness completions
	noExecute    []taints.Taint    // the NoExecute taints it carried at some point
}

// packNames returns names with their bytes side by side in one string, in
// order. The nodes are visited in name order at every monitor pass (the
// lease circuit breaker asks for the timed-out ones by name): names
// scattered over a heap of gigabytes cost a cache miss each, names packed
// in that order are read as a stream.
func packNames(names []string) []string {
	var b strings.Builder
	n := 0
	for _, s := range names {
		n += len(s)
	}
	b.Grow(n)
	for _, s := range names {
		b.WriteString(s)
	}
	all, out := b.String(), make([]string, len(names))
	at := 0
	for i, s := range names {
		out[i] = all[at : at+len(s)]
		at += len(s)
	}
	return out
}

// sawNoExecute records a NoExecute taint the node carries.
func (n *node) sawNoExecute(t taints.Taint) {
	for _, s := range n.noExecute {
		if s.Key == t.Key && s.Value == t.Value {
			return
		}
	}
	n.noExecute = append(n.noExecute, t)
}

// pod is a simulated pod; the times are since the start, -1 for never.
type pod struct {
	node int
	p    core.PodRef
	tols []taints.Toleration // its tolerations, admission's defaults included

	// Explicit clusters only.
	src                 int   // index in run.srcPods
	mem                 int64 // its memory request in bytes (memoryRequest)
	wl                  int   // index in run.wls, -1 for none
	replace             replacement
	stoppedAt           time.Duration // killed, evicted or deleted
	gone, replaced      time.Duration
	wanted              time.Duration // when the replacement was created (Placement)
	placedOn            int           // the node of the placed replacement, -1 none
	terminating, failed bool
	affected, wasLost   bool
	wasPending          bool          // lost at the last sample with its replacement waiting
	scheduledAt         time.Duration // the last eviction deadline planned, 0 none
	scheduledFrom       time.Duration // when that eviction was planned
	notReady            bool          // marked NotReady by the controller
	cancelledAt         time.Duration // when it was cancelled, 0 none
	lost                time.Duration // up to sample lostSince, while wasLost
	sampled             uint32        // the last run.sampleSeq that looked at it
	lostSince           uint32
	// notes are its outcome's texts, for the pods a scenario touches only
	// (nil until one is set: most of a million pods never get any).
	notes *podNotes
}

// podNotes are the texts of a pod's outcome: its fate, the rule and detail
// of it, why its eviction was cancelled, why its replacement waits.
type podNotes struct {
	fate, rule, detail, cancelReason, pending string
}

// note returns the pod's notes, for setting one.
func (p *pod) note() *podNotes {
	if p.notes == nil {
		p.notes = &podNotes{}
	}
	return p.notes
}

// notesOr returns the pod's notes, empty when it has none.
func (p *pod) notesOr() podNotes {
	if p.notes == nil {
		return podNotes{}
	}
	return *p.notes
}

type run struct {
	cfg    Config
	prof   nodelife.Profile // cfg.Release's settings for the simulated kubelets
	end    time.Time
	q      queue
	seq    uint64
	curSeq uint64 // the sequence number of the event being handled
	// lastAsked is the node LiveLease answered last; nameHash holds each
	// node's name hashed with hashSeed, which LiveLease compares before
	// the names (a node's name is a cache miss away, its hash beside its
	// neighbours').
	lastAsked int
	nameHash  []uint64
	hashSeed  maphash.Seed
	renew     renewals
	// quietRenewals counts the renewals made in bulk (renewals.go), and
	// retriedAlone the rounds of kubelets cut off to the end run at once.
	quietRenewals, retriedAlone int
	// lazy is set when quiet nodes renew lazily (renewals.go), no more
	// than maxGap apart.
	lazy   bool
	maxGap time.Duration
	// stale is set when a node's Ready, taints or existence changed since
	// the last sample.
	stale      bool
	hbCfg      lease.HeartbeatConfig // every kubelet's, but for its name and Rand
	every      time.Duration         // hbCfg.RenewInterval()
	jitter     []uint64              // per node, its jitter state (draw)
	nodes      []node
	pods       []pod
	index      map[string]int
	uids       map[string]int // a pod's index by the UID the run gave it (uidFor)
	zones      []string       // names
	zoneKeys   []string
	rnd        *rand.Rand
	explicit   bool
	srcPods    []core.Pod  // explicit: the cluster's pods, sorted
	srcNodes   []core.Node // explicit: the cluster's nodes, sorted
	pl         *placement
	wls        []Workload
	wlIndex    map[string]int
	serving    []bool // per node, at the last sample
	wasServing []bool // per node, at the sample before it
	// stoppedPods are the pods stopped so far, dirtyPods those replaced
	// or whose replacement was wanted since the last sample (markChanged);
	// wlLostNow and wlRoomNow count each workload's pods lost at the last
	// sample, and those of them whose replacement waited; sampleSeq
	// numbers the samples (pod.sampled).
	stoppedPods, dirtyPods []int32
	wlLostNow, wlRoomNow   []int
	sampleSeq              uint32
	actions                []func(time.Time)
	podGC                  *gc.PodGC
	gcPods                 []core.Pod
	gcNodes                []core.Node
	gcConds                []conditions.Condition
	ctl                    *nodelifecycle.Controller
	ctlSeq                 uint64 // the sequence number of the queued controller step
	// leaseRV is the API server's last lease resource version; cacheRV the
	// last one the controller's lease cache received; stalled says the
	// cache receives nothing (a LeaseCacheStall).
	leaseRV, cacheRV uint64
	stalled          bool
	ctlStarted       bool
	readiness        *readinessState // nil without readiness rules
	zoneIdx          map[string]int  // zone index by eviction.ZoneName of its key
	states           []eviction.ZoneState
	evicted          []int
	res              Result
	err              error
}

// Run simulates cfg and returns what happened.
func Run(cfg Config) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	cfg = cfg.withDefaults()
	r := &run{cfg: cfg, prof: nodelife.ProfileFor(cfg.Release), end: cfg.Start.Add(cfg.Duration), index: map[string]int{}, uids: map[string]int{}, wlIndex: map[string]int{}, hashSeed: maphash.MakeSeed()}
	var err error
	if r.ctl, err = nodelifecycle.New(*cfg.Controller); err != nil {
		return Result{}, err
	}
	r.ctl.SetLiveLeases(r)
	if cfg.Seed != 0 {
		r.rnd = rand.New(rand.NewSource(cfg.Seed))
	}
	r.res = Result{Duration: cfg.Duration}
	if cfg.Cluster != nil {
		r.explicit = true
		r.buildCluster()
		for i, o := range cfg.Outages {
			for _, n := range r.selectNodes(o.Zone, o.Nodes, o.Names) {
				r.addCut(n, o)
			}
			r.outageEvents(i, o)
		}
	} else {
		r.buildSynthetic()
	}
	if r.err != nil {
		return Result{}, r.err
	}
	r.res.Zones = r.zones
	r.res.Windows = r.windows()
	r.states = make([]eviction.ZoneState, len(r.zones))
	r.evicted = make([]int, len(r.zones))
	if r.explicit {
		r.scheduleScenarios()
	}
	r.zoneIdx = make(map[string]int, len(r.zoneKeys))
	for z, key := range r.zoneKeys {
		r.zoneIdx[eviction.ZoneName(key)] = z
	}
	for i := range r.nodes {
		r.syncNode(i)
	}
	for pi := range r.pods {
		r.syncPod(pi)
	}
	r.push(cfg.Start, evController, 0)
	r.ctlSeq = r.seq
	r.push(cfg.Start, evSample, 0)
	r.res.Totals.Nodes, r.res.Totals.Pods = len(r.nodes), len(r.pods)
	r.res.Settings = r.cfg.settings()
	r.wlLostNow = make([]int, len(r.wls))
	r.wlRoomNow = make([]int, len(r.wls))
	if r.explicit && r.cfg.Placement {
		r.initPlacement()
	}
	r.initReadiness()
	r.markQuiet()
	r.loop()
	r.res.Totals.MonitorPasses, r.res.Totals.TaintPasses = r.ctl.Passes(), r.ctl.TaintPasses()
	if afterRun != nil {
		afterRun(r)
	}
	if r.err != nil {
		return Result{}, r.err
	}
	if r.explicit {
		r.outcomes()
	}
	return r.res, nil
}

// buildSynthetic sets up the nodes and pods of a synthetic cluster.
func (r *run) buildSynthetic() {
	cfg := r.cfg
	width := len(strconv.Itoa(cfg.zoneSize(0) - 1))
	if width < 2 {
		width = 2
	}
	var tols []taints.Toleration
	if cfg.TolerationSeconds > 0 {
		tols = taints.WithDefaultTolerationSeconds(nil, cfg.TolerationSeconds, cfg.TolerationSeconds)
	} else {
		for _, key := range []string{taints.TaintNodeNotReady, taints.TaintNodeUnreachable} {
			tols = append(tols, taints.Toleration{Key: key, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute})
		}
	}
	for z := 0; z < cfg.Zones; z++ {
		name := string(rune('a' + z))
		r.zones = append(r.zones, name)
		r.zoneKeys = append(r.zoneKeys, eviction.ZoneKey(map[string]string{eviction.LabelTopologyRegion: "sim", eviction.LabelTopologyZone: name}))
	}
	zoneLabels := make([]map[string]string, len(r.zones))
	for z, name := range r.zones {
		zoneLabels[z] = map[string]string{eviction.LabelTopologyRegion: "sim", eviction.LabelTopologyZone: name}
	}
	var names []string
	for z := range r.zones {
		for i := range cfg.zoneSize(z) {
			names = append(names, fmt.Sprintf("%s-%0*d", r.zones[z], width, i))
		}
	}
	names = packNames(names)
	if cfg.PodsPerNode > 0 {
		r.pods = make([]pod, 0, len(names)*cfg.PodsPerNode)
	}
	r.nodes = make([]node, 0, len(names))
	next := 0
	for z := range r.zones {
		size := cfg.zoneSize(z)
		r.res.ZoneNodes = append(r.res.ZoneNodes, size)
		r.res.ZonePods = append(r.res.ZonePods, size*cfg.PodsPerNode)
		for i := 0; i < size; i++ {
			n := node{name: names[next], zone: r.zoneKeys[z], zi: z, created: cfg.Start, labels: zoneLabels[z]}
			idx := len(r.nodes)
			for k := 0; k < cfg.PodsPerNode; k++ {
				pi := len(r.pods)
				r.pods = append(r.pods, pod{node: idx, stoppedAt: -1, p: core.PodRef{Namespace: "shop", Name: fmt.Sprintf("%s-%d", n.name, k), UID: r.uidFor("", pi)}, tols: tols})
				n.pods = append(n.pods, pi)
			}
			for _, o := range cfg.Outages {
				if o.Zone == r.zones[z] && (o.Nodes == 0 || i < o.Nodes) {
					n.cut = append(n.cut, window(cfg.Start, o))
				}
			}
			next++
			r.addNode(n)
		}
	}
	for i, o := range cfg.Outages {
		r.outageEvents(i, o)
	}
	for _, w := range cfg.LeaseCacheStalls {
		r.push(r.cfg.Start.Add(w.From), evLeaseCache, 1)
		if w.To != 0 {
			r.push(r.cfg.Start.Add(w.To), evLeaseCache, 0)
		}
	}
}

// window is an outage's window in wall-clock time.
func window(start time.Time, o Outage) [2]time.Time {
	w := [2]time.Time{start.Add(o.From)}
	if o.To != 0 {
		w[1] = start.Add(o.To)
	}
	return w
}

func (r *run) addCut(i int, o Outage) {
	r.nodes[i].cut = append(r.nodes[i].cut, window(r.cfg.Start, o))
}

func (r *run) outageEvents(i int, o Outage) {
	r.push(r.cfg.Start.Add(o.From), evOutage, i)
	if o.To != 0 {
		r.push(r.cfg.Start.Add(o.To), evOutage, -1-i)
	}
}

// addNode registers n, gives it a kubelet heartbeat and queues the
// heartbeat's first run (unless the node is off).
func (r *run) addNode(n node) {
	hc := lease.DefaultHeartbeatConfig(n.name)
	hc.LeaseDurationSeconds = r.cfg.NodeLeaseDurationSeconds
	if r.rnd != nil {
		// Each kubelet draws its jitter from a stream of its own, so that
		// its renewals do not depend on when the others ran.
		i := len(r.nodes)
		r.jitter = append(r.jitter, jitterSeed(r.cfg.Seed, i))
		n.rand = func() float64 { return r.draw(i) }
		hc.Rand = n.rand
	}
	r.hbCfg, r.every = hc, hc.RenewInterval()
	var err error
	if n.hb, err = lease.NewHeartbeat(hc); err != nil {
		r.err = err
		return
	}
	// The simulated kubelet registered its Node: the lease is owned by it.
	n.hb.SetNodeUID(types.UID("uid-" + n.name))
	idx := len(r.nodes)
	r.index[n.name] = idx
	r.nodes = append(r.nodes, n)
	r.nameHash = append(r.nameHash, maphash.String(r.hashSeed, n.name))
	start := r.cfg.Start
	if r.rnd != nil {
		start = start.Add(time.Duration(r.rnd.Int63n(int64(hc.RenewInterval()))))
	}
	if !n.off {
		r.push(start, evHeartbeat, idx)
	}
}

func (r *run) push(at time.Time, kind uint8, idx int) {
	r.seq++
	r.q.push(item{at: at, key: at.UnixNano(), seq: r.seq, kind: kind, idx: int32(idx)})
	r.res.Totals.QueueEvents++
}

func (r *run) event(now time.Time, kind string, zone int, object, reason, format string, args ...any) {
	z := ""
	if zone >= 0 {
		z = r.zones[zone]
	}
	r.res.Events = append(r.res.Events, Event{At: now.Sub(r.cfg.Start), Kind: kind, Zone: z, Object: object, Reason: reason, Message: fmt.Sprintf(format, args...)})
}

func (r *run) loop() {
	nextProgress := r.cfg.Start.Add(time.Minute)
	for len(r.q) > 0 && r.err == nil {
		it := r.q.pop()
		if it.at.After(r.end) {
			break
		}
		r.curSeq = it.seq
		if r.cfg.Progress != nil && !it.at.Before(nextProgress) {
			r.cfg.Progress(it.at.Sub(r.cfg.Start), r.cfg.Duration)
			nextProgress = nextProgress.Add(time.Minute)
		}
		switch it.kind {
		case evOutage:
			r.outage(it.at, int(it.idx))
		case evHeartbeat:
			r.heartbeat(it.at, int(it.idx))
		case evLeaseCache:
			r.leaseCache(it.at, it.idx == 1)
		case evController:
			if it.seq == r.ctlSeq {
				r.ctlStarted = true
				r.step(it.at)
			}
		case evAction:
			r.actions[it.idx](it.at)
		case evCloud:
			r.cloudPass(it.at)
			r.push(it.at.Add(cloudMonitorPeriod), evCloud, 0)
		case evPodGC:
			r.podGCPass(it.at)
			r.push(it.at.Add(gc.PodGCPeriod), evPodGC, 0)
		case evSample:
			r.sample(it.at)
			r.push(it.at.Add(r.cfg.SampleEvery), evSample, 0)
		}
	}
	if r.err == nil {
		r.flushRenewals(r.end, math.MaxUint64)
		r.finishLazy()
	}
	if r.cfg.Progress != nil {
		r.cfg.Progress(r.cfg.Duration, r.cfg.Duration)
	}
}

var (
	kubeletReady    = conditions.KubeletInput{Ready: conditions.ReadyInput{Capacity: []string{"cpu", "memory", "pods"}}}
	kubeletShutting = conditions.KubeletInput{Ready: conditions.ReadyInput{Capacity: []string{"cpu", "memory", "pods"},
		ShutdownErrors: []error{shutdown.ErrNodeShuttingDown}}}
)
