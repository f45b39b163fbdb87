// Command shutdown runs one scenario of the guided tour on its own:
// a graceful node shutdown with pod-priority phases.
//
//	go run ./examples/shutdown [-json] [-seed n] [-size n]
//
// The scenario itself is examples/scenario/shutdown.go: copy that file and
// examples/scenario/report.go to start your own.
package main

import (
	"os"

	"github.com/nodelife/nodelife/examples/scenario"
)

func main() {
	os.Exit(scenario.Main("shutdown", os.Args[1:], os.Stdout, os.Stderr))
}
