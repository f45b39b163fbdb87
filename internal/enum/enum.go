// Package enum holds the String helper of the nodelife packages' small
// integer enums.
package enum

import "strconv"

// Name returns names[v], or "typ(v)" for a value without a name, so that
// an out-of-range enum still prints as something a reader can trace.
func Name[T ~int](v T, typ string, names ...string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return typ + "(" + strconv.Itoa(int(v)) + ")"
}
