package cpu_test

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/nodelifetest"

	"github.com/nodelife/nodelife/topology/cpu"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// upstreamTopologies returns the CPU topologies of upstream's cpumanager
// tests, by name.
func upstreamTopologies(testing.TB) map[string]cpu.Topology {
	return nodelifetest.UpstreamCPUTopologies()
}

func mustMachine(t testing.TB, topo cpu.Topology) *cpu.Machine {
	t.Helper()
	m, err := cpu.NewMachine(topo)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustSet(t testing.TB, s string) cpuset.CPUSet {
	t.Helper()
	cs, err := cpuset.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestUpstreamTakeByTopology runs upstream's cpu_assignment_test.go tables
// for takeByTopologyNUMAPacked (with and without spread and uncore
// alignment) and takeByTopologyNUMADistributed, expected values as
// upstream states them (testdata/upstream_take.txt).
func TestUpstreamTakeByTopology(t *testing.T) {
	topos := upstreamTopologies(t)
	if len(topos) != 23 {
		t.Fatalf("%d upstream topologies, want 23", len(topos))
	}
	f, err := os.Open("testdata/upstream_take.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Split(line, " | ")
		if len(fs) != 9 {
			t.Fatalf("bad row %q", line)
		}
		rows++
		mode, desc, topoName, opts := fs[0], fs[1], fs[2], fs[3]
		n, _ := strconv.Atoi(fs[5])
		group, _ := strconv.Atoi(fs[6])
		wantErr, want := strings.TrimSpace(fs[7]), mustSet(t, strings.TrimSpace(fs[8]))
		topo, ok := topos[topoName]
		if !ok {
			t.Fatalf("%s: no topology %s", desc, topoName)
		}
		m := mustMachine(t, topo)
		avail := mustSet(t, fs[4])
		t.Run(mode+"/"+desc+"/"+opts, func(t *testing.T) {
			var got cpuset.CPUSet
			var err error
			if mode == "packed" {
				o := cpu.TakeOptions{PreferUncoreCache: strings.Contains(opts, "uncore")}
				if strings.Contains(opts, "spread") {
					o.Sorting = cpu.Spread
				}
				got, err = m.TakePacked(avail, n, o)
			} else {
				got, err = m.TakeDistributed(avail, n, group, cpu.TakeOptions{})
			}
			switch {
			case wantErr != "" && (err == nil || err.Error() != wantErr):
				t.Fatalf("error %v, want %q", err, wantErr)
			case wantErr == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case !got.Equals(want):
				t.Fatalf("got %s, want %s", got, want)
			}
		})
	}
	if rows != 62 {
		t.Fatalf("%d rows, want 62", rows)
	}
}
