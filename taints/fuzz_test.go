package taints

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseTaints feeds ParseTaints newline-separated specs: it must not
// panic; on success every addition validates and round-trips through String,
// every removal has a valid key; on failure it returns a *SpecError.
func FuzzParseTaints(f *testing.F) {
	for _, s := range []string{
		"foo=bar:NoSchedule", "foo:NoExecute\nfoo-", "a=b=c:NoSchedule", "x:y:z", "-", "foo--",
		"example.com/k=v:PreferNoSchedule\nexample.com/k=w:PreferNoSchedule", "k=:NoSchedule-", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		specs := strings.Split(in, "\n")
		add, remove, err := ParseTaints(specs)
		if err != nil {
			var se *SpecError
			if !errors.As(err, &se) || add != nil || remove != nil {
				t.Fatalf("error %v (%T) with add=%v remove=%v", err, err, add, remove)
			}
			return
		}
		if err := ValidateTaints(add); err != nil {
			t.Fatalf("accepted additions do not validate: %v", err)
		}
		for _, a := range add {
			again, _, err := ParseTaints([]string{a.String()})
			if err != nil || len(again) != 1 || again[0] != a {
				t.Fatalf("round trip of %+v via %q = %v, %v", a, a.String(), again, err)
			}
		}
		for _, r := range remove {
			if r.Value != "" || checkKey("", r.Key) != nil || (r.Effect != "" && !r.Effect.Valid()) {
				t.Fatalf("bad removal %+v", r)
			}
		}
	})
}

// FuzzParse feeds the --register-with-taints grammar: no panic; every
// accepted taint has a valid key and value, a valid or empty effect, and
// round-trips through String.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a=b:NoSchedule,c:NoExecute", "a", "a,,b", "a:NoSchedule,", "k=v:", "=:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Parse(in)
		if err != nil {
			var se *SpecError
			if !errors.As(err, &se) || got != nil {
				t.Fatalf("error %v (%T) with result %v", err, err, got)
			}
			return
		}
		for _, x := range got {
			if checkKey("", x.Key) != nil || checkLabelValue("", x.Value) != nil || (x.Effect != "" && !x.Effect.Valid()) {
				t.Fatalf("accepted an invalid taint %+v from %q", x, in)
			}
			again, err := Parse(x.String())
			if err != nil || len(again) != 1 || again[0] != x {
				t.Fatalf("round trip of %+v via %q = %v, %v", x, x.String(), again, err)
			}
		}
	})
}

// FuzzToleratesTaint checks matching on arbitrary strings: no panic, the
// Lt/Gt path agrees with the strconv oracle, and Exists with an empty key
// always matches.
func FuzzToleratesTaint(f *testing.F) {
	f.Add("k", "Gt", "5", "", "k", "6", "NoSchedule")
	f.Add("", "Exists", "", "", "x", "y", "NoExecute")
	f.Add("k", "Lt", "-0", "NoSchedule", "k", "0", "NoSchedule")
	f.Fuzz(func(t *testing.T, key, op, value, effect, tKey, tValue, tEffect string) {
		tol := Toleration{Key: key, Operator: Operator(op), Value: value, Effect: Effect(effect)}
		tnt := Taint{Key: tKey, Value: tValue, Effect: Effect(tEffect)}
		m := Matcher{ComparisonOperators: true}
		got := m.ToleratesTaint(&tol, &tnt)
		if (tol.Operator == TolerationOpLt || tol.Operator == TolerationOpGt) &&
			(key == "" || key == tKey) && (effect == "" || effect == tEffect) {
			if want := strconvOracle(tol.Operator, value, tValue); got != want {
				t.Fatalf("%+v vs %+v: got %v, oracle %v", tol, tnt, got, want)
			}
		}
		if !(&Toleration{Operator: TolerationOpExists}).ToleratesTaint(&tnt) {
			t.Fatalf("Exists with empty key did not tolerate %+v", tnt)
		}
		_ = m.ValidateToleration(tol)
		_ = tnt.Validate()
	})
}
