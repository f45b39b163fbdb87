package nodelifecycle

import (
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/coretest"
)

// corePod is the core.Pod whose state is s: its Ready condition True or
// False as s.Ready, a deletion timestamp when s.Terminating.
func corePod(s PodState) core.Pod {
	return core.Pod{Namespace: s.Namespace, Name: s.Name, UID: s.UID, NodeName: s.NodeName, Tolerations: s.Tolerations,
		Conditions: coretest.PodReady(s.Ready), DeletionTimestamp: coretest.Deleting(s.Terminating)}
}
