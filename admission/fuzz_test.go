package admission

import (
	"strings"
	"testing"

	"github.com/nodelife/nodelife/core"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

var selectionOps = map[string]selection.Operator{
	core.NodeSelectorOpIn: selection.In, core.NodeSelectorOpNotIn: selection.NotIn, core.NodeSelectorOpExists: selection.Exists,
	core.NodeSelectorOpDoesNotExist: selection.DoesNotExist, core.NodeSelectorOpGt: selection.GreaterThan, core.NodeSelectorOpLt: selection.LessThan,
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
		r := core.NodeSelectorRequirement{Key: key, Operator: op, Values: vals}
		sop, known := selectionOps[op]
		var up *labels.Requirement
		var err error
		if known {
			up, err = labels.NewRequirement(key, sop, vals)
		}
		wantValid := known && err == nil
		if got := ValidRequirement(&r); got != wantValid {
			t.Fatalf("%+v: ValidRequirement = %v, apimachinery valid %v (%v)", r, got, wantValid, err)
		}
		if wantValid {
			if got, want := RequirementMatchesLabels(&r, lm), up.Matches(labels.Set(lm)); got != want {
				t.Fatalf("%+v on %v: %v, apimachinery %v", r, lm, got, want)
			}
		}
	})
}
