package scenario

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
)

// Main is the body of the one-scenario programs under examples/ (go run
// ./examples/zone-outage, ...): it parses -size, -seed, -json and
// -progress from args, runs the scenario called name and prints its report
// to stdout. It returns the process exit code: 0, or 2 after printing the
// error to stderr.
func Main(name string, args []string, stdout, stderr io.Writer) int {
	s, ok := Find(name)
	if !ok {
		fmt.Fprintf(stderr, "%s: no such scenario\n", name)
		return 2
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	help := "not used by this scenario"
	if s.SizeHelp != "" {
		help = s.SizeHelp
	}
	size := fs.Int("size", 0, help)
	seed := fs.Int64("seed", 0, "seed the scenario's randomness; 0 means none")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	progress := fs.Bool("progress", false, "report progress on stderr")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *size < 0 || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: -size %d must not be negative; no arguments allowed (got %q)\n", name, *size, fs.Args())
		return 2
	}
	opts := Options{Size: *size, Seed: *seed}
	if *progress {
		opts.Progress = stderr
	}
	rep, err := s.Run(opts)
	if err == nil {
		if *asJSON {
			var b []byte
			if b, err = json.MarshalIndent(rep, "", "  "); err == nil {
				_, err = fmt.Fprintf(stdout, "%s\n", b)
			}
		} else {
			err = rep.WriteText(stdout)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	return 0
}
