package sim

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// outageB is the tour's outage: zone b cut off from +60s to +600s.
var outageB = []Outage{{Zone: "b", From: time.Minute, To: 10 * time.Minute}}

// What happens to b-00 and its pods without jitter, worked out by hand:
// renewals every 10s from 0, the last good one at +50s; grace 50s with
// passes every 5s: Unknown and the condition's NoSchedule taint at +105s;
// the NoExecute decision reads the Ready after the rewrite (as upstream
// since v1.29, kubernetes#120816), so the taint comes in the same pass,
// +105s (first in its zone's queue, burst 1); its two pods tolerate 300s:
// deleted at +405s. The heartbeat's
// back-off after the cut (gets at 60.2, 60.6, 61.4, 63, 66.2, 72.6, then
// every 7s) reaches the API server at 72.6 + 76 x 7 = +604.6s, when the
// kubelet posts Ready; the +605s pass removes the NoExecute taint.
func TestNodeTimeline(t *testing.T) {
	res, err := Run(Config{Outages: outageB})
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		At   time.Duration
		Kind string
		Obj  string
	}
	var got []ev
	for _, e := range res.Events {
		if e.Object == "b-00" || strings.HasPrefix(e.Object, "shop/b-00-") {
			got = append(got, ev{e.At, e.Kind, e.Object})
		}
	}
	s := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	want := []ev{
		{s(105), "unknown", "b-00"},
		{s(105), "noschedule", "b-00"},
		{s(105), "taint", "b-00"},
		{s(405), "evict", "shop/b-00-0"},
		{s(405), "evict", "shop/b-00-1"},
		{s(604.6), "ready", "b-00"},
		{s(605), "untaint", "b-00"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("b-00's timeline (-want +got):\n%s", diff)
	}
	// One node every 10s from +105s: b-00..b-49 by +600s; b-00..b-19
	// (tainted by +295s) lose their 40 pods; b-20, tainted at +305s, is due
	// at +605s, when the pass that removes the taint cancels its eviction
	// first, and so are the other 29 nodes': 60 evictions cancelled.
	tot := res.Totals
	if tot.Tainted != 50 || tot.Evicted != 40 || tot.Cancelled != 60 || tot.Nodes != 150 || tot.Pods != 300 {
		t.Fatalf("totals %+v", tot)
	}
	// Zones a and c never change state after the first pass.
	for _, e := range res.Events {
		if e.Zone != "b" && e.At > 0 {
			t.Errorf("event outside zone b: %+v", e)
		}
	}
}

func TestDeterministicForASeed(t *testing.T) {
	cfg := Config{NodesPerZone: 40, Seed: 42, Outages: outageB}
	a, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(cfg)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two runs with seed 42 differ:\n%s", diff)
	}
	cfg.Seed = 43
	c, _ := Run(cfg)
	if cmp.Equal(a.Events, c.Events) {
		t.Fatal("seeds 42 and 43 gave the same events")
	}
	if a.SVG() != b.SVG() {
		t.Fatal("two SVGs of the same result differ")
	}
}

func TestNodesSpreadOverZones(t *testing.T) {
	res, err := Run(Config{Nodes: 3001, PodsPerNode: -1, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(res.ZoneNodes, []int{1001, 1000, 1000}) || !cmp.Equal(res.ZonePods, []int{0, 0, 0}) {
		t.Fatalf("zones %v, pods %v", res.ZoneNodes, res.ZonePods)
	}
	last := res.Timeline[len(res.Timeline)-1]
	if last.At != time.Minute || last.Zones[0].Ready != 1001 {
		t.Fatalf("last sample %+v", last)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Zones: 27}, "Zones 27 is not in [1, 26]"},
		{Config{Zones: -1}, "Zones -1"},
		{Config{NodesPerZone: -5}, "NodesPerZone -5 is not positive"},
		{Config{Nodes: 2}, "Nodes 2 is fewer than the 3 zones"},
		{Config{Nodes: MaxNodes + 1}, "Nodes 1000001 is above 1000000"},
		{Config{NodesPerZone: MaxNodes}, "Zones x NodesPerZone = 3 x 1000000"},
		{Config{Duration: -time.Second}, "Duration -1s"},
		{Config{Duration: 25 * time.Hour}, "Duration 25h0m0s"},
		{Config{SampleEvery: time.Millisecond}, "SampleEvery 1ms is below 1s"},
		{Config{PodsPerNode: 1001}, "PodsPerNode 1001"},
		{Config{Outages: []Outage{{Zone: "d"}}}, `Outages[0].Zone "d" is not one of the 3 zones`},
		{Config{Outages: []Outage{{Zone: "a", Nodes: 51}}}, "Outages[0].Nodes 51 is not in [0, 50]"},
		{Config{Outages: []Outage{{Zone: "a", From: -time.Second}}}, "Outages[0].From -1s is negative"},
		{Config{Outages: []Outage{{Zone: "a", From: time.Minute, To: time.Second}}}, "Outages[0].To 1s is not after From 1m0s"},
	} {
		err := c.cfg.Validate()
		if err == nil || !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.cfg, err, c.want)
		}
		if _, err := Run(c.cfg); err == nil {
			t.Errorf("%+v: Run accepted it", c.cfg)
		}
	}
	if err := (Config{}).Validate(); err != nil {
		t.Fatalf("the zero config: %v", err)
	}
}

// Invariants over random small clusters and outages: the controllers only
// taint nodes that were cut off, pods are deleted at most once and only
// from a node holding a NoExecute taint, the timeline counts every node,
// events come in time order, and a seed gives one result.
func TestPropertyInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := Config{
			Zones:             rapid.IntRange(1, 4).Draw(t, "zones"),
			NodesPerZone:      rapid.IntRange(1, 12).Draw(t, "perZone"),
			PodsPerNode:       rapid.IntRange(-1, 3).Draw(t, "pods"),
			Duration:          time.Duration(rapid.IntRange(1, 20).Draw(t, "minutes")) * time.Minute,
			Seed:              rapid.Int64Range(0, 5).Draw(t, "seed"),
			TolerationSeconds: rapid.SampledFrom([]int64{-1, 0, 30, 120}).Draw(t, "tol"),
		}
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, "outages"); i < n; i++ {
			from := time.Duration(rapid.IntRange(0, 600).Draw(t, "from")) * time.Second
			o := Outage{Zone: string(rune('a' + rapid.IntRange(0, cfg.Zones-1).Draw(t, "zone"))), Nodes: rapid.IntRange(0, cfg.NodesPerZone).Draw(t, "nodes"), From: from}
			if rapid.Bool().Draw(t, "ends") {
				o.To = from + time.Duration(rapid.IntRange(1, 600).Draw(t, "len"))*time.Second
			}
			cfg.Outages = append(cfg.Outages, o)
		}
		res, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		everCut := map[string]bool{}
		for _, o := range cfg.Outages {
			n := o.Nodes
			if n == 0 {
				n = cfg.NodesPerZone
			}
			for i := 0; i < n; i++ {
				everCut[nodeName(o.Zone, i, cfg.NodesPerZone)] = true
			}
		}
		tainted := map[string]bool{}
		deleted := map[string]bool{}
		var last time.Duration
		for _, e := range res.Events {
			if e.At < last {
				t.Fatalf("events out of order: %v after %v", e.At, last)
			}
			last = e.At
			switch e.Kind {
			case "taint", "noschedule", "unknown":
				if !everCut[e.Object] {
					t.Fatalf("%s on a node never cut off: %+v", e.Kind, e)
				}
				if e.Kind == "taint" {
					tainted[e.Object] = true
				}
			case "untaint":
				tainted[e.Object] = false
			case "evict":
				if deleted[e.Object] {
					t.Fatalf("pod deleted twice: %+v", e)
				}
				deleted[e.Object] = true
				node := e.Object[len("shop/"):strings.LastIndexByte(e.Object, '-')]
				if !tainted[node] {
					t.Fatalf("pod deleted from a node without a NoExecute taint: %+v", e)
				}
				if cfg.TolerationSeconds < 0 {
					t.Fatalf("a pod tolerating forever was deleted: %+v", e)
				}
			}
		}
		if res.Totals.Evicted != len(deleted) || res.Totals.Evicted > res.Totals.Pods {
			t.Fatalf("totals %+v, %d deleted", res.Totals, len(deleted))
		}
		for _, s := range res.Timeline {
			for z, zs := range s.Zones {
				if zs.Ready+zs.NotReady+zs.Unknown != res.ZoneNodes[z] || zs.Tainted > res.ZoneNodes[z] || zs.Evicted > res.ZonePods[z] {
					t.Fatalf("sample %+v of a zone of %d nodes", zs, res.ZoneNodes[z])
				}
			}
		}
		again, _ := Run(cfg)
		if !cmp.Equal(res, again) {
			t.Fatal("the same config gave two results")
		}
	})
}

// nodeName is the name the simulation gives node i of zone z.
func nodeName(zone string, i, perZone int) string {
	width := len(itoa(perZone - 1))
	if width < 2 {
		width = 2
	}
	s := itoa(i)
	for len(s) < width {
		s = "0" + s
	}
	return zone + "-" + s
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestSVGIsWellFormed(t *testing.T) {
	res, err := Run(Config{NodesPerZone: 10, Outages: outageB})
	if err != nil {
		t.Fatal(err)
	}
	svg := res.SVG()
	dec := xml.NewDecoder(strings.NewReader(svg))
	polylines := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			polylines++
		}
	}
	// zone b is cut off; a and c are quiet and share a line
	if polylines != 3 || !strings.Contains(svg, ">zone b (10 nodes, 20 pods)<") || strings.Contains(svg, ">zone a (") {
		t.Fatalf("%d polylines (want 3, for zone b alone)\n%s", polylines, svg)
	}
	for _, want := range []string{">2 zones where nothing happened (20 nodes, 40 pods): a, c<", "<title>outage b from "} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestProgress(t *testing.T) {
	var calls []time.Duration
	_, err := Run(Config{NodesPerZone: 2, Duration: 3 * time.Minute, Progress: func(done, total time.Duration) {
		if total != 3*time.Minute {
			t.Errorf("total %v", total)
		}
		calls = append(calls, done)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(calls, []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute, 3 * time.Minute}) {
		t.Fatalf("progress calls %v", calls)
	}
}

// BenchmarkRun is the --nodes 5000 run of cmd/simulate: 15 simulated
// minutes, zone b cut off for nine of them, seeded jitter.
func BenchmarkRun(b *testing.B) {
	for _, n := range []int{150, 5000} {
		b.Run("nodes="+itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Run(Config{Nodes: n, Seed: 1, Outages: outageB}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The workload panel says how many workloads it leaves out, keeps every
// legend line inside the picture (the whole text in a tooltip) and counts
// "1 replica" in the singular.
func TestSVGWorkloadLegend(t *testing.T) {
	res := Result{Zones: []string{"z"}, ZoneNodes: []int{1}, ZonePods: []int{10}, Duration: time.Minute,
		Windows: []Window{{Kind: "outage", Label: "outage z", From: 10 * time.Second, To: time.Minute, Zones: []string{"z"}}}}
	for i := 0; i < 10; i++ {
		w := Workload{Name: fmt.Sprintf("Deployment shop/w%d", i), Replicas: 3, MaxLost: 1, LostTime: time.Duration(10-i) * time.Second,
			Lost: []LostPoint{{At: 10 * time.Second, Lost: 1}}}
		if i == 0 {
			w.Name = "Deployment shop/" + strings.Repeat("very-long-name-", 12)
		}
		if i == 1 {
			w.Replicas = 1
		}
		res.Workloads = append(res.Workloads, w)
	}
	svg := res.SVG()
	long := "Deployment shop/" + strings.Repeat("very-long-name-", 12) + ": 3 replicas, at most 1 lost, 10s replica-time"
	for _, want := range []string{
		"the 8 that lost the most replica-time, 2 more not shown",
		"…<title>" + long + "</title>",
		">Deployment shop/w1: 1 replica, at most 1 lost, 9s replica-time<",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(svg, "w8:") || strings.Contains(svg, "w9:") {
		t.Error("the two workloads with the least replica-time are drawn")
	}
}
