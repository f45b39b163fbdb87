package sim

import (
	"testing"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/sim/trace"
)

// A fault window of n1 from 100s to 1000s in a cluster of two nodes,
// without jitter (Seed 0: the kubelets renew at 0s, 10s, ...): n1's last
// renewal before its fault is at 90s, and v1.37's controller (a pass
// every 5s, 50s of grace) finds it silent at the first pass more than 50s
// after the pass that read it. The zero-length window is dropped, the
// ongoing one lasts to the end.
func TestFaultOutages(t *testing.T) {
	s := time.Second
	ws := []trace.FaultWindow{{Node: "n1", Start: 100 * s, End: 1000 * s}, {Node: "n2", Start: 5 * s, End: 5 * s},
		{Node: "n3", Start: 30 * s, Ongoing: true}}
	got := FaultOutages(ws)
	if len(got) != 2 || got[0].Names[0] != "n1" || got[0].From != 100*s || got[0].To != 1000*s || got[1].Names[0] != "n3" || got[1].To != 0 {
		t.Fatalf("outages %+v", got)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var c Cluster
	for _, name := range []string{"n1", "n2"} {
		c.Nodes = append(c.Nodes, core.Node{Name: name, CreationTimestamp: start.Add(-time.Hour),
			Labels:     map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: "a"},
			Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}}})
	}
	res, err := Run(Config{Cluster: &c, Start: start, Duration: 20 * time.Minute, Outages: FaultOutages(ws[:1])})
	if err != nil {
		t.Fatal(err)
	}
	var unknown, ready []time.Duration
	for _, e := range res.Events {
		switch {
		case e.Kind == "unknown":
			if e.Object != "n1" {
				t.Errorf("%s turned Unknown", e.Object)
			}
			unknown = append(unknown, e.At)
		case e.Kind == "ready" && e.Object == "n1":
			ready = append(ready, e.At)
		}
	}
	if len(unknown) != 1 || unknown[0] != 145*s {
		t.Errorf("n1 Unknown at %v, want once at 2m25s", unknown)
	}
	if len(ready) != 1 || ready[0] < 1000*s || ready[0] > 1010*s {
		t.Errorf("n1 Ready again at %v, want once within a renewal interval of 1000s", ready)
	}
}
