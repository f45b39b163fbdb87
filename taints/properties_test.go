package taints_test

import (
	"slices"
	"testing"
	"time"

	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/taints"
	"pgregory.net/rapid"
)

var anyOptions = nodelifetest.Options{}

func TestPropertyExistsWithEmptyKeyToleratesEverything(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		taint := nodelifetest.Taints(anyOptions).Draw(t, "taint")
		for _, m := range []taints.Matcher{{}, {ComparisonOperators: true}} {
			if !m.ToleratesTaint(&taints.Toleration{Operator: taints.TolerationOpExists}, &taint) {
				t.Fatalf("{Operator: Exists} did not tolerate %+v (matcher %+v)", taint, m)
			}
		}
	})
}

func TestPropertyMatchingIndependentOfOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ts := rapid.SliceOfN(nodelifetest.Taints(anyOptions), 0, 8).Draw(t, "taints")
		tols := rapid.SliceOfN(nodelifetest.Tolerations(anyOptions), 0, 8).Draw(t, "tols")
		m := taints.Matcher{ComparisonOperators: rapid.Bool().Draw(t, "cmpOps")}
		perm := rapid.Permutation(ts).Draw(t, "perm")
		tolPerm := rapid.Permutation(tols).Draw(t, "tolPerm")

		got1, found1 := m.FindMatchingUntoleratedTaint(ts, tols, nil)
		got2, found2 := m.FindMatchingUntoleratedTaint(perm, tolPerm, nil)
		if found1 != found2 {
			t.Fatalf("found = %v before and %v after permuting", found1, found2)
		}
		if found1 && (m.TolerationsTolerateTaint(tols, &got1) || m.TolerationsTolerateTaint(tols, &got2)) {
			t.Fatalf("a returned taint is tolerated: %+v / %+v", got1, got2)
		}
		for _, x := range ts {
			if m.TolerationsTolerateTaint(tols, &x) != m.TolerationsTolerateTaint(tolPerm, &x) {
				t.Fatalf("TolerationsTolerateTaint depends on toleration order for %+v", x)
			}
		}
	})
}

// The optimized Lt/Gt path agrees with a naive strconv oracle.
func TestPropertyComparisonOperatorsMatchOracle(t *testing.T) {
	num := nodelifetest.IntegerStrings()
	rapid.Check(t, func(t *rapid.T) {
		op := rapid.SampledFrom([]taints.Operator{taints.TolerationOpLt, taints.TolerationOpGt}).Draw(t, "op")
		tv, nv := num.Draw(t, "tol"), num.Draw(t, "taint")
		got := taints.Matcher{ComparisonOperators: true}.ToleratesTaint(&taints.Toleration{Key: "k", Operator: op, Value: tv}, &taints.Taint{Key: "k", Value: nv})
		if want := taints.StrconvOracle(op, tv, nv); got != want {
			t.Fatalf("%s %q vs taint %q: got %v, oracle %v", op, tv, nv, got, want)
		}
	})
}

// Diff(a, b) applied to a yields b, as sets of (key, effect).
func TestPropertyDiffApplyYieldsNew(t *testing.T) {
	// Four keys and three values: the lists collide often.
	small := nodelifetest.Taints(nodelifetest.Options{Keys: []string{"a", "b", "c", "d"}, Values: []string{"", "1", "2"}})
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(small, 0, 10).Draw(t, "a")
		b := rapid.SliceOfN(small, 0, 10).Draw(t, "b")
		aCopy := slices.Clone(a)
		add, remove := taints.Diff(a, b)
		got := taints.Apply(a, add, remove)
		if !slices.Equal(taints.KeyEffects(got), taints.KeyEffects(b)) {
			t.Fatalf("Apply(a, Diff(a, b)) = %v, want (key, effect) set of %v", got, b)
		}
		if !slices.Equal(a, aCopy) {
			t.Fatalf("Diff or Apply modified a")
		}
		for _, x := range add {
			if taints.Exists(a, x) {
				t.Fatalf("Diff adds %v which a already has", x)
			}
		}
		for _, x := range remove {
			if taints.Exists(b, x) {
				t.Fatalf("Diff removes %v which b keeps", x)
			}
		}
	})
}

// parse(print(t)) == t for every valid taint, in both grammars.
func TestPropertyParsePrintRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tnt := nodelifetest.Taints(nodelifetest.Options{Valid: true}).Draw(t, "taint")
		tnt.TimeAdded = time.Time{} // not part of either grammar
		if err := tnt.Validate(); err != nil {
			t.Fatalf("generator produced an invalid taint: %v", err)
		}
		add, remove, err := taints.ParseTaints([]string{tnt.String()})
		if err != nil || len(add) != 1 || add[0] != tnt || remove != nil {
			t.Fatalf("ParseTaints(%q) = %v, %v, %v; want [%+v]", tnt.String(), add, remove, err, tnt)
		}
		got, err := taints.Parse(tnt.String())
		if err != nil || len(got) != 1 || got[0] != tnt {
			t.Fatalf("Parse(%q) = %v, %v; want [%+v]", tnt.String(), got, err, tnt)
		}
		_, remove, err = taints.ParseTaints([]string{tnt.String() + "-"})
		if err != nil || len(remove) != 1 || remove[0] != (taints.Taint{Key: tnt.Key, Effect: tnt.Effect}) {
			t.Fatalf("removal of %q = %v, %v", tnt.String(), remove, err)
		}
	})
}

// FromConditions depends on the set of conditions, not their order.
func TestPropertyFromConditionsOrderIndependent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		conds := rapid.SliceOfN(nodelifetest.Conditions(anyOptions), 0, 8).Draw(t, "conds")
		unsched := rapid.Bool().Draw(t, "unschedulable")
		perm := rapid.Permutation(conds).Draw(t, "perm")
		a, b := taints.KeyEffects(taints.FromConditions(conds, unsched)), taints.KeyEffects(taints.FromConditions(perm, unsched))
		if !slices.Equal(a, b) {
			t.Fatalf("%v vs %v", a, b)
		}
		for _, x := range taints.FromConditions(conds, unsched) {
			if !taints.IsConditionTaint(x) {
				t.Fatalf("%v is not a condition taint", x)
			}
		}
	})
}
