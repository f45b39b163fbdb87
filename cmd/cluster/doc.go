// Package cluster is the root of the nested module
// github.com/nodelife/nodelife/cmd/cluster: client-go programs built
// from nodelife's packages and tested against a real kube-apiserver and
// etcd started in the test process.
//
//   - agent: what a custom kubelet runs to keep its Node alive: registration
//     (with --register-with-taints), the node lease heartbeat, node status
//     on the kubelet's update and report schedule, and graceful shutdown
//     phase by phase.
//   - controller: what kube-controller-manager's node lifecycle and taint
//     eviction controllers do: node health, zone states and tainting rates,
//     the NoSchedule and NoExecute taints, pod evictions.
//   - election: leader election on a coordination.k8s.io/v1 Lease with
//     lease.Elector, gating the controller's writes by the MustStopBy fence.
//   - nodewatch: the controller's decisions against a live cluster, read-only
//     unless asked (go run ./nodewatch -kubeconfig ~/.kube/config).
//
// Every component takes a clock (k8s.io/utils/clock), so the tests drive
// a ten-minute outage on a fake clock in seconds while every read and
// write goes through the real API server.
package cluster
