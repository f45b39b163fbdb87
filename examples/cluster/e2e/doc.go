// Package e2e holds the end-to-end tests of examples/cluster: agents, the
// node lifecycle controller, leader election and the nodewatch command
// against a real kube-apiserver and etcd started once per test binary
// (internal/testcluster), all on one fake clock stepped by a harness that
// reads the API after each instant and records what changed, and when.
//
// It is a module of its own (github.com/nodelife/nodelife/examples/cluster/e2e)
// because starting kube-apiserver in-process needs k8s.io/kubernetes and its
// staging replace block; the programs and packages of examples/cluster do
// not, and their module's graph has neither.
//
//   - TestZoneOutage: 3 zones x 5 nodes, zone b cut off from +60s to +600s;
//     Ready=Unknown, the unreachable taints at the zone's rate, evictions at
//     60s, 300s and never, taints gone on return, zones a and c untouched.
//   - TestAllZonesDown: full disruption, no NoExecute taint, no eviction.
//   - TestLeaderElectionTakeover, TestNoEvictionPastFence: two controller
//     replicas; the takeover after the lease duration; delays and conflicts
//     injected on the wire, and no write past a replica's MustStopBy.
//   - TestGracefulShutdown: priority phases on a slow runtime, pod statuses.
//   - TestAgentStatusSchedule: status posted on change and every 5m.
//   - TestNodewatchPlanMatchesApply, TestNodewatchErrors: the command.
//   - TestScale: many agents on the real clock (1,000 with NODELIFE_LONG=1).
//
// Every expected time in these tests is worked out by hand from upstream's
// defaults in the test's comment, not read back from the code.
package e2e
