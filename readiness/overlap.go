package readiness

import (
	"math"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// NodeSelectorsOverlap reports whether some node could match both
// selectors, as the controller's admission webhook decides before it
// refuses a second rule with the same taint key and effect. A selector that
// does not parse is taken to overlap everything (the webhook errs on the
// side of refusing); see SelectorsOverlap for the rest.
func NodeSelectorsOverlap(a, b metav1.LabelSelector) bool {
	sa, errA := metav1.LabelSelectorAsSelector(&a)
	sb, errB := metav1.LabelSelectorAsSelector(&b)
	if errA != nil || errB != nil {
		return true
	}
	return SelectorsOverlap(sa, sb)
}

// SelectorsOverlap reports whether some label set could match both
// selectors, by the webhook's rules, key by key over both selectors'
// requirements: In and = intersect the allowed values, NotIn and !=
// collect forbidden ones, Exists, In, =, Gt and Lt need the label,
// DoesNotExist with any of those makes the key disjoint (a missing label
// satisfies NotIn, != and DoesNotExist); Gt and Lt bound an integer that
// must then exist among the non-negative values not forbidden (label
// values cannot start with "-"). A requirement it cannot read (an unknown
// operator, a bound that is not an int64) is taken to overlap. A selector
// that matches nothing (labels.Nothing) overlaps nothing; keys named by
// one selector only never separate them. Nil selectors match nothing.
func SelectorsOverlap(a, b labels.Selector) bool {
	if a == nil || b == nil {
		return false
	}
	ra, okA := a.Requirements()
	rb, okB := b.Requirements()
	if !okA || !okB {
		return false
	}
	byKey := map[string][]labels.Requirement{}
	var keys []string
	for _, r := range append(append([]labels.Requirement(nil), ra...), rb...) {
		if _, seen := byKey[r.Key()]; !seen {
			keys = append(keys, r.Key())
		}
		byKey[r.Key()] = append(byKey[r.Key()], r)
	}
	for _, k := range keys {
		if !keyOverlaps(byKey[k]) {
			return false
		}
	}
	return true
}

// keyOverlaps reports whether one label value (or its absence) satisfies
// every requirement of reqs, all on the same key.
func keyOverlaps(reqs []labels.Requirement) bool {
	var (
		mustExist, mustNotExist bool
		allowed                 map[string]bool // nil: any value
		forbidden               = map[string]bool{}
		hasLower, hasUpper      bool
		lower, upper            int64
	)
	for _, r := range reqs {
		switch r.Operator() {
		case selection.In, selection.Equals, selection.DoubleEquals:
			mustExist = true
			values := map[string]bool{}
			for _, v := range r.ValuesUnsorted() {
				if allowed == nil || allowed[v] {
					values[v] = true
				}
			}
			allowed = values
		case selection.NotIn, selection.NotEquals:
			for _, v := range r.ValuesUnsorted() {
				forbidden[v] = true
			}
		case selection.Exists:
			mustExist = true
		case selection.DoesNotExist:
			mustNotExist = true
		case selection.GreaterThan, selection.LessThan:
			mustExist = true
			values := r.ValuesUnsorted()
			if len(values) != 1 {
				return true
			}
			v, err := strconv.ParseInt(values[0], 10, 64)
			if err != nil {
				return true
			}
			if r.Operator() == selection.GreaterThan {
				if !hasLower || v > lower {
					hasLower, lower = true, v
				}
			} else if !hasUpper || v < upper {
				hasUpper, upper = true, v
			}
		default:
			return true
		}
	}
	if mustNotExist {
		return !mustExist
	}
	inRange := func(v int64) bool { return (!hasLower || v > lower) && (!hasUpper || v < upper) }
	if allowed != nil {
		for v := range allowed {
			if forbidden[v] {
				continue
			}
			if hasLower || hasUpper {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || !inRange(n) {
					continue
				}
			}
			return true
		}
		return false
	}
	if !hasLower && !hasUpper {
		return true
	}
	// the smallest non-negative integer in range that is not forbidden;
	// the search ends after at most len(forbidden)+1 candidates
	if (hasLower && lower == math.MaxInt64) || (hasUpper && upper <= 0) {
		return false
	}
	c := int64(0)
	if hasLower && lower >= 0 {
		c = lower + 1
	}
	for {
		if hasUpper && c >= upper {
			return false
		}
		if !forbidden[strconv.FormatInt(c, 10)] {
			return true
		}
		if c == math.MaxInt64 {
			return false
		}
		c++
	}
}
