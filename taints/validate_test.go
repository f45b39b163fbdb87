package taints

import (
	"errors"
	"strings"
	"testing"
)

// API validation of node taints (validateNodeTaints) and pod tolerations
// (ValidateTolerations), from reference/eviction-taints-conditions.md §1.10.
func TestTaintValidate(t *testing.T) {
	tests := []struct {
		name string
		t    Taint
		want []error
	}{
		{"valid", Taint{Key: "example.com/k", Value: "v", Effect: TaintEffectNoExecute}, nil},
		{"empty value is valid", Taint{Key: "k", Effect: TaintEffectNoSchedule}, nil},
		{"key is required", Taint{Effect: TaintEffectNoSchedule}, []error{ErrInvalidKey}},
		{"key must be a qualified name", Taint{Key: "a b", Effect: TaintEffectNoSchedule}, []error{ErrInvalidKey}},
		{"value must be a label value", Taint{Key: "k", Value: "a/b", Effect: TaintEffectNoSchedule}, []error{ErrInvalidValue}},
		{"effect is required on a node", Taint{Key: "k"}, []error{ErrMissingEffect}},
		{"effect must be known", Taint{Key: "k", Effect: "NoScheduleNoAdmit"}, []error{ErrInvalidEffect}},
		{"every problem at once", Taint{Key: "-", Value: "-", Effect: "x"}, []error{ErrInvalidKey, ErrInvalidValue, ErrInvalidEffect}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErrs(t, tc.t.Validate(), tc.want)
		})
	}
}

func TestValidateTaintsDuplicates(t *testing.T) {
	ts := []Taint{
		{Key: "a", Value: "1", Effect: TaintEffectNoSchedule},
		{Key: "a", Value: "2", Effect: TaintEffectNoExecute},
		{Key: "a", Value: "3", Effect: TaintEffectNoSchedule},
	}
	err := ValidateTaints(ts)
	checkErrs(t, err, []error{ErrDuplicateTaint})
	if !strings.Contains(err.Error(), "[2]") || !strings.Contains(err.Error(), "[0]") {
		t.Errorf("error %q should name both indices", err)
	}
	if err := ValidateTaints(ts[:2]); err != nil {
		t.Errorf("same key with different effects: %v", err)
	}
	err = ValidateTaints([]Taint{{Key: "ok", Effect: TaintEffectNoSchedule}, {Key: "bad key", Effect: TaintEffectNoSchedule}})
	checkErrs(t, err, []error{ErrInvalidKey})
	if !strings.Contains(err.Error(), "[1].key") {
		t.Errorf("error %q should name the field [1].key", err)
	}
}

func TestTolerationValidate(t *testing.T) {
	tests := []struct {
		name string
		tol  Toleration
		cmp  bool // Matcher.ComparisonOperators
		want []error
	}{
		{"empty key with Exists tolerates everything", Toleration{Operator: TolerationOpExists}, false, nil},
		{"Equal with a label value", Toleration{Key: "k", Operator: TolerationOpEqual, Value: "v"}, false, nil},
		{"empty operator means Equal", Toleration{Key: "k", Value: "v"}, false, nil},
		{"tolerationSeconds with NoExecute", Toleration{Key: "k", Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: i64(60)}, false, nil},
		{"negative tolerationSeconds is allowed (treated as 0)", Toleration{Key: "k", Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: i64(-1)}, false, nil},
		{"empty key requires Exists (Equal)", Toleration{Operator: TolerationOpEqual}, false, []error{ErrInvalidOperator}},
		{"empty key requires Exists (empty operator)", Toleration{Effect: TaintEffectNoSchedule}, false, []error{ErrInvalidOperator}},
		{"Exists requires an empty value", Toleration{Key: "k", Operator: TolerationOpExists, Value: "v"}, false, []error{ErrInvalidValue}},
		{"Equal value must be a label value", Toleration{Key: "k", Value: "a b"}, false, []error{ErrInvalidValue}},
		{"key must be a qualified name", Toleration{Key: "a b", Operator: TolerationOpExists}, false, []error{ErrInvalidKey}},
		{"tolerationSeconds requires NoExecute", Toleration{Key: "k", Operator: TolerationOpExists, Effect: TaintEffectNoSchedule, TolerationSeconds: i64(60)}, false, []error{ErrInvalidTolerationSeconds}},
		{"tolerationSeconds with an empty effect", Toleration{Key: "k", Operator: TolerationOpExists, TolerationSeconds: i64(60)}, false, []error{ErrInvalidTolerationSeconds}},
		{"unknown operator", Toleration{Key: "k", Operator: "In"}, false, []error{ErrInvalidOperator}},
		{"unknown effect", Toleration{Key: "k", Operator: TolerationOpExists, Effect: "Never"}, false, []error{ErrInvalidEffect}},
		{"Lt is not supported with the gate off", Toleration{Key: "k", Operator: TolerationOpLt, Value: "5"}, false, []error{ErrInvalidOperator}},
		{"Gt is not supported with the gate off", Toleration{Key: "k", Operator: TolerationOpGt, Value: "5"}, false, []error{ErrInvalidOperator}},
		{"Lt with the gate on", Toleration{Key: "k", Operator: TolerationOpLt, Value: "5"}, true, nil},
		{"Gt with a negative value", Toleration{Key: "k", Operator: TolerationOpGt, Value: "-5"}, true, nil},
		{"Gt value with a leading zero", Toleration{Key: "k", Operator: TolerationOpGt, Value: "05"}, true, []error{ErrInvalidValue}},
		{"Lt value not a number", Toleration{Key: "k", Operator: TolerationOpLt, Value: "high"}, true, []error{ErrInvalidValue}},
		{"Lt with an empty key still needs Exists", Toleration{Operator: TolerationOpLt, Value: "5"}, true, []error{ErrInvalidOperator}},
		{"every problem at once", Toleration{Key: "a b", Operator: "In", Effect: "x", TolerationSeconds: i64(1)}, false,
			[]error{ErrInvalidKey, ErrInvalidOperator, ErrInvalidEffect, ErrInvalidTolerationSeconds}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Matcher{ComparisonOperators: tc.cmp}.ValidateToleration(tc.tol)
			checkErrs(t, err, tc.want)
			if !tc.cmp {
				if plain := tc.tol.Validate(); (plain == nil) != (err == nil) {
					t.Errorf("Toleration.Validate = %v, zero Matcher = %v", plain, err)
				}
			}
		})
	}
}

// checkErrs asserts that err wraps every sentinel in want and that each
// joined error is a *FieldError naming a field, or that err is nil when want
// is empty.
func checkErrs(t *testing.T, err error, want []error) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %v", want)
	}
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("error %q does not wrap %v", err, w)
		}
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field == "" {
		t.Errorf("error %q carries no *FieldError with a field name", err)
	}
	if n := len(strings.Split(err.Error(), "\n")); n != len(want) {
		t.Errorf("error %q has %d lines, want %d", err, n, len(want))
	}
}
