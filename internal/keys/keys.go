// Package keys returns a map's keys in order, for the packages that must
// not depend on Go's map order (DESIGN.md rule 4).
package keys

import (
	"cmp"
	"slices"
)

// Sorted returns m's keys in ascending order (byte order for strings).
func Sorted[K cmp.Ordered, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
