// Package agent is the part of a kubelet that keeps its Node alive in the
// API server, built on nodelife: it registers the Node (name and labels
// checked as the kubelet checks its flags, --register-with-taints parsed
// with the kubectl grammar), renews the node Lease in kube-node-lease with
// lease.Heartbeat (retries, back-off, the Node as the lease's owner), runs
// the kubelet's condition setters and posts status when
// conditions.Reporter says so (at once on a change, else every report
// period), and carries out a graceful shutdown with shutdown.Manager: the
// node turns not Ready, pods are stopped phase by phase on an injected
// runtime and their status is written through the status subresource
// (phase Failed, reason Terminated, the DisruptionTarget condition).
//
// # Usage
//
//	a, err := agent.New(client, agent.Options{NodeName: "n1", RegisterWithTaints: []string{"dedicated=db:NoSchedule"}})
//	go a.Run(ctx)       // or call a.Step(ctx) on your own clock
//	...
//	a.Shutdown(ctx)     // on logind's PrepareForShutdown
//
// Time comes from Options.Clock; Step does what is due at the clock's now
// and returns when it next has work, so tests drive it on a fake clock.
package agent
