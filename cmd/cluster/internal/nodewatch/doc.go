// Package nodewatch is the nodewatch command: nodelife's node lifecycle
// controller against a user's live cluster, read-only unless asked.
//
// Without -apply it lists nodes, node leases and bound pods once, prints
// each node's zone, Ready status, lease age and taints, and runs
// controller.Plan from now over a horizon (10m): a fresh controller on a
// virtual clock, assuming nodes that renew their leases on time go on
// renewing and silent ones stay silent. It prints every action with its
// time from now: Ready rewritten to Unknown, pods marked NotReady, the
// NoSchedule and NoExecute taints added or removed, the evictions
// scheduled (with their due times) and carried out. Nothing is written;
// the only requests besides reads are SelfSubjectAccessReviews.
//
// With -apply it runs the same controller against the cluster for the
// horizon, step by step, each step on informers caught up with the API
// server, and prints what it does in the same format. A cluster that runs
// kube-controller-manager's own node lifecycle controller would then have
// two controllers tainting its nodes: use -apply on test clusters, or with
// --controllers=-node-lifecycle-controller,-taint-eviction-controller.
//
// Errors name the cause: no kubeconfig (and where it was looked for), an
// API server that does not answer (and its address), and every verb the
// user lacks for the mode (checked with SelfSubjectAccessReviews before
// anything else is read).
//
// # Usage
//
//	go run ./nodewatch -kubeconfig ~/.kube/config
//	go run ./nodewatch -horizon 30m -apply
package nodewatch
