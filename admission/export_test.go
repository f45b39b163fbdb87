package admission

import "github.com/nodelife/nodelife/core"

// CgroupPod is p as admission hands it to package cgroup, for the external
// property tests (which draw from nodelifetest).
func CgroupPod(p *Pod) core.Pod { return p.cgroupPod() }
