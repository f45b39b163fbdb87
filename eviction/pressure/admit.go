package pressure

import (
	"strings"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// AdmitResult is an admission decision.
type AdmitResult struct {
	// Admit is true when the pod may start.
	Admit bool
	// Reason is "Evicted" for a rejection.
	Reason string
	// Message is "The node had condition: [<conditions>]. " for a
	// rejection.
	Message string
}

// Admit decides whether a pod may start on a node reporting the pressure
// conditions conds (upstream's eviction admit handler):
//
//   - no condition: admit;
//   - a critical pod: admit;
//   - MemoryPressure alone: admit pods that are not BestEffort, and
//     BestEffort pods tolerating node.kubernetes.io/memory-pressure:NoSchedule;
//   - otherwise reject, reason "Evicted", message "The node had
//     condition: [<conds>]. " listing conds in the order given.
//
// It reads p's annotations and priority (core.Pod.IsCritical), QOSClass
// and Tolerations. QOSClass is status.qosClass, which the API server sets;
// a caller with pods that lack it fills it in first (cgroup.PodQOS, as
// admission.PressureHandler does), since an empty class is not BestEffort.
func Admit(conds []conditions.Type, p *core.Pod) AdmitResult {
	if len(conds) == 0 || p.IsCritical() {
		return AdmitResult{Admit: true}
	}
	if len(conds) == 1 && conds[0] == conditions.MemoryPressure {
		if p.QOSClass != core.PodQOSBestEffort {
			return AdmitResult{Admit: true}
		}
		mp := taints.Taint{Key: taints.TaintNodeMemoryPressure, Effect: taints.TaintEffectNoSchedule}
		if taints.TolerationsTolerateTaint(p.Tolerations, &mp) {
			return AdmitResult{Admit: true}
		}
	}
	names := make([]string, len(conds))
	for i, c := range conds {
		names[i] = string(c)
	}
	return AdmitResult{Reason: Reason, Message: "The node had condition: [" + strings.Join(names, " ") + "]. "}
}

// Admit is the package-level Admit with the conditions of the last step.
func (m *Manager) Admit(p *core.Pod) AdmitResult { return Admit(m.state.Conditions, p) }
