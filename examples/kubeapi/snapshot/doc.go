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
// package kubeapi (Pod, Node, ZoneNode, TaintNode, ...).
//
// JSON is read as a stream, never held whole: a List's items are read a
// batch at a time (8,192 items or 16 MiB) and decoded on every core while
// the next batch is read, so that what a read holds is what it keeps, not
// the input's size. A List whose kind comes after its items (kubectl
// prints apiVersion, items, kind, metadata in that order) holds back only
// the items that need it (kind-less items of a typed List) until it is
// read. Pods and nodes, most of a large snapshot, are decoded in one pass
// that checks and decodes the fields kept and skips the rest (about four
// times encoding/json's speed); on anything where it could decode
// differently from encoding/json it leaves the item to encoding/json. YAML
// is read whole, then converted. Options.MaxBytes bounds the
// bytes read after decompression; Options.ReplayOnly keeps each pod only
// as the library's core.Pod (what the replay command reads: about 4 KB of
// memory a pod at 100,000 pods, the run included).
//
// It is the input side of the what-if replay on a user's own cluster:
// Cluster converts a snapshot into the simulator's explicit cluster
// (package sim), and package examples/kubeapi/replay and the
// command cmd/cluster/replay run scenarios on it.
package snapshot
