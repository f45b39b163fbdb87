package scenario

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nodelife/nodelife/sim"
)

// ZoneOutage runs the simulation driver (sim) on three zones of
// 50 nodes, two pods each with the default 300s tolerations: zone b loses
// connectivity to the API server at +60s and gets it back at +600s. Its
// kubelets' lease renewals fail; the node monitor turns the nodes Unknown
// 50s after their last renewal (+105s, the first 5s pass after +100s); the
// condition taints add unreachable:NoSchedule at once; zone b goes
// FullDisruption, which, with zones a and c healthy, keeps the normal
// rate of 0.1 nodes/s, so the unreachable:NoExecute taints come one node
// every 10s from +110s; each tainted node's pods are deleted 300s later.
// When the zone comes back its kubelets post Ready, the taints come off
// and the evictions still pending are cancelled.
//
// Options.Size is the number of nodes per zone (default 50); Options.Seed
// adds heartbeat jitter and random kubelet start offsets; Options.Progress
// gets a line per simulated minute.
func ZoneOutage(opts Options) (Report, error) {
	perZone := opts.Size
	if perZone <= 0 {
		perZone = 50
	}
	r := Report{Name: "zone-outage", Title: fmt.Sprintf("3 zones x %d nodes (2 pods each, tolerating 300s); zone b is cut off from +60s to +600s", perZone)}
	cfg := sim.Config{Zones: 3, NodesPerZone: perZone, PodsPerNode: 2, Start: Start, Seed: opts.Seed, Duration: 15 * time.Minute,
		Outages: []sim.Outage{{Zone: "b", From: time.Minute, To: 10 * time.Minute}}}
	if opts.Progress != nil {
		cfg.Progress = func(done, total time.Duration) {
			fmt.Fprintf(opts.Progress, "zone-outage: simulated %v of %v\n", done, total)
		}
	}
	res, err := sim.Run(cfg)
	if err != nil {
		return r, err
	}
	type line struct {
		at  time.Duration
		seq int
		ev  Event
	}
	var lines []line
	type group struct {
		n    int
		last sim.Event
		seq  int
	}
	groups := map[string]*group{}
	var order []string
	const detail = 2
	for i, e := range res.Events {
		key := e.Kind + "/" + e.Zone + "/" + e.Reason
		g := groups[key]
		if g == nil {
			g = &group{}
			groups[key] = g
			order = append(order, key)
		}
		g.n++
		g.last, g.seq = e, i
		if e.Kind == "outage" || e.Kind == "reconnect" || e.Kind == "zone" || g.n <= detail {
			lines = append(lines, line{e.At, i, Event{At: e.At, Timed: true, Kind: e.Kind, Object: e.Object, Reason: e.Reason, Message: e.Message}})
		}
	}
	for _, key := range order {
		g := groups[key]
		if g.n <= detail || g.last.Kind == "zone" || g.last.Kind == "outage" || g.last.Kind == "reconnect" {
			continue
		}
		lines = append(lines, line{g.last.At, g.seq, Event{At: g.last.At, Timed: true, Kind: g.last.Kind, Object: "zone " + g.last.Zone, Reason: g.last.Reason,
			Message: fmt.Sprintf("... %s in zone %s: %d in all, the last %s", kindNoun[g.last.Kind], g.last.Zone, g.n, g.last.Object)}})
	}
	// Every two minutes, the cluster at a glance.
	for i, s := range res.Timeline {
		if s.At%(2*time.Minute) != 0 || s.At == 0 {
			continue
		}
		var parts []string
		for _, z := range s.Zones {
			parts = append(parts, fmt.Sprintf("%s %d/%d/%d %d %d", z.Zone, z.Ready, z.NotReady, z.Unknown, z.Tainted, z.Evicted))
		}
		lines = append(lines, line{s.At, len(res.Events) + i, Event{At: s.At, Timed: true, Kind: "sample",
			Message: "[zone Ready/NotReady/Unknown, NoExecute-tainted, pods evicted] " + strings.Join(parts, " | ")}})
	}
	sort.SliceStable(lines, func(i, j int) bool {
		if lines[i].at != lines[j].at {
			return lines[i].at < lines[j].at
		}
		return lines[i].seq < lines[j].seq
	})
	for _, l := range lines {
		r.Events = append(r.Events, l.ev)
	}
	t := res.Totals
	r.figure("nodes", int64(t.Nodes))
	r.figure("pods", int64(t.Pods))
	r.figure("NoExecute taints", int64(t.Tainted))
	r.figure("pods evicted", int64(t.Evicted))
	r.figure("evictions cancelled", int64(t.Cancelled))
	return r, nil
}

// kindNoun names a kind of simulation event in a summary line.
var kindNoun = map[string]string{
	"unknown":    "nodes turned Unknown",
	"ready":      "nodes Ready again",
	"noschedule": "NoSchedule taints",
	"taint":      "NoExecute taints",
	"untaint":    "nodes untainted",
	"evict":      "pods evicted",
	"cancel":     "evictions cancelled",
}
