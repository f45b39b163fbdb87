package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const shared = "../../../shared/data/traces/"

func runCSV(t *testing.T, extra ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.csv")
	args := append([]string{"-nodes", shared + "openb/openb_node_list_gpu_node.csv", "-pods", shared + "openb/openb_pod_list_default.csv",
		"-policies", "Random,BestFit", "-seeds", "42", "-csv", out}, extra...)
	var stdout, stderr bytes.Buffer
	if err := run(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The CSV has the paper's columns and one row per (policy, seed); the
// shards' CSVs concatenated in order are the whole run's, byte for byte,
// and a second run gives the same bytes.
func TestShardsConcatenate(t *testing.T) {
	whole := runCSV(t)
	lines := strings.Split(strings.TrimSuffix(whole, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "workload,sc_policy,tune,seed,total_gpus,0,1,2,") || !strings.HasSuffix(lines[0], ",129,130") {
		t.Fatalf("CSV:\n%s", whole)
	}
	for i, want := range []string{"openb_pod_list_default,01-Random,1.3,42,6212,", "openb_pod_list_default,05-BestFit,1.3,42,6212,"} {
		if !strings.HasPrefix(lines[i+1], want) || strings.Count(lines[i+1], ",") != 4+131 {
			t.Fatalf("row %d: %q", i+1, lines[i+1])
		}
	}
	if again := runCSV(t); again != whole {
		t.Fatal("a second run wrote other bytes")
	}
	var cat string
	for _, s := range []string{"0/3", "1/3", "2/3"} { // the last part is empty
		cat += runCSV(t, "-shard", s)
	}
	if cat != whole {
		t.Fatalf("shards concatenated:\n%s\nwhole:\n%s", cat, whole)
	}
}

// Bad flags are refused naming the value.
func TestFlags(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"-seeds 5-2", `-seeds: "5-2" is not a seed or a range lo-hi`},
		{"-policies Random,Greedy", `-policies: unknown policy "Greedy"`},
		{"-shard 3/3", `-shard "3/3": want i/n with 0 <= i < n`},
		{"-workers 0", "-workers 0: want at least 1"},
		{"-tune -1", "-tune -1: want 0 or more"},
		{"-nodes /nonexistent.csv", "trace: open /nonexistent.csv: no such file or directory"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(strings.Fields(c.args), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.args, err, c.want)
		}
	}
}
