package admission

import (
	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/release"
)

// BindAllHostIP is the host IP a port binds when its hostIP is empty; a
// port on it conflicts with the same protocol and port on every address.
const BindAllHostIP = "0.0.0.0"

// Result is an admit handler's verdict, as the kubelet's PodAdmitResult.
type Result struct {
	// Admit is true when the pod may run.
	Admit bool
	// Reason is the machine-readable reason of a refusal, written to the
	// pod's status.reason (OutOfcpu, NodeAffinity, ...).
	Reason string
	// Message is the sentence written to status.message.
	Message string
	// Why explains a refusal for people where the handler can say more
	// than upstream's Message (the topology manager's Admission.Why: the
	// resource, the amount asked, the most free where the policy allows);
	// empty otherwise. It is not written to the pod's status.
	Why string
}

// Admitted returns the Result that lets a pod run.
func Admitted() Result { return Result{Admit: true} }

// Options are the kubelet's build and feature settings admission depends on.
//
// The zero value is a Linux kubelet of v1.37 with its default feature
// gates; OptionsFor gives an earlier release's.
type Options struct {
	// OS is the kubelet's operating system (runtime.GOOS); empty means
	// "linux". A pod whose spec.os.name or kubernetes.io/os label differs
	// is refused.
	OS string
	// QOSOptions are the QoS class and request rules, the switches cgroup
	// and topology/cpu read too (cgroup.QOSOptionsFor): the
	// PodLevelResources gate (spec.resources ignored when off), the class
	// rule of releases before 1.37, and how the requests of a pod with a
	// core.Pod.Resize status are counted.
	cgroup.QOSOptions
	// TaintComparisonOperators turns the TaintTolerationComparisonOperators
	// gate on (alpha, off in 1.36): tolerations with Lt and Gt.
	TaintComparisonOperators bool
}

func (o Options) os() string {
	if o.OS == "" {
		return "linux"
	}
	return o.OS
}

func (o Options) qos() cgroup.QOSOptions { return o.QOSOptions }

// OptionsFor returns the Linux kubelet's admission switches in Kubernetes
// release v (taken as release.Oldest or release.Current when outside
// them): the QoS rules of cgroup.QOSOptionsFor, the rest as in v1.37.
func OptionsFor(v release.Version) Options {
	return Options{QOSOptions: cgroup.QOSOptionsFor(v)}
}
