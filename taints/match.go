package taints

// Matcher holds the matching options that upstream puts behind feature gates.
// The zero Matcher matches exactly as current upstream Kubernetes with default
// gates; the package-level functions and methods use it.
//
// A Matcher is a small value: copy it freely; it is safe for concurrent use.
type Matcher struct {
	// ComparisonOperators enables the Lt and Gt toleration operators
	// (KEP-5471; alpha gate TaintTolerationComparisonOperators, off by default
	// in Kubernetes v1.35). When false, a toleration with Lt or Gt tolerates
	// nothing and fails validation. When true, both the toleration's and the
	// taint's values must be canonical decimal int64 ("0", "42", "-7"; no
	// leading zeros, no "+", no "-0"); otherwise the toleration does not
	// match. The comparison is strict: equal numbers do not match.
	ComparisonOperators bool
}

// ToleratesTaint reports whether tol tolerates t, as upstream's
// Toleration.ToleratesTaint with default feature gates:
//
//  1. a non-empty Effect must equal the taint's; an empty Effect matches all;
//  2. a non-empty Key must equal the taint's; an empty Key matches all;
//  3. Operator "" or Equal needs equal values, Exists matches any value, and
//     anything else (including Lt and Gt, see Matcher) matches nothing.
//
// It does not check that tol is valid: an empty key with Equal matches every
// taint whose value equals tol.Value, as upstream.
//
// Both are pointers, as in upstream's signature, so that a call copies
// neither struct (a by-value call cost a third more on this hot path);
// neither is modified or retained. A nil toleration tolerates nothing and a
// nil taint is tolerated by nothing (upstream would panic).
func (tol *Toleration) ToleratesTaint(t *Taint) bool {
	return tol != nil && t != nil && tolerates(tol, t, false)
}

// ToleratesTaint reports whether tol tolerates t under m's options. See
// Toleration.ToleratesTaint for the rules, nil included, and Matcher for Lt
// and Gt.
func (m Matcher) ToleratesTaint(tol *Toleration, t *Taint) bool {
	return tol != nil && t != nil && tolerates(tol, t, m.ComparisonOperators)
}

// TolerationsTolerateTaint reports whether any of tols tolerates t, as
// upstream's v1helper.TolerationsTolerateTaint.
//
// The taint is a pointer, as upstream's, so that the call copies nothing; a
// nil taint is tolerated by nothing.
func TolerationsTolerateTaint(tols []Toleration, t *Taint) bool {
	return t != nil && anyTolerates(tols, t, false)
}

// TolerationsTolerateTaint reports whether any of tols tolerates t under m's
// options; a nil taint is tolerated by nothing.
func (m Matcher) TolerationsTolerateTaint(tols []Toleration, t *Taint) bool {
	return t != nil && anyTolerates(tols, t, m.ComparisonOperators)
}

// FindMatchingUntoleratedTaint returns the first taint, in the order of
// taints, that passes filter and that no toleration in tols tolerates. A nil
// filter admits every taint. ok is false when every admitted taint is
// tolerated. It allocates nothing.
//
// The scheduler's TaintToleration plugin calls it with a filter for NoSchedule
// and NoExecute taints; the kubelet's admission calls it with a NoExecute
// filter.
func FindMatchingUntoleratedTaint(taints []Taint, tols []Toleration, filter func(Taint) bool) (t Taint, ok bool) {
	return findUntolerated(taints, tols, filter, false)
}

// FindMatchingUntoleratedTaint is FindMatchingUntoleratedTaint under m's
// options.
func (m Matcher) FindMatchingUntoleratedTaint(taints []Taint, tols []Toleration, filter func(Taint) bool) (Taint, bool) {
	return findUntolerated(taints, tols, filter, m.ComparisonOperators)
}

func findUntolerated(taints []Taint, tols []Toleration, filter func(Taint) bool, cmpOps bool) (Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if filter != nil && !filter(*t) {
			continue
		}
		if !anyTolerates(tols, t, cmpOps) {
			return *t, true
		}
	}
	return Taint{}, false
}

func anyTolerates(tols []Toleration, t *Taint, cmpOps bool) bool {
	for i := range tols {
		// The key and effect checks are repeated here, ahead of the call, so
		// that the common mismatch costs no function call; the key goes
		// first, as a pod's tolerations mostly share the effect (NoExecute)
		// and differ in key, often already in length.
		tol := &tols[i]
		if tol.Key != "" && tol.Key != t.Key || tol.Effect != "" && tol.Effect != t.Effect {
			continue
		}
		if valueMatches(tol, t, cmpOps) {
			return true
		}
	}
	return false
}

// tolerates is the single implementation of the matching rules. It takes
// pointers so that the loops copy nothing.
func tolerates(tol *Toleration, t *Taint, cmpOps bool) bool {
	if tol.Effect != "" && tol.Effect != t.Effect || tol.Key != "" && tol.Key != t.Key {
		return false
	}
	return valueMatches(tol, t, cmpOps)
}

// valueMatches applies tol's operator to the values (rule 3 of
// Toleration.ToleratesTaint). It is small enough to be inlined into
// tolerates and anyTolerates: only Lt and Gt cost a call.
func valueMatches(tol *Toleration, t *Taint, cmpOps bool) bool {
	switch tol.Operator {
	case TolerationOpExists:
		return true
	case "", TolerationOpEqual:
		return tol.Value == t.Value
	}
	return compareValues(tol, t, cmpOps)
}

// compareValues applies an Lt or Gt toleration to the taint's value (rule 3
// of Toleration.ToleratesTaint) when cmpOps; any other operator, or Lt and Gt
// without cmpOps, matches nothing.
func compareValues(tol *Toleration, t *Taint, cmpOps bool) bool {
	if !cmpOps || tol.Operator != TolerationOpLt && tol.Operator != TolerationOpGt {
		return false
	}
	tv, ok := parseCanonicalInt64(tol.Value)
	if !ok {
		return false
	}
	nv, ok := parseCanonicalInt64(t.Value)
	if !ok {
		return false
	}
	if tol.Operator == TolerationOpLt {
		return nv < tv
	}
	return nv > tv
}

// parseCanonicalInt64 parses s when it is an int64 written the way KEP-5471
// requires: "0", or an optional "-" followed by a digit 1-9 and more digits,
// within the int64 range. It allocates nothing, unlike strconv on failure.
func parseCanonicalInt64(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	neg := s[0] == '-'
	digits := s
	if neg {
		digits = s[1:]
	}
	if digits == "" || digits[0] < '0' || digits[0] > '9' {
		return 0, false
	}
	if digits[0] == '0' {
		// Only a lone, unsigned "0" is canonical.
		return 0, !neg && len(digits) == 1
	}
	// Accumulate as a negative number so that math.MinInt64 fits.
	const minInt64 = -1 << 63
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n < (minInt64+d)/10 {
			return 0, false
		}
		n = n*10 - d
	}
	if neg {
		return n, true
	}
	if n == minInt64 {
		return 0, false
	}
	return -n, true
}
