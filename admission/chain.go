package admission

import (
	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/topology"
)

// Handler is one of the kubelet's pod admit handlers.
type Handler interface {
	Admit(p *core.Pod) Result
}

// HandlerFunc adapts a function to a Handler.
type HandlerFunc func(p *core.Pod) Result

// Admit calls f(p).
func (f HandlerFunc) Admit(p *core.Pod) Result { return f(p) }

// Chain is the kubelet's admit handlers in the order it runs them (v1.37.2,
// NewMainKubelet); the first refusal wins and the handlers after it do not
// run. A nil slot is skipped, so the zero Chain admits everything.
//
// The slots the library does not decide (sysctls, AppArmor, the pod and
// declared features checks) take a caller's Handler; Topology is where the
// container manager's resource allocation answers (the topology, CPU,
// memory and device managers).
type Chain struct {
	// Pressure is the eviction manager's handler (PressureHandler).
	Pressure Handler
	// Sysctls checks the pod's sysctls against the allowlist.
	Sysctls Handler
	// Topology is the container manager's resource allocation: the
	// topology manager with the CPU, memory and device managers
	// (TopologyHandler).
	Topology Handler
	// Predicates is the node and its admitted pods, for the general
	// predicates and critical-pod preemption (NodeInfo.Admit).
	Predicates *NodeInfo
	// AppArmor validates AppArmor profiles (Linux kubelets only).
	AppArmor Handler
	// PodFeatures and DeclaredFeatures check the pod's use of features
	// against the kubelet's.
	PodFeatures, DeclaredFeatures Handler
	// Shutdown is the node shutdown manager's handler (ShutdownHandler).
	Shutdown Handler
}

// Admit runs the chain on p. When the predicates preempt pods to admit a
// critical pod, the Decision lists them even if a later handler refuses p:
// the kubelet evicts them as the predicate handler runs.
func (c *Chain) Admit(p *core.Pod) Decision {
	for _, h := range []Handler{c.Pressure, c.Sysctls, c.Topology} {
		if h != nil {
			if r := h.Admit(p); !r.Admit {
				return Decision{Result: r}
			}
		}
	}
	var d Decision
	if c.Predicates != nil {
		if d = c.Predicates.Admit(p); !d.Admit {
			return d
		}
	}
	for _, h := range []Handler{c.AppArmor, c.PodFeatures, c.DeclaredFeatures, c.Shutdown} {
		if h != nil {
			if r := h.Admit(p); !r.Admit {
				return Decision{Result: r, Preempt: d.Preempt}
			}
		}
	}
	return Decision{Result: Admitted(), Preempt: d.Preempt}
}

// PressureHandler is the eviction manager's admit handler for a node
// reporting the pressure conditions conds (pressure.Admit): critical pods
// always pass, BestEffort pods need a memory-pressure toleration under
// MemoryPressure alone, and any other pressure refuses every pod.
func PressureHandler(conds []conditions.Type, opts Options) Handler {
	return HandlerFunc(func(p *core.Pod) Result {
		pp := *p
		pp.QOSClass = cgroup.PodQOS(*p, opts.qos())
		r := pressure.Admit(conds, &pp)
		return Result{Admit: r.Admit, Reason: r.Reason, Message: r.Message}
	})
}

// ShutdownHandler is the node shutdown manager's admit handler: every pod
// is refused while m shuts the node down.
func ShutdownHandler(m *shutdown.Manager) Handler {
	return HandlerFunc(func(p *core.Pod) Result {
		a := m.Admit(*p)
		return Result{Admit: a.Admit, Reason: a.Reason, Message: a.Message}
	})
}

// TopologyHandler is the container manager's admit handler: the topology
// manager m admits the pod and has its providers (CPU, memory, devices)
// allocate each container (topology.Manager.Admit). A pod m cannot judge
// (a provider's hints failed) is refused with ReasonUnexpectedAdmission
// and the error, which upstream, whose providers cannot fail there, never
// reports.
func TopologyHandler(m *topology.Manager) Handler {
	return HandlerFunc(func(p *core.Pod) Result {
		a, err := m.Admit(*p)
		if err != nil {
			return Result{Reason: topology.ReasonUnexpectedAdmission, Message: err.Error()}
		}
		return Result{Admit: a.Admit, Reason: a.Reason, Message: a.Message, Why: a.Why}
	})
}
