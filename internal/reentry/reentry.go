// Package reentry guards a state machine against calls made from inside a
// callback it is running (a Rand function that calls back into the value
// drawing from it): while the callback runs the value is busy, and its
// methods answer without changing anything.
package reentry

// Guard marks a value busy while one of its callbacks runs. The zero value
// is not busy.
type Guard struct{ busy bool }

// Busy reports whether a callback of the value is running.
func (g *Guard) Busy() bool { return g != nil && g.busy }

// Rand returns f wrapped so that g is busy while f runs; nil for nil.
func (g *Guard) Rand(f func() float64) func() float64 {
	if f == nil {
		return nil
	}
	return func() float64 {
		g.busy = true
		defer func() { g.busy = false }()
		return f()
	}
}
