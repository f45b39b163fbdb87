package cgroup

import (
	"k8s.io/apimachinery/pkg/api/resource"
)

// rl builds a ResourceList from name/quantity pairs.
func rl(kv ...string) ResourceList {
	out := ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func ctr(name string, reqs, lims ResourceList) Container {
	return Container{Name: name, Resources: Resources{Requests: reqs, Limits: lims}}
}

func u64(v uint64) *uint64 { return &v }
func i64(v int64) *int64   { return &v }
