// Command nodewatch runs nodelife's node lifecycle controller against a
// live cluster: it prints each node's health and what the controller would
// do from now on (the taints it would add or remove, the pods it would
// evict and when), and writes nothing unless -apply.
//
//	go run ./cmd/nodewatch -kubeconfig ~/.kube/config [-horizon 10m] [-apply]
package main

import (
	"os"

	"github.com/nodelife/nodelife/cmd/cluster/internal/nodewatch"
)

func main() {
	os.Exit(nodewatch.Main(os.Args[1:], os.Stdout, os.Stderr))
}
