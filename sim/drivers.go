package sim

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodelife/nodelife/cloud"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/lease"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/taints"
)

// The simulated world's own actors, as events on the queue: outages, the
// kubelets' heartbeats and status posts, graceful and non-graceful
// shutdowns, memory pressure episodes, the cloud node lifecycle controller
// and the pod GC.

func (r *run) outage(now time.Time, i int) {
	start := i >= 0
	if !start {
		i = -1 - i
	}
	o := r.cfg.Outages[i]
	var z, n int
	var what string
	if r.explicit {
		sel := r.selectNodes(o.Zone, o.Nodes, o.Names)
		n, z = len(sel), -1
		if len(sel) > 0 {
			z = r.nodes[sel[0]].zi
			for _, k := range sel {
				if r.nodes[k].zi != z {
					z = -1
				}
			}
		}
		what = "zone " + o.Zone
		if o.Zone == "" {
			what = "nodes " + strings.Join(o.Names, ",")
		} else if len(o.Names) > 0 {
			what += " and nodes " + strings.Join(o.Names, ",")
		}
	} else {
		z = int(o.Zone[0] - 'a')
		if n = o.Nodes; n == 0 {
			n = r.res.ZoneNodes[z]
		}
		what = "zone " + r.zones[z]
	}
	object := strings.TrimPrefix(what, "zone ")
	if start {
		r.event(now, "outage", z, object, "Outage", "%s: %d nodes lose connectivity to the API server", what, n)
	} else {
		r.event(now, "reconnect", z, object, "Reconnect", "%s: %d nodes can reach the API server again", what, n)
	}
}

// isCut reports whether node i cannot reach the API server at now.
func (r *run) isCut(i int, now time.Time) bool {
	n := &r.nodes[i]
	if n.off {
		return true
	}
	for _, w := range n.cut {
		if !now.Before(w[0]) && (w[1].IsZero() || now.Before(w[1])) {
			return true
		}
	}
	return false
}

func (r *run) heartbeat(now time.Time, i int) {
	n := &r.nodes[i]
	if n.off {
		return // powered off: no kubelet any more
	}
	cut := r.isCut(i, now)
	if cut {
		s := r.failRound(now, n)
		if n.retryAlone && n.cutToEnd(now) {
			r.retryUntilEnd(nextRound(s, now), i)
		} else {
			r.push(nextRound(s, now), evHeartbeat, i)
		}
		return
	}
	wrote := false // the last request was a write that succeeded
	s := n.hb.Step(now)
	for tries := 0; s.Op != lease.OpWait && tries < 16; tries++ {
		r.res.Totals.Heartbeats++
		wrote = false
		switch {
		case s.Op == lease.OpGet && !n.hasLease:
			s = n.hb.Done(now, lease.NotFound, nil)
		case s.Op == lease.OpGet:
			l := n.lease
			rt := *l.RenewTime // the heartbeat may keep what it read
			l.RenewTime = &rt
			s = n.hb.Done(now, lease.OK, &l)
		default:
			if n.hasLease && s.Op == lease.OpUpdate {
				// A renewal: the same lease with a new renew time (written
				// in place: 43 million renewals a day at 5,000 nodes).
				*n.lease.RenewTime = s.RenewTime
			} else {
				n.lease, n.hasLease = s.Object(), true
			}
			r.leaseRV++
			n.leaseRV = r.leaseRV
			s = n.hb.Done(now, lease.OK, nil)
			wrote = true
			if !r.stalled {
				r.deliverLease(n)
			}
		}
	}
	want, in := conditions.True, kubeletReady
	if n.shutting {
		want, in = conditions.False, kubeletShutting
	}
	if before := n.ready; before != want {
		// The kubelet's status sync finds the API server's Ready not what
		// it computes, and posts.
		conds, _ := conditions.SetKubeletConditions(now, n.conds, in)
		n.setConds(conds)
		r.stale = true
		r.evalReadiness(now, i)
		switch {
		case want == conditions.False:
			r.event(now, "notready", n.zi, n.name, "KubeletNotReady", "%s posts Ready=False: %v", n.name, shutdown.ErrNodeShuttingDown)
		case before != "":
			r.event(now, "ready", n.zi, n.name, conditions.ReasonKubeletReady, "%s posts Ready=True again (was %s)", n.name, before)
			r.reconnected(now, i)
		}
		r.syncNode(i)
		r.step(now)
	}
	if s.Op == lease.OpWait && s.Next.After(now) && n.quiet && wrote && !now.Before(n.quietFrom) && n.ready == conditions.True {
		if r.lazy {
			r.goLazy(s.Next, i)
			return
		}
		r.addRenewal(s.Next, i)
	} else {
		r.push(nextRound(s, now), evHeartbeat, i)
	}
}

// setConds sets the node's conditions and its Ready status with them.
func (n *node) setConds(conds []conditions.Condition) {
	n.conds, n.ready = conds, readyOf(conds)
}

// readyOf is the Ready status of conds, "" when there is none.
func readyOf(conds []conditions.Condition) conditions.Status {
	if c, ok := conditions.Find(conds, conditions.Ready); ok {
		return c.Status
	}
	return ""
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
	var sp []core.Pod
	for _, pi := range n.pods {
		if p := &r.pods[pi]; p.stoppedAt < 0 {
			// the cluster's pod as it runs here: the run's UID, Running
			s := r.srcPods[p.src]
			s.UID, s.Phase, s.DeletionTimestamp = p.p.UID, core.PodRunning, nil
			sp = append(sp, s)
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
			pi := r.podOf(pp.Pod.UID)
			if pi < 0 {
				continue
			}
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
	r.stale = true
	n.sawNoExecute(t)
	r.event(now, "taint", n.zi, n.name, "OutOfService", "%s tainted %s by the operator", n.name, t)
	r.syncNode(i)
	r.step(now)
}

// pressureState is a running memory pressure episode.
type pressureState struct {
	cfg   Pressure
	node  int
	evc   pressure.Config // the kubelet's eviction configuration
	m     *pressure.Manager
	freed uint64
	end   time.Time
	huge  uint64 // the node's huge page capacity, in bytes
}

func (r *run) startPressure(now time.Time, i int, p Pressure) {
	cfg := r.prof.Pressure
	if p.Eviction != nil {
		cfg = *p.Eviction
	}
	m, err := pressure.NewManager(cfg)
	if err != nil {
		r.err = err
		return
	}
	ps := &pressureState{cfg: p, node: i, evc: cfg, m: m}
	if r.srcNodes != nil {
		ps.huge = uint64(r.srcNodes[i].Capacity.HugePagesBytes())
	}
	if p.To != 0 {
		ps.end = r.cfg.Start.Add(p.To)
	}
	n := &r.nodes[i]
	r.event(now, "pressure", n.zi, n.name, "MemoryPressureEpisode", "%s: memory.available drops to %d MiB", n.name, p.AvailableBytes>>20)
	r.pressureStep(now, ps)
}

// workingSet is a pod's working set under p; mem is its memory request.
func workingSet(src *core.Pod, mem int64, p Pressure) uint64 {
	if src.Phase == core.PodPending {
		return 0 // bound, not started: no container uses memory yet
	}
	if mem <= 0 {
		return cmp.Or(p.BestEffortBytes, 64<<20)
	}
	ratio := p.UsageRatio
	if ratio == 0 {
		ratio = 1
	}
	return uint64(float64(mem) * ratio)
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
	var pods []core.Pod
	var idx []int // their indices
	stats := pressure.Stats{}
	var ws uint64
	for _, pi := range n.pods {
		p := &r.pods[pi]
		if p.stoppedAt >= 0 {
			continue
		}
		src := &r.srcPods[p.src]
		w := workingSet(src, p.mem, ps.cfg)
		ws += w
		// the cluster's pod under the run's UID, which the decision names
		pp := *src
		pp.UID = p.p.UID
		pods = append(pods, pp)
		stats[pp.UID] = &pressure.PodStats{WorkingSetBytes: &w}
		idx = append(idx, pi)
	}
	obs := ps.evc.Observe(pressure.NodeStats{Memory: &pressure.MemoryStats{Time: now, AvailableBytes: &avail, WorkingSetBytes: &ws},
		HugePagesCapacityBytes: ps.huge})
	res := ps.m.Step(now, obs, pods, stats)
	under := slices.Contains(res.Conditions, conditions.MemoryPressure)
	if under || res.Decision.Kind != pressure.DecideNothing {
		// the pods of a node under pressure are affected: each is evicted
		// or spared (outcomes); a kubelet that never saw the pressure
		// (its release reads the episode's memory as enough) affects none
		n.pressured = true
		for _, pi := range idx {
			r.pods[pi].affected = true
		}
	}
	before := condStatus(n.conds, conditions.MemoryPressure)
	conds, _, _ := conditions.SetPressure(now, n.conds, conditions.MemoryPressure, under)
	n.setConds(conds)
	r.stale = true
	if after := condStatus(n.conds, conditions.MemoryPressure); after != before {
		r.event(now, "condition", n.zi, n.name, "MemoryPressure", "%s posts MemoryPressure=%s", n.name, after)
	}
	r.evalReadiness(now, ps.node)
	r.syncNode(ps.node)
	r.step(now)
	pi := -1
	if ev := res.Decision.Evict; ev != nil {
		pi = r.podOf(ev.Pod.UID)
	}
	if ev := res.Decision.Evict; pi >= 0 {
		src := &r.srcPods[r.pods[pi].src]
		ps.freed += workingSet(src, r.pods[pi].mem, ps.cfg)
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
		d := cloud.DecideLifecycle(core.Node{Name: n.name, Conditions: n.conds, Taints: n.taints},
			cloud.Probe{Exists: !n.instanceGone, Shutdown: n.off})
		switch d.Action {
		case cloud.LifecycleDeleteNode:
			n.deleted = true
			r.stale = true
			r.syncNode(i)
			r.res.Totals.NodesDeleted++
			r.event(now, "nodedelete", n.zi, n.name, d.Reason, "%s: %s", n.name, d.Message)
		case cloud.LifecycleAddShutdownTaint:
			n.taints = taints.Apply(n.taints, []taints.Taint{cloud.ShutdownTaint()}, nil)
			r.stale = true
			r.event(now, "noschedule", n.zi, n.name, d.Reason, "%s tainted %s", n.name, cloud.ShutdownTaint())
			r.syncNode(i)
		case cloud.LifecycleRemoveShutdownTaint:
			n.taints = taints.Apply(n.taints, nil, []taints.Taint{cloud.ShutdownTaint()})
			r.stale = true
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
	r.gcConds = r.gcConds[:0]
	for i := range r.nodes {
		n := &r.nodes[i]
		if n.deleted {
			continue
		}
		gn := core.Node{Name: n.name, Taints: n.taints}
		if n.ready != "" {
			// One Ready condition per node, kept in one array across runs.
			k := len(r.gcConds)
			r.gcConds = append(r.gcConds, conditions.Condition{Type: conditions.Ready, Status: n.ready})
			gn.Conditions = r.gcConds[k : k+1 : k+1]
		}
		in.Nodes = append(in.Nodes, gn)
	}
	for pi := range r.pods {
		p := &r.pods[pi]
		if p.gone >= 0 {
			continue
		}
		src := &r.srcPods[p.src]
		gp := core.Pod{Namespace: src.Namespace, Name: src.Name, UID: p.p.UID, NodeName: src.NodeName, Phase: core.PodRunning, CreationTimestamp: src.CreationTimestamp}
		if p.failed {
			gp.Phase = core.PodFailed
			if p.notesOr().fate == "pressure-evicted" {
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
		pi := r.podOf(d.Pod.UID)
		if pi < 0 {
			continue
		}
		p := &r.pods[pi]
		r.res.Totals.ForceDeleted++
		r.event(now, "forcedelete", r.nodes[p.node].zi, p.p.Key(), string(d.Reason), "pod %s force deleted by the pod GC: %s", p.p.Key(), d.Message)
		if p.stoppedAt < 0 {
			r.stop(now, pi, "deleted", "PodGC/"+string(d.Reason), d.Message)
		}
		r.markGone(now, pi)
	}
}

// leaseCache begins (stall) or ends a LeaseCacheStall: at its end the
// cache receives every node's current lease, in node order, and has caught
// up with the API server.
func (r *run) leaseCache(now time.Time, stall bool) {
	if stall {
		r.stalled = true
		r.event(now, "lease-cache", -1, "kube-controller-manager", "LeaseCacheStalled", "the controller's lease watch hangs: its lease cache stays at resource version %d", r.cacheRV)
		return
	}
	r.stalled = false
	for i := range r.nodes {
		if n := &r.nodes[i]; n.hasLease && !n.deleted {
			r.deliverLease(n)
		}
	}
	r.cacheRV = r.leaseRV
	r.event(now, "lease-cache", -1, "kube-controller-manager", "LeaseCacheSynced", "the controller's lease cache catches up at resource version %d", r.cacheRV)
	r.step(now)
}

// LiveLease answers the lease circuit breaker from the simulated API
// server: the node's lease as last written.
func (r *run) LiveLease(name string) (string, bool, error) {
	// A pass asks about its timed-out nodes in its node order, by name as
	// the simulator's is: the few nodes after the last one asked are tried
	// before the map (a zone of a third of 100,000 nodes, every third
	// node, asked at every pass of its outage).
	i, ok := r.lastAsked, false
	h := maphash.String(r.hashSeed, name)
	for end := min(i+8, len(r.nodes)-1); i < end && !ok; {
		i++
		ok = r.nameHash[i] == h && r.nodes[i].name == name
	}
	if !ok {
		i, ok = r.index[name]
	}
	if ok {
		r.lastAsked = i
	}
	if !ok || !r.nodes[i].hasLease {
		return "", false, nil
	}
	return r.nodes[i].rv(), true, nil
}

// CacheResourceVersion is the resource version the controller's lease
// cache has reached.
func (r *run) CacheResourceVersion() string {
	if r.cacheRV == 0 {
		return ""
	}
	return strconv.FormatUint(r.cacheRV, 10)
}
