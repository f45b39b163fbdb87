package cri

import (
	"errors"

	"github.com/nodelife/nodelife/internal/errdetail"
)

// Sentinel errors; every error of this package wraps one of them.
var (
	// ErrInvalidConfig: a back-off or probe configuration field is out of
	// range. Validate joins one such error per problem, each naming the
	// field and its value.
	ErrInvalidConfig = errors.New("cri: invalid config")
	// ErrInvalidInput: an input record is unusable: an empty or duplicate
	// container name in a pod spec, an empty or duplicate container or
	// sandbox ID in a runtime listing.
	ErrInvalidInput = errors.New("cri: invalid input")
	// ErrNoCommonVersion: the runtime does not serve a CRI API version the
	// kubelet speaks. The kubelet exits at start-up and the node never
	// registers.
	ErrNoCommonVersion = errors.New("cri: no common CRI API version")
	// ErrNotInPlan: an executor was asked to remove something its plan
	// does not list (it never does; the error names the item).
	ErrNotInPlan = errors.New("cri: not in plan")
)

func wrap(sentinel error, detail string) error { return errdetail.New(sentinel, detail) }
