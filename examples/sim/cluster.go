package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/cloud"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/taints"
)

// Cluster is an explicit cluster to simulate instead of a synthetic one:
// the nodes and pods of a snapshot of a real cluster (package
// examples/kubeapi/snapshot converts kubectl's JSON into one). Nodes and
// pods are simulated in name order, whatever their order here.
type Cluster struct {
	// Nodes are the cluster's nodes.
	Nodes []Node
	// Pods are its pods. Pods not bound to a node and pods already
	// Succeeded or Failed are not simulated (Totals.Skipped counts them).
	Pods []Pod
}

// Node is a node of an explicit cluster.
type Node struct {
	// Name is metadata.name.
	Name string
	// Labels are metadata.labels; the zone comes from the topology (or
	// beta failure-domain) region and zone labels, as eviction.ZoneKey
	// reads them.
	Labels map[string]string
	// Taints are spec.taints at the start.
	Taints []taints.Taint
	// Ready is the status of the Ready condition in the snapshot. A node
	// that is not True there is taken to have a silent kubelet from the
	// start (it never heartbeats in the run).
	Ready conditions.Status
	// Created is metadata.creationTimestamp (zero: the run's start).
	Created time.Time
}

// Owner is a pod's controlling owner, or the workload above it.
type Owner struct {
	// Kind is the owner's kind: Deployment, ReplicaSet, StatefulSet,
	// DaemonSet, Job, ReplicationController, or anything else.
	Kind string
	// Name is the owner's name; "" means the pod has no controller.
	Name string
}

// Pod is a pod of an explicit cluster.
type Pod struct {
	// Namespace, Name and UID identify the pod.
	Namespace, Name, UID string
	// Node is spec.nodeName; "" means not scheduled (not simulated).
	Node string
	// Phase is status.phase; Succeeded and Failed pods are not simulated.
	Phase string
	// Owner is the workload the pod belongs to.
	Owner Owner
	// Tolerations are spec.tolerations, admission's defaults included.
	Tolerations []taints.Toleration
	// Priority is spec.priority (nil counts as 0).
	Priority *int32
	// PriorityClassName is spec.priorityClassName.
	PriorityClassName string
	// TerminationGracePeriodSeconds is spec.terminationGracePeriodSeconds
	// (nil: 30).
	TerminationGracePeriodSeconds *int64
	// Created is metadata.creationTimestamp.
	Created time.Time
	// MemoryRequest is the pod's memory request in bytes (the sum of its
	// containers'); 0 means none.
	MemoryRequest int64
	// Static and Mirror mark static pods and their mirror pods, which node
	// pressure never evicts (with critical priorities).
	Static, Mirror bool
}

// Key is "namespace/name".
func (p Pod) Key() string { return p.Namespace + "/" + p.Name }

// Workload names the pod's workload as "Kind namespace/name", or "" for a
// pod without a controller.
func (p Pod) Workload() string {
	if p.Owner.Name == "" {
		return ""
	}
	return p.Owner.Kind + " " + p.Namespace + "/" + p.Owner.Name
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
	// AvailableBytes is memory.available during the episode, before any
	// eviction frees memory.
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
	// Workload is Pod.Workload ("" for none).
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
	// elsewhere, StatefulSet pods only once the old pod is gone).
	ReplacedAt time.Duration
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
		case p.Node != "" && !nodes[p.Node]:
			bad("Cluster.Pods[%d]: pod %s is bound to node %q, which the cluster does not have", i, p.Key(), p.Node)
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
	nodes := slices.Clone(cl.Nodes)
	slices.SortFunc(nodes, func(a, b Node) int { return strings.Compare(a.Name, b.Name) })
	pods := slices.Clone(cl.Pods)
	slices.SortFunc(pods, func(a, b Pod) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	r.srcPods = pods
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
	for _, n := range nodes {
		key, _ := zoneOf(n.Labels)
		nd := node{name: n.Name, zone: key, zi: zoneIdx[key], taints: slices.Clone(n.Taints), created: n.Created, labels: n.Labels}
		if nd.created.IsZero() {
			nd.created = r.cfg.Start
		}
		status := n.Ready
		if status == "" {
			status = conditions.Unknown
		}
		nd.conds, _ = conditions.SetKubeletConditions(nil, kubeletReady, r.cfg.Start)
		if status != conditions.True {
			// The kubelet has been silent since before the snapshot.
			nd.conds, _ = conditions.Set(nd.conds, conditions.Condition{Type: conditions.Ready, Status: status, Reason: "Snapshot",
				Message: "Ready was " + string(status) + " in the snapshot"}, r.cfg.Start)
			nd.off = true
		}
		r.addNode(nd)
		r.res.ZoneNodes[nd.zi]++
	}
	for k := range pods {
		p := &pods[k]
		if p.Node == "" || p.Phase == "Succeeded" || p.Phase == "Failed" {
			r.res.Totals.Skipped++
			continue
		}
		ni := r.index[p.Node]
		pi := len(r.pods)
		sp := pod{node: ni, src: k, wl: -1, replace: replacementOf(p.Owner.Kind), gone: -1, replaced: -1, stoppedAt: -1,
			p: eviction.Pod{Namespace: p.Namespace, Name: p.Name, UID: fmt.Sprint(pi), Tolerations: p.Tolerations}}
		if w := p.Workload(); w != "" {
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

// scheduleScenarios queues the explicit cluster's scenarios.
func (r *run) scheduleScenarios() {
	start := r.cfg.Start
	for _, s := range r.cfg.Shutdowns {
		for _, i := range r.selectNodes(s.Zone, s.Nodes, s.Names) {
			r.later(start.Add(s.At), func(now time.Time) { r.startShutdown(now, i, s) })
			if s.OutOfServiceAt > 0 {
				r.later(start.Add(s.OutOfServiceAt), func(now time.Time) { r.outOfService(now, i) })
			}
		}
	}
	for k := range r.cfg.Pressures {
		p := r.cfg.Pressures[k]
		i := r.index[p.Node]
		r.later(start.Add(p.From), func(now time.Time) { r.startPressure(now, i, p) })
	}
	for _, d := range r.cfg.CloudDeletions {
		for _, i := range r.selectNodes(d.Zone, d.Nodes, d.Names) {
			r.later(start.Add(d.At), func(now time.Time) {
				n := &r.nodes[i]
				n.instanceGone, n.off = true, true
				r.event(now, "instance-deleted", n.zi, n.name, "InstanceDeleted", "%s: its instance is deleted from the cloud; the kubelet falls silent", n.name)
			})
		}
	}
	if len(r.cfg.CloudDeletions) > 0 {
		r.push(start, evCloud, 0)
	}
	if len(r.cfg.Shutdowns) > 0 || len(r.cfg.CloudDeletions) > 0 {
		r.push(start, evPodGC, 0)
	}
}

// later queues f to run at at.
func (r *run) later(at time.Time, f func(now time.Time)) {
	r.actions = append(r.actions, f)
	r.push(at, evAction, len(r.actions)-1)
}

func (r *run) startShutdown(now time.Time, i int, s Shutdown) {
	n := &r.nodes[i]
	if n.off || n.shutting {
		return
	}
	var sp []shutdown.Pod
	for _, pi := range n.pods {
		if p := &r.pods[pi]; p.stoppedAt < 0 {
			src := &r.srcPods[p.src]
			sp = append(sp, shutdown.Pod{Namespace: src.Namespace, Name: src.Name, UID: p.p.UID, Priority: src.Priority,
				PriorityClassName: src.PriorityClassName, TerminationGracePeriodSeconds: src.TerminationGracePeriodSeconds,
				Phase: shutdown.PodRunning, CreationTimestamp: src.Created, Tolerations: src.Tolerations})
		}
	}
	plan, err := s.Graceful.Plan(sp)
	if err != nil {
		r.err = err
		return
	}
	if !plan.Enabled() {
		r.event(now, "poweroff", n.zi, n.name, "NonGracefulShutdown", "%s powers off without a graceful shutdown: its %d pods stop unseen by the API server", n.name, len(sp))
		n.off = true
		return
	}
	n.shutting = true
	r.event(now, "shutdown", n.zi, n.name, shutdown.NodeShutdownReason, "%s starts a graceful shutdown: %d pods in %d phases, %v at most", n.name, len(sp), len(plan.Phases), plan.Total)
	for ph, phase := range plan.Phases {
		for _, pp := range phase.Pods {
			pi := atoiUID(pp.Pod.UID)
			ph, pp, phase := ph, pp, phase
			r.later(now.Add(phase.Start), func(t time.Time) {
				p := &r.pods[pi]
				if p.stoppedAt >= 0 {
					return
				}
				grace := time.Duration(pp.GracePeriodSeconds) * time.Second
				r.stop(t, pi, "killed", shutdown.NodeShutdownReason, fmt.Sprintf("graceful node shutdown, phase %d (priority >= %d, %ds): priority %d, grace period %ds",
					ph+1, phase.Priority, phase.ShutdownGracePeriodSeconds, pp.Priority, pp.GracePeriodSeconds))
				r.later(t.Add(grace), func(t time.Time) { r.fail(t, pi) })
			})
		}
	}
	r.later(now.Add(plan.Total), func(t time.Time) {
		r.event(t, "poweroff", n.zi, n.name, "ShutdownComplete", "%s powers off after its graceful shutdown", n.name)
		n.off = true
	})
}

func (r *run) outOfService(now time.Time, i int) {
	n := &r.nodes[i]
	if n.deleted {
		return
	}
	t := taints.Taint{Key: taints.TaintNodeOutOfService, Value: "nodeshutdown", Effect: taints.TaintEffectNoExecute}
	n.taints = taints.Apply(n.taints, []taints.Taint{t}, nil)
	n.sawNoExecute(t)
	r.event(now, "taint", n.zi, n.name, "OutOfService", "%s tainted %s by the operator", n.name, t)
	r.syncNode(i)
	r.step(now)
}

// pressureState is a running memory pressure episode.
type pressureState struct {
	cfg   Pressure
	node  int
	m     *pressure.Manager
	freed uint64
	end   time.Time
}

func (r *run) startPressure(now time.Time, i int, p Pressure) {
	cfg := pressure.DefaultConfig()
	if p.Eviction != nil {
		cfg = *p.Eviction
	}
	m, err := pressure.NewManager(cfg)
	if err != nil {
		r.err = err
		return
	}
	ps := &pressureState{cfg: p, node: i, m: m}
	if p.To != 0 {
		ps.end = r.cfg.Start.Add(p.To)
	}
	n := &r.nodes[i]
	r.event(now, "pressure", n.zi, n.name, "MemoryPressureEpisode", "%s: memory.available drops to %d MiB", n.name, p.AvailableBytes>>20)
	r.pressureStep(now, ps)
}

// workingSet is a pod's working set under p.
func workingSet(src *Pod, p Pressure) uint64 {
	if src.MemoryRequest <= 0 {
		return cmp.Or(p.BestEffortBytes, 64<<20)
	}
	ratio := p.UsageRatio
	if ratio == 0 {
		ratio = 1
	}
	return uint64(float64(src.MemoryRequest) * ratio)
}

func (r *run) pressureStep(now time.Time, ps *pressureState) {
	n := &r.nodes[ps.node]
	if n.off || n.deleted {
		return
	}
	over := !ps.end.IsZero() && !now.Before(ps.end)
	avail := ps.cfg.AvailableBytes + ps.freed
	if over {
		avail = 1 << 40
	}
	var pods []pressure.Pod
	var ws uint64
	for _, pi := range n.pods {
		p := &r.pods[pi]
		if p.stoppedAt >= 0 {
			continue
		}
		src := &r.srcPods[p.src]
		w := workingSet(src, ps.cfg)
		ws += w
		pp := pressure.Pod{Name: src.Name, Namespace: src.Namespace, UID: p.p.UID, Priority: src.Priority, Static: src.Static, Mirror: src.Mirror,
			TerminationGracePeriodSeconds: src.TerminationGracePeriodSeconds,
			Containers:                    []pressure.Container{{Name: "main"}},
			Stats:                         &pressure.PodStats{WorkingSetBytes: &w}}
		if src.MemoryRequest > 0 {
			pp.Containers[0].Requests.Memory = *resource.NewQuantity(src.MemoryRequest, resource.BinarySI)
		}
		pods = append(pods, pp)
		r.pods[pi].affected = true
	}
	obs := pressure.Observe(pressure.NodeStats{Memory: &pressure.MemoryStats{Time: now, AvailableBytes: &avail, WorkingSetBytes: &ws}})
	res := ps.m.Step(obs, pods, now)
	under := slices.Contains(res.Conditions, conditions.MemoryPressure)
	before := condStatus(n.conds, conditions.MemoryPressure)
	n.conds, _, _ = conditions.SetPressure(n.conds, conditions.MemoryPressure, under, now)
	if after := condStatus(n.conds, conditions.MemoryPressure); after != before {
		r.event(now, "condition", n.zi, n.name, "MemoryPressure", "%s posts MemoryPressure=%s", n.name, after)
	}
	r.syncNode(ps.node)
	r.step(now)
	if ev := res.Decision.Evict; ev != nil {
		pi := atoiUID(ev.Pod.UID)
		src := &r.srcPods[r.pods[pi].src]
		ps.freed += workingSet(src, ps.cfg)
		r.stop(now, pi, "pressure-evicted", pressure.Reason, fmt.Sprintf("%s; grace period %ds", strings.TrimSpace(ev.Status.Message), ev.GracePeriodSeconds))
		r.later(now.Add(time.Duration(max(ev.GracePeriodSeconds, 0))*time.Second), func(t time.Time) { r.fail(t, pi) })
	}
	if over && !under {
		r.event(now, "pressure-end", n.zi, n.name, "MemoryPressureOver", "%s: memory pressure over", n.name)
		return
	}
	next := res.Next
	if !next.After(now) {
		next = now.Add(time.Second)
	}
	if !ps.end.IsZero() && now.Before(ps.end) && ps.end.Before(next) {
		next = ps.end
	}
	r.later(next, func(t time.Time) { r.pressureStep(t, ps) })
}

func condStatus(conds []conditions.Condition, t conditions.Type) conditions.Status {
	if c, ok := conditions.Find(conds, t); ok {
		return c.Status
	}
	return ""
}

// atoiUID reads the pod index the run stores in the pods' UIDs.
func atoiUID(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// cloudMonitorPeriod is how often the cloud node lifecycle controller
// looks at the nodes (cloud-controller-manager --node-monitor-period, 5s).
const cloudMonitorPeriod = 5 * time.Second

// cloudPass is one pass of the cloud node lifecycle controller.
func (r *run) cloudPass(now time.Time) {
	for i := range r.nodes {
		n := &r.nodes[i]
		if n.deleted {
			continue
		}
		d := cloud.DecideLifecycle(cloud.Node{Name: n.name, Conditions: n.conds, Taints: n.taints},
			cloud.Probe{Exists: !n.instanceGone, Shutdown: n.off})
		switch d.Action {
		case cloud.LifecycleDeleteNode:
			n.deleted = true
			r.syncNode(i)
			r.res.Totals.NodesDeleted++
			r.event(now, "nodedelete", n.zi, n.name, d.Reason, "%s: %s", n.name, d.Message)
		case cloud.LifecycleAddShutdownTaint:
			n.taints = taints.Apply(n.taints, []taints.Taint{cloud.ShutdownTaint()}, nil)
			r.event(now, "noschedule", n.zi, n.name, d.Reason, "%s tainted %s", n.name, cloud.ShutdownTaint())
			r.syncNode(i)
		case cloud.LifecycleRemoveShutdownTaint:
			n.taints = taints.Apply(n.taints, nil, []taints.Taint{cloud.ShutdownTaint()})
			r.syncNode(i)
		}
	}
	// The node lifecycle controller sees these changes at its next step
	// (the cloud controller runs before it at equal times, as it was
	// queued first).
}

// podGCPass is one run of the pod GC controller.
func (r *run) podGCPass(now time.Time) {
	if r.podGC == nil {
		var err error
		if r.podGC, err = gc.NewPodGC(gc.DefaultPodGCConfig()); err != nil {
			r.err = err
			return
		}
	}
	in := gc.PodGCInput{Pods: r.gcPods[:0], Nodes: r.gcNodes[:0]}
	for i := range r.nodes {
		n := &r.nodes[i]
		if n.deleted {
			continue
		}
		gn := gc.Node{Name: n.name, Ready: string(readyOf(n.conds))}
		for _, t := range n.taints {
			gn.Taints = append(gn.Taints, gc.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
		}
		in.Nodes = append(in.Nodes, gn)
	}
	for pi := range r.pods {
		p := &r.pods[pi]
		if p.gone >= 0 {
			continue
		}
		src := &r.srcPods[p.src]
		gp := gc.Pod{Namespace: src.Namespace, Name: src.Name, UID: p.p.UID, NodeName: src.Node, Phase: gc.PodRunning, CreationTimestamp: src.Created}
		if p.failed {
			gp.Phase = gc.PodFailed
			if p.fate == "pressure-evicted" {
				gp.Reason = pressure.Reason
			}
		}
		if p.terminating {
			t := r.cfg.Start.Add(p.stoppedAt)
			gp.DeletionTimestamp = &t
		}
		in.Pods = append(in.Pods, gp)
	}
	r.gcPods, r.gcNodes = in.Pods, in.Nodes
	plan, err := r.podGC.Step(now, in)
	if err != nil {
		r.err = err
		return
	}
	for _, d := range plan.Deletions {
		pi := atoiUID(d.Pod.UID)
		p := &r.pods[pi]
		r.res.Totals.ForceDeleted++
		r.event(now, "forcedelete", r.nodes[p.node].zi, p.p.Key(), string(d.Reason), "pod %s force deleted by the pod GC: %s", p.p.Key(), d.Message)
		if p.stoppedAt < 0 {
			r.stop(now, pi, "deleted", "PodGC/"+string(d.Reason), d.Message)
		}
		r.markGone(now, pi)
	}
}

// lostNow reports whether pod pi serves nowhere: neither it runs on a
// Ready node nor has its controller replaced it. serving[i] reports that
// node i is Ready and not deleted.
func (r *run) lostNow(pi int, serving []bool) bool {
	p := &r.pods[pi]
	if p.replaced >= 0 {
		return false
	}
	return p.stoppedAt >= 0 || !serving[p.node]
}

// sampleWorkloads adds up, at each sample, the time pods and workloads
// have been lost since the previous sample, and records the changes.
func (r *run) sampleWorkloads(now time.Time) {
	at := now.Sub(r.cfg.Start)
	step := r.cfg.SampleEvery
	clear(r.wlLost)
	if r.serving == nil {
		r.serving = make([]bool, len(r.nodes))
	}
	for i := range r.nodes {
		n := &r.nodes[i]
		r.serving[i] = !n.deleted && readyOf(n.conds) == conditions.True
	}
	for pi := range r.pods {
		p := &r.pods[pi]
		if p.wasLost {
			p.lost += step
		}
		p.wasLost = r.lostNow(pi, r.serving)
		if p.wasLost {
			p.affected = true
			if p.wl >= 0 {
				r.wlLost[p.wl]++
			}
		}
	}
	for w := range r.wls {
		wl := &r.wls[w]
		prev := 0
		if k := len(wl.Lost); k > 0 {
			prev = wl.Lost[k-1].Lost
		}
		wl.LostTime += time.Duration(prev) * step
		if r.wlLost[w] != prev {
			wl.Lost = append(wl.Lost, LostPoint{At: at, Lost: r.wlLost[w]})
		}
		wl.MaxLost = max(wl.MaxLost, r.wlLost[w])
	}
}

// outcomes writes the pods' and workloads' results.
func (r *run) outcomes() {
	touched := make([]bool, len(r.wls))
	for pi := range r.pods {
		p := &r.pods[pi]
		if !p.affected {
			continue
		}
		n := &r.nodes[p.node]
		src := &r.srcPods[p.src]
		o := Outcome{Pod: p.p.Key(), Node: n.name, Zone: r.zones[n.zi], Workload: src.Workload(), Fate: p.fate, At: p.stoppedAt,
			Rule: p.rule, Detail: p.detail, GoneAt: p.gone, ReplacedAt: p.replaced, Lost: p.lost}
		if o.Fate == "" {
			o.Fate, o.At = "spared", 0
			o.Rule, o.Detail = r.spared(pi)
		}
		if p.wl >= 0 {
			touched[p.wl] = true
		}
		r.res.Pods = append(r.res.Pods, o)
	}
	for w := range r.wls {
		if touched[w] {
			r.res.Workloads = append(r.res.Workloads, r.wls[w])
		}
	}
	slices.SortFunc(r.res.Workloads, func(a, b Workload) int { return strings.Compare(a.Name, b.Name) })
}

// spared says why pod pi, whose node was affected, was not removed.
func (r *run) spared(pi int) (rule, detail string) {
	p := &r.pods[pi]
	n := &r.nodes[p.node]
	switch {
	case p.cancelledAt > 0:
		return "EvictionCancelled", fmt.Sprintf("its eviction, due at %v, was cancelled at %v (%s)", p.scheduledAt, p.cancelledAt, p.cancelReason)
	case p.scheduledAt > 0:
		return "EvictionPending", fmt.Sprintf("its eviction is due at %v, after the end of the run", p.scheduledAt)
	case len(n.noExecute) > 0:
		return "Tolerated", fmt.Sprintf("tolerates %s with no tolerationSeconds", noExecuteTaints(n.noExecute))
	}
	for _, ps := range r.cfg.Pressures {
		if ps.Node == n.name {
			src := &r.srcPods[p.src]
			if src.Priority != nil && *src.Priority >= 2000000000 || src.Static || src.Mirror {
				return "CriticalPod", "under memory pressure, but critical pods are never evicted by the kubelet"
			}
			return "NotEvicted", "under memory pressure, but the eviction manager relieved it with pods ranked before this one"
		}
	}
	if n.deleted || n.off {
		return "NotRemoved", "its node is gone, and nothing removed the pod in the run"
	}
	return "NodeNotTainted", fmt.Sprintf("its node was not Ready for a while but never NoExecute-tainted (zone %s: %s)", r.zones[n.zi], r.states[n.zi])
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
