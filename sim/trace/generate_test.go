package trace

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func genNodes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("n%04d", i)
	}
	return out
}

// A model's every bad field is reported at once, with its value.
func TestFaultModelValidate(t *testing.T) {
	m := FaultModel{MTBF: -time.Hour, GroupMTBF: time.Hour, Groups: [][]string{{"n0000", "x"}}, MaintenanceEvery: time.Hour, MaintenanceFor: 2 * time.Hour}
	err := m.Validate(genNodes(2))
	if !errors.Is(err, ErrInvalidFaultModel) {
		t.Fatalf("err = %v, want ErrInvalidFaultModel", err)
	}
	for _, want := range []string{"MTBF -1h0m0s must not be negative", "GroupMTBF 1h0m0s and GroupMTTR 0s",
		"MaintenanceEvery 1h0m0s and MaintenanceFor 2h0m0s", `Groups[0]: node "x"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\ndoes not say %q", err, want)
		}
	}
	if err := (FaultModel{MTBF: time.Hour}).Validate(nil); err == nil || !strings.Contains(err.Error(), "MTBF 1h0m0s and MTTR 0s: set both or neither") {
		t.Errorf("MTBF alone: %v", err)
	}
	if err := (FaultModel{}).Validate(nil); err != nil {
		t.Fatalf("the zero model: %v", err)
	}
	if _, err := (FaultModel{MTBF: time.Nanosecond, MTTR: time.Nanosecond}).Generate(genNodes(1), time.Second, 1); !errors.Is(err, ErrInvalidFaultModel) ||
		!strings.Contains(err.Error(), "about 5e+08 windows over 1s for 1 nodes") {
		t.Errorf("a model of a billion faults a second: %v", err)
	}
	if _, err := (FaultModel{}).Generate(nil, -time.Second, 1); !errors.Is(err, ErrInvalidFaultModel) {
		t.Fatalf("a negative span: %v", err)
	}
}

// Independent faults: each node alternates between exponential up times
// of mean MTBF and down times of mean MTTR, so that over a long span a
// node is down MTTR/(MTBF+MTTR) of the time (renewal theory): 1/11 =
// 9.09% for 10 days and 1 day. 500 nodes over 2,000 days make about
// 90,000 cycles, whose standard error on the fraction is under 0.1 point.
// The repairs average 1 day, within 2%. The same seed draws the same
// windows, another seed others.
func TestGenerateIndependent(t *testing.T) {
	nodes := genNodes(500)
	span := 2000 * Day
	m := FaultModel{MTBF: 10 * Day, MTTR: Day}
	ws, err := m.Generate(nodes, span, 7)
	if err != nil {
		t.Fatal(err)
	}
	var down, repairs time.Duration
	n := 0
	for _, w := range ws {
		if w.Type != IndependentFault() || w.Start < 0 || w.Start >= span {
			t.Fatalf("window %+v", w)
		}
		end := w.End
		if w.Ongoing {
			end = span
		} else {
			repairs += w.End - w.Start
			n++
		}
		down += end - w.Start
	}
	frac := float64(down) / float64(span) / float64(len(nodes))
	if math.Abs(frac-1.0/11) > 0.003 {
		t.Errorf("down %.4f of the time, want 1/11 = %.4f", frac, 1.0/11)
	}
	if mean := repairs.Hours() / float64(n) / 24; math.Abs(mean-1) > 0.02 {
		t.Errorf("mean repair %.3f days, want 1", mean)
	}
	if !slices.IsSortedFunc(ws, func(a, b FaultWindow) int { return int(a.Start - b.Start) }) {
		t.Error("windows not in the order of their starts")
	}
	again, _ := m.Generate(nodes, span, 7)
	if !slices.Equal(ws, again) {
		t.Error("the same seed drew other windows")
	}
	other, _ := m.Generate(nodes, span, 8)
	if slices.Equal(ws, other) {
		t.Error("another seed drew the same windows")
	}
}

// A group's nodes go down and come back together; maintenance takes each
// node down once per period, for its length, inside the period.
func TestGenerateGroupsAndMaintenance(t *testing.T) {
	nodes := genNodes(6)
	span := 90 * Day
	m := FaultModel{Groups: [][]string{nodes[:3], nodes[3:5]}, GroupMTBF: 5 * Day, GroupMTTR: 6 * time.Hour,
		MaintenanceEvery: 30 * Day, MaintenanceFor: 4 * time.Hour}
	ws, err := m.Generate(nodes, span, 1)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		start, end time.Duration
		ongoing    bool
	}
	groups := map[key][]string{}
	maint := map[string][]FaultWindow{}
	for _, w := range ws {
		switch w.Type {
		case CorrelatedFault():
			k := key{w.Start, w.End, w.Ongoing}
			groups[k] = append(groups[k], w.Node)
		case MaintenanceFault():
			maint[w.Node] = append(maint[w.Node], w)
		default:
			t.Fatalf("window %+v", w)
		}
	}
	if len(groups) == 0 {
		t.Fatal("no group outage in 90 days at a mean of 5")
	}
	for k, got := range groups {
		if !slices.Equal(got, nodes[:3]) && !slices.Equal(got, nodes[3:5]) {
			t.Errorf("outage %+v took down %v, not one whole group", k, got)
		}
	}
	for _, n := range nodes {
		if len(maint[n]) != 3 {
			t.Fatalf("%s: %d maintenances in 90 days, want one per 30", n, len(maint[n]))
		}
		for p, w := range maint[n] {
			lo, hi := time.Duration(p)*30*Day, time.Duration(p+1)*30*Day
			if w.Ongoing || w.End-w.Start != 4*time.Hour || w.Start < lo || w.End > hi {
				t.Errorf("%s: maintenance %+v, want 4h within [%v, %v)", n, w, lo, hi)
			}
		}
	}
}
