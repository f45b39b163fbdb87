package pressure

import (
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func u64(v uint64) *uint64 { return &v }
func i64(v int64) *int64   { return &v }
func i32(v int32) *int32   { return &v }

func q(s string) *resource.Quantity {
	v := resource.MustParse(s)
	return &v
}

func qv(s string) resource.Quantity { return resource.MustParse(s) }

const (
	ki = 1024
	mi = 1024 * ki
	gi = 1024 * mi
)

// tp is a test pod with its stats reading (nil for none).
type tp struct {
	core.Pod
	st *PodStats
}

// split turns test pods into what Rank and Step take: the pods, and their
// readings by UID.
func split(ps []tp) ([]core.Pod, Stats) {
	pods := make([]core.Pod, len(ps))
	stats := Stats{}
	for i := range ps {
		pods[i] = ps[i].Pod
		if ps[i].st != nil {
			stats[ps[i].UID] = ps[i].st
		}
	}
	return pods, stats
}

// rank is Rank over test pods.
func rank(s Signal, l Layout, ps []tp, opts RankOptions) ([]Ranked, error) {
	pods, stats := split(ps)
	return Rank(s, l, pods, stats, opts)
}

// step is Manager.Step over test pods.
func step(m *Manager, obs Observations, ps []tp, now time.Time) Result {
	pods, stats := split(ps)
	return m.Step(now, obs, pods, stats)
}

// rl is a resource list of memory and ephemeral storage, "" for absent.
func rl(memory, ephemeral string) core.ResourceList {
	l := core.ResourceList{}
	if memory != "" {
		l[core.ResourceMemory] = qv(memory)
	}
	if ephemeral != "" {
		l[core.ResourceEphemeralStorage] = qv(ephemeral)
	}
	return l
}

// ctr is a container with requests of memory and ephemeral storage ("" for
// none).
func ctr(name, memory, ephemeral string) core.Container {
	return core.Container{Name: name, Resources: core.ResourceRequirements{Requests: rl(memory, ephemeral)}}
}

// local is an emptyDir volume on the node's disk.
func local(name string) core.Volume { return core.Volume{Name: name, Source: core.VolumeEmptyDir} }

// memPod is a pod with one container requesting req (bytes) of memory and
// using use (bytes), or no stats when use < 0.
func memPod(name string, prio int32, req string, use int64) tp {
	p := tp{Pod: core.Pod{Name: name, Namespace: "default", UID: name + "-uid", Priority: &prio,
		Containers: []core.Container{ctr("c", req, "")}}}
	if use >= 0 {
		p.st = &PodStats{WorkingSetBytes: u64(uint64(use)),
			Containers: []ContainerStats{{Name: "c", WorkingSetBytes: u64(uint64(use))}}}
	}
	return p
}

func names(rs []Ranked) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Pod.Name
	}
	return out
}
