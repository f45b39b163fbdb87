// Package e2e holds the end-to-end tests of cmd/cluster: agents, the
// node lifecycle controller, leader election and the nodewatch command
// against a real kube-apiserver and etcd started once per test binary
// (internal/testcluster), all on one fake clock stepped by a harness that
// reads the API after each instant and records what changed, and when.
//
// It is a module of its own (github.com/nodelife/nodelife/cmd/cluster/e2e)
// because starting kube-apiserver in-process needs k8s.io/kubernetes and its
// staging replace block; the programs and packages of cmd/cluster do
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
//   - Faults at the API boundary (faults_test.go, restart_test.go): the
//     controller's API outage with and without election, a leader killed,
//     409s on node and pod status, a watch expiring, an agent restarted,
//     two controllers without election, a pod deleted while its eviction
//     is scheduled, a new API server on the same etcd, etcd restarted.
//   - TestSoak: those faults drawn at random over 30 minutes of a 3-zone
//     cluster, invariants after every instant (5 seeds; 200 with
//     NODELIFE_LONG=1; NODELIFE_SOAK_SEED=N replays one).
//   - TestNodeRestriction, TestExpiredClientCertificate: every agent
//     authenticates as system:node:<name> with its own client certificate,
//     under the Node authorizer and NodeRestriction, and is refused what a
//     kubelet is refused; the commands name an expired certificate.
//
// Every expected time in these tests is worked out by hand from upstream's
// defaults in the test's comment, not read back from the code.
package e2e
