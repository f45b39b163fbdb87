package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodelife/nodelife/internal/cpuprofile"
	"github.com/nodelife/nodelife/sim/sched"
	"github.com/nodelife/nodelife/sim/trace"
)

// The paper's policies, in its order, with its labels.
var policies = []struct {
	name, label string
}{
	{"Random", "01-Random"}, {"DotProd", "02-DotProd"}, {"GpuClustering", "03-GpuClustering"},
	{"GpuPacking", "04-GpuPacking"}, {"BestFit", "05-BestFit"}, {"FGD", "06-FGD"},
}

// newPolicy returns a fresh policy by name; typical are the workload's
// typical pods (FGD's).
func newPolicy(name string, typical []sched.TypicalPod) sched.Policy {
	switch name {
	case "Random":
		return &sched.Random{}
	case "DotProd":
		return sched.DotProduct{}
	case "GpuClustering":
		return sched.GPUClustering{}
	case "GpuPacking":
		return sched.GPUPacking{}
	case "BestFit":
		return sched.BestFit{}
	case "FGD":
		return &sched.FGD{Typical: typical}
	}
	return nil
}

type workload struct {
	name    string
	pods    []trace.PodRecord
	typical []sched.TypicalPod
	faults  bool // replayed with the fault trace
}

// job is one run.
type job struct {
	w      *workload
	policy int
	seed   int64
}

type outcome struct {
	curve    sched.Curve
	failed   int
	frag     float64 // the cluster's fragmentation at the end, percent of the GPU left
	cpu, mem float64 // percent of the cluster's CPU and memory allocated at the end
	replay   *replayOutcome
}

const lastPercent = 130

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("schedsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nodesFile := fs.String("nodes", "../shared/data/traces/openb/openb_node_list_gpu_node.csv", "node list")
	podsFiles := fs.String("pods", "../shared/data/traces/openb/openb_pod_list_default.csv", "pod lists, comma-separated")
	policyList := fs.String("policies", "Random,DotProd,GpuClustering,GpuPacking,BestFit,FGD", "policies, comma-separated")
	seedList := fs.String("seeds", "42-51", "seeds: numbers and ranges, comma-separated")
	tune := fs.Float64("tune", 1.3, "arrived GPU requests as a multiple of the cluster's GPUs (0: as the trace has them)")
	shuffle := fs.Bool("shuffle", true, "shuffle the pods by seed")
	csvOut := fs.String("csv", "", `write the rows there ("-": stdout)`)
	svgOut := fs.String("svg", "", "draw the allocation curves there (with -replay: the allocation over time, the faults' down nodes shaded)")
	expectedFile := fs.String("expected", "", "the paper's rows (analysis_allo_discrete.csv), beside the table")
	shard := fs.String("shard", "0/1", "run only part i of n (i/n, from 0)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "runs at once")
	replay := fs.Bool("replay", false, "replay the pods over time instead of the paper's protocol")
	durations := fs.Bool("durations", false, "with -replay: pods run their traced durations from their binding")
	load := fs.Float64("load", 1, "with -replay: divide the creation times by this, each pod staying as long")
	faultsFile := fs.String("faults", "", "with -replay: a fault trace (InfiniteHBD's JSON); each pod list is replayed without and with it")
	faultScale := fs.Float64("fault-scale", 0, "with -faults: multiply the fault trace's times by this (0: cut it to the replay's span instead)")
	faultModel := fs.String("fault-model", "", `with -replay: generated faults, KEY=VALUE,... of mtbf, mttr (each node's own), rack (nodes a rack, in the list's order), rack-mtbf, rack-mttr (racks' outages), drain-every, drain-for (maintenance: cordon, drain, down); durations as 36h or 30d; each pod list is replayed without and with them (and the -faults trace)`)
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the runs there")
	if err := fs.Parse(args); err != nil {
		return err
	}
	stopProfile, err := cpuprofile.Start(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	if !*replay && (*durations || *load != 1 || *faultsFile != "" || *faultModel != "") {
		return fmt.Errorf("-durations, -load, -faults and -fault-model need -replay")
	}
	model, rack, err := parseFaultModel(*faultModel)
	if err != nil {
		return err
	}
	if *faultScale < 0 {
		return fmt.Errorf("-fault-scale %v: want 0 or more", *faultScale)
	}
	if *load <= 0 {
		return fmt.Errorf("-load %v: want more than 0", *load)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	seeds, err := parseSeeds(*seedList)
	if err != nil {
		return err
	}
	var chosen []int
	for _, name := range strings.Split(*policyList, ",") {
		i := slices.IndexFunc(policies, func(p struct{ name, label string }) bool { return p.name == strings.TrimSpace(name) })
		if i < 0 {
			return fmt.Errorf("-policies: unknown policy %q (want some of Random, DotProd, GpuClustering, GpuPacking, BestFit, FGD)", name)
		}
		chosen = append(chosen, i)
	}
	si, sn, err := parseShard(*shard)
	if err != nil {
		return err
	}
	if *workers < 1 {
		return fmt.Errorf("-workers %d: want at least 1", *workers)
	}
	if *tune < 0 {
		return fmt.Errorf("-tune %v: want 0 or more", *tune)
	}
	nodes, err := trace.ReadNodesFile(*nodesFile)
	if err != nil {
		return err
	}
	var wls []*workload
	for _, f := range strings.Split(*podsFiles, ",") {
		pods, err := trace.ReadPodsFile(f)
		if err != nil {
			return err
		}
		w := &workload{name: strings.TrimSuffix(filepath.Base(f), ".csv"), pods: pods, typical: sched.Typical(pods, sched.PopularityThreshold)}
		wls = append(wls, w)
		if *faultsFile != "" || *faultModel != "" {
			wf := *w
			wf.name += "+faults"
			wf.faults = true
			wls = append(wls, &wf)
		}
	}
	var faultWindows []trace.FaultWindow
	if *faultsFile != "" {
		if faultWindows, err = trace.ReadFaultsFile(*faultsFile); err != nil {
			return err
		}
	}
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	for k := 0; rack > 0 && k < len(names); k += rack {
		model.Groups = append(model.Groups, names[k:min(k+rack, len(names))])
	}
	if err := model.Validate(names); err != nil {
		return fmt.Errorf("-fault-model: %w", err)
	}
	var jobs []job
	for _, w := range wls {
		for _, p := range chosen {
			for _, s := range seeds {
				jobs = append(jobs, job{w, p, s})
			}
		}
	}
	lo, hi := len(jobs)*si/sn, len(jobs)*(si+1)/sn
	jobs = jobs[lo:hi]
	gpus := 0
	var cpu, mem int64
	for _, n := range nodes {
		gpus += n.GPUs
		cpu += n.MilliCPU
		mem += n.MemoryMiB
	}

	// The runs, on the workers; results by job.
	out := make([]outcome, len(jobs))
	errs := make([]error, len(jobs))
	var next, done atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	stop := make(chan struct{})
	go progress(stderr, start, &done, len(jobs), stop)
	for range min(*workers, max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(jobs) {
					return
				}
				j := jobs[k]
				if *replay {
					rp := sched.Replay{Config: sched.Config{Policy: newPolicy(policies[j.policy].name, j.w.typical), Seed: j.seed},
						Nodes: nodes, Pods: j.w.pods, Durations: *durations, Load: *load}
					var o *replayOutcome
					var rerr error
					if j.w.faults {
						if *faultsFile != "" {
							rp.Faults, rerr = fitFaults(faultWindows, nodes, rp, *faultScale)
						}
						if *faultModel != "" && rerr == nil {
							var gen []trace.FaultWindow
							gen, rerr = model.Generate(names, replaySpan(rp), j.seed)
							rp.Faults = append(rp.Faults, gen...)
						}
					}
					if rerr == nil {
						if o, rerr = runReplay(rp); o != nil {
							o.faults = j.w.faults
						}
					}
					out[k], errs[k] = outcome{replay: o}, rerr
					done.Add(1)
					continue
				}
				res, err := sched.Experiment{Nodes: nodes, Pods: j.w.pods, Policy: newPolicy(policies[j.policy].name, j.w.typical),
					Seed: j.seed, Shuffle: *shuffle, Tune: *tune}.Run()
				if err != nil {
					errs[k] = err
				} else {
					frag, left := sched.ClusterFrag(res.Nodes, j.w.typical)
					o := outcome{curve: sched.CurveOf(res.Samples, res.GPUs, lastPercent), failed: len(res.Failed)}
					if left > 0 {
						o.frag = 100 * frag / float64(left)
					}
					if len(res.Samples) > 0 {
						last := res.Samples[len(res.Samples)-1]
						o.cpu = percent(last.UsedMilliCPU, cpu)
						o.mem = percent(last.UsedMemoryMiB, mem)
					}
					out[k] = o
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	if err := errors.Join(errs...); err != nil {
		return err
	}
	elapsed := time.Since(start)

	if *replay {
		if err := replayOutput(stdout, *csvOut, si == 0, jobs, out, gpus, elapsed, min(*workers, max(len(jobs), 1))); err != nil {
			return err
		}
		if *svgOut != "" {
			return os.WriteFile(*svgOut, []byte(drawReplaySVG(jobs, out)), 0o644)
		}
		return nil
	}
	if *csvOut != "" {
		if err := writeCSV(*csvOut, stdout, si == 0, jobs, out, *tune, gpus); err != nil {
			return err
		}
	}
	var expected map[string][]float64
	if *expectedFile != "" {
		if expected, err = readExpected(*expectedFile); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(stdout)
	if *csvOut != "-" {
		printTable(w, jobs, out, expected, gpus)
		fmt.Fprintf(w, "%d runs in %v on %d workers\n", len(jobs), elapsed.Round(10*time.Millisecond), min(*workers, max(len(jobs), 1)))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if *svgOut != "" {
		if err := os.WriteFile(*svgOut, []byte(drawSVG(jobs, out)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// percent is 100 × a / b, 0 when b is 0.
func percent(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// progress reports on stderr every 2 s while runs go on, once the runs
// have taken 3 s.
func progress(stderr io.Writer, start time.Time, done *atomic.Int64, total int, stop chan struct{}) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if time.Since(start) >= 3*time.Second {
				fmt.Fprintf(stderr, "schedsim: %d of %d runs, %v\n", done.Load(), total, time.Since(start).Round(time.Second))
			}
		}
	}
}

func parseSeeds(s string) ([]int64, error) {
	var out []int64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		a, b, isRange := strings.Cut(part, "-")
		lo, err1 := strconv.ParseInt(a, 10, 64)
		hi := lo
		var err2 error
		if isRange {
			hi, err2 = strconv.ParseInt(b, 10, 64)
		}
		if err1 != nil || err2 != nil || hi < lo || hi-lo > 1_000_000 {
			return nil, fmt.Errorf("-seeds: %q is not a seed or a range lo-hi", part)
		}
		for v := lo; v <= hi; v++ {
			out = append(out, v)
		}
	}
	return out, nil
}

func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("-shard %q: want i/n with 0 <= i < n", s)
	}
	return i, n, nil
}

func writeCSV(path string, stdout io.Writer, header bool, jobs []job, out []outcome, tune float64, gpus int) error {
	var b strings.Builder
	if header {
		b.WriteString(sched.CSVHeader(lastPercent) + "\n")
	}
	for k, j := range jobs {
		b.WriteString(out[k].curve.CSVRow(j.w.name, policies[j.policy].label, tune, j.seed, gpus) + "\n")
	}
	if path == "-" {
		_, err := io.WriteString(stdout, b.String())
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// readExpected reads the paper's rows: workload and policy label to the
// values at 100 and 130 of each seed, flattened as pairs.
func readExpected(path string) (map[string][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := func(name string) int { return slices.Index(head, name) }
	iw, ip, i100, i130 := col("workload"), col("sc_policy"), col("100"), col("130")
	if iw < 0 || ip < 0 || i100 < 0 || i130 < 0 {
		return nil, fmt.Errorf("%s: want the columns workload, sc_policy, 100 and 130", path)
	}
	out := map[string][]float64{}
	for {
		row, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		a, err1 := strconv.ParseFloat(row[i100], 64)
		b, err2 := strconv.ParseFloat(row[i130], 64)
		if err1 != nil || err2 != nil {
			line, _ := r.FieldPos(i100)
			return nil, fmt.Errorf("%s:%d: the values at 100 and 130 are not numbers", path, line)
		}
		key := row[iw] + "\x00" + row[ip]
		out[key] = append(out[key], a, b)
	}
}
