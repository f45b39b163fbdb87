package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/taints"
)

// Cluster is an explicit cluster to simulate instead of a synthetic one:
// the nodes and pods of a snapshot of a real cluster
// (examples/kubeapi/snapshot converts kubectl's JSON into one), in the
// library's own types. Nodes and pods are simulated in name order,
// whatever their order here. The run never writes to them.
type Cluster struct {
	// Nodes are the cluster's nodes. The run reads a node's name, labels
	// (its zone, from the topology or beta failure-domain region and zone
	// labels as eviction.ZoneKey reads them), taints, creation timestamp
	// (zero: the run's start), allocatable (for Config.Placement) and its
	// Ready condition: a node whose Ready is not True (or that has none) is
	// taken to have a silent kubelet from the start, and never heartbeats
	// in the run.
	Nodes []core.Node
	// Pods are its pods. Pods not bound to a node, pods already Succeeded
	// or Failed, and pods bound to a node not in Nodes are not simulated
	// (Totals.Skipped counts them, by reason; Result.Orphans lists the
	// last). The run reads a pod's identity, node, phase, owner references
	// and pod-template-hash label (its workload, see WorkloadOf), tolerations
	// (admission's defaults are added where missing), priority and
	// priority class, grace period, creation timestamp, annotations (static
	// and mirror pods), its memory request (pressure.Request: what pressure
	// episodes take as its working set), and with Config.Placement
	// everything the kubelet's admission reads.
	Pods []core.Pod
	// Refused counts the objects of the source (a snapshot) left out
	// before the run because the API server would have refused them;
	// Totals.Refused reports it.
	Refused int
}

// WorkloadOf names a pod's workload as "Kind namespace/name", or "" for a
// pod without owners: its controller owner reference (the first owner
// reference when none is marked controller), with a ReplicaSet whose name
// is "<name>-<pod-template-hash label>" read as the Deployment <name>. A
// mirror pod, owned by its Node, is the static pod it mirrors: "static pod
// namespace/name of node N".
func WorkloadOf(p *core.Pod) string {
	kind, name := workloadOf(p)
	switch {
	case name == "":
		return ""
	case kind == "Node":
		return "static pod " + p.Namespace + "/" + p.Name + " of node " + name
	}
	return kind + " " + p.Namespace + "/" + name
}

// workloadOf returns the kind and name of a pod's workload, as Workload
// reads them ("" and "" for none).
func workloadOf(p *core.Pod) (kind, name string) {
	ref := p.ControllerRef()
	if ref == nil && len(p.OwnerReferences) > 0 {
		ref = &p.OwnerReferences[0]
	}
	if ref == nil {
		return "", ""
	}
	if ref.Kind == "ReplicaSet" {
		if hash := p.Labels["pod-template-hash"]; hash != "" {
			if d, ok := strings.CutSuffix(ref.Name, "-"+hash); ok && d != "" {
				return "Deployment", d
			}
		}
	}
	return ref.Kind, ref.Name
}

// memoryRequest is a pod's memory request in bytes, as node-pressure
// eviction counts it (pressure.Request).
func memoryRequest(p *core.Pod) int64 {
	return pressure.Request(p, pressure.ResourceMemory) / 1000
}

// Shutdown shuts nodes down at At: the nodes of Zone (the first Nodes of
// them when Nodes > 0) and the nodes in Names.
//
// With Graceful enabled (shutdown.Config with a grace period), the kubelet
// posts Ready=False ("node is shutting down"), kills its pods phase by
// phase as the shutdown manager plans them, and powers off when the phases
// are over; otherwise the node powers off at once (a non-graceful
// shutdown). A powered-off node never comes back in the run.
//
// OutOfServiceAt, when positive, is when an operator adds the
// node.kubernetes.io/out-of-service=nodeshutdown:NoExecute taint (the
// non-graceful node shutdown procedure): pods that do not tolerate it are
// evicted at once, and the pod GC force deletes the node's terminating
// pods, which lets StatefulSets replace them.
type Shutdown struct {
	Zone  string
	Nodes int
	Names []string
	// At is when the shutdown starts, since the start of the run.
	At time.Duration
	// Graceful is the kubelet's graceful shutdown configuration.
	Graceful shutdown.Config
	// OutOfServiceAt is when the out-of-service taint is added (0: never).
	OutOfServiceAt time.Duration
}

// Pressure is a memory pressure episode on one node from From to To: the
// node's memory.available drops to AvailableBytes, and the kubelet's
// eviction manager (eviction/pressure) evicts pods one at a time, in its
// ranking order, each freeing its working set, until the threshold is no
// longer met. When the episode ends the node's memory is plentiful again.
type Pressure struct {
	// Node is the node's name.
	Node string
	// From and To bound the episode (To 0: to the end of the run).
	From, To time.Duration
	// AvailableBytes is the node's memory available as the kubelet's
	// summary reads it during the episode, before any eviction frees
	// memory. The kubelet of v1.37 (Config.Release) takes the node's huge
	// pages (the hugepages-* of its capacity) off it for memory.available;
	// earlier ones use it as it is.
	AvailableBytes uint64
	// UsageRatio is every pod's working set as a multiple of its memory
	// request (0 means 1: pods use what they request).
	UsageRatio float64
	// BestEffortBytes is the working set of a pod without a memory request
	// (0 means 64 MiB).
	BestEffortBytes uint64
	// Eviction is the kubelet's eviction configuration (nil:
	// pressure.DefaultConfig, hard memory.available<100Mi).
	Eviction *pressure.Config
}

// CloudDeletion deletes nodes' instances from the cloud at At: their
// kubelets fall silent, the cloud node lifecycle controller deletes the
// Node objects once they are not Ready, and the pod GC deletes their pods
// after its quarantine.
type CloudDeletion struct {
	Zone  string
	Nodes int
	Names []string
	// At is when the instances disappear.
	At time.Duration
}

// Outcome is what happened to one pod of an explicit cluster that the
// scenarios touched. Pods nothing touched are not listed.
type Outcome struct {
	// Pod is "namespace/name".
	Pod string
	// Node and Zone are where it ran.
	Node, Zone string
	// Workload is the pod's workload (WorkloadOf; "" for none).
	Workload string
	// Fate is "evicted" (the taint eviction controller deleted it),
	// "killed" (graceful node shutdown), "pressure-evicted" (the kubelet's
	// eviction manager), "deleted" (the pod GC force deleted it) or
	// "spared" (its node was affected, it stayed).
	Fate string
	// At is when the fate happened (for spared pods, zero).
	At time.Duration
	// Rule is the machine-readable reason of the deciding rule.
	Rule string
	// Detail says why, in a sentence.
	Detail string
	// GoneAt is when the pod object went away (-1: it is still there at
	// the end, e.g. terminating on an unreachable node).
	GoneAt time.Duration
	// ReplacedAt is when its controller could start a replacement (-1:
	// never in the run: DaemonSet and bare pods are not replaced
	// elsewhere, StatefulSet pods only once the old pod is gone); with
	// Config.Placement, when the replacement was placed on a node.
	ReplacedAt time.Duration
	// PlacedOn is the node the replacement was placed on (Config.Placement).
	PlacedOn string `json:",omitempty"`
	// Pending is, for a replacement that found no room by the end, the
	// scheduler's message (Config.Placement).
	Pending string `json:",omitempty"`
	// Lost is how long the pod served nowhere (neither it on a Ready node
	// nor a replacement), at the timeline's resolution.
	Lost time.Duration
}

// LostPoint is a change in a workload's lost replicas.
type LostPoint struct {
	At   time.Duration
	Lost int
}

// Workload is one workload of an explicit cluster that lost replicas or
// had pods touched by the scenarios.
type Workload struct {
	// Name is "Kind namespace/name".
	Name string
	// Replicas is the number of its pods simulated.
	Replicas int
	// MaxLost is the most replicas it lost at once.
	MaxLost int
	// LostTime is the sum over time of replicas lost (replica-time), at
	// the timeline's resolution.
	LostTime time.Duration
	// LostForRoom is the part of LostTime with the replacement created
	// but waiting for a node with room (Config.Placement); the rest was
	// lost waiting for the eviction, the deletion or the node.
	LostForRoom time.Duration
	// MostPending is the most replacements that waited for room at once.
	MostPending int
	// Lost are the changes of its lost replicas, from 0 at the start.
	Lost []LostPoint
}

// replacement is when a pod's controller replaces it elsewhere.
type replacement uint8

const (
	replaceNever    replacement = iota // DaemonSet, bare pods, others
	replaceOnDelete                    // ReplicaSet, Deployment, RC, Job: once deletion starts or it fails
	replaceOnGone                      // StatefulSet: once the pod fails or is gone
)

func replacementOf(kind string) replacement {
	switch kind {
	case "ReplicaSet", "Deployment", "ReplicationController", "Job":
		return replaceOnDelete
	case "StatefulSet":
		return replaceOnGone
	}
	return replaceNever
}

// zoneOf returns the zone key and display name of labels.
func zoneOf(labels map[string]string) (key, name string) {
	key = eviction.ZoneKey(labels)
	// "region/zone", or the zone alone for nodes without a region label.
	if name = strings.TrimPrefix(eviction.ZoneName(key), "/"); name == "" {
		name = "(no zone)"
	}
	return key, name
}

// MatchZone reports whether sel names zone, a name Cluster.Zones returns:
// the whole "region/zone", or its zone part alone.
func MatchZone(sel, name string) bool {
	if sel == name {
		return true
	}
	_, z, ok := strings.Cut(name, "/")
	return ok && sel == z
}

// validateCluster reports the problems of an explicit cluster and of the
// scenarios' node selections against it.
func (c Config) validateCluster(bad func(string, ...any)) {
	cl := c.Cluster
	nodes := make(map[string]bool, len(cl.Nodes))
	zones := map[string]int{}
	for i, n := range cl.Nodes {
		switch {
		case n.Name == "":
			bad("Cluster.Nodes[%d] has no name", i)
		case nodes[n.Name]:
			bad("Cluster.Nodes[%d]: node %q appears twice", i, n.Name)
		}
		nodes[n.Name] = true
		_, z := zoneOf(n.Labels)
		zones[z]++
	}
	if len(cl.Nodes) > MaxNodes {
		bad("Cluster has %d nodes, above %d", len(cl.Nodes), MaxNodes)
	}
	pods := make(map[string]bool, len(cl.Pods))
	for i, p := range cl.Pods {
		switch {
		case p.Name == "":
			bad("Cluster.Pods[%d] has no name", i)
		case pods[p.Key()]:
			bad("Cluster.Pods[%d]: pod %s appears twice", i, p.Key())
		}
		pods[p.Key()] = true
		if g := p.TerminationGracePeriodSeconds; g != nil && *g < 0 {
			bad("Cluster.Pods[%d]: pod %s: terminationGracePeriodSeconds %d is negative", i, p.Key(), *g)
		}
	}
	zoneSize := func(sel string) int {
		n := 0
		for z, size := range zones {
			if MatchZone(sel, z) {
				n += size
			}
		}
		return n
	}
	selection := func(field string, zone string, count int, names []string) {
		if zone == "" && len(names) == 0 {
			bad("%s selects no node: set Zone or Names", field)
		}
		if zone != "" {
			size := zoneSize(zone)
			if size == 0 {
				bad("%s.Zone %q is not a zone of the cluster", field, zone)
			} else if count < 0 || count > size {
				bad("%s.Nodes %d is not in [0, %d]", field, count, size)
			}
		}
		for k, name := range names {
			if !nodes[name] {
				bad("%s.Names[%d] %q is not a node of the cluster", field, k, name)
			}
		}
	}
	for i, o := range c.Outages {
		selection(fmt.Sprintf("Outages[%d]", i), o.Zone, o.Nodes, o.Names)
	}
	for i, s := range c.Shutdowns {
		f := fmt.Sprintf("Shutdowns[%d]", i)
		selection(f, s.Zone, s.Nodes, s.Names)
		if s.At < 0 {
			bad("%s.At %v is negative", f, s.At)
		}
		if s.OutOfServiceAt != 0 && s.OutOfServiceAt <= s.At {
			bad("%s.OutOfServiceAt %v is not after At %v", f, s.OutOfServiceAt, s.At)
		}
		if err := s.Graceful.Validate(); err != nil {
			bad("%s.Graceful: %v", f, err)
		}
	}
	for i, p := range c.Pressures {
		f := fmt.Sprintf("Pressures[%d]", i)
		if !nodes[p.Node] {
			bad("%s.Node %q is not a node of the cluster", f, p.Node)
		}
		if p.From < 0 {
			bad("%s.From %v is negative", f, p.From)
		}
		if p.To != 0 && p.To <= p.From {
			bad("%s.To %v is not after From %v", f, p.To, p.From)
		}
		if p.UsageRatio < 0 || p.UsageRatio != p.UsageRatio || p.UsageRatio > 1000 {
			bad("%s.UsageRatio %v is not in [0, 1000]", f, p.UsageRatio)
		}
		if p.Eviction != nil {
			if err := p.Eviction.Validate(); err != nil {
				bad("%s.Eviction: %v", f, err)
			}
		}
	}
	for i, d := range c.CloudDeletions {
		f := fmt.Sprintf("CloudDeletions[%d]", i)
		selection(f, d.Zone, d.Nodes, d.Names)
		if d.At < 0 {
			bad("%s.At %v is negative", f, d.At)
		}
	}
}

// selectNodes returns the indices of the nodes a selector picks, in node
// order, without repeats.
func (r *run) selectNodes(zone string, count int, names []string) []int {
	var out []int
	seen := map[int]bool{}
	if zone != "" {
		taken := 0
		for i := range r.nodes {
			if MatchZone(zone, r.zones[r.nodes[i].zi]) && (count == 0 || taken < count) {
				out = append(out, i)
				seen[i] = true
				taken++
			}
		}
	}
	for _, name := range names {
		if i, ok := r.index[name]; ok && !seen[i] {
			out = append(out, i)
			seen[i] = true
		}
	}
	slices.Sort(out)
	return out
}

// buildCluster sets up the nodes and pods of an explicit cluster.
func (r *run) buildCluster() {
	cl := r.cfg.Cluster
	// Sorted copies, unless already sorted (a snapshot's are): a million
	// pods are not copied for nothing. The run never writes to them.
	nodes := sortedBy(cl.Nodes, func(a, b *core.Node) int { return strings.Compare(a.Name, b.Name) })
	pods := sortedBy(cl.Pods, func(a, b *core.Pod) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	r.srcPods = pods
	r.srcNodes = nodes
	zoneIdx := map[string]int{}
	type zk struct{ key, name string }
	var zs []zk
	for _, n := range nodes {
		key, name := zoneOf(n.Labels)
		if _, ok := zoneIdx[key]; !ok {
			zoneIdx[key] = -1
			zs = append(zs, zk{key, name})
		}
	}
	slices.SortFunc(zs, func(a, b zk) int { return strings.Compare(a.name, b.name) })
	for i, z := range zs {
		zoneIdx[z.key] = i
		r.zones = append(r.zones, z.name)
		r.zoneKeys = append(r.zoneKeys, z.key)
	}
	r.res.ZoneNodes = make([]int, len(zs))
	r.res.ZonePods = make([]int, len(zs))
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	names = packNames(names)
	for i, n := range nodes {
		key, _ := zoneOf(n.Labels)
		nd := node{name: names[i], zone: key, zi: zoneIdx[key], taints: slices.Clone(n.Taints), created: n.CreationTimestamp, labels: n.Labels, annotations: n.Annotations}
		if nd.created.IsZero() {
			nd.created = r.cfg.Start
		}
		status := nodes[i].ReadyStatus()
		if status == "" {
			status = conditions.Unknown
		}
		conds, _ := conditions.SetKubeletConditions(r.cfg.Start, nil, kubeletReady)
		nd.setConds(conds)
		if status != conditions.True {
			// The kubelet has been silent since before the snapshot.
			conds, _ := conditions.Set(r.cfg.Start, nd.conds, conditions.Condition{Type: conditions.Ready, Status: status, Reason: "Snapshot",
				Message: "Ready was " + string(status) + " in the snapshot"})
			nd.setConds(conds)
			nd.off = true
		}
		r.addNode(nd)
		r.res.ZoneNodes[nd.zi]++
	}
	r.res.Totals.Refused = r.cfg.Cluster.Refused
	defaults := &withDefaults{notReady: *r.cfg.NotReadyTolerationSeconds, unreachable: *r.cfg.UnreachableTolerationSeconds, seen: map[tolsKey][]taints.Toleration{}}
	r.pods = make([]pod, 0, len(pods))
	for k := range pods {
		p := &pods[k]
		ni, bound := r.index[p.NodeName]
		switch {
		case p.NodeName == "":
			r.res.Totals.Unscheduled++
		case p.Phase.Terminated():
			r.res.Totals.Finished++
		case !bound:
			r.res.Totals.Orphaned++
			r.res.Orphans = append(r.res.Orphans, Orphan{Pod: p.Key(), Node: p.NodeName})
		}
		if p.NodeName == "" || p.Phase.Terminated() || !bound {
			r.res.Totals.Skipped++
			continue
		}
		pi := len(r.pods)
		kind, _ := workloadOf(p)
		sp := pod{node: ni, src: k, wl: -1, replace: replacementOf(kind), gone: -1, replaced: -1, wanted: -1, placedOn: -1, stoppedAt: -1,
			p: core.PodRef{Namespace: p.Namespace, Name: p.Name, UID: r.uidFor(p.UID, pi)}, tols: defaults.of(p.Tolerations), mem: memoryRequest(p)}
		if w := WorkloadOf(p); w != "" {
			wi, ok := r.wlIndex[w]
			if !ok {
				wi = len(r.wls)
				r.wlIndex[w] = wi
				r.wls = append(r.wls, Workload{Name: w})
			}
			sp.wl = wi
			r.wls[wi].Replicas++
		}
		r.pods = append(r.pods, sp)
		r.nodes[ni].pods = append(r.nodes[ni].pods, pi)
		r.res.ZonePods[r.nodes[ni].zi]++
	}
}

// withDefaults adds the API server's default not-ready and unreachable
// tolerations to the pods' lists, once per list: pods that share a list
// (a snapshot's pods of one workload do) share the result, which nothing
// writes to.
type withDefaults struct {
	notReady, unreachable int64
	seen                  map[tolsKey][]taints.Toleration
	none                  []taints.Toleration // the result for a pod without tolerations
}

// tolsKey is a toleration list by identity: its first element and length.
type tolsKey struct {
	first *taints.Toleration
	n     int
}

func (d *withDefaults) of(ts []taints.Toleration) []taints.Toleration {
	if len(ts) == 0 {
		if d.none == nil {
			d.none = taints.WithDefaultTolerationSeconds(nil, d.notReady, d.unreachable)
		}
		return d.none
	}
	key := tolsKey{&ts[0], len(ts)}
	if out, ok := d.seen[key]; ok {
		return out
	}
	out := taints.WithDefaultTolerationSeconds(ts, d.notReady, d.unreachable)
	d.seen[key] = out
	return out
}

// sortedBy returns s if it is sorted by cmp, else a sorted copy: a
// snapshot's million pods come sorted and are not copied for nothing. The
// comparisons take pointers, since a core.Pod is large.
func sortedBy[E any](s []E, cmp func(a, b *E) int) []E {
	for i := 1; i < len(s); i++ {
		if cmp(&s[i-1], &s[i]) > 0 {
			out := slices.Clone(s)
			slices.SortFunc(out, func(a, b E) int { return cmp(&a, &b) })
			return out
		}
	}
	return s
}

// replacementSuffix ends the UID of a pod's replacement: "<uid>-replacement".
const replacementSuffix = "-replacement"

// uidFor returns the UID the run gives pod pi in what the machines read,
// and by which it finds the pod again in their actions (podOf): the pod's
// own when it has one that no earlier pod of the run took and that does
// not end as a replacement's; otherwise "sim-<pi>", with "+" added until
// no pod has it.
func (r *run) uidFor(own string, pi int) string {
	uid := own
	if _, taken := r.uids[uid]; taken || uid == "" || strings.HasSuffix(uid, replacementSuffix) {
		uid = "sim-" + strconv.Itoa(pi)
		for _, taken := r.uids[uid]; taken; _, taken = r.uids[uid] {
			uid += "+"
		}
	}
	r.uids[uid] = pi
	return uid
}

// podOf returns the index of the pod the run gave uid (uidFor), or -1.
func (r *run) podOf(uid string) int {
	if pi, ok := r.uids[uid]; ok {
		return pi
	}
	return -1
}

// Zones returns the printable names ("region/zone") of the cluster's
// zones, sorted, as a run names them; "(no zone)" stands for nodes
// without zone labels.
func (c *Cluster) Zones() []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range c.Nodes {
		if _, name := zoneOf(n.Labels); !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
