// Package snapshot reads a cluster snapshot, the output of
//
//	kubectl get nodes,pods,leases -A -o json
//
// (a v1.List; priority classes may be added with
// `kubectl get priorityclasses -o json`), from a file or a directory of such
// files, into typed k8s.io/api objects, with errors that name the file, the
// item and the field, and warnings for the kinds it skips. Validate reports
// what a replay cannot work around, such as a pod bound to a node the
// snapshot does not have. The objects convert into nodelife's inputs with
// package kubeapi (ZoneNode, EvictionPod, ShutdownPod, ...).
//
// It is the input side of the what-if replay on a user's own cluster:
// Cluster converts a snapshot into the simulator's explicit cluster
// (package examples/sim), and package examples/kubeapi/replay and the
// command examples/cluster/cmd/replay run scenarios on it.
package snapshot
