package taints

import (
	"slices"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

var effects = []Effect{TaintEffectNoSchedule, TaintEffectPreferNoSchedule, TaintEffectNoExecute}

// anyString draws printable strings, often empty or colliding, including the
// grammar's own separators.
func anyString() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom([]string{"", "a", "b", "k", "1", "-1", "0", "07", "x=y", "a:b", " "}),
		rapid.StringMatching(`[a-c0-9:=/ .\-_]{0,8}`),
	)
}

func anyTaint() *rapid.Generator[Taint] {
	return rapid.Custom(func(t *rapid.T) Taint {
		return Taint{
			Key:    anyString().Draw(t, "key"),
			Value:  anyString().Draw(t, "value"),
			Effect: rapid.SampledFrom(append([]Effect{"", "Bogus"}, effects...)).Draw(t, "effect"),
		}
	})
}

func anyToleration() *rapid.Generator[Toleration] {
	return rapid.Custom(func(t *rapid.T) Toleration {
		return Toleration{
			Key:      anyString().Draw(t, "key"),
			Operator: rapid.SampledFrom([]Operator{"", TolerationOpEqual, TolerationOpExists, TolerationOpLt, TolerationOpGt, "In"}).Draw(t, "op"),
			Value:    anyString().Draw(t, "value"),
			Effect:   rapid.SampledFrom(append([]Effect{""}, effects...)).Draw(t, "effect"),
		}
	})
}

// validTaint draws taints that pass Taint.Validate: a qualified-name key with
// an optional DNS prefix, a label value, a known effect.
func validTaint() *rapid.Generator[Taint] {
	return rapid.Custom(func(t *rapid.T) Taint {
		name := rapid.StringMatching(`[A-Za-z0-9]([A-Za-z0-9_.\-]{0,20}[A-Za-z0-9])?`).Draw(t, "name")
		prefix := rapid.StringMatching(`([a-z0-9]([a-z0-9\-]{0,10}[a-z0-9])?(\.[a-z0-9]([a-z0-9\-]{0,10}[a-z0-9])?){0,2}/)?`).Draw(t, "prefix")
		value := rapid.StringMatching(`([A-Za-z0-9]([A-Za-z0-9_.\-]{0,20}[A-Za-z0-9])?)?`).Draw(t, "value")
		return Taint{Key: prefix + name, Value: value, Effect: rapid.SampledFrom(effects).Draw(t, "effect")}
	})
}

func TestPropertyExistsWithEmptyKeyToleratesEverything(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		taint := anyTaint().Draw(t, "taint")
		for _, m := range []Matcher{{}, {ComparisonOperators: true}} {
			if !m.ToleratesTaint(&Toleration{Operator: TolerationOpExists}, &taint) {
				t.Fatalf("{Operator: Exists} did not tolerate %+v (matcher %+v)", taint, m)
			}
		}
	})
}

func TestPropertyMatchingIndependentOfOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		taints := rapid.SliceOfN(anyTaint(), 0, 8).Draw(t, "taints")
		tols := rapid.SliceOfN(anyToleration(), 0, 8).Draw(t, "tols")
		m := Matcher{ComparisonOperators: rapid.Bool().Draw(t, "cmpOps")}
		perm := rapid.Permutation(taints).Draw(t, "perm")
		tolPerm := rapid.Permutation(tols).Draw(t, "tolPerm")

		got1, found1 := m.FindMatchingUntoleratedTaint(taints, tols, nil)
		got2, found2 := m.FindMatchingUntoleratedTaint(perm, tolPerm, nil)
		if found1 != found2 {
			t.Fatalf("found = %v before and %v after permuting", found1, found2)
		}
		if found1 && (m.TolerationsTolerateTaint(tols, &got1) || m.TolerationsTolerateTaint(tols, &got2)) {
			t.Fatalf("a returned taint is tolerated: %+v / %+v", got1, got2)
		}
		for _, x := range taints {
			if m.TolerationsTolerateTaint(tols, &x) != m.TolerationsTolerateTaint(tolPerm, &x) {
				t.Fatalf("TolerationsTolerateTaint depends on toleration order for %+v", x)
			}
		}
	})
}

// The optimized Lt/Gt path agrees with a naive strconv oracle.
func TestPropertyComparisonOperatorsMatchOracle(t *testing.T) {
	// Canonical int64s, and near-misses: signs, leading zeros, overflow.
	num := rapid.OneOf(
		rapid.Map(rapid.Int64(), func(n int64) string { return strconv.FormatInt(n, 10) }),
		rapid.StringMatching(`[+\-]?0*[0-9]{0,20}`),
	)
	rapid.Check(t, func(t *rapid.T) {
		op := rapid.SampledFrom([]Operator{TolerationOpLt, TolerationOpGt}).Draw(t, "op")
		tv, nv := num.Draw(t, "tol"), num.Draw(t, "taint")
		got := Matcher{ComparisonOperators: true}.ToleratesTaint(&Toleration{Key: "k", Operator: op, Value: tv}, &Taint{Key: "k", Value: nv})
		if want := strconvOracle(op, tv, nv); got != want {
			t.Fatalf("%s %q vs taint %q: got %v, oracle %v", op, tv, nv, got, want)
		}
	})
}

// Diff(a, b) applied to a yields b, as sets of (key, effect).
func TestPropertyDiffApplyYieldsNew(t *testing.T) {
	small := rapid.Custom(func(t *rapid.T) Taint {
		return Taint{
			Key:    rapid.SampledFrom([]string{"a", "b", "c", "d"}).Draw(t, "key"),
			Value:  rapid.SampledFrom([]string{"", "1", "2"}).Draw(t, "value"),
			Effect: rapid.SampledFrom(effects).Draw(t, "effect"),
		}
	})
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(small, 0, 10).Draw(t, "a")
		b := rapid.SliceOfN(small, 0, 10).Draw(t, "b")
		aCopy := slices.Clone(a)
		add, remove := Diff(a, b)
		got := Apply(a, add, remove)
		if !slices.Equal(keyEffects(got), keyEffects(b)) {
			t.Fatalf("Apply(a, Diff(a, b)) = %v, want (key, effect) set of %v", got, b)
		}
		if !slices.Equal(a, aCopy) {
			t.Fatalf("Diff or Apply modified a")
		}
		for _, x := range add {
			if Exists(a, x) {
				t.Fatalf("Diff adds %v which a already has", x)
			}
		}
		for _, x := range remove {
			if Exists(b, x) {
				t.Fatalf("Diff removes %v which b keeps", x)
			}
		}
	})
}

func keyEffects(ts []Taint) []string {
	var out []string
	for _, t := range ts {
		s := t.Key + ":" + string(t.Effect)
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// parse(print(t)) == t for every valid taint, in both grammars.
func TestPropertyParsePrintRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tnt := validTaint().Draw(t, "taint")
		if err := tnt.Validate(); err != nil {
			t.Fatalf("generator produced an invalid taint: %v", err)
		}
		add, remove, err := ParseTaints([]string{tnt.String()})
		if err != nil || len(add) != 1 || add[0] != tnt || remove != nil {
			t.Fatalf("ParseTaints(%q) = %v, %v, %v; want [%+v]", tnt.String(), add, remove, err, tnt)
		}
		got, err := Parse(tnt.String())
		if err != nil || len(got) != 1 || got[0] != tnt {
			t.Fatalf("Parse(%q) = %v, %v; want [%+v]", tnt.String(), got, err, tnt)
		}
		_, remove, err = ParseTaints([]string{tnt.String() + "-"})
		if err != nil || len(remove) != 1 || remove[0] != (Taint{Key: tnt.Key, Effect: tnt.Effect}) {
			t.Fatalf("removal of %q = %v, %v", tnt.String(), remove, err)
		}
	})
}
