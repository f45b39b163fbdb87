package cgroup

import (
	"github.com/nodelife/nodelife/core"
	"k8s.io/apimachinery/pkg/api/resource"
)

// rl builds a ResourceList from name/quantity pairs.
func rl(kv ...string) core.ResourceList {
	out := core.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[core.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func ctr(name string, reqs, lims core.ResourceList) core.Container {
	return core.Container{Name: name, Resources: core.ResourceRequirements{Requests: reqs, Limits: lims}}
}

func u64(v uint64) *uint64 { return &v }
func i64(v int64) *int64   { return &v }
