package eviction

import (
	"errors"

	"github.com/nodelife/nodelife/internal/errdetail"
)

// Sentinel errors; every error of this package wraps one of them.
var (
	// ErrInvalidConfig: a config field is out of range.
	ErrInvalidConfig = errors.New("eviction: invalid config")
	// ErrInvalidRate: a rate is negative, NaN or infinite.
	ErrInvalidRate = errors.New("eviction: invalid rate")
)

func wrap(sentinel error, detail string) error { return errdetail.New(sentinel, detail) }
