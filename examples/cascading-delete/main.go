// Command cascading-delete runs one scenario of the guided tour on its own:
// a Deployment deleted under each propagation policy.
//
//	go run ./examples/cascading-delete [-json] [-seed n] [-size n]
//
// The scenario itself is examples/scenario/cascade.go: copy that file and
// examples/scenario/report.go to start your own.
package main

import (
	"os"

	"github.com/nodelife/nodelife/examples/scenario"
)

func main() {
	os.Exit(scenario.Main("cascading-delete", os.Args[1:], os.Stdout, os.Stderr))
}
