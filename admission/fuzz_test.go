package admission

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

var selectionOps = map[string]selection.Operator{
	OpIn: selection.In, OpNotIn: selection.NotIn, OpExists: selection.Exists,
	OpDoesNotExist: selection.DoesNotExist, OpGt: selection.GreaterThan, OpLt: selection.LessThan,
}

// FuzzRequirement checks the node-affinity requirement matcher against
// apimachinery's labels.Requirement, which the kubelet's check builds on:
// the same requirements are valid (Gt and Lt integer parsing included), and
// a valid one matches the same labels. values is split on ",", a label
// "k=v" given when label contains "=".
func FuzzRequirement(f *testing.F) {
	for _, s := range [][4]string{
		{"num", "Gt", "5", "num=10"}, {"num", "Lt", "-3", "num=-5"}, {"num", "Gt", "9223372036854775808", "num=1"},
		{"zone", "In", "a,b", "zone=b"}, {"zone", "NotIn", "a", "disk=ssd"}, {"zone", "Exists", "", "zone="},
		{"bad key", "In", "a", "bad key=a"}, {"zone", "DoesNotExist", "x", ""}, {"zone", "Equal", "a", "zone=a"},
		{"example.com/x", "Gt", "+5", "example.com/x=6"}, {"num", "Lt", "007", "num=6"}, {"k", "In", "", "k="},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, key, op, values, label string) {
		var vals []string
		if values != "" {
			vals = strings.Split(values, ",")
		}
		lm := map[string]string{}
		if k, v, ok := strings.Cut(label, "="); ok {
			lm[k] = v
		}
		r := Requirement{Key: key, Operator: op, Values: vals}
		sop, known := selectionOps[op]
		var up *labels.Requirement
		var err error
		if known {
			up, err = labels.NewRequirement(key, sop, vals)
		}
		wantValid := known && err == nil
		if got := r.Valid(); got != wantValid {
			t.Fatalf("%+v: Valid() = %v, apimachinery valid %v (%v)", r, got, wantValid, err)
		}
		if wantValid {
			if got, want := r.MatchesLabels(lm), up.Matches(labels.Set(lm)); got != want {
				t.Fatalf("%+v on %v: %v, apimachinery %v", r, lm, got, want)
			}
		}
	})
}
