package shutdown

import (
	"errors"

	"github.com/nodelife/nodelife/internal/errdetail"
)

// Sentinel errors; every error of this package wraps one of them.
var (
	// ErrInvalidConfig: a config field breaks one of upstream's validation
	// rules, or, under Config.Strict, one of the checks upstream lacks.
	ErrInvalidConfig = errors.New("shutdown: invalid config")
	// ErrSuspiciousConfig: a config upstream accepts but that is probably a
	// mistake (Config.Warnings).
	ErrSuspiciousConfig = errors.New("shutdown: suspicious config")
	// ErrNodeShuttingDown is the shutdown manager's status error while the
	// node shuts down; its text is upstream's, "node is shutting down",
	// which the kubelet's Ready condition carries as its message.
	ErrNodeShuttingDown = errors.New("node is shutting down")
	// ErrInhibitDelayTooShort: logind's InhibitDelayMaxSec is still below
	// the required delay after the override was written and re-read.
	ErrInhibitDelayTooShort = errors.New("shutdown: logind InhibitDelayMaxSec too short")
)

func wrap(sentinel error, detail string) error { return errdetail.New(sentinel, detail) }
