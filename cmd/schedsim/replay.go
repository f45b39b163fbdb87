package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodelife/nodelife/sim/sched"
	"github.com/nodelife/nodelife/sim/trace"
)

// replayOutcome is one replay's figures.
type replayOutcome struct {
	pods, bound, waited int
	waits               []time.Duration // of the bound pods
	use                 sched.Use
	peakGPU             float64 // percent of the GPUs, the most allocated at once
	end                 time.Duration
	never               map[string]int // pods never bound, by their last reason
	load                float64
	durations           bool
	faults              bool
	evicted             int             // by the node lifecycle
	drained             int             // by maintenances' drains
	recoveries          []time.Duration // eviction to the replacement's binding
	gpuHoursLost        float64
	span                time.Duration // the replay's pod list's span (replaySpan)
	curve               []float64     // GPU allocation over span (allocCurve)
	down                []downStep    // the nodes down over time
}

// fitFaults puts the fault trace on the cluster's nodes by the run's seed
// (trace.AssignFaults) and fits its time to the replay: scaled by scale,
// or, when scale is 0, cut at the replay's last event.
func fitFaults(ws []trace.FaultWindow, nodes []trace.NodeRecord, r sched.Replay, scale float64) ([]trace.FaultWindow, error) {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	ws = trace.AssignFaults(ws, names, r.Seed)
	if scale > 0 {
		return trace.ScaleFaults(ws, scale)
	}
	return trace.CutFaults(ws, replaySpan(r)), nil
}

// replaySpan is the time from the replay's start to its last pod's
// creation or deletion.
func replaySpan(r sched.Replay) time.Duration {
	var span time.Duration
	load := cmp.Or(r.Load, 1)
	for _, p := range r.Pods {
		c := time.Duration(float64(p.Created) / load)
		span = max(span, c)
		if p.HasDeleted {
			span = max(span, c+p.Deleted-p.Created)
		}
	}
	return span
}

// parseFaultModel reads -fault-model's KEY=VALUE list; rack is the number
// of nodes a rack (consecutive in the node list), 0 for none.
func parseFaultModel(spec string) (m trace.FaultModel, rack int, err error) {
	if spec == "" {
		return m, 0, nil
	}
	durations := map[string]*time.Duration{"mtbf": &m.MTBF, "mttr": &m.MTTR, "rack-mtbf": &m.GroupMTBF, "rack-mttr": &m.GroupMTTR,
		"drain-every": &m.MaintenanceEvery, "drain-for": &m.MaintenanceFor}
	for _, kv := range strings.Split(spec, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return m, 0, fmt.Errorf("-fault-model: %q is not KEY=VALUE", kv)
		}
		if key == "rack" {
			if rack, err = strconv.Atoi(value); err != nil || rack < 1 {
				return m, 0, fmt.Errorf("-fault-model: rack=%q: want a number of nodes, 1 or more", value)
			}
			continue
		}
		d, ok := durations[key]
		if !ok {
			return m, 0, fmt.Errorf("-fault-model: unknown key %q (want mtbf, mttr, rack, rack-mtbf, rack-mttr, drain-every, drain-for)", key)
		}
		if *d, err = parseDays(value); err != nil {
			return m, 0, fmt.Errorf("-fault-model: %s=%q: %w", key, value, err)
		}
	}
	return m, rack, nil
}

// parseDays reads a Go duration, or a number of days ("30d").
func parseDays(v string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(v, "d"); ok {
		f, err := strconv.ParseFloat(n, 64)
		if err != nil || f < 0 || f > 100000 {
			return 0, fmt.Errorf("want a duration such as 36h or 30d")
		}
		return time.Duration(f * float64(trace.Day)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("want a duration such as 36h or 30d")
	}
	return d, nil
}

func runReplay(r sched.Replay) (*replayOutcome, error) {
	res, err := r.Run()
	if err != nil {
		return nil, err
	}
	o := &replayOutcome{pods: len(res.Pods), waits: res.Waits(), use: res.MeanUse(), end: res.End, never: map[string]int{},
		load: cmp.Or(r.Load, 1), durations: r.Durations,
		recoveries: res.Recoveries(), gpuHoursLost: res.GPUHoursLost(), span: replaySpan(r)}
	o.curve = allocCurve(res, o.span)
	if len(r.Faults) > 0 {
		o.down = downSteps(r.Faults)
	}
	for _, e := range res.Evictions {
		if e.Drained {
			o.drained++
		} else {
			o.evicted++
		}
	}
	for _, s := range res.Samples {
		o.peakGPU = max(o.peakGPU, float64(s.UsedGPUMilli)/float64(max(int64(res.GPUs)*sched.MilliGPU, 1))*100)
	}
	for _, p := range res.Pods {
		switch {
		case p.Bound:
			o.bound++
			if p.BoundAt > p.Arrived {
				o.waited++
			}
		case p.Reason != "":
			o.never[p.Reason]++
		default:
			o.never["left before it was tried"]++
		}
	}
	return o, nil
}

// replayHeader is the replay CSV's columns.
const replayHeader = "workload,sc_policy,seed,load,durations,pods,bound,never_bound,waited,wait_p50_s,wait_p90_s,wait_p99_s,wait_max_s,mean_gpu_pct,mean_cpu_pct,mean_mem_pct,peak_gpu_pct,end_s,faults,evicted,recovery_p50_s,recovery_p99_s,gpu_hours_lost,drained"

func (o *replayOutcome) csvRow(workload, label string, seed int64) string {
	q := func(p float64) string { return strconv.FormatFloat(sched.Quantile(o.waits, p).Seconds(), 'f', -1, 64) }
	pct := func(v float64) string { return strconv.FormatFloat(100*v, 'f', 4, 64) }
	return strings.Join([]string{workload, label, strconv.FormatInt(seed, 10), strconv.FormatFloat(o.load, 'f', -1, 64),
		strconv.FormatBool(o.durations), strconv.Itoa(o.pods), strconv.Itoa(o.bound), strconv.Itoa(o.pods - o.bound),
		strconv.Itoa(o.waited), q(0.5), q(0.9), q(0.99), q(1), pct(o.use.GPU), pct(o.use.CPU), pct(o.use.Memory),
		strconv.FormatFloat(o.peakGPU, 'f', 4, 64),
		strconv.FormatFloat(o.end.Seconds(), 'f', -1, 64), strconv.FormatBool(o.faults), strconv.Itoa(o.evicted),
		strconv.FormatFloat(sched.Quantile(o.recoveries, 0.5).Seconds(), 'f', -1, 64),
		strconv.FormatFloat(sched.Quantile(o.recoveries, 0.99).Seconds(), 'f', -1, 64),
		strconv.FormatFloat(o.gpuHoursLost, 'f', 2, 64), strconv.Itoa(o.drained)}, ",")
}

// replayOutput writes the replays' CSV (when csvOut is set) and table.
func replayOutput(stdout io.Writer, csvOut string, header bool, jobs []job, out []outcome, gpus int, elapsed time.Duration, workers int) error {
	if csvOut != "" {
		var b strings.Builder
		if header {
			b.WriteString(replayHeader + "\n")
		}
		for k, j := range jobs {
			b.WriteString(out[k].replay.csvRow(j.w.name, policies[j.policy].label, j.seed) + "\n")
		}
		if csvOut == "-" {
			_, err := io.WriteString(stdout, b.String())
			return err
		}
		if err := os.WriteFile(csvOut, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(stdout)
	printReplayTable(w, jobs, out, gpus)
	fmt.Fprintf(w, "%d runs in %v on %d workers\n", len(jobs), elapsed.Round(10*time.Millisecond), workers)
	return w.Flush()
}

// printReplayTable prints per (workload, policy): the pods, those never
// bound and those that waited (medians over seeds), the waits' quantiles
// over the bound pods of all seeds, the mean allocation over time
// (medians over seeds), and the commonest reasons pods were never bound.
func printReplayTable(w *bufio.Writer, jobs []job, out []outcome, gpus int) {
	faults := slices.ContainsFunc(out, func(o outcome) bool { return o.replay.faults })
	fmt.Fprintf(w, "Replay over time (%d GPUs): pods never bound and pods that waited (median over seeds); wait of the bound pods, all seeds pooled; mean allocation over time and peak GPU allocation (medians over seeds)\n", gpus)
	fmt.Fprintf(w, "%-26s %-17s %5s %6s %6s %6s  %-9s %-9s %-9s %-9s %6s %6s %6s %6s\n", "workload", "policy", "seeds", "pods", "never", "waited",
		"wait p50", "p90", "p99", "max", "gpu%", "cpu%", "mem%", "peak")
	for _, g := range groups(jobs) {
		var pods, never, waited, gpu, cpu, mem, peak []float64
		var waits []time.Duration
		reasons := map[string]int{}
		for _, k := range g.runs {
			o := out[k].replay
			pods = append(pods, float64(o.pods))
			never = append(never, float64(o.pods-o.bound))
			waited = append(waited, float64(o.waited))
			gpu, cpu, mem = append(gpu, 100*o.use.GPU), append(cpu, 100*o.use.CPU), append(mem, 100*o.use.Memory)
			peak = append(peak, o.peakGPU)
			waits = append(waits, o.waits...)
			for r, n := range o.never {
				reasons[r] += n
			}
		}
		d := func(p float64) string { return sched.Quantile(waits, p).Round(time.Second).String() }
		fmt.Fprintf(w, "%-26s %-17s %5d %6.0f %6.0f %6.0f  %-9s %-9s %-9s %-9s %6.2f %6.2f %6.2f %6.2f\n", g.workload, policies[g.policy].label, len(g.runs),
			median(pods), median(never), median(waited), d(0.5), d(0.9), d(0.99), d(1), median(gpu), median(cpu), median(mem), median(peak))
		if faults {
			var evicted, drained, lost []float64
			var rec []time.Duration
			for _, k := range g.runs {
				o := out[k].replay
				evicted, drained, lost = append(evicted, float64(o.evicted)), append(drained, float64(o.drained)), append(lost, o.gpuHoursLost)
				rec = append(rec, o.recoveries...)
			}
			fmt.Fprintf(w, "    evicted %.0f, drained %.0f, eviction to running again p50 %v p99 %v, GPU-hours lost %.1f (medians over seeds; times pooled)\n",
				median(evicted), median(drained), sched.Quantile(rec, 0.5).Round(time.Second), sched.Quantile(rec, 0.99).Round(time.Second), median(lost))
		}
		type kv struct {
			reason string
			n      int
		}
		var top []kv
		for r, n := range reasons {
			top = append(top, kv{r, n})
		}
		slices.SortFunc(top, func(a, b kv) int { return cmp.Or(-cmp.Compare(a.n, b.n), strings.Compare(a.reason, b.reason)) })
		for _, t := range top[:min(len(top), 3)] {
			fmt.Fprintf(w, "    never bound, %d over the seeds: %s\n", t.n, t.reason)
		}
	}
}
