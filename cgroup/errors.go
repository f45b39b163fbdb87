package cgroup

import (
	"errors"

	"github.com/nodelife/nodelife/internal/errdetail"
)

// Sentinel errors; every error of this package wraps one of them.
var (
	// ErrOutOfRange: a number given to a checked conversion is outside the
	// range the conversion is defined on (negative milliCPU, shares outside
	// 2..262144, a weight outside 1..10000, a CFS period outside 1ms..1s).
	ErrOutOfRange = errors.New("cgroup: value out of range")
	// ErrInvalidName: a cgroup name component, cgroupfs path or systemd slice
	// cannot be represented (a component holding "/" or "_", an empty slice
	// component, a name without ".slice").
	ErrInvalidName = errors.New("cgroup: invalid cgroup name")
	// ErrInvalidVersion: a kernel or runtime version string cannot be parsed.
	ErrInvalidVersion = errors.New("cgroup: invalid version")
	// ErrMalformed: the content of a cgroup or proc file is malformed.
	ErrMalformed = errors.New("cgroup: malformed file content")
	// ErrInvalidInput: an argument of a planner is unusable (a node memory
	// capacity that is not positive, a request above capacity, a page size
	// that is not positive, an unknown enum value).
	ErrInvalidInput = errors.New("cgroup: invalid input")
	// ErrRequirement: a host does not meet (or is not known to meet) a
	// cgroup v2 requirement; wraps every error of Report.Err.
	ErrRequirement = errors.New("cgroup: cgroup v2 requirement not met")
)

func wrap(sentinel error, detail string) error { return errdetail.New(sentinel, detail) }
