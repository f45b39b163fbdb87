// Command disk-pressure runs one scenario of the guided tour on its own:
// image GC, dead-container trim, then node-pressure eviction under DiskPressure.
//
//	go run ./examples/disk-pressure [-json] [-seed n] [-size n]
//
// The scenario itself is examples/scenario/diskpressure.go: copy that file and
// examples/scenario/report.go to start your own.
package main

import (
	"os"

	"github.com/nodelife/nodelife/examples/scenario"
)

func main() {
	os.Exit(scenario.Main("disk-pressure", os.Args[1:], os.Stdout, os.Stderr))
}
