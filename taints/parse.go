package taints

import (
	"strconv"
	"strings"
)

// ParseTaints parses taint specs in the grammar of `kubectl taint`, as
// upstream's pkg/util/taints.ParseTaints:
//
//	key=value:Effect   add (value may be empty: "key=:Effect")
//	key:Effect         add with an empty value
//	key:Effect-        remove the taint with this key and effect
//	key=value:Effect-  the same; the value is ignored
//	key-               remove every taint with this key, whatever its effect
//
// The key must be a qualified name, the value a label value and the effect
// one of NoSchedule, PreferNoSchedule, NoExecute. An addition must have an
// effect, and two additions may not share key and effect. Removals keep only
// Key and Effect (an empty Effect means every effect).
//
// On the first bad spec it returns nil, nil and a *SpecError that quotes the
// spec and wraps one of the sentinels (ErrMalformedSpec, ErrInvalidKey,
// ErrInvalidValue, ErrInvalidEffect, ErrMissingEffect, ErrDuplicateTaint).
func ParseTaints(specs []string) (add, remove []Taint, err error) {
	var addSpecs []string // addSpecs[k] is the spec that produced add[k]
	for _, spec := range specs {
		if body, ok := strings.CutSuffix(spec, "-"); ok {
			t, err := parseOne(body)
			if err != nil {
				return nil, nil, &SpecError{Spec: spec, Err: err}
			}
			remove = append(remove, Taint{Key: t.Key, Effect: t.Effect})
			continue
		}
		t, err := parseOne(spec)
		if err != nil {
			return nil, nil, &SpecError{Spec: spec, Err: err}
		}
		if t.Effect == "" {
			return nil, nil, &SpecError{Spec: spec, Err: withDetail(ErrMissingEffect, "a taint to add needs \":NoSchedule\", \":PreferNoSchedule\" or \":NoExecute\"")}
		}
		for j := range add {
			if add[j].MatchTaint(t) {
				return nil, nil, &SpecError{Spec: spec, Err: withDetail(ErrDuplicateTaint,
					"key "+strconv.Quote(t.Key)+" with effect "+string(t.Effect)+" is already added by "+strconv.Quote(addSpecs[j]))}
			}
		}
		add = append(add, t)
		addSpecs = append(addSpecs, spec)
	}
	return add, remove, nil
}

// Parse parses the comma-separated taint list of the kubelet's
// --register-with-taints flag ("k1=v1:NoSchedule,k2:NoExecute"), as
// upstream's taintsVar.Set: an empty string yields no taints, and each item
// is parsed with the rules of ParseTaints, additions only (a trailing '-'
// fails as an invalid key or effect).
//
// Like upstream, Parse accepts an item without an effect ("key") and does not
// reject duplicates; the API server rejects both when the node registers.
// Call ValidateTaints on the result to catch them early.
func Parse(spec string) ([]Taint, error) {
	if spec == "" {
		return nil, nil
	}
	var out []Taint
	for _, item := range strings.Split(spec, ",") {
		t, err := parseOne(item)
		if err != nil {
			return nil, &SpecError{Spec: item, Err: err}
		}
		out = append(out, t)
	}
	return out, nil
}

// parseOne parses "key", "key:Effect", "key=value:Effect" or "key=:Effect",
// checking in upstream's order: effect, number of '=', value, key.
func parseOne(spec string) (Taint, error) {
	var t Taint
	left, effect, hasEffect := strings.Cut(spec, ":")
	if hasEffect {
		if strings.Contains(effect, ":") {
			return Taint{}, withDetail(ErrMalformedSpec, "more than one ':'")
		}
		t.Effect = Effect(effect)
		if e := checkEffect("", t.Effect); e != nil {
			return Taint{}, e
		}
		key, value, hasValue := strings.Cut(left, "=")
		if hasValue {
			if strings.Contains(value, "=") {
				return Taint{}, withDetail(ErrMalformedSpec, "more than one '=' before the effect")
			}
			if e := checkLabelValue("", value); e != nil {
				return Taint{}, e
			}
			t.Value = value
		}
		left = key
	}
	if e := checkKey("", left); e != nil {
		return Taint{}, e
	}
	t.Key = left
	return t, nil
}
