package taints

import (
	"strconv"
	"testing"
)

func i64(v int64) *int64 { return &v }

// Matching rules of upstream's Toleration.ToleratesTaint
// (staging/src/k8s.io/api/core/v1/toleration.go), worked out by hand from
// reference/eviction-taints-conditions.md §1.10.
func TestToleratesTaint(t *testing.T) {
	const k = "example.com/dedicated"
	tests := []struct {
		name string
		tol  Toleration
		t    Taint
		want bool
	}{
		{"empty effect matches NoExecute", Toleration{Key: k, Operator: TolerationOpExists}, Taint{Key: k, Effect: TaintEffectNoExecute}, true},
		{"empty effect matches NoSchedule", Toleration{Key: k, Operator: TolerationOpExists}, Taint{Key: k, Effect: TaintEffectNoSchedule}, true},
		{"empty effect matches PreferNoSchedule", Toleration{Key: k, Operator: TolerationOpExists}, Taint{Key: k, Effect: TaintEffectPreferNoSchedule}, true},
		{"different effect does not match", Toleration{Key: k, Operator: TolerationOpExists, Effect: TaintEffectNoSchedule}, Taint{Key: k, Effect: TaintEffectNoExecute}, false},
		{"same effect matches", Toleration{Key: k, Operator: TolerationOpExists, Effect: TaintEffectNoExecute}, Taint{Key: k, Effect: TaintEffectNoExecute}, true},
		{"effect comparison is case sensitive", Toleration{Key: k, Operator: TolerationOpExists, Effect: "noexecute"}, Taint{Key: k, Effect: TaintEffectNoExecute}, false},
		{"empty key with Exists matches any key and value", Toleration{Operator: TolerationOpExists}, Taint{Key: "a", Value: "b", Effect: TaintEffectNoExecute}, true},
		{"empty key with Exists and an effect only matches that effect", Toleration{Operator: TolerationOpExists, Effect: TaintEffectNoSchedule}, Taint{Key: "a", Effect: TaintEffectNoExecute}, false},
		{"empty key with Equal still compares values (no validation in matching)", Toleration{Value: "v"}, Taint{Key: "a", Value: "v", Effect: TaintEffectNoSchedule}, true},
		{"empty key with Equal and a different value", Toleration{Value: "v"}, Taint{Key: "a", Value: "w", Effect: TaintEffectNoSchedule}, false},
		{"different key does not match", Toleration{Key: "other", Operator: TolerationOpExists}, Taint{Key: k, Effect: TaintEffectNoSchedule}, false},
		{"empty operator means Equal: equal values", Toleration{Key: k, Value: "gpu"}, Taint{Key: k, Value: "gpu", Effect: TaintEffectNoSchedule}, true},
		{"empty operator means Equal: different values", Toleration{Key: k, Value: "gpu"}, Taint{Key: k, Value: "cpu", Effect: TaintEffectNoSchedule}, false},
		{"Equal with equal values", Toleration{Key: k, Operator: TolerationOpEqual, Value: "gpu"}, Taint{Key: k, Value: "gpu", Effect: TaintEffectNoSchedule}, true},
		{"Equal with empty values on both sides", Toleration{Key: k, Operator: TolerationOpEqual}, Taint{Key: k, Effect: TaintEffectNoSchedule}, true},
		{"Equal does not match a non-empty taint value with an empty toleration value", Toleration{Key: k, Operator: TolerationOpEqual}, Taint{Key: k, Value: "x", Effect: TaintEffectNoSchedule}, false},
		{"Exists ignores the value", Toleration{Key: k, Operator: TolerationOpExists}, Taint{Key: k, Value: "anything", Effect: TaintEffectNoSchedule}, true},
		{"unknown operator matches nothing", Toleration{Key: k, Operator: "In", Value: "gpu"}, Taint{Key: k, Value: "gpu", Effect: TaintEffectNoSchedule}, false},
		{"lower-case operator is unknown", Toleration{Key: k, Operator: "exists"}, Taint{Key: k, Effect: TaintEffectNoSchedule}, false},
		{"Gt with comparison operators off matches nothing", Toleration{Key: k, Operator: TolerationOpGt, Value: "750"}, Taint{Key: k, Value: "800", Effect: TaintEffectNoSchedule}, false},
		{"Lt with comparison operators off matches nothing", Toleration{Key: k, Operator: TolerationOpLt, Value: "950"}, Taint{Key: k, Value: "800", Effect: TaintEffectNoSchedule}, false},
		{"TimeAdded plays no part", Toleration{Key: k, Operator: TolerationOpExists}, Taint{Key: k, Effect: TaintEffectNoExecute}, true},
		{"TolerationSeconds plays no part", Toleration{Key: k, Operator: TolerationOpExists, TolerationSeconds: i64(0)}, Taint{Key: k, Effect: TaintEffectNoExecute}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.tol.ToleratesTaint(&tc.t); got != tc.want {
				t.Errorf("ToleratesTaint(%+v, %+v) = %v, want %v", tc.tol, tc.t, got, tc.want)
			}
			if got := (Matcher{}).ToleratesTaint(&tc.tol, &tc.t); got != tc.want {
				t.Errorf("zero Matcher disagrees: got %v, want %v", got, tc.want)
			}
		})
	}
}

// KEP-5471 Lt/Gt: the taint's value is compared with the toleration's, both
// canonical decimal int64 (content.IsDecimalInteger, then ParseInt), strict.
func TestComparisonOperatorsKEP5471(t *testing.T) {
	const k = "node.kubernetes.io/sla"
	m := Matcher{ComparisonOperators: true}
	tests := []struct {
		name     string
		op       Operator
		tolValue string
		tntValue string
		want     bool
	}{
		{"Gt: taint 800 > toleration 750", TolerationOpGt, "750", "800", true},
		{"Gt: taint 800 not > toleration 950", TolerationOpGt, "950", "800", false},
		{"Gt: equal values do not match", TolerationOpGt, "800", "800", false},
		{"Lt: taint 800 < toleration 950", TolerationOpLt, "950", "800", true},
		{"Lt: taint 800 not < toleration 750", TolerationOpLt, "750", "800", false},
		{"Lt: equal values do not match", TolerationOpLt, "800", "800", false},
		{"negative values compare as numbers", TolerationOpLt, "-3", "-10", true},
		{"zero is canonical", TolerationOpGt, "-1", "0", true},
		{"numeric, not lexical: 9 < 10", TolerationOpLt, "10", "9", true},
		{"leading zero in taint value", TolerationOpGt, "1", "0800", false},
		{"leading zero in toleration value", TolerationOpLt, "0950", "800", false},
		{"plus sign is not canonical", TolerationOpGt, "1", "+5", false},
		{"minus zero is not canonical", TolerationOpLt, "1", "-0", false},
		{"empty taint value", TolerationOpLt, "1", "", false},
		{"empty toleration value", TolerationOpGt, "", "1", false},
		{"lone minus", TolerationOpGt, "-", "1", false},
		{"decimal fraction", TolerationOpGt, "1", "1.5", false},
		{"surrounding space", TolerationOpGt, "1", " 5", false},
		{"hex", TolerationOpGt, "1", "0x10", false},
		{"max int64", TolerationOpGt, "9223372036854775806", "9223372036854775807", true},
		{"max int64 + 1 overflows", TolerationOpGt, "1", "9223372036854775808", false},
		{"min int64", TolerationOpLt, "-9223372036854775807", "-9223372036854775808", true},
		{"min int64 - 1 overflows", TolerationOpLt, "1", "-9223372036854775809", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tol := Toleration{Key: k, Operator: tc.op, Value: tc.tolValue, Effect: TaintEffectNoSchedule}
			tnt := Taint{Key: k, Value: tc.tntValue, Effect: TaintEffectNoSchedule}
			if got := m.ToleratesTaint(&tol, &tnt); got != tc.want {
				t.Errorf("Matcher{ComparisonOperators}.ToleratesTaint(%s %s, taint %s) = %v, want %v", tc.op, tc.tolValue, tc.tntValue, got, tc.want)
			}
			if tol.ToleratesTaint(&tnt) {
				t.Errorf("default matching honoured %s", tc.op)
			}
		})
	}
}

func TestParseCanonicalInt64(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"7", 7, true}, {"-7", -7, true}, {"1234567890", 1234567890, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"99999999999999999999", 0, false},
		{"00", 0, false}, {"01", 0, false}, {"-0", 0, false}, {"-01", 0, false}, {"+1", 0, false},
		{"", 0, false}, {"-", 0, false}, {"1-", 0, false}, {"1a", 0, false}, {"--1", 0, false},
	}
	for _, tc := range tests {
		got, ok := parseCanonicalInt64(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseCanonicalInt64(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// The scheduler's TaintToleration filter: the first admitted taint, in node
// order, that no toleration tolerates.
func TestFindMatchingUntoleratedTaint(t *testing.T) {
	noSched := Taint{Key: "a", Value: "1", Effect: TaintEffectNoSchedule}
	noExec := Taint{Key: "b", Effect: TaintEffectNoExecute}
	prefer := Taint{Key: "c", Effect: TaintEffectPreferNoSchedule}
	onlyHard := func(t Taint) bool { return t.Effect == TaintEffectNoSchedule || t.Effect == TaintEffectNoExecute }
	tests := []struct {
		name   string
		taints []Taint
		tols   []Toleration
		filter func(Taint) bool
		want   Taint
		found  bool
	}{
		{"no taints", nil, []Toleration{{Operator: TolerationOpExists}}, nil, Taint{}, false},
		{"taints and no tolerations: the first taint", []Taint{noSched, noExec}, nil, nil, noSched, true},
		{"nil filter admits every taint", []Taint{prefer}, nil, nil, prefer, true},
		{"filter skips PreferNoSchedule", []Taint{prefer}, nil, onlyHard, Taint{}, false},
		{"filter skips, then finds the next", []Taint{prefer, noExec}, nil, onlyHard, noExec, true},
		{"all tolerated", []Taint{noSched, noExec}, []Toleration{{Key: "a", Value: "1"}, {Key: "b", Operator: TolerationOpExists}}, nil, Taint{}, false},
		{"first tolerated, second not", []Taint{noSched, noExec}, []Toleration{{Key: "a", Operator: TolerationOpExists}}, nil, noExec, true},
		{"tolerate-everything toleration", []Taint{noSched, noExec, prefer}, []Toleration{{Operator: TolerationOpExists}}, nil, Taint{}, false},
		{"value mismatch leaves it untolerated", []Taint{noSched}, []Toleration{{Key: "a", Value: "2"}}, nil, noSched, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, found := FindMatchingUntoleratedTaint(tc.taints, tc.tols, tc.filter)
			if found != tc.found || got != tc.want {
				t.Errorf("got %+v, %v; want %+v, %v", got, found, tc.want, tc.found)
			}
			allTolerated := true
			for _, x := range tc.taints {
				if (tc.filter == nil || tc.filter(x)) && !TolerationsTolerateTaint(tc.tols, &x) {
					allTolerated = false
				}
			}
			if allTolerated == found {
				t.Errorf("TolerationsTolerateTaint disagrees: all tolerated = %v, found = %v", allTolerated, found)
			}
		})
	}
}

func TestTolerationsTolerateTaint(t *testing.T) {
	tnt := Taint{Key: "k", Value: "5", Effect: TaintEffectNoSchedule}
	if TolerationsTolerateTaint(nil, &tnt) {
		t.Error("no tolerations tolerated a taint")
	}
	tols := []Toleration{{Key: "x", Operator: TolerationOpExists}, {Key: "k", Operator: TolerationOpGt, Value: "1"}}
	if TolerationsTolerateTaint(tols, &tnt) {
		t.Error("Gt honoured without comparison operators")
	}
	if !(Matcher{ComparisonOperators: true}).TolerationsTolerateTaint(tols, &tnt) {
		t.Error("Gt 1 did not tolerate taint value 5 with comparison operators on")
	}
	if got, _ := (Matcher{ComparisonOperators: true}).FindMatchingUntoleratedTaint([]Taint{tnt}, tols, nil); got != (Taint{}) {
		t.Errorf("Matcher.FindMatchingUntoleratedTaint found %+v, want none", got)
	}
}

// strconvOracle is a deliberately naive Lt/Gt implementation: a string is
// canonical exactly when formatting its parsed value gives it back.
func strconvOracle(op Operator, tolValue, taintValue string) bool {
	tv, err1 := strconv.ParseInt(tolValue, 10, 64)
	nv, err2 := strconv.ParseInt(taintValue, 10, 64)
	if err1 != nil || err2 != nil || strconv.FormatInt(tv, 10) != tolValue || strconv.FormatInt(nv, 10) != taintValue {
		return false
	}
	if op == TolerationOpLt {
		return nv < tv
	}
	return nv > tv
}

// The pointer signatures take nil without panicking (upstream's would).
func TestToleratesTaintNil(t *testing.T) {
	tol := Toleration{Operator: TolerationOpExists}
	tnt := Taint{Key: "k", Effect: TaintEffectNoSchedule}
	var nilTol *Toleration
	m := Matcher{ComparisonOperators: true}
	if nilTol.ToleratesTaint(&tnt) || tol.ToleratesTaint(nil) || m.ToleratesTaint(nil, &tnt) || m.ToleratesTaint(&tol, nil) {
		t.Error("a nil toleration or taint matched")
	}
	if TolerationsTolerateTaint([]Toleration{tol}, nil) || m.TolerationsTolerateTaint([]Toleration{tol}, nil) {
		t.Error("a nil taint was tolerated")
	}
	if !tol.ToleratesTaint(&tnt) || !TolerationsTolerateTaint([]Toleration{tol}, &tnt) {
		t.Error("Exists with no key must tolerate every taint")
	}
}
