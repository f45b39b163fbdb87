// Command taints runs one scenario of the guided tour on its own:
// a node registers with taints, is edited with kubectl's grammar, and pods are checked against it.
//
//	go run ./examples/taints [-json] [-seed n] [-size n]
//
// The scenario itself is examples/scenario/taints.go: copy that file and
// examples/scenario/report.go to start your own.
package main

import (
	"os"

	"github.com/nodelife/nodelife/examples/scenario"
)

func main() {
	os.Exit(scenario.Main("taints", os.Args[1:], os.Stdout, os.Stderr))
}
