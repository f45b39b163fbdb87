package lease

import (
	"errors"

	"github.com/nodelife/nodelife/internal/errdetail"
)

// Sentinel errors; every error of this package wraps one of them.
var (
	// ErrInvalidConfig: a config field is out of range.
	ErrInvalidConfig = errors.New("lease: invalid config")
	// ErrInvalidName: a lease name is not a valid DNS subdomain.
	ErrInvalidName = errors.New("lease: invalid name")
)

func wrap(sentinel error, detail string) error { return errdetail.New(sentinel, detail) }
