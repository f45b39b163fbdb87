package admission

import "github.com/nodelife/nodelife/cgroup"

// CgroupPod is p as admission hands it to package cgroup, for the external
// property tests (which draw from nodelifetest).
func CgroupPod(p *Pod) cgroup.Pod { return p.cgroupPod() }
