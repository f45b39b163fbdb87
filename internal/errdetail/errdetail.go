package errdetail

import (
	"errors"
	"fmt"
)

// New returns an error whose message is sentinel's message, ": ", detail,
// and which unwraps to sentinel.
func New(sentinel error, detail string) error {
	return &detailed{sentinel: sentinel, detail: detail}
}

type detailed struct {
	sentinel error
	detail   string
}

// Error returns the sentinel's message and the detail.
func (e *detailed) Error() string { return e.sentinel.Error() + ": " + e.detail }

// Unwrap returns the sentinel.
func (e *detailed) Unwrap() error { return e.sentinel }

// Rewrap returns err with every detailed error in it (err itself, or each
// error errors.Join joined) moved under sentinel, keeping its detail: a
// package that validates through another's rules reports the problems as
// its own. Other errors are wrapped as "sentinel: err". nil stays nil.
func Rewrap(sentinel, err error) error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, Rewrap(sentinel, e))
		}
		return errors.Join(out...)
	}
	if d, ok := err.(*detailed); ok {
		return New(sentinel, d.detail)
	}
	return fmt.Errorf("%w: %w", sentinel, err)
}
