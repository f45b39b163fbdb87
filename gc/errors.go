package gc

import (
	"errors"

	"github.com/nodelife/nodelife/internal/errdetail"
)

// Sentinel errors; every error of this package wraps one of them.
var (
	// ErrInvalidPolicy: a policy or config field breaks one of upstream's
	// validation rules (or, where the field's doc says so, one of the
	// checks upstream lacks). Validate joins one such error per problem.
	ErrInvalidPolicy = errors.New("gc: invalid policy")
	// ErrInvalidInput: an input record is unusable: a negative size or
	// capacity, an empty ID, or two records with the same key.
	ErrInvalidInput = errors.New("gc: invalid input")
)

func wrap(sentinel error, detail string) error { return errdetail.New(sentinel, detail) }
