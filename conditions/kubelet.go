package conditions

import (
	"errors"
	"strings"
	"time"
)

// Reasons and messages the kubelet writes (pkg/kubelet/nodestatus/setters.go).
const (
	ReasonKubeletReady    = "KubeletReady"
	ReasonKubeletNotReady = "KubeletNotReady"
	// MessageKubeletReady is the Ready message when nothing is wrong.
	MessageKubeletReady = "kubelet is posting ready status"

	ReasonKubeletHasInsufficientMemory = "KubeletHasInsufficientMemory"
	ReasonKubeletHasSufficientMemory   = "KubeletHasSufficientMemory"
	ReasonKubeletHasDiskPressure       = "KubeletHasDiskPressure"
	ReasonKubeletHasNoDiskPressure     = "KubeletHasNoDiskPressure"
	ReasonKubeletHasInsufficientPID    = "KubeletHasInsufficientPID"
	ReasonKubeletHasSufficientPID      = "KubeletHasSufficientPID"
)

// Event reasons the kubelet records for its node (pkg/kubelet/events).
const (
	EventNodeReady                 = "NodeReady"
	EventNodeNotReady              = "NodeNotReady"
	EventNodeHasInsufficientMemory = "NodeHasInsufficientMemory"
	EventNodeHasSufficientMemory   = "NodeHasSufficientMemory"
	EventNodeHasDiskPressure       = "NodeHasDiskPressure"
	EventNodeHasNoDiskPressure     = "NodeHasNoDiskPressure"
	EventNodeHasInsufficientPID    = "NodeHasInsufficientPID"
	EventNodeHasSufficientPID      = "NodeHasSufficientPID"
)

// Event is a Kubernetes event a setter asks the caller to record on the Node.
// All node status events are of type Normal.
type Event struct {
	// Reason is the event reason, e.g. "NodeHasInsufficientMemory".
	Reason string
}

// Message returns the event message the kubelet writes:
// "Node <name> status is now: <reason>".
func (e Event) Message(nodeName string) string {
	return "Node " + nodeName + " status is now: " + e.Reason
}

// ReadyInput is what the kubelet's Ready setter looks at.
type ReadyInput struct {
	// RuntimeErrors, NetworkErrors and StorageErrors are the kubelet's
	// runtime-state errors (e.g. "container runtime is down",
	// "container runtime network not ready: ..."); ShutdownErrors are the
	// shutdown manager's ("node is shutting down"). Nil entries are ignored;
	// an error with Unwrap() []error (errors.Join) counts as its parts, as
	// upstream flattens its aggregate errors.
	RuntimeErrors, NetworkErrors, StorageErrors, ShutdownErrors []error
	// Capacity lists the resource names the node reports capacity for
	// (the keys of node.status.capacity). cpu, memory and pods are
	// required, and ephemeral-storage too when LocalStorageCapacityIsolation.
	Capacity []string
	// LocalStorageCapacityIsolation is the kubelet's
	// localStorageCapacityIsolation setting (default true upstream).
	LocalStorageCapacityIsolation bool
	// SoftRequirements is the container manager's unmet soft requirements, if
	// any; its text is appended to the message as ". WARNING: <text>".
	SoftRequirements error
}

// ReadyCondition computes the Ready condition the kubelet posts, as
// upstream's nodestatus.ReadyCondition:
//
//   - no errors: True, KubeletReady, "kubelet is posting ready status";
//   - otherwise False, KubeletNotReady, and the errors in the order runtime,
//     network, storage, shutdown, then "missing node capacity for resources:
//     cpu, memory" for missing required capacities; one distinct message is
//     used as it is, several are written "[a, b]";
//   - unmet soft requirements append ". WARNING: <text>" in either case.
func ReadyCondition(in ReadyInput) Condition {
	var errs []error
	for _, group := range [][]error{in.RuntimeErrors, in.NetworkErrors, in.StorageErrors, in.ShutdownErrors} {
		errs = append(errs, group...)
	}
	required := []string{"cpu", "memory", "pods"}
	if in.LocalStorageCapacityIsolation {
		required = append(required, "ephemeral-storage")
	}
	var missing []string
	for _, r := range required {
		if !contains(in.Capacity, r) {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		errs = append(errs, errors.New("missing node capacity for resources: "+strings.Join(missing, ", ")))
	}
	c := Condition{Type: Ready, Status: True, Reason: ReasonKubeletReady, Message: MessageKubeletReady}
	if msg, ok := aggregateMessage(errs); ok {
		c.Status, c.Reason, c.Message = False, ReasonKubeletNotReady, msg
	}
	if in.SoftRequirements != nil {
		c.Message += ". WARNING: " + in.SoftRequirements.Error()
	}
	return c
}

// SetReady sets the Ready condition computed by ReadyCondition in conds at
// now, as the kubelet's setter does: the heartbeat is refreshed, the
// transition time kept unless the status changes, a new condition is
// appended (Ready is created last among the kubelet's conditions). It
// returns the event to record: NodeReady or NodeNotReady when an existing
// Ready condition changes status, none when it is created.
func SetReady(now time.Time, conds []Condition, in ReadyInput) ([]Condition, *Event) {
	_, existed := Find(conds, Ready)
	c := ReadyCondition(in)
	out, transitioned := Set(now, conds, c)
	if !existed || !transitioned {
		return out, nil
	}
	if c.Status == True {
		return out, &Event{Reason: EventNodeReady}
	}
	return out, &Event{Reason: EventNodeNotReady}
}

// pressure describes one of the kubelet's pressure conditions.
type pressure struct {
	reasonTrue, messageTrue, eventTrue    string
	reasonFalse, messageFalse, eventFalse string
}

var pressures = map[Type]pressure{
	MemoryPressure: {
		ReasonKubeletHasInsufficientMemory, "kubelet has insufficient memory available", EventNodeHasInsufficientMemory,
		ReasonKubeletHasSufficientMemory, "kubelet has sufficient memory available", EventNodeHasSufficientMemory,
	},
	DiskPressure: {
		ReasonKubeletHasDiskPressure, "kubelet has disk pressure", EventNodeHasDiskPressure,
		ReasonKubeletHasNoDiskPressure, "kubelet has no disk pressure", EventNodeHasNoDiskPressure,
	},
	PIDPressure: {
		ReasonKubeletHasInsufficientPID, "kubelet has insufficient PID available", EventNodeHasInsufficientPID,
		ReasonKubeletHasSufficientPID, "kubelet has sufficient PID available", EventNodeHasSufficientPID,
	},
}

// SetPressure sets MemoryPressure, DiskPressure or PIDPressure in conds at
// now from underPressure, as the kubelet's pressure setters do: a missing
// condition starts as Unknown; the heartbeat is always refreshed; only when
// the status flips (Unknown counts, so creation flips too) do the status,
// reason, message and transition time change and an event is returned. A
// condition that keeps its status keeps its reason and message even if
// another writer set them. Any other type returns conds unchanged (copied)
// and ErrUnknownType.
func SetPressure(now time.Time, conds []Condition, t Type, underPressure bool) ([]Condition, *Event, error) {
	p, ok := pressures[t]
	if !ok {
		return append([]Condition(nil), conds...), nil, unknownTypeError(t)
	}
	out := make([]Condition, len(conds), len(conds)+1)
	copy(out, conds)
	i := index(out, t)
	if i < 0 {
		out = append(out, Condition{Type: t, Status: Unknown})
		i = len(out) - 1
	}
	c := &out[i]
	c.LastHeartbeatTime = now
	want, reason, message, event := False, p.reasonFalse, p.messageFalse, p.eventFalse
	if underPressure {
		want, reason, message, event = True, p.reasonTrue, p.messageTrue, p.eventTrue
	}
	if c.Status == want {
		return out, nil, nil
	}
	c.Status, c.Reason, c.Message, c.LastTransitionTime = want, reason, message, now
	return out, &Event{Reason: event}, nil
}

// KubeletInput is everything the kubelet's condition setters look at in one
// status sync.
type KubeletInput struct {
	MemoryPressure, DiskPressure, PIDPressure bool
	Ready                                     ReadyInput
}

// SetKubeletConditions runs the kubelet's condition setters in upstream
// order (MemoryPressure, DiskPressure, PIDPressure, then Ready, so that a new
// node lists Ready last; kubernetes#16961) and returns the new conditions
// and the events to record, in order. Conditions of other types (e.g.
// NetworkUnavailable) are kept as they are.
func SetKubeletConditions(now time.Time, conds []Condition, in KubeletInput) ([]Condition, []Event) {
	var events []Event
	out := conds
	for _, s := range []struct {
		t Type
		v bool
	}{{MemoryPressure, in.MemoryPressure}, {DiskPressure, in.DiskPressure}, {PIDPressure, in.PIDPressure}} {
		var ev *Event
		out, ev, _ = SetPressure(now, out, s.t, s.v)
		if ev != nil {
			events = append(events, *ev)
		}
	}
	out, ev := SetReady(now, out, in.Ready)
	if ev != nil {
		events = append(events, *ev)
	}
	return out, events
}

// aggregateMessage renders errs as apimachinery's aggregate error does:
// nil errors dropped, nested multi-errors flattened, duplicate messages
// dropped; one distinct message as it is, several as "[a, b]". ok is false
// when there is no error at all.
func aggregateMessage(errs []error) (msg string, ok bool) {
	var msgs []string
	var visit func(err error)
	visit = func(err error) {
		if err == nil {
			return
		}
		if multi, isMulti := err.(interface{ Unwrap() []error }); isMulti {
			for _, e := range multi.Unwrap() {
				visit(e)
			}
			return
		}
		if m := err.Error(); !contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	n := 0
	for _, e := range errs {
		if e != nil {
			n++
		}
		visit(e)
	}
	switch {
	case n == 0:
		return "", false
	case len(msgs) <= 1:
		return strings.Join(msgs, ""), true
	}
	return "[" + strings.Join(msgs, ", ") + "]", true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
