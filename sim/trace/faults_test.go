package trace

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

const faultFile = "../../../shared/data/traces/infinitehbd-faults/fault_trace.json"

func days(d float64) time.Duration { return time.Duration(d * float64(Day)) }

// The published trace: 1,168 events, 584 windows on 231 nodes, none left
// open (its README). Node d0aff1b6's faults of three types overlap, and
// each end closes the start of its own type, checked against the file by
// hand.
func TestReadFaultsPublished(t *testing.T) {
	ws, err := ReadFaultsFile(faultFile)
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[string]bool{}
	for _, w := range ws {
		nodes[w.Node] = true
		if w.Ongoing || w.End < w.Start {
			t.Errorf("window %+v", w)
		}
	}
	if len(ws) != 584 || len(nodes) != 231 {
		t.Fatalf("%d windows on %d nodes, want 584 on 231", len(ws), len(nodes))
	}
	first := ws[0]
	if first.Node != "6f24e2b2-5b9b-4f8a-82ec-d7d57d7c6758" || first.Start != days(3.8955) || first.End != days(54.0053) ||
		first.Type != (FaultType{"Hardware Failure", "GPU", "GPU DBE(Double Bit ECC) > Threshold"}) {
		t.Errorf("first window %+v", first)
	}
	got := map[string]string{}
	for _, w := range ws {
		if w.Node == "d0aff1b6-1dea-433e-b483-5a86089fd8f9" {
			got[w.Type.Desc] += fmt.Sprintf("[%v %v]", w.Start, w.End)
		}
	}
	for desc, want := range map[string]string{
		"GPU Temperature High": fmt.Sprintf("[%v %v]", days(180.278), days(271.9319)),
		"Configuration Error":  fmt.Sprintf("[%v %v]", days(271.244), days(271.9428)),
		"Unknown Error":        fmt.Sprintf("[%v %v][%v %v]", days(249.2998), days(249.7335), days(284.0847), days(284.685)),
	} {
		if got[desc] != want {
			t.Errorf("%s: %s, want %s", desc, got[desc], want)
		}
	}
}

func TestReadFaultsMalformed(t *testing.T) {
	ev := func(node, kind string, at float64) string {
		return fmt.Sprintf(`{"node_id": %q, "event_time": %v, "event_type": %q, "fault_type": {"Level": "L", "Class": "C", "Desc": "D"}}`, node, at, kind)
	}
	for _, c := range []struct{ in, want string }{
		{`{}`, "f.json:1:1: want a JSON array of fault events"},
		{"[\n  " + ev("a", "fault_start", 1) + ",\n  " + ev("a", "fault_stop", 2) + "\n]", `f.json:3:3: event_type "fault_stop": want fault_start or fault_end`},
		{"[" + ev("a", "fault_end", 1) + "]", "f.json:1:2: fault_end of node a (L/C/D) with no fault_start of that type open"},
		{"[" + ev("a", "fault_start", 2) + ", " + ev("b", "fault_start", 1) + "]", "event_time 1 before the event before it (2)"},
		{"[" + ev("a", "fault_start", -1) + "]", "f.json:1:2: event_time -1: want days from 0 to 100000"},
		{`[{"event_time": 1, "event_type": "fault_start", "fault_type": {}}]`, "f.json:1:2: no node_id"},
		{`[{"node_id": "a", "event_type": "fault_start", "fault_type": {}}]`, "no event_time"},
		{`[{"node_id": "a", "event_time": 1, "fault_type": {}}]`, "no event_type"},
		{`[{"node_id": "a", "event_time": 1, "event_type": "fault_start"}]`, "no fault_type"},
		{"[\n" + `{"node_id": "a", "event_time": "soon"}]`, "f.json:2:1: json: cannot unmarshal string"},
		{"[" + ev("a", "fault_start", 1), "f.json:1:"},
	} {
		_, err := ReadFaults(strings.NewReader(c.in), "f.json")
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n: %v, want %q", c.in, err, c.want)
		}
	}
	// A start never ended is ongoing.
	ws, err := ReadFaults(strings.NewReader("["+ev("a", "fault_start", 0.5)+"]"), "f.json")
	if err != nil || len(ws) != 1 || !ws[0].Ongoing || ws[0].Start != 12*time.Hour {
		t.Errorf("open start: %+v %v", ws, err)
	}
}

func TestAssignScaleCut(t *testing.T) {
	ws := []FaultWindow{{Node: "y", Start: 10 * Day, End: 20 * Day}, {Node: "x", Start: 30 * Day, Ongoing: true}, {Node: "y", Start: 40 * Day, End: 41 * Day}}
	a := AssignFaults(ws, []string{"n1", "n2", "n3"}, 7)
	if a[0].Node != a[2].Node || a[0].Node == a[1].Node || ws[0].Node != "y" {
		t.Errorf("assigned %+v (input %+v)", a, ws)
	}
	// With one cluster node, both trace nodes wrap onto it.
	if one := AssignFaults(ws, []string{"only"}, 7); one[0].Node != "only" || one[1].Node != "only" {
		t.Errorf("wrapped %+v", one)
	}
	if AssignFaults(ws, nil, 7) != nil {
		t.Error("no cluster: want no windows")
	}
	// The same seed, the same assignment; the names' order does not matter.
	if fmt.Sprint(AssignFaults(ws, []string{"n3", "n1", "n2"}, 7)) != fmt.Sprint(a) {
		t.Error("assignment depends on the order of the cluster's names")
	}
	s, err := ScaleFaults(ws, 0.5)
	if err != nil || s[0].Start != 5*Day || s[0].End != 10*Day || s[1].Start != 15*Day || ws[0].Start != 10*Day {
		t.Errorf("scaled %+v %v", s, err)
	}
	if _, err := ScaleFaults(ws, 0); err == nil || !strings.Contains(err.Error(), "scale factor 0") {
		t.Errorf("factor 0: %v", err)
	}
	c := CutFaults(ws, 35*Day)
	if len(c) != 2 || c[0].End != 20*Day || c[1].End != 35*Day || c[1].Ongoing {
		t.Errorf("cut %+v", c)
	}
}
