package taints

import (
	"errors"
	"strconv"
	"strings"

	"github.com/nodelife/nodelife/internal/errdetail"
)

// Sentinel errors. Every error this package returns wraps exactly one of them,
// so callers can branch with errors.Is.
var (
	// ErrMalformedSpec: a taint spec has more than one ':' or more than one
	// '=' before its effect.
	ErrMalformedSpec = errors.New("taints: malformed taint spec")
	// ErrInvalidKey: a key is not a qualified name (optional DNS subdomain
	// prefix and '/', then a name of at most 63 characters of [A-Za-z0-9-_.]
	// that starts and ends alphanumeric).
	ErrInvalidKey = errors.New("taints: invalid key")
	// ErrInvalidValue: a value is not a label value (at most 63 characters of
	// [A-Za-z0-9-_.], starting and ending alphanumeric, or empty), or an Lt/Gt
	// value is not a canonical decimal int64.
	ErrInvalidValue = errors.New("taints: invalid value")
	// ErrInvalidEffect: an effect is not NoSchedule, PreferNoSchedule or
	// NoExecute.
	ErrInvalidEffect = errors.New("taints: invalid effect")
	// ErrMissingEffect: a taint to add (or on a node) has no effect.
	ErrMissingEffect = errors.New("taints: missing effect")
	// ErrDuplicateTaint: two taints to add, or on one node, share key and
	// effect.
	ErrDuplicateTaint = errors.New("taints: duplicate taint")
	// ErrInvalidOperator: a toleration's operator is unknown, is Lt/Gt while
	// comparison operators are off, or is not Exists with an empty key.
	ErrInvalidOperator = errors.New("taints: invalid operator")
	// ErrInvalidTolerationSeconds: tolerationSeconds is set on a toleration
	// whose effect is not NoExecute.
	ErrInvalidTolerationSeconds = errors.New("taints: invalid tolerationSeconds")
)

// FieldError reports one invalid field of a Taint or Toleration, naming the
// field and the offending value.
type FieldError struct {
	// Field is the field's API name ("key", "value", "effect", "operator",
	// "tolerationSeconds"), prefixed with "[i]." when the value came from a
	// list.
	Field string
	// Value is the offending value as written.
	Value string
	// Err is the sentinel the error wraps.
	Err error
	// Detail says what rule the value breaks.
	Detail string
}

// Error implements error.
func (e *FieldError) Error() string {
	return "taints: " + e.describe()
}

// Unwrap returns the sentinel.
func (e *FieldError) Unwrap() error { return e.Err }

func (e *FieldError) describe() string {
	s := e.Field + " " + strconv.Quote(e.Value) + ": " + bare(e.Err)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// SpecError reports a taint spec (kubectl or --register-with-taints grammar)
// that ParseTaints or Parse rejected.
type SpecError struct {
	// Spec is the rejected spec, verbatim.
	Spec string
	// Err says why; it wraps one of the sentinels (often through a
	// *FieldError).
	Err error
}

// Error implements error.
func (e *SpecError) Error() string {
	return "taints: invalid taint spec " + strconv.Quote(e.Spec) + ": " + bare(e.Err)
}

// Unwrap returns the underlying reason.
func (e *SpecError) Unwrap() error { return e.Err }

// bare returns err's message without this package's prefix, for nesting.
func bare(err error) string {
	if fe, ok := err.(*FieldError); ok {
		return fe.describe()
	}
	return strings.TrimPrefix(err.Error(), "taints: ")
}

func withDetail(sentinel error, detail string) error {
	return errdetail.New(sentinel, detail)
}
