package main

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/sim/sched"
	"github.com/nodelife/nodelife/sim/trace"
)

// A node is down while any of its windows is open: n1's two windows
// overlap from 15s to 20s, n3's never ends.
func TestDownSteps(t *testing.T) {
	s := time.Second
	got := downSteps([]trace.FaultWindow{
		{Node: "n1", Start: 10 * s, End: 20 * s}, {Node: "n1", Start: 15 * s, End: 30 * s},
		{Node: "n2", Start: 20 * s, End: 25 * s}, {Node: "n3", Start: 40 * s, Ongoing: true},
	})
	want := []downStep{{10 * s, 1}, {15 * s, 1}, {20 * s, 2}, {25 * s, 1}, {30 * s, 0}, {40 * s, 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// Four GPUs, one allocated from 0s and three from 50s, drawn over 100s:
// point p is at p/599 of the span, so points 0-299 (up to 49.9s) show
// 25% and 300-599 75%.
func TestAllocCurve(t *testing.T) {
	s := time.Second
	res := sched.ReplayResult{GPUs: 4, Samples: []sched.TimedSample{{At: 0, UsedGPUMilli: 1000}, {At: 50 * s, UsedGPUMilli: 3000}}}
	c := allocCurve(res, 100*s)
	if len(c) != curvePoints || c[0] != 25 || c[299] != 25 || c[300] != 75 || c[599] != 75 {
		t.Fatalf("curve %v ... %v", c[:3], c[297:303])
	}
}

// -replay -svg draws a well-formed SVG with a line per policy, without
// and with the faults, over the shaded times nodes were down.
func TestReplaySVG(t *testing.T) {
	nodes, pods := everyTwentieth(t), shortPods(t)
	svg := filepath.Join(t.TempDir(), "replay.svg")
	runCSV(t, "-replay", "-load", "100", "-nodes", nodes, "-pods", pods, "-policies", "BestFit,FGD", "-seeds", "42", "-svg", svg,
		"-fault-model", "mtbf=2d,mttr=6h")
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	lines, shaded := 0, 0
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				switch {
				case se.Name.Local == "polyline" && a.Name.Local == "points":
					lines++
				case se.Name.Local == "rect" && a.Name.Local == "fill" && a.Value == "#555":
					shaded++
				}
			}
		}
	}
	if lines != 4 || shaded < 2 {
		t.Fatalf("%d lines (want 2 policies x without and with faults), %d shaded spans", lines, shaded)
	}
}

// A difference from the paper's median keeps its sign, except one that
// rounds to zero.
func TestSigned(t *testing.T) {
	for _, c := range []struct {
		d    float64
		want string
	}{{0.12, "+0.12"}, {-0.08, "-0.08"}, {-0.004, " 0.00"}, {0.004, " 0.00"}, {0, " 0.00"}, {-0.005001, "-0.01"}} {
		if got := signed(c.d); got != c.want {
			t.Errorf("signed(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
