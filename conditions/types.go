package conditions

import "time"

// Type is a node condition type. The values are those of
// k8s.io/api/core/v1.NodeConditionType.
type Type string

// The node condition types the kubelet and the node controllers manage.
const (
	// Ready: the kubelet is healthy and ready to accept pods.
	Ready Type = "Ready"
	// MemoryPressure: the node is low on memory (kubelet eviction manager).
	MemoryPressure Type = "MemoryPressure"
	// DiskPressure: the node is low on disk space or inodes.
	DiskPressure Type = "DiskPressure"
	// PIDPressure: the node is low on process IDs.
	PIDPressure Type = "PIDPressure"
	// NetworkUnavailable: the node's network is not configured; set by the
	// cloud route controller or the network plugin, never by the kubelet or
	// the node lifecycle controller.
	NetworkUnavailable Type = "NetworkUnavailable"
)

// Status is a condition status. The values are those of
// k8s.io/api/core/v1.ConditionStatus.
type Status string

// The condition statuses.
const (
	True    Status = "True"
	False   Status = "False"
	Unknown Status = "Unknown"
)

// Condition is a node condition, field for field as
// k8s.io/api/core/v1.NodeCondition. A zero time means unset.
type Condition struct {
	Type               Type
	Status             Status
	LastHeartbeatTime  time.Time
	LastTransitionTime time.Time
	Reason             string
	Message            string
}

// Find returns the first condition of type t in conds and whether there was
// one, as upstream's GetNodeCondition.
func Find(conds []Condition, t Type) (Condition, bool) {
	if i := index(conds, t); i >= 0 {
		return conds[i], true
	}
	return Condition{}, false
}

func index(conds []Condition, t Type) int {
	for i := range conds {
		if conds[i].Type == t {
			return i
		}
	}
	return -1
}

// Set returns a copy of conds in which the condition of c's type is replaced
// by c, or c appended if there is none. LastHeartbeatTime becomes now.
// LastTransitionTime is kept from the existing condition when the status is
// unchanged, and becomes now when the status changes or the condition is new.
// The Reason and Message of c are used as given. transitioned reports a
// status change of an existing condition or a new condition. conds is not
// modified. Any Type and Status are accepted, including ones this package
// does not know; Status.Valid tells the known statuses apart.
func Set(now time.Time, conds []Condition, c Condition) (out []Condition, transitioned bool) {
	out = make([]Condition, len(conds), len(conds)+1)
	copy(out, conds)
	c.LastHeartbeatTime = now
	i := index(out, c.Type)
	if i < 0 {
		c.LastTransitionTime = now
		return append(out, c), true
	}
	if out[i].Status == c.Status {
		c.LastTransitionTime = out[i].LastTransitionTime
	} else {
		c.LastTransitionTime = now
		transitioned = true
	}
	out[i] = c
	return out, transitioned
}

// Valid reports whether s is True, False or Unknown.
func (s Status) Valid() bool {
	return s == True || s == False || s == Unknown
}
