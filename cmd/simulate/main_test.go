package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/sim"
)

// Without jitter, the default outage gives the tour's numbers (see
// sim TestNodeTimeline): 50 nodes of zone b tainted one per 10s
// from +110s, the 40 pods of the 20 tainted by +300s deleted, 60 pending
// evictions cancelled when the zone is back.
func TestUnseededSummary(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"--seed", "0", "--quiet"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"150 nodes, 300 pods, 15m0s simulated: 50 NoExecute taints, 40 pods evicted, 60 evictions cancelled",
		"zone b at the end: 50 Ready, 0 NotReady, 0 Unknown, 0 tainted, 40 pods evicted, Normal",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lacks %q:\n%s", want, out.String())
		}
	}
	if errb.Len() != 0 {
		t.Errorf("--quiet printed %q", errb.String())
	}
}

func TestSeededRunIsRepeatableAndWritesSVG(t *testing.T) {
	dir := t.TempDir()
	var a, b, errb bytes.Buffer
	args := []string{"--nodes", "500", "--seed", "7", "--events", "--svg", filepath.Join(dir, "t.svg")}
	if err := run(args, &a, &errb); err != nil {
		t.Fatal(err)
	}
	if err := run(args, &b, &errb); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatal("two runs with seed 7 printed different output")
	}
	if !strings.Contains(errb.String(), "simulate: 15m0s of 15m0s") {
		t.Errorf("no progress on stderr: %q", errb.String())
	}
	svg, err := os.ReadFile(filepath.Join(dir, "t.svg"))
	if err != nil || !bytes.HasPrefix(svg, []byte("<svg ")) {
		t.Fatalf("svg: %v %.40q", err, svg)
	}
}

// The simulate command reads the replay's outage grammar, ZONE[/n]@FROM-TO,
// over the synthetic zones a, b, c.
func TestOutageGrammar(t *testing.T) {
	zones := sim.SyntheticZones(3)
	for spec, want := range map[string]sim.Outage{
		"b@1m-10m":     {Zone: "b", From: time.Minute, To: 10 * time.Minute},
		" c@30s-":      {Zone: "c", From: 30 * time.Second},
		"a/10@0s-2m":   {Zone: "a", Nodes: 10, From: 0, To: 2 * time.Minute},
		"b@1m30s-1h0m": {Zone: "b", From: 90 * time.Second, To: time.Hour},
	} {
		got, err := sim.ParseOutage(spec, zones)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseOutage(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	for bad, why := range map[string]string{
		"b":         "want SELECTOR@TIME",
		"b@1m":      "want FROM-TO",
		"b@x-1m":    `invalid duration "x"`,
		"b@1m-y":    `invalid duration "y"`,
		"b/x@1m-2m": `node count "x" is not a positive number`,
		"b:1m-10m":  "want SELECTOR@TIME",
		"q@1m-2m":   `"q" is not one of the 3 zones (a to c)`,
		"b/0@1m-2m": `node count "0"`,
		"ab@1m-2m":  `"ab" is not one of the 3 zones`,
	} {
		_, err := sim.ParseOutage(bad, zones)
		if err == nil || !strings.Contains(err.Error(), `--outage "`+bad+`"`) || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseOutage(%q): error %v should name the spec and say %q", bad, err, why)
		}
	}
	var out, errb bytes.Buffer
	if err := run([]string{"--outage", "q@1m-2m"}, &out, &errb); err == nil || !strings.Contains(err.Error(), `"q" is not one of the 3 zones`) {
		t.Errorf("an unknown zone: %v", err)
	}
}
