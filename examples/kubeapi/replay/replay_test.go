package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nodelife/nodelife/examples/kubeapi/snapshot"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/sim"
)

func sample(t testing.TB) *sim.Cluster {
	t.Helper()
	snap, ws, err := snapshot.Load("../snapshot/testdata/sample.json")
	if err != nil || len(ws) > 0 {
		t.Fatalf("sample: %v %v", ws, err)
	}
	if err := snap.Validate(); err != nil {
		t.Fatal(err)
	}
	return snap.Cluster()
}

func s(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }

// fate is the part of an Outcome the hand-worked tables pin.
type fate struct {
	Fate               string
	At                 time.Duration
	Rule               string
	GoneAt, ReplacedAt time.Duration
}

func fates(res sim.Result) map[string]fate {
	out := map[string]fate{}
	for _, p := range res.Pods {
		out[p.Pod] = fate{p.Fate, p.At, p.Rule, p.GoneAt, p.ReplacedAt}
	}
	return out
}

// TestSampleZoneOutage: zone eu-1b (w-1b1, w-1b2) loses the API server
// from +1m to +11m; no jitter (seed 0), so every kubelet renews its lease
// at 0, 10s, 20s, ... Worked out by hand from upstream's rules and the
// pods' own tolerations in testdata/sample.json:
//
//   - last good renewal +50s; grace 50s, monitor every 5s: both nodes
//     Unknown at +105s (55s > 50s), with the unreachable NoSchedule taint;
//     the zone has no Ready node left: FullDisruption, which still taints
//     at 0.1 node/s (other zones are healthy), burst 1: w-1b1 gets the
//     unreachable NoExecute taint at +105s (the same pass: the decision
//     reads the rewritten Ready, as upstream since v1.29), w-1b2 10s
//     later, +115s;
//   - w-1b1: coredns-...-9kz7w and web-...-b tolerate unreachable for
//     300s: deleted at +405s; db-1 (StatefulSet) and kube-proxy
//     (DaemonSet) tolerate it with no tolerationSeconds: spared;
//   - w-1b2: api-...-a tolerates unreachable for 60s only: deleted at
//     +175s; web-...-c at +415s; kube-proxy spared;
//   - Deployments replace a pod as soon as its deletion starts (the pods
//     stay Terminating: their kubelets cannot confirm); the kubelets come
//     back after the heartbeat's back-off (retries at 60.2, 60.6, 61.4, 63,
//     66.2, 72.6s, then every 7s: 72.6 + 84 x 7 = +660.6s), post Ready,
//     and finish the deletions after the pods' 30s grace period: +690.6s.
func TestSampleZoneOutage(t *testing.T) {
	c := sample(t)
	o, err := ParseOutage(c, "eu-1b@1m-11m")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sim.Config{Cluster: c, Duration: 15 * time.Minute, Outages: []sim.Outage{o}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fate{
		"kube-system/coredns-5d78c9869d-9kz7w": {"evicted", s(405), "TaintManagerEviction", s(690.6), s(405)},
		"shop/web-7d9f8b6c5-b":                 {"evicted", s(405), "TaintManagerEviction", s(690.6), s(405)},
		"shop/web-7d9f8b6c5-c":                 {"evicted", s(415), "TaintManagerEviction", s(690.6), s(415)},
		"shop/api-6c4d7f9b8-a":                 {"evicted", s(175), "TaintManagerEviction", s(690.6), s(175)},
		"shop/db-1":                            {"spared", 0, "Tolerated", -1, -1},
		"kube-system/kube-proxy-w-1b1":         {"spared", 0, "Tolerated", -1, -1},
		"kube-system/kube-proxy-w-1b2":         {"spared", 0, "Tolerated", -1, -1},
	}
	if diff := cmp.Diff(want, fates(res)); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	// Lost replicas, sampled every 10s: the nodes turn Unknown at +105s,
	// so the +110s sample is the first to see their pods lost (and the
	// +410s, +420s and +180s samples the first after the evictions); a
	// Deployment's pod counts again once replaced; the spared pods
	// until their node is Ready again (+660.6s, seen at +670s).
	wantLost := map[string][]sim.LostPoint{
		"Deployment kube-system/coredns":   {{At: s(110), Lost: 1}, {At: s(410), Lost: 0}},
		"Deployment shop/web":              {{At: s(110), Lost: 2}, {At: s(410), Lost: 1}, {At: s(420), Lost: 0}},
		"Deployment shop/api":              {{At: s(110), Lost: 1}, {At: s(180), Lost: 0}},
		"StatefulSet shop/db":              {{At: s(110), Lost: 1}, {At: s(670), Lost: 0}},
		"DaemonSet kube-system/kube-proxy": {{At: s(110), Lost: 2}, {At: s(670), Lost: 0}},
	}
	got := map[string][]sim.LostPoint{}
	for _, w := range res.Workloads {
		got[w.Name] = w.Lost
	}
	if diff := cmp.Diff(wantLost, got); diff != "" {
		t.Errorf("lost replicas (-want +got):\n%s", diff)
	}
	if tot := res.Totals; tot.Evicted != 4 || tot.Tainted != 2 || tot.Skipped != 1 || tot.Pods != 17 || tot.Nodes != 7 {
		t.Errorf("totals %+v", tot)
	}
}

// TestSampleShutdownsPressureCloud combines the other scenarios on one
// timeline of the sample, each on nodes of its own (no jitter). Worked
// out by hand:
//
//   - w-1a2 shuts down gracefully at +2m with shutdownGracePeriod 60s and
//     shutdownGracePeriodCriticalPods 20s: phase 1 (priority below 2e9,
//     40s) kills db-0 (priority 100000, grace min(30s, 40s) = 30s) at
//     +120s, Failed at +150s, when the StatefulSet deletes and recreates
//     it; phase 2 (critical, 20s) kills kube-proxy (priority 2000001000,
//     grace 20s) at +160s; the node powers off at +180s;
//   - w-1c2 powers off at +2m (no graceful shutdown configured); an
//     operator adds the out-of-service taint at +7m30s: db-2 and
//     kube-proxy tolerate not-ready and unreachable only, so the taint
//     eviction controller deletes both at once (+450s); the pod GC (every
//     20s from 0) force deletes them at +460s, and the StatefulSet
//     replaces db-2 then;
//   - w-1c1's instance is deleted at +2m: last renewal +110s, Unknown at
//     +165s; the cloud node lifecycle controller (every 5s; at equal times
//     the simulator runs what was queued first, and the node lifecycle
//     controller queued its +165s step at its +160s step, before the cloud
//     controller's pass of +160s queued its next) sees it not Ready at
//     +165s and deletes the Node; the pod GC quarantines it at +180s and,
//     40s later, +220s,
//     force deletes api-...-b (the Deployment replaces it) and kube-proxy;
//   - w-1a1's memory.available drops to 50Mi from +3m to +8m (hard
//     threshold 100Mi): every pod uses its 128Mi request, none exceeds it,
//     kube-proxy is critical, so web-...-a (priority 0) goes at +180s with
//     grace 1s (hard threshold): Failed and replaced at +181s; freeing
//     128Mi ends the shortfall (178Mi available).
func TestSampleShutdownsPressureCloud(t *testing.T) {
	c := sample(t)
	graceful, err := ParseShutdown(c, "w-1a2@2m", shutdown.Config{ShutdownGracePeriod: time.Minute, ShutdownGracePeriodCriticalPods: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	hard, err := ParseShutdown(c, "w-1c2@2m/7m30s", shutdown.Config{})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := ParsePressure(c, "w-1a1@3m-8m:50Mi", 0)
	if err != nil {
		t.Fatal(err)
	}
	del, err := ParseCloudDeletion(c, "w-1c1@2m")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sim.Config{Cluster: c, Duration: 15 * time.Minute, Shutdowns: []sim.Shutdown{graceful, hard},
		Pressures: []sim.Pressure{pr}, CloudDeletions: []sim.CloudDeletion{del}})
	if err != nil {
		t.Fatal(err)
	}
	got := fates(res)
	want := map[string]fate{
		"shop/db-0":                    {"killed", s(120), "NodeShutdown", s(150), s(150)},
		"kube-system/kube-proxy-w-1a2": {"killed", s(160), "NodeShutdown", -1, -1},
		"shop/db-2":                    {"evicted", s(450), "UntoleratedTaint", s(460), s(460)},
		"kube-system/kube-proxy-w-1c2": {"evicted", s(450), "UntoleratedTaint", s(460), -1},
		"shop/api-6c4d7f9b8-b":         {"deleted", s(220), "PodGC/orphaned", s(220), s(220)},
		"kube-system/kube-proxy-w-1c1": {"deleted", s(220), "PodGC/orphaned", s(220), -1},
		"shop/web-7d9f8b6c5-a":         {"pressure-evicted", s(180), "Evicted", -1, s(181)},
		"kube-system/kube-proxy-w-1a1": {"spared", 0, "CriticalPod", -1, -1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	events := map[string]time.Duration{}
	for _, e := range res.Events {
		if _, seen := events[e.Kind+" "+e.Object]; !seen {
			events[e.Kind+" "+e.Object] = e.At
		}
	}
	for k, at := range map[string]time.Duration{"poweroff w-1a2": s(180), "poweroff w-1c2": s(120), "nodedelete w-1c1": s(165),
		"unknown w-1c1": s(165), "pressure-end w-1a1": s(480)} {
		if got, ok := events[k]; !ok || got != at {
			t.Errorf("%s at %v (seen %v), want %v", k, got, ok, at)
		}
	}
	if tot := res.Totals; tot.Killed != 2 || tot.PressureEvicted != 1 || tot.ForceDeleted != 4 || tot.NodesDeleted != 1 {
		t.Errorf("totals %+v", tot)
	}
}

func TestSelectAndSpecs(t *testing.T) {
	c := sample(t)
	for _, tc := range []struct {
		sel   string
		zone  string
		count int
		names []string
	}{
		{"eu-1b", "eu-1b", 0, nil},
		{"eu-1/eu-1c", "eu-1/eu-1c", 0, nil},
		{"eu-1a/2", "eu-1a", 2, nil},
		{"eu-1/eu-1a/2", "eu-1/eu-1a", 2, nil},
		{"w-1a1+cp-1", "", 0, []string{"w-1a1", "cp-1"}},
	} {
		zone, count, names, err := Select(c, tc.sel)
		if err != nil || zone != tc.zone || count != tc.count || !cmp.Equal(names, tc.names) {
			t.Errorf("Select(%q) = %q %d %v %v", tc.sel, zone, count, names, err)
		}
	}
	for _, bad := range []struct{ spec, want string }{
		{"eu-9z@1m-2m", `"eu-9z" is neither a zone (eu-1/eu-1a, eu-1/eu-1b, eu-1/eu-1c) nor a node`},
		{"eu-1b", "want SELECTOR@TIME"},
		{"eu-1b@1m", "want FROM-TO"},
		{"eu-1b@x-2m", `invalid duration "x"`},
		{"eu-1a/0@1m-2m", `node count "0"`},
	} {
		if _, err := ParseOutage(c, bad.spec); err == nil || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), bad.spec) {
			t.Errorf("ParseOutage(%q): %v, want it to name the spec and say %q", bad.spec, err, bad.want)
		}
	}
	if _, err := ParseShutdown(c, "w-1a1@5m/1m", shutdown.Config{}); err == nil || !strings.Contains(err.Error(), "must come after") {
		t.Errorf("out-of-service before the shutdown: %v", err)
	}
	if _, err := ParsePressure(c, "eu-1a@1m-2m:50Mi", 0); err == nil || !strings.Contains(err.Error(), "select one node") {
		t.Errorf("pressure on a zone: %v", err)
	}
	if _, err := ParsePressure(c, "w-1a1@1m-2m:lots", 0); err == nil || !strings.Contains(err.Error(), `"lots"`) {
		t.Errorf("pressure with a bad quantity: %v", err)
	}
}

// A name of 300 characters (a static pod named after a long node name)
// is shortened in the middle in every table, so that the tables keep
// their width; a footnote says so. Names of NameWidth or fewer characters
// print whole.
func TestSummaryShortensLongNames(t *testing.T) {
	long := strings.Repeat("a", 150) + strings.Repeat("b", 150)
	short := strings.Repeat("a", 23) + "…" + strings.Repeat("b", 24) // (48-1)/2 characters before, the rest after
	exact := strings.Repeat("c", NameWidth)
	res := sim.Result{Zones: []string{"z"}, ZoneNodes: []int{1}, ZonePods: []int{2}, Duration: time.Minute,
		Timeline:  []sim.Sample{{Zones: []sim.ZoneSample{{Zone: "z", Ready: 1}}}},
		Workloads: []sim.Workload{{Name: "static pod ns/" + long, Replicas: 1, MaxLost: 1}, {Name: exact, Replicas: 1}},
		Pods: []sim.Outcome{{Pod: "ns/" + long, Node: long, Zone: "z", Fate: "evicted", PlacedOn: long, GoneAt: -1, ReplacedAt: -1},
			{Pod: exact, Node: "n", Zone: "z", Fate: "spared", GoneAt: -1, ReplacedAt: -1}}}
	var b strings.Builder
	if err := WriteSummary(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, long) {
		t.Errorf("the long name printed whole:\n%s", out)
	}
	for _, want := range []string{"static pod ns/" + strings.Repeat("a", 9) + "…" + strings.Repeat("b", 24) + "  1", "\n" + exact + "  1", "\n" + exact + "  n ",
		"ns/" + strings.Repeat("a", 20) + "…" + strings.Repeat("b", 24) + "  " + short + "  evicted", "(names longer than 48 characters are shortened in the middle; -json prints them whole)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > 250 {
			t.Errorf("a line of %d characters: %s", n, line)
		}
	}
}
