package shutdown

import (
	"time"

	"github.com/nodelife/nodelife/core"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// at returns t0 + s seconds.
func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func i32(v int32) *int32 { return &v }
func i64(v int64) *int64 { return &v }

// pod returns a running pod in namespace "ns" with the given priority
// (nil when prio is nil) and termination grace period.
func pod(name string, prio *int32, grace *int64) core.Pod {
	return core.Pod{Namespace: "ns", Name: name, UID: "uid-" + name, Priority: prio, TerminationGracePeriodSeconds: grace, Phase: core.PodRunning}
}

// names returns the pod names of a phase.
func names(ps []PlannedPod) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Pod.Name
	}
	return out
}
