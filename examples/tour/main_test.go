package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/tour.golden from the current output")

// The whole tour, as a newcomer sees it. Each scenario's facts are checked
// by hand in examples/scenario; this pins the assembled report.
func TestTourGolden(t *testing.T) {
	var out, errb bytes.Buffer
	start := time.Now()
	if err := run(nil, &out, &errb); err != nil {
		t.Fatal(err)
	}
	// The 10s budget is asserted under NODELIFE_LONG only: CI's machine
	// may be busy (DESIGN.md, testing habits); the time is always logged.
	d := time.Since(start)
	t.Logf("the tour took %v", d)
	if os.Getenv("NODELIFE_LONG") == "1" && d > 10*time.Second {
		t.Errorf("the tour took %v, over the 10s budget", d)
	}
	if errb.Len() != 0 {
		t.Errorf("a default run printed progress: %q", errb.String())
	}
	if *update {
		if err := os.WriteFile("testdata/tour.golden", out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/tour.golden")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("the tour differs from testdata/tour.golden (go test -update rewrites it after review):\n%s", out.String())
	}
	for _, name := range []string{"taints", "zone-outage", "shutdown", "disk-pressure", "leader-election", "cascading-delete", "cgroup", "cloud-node"} {
		if !strings.Contains(out.String(), "== "+name+": ") {
			t.Errorf("the tour lacks the %s scenario", name)
		}
	}
}

func TestFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"-scenario", "cgroup,shutdown", "-json"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var reps []struct{ Name string }
	if err := json.Unmarshal(out.Bytes(), &reps); err != nil || len(reps) != 2 || reps[0].Name != "cgroup" || reps[1].Name != "shutdown" {
		t.Fatalf("-json gave %v (err %v): %s", reps, err, out.String())
	}

	out.Reset()
	if err := run([]string{"-list"}, &out, &errb); err != nil || !strings.Contains(out.String(), "zone-outage") || !strings.Contains(out.String(), "-size: nodes per zone") {
		t.Fatalf("-list: %v\n%s", err, out.String())
	}

	// A larger run reports progress on stderr and keeps stdout clean.
	out.Reset()
	errb.Reset()
	if err := run([]string{"-scenario", "zone-outage", "-size", "1000"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "zone-outage: simulated 15m0s of 15m0s") || strings.Contains(out.String(), "simulated") {
		t.Fatalf("progress: stderr %q", errb.String())
	}
	if !strings.Contains(out.String(), "3 zones x 1000 nodes") || !strings.Contains(out.String(), "nodes 3000, pods 6000") {
		t.Fatalf("-size 1000 was not applied:\n%s", out.String())
	}

	for _, bad := range [][]string{{"-scenario", "nope"}, {"-size", "-2"}, {"extra"}} {
		if err := run(bad, &out, &errb); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
