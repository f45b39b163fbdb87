// Command cloud-node runs one scenario of the guided tour on its own: a node
// is initialized by the cloud controller manager, gets its pod CIDRs and
// routes, is shut down in the cloud, then deleted from it.
//
//	go run ./examples/cloud-node [-json] [-seed n] [-size n]
//
// The scenario itself is examples/scenario/cloud.go: copy that file and
// examples/scenario/report.go to start your own.
package main

import (
	"os"

	"github.com/nodelife/nodelife/examples/scenario"
)

func main() {
	os.Exit(scenario.Main("cloud-node", os.Args[1:], os.Stdout, os.Stderr))
}
