package pressure

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nodelife/nodelife/core"
)

// What the external property tests (which draw from nodelifetest) need of
// the package's internals and of its internal tests' helpers.

// PriorityOf is p's priority, nil counting as 0.
func PriorityOf(p *core.Pod) int32 { return priority(p) }

// IsMemory reports whether s is a memory signal.
func IsMemory(s Signal) bool { return s.isMemory() }

// ValuesEqual compares two threshold values exactly.
func ValuesEqual(a, b ThresholdValue) bool { return a.equal(b) }

// TieBreak is the ranking's last comparator.
var TieBreak = tieBreak

// SortedStrings and FindSame are the threshold helpers the parse tests
// share.
var (
	SortedStrings = sortedStrings
	FindSame      = findSame
)

func sortedStrings(ths []Threshold) string {
	s := make([]string, len(ths))
	for i, t := range ths {
		s[i] = t.String()
	}
	slices.Sort(s)
	return strings.Join(s, "; ")
}

func findSame(ths []Threshold, t Threshold) Threshold {
	for _, o := range ths {
		if o.String() == t.String() {
			return o
		}
	}
	return Threshold{}
}

// CheckKeyOrder checks that the ranking's packed-key comparator is a
// strict weak order (total here, UIDs being unique) consistent with got:
// irreflexive, antisymmetric, and ordering got as it is.
func CheckKeyOrder(pods []core.Pod, got []Ranked, s Signal) error {
	order := keyOrder(pods)
	keys := make([]sortKey, len(got))
	for i, r := range got {
		keys[i] = packKey(&got[i], s == SignalPIDAvailable, int32(r.Index))
	}
	for i := range keys {
		if order(keys[i], keys[i]) != 0 {
			return fmt.Errorf("not irreflexive at %d", i)
		}
		for j := range keys {
			c1, c2 := order(keys[i], keys[j]), order(keys[j], keys[i])
			if (c1 < 0) != (c2 > 0) || (i < j && c1 >= 0) {
				return fmt.Errorf("order broken between %d and %d: %d %d", i, j, c1, c2)
			}
		}
	}
	return nil
}
