// Package election runs client-go's leader election as lease.Elector
// against a coordination.k8s.io/v1 Lease in the API server. Every write is
// an update conditional on the resourceVersion the elector read; a 409 is
// a lost race. Candidate.Allowed is the gate a controller asks before each
// write: true only while the candidate leads and the clock is before its
// MustStopBy fence (the last renewal it wrote plus the lease duration),
// after which another candidate may hold the lock.
//
// Losing the lock is an event, not an end: when the renewals fail for the
// renew deadline, the candidate reports StoppedLeading, signals Lost and
// campaigns again with a new lease.Elector, as a restarted
// kube-controller-manager would (upstream exits on the loss). A controller
// gated by Allowed drops its state while the gate is closed and starts
// afresh when it opens again (controller.Options.Gate).
//
// # Usage
//
//	cand, err := election.New(client, election.Options{Namespace: "kube-system", Name: "nodelife",
//		Config: lease.DefaultElectionConfig(hostname)})
//	go cand.Run(ctx)
//	ctrl, err := controller.New(client, controller.Options{Gate: cand.Allowed})
package election
