// Command replay plays what-if scenarios on a snapshot of a real cluster
// with nodelife's decisions: which pods go, when, by which rule, and what
// each workload loses. See package replaycmd for the flags.
//
//	kubectl get nodes,pods,leases -A -o json > cluster.json
//	go run ./cmd/replay -snapshot cluster.json -outage eu-1b@1m-11m
package main

import (
	"os"

	"github.com/nodelife/nodelife/cmd/cluster/internal/replaycmd"
	"github.com/nodelife/nodelife/examples/kubeapi/replay"
)

func main() {
	replay.TuneCollector()
	os.Exit(replaycmd.Main(os.Args[1:], os.Stdout, os.Stderr))
}
