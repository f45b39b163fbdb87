// Command simulate runs the discrete-event simulation of package sim
// from the command line and prints a summary per zone, optionally with an
// SVG timeline:
//
//	go run ./cmd/simulate --nodes 5000 --seed 7 --svg timeline.svg
//
// Flags:
//
//	--nodes n        nodes in all, spread over the zones (150)
//	--zones n        zones a, b, ... (3)
//	--pods n         pods per node (2)
//	--duration d     simulated time (15m)
//	--seed n         heartbeat jitter and kubelet start offsets (1; 0: none)
//	--outage z@f-t   zone z loses connectivity from f to t (b@1m-10m);
//	                 repeatable, comma-separated; "none" for none
//	--toleration s   pods' not-ready/unreachable tolerationSeconds (300)
//	--events         print every event, not just the summary
//	--svg file       write the timeline as SVG
//	--json           print the result as JSON
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/nodelife/nodelife/internal/cpuprofile"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/sim"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "simulate:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nodes := fs.Int("nodes", 150, "nodes in all, spread over the zones")
	zones := fs.Int("zones", 3, "number of zones")
	pods := fs.Int("pods", 2, "pods per node")
	duration := fs.Duration("duration", 15*time.Minute, "simulated time")
	seed := fs.Int64("seed", 1, "seed for jitter and start offsets; 0 means none")
	outages := fs.String("outage", "b@1m-10m", `outages as ZONE[/n]@FROM-TO (the replay's grammar), comma-separated, or "none"`)
	tol := fs.Int64("toleration", 300, "tolerationSeconds of the pods' not-ready and unreachable tolerations")
	events := fs.Bool("events", false, "print every event")
	svg := fs.String("svg", "", "write an SVG timeline to this file")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	everyNode := fs.Bool("every-node-pass", false, "the controller's monitor pass looks at every node, as upstream's (the same result, at its cost)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run there")
	if err := fs.Parse(args); err != nil {
		return err
	}
	stopProfile, err := cpuprofile.Start(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg := sim.Config{Zones: *zones, Nodes: *nodes, PodsPerNode: *pods, Duration: *duration, Seed: *seed, TolerationSeconds: *tol}
	if *pods == 0 {
		cfg.PodsPerNode = -1
	}
	if *everyNode {
		lc := nodelifecycle.DefaultConfig()
		lc.EveryNodePass = true
		cfg.Controller = &lc
	}
	if *outages != "none" && *outages != "" {
		for _, spec := range strings.Split(*outages, ",") {
			o, err := sim.ParseOutage(spec, sim.SyntheticZones(*zones))
			if err != nil {
				return err
			}
			cfg.Outages = append(cfg.Outages, o)
		}
	}
	if !*quiet {
		cfg.Progress = func(done, total time.Duration) {
			fmt.Fprintf(stderr, "simulate: %v of %v\n", done, total)
		}
	}
	res, err := sim.Run(cfg)
	if err != nil {
		return err
	}
	if *svg != "" {
		if err := os.WriteFile(*svg, []byte(res.SVG()), 0o644); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", " ")
		return enc.Encode(res)
	}
	if *events {
		for _, e := range res.Events {
			fmt.Fprintf(stdout, "%10v  %-10s %-10s %s\n", e.At, e.Kind, e.Reason, e.Message)
		}
	}
	t := res.Totals
	fmt.Fprintf(stdout, "%d nodes, %d pods, %v simulated: %d NoExecute taints, %d pods evicted, %d evictions cancelled\n",
		t.Nodes, t.Pods, res.Duration, t.Tainted, t.Evicted, t.Cancelled)
	fmt.Fprintf(stdout, "%d heartbeat requests, %d monitor passes, %d tainting passes, %d queued events\n", t.Heartbeats, t.MonitorPasses, t.TaintPasses, t.QueueEvents)
	last := res.Timeline[len(res.Timeline)-1]
	for _, z := range last.Zones {
		fmt.Fprintf(stdout, "zone %s at the end: %d Ready, %d NotReady, %d Unknown, %d tainted, %d pods evicted, %s\n", z.Zone, z.Ready, z.NotReady, z.Unknown, z.Tainted, z.Evicted, z.State)
	}
	return nil
}
