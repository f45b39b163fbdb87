package errdetail

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
