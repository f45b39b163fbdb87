// Command cgroup runs one scenario of the guided tour on its own:
// the cgroup names and values of a Burstable pod under systemd and cgroupfs.
//
//	go run ./examples/cgroup [-json] [-seed n] [-size n]
//
// The scenario itself is examples/scenario/cgroup.go: copy that file and
// examples/scenario/report.go to start your own.
package main

import (
	"os"

	"github.com/nodelife/nodelife/examples/scenario"
)

func main() {
	os.Exit(scenario.Main("cgroup", os.Args[1:], os.Stdout, os.Stderr))
}
