package pressure

import (
	"errors"

	"github.com/nodelife/nodelife/internal/errdetail"
)

// Sentinel errors; every error of this package wraps one of them, and its
// message names the setting and the value at fault.
var (
	// ErrUnsupportedSignal: a signal name the kubelet does not know.
	ErrUnsupportedSignal = errors.New("pressure: unsupported eviction signal")
	// ErrInvalidThreshold: a threshold value that is not a positive
	// quantity or a percentage between 0% and 100%.
	ErrInvalidThreshold = errors.New("pressure: invalid eviction threshold")
	// ErrInvalidGracePeriod: a soft grace period that is not a duration >= 0.
	ErrInvalidGracePeriod = errors.New("pressure: invalid eviction grace period")
	// ErrMissingGracePeriod: a soft threshold without a grace period.
	ErrMissingGracePeriod = errors.New("pressure: missing eviction grace period")
	// ErrInvalidMinReclaim: a minimum reclaim that is negative, a
	// percentage <= 0%, or not a quantity.
	ErrInvalidMinReclaim = errors.New("pressure: invalid eviction minimum reclaim")
	// ErrMalformedFlag: a flag value that is not a comma-separated list of
	// key<value or key=value pairs.
	ErrMalformedFlag = errors.New("pressure: malformed flag value")
	// ErrInvalidConfig: a Config field out of range.
	ErrInvalidConfig = errors.New("pressure: invalid config")
	// ErrSplitWithoutSeparateDiskGC: the runtime reports a split
	// filesystem while KubeletSeparateDiskGC is off (upstream refuses to
	// run its eviction cycle then).
	ErrSplitWithoutSeparateDiskGC = errors.New("pressure: KubeletSeparateDiskGC is turned off but we still have a split filesystem")
)

func wrap(sentinel error, detail string) error { return errdetail.New(sentinel, detail) }
