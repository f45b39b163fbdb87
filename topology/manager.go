package topology

import (
	"errors"
	"fmt"

	"github.com/nodelife/nodelife/core"
)

// Scope is --topology-manager-scope: the unit whose resources are aligned
// together.
type Scope string

const (
	// ScopeContainer merges and allocates container by container (the
	// kubelet's default).
	ScopeContainer Scope = "container"
	// ScopePod merges the pod's hints once and allocates every container
	// with that one hint.
	ScopePod Scope = "pod"
)

// The admission results the topology manager gives (v1.37.2). A refusal
// by a provider's allocation carries the error's own Type as Reason when
// it has one (the CPU Manager's SMTAlignmentError), else
// ReasonUnexpectedAdmission with the message "Allocate failed due to
// <error>, which is unexpected".
const (
	ReasonTopologyAffinity    = "TopologyAffinityError"
	MessageTopologyAffinity   = "Resources cannot be allocated with Topology locality"
	ReasonUnexpectedAdmission = "UnexpectedAdmissionError"
)

// Provider is one hint provider of the topology manager (upstream's
// HintProvider: the device, CPU and memory managers, in the order the
// kubelet registers them). cpu.Static.Provider and memory.Static.Provider
// give the library's; a caller adds its own for devices.
type Provider struct {
	// Name names the provider in errors ("cpu", "memory", ...).
	Name string
	// Hints returns the provider's hints for one container of the pod.
	Hints func(pod core.Pod, container string) (ProviderHints, error)
	// PodHints returns its hints for the whole pod (pod scope).
	PodHints func(pod core.Pod) (ProviderHints, error)
	// Allocate allocates the container's resources on hint. Its error
	// refuses the pod; an error with a Type() string method gives the
	// refusal's reason.
	Allocate func(pod core.Pod, container string, hint Hint) error
	// Demands, optional, returns what the container (the whole pod when
	// container is "") asks of the provider's resources and what each
	// NUMA node has of them, for Admission.Why; nil leaves the provider
	// out of the explanation.
	Demands func(pod core.Pod, container string) []Demand
}

// ManagerConfig configures a Manager: the kubelet's
// --topology-manager-policy, --topology-manager-scope and
// --topology-manager-policy-options, the machine's NUMA nodes and the
// hint providers. The zero value is not usable (no policy; Validate
// refuses it): set Policy, PolicyNone for the kubelet's default.
type ManagerConfig struct {
	// Policy is the merge policy; under PolicyNone no hints are asked and
	// every container is allocated without affinity.
	Policy Policy
	// Scope is container (the default when empty) or pod; ignored under
	// PolicyNone, as the kubelet ignores it.
	Scope Scope
	// Options are the policy options.
	Options PolicyOptions
	// NUMA is the machine's nodes (and distances for
	// prefer-closest-numa-nodes).
	NUMA NUMAInfo
	// Providers are asked in order, and allocate in order.
	Providers []Provider
}

// Validate returns every problem of c the kubelet refuses to start with
// (an unknown policy or scope, invalid options or NUMA info, more NUMA
// nodes than max-allowable-numa-nodes) and providers without functions.
func (c ManagerConfig) Validate() error {
	var errs []error
	switch c.Policy {
	case PolicyNone:
	case PolicyBestEffort, PolicyRestricted, PolicySingleNUMANode:
		if err := c.Options.Validate(); err != nil {
			errs = append(errs, err)
		}
		if err := c.NUMA.Validate(c.Options.PreferClosestNUMA); err != nil {
			errs = append(errs, err)
		}
		if n := len(c.NUMA.Nodes); n > c.Options.maxNodes() {
			errs = append(errs, fmt.Errorf("%w: %d NUMA nodes, more than MaxAllowableNUMANodes %d", ErrInvalid, n, c.Options.maxNodes()))
		}
		switch c.Scope {
		case "", ScopeContainer, ScopePod:
		default:
			errs = append(errs, fmt.Errorf("%w: scope %q is not container or pod", ErrInvalid, c.Scope))
		}
	default:
		errs = append(errs, fmt.Errorf("%w: policy %q is not none, best-effort, restricted or single-numa-node", ErrInvalid, c.Policy))
	}
	for i, p := range c.Providers {
		if p.Hints == nil || p.PodHints == nil || p.Allocate == nil {
			errs = append(errs, fmt.Errorf("%w: provider %d (%q) lacks Hints, PodHints or Allocate", ErrInvalid, i, p.Name))
		}
	}
	return errors.Join(errs...)
}

// Manager is the kubelet's topology manager as its admit handler runs it
// (upstream's manager and its scopes): for each pod, the providers' hints
// merged under the policy and, when the merge admits, each container
// allocated by every provider on the merged hint. It keeps the hint each
// container was given (upstream's Store) until RemoveContainer.
//
// Manager is not safe for concurrent use; the providers it calls hold the
// allocations. Make one with NewManager: the zero Manager admits nothing
// (Admit returns an ErrInvalid error).
type Manager struct {
	cfg      ManagerConfig
	affinity map[string]map[string]Hint
}

// NewManager returns a Manager for cfg, or cfg.Validate's error.
func NewManager(cfg ManagerConfig) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Scope == "" {
		cfg.Scope = ScopeContainer
	}
	cfg.Providers = append([]Provider(nil), cfg.Providers...)
	return &Manager{cfg: cfg, affinity: map[string]map[string]Hint{}}, nil
}

// ContainerHint is the hint one container was allocated on.
type ContainerHint struct {
	Container string
	Hint      Hint
}

// Admission is the topology manager's answer for a pod.
type Admission struct {
	// Admit, Reason and Message are the admit handler's result.
	Admit   bool
	Reason  string
	Message string
	// Containers lists the containers given a hint, in the order they
	// were allocated (init containers first). On a refusal it holds the
	// containers allocated before it: as upstream, their allocations are
	// kept, and the caller releases them (the kubelet's managers drop the
	// state of pods that are not active).
	Containers []ContainerHint
	// On a refusal, Refused names the container refused (empty when the
	// pod scope's merge refused the whole pod) and Hint is the merged hint
	// it was refused on: the one that did not satisfy the policy, or the
	// one a provider could not allocate on.
	Refused string
	Hint    Hint
	// Why explains a TopologyAffinityError in terms of the machine (see
	// Explain), from the providers' Demands: "cpu: 40 asked, at most 24
	// free on one NUMA node (NUMA node 1); single-numa-node keeps a
	// container's resources on one NUMA node". Empty when no provider
	// gives demands or on any other answer; Reason and Message stay
	// upstream's.
	Why string
}

// Admit runs the topology manager's admission of pod (v1.37.2):
//   - PolicyNone: every container, init containers first, is allocated by
//     every provider with no affinity (the zero Hint), no hints asked.
//   - ScopeContainer: for each container, every provider's Hints merged
//     (Merge); a refusal is TopologyAffinityError, else the container is
//     allocated by every provider on the merged hint, the first error
//     refusing the pod.
//   - ScopePod: every provider's PodHints merged once; then each
//     container allocated on that hint.
//
// An error is returned only for a provider's Hints or PodHints error or a
// Merge error (invalid hints); an allocation's error is a refusal. The
// pod-level resource managers (PodLevelResourceManagers, alpha) are not
// modelled: pods are admitted as with the gate off.
func (m *Manager) Admit(pod core.Pod) (Admission, error) {
	var a Admission
	if m.affinity == nil {
		return a, fmt.Errorf("%w: the Manager was not made by NewManager", ErrInvalid)
	}
	var podHint Hint
	if m.cfg.Policy != PolicyNone && m.cfg.Scope == ScopePod {
		hint, admit, err := m.merge(func(p Provider) (ProviderHints, error) { return p.PodHints(pod) })
		if err != nil {
			return a, err
		}
		if !admit {
			a.Reason, a.Message, a.Hint = ReasonTopologyAffinity, MessageTopologyAffinity, hint
			a.Why = m.explain(pod, "")
			return a, nil
		}
		podHint = hint
	}
	for _, cs := range [...][]core.Container{pod.InitContainers, pod.Containers} {
		for _, c := range cs {
			if refused, err := m.admitContainer(pod, c.Name, podHint, &a); refused || err != nil {
				return a, err
			}
		}
	}
	a.Admit = true
	return a, nil
}

// admitContainer merges the container's hints (container scope; pod scope
// gives podHint) and has the providers allocate it, recording it in a. It
// reports whether the pod was refused.
func (m *Manager) admitContainer(pod core.Pod, name string, podHint Hint, a *Admission) (bool, error) {
	if m.cfg.Policy == PolicyNone {
		return !m.allocate(pod, name, Hint{}, a), nil
	}
	hint := podHint
	if m.cfg.Scope == ScopeContainer {
		h, admit, err := m.merge(func(p Provider) (ProviderHints, error) { return p.Hints(pod, name) })
		if err != nil {
			return false, err
		}
		if !admit {
			a.Reason, a.Message, a.Refused, a.Hint = ReasonTopologyAffinity, MessageTopologyAffinity, name, h
			a.Why = m.explain(pod, name)
			return true, nil
		}
		hint = h
	}
	m.setAffinity(pod.UID, name, hint)
	return !m.allocate(pod, name, hint, a), nil
}

// explain gathers the providers' demands for the container ("" for the
// pod) and explains the policy's refusal.
func (m *Manager) explain(pod core.Pod, container string) string {
	var demands []Demand
	for _, p := range m.cfg.Providers {
		if p.Demands != nil {
			demands = append(demands, p.Demands(pod, container)...)
		}
	}
	return Explain(m.cfg.Policy, m.cfg.NUMA.Nodes, demands)
}

// merge collects every provider's hints with get and merges them.
func (m *Manager) merge(get func(Provider) (ProviderHints, error)) (Hint, bool, error) {
	lists := make([]ProviderHints, 0, len(m.cfg.Providers))
	for _, p := range m.cfg.Providers {
		h, err := get(p)
		if err != nil {
			return Hint{}, false, fmt.Errorf("topology: provider %q: %w", p.Name, err)
		}
		lists = append(lists, h)
	}
	return Merge(m.cfg.Policy, m.cfg.NUMA, m.cfg.Options, lists)
}

// allocate has every provider allocate the container on hint, recording
// it in a; false when one refused (a then holds the refusal).
func (m *Manager) allocate(pod core.Pod, container string, hint Hint, a *Admission) bool {
	for _, p := range m.cfg.Providers {
		if err := p.Allocate(pod, container, hint); err != nil {
			a.Reason, a.Message = AdmissionError(err)
			a.Refused, a.Hint = container, hint
			return false
		}
	}
	a.Containers = append(a.Containers, ContainerHint{Container: container, Hint: hint})
	return true
}

// AdmissionError gives the reason and message the kubelet reports for an
// allocation error (upstream's GetPodAdmitResult): the error's Type and
// text when it has a Type() string method, else
// ReasonUnexpectedAdmission and "Allocate failed due to <err>, which is
// unexpected".
func AdmissionError(err error) (reason, message string) {
	var typed interface {
		error
		Type() string
	}
	if errors.As(err, &typed) {
		return typed.Type(), typed.Error()
	}
	return ReasonUnexpectedAdmission, fmt.Sprintf("Allocate failed due to %v, which is unexpected", err)
}

func (m *Manager) setAffinity(podUID, container string, h Hint) {
	if m.affinity[podUID] == nil {
		m.affinity[podUID] = map[string]Hint{}
	}
	m.affinity[podUID][container] = h
}

// Affinity returns the hint the container was last admitted with
// (upstream's GetAffinity), and whether there is one. Under PolicyNone
// none is kept.
func (m *Manager) Affinity(podUID, container string) (Hint, bool) {
	h, ok := m.affinity[podUID][container]
	return h, ok
}

// RemoveContainer forgets the container's hint (the providers' own
// RemoveContainer releases its resources).
func (m *Manager) RemoveContainer(podUID, container string) {
	delete(m.affinity[podUID], container)
	if len(m.affinity[podUID]) == 0 {
		delete(m.affinity, podUID)
	}
}
