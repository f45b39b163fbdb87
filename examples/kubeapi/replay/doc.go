// Package replay answers what-if questions on a snapshot of a real
// cluster: it turns scenario specs into the simulator's scenarios
// (package sim) resolved against the snapshot's nodes and zones,
// and writes the run's report.
//
// The pieces, in the order the replay command uses them:
//
//	snap, warnings, err := snapshot.Load("cluster.json") // kubectl get nodes,pods,leases -A -o json
//	c := snap.Cluster()
//	o, err := replay.ParseOutage(c, "eu-1b@1m-11m")      // zone eu-1b cut off for 10 minutes
//	res, err := sim.Run(sim.Config{Cluster: c, Outages: []sim.Outage{o}})
//	replay.WriteSummary(os.Stdout, res)
//
// Scenario specs (times since the start of the run):
//
//	--outage SEL@FROM-TO          the nodes lose the API server (TO empty: to the end)
//	--shutdown SEL@AT[/OOS]       the nodes shut down (gracefully when configured);
//	                              OOS: when the out-of-service taint is added
//	--pressure NODE@FROM-TO:AVAIL memory.available on NODE drops to AVAIL (e.g. 50Mi)
//	--cloud-delete SEL@AT         the nodes' instances are deleted from the cloud
//	--condition SEL@FROM-TO:TYPE=STATUS
//	                              the nodes post condition TYPE at STATUS (for the
//	                              node readiness rules of --readiness-rules)
//
// SEL is a zone ("eu-1b" or "eu-1/eu-1b", "eu-1b/3" for its first three
// nodes) or node names joined by "+" ("w-1a1+w-1a2").
//
// The command is cmd/cluster/replay, which also reads a live
// cluster (-kubeconfig).
package replay
