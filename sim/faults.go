package sim

import (
	"github.com/nodelife/nodelife/sim/trace"
)

// FaultOutages turns node fault windows into Outages of an explicit
// Cluster: a fault trace's (trace.ReadFaults, its nodes put on the
// cluster's with trace.AssignFaults) or generated ones
// (trace.FaultModel.Generate). Each window cuts its node's kubelet off
// from the API server from Start to End, or to the run's end when it is
// Ongoing: no lease, no status, and the node lifecycle controller does
// the rest. A window that ends where it starts is dropped. The simulator
// has no scheduler's cordon, so a maintenance window (trace.MaintenanceFault)
// is an outage like the others here; sim/sched's replay drains it.
func FaultOutages(ws []trace.FaultWindow) []Outage {
	var out []Outage
	for _, w := range ws {
		switch {
		case w.Ongoing:
			out = append(out, Outage{Names: []string{w.Node}, From: w.Start})
		case w.End > w.Start:
			out = append(out, Outage{Names: []string{w.Node}, From: w.Start, To: w.End})
		}
	}
	return out
}
