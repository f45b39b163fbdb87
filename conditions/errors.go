package conditions

import (
	"errors"
	"strconv"
	"time"

	"github.com/nodelife/nodelife/internal/errdetail"
)

// Sentinel errors; every error of this package wraps one of them.
var (
	// ErrUnknownType: a condition type this operation does not handle.
	ErrUnknownType = errors.New("conditions: unknown condition type")
	// ErrInvalidConfig: a config field is out of range.
	ErrInvalidConfig = errors.New("conditions: invalid config")
	// ErrInvalidNodeName: a node name is not a DNS subdomain.
	ErrInvalidNodeName = errors.New("conditions: invalid node name")
	// ErrInvalidNodeIP: a node IP is malformed or the list breaks the
	// one-address-per-family rule.
	ErrInvalidNodeIP = errors.New("conditions: invalid node IP")
	// ErrInvalidNodeLabel: a node label is malformed or is in a Kubernetes
	// namespace the kubelet may not set.
	ErrInvalidNodeLabel = errors.New("conditions: invalid node label")
	// ErrNoNodeAddress: a node has no InternalIP or ExternalIP address.
	ErrNoNodeAddress = errors.New("conditions: no node address")
)

func wrap(sentinel error, detail string) error { return errdetail.New(sentinel, detail) }

// requirePositive reports a config duration that is not > 0, naming the
// field and the value; nil otherwise.
func requirePositive(field string, d time.Duration) error {
	if d > 0 {
		return nil
	}
	return wrap(ErrInvalidConfig, field+" "+d.String()+" must be > 0")
}

func unknownTypeError(t Type) error {
	return wrap(ErrUnknownType, strconv.Quote(string(t))+" (want MemoryPressure, DiskPressure or PIDPressure)")
}
