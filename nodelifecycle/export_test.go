package nodelifecycle

import (
	"time"

	"github.com/nodelife/nodelife/core"
)

// Machine is what both the Controller and the naive reference of
// naive_test.go implement, for the external property test (which draws
// from nodelifetest).
type Machine interface {
	UpsertNode(core.Node)
	DeleteNode(string)
	UpsertLease(Lease)
	DeleteLease(string)
	UpsertPod(core.Pod)
	DeletePod(string, string)
	Step(now time.Time, apply Apply) Ready
	SetLiveLeases(LiveLeases)
}

// NewNaive returns the naive reference controller.
func NewNaive(cfg Config) Machine { return newNaive(cfg) }
