// Command zone-outage runs one scenario of the guided tour on its own:
// zone b of three loses connectivity for nine minutes; its nodes turn Unknown, are tainted at the zone's rate, their pods are evicted, and it recovers.
//
//	go run ./examples/zone-outage [-json] [-seed n] [-size n]
//
// The scenario itself is examples/scenario/zoneoutage.go: copy that file and
// examples/scenario/report.go to start your own.
package main

import (
	"os"

	"github.com/nodelife/nodelife/examples/scenario"
)

func main() {
	os.Exit(scenario.Main("zone-outage", os.Args[1:], os.Stdout, os.Stderr))
}
