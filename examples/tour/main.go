// Command tour walks through what nodelife decides, on built-in data, and
// prints a readable report with timestamps and reasons. Run it with:
//
//	go run ./examples/tour
//
// It runs every scenario of examples/scenario in turn: taints, a zone
// outage (the simulation driver of sim), a graceful shutdown, a
// disk-pressure cycle, a leader-election hand-over, a cascading delete,
// the cgroup values of a Burstable pod, a cloud node's life, a node
// readiness rule through a CNI crash, and a pod's NUMA placement. The
// output is the same on every run.
//
// Flags:
//
//	-scenario name[,name]  run only these scenarios (-list shows them)
//	-size n                scale the scenarios that have a size (nodes per
//	                       zone, pods, candidates); 0 keeps each default
//	-seed n                seed the scenarios' randomness (0: none)
//	-json                  print the reports as a JSON array instead of text
//	-progress              report progress on stderr (on by default for
//	                       -size 1000 and above)
//	-list                  list the scenarios and what -size means for each
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nodelife/nodelife/examples/scenario"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tour:", err)
		os.Exit(2)
	}
}

// run is the command, with its arguments and outputs injected for tests.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tour", flag.ContinueOnError)
	fs.SetOutput(stderr)
	only := fs.String("scenario", "", "run only these scenarios, comma-separated (see -list)")
	size := fs.Int("size", 0, "scale the scenarios that have a size; 0 keeps each default")
	seed := fs.Int64("seed", 0, "seed the scenarios' randomness; 0 means none")
	asJSON := fs.Bool("json", false, "print a JSON array of reports instead of text")
	progress := fs.Bool("progress", false, "report progress on stderr (on by default for -size 1000 and above)")
	list := fs.Bool("list", false, "list the scenarios")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (scenarios are chosen with -scenario)", fs.Arg(0))
	}
	if *size < 0 {
		return fmt.Errorf("-size %d is negative", *size)
	}
	if *list {
		for _, s := range scenario.All() {
			sz := "no size"
			if s.SizeHelp != "" {
				sz = "-size: " + s.SizeHelp
			}
			fmt.Fprintf(stdout, "%-17s %s (%s)\n", s.Name, s.About, sz)
		}
		return nil
	}
	chosen := scenario.All()
	if *only != "" {
		chosen = chosen[:0]
		for _, name := range strings.Split(*only, ",") {
			s, ok := scenario.Find(strings.TrimSpace(name))
			if !ok {
				return fmt.Errorf("unknown scenario %q (one of %s)", name, strings.Join(scenario.Names(), ", "))
			}
			chosen = append(chosen, s)
		}
	}
	opts := scenario.Options{Size: *size, Seed: *seed}
	if *progress || *size >= 1000 {
		opts.Progress = stderr
	}
	var reports []scenario.Report
	for i, s := range chosen {
		if opts.Progress != nil {
			fmt.Fprintf(stderr, "tour: scenario %d of %d: %s\n", i+1, len(chosen), s.Name)
		}
		rep, err := s.Run(opts)
		if err != nil {
			return fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		reports = append(reports, rep)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(reports)
	}
	for i, rep := range reports {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if err := rep.WriteText(stdout); err != nil {
			return err
		}
	}
	return nil
}
