// Command leader-election runs one scenario of the guided tour on its own:
// a leader stops renewing its lease and another candidate takes over.
//
//	go run ./examples/leader-election [-json] [-seed n] [-size n]
//
// The scenario itself is examples/scenario/election.go: copy that file and
// examples/scenario/report.go to start your own.
package main

import (
	"os"

	"github.com/nodelife/nodelife/examples/scenario"
)

func main() {
	os.Exit(scenario.Main("leader-election", os.Args[1:], os.Stdout, os.Stderr))
}
