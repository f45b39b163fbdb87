package cri

import "github.com/nodelife/nodelife/core"

// NewestStatus is the newest instance of the named container in st, as
// the sync planner finds it, for the external property tests (which draw
// from nodelifetest).
func NewestStatus(p *core.Pod, st *PodStatus, name string) *ContainerStatus {
	v := newView(p, st, SyncOptions{})
	return v.find(name)
}
