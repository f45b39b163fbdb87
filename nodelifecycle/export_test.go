package nodelifecycle

import (
	"errors"
	"time"

	"github.com/nodelife/nodelife/core"
)

// Apply carries out one action for a test and reports whether it failed.
type Apply func(Action) error

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

// Applying drives a Controller with an Apply: one whole Step at now,
// each action applied as it comes and its failure reported with Failed,
// and the Step continued until it is complete. The actions come back
// without their numbers, as the naive reference's.
func Applying(c *Controller) Machine { return applying{c} }

type applying struct{ *Controller }

func (a applying) Step(now time.Time, apply Apply) Ready {
	var out Ready
	for {
		r := a.Controller.Step(now)
		for _, act := range r.Actions {
			if err := applyErr(apply, act); err != nil && isWrite(act.Kind) {
				if errors.Is(err, ErrRefuse) && (act.Kind == KindEvict || act.Kind == KindPodsNotReady) {
					if err := a.Refused(act); err != nil {
						panic(err)
					}
				} else if err := a.Failed(act); err != nil {
					panic(err)
				}
			}
			act.seq = 0
			out.Actions = append(out.Actions, act)
		}
		out.Next = r.Next
		if a.stage == stageIdle {
			return out
		}
	}
}

// ErrRefuse, returned by a test's Apply for an eviction or a
// pods-not-ready write, makes Applying report it Refused, not Failed.
var ErrRefuse = errors.New("refused")

func applyErr(apply Apply, a Action) error {
	if apply == nil {
		return nil
	}
	return apply(a)
}

func isWrite(k Kind) bool {
	return k == KindNodeStatus || k == KindPodsNotReady || k == KindTaints || k == KindEvict
}
