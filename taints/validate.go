package taints

import (
	"errors"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodelife/nodelife/internal/k8sname"
)

// Validate checks t as the API server checks a node's taint: Key must be a
// qualified name, Value a label value, Effect one of the three effects.
// TimeAdded is not checked. All problems are returned at once (errors.Join),
// each a *FieldError.
func (t Taint) Validate() error {
	return errors.Join(t.fieldErrors("")...)
}

func (t Taint) fieldErrors(prefix string) []error {
	var errs []error
	if e := checkKey(prefix, t.Key); e != nil {
		errs = append(errs, e)
	}
	if e := checkLabelValue(prefix, t.Value); e != nil {
		errs = append(errs, e)
	}
	if t.Effect == "" {
		errs = append(errs, &FieldError{Field: prefix + "effect", Err: ErrMissingEffect, Detail: "a node taint needs one of NoSchedule, PreferNoSchedule, NoExecute"})
	} else if e := checkEffect(prefix, t.Effect); e != nil {
		errs = append(errs, e)
	}
	return errs
}

// ValidateTaints checks a node's whole taint list as the API server does:
// every taint valid (Taint.Validate) and no two taints with the same key and
// effect. All problems are returned at once; fields are prefixed with the
// taint's index, e.g. "[2].key".
func ValidateTaints(ts []Taint) error {
	var errs []error
	for i, t := range ts {
		prefix := "[" + strconv.Itoa(i) + "]."
		errs = append(errs, t.fieldErrors(prefix)...)
		for j := 0; j < i; j++ {
			if ts[j].MatchTaint(t) {
				errs = append(errs, &FieldError{
					Field:  prefix[:len(prefix)-1],
					Value:  t.String(),
					Err:    ErrDuplicateTaint,
					Detail: "same key and effect as [" + strconv.Itoa(j) + "]; taints must be unique by key and effect",
				})
				break
			}
		}
	}
	return errors.Join(errs...)
}

// Validate checks tol as the API server checks a pod's toleration with
// default feature gates, so Lt and Gt are rejected; use
// Matcher.ValidateToleration to accept them. The rules:
//
//   - a non-empty Key must be a qualified name;
//   - an empty Key requires Operator Exists;
//   - TolerationSeconds requires Effect NoExecute;
//   - with Operator "" or Equal, Value must be a label value;
//   - with Exists, Value must be empty;
//   - any other Operator is not supported;
//   - a non-empty Effect must be one of the three effects.
//
// All problems are returned at once, each a *FieldError.
func (tol Toleration) Validate() error {
	return Matcher{}.ValidateToleration(tol)
}

// ValidateToleration checks tol as Toleration.Validate, except that when
// m.ComparisonOperators is set, Lt and Gt are accepted with a Value that is a
// canonical decimal int64.
func (m Matcher) ValidateToleration(tol Toleration) error {
	var errs []error
	if tol.Key != "" {
		if e := checkKey("", tol.Key); e != nil {
			errs = append(errs, e)
		}
	} else if tol.Operator != TolerationOpExists {
		errs = append(errs, &FieldError{Field: "operator", Value: string(tol.Operator), Err: ErrInvalidOperator,
			Detail: "operator must be Exists when key is empty (which means match all keys and values)"})
	}
	if tol.TolerationSeconds != nil && tol.Effect != TaintEffectNoExecute {
		errs = append(errs, &FieldError{Field: "tolerationSeconds", Value: strconv.FormatInt(*tol.TolerationSeconds, 10),
			Err: ErrInvalidTolerationSeconds, Detail: "effect must be NoExecute when tolerationSeconds is set, not " + strconv.Quote(string(tol.Effect))})
	}
	switch tol.Operator {
	case "", TolerationOpEqual:
		if e := checkLabelValue("", tol.Value); e != nil {
			errs = append(errs, e)
		}
	case TolerationOpExists:
		if tol.Value != "" {
			errs = append(errs, &FieldError{Field: "value", Value: tol.Value, Err: ErrInvalidValue, Detail: "value must be empty when operator is Exists"})
		}
	case TolerationOpLt, TolerationOpGt:
		if !m.ComparisonOperators {
			errs = append(errs, &FieldError{Field: "operator", Value: string(tol.Operator), Err: ErrInvalidOperator,
				Detail: "Lt and Gt need comparison operators enabled (KEP-5471, gate TaintTolerationComparisonOperators); supported: Equal, Exists"})
		} else if _, ok := parseCanonicalInt64(tol.Value); !ok {
			errs = append(errs, &FieldError{Field: "value", Value: tol.Value, Err: ErrInvalidValue,
				Detail: "must be a decimal int64 in canonical form for operator " + string(tol.Operator)})
		}
	default:
		supported := "Equal, Exists"
		if m.ComparisonOperators {
			supported = "Equal, Exists, Lt, Gt"
		}
		errs = append(errs, &FieldError{Field: "operator", Value: string(tol.Operator), Err: ErrInvalidOperator, Detail: "supported: " + supported})
	}
	if tol.Effect != "" {
		if e := checkEffect("", tol.Effect); e != nil {
			errs = append(errs, e)
		}
	}
	return errors.Join(errs...)
}

func checkKey(prefix, key string) error {
	if k8sname.QualifiedName(key) {
		return nil // the common case, without apimachinery's regular expressions
	}
	if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
		return &FieldError{Field: prefix + "key", Value: key, Err: ErrInvalidKey, Detail: strings.Join(msgs, "; ")}
	}
	return nil
}

func checkLabelValue(prefix, value string) error {
	if k8sname.LabelValue(value) {
		return nil
	}
	if msgs := validation.IsValidLabelValue(value); len(msgs) > 0 {
		return &FieldError{Field: prefix + "value", Value: value, Err: ErrInvalidValue, Detail: strings.Join(msgs, "; ")}
	}
	return nil
}

func checkEffect(prefix string, e Effect) error {
	if e.Valid() {
		return nil
	}
	return &FieldError{Field: prefix + "effect", Value: string(e), Err: ErrInvalidEffect, Detail: "supported: NoSchedule, PreferNoSchedule, NoExecute"}
}
