package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
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

// In replay mode the CSV has the replay's columns, one row per (policy,
// seed); shards concatenate to the whole run and a second run writes the
// same bytes. On a twentieth of the nodes at ten times the arrival rate,
// some pods wait.
func TestReplayShards(t *testing.T) {
	nodes := everyTwentieth(t)
	args := []string{"-replay", "-load", "10", "-nodes", nodes, "-seeds", "42-43"}
	whole := runCSV(t, args...)
	rows := strings.Split(strings.TrimSuffix(whole, "\n"), "\n")
	if len(rows) != 5 || rows[0] != "workload,sc_policy,seed,load,durations,pods,bound,never_bound,waited,wait_p50_s,wait_p90_s,wait_p99_s,wait_max_s,mean_gpu_pct,mean_cpu_pct,mean_mem_pct,peak_gpu_pct,end_s,faults,evicted,recovery_p50_s,recovery_p99_s,gpu_hours_lost,drained" {
		t.Fatalf("CSV:\n%s", whole)
	}
	waited := false
	for _, r := range rows[1:] {
		f := strings.Split(r, ",")
		if len(f) != 24 || f[0] != "openb_pod_list_default" || f[3] != "10" || f[4] != "false" || f[5] != "8152" || f[18] != "false" || f[19] != "0" {
			t.Fatalf("row %q", r)
		}
		waited = waited || f[8] != "0"
	}
	if !waited {
		t.Errorf("no pod waited on a twentieth of the nodes at load 10:\n%s", whole)
	}
	if again := runCSV(t, args...); again != whole {
		t.Fatal("a second run wrote other bytes")
	}
	if cat := runCSV(t, append(args, "-shard", "0/2")...) + runCSV(t, append(args, "-shard", "1/2")...); cat != whole {
		t.Fatalf("shards concatenated:\n%s\nwhole:\n%s", cat, whole)
	}
}

// With -faults each pod list runs without and with the fault trace: the
// default list's pods that live under an hour, on a twentieth of the
// nodes at a hundred times the arrival rate (about 1.5 days), with the
// fault trace's 348 days scaled to 3.5 (its repairs, 0.85 days at the
// median, to 12 minutes: long enough for the 300s tolerations) and its
// 231 nodes' faults folded onto 61: the faults evict pods, and the runs
// without them evict none.
func TestReplayFaults(t *testing.T) {
	nodes, pods := everyTwentieth(t), shortPods(t)
	rows := strings.Split(strings.TrimSuffix(runCSV(t, "-replay", "-load", "100", "-nodes", nodes, "-pods", pods, "-policies", "BestFit", "-seeds", "42",
		"-faults", shared+"infinitehbd-faults/fault_trace.json", "-fault-scale", "0.01"), "\n"), "\n")
	if len(rows) != 3 {
		t.Fatalf("rows %q", rows)
	}
	plain, faulty := strings.Split(rows[1], ","), strings.Split(rows[2], ",")
	if plain[0] != "openb_pod_list_default" || plain[18] != "false" || plain[19] != "0" || plain[22] != "0.00" {
		t.Errorf("without faults: %q", rows[1])
	}
	if faulty[0] != "openb_pod_list_default+faults" || faulty[18] != "true" || faulty[19] == "0" || faulty[22] == "0.00" {
		t.Errorf("with faults: %q", rows[2])
	}
}

// -fault-model generates faults: with maintenances alone (every node
// drained once in six hours for ten minutes), pods are drained and none is
// evicted by the node lifecycle, the drained nodes being cordoned before
// their kubelets stop; a model missing a value is refused, naming it.
func TestReplayFaultModel(t *testing.T) {
	nodes, pods := everyTwentieth(t), shortPods(t)
	rows := strings.Split(strings.TrimSuffix(runCSV(t, "-replay", "-load", "100", "-nodes", nodes, "-pods", pods, "-policies", "BestFit", "-seeds", "42",
		"-fault-model", "drain-every=6h,drain-for=10m"), "\n"), "\n")
	if len(rows) != 3 {
		t.Fatalf("rows %q", rows)
	}
	faulty := strings.Split(rows[2], ",")
	if faulty[0] != "openb_pod_list_default+faults" || faulty[19] != "0" || faulty[23] == "0" {
		t.Errorf("with maintenances: evicted %s, drained %s: %q", faulty[19], faulty[23], rows[2])
	}
	var stderr strings.Builder
	err := run([]string{"-replay", "-nodes", nodes, "-pods", pods, "-fault-model", "mtbf=30d"}, io.Discard, &stderr)
	if err == nil || !strings.Contains(err.Error(), "MTBF 720h0m0s and MTTR 0s") {
		t.Errorf("mtbf alone: %v", err)
	}
	if err := run([]string{"-replay", "-nodes", nodes, "-pods", pods, "-fault-model", "mtbf=soon"}, io.Discard, &stderr); err == nil || !strings.Contains(err.Error(), `mtbf="soon"`) {
		t.Errorf("a bad duration: %v", err)
	}
}

// shortPods writes the default pod list's pods that ran less than an
// hour to a file of the list's name and returns its path.
func shortPods(t *testing.T) string {
	t.Helper()
	all, err := os.ReadFile(shared + "openb/openb_pod_list_default.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(all), "\n"), "\n")
	short := []string{lines[0]}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",") // creation_time and deletion_time are columns 9 and 10
		created, err1 := strconv.Atoi(f[8])
		deleted, err2 := strconv.Atoi(f[9])
		if err1 == nil && err2 == nil && deleted-created < 3600 {
			short = append(short, l)
		}
	}
	pods := filepath.Join(t.TempDir(), "openb_pod_list_default.csv")
	if err := os.WriteFile(pods, []byte(strings.Join(short, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return pods
}

// everyTwentieth writes every twentieth node of the GPU node list (61
// nodes) to a file and returns its path.
func everyTwentieth(t *testing.T) string {
	t.Helper()
	nodes := filepath.Join(t.TempDir(), "nodes.csv")
	all, err := os.ReadFile(shared + "openb/openb_node_list_gpu_node.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(all), "\n"), "\n")
	keep := []string{lines[0]}
	for i := 1; i < len(lines); i += 20 {
		keep = append(keep, lines[i])
	}
	if err := os.WriteFile(nodes, []byte(strings.Join(keep, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return nodes
}

// Bad flags are refused naming the value.
func TestFlags(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"-seeds 5-2", `-seeds: "5-2" is not a seed or a range lo-hi`},
		{"-policies Random,Greedy", `-policies: unknown policy "Greedy"`},
		{"-shard 3/3", `-shard "3/3": want i/n with 0 <= i < n`},
		{"-workers 0", "-workers 0: want at least 1"},
		{"-tune -1", "-tune -1: want 0 or more"},
		{"-load 3", "-durations, -load, -faults and -fault-model need -replay"},
		{"-faults f.json", "-durations, -load, -faults and -fault-model need -replay"},
		{"-replay -fault-scale -1", "-fault-scale -1: want 0 or more"},
		{"-replay -load 0", "-load 0: want more than 0"},
		{"-nodes /nonexistent.csv", "trace: open /nonexistent.csv: no such file or directory"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(strings.Fields(c.args), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.args, err, c.want)
		}
	}
}
