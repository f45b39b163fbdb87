package admission

import "github.com/nodelife/nodelife/core"

// Decision is the predicate admit handler's verdict: the Result, and the
// pods to preempt first when a critical pod is admitted by evicting others.
type Decision struct {
	Result
	// Preempt lists the pods to evict, in order, before p runs; each gets
	// phase Failed with PreemptReason and PreemptMessage.
	Preempt []*core.Pod
}

// Admit runs the kubelet's predicate admit handler for p against ni (the
// node and the pods already admitted; p itself must not be among them):
//
//  1. the OS checks, which preemption could not help: a kubernetes.io/os
//     label on the pod naming another OS than the kubelet's (the node's
//     own label is not read: the kubelet corrects it), then spec.os.name;
//  2. the Strict supplemental groups policy on a node whose
//     status.features does not support it;
//  3. the general predicates (Filter). When they fail and p is critical
//     (core.Pod.IsCritical), failures other than resources are reported first
//     if there are any; with only resource shortfalls, the pods to evict
//     are chosen (Preempt) and p is admitted with them in Preempt, or, if
//     no set of pods suffices, refused with ReasonUnexpectedAdmissionError
//     and the kubelet's message.
//
// A refusal reports the first failure: its Reason (OutOfcpu, NodeAffinity,
// ...) and Message.
//
// The kubelet retries a failure of node affinity alone after fetching its
// Node again; a NodeInfo holds the node it is given, so the retry is the
// caller's (SetNode, then Admit).
func (ni *NodeInfo) Admit(p *core.Pod) Decision {
	if r := ni.precheck(p); !r.Admit {
		return Decision{Result: r}
	}
	ni.failures = ni.Filter(p, ni.failures)
	if len(ni.failures) == 0 {
		return Decision{Result: Admitted()}
	}
	if !p.IsCritical() {
		return Decision{Result: ni.failures[0].Result()}
	}
	for _, f := range ni.failures {
		if f.Resource == "" {
			return Decision{Result: f.Result()}
		}
	}
	victims, err := Preempt(p, ni.pods, Needs(ni.failures), ni.opts)
	if err != nil {
		return Decision{Result: Result{
			Reason:  ReasonUnexpectedAdmissionError,
			Message: "Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: " + err.Error(),
		}}
	}
	return Decision{Result: Admitted(), Preempt: victims}
}

// precheck runs the checks before the predicates.
func (ni *NodeInfo) precheck(p *core.Pod) Result {
	if os, ok := p.Labels[LabelOS]; ok && os != ni.opts.os() {
		return Result{Reason: ReasonOSSelectorMismatch, Message: MessageOSSelectorMismatch}
	}
	if p.OS != "" && p.OS != ni.opts.os() {
		return Result{Reason: ReasonOSNotSupported, Message: MessageOSNotSupported}
	}
	if p.SupplementalGroupsPolicy == SupplementalGroupsPolicyStrict {
		if f := ni.node.Features.SupplementalGroupsPolicy; f == nil || !*f {
			return Result{Reason: ReasonSupplementalGroupsPolicy, Message: MessageSupplementalGroupsPolicy}
		}
	}
	return Admitted()
}

// MessageSupplementalGroupsPolicy is the message of
// ReasonSupplementalGroupsPolicy.
const MessageSupplementalGroupsPolicy = "SupplementalGroupsPolicy=Strict is not supported in this node"
