package cloud

import (
	"context"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// LifecycleAction is what the cloud node lifecycle controller does to a node.
type LifecycleAction int

const (
	// LifecycleNone: nothing (the node is as it should be, or the cloud
	// could not say).
	LifecycleNone LifecycleAction = iota
	// LifecycleRemoveShutdownTaint: the node is Ready again; remove the
	// node.cloudprovider.kubernetes.io/shutdown taint.
	LifecycleRemoveShutdownTaint
	// LifecycleAddShutdownTaint: the instance is shut down; add the
	// shutdown taint (NoSchedule).
	LifecycleAddShutdownTaint
	// LifecycleDeleteNode: the instance is gone from the cloud; delete the
	// Node object.
	LifecycleDeleteNode
)

var lifecycleActionNames = [...]string{"None", "RemoveShutdownTaint", "AddShutdownTaint", "DeleteNode"}

// String returns the action's name.
func (a LifecycleAction) String() string {
	if a >= 0 && int(a) < len(lifecycleActionNames) {
		return lifecycleActionNames[a]
	}
	return "LifecycleAction(?)"
}

// Event reasons the cloud node lifecycle controller records.
const (
	// EventDeletingNode is recorded (Normal) before deleting a node whose
	// instance is gone.
	EventDeletingNode = "DeletingNode"
	// EventDeletingNodeFailed is recorded (Warning) when that delete fails.
	EventDeletingNodeFailed = "DeletingNodeFailed"
)

// ShutdownTaint is the taint the cloud node lifecycle controller puts on a
// node whose instance is shut down.
func ShutdownTaint() taints.Taint {
	return taints.Taint{Key: taints.TaintNodeShutdown, Effect: taints.TaintEffectNoSchedule}
}

// LifecycleDecision is the decision for one node.
type LifecycleDecision struct {
	// Node is the node's name.
	Node string
	// Action is what to do.
	Action LifecycleAction
	// Reason is machine-readable: "Ready", "ShutdownTaintAbsent",
	// EventDeletingNode, "InstanceShutdown", "AlreadyTainted", "Running",
	// "ExistsCheckFailed" or "ShutdownCheckFailed".
	Reason string
	// Message is the sentence to log (for DeleteNode, the event's message).
	Message string
	// Err is the provider's error for the *CheckFailed reasons.
	Err error
}

// Probe is the cloud's answer about a node's instance, as the lifecycle
// controller asks it: whether it exists, and, only when it does, whether it
// is shut down. An error leaves the node alone.
type Probe struct {
	// Exists and ExistsErr are InstanceExists' answer.
	Exists    bool
	ExistsErr error
	// Shutdown and ShutdownErr are InstanceShutdown's answer (read only
	// when Exists).
	Shutdown    bool
	ShutdownErr error
}

// DecideLifecycle is the cloud node lifecycle controller's decision for n
// (k8s.io/cloud-provider controllers/nodelifecycle MonitorNodes): a Ready
// node loses the shutdown taint if it has it, and the cloud is not asked; for
// a node that is not Ready (False or Unknown), an instance gone from the
// cloud deletes the Node, a shut-down instance gets the shutdown taint, and
// a provider error changes nothing and is reported.
func DecideLifecycle(n core.Node, probe Probe) LifecycleDecision {
	d := LifecycleDecision{Node: n.Name}
	shutdown := ShutdownTaint()
	has := taints.Exists(n.Taints, shutdown)
	if readyStatus(&n) == conditions.True {
		if has {
			d.Action, d.Reason, d.Message = LifecycleRemoveShutdownTaint, "Ready", "node "+n.Name+" is Ready; removing the shutdown taint"
		} else {
			d.Reason, d.Message = "ShutdownTaintAbsent", "node "+n.Name+" is Ready and has no shutdown taint"
		}
		return d
	}
	switch {
	case probe.ExistsErr != nil:
		d.Reason, d.Err = "ExistsCheckFailed", probe.ExistsErr
		d.Message = "error checking if node " + n.Name + " exists: " + probe.ExistsErr.Error()
	case !probe.Exists:
		d.Action, d.Reason = LifecycleDeleteNode, EventDeletingNode
		d.Message = "Deleting node " + n.Name + " because it does not exist in the cloud provider"
	case probe.ShutdownErr != nil:
		d.Reason, d.Err = "ShutdownCheckFailed", probe.ShutdownErr
		d.Message = "error checking if node " + n.Name + " is shutdown: " + probe.ShutdownErr.Error()
	case !probe.Shutdown:
		d.Reason, d.Message = "Running", "node "+n.Name+" is not Ready but its instance runs"
	case has:
		d.Reason, d.Message = "AlreadyTainted", "node "+n.Name+" is shut down and already has the shutdown taint"
	default:
		d.Action, d.Reason = LifecycleAddShutdownTaint, "InstanceShutdown"
		d.Message = "node " + n.Name + " is shut down in the cloud provider; adding the shutdown taint"
	}
	return d
}

// MonitorNodes asks the provider about every node that is not Ready, in the
// order given, and returns the decisions, one per node, as one pass of the
// controller (every node-monitor-period, 5s by default). A nil provider
// fails every question with ErrNoProvider.
func MonitorNodes(ctx context.Context, p Instances, nodes []core.Node) []LifecycleDecision {
	out := make([]LifecycleDecision, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		var probe Probe
		if readyStatus(n) != conditions.True {
			if p == nil {
				out[i] = DecideLifecycle(*n, Probe{ExistsErr: ErrNoProvider})
				continue
			}
			probe.Exists, probe.ExistsErr = p.InstanceExists(ctx, n)
			if probe.ExistsErr == nil && probe.Exists {
				probe.Shutdown, probe.ShutdownErr = p.InstanceShutdown(ctx, n)
			}
		}
		out[i] = DecideLifecycle(*n, probe)
	}
	return out
}
