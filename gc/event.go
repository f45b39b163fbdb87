package gc

// Event types, as core/v1 Event.type.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)

// Event is an event the upstream component records on the object it works
// on (the Node for the kubelet's image GC). The caller posts it, or logs
// it.
type Event struct {
	// Type is EventTypeWarning or EventTypeNormal.
	Type string
	// Reason is upstream's event reason, e.g. EventFreeDiskSpaceFailed.
	Reason string
	// Message is upstream's event message.
	Message string
}
