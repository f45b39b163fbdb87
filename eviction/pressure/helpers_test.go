package pressure

import (
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
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

// memPod is a pod with one container requesting req (bytes) of memory and
// using use (bytes), or no stats when use < 0.
func memPod(name string, prio int32, req string, use int64) Pod {
	p := Pod{Name: name, Namespace: "default", UID: name + "-uid", Priority: &prio,
		Containers: []Container{{Name: "c"}}}
	if req != "" {
		p.Containers[0].Requests.Memory = qv(req)
	}
	if use >= 0 {
		p.Stats = &PodStats{WorkingSetBytes: u64(uint64(use)),
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
