package taints

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The accept/reject set of `kubectl taint` (pkg/util/taints.ParseTaints),
// worked out by hand from reference/eviction-taints-conditions.md §1.11.
func TestParseTaintsAccepts(t *testing.T) {
	name63 := strings.Repeat("a", 63)
	tests := []struct {
		name       string
		specs      []string
		add, rmove []Taint
	}{
		{"no specs", nil, nil, nil},
		{"key=value:Effect adds", []string{"foo=bar:NoSchedule"}, []Taint{{Key: "foo", Value: "bar", Effect: TaintEffectNoSchedule}}, nil},
		{"key:Effect adds with an empty value", []string{"foo:NoExecute"}, []Taint{{Key: "foo", Effect: TaintEffectNoExecute}}, nil},
		{"key=:Effect adds with an empty value", []string{"foo=:PreferNoSchedule"}, []Taint{{Key: "foo", Effect: TaintEffectPreferNoSchedule}}, nil},
		{"prefixed key", []string{"example.com/foo=bar:NoSchedule"}, []Taint{{Key: "example.com/foo", Value: "bar", Effect: TaintEffectNoSchedule}}, nil},
		{"63-character name and value", []string{name63 + "=" + name63 + ":NoSchedule"}, []Taint{{Key: name63, Value: name63, Effect: TaintEffectNoSchedule}}, nil},
		{"dots, dashes and underscores inside", []string{"a.b-c_d=e.f-g_h:NoSchedule"}, []Taint{{Key: "a.b-c_d", Value: "e.f-g_h", Effect: TaintEffectNoSchedule}}, nil},
		{"key:Effect- removes that effect", []string{"foo:NoSchedule-"}, nil, []Taint{{Key: "foo", Effect: TaintEffectNoSchedule}}},
		{"key=value:Effect- removes, value dropped", []string{"foo=bar:NoExecute-"}, nil, []Taint{{Key: "foo", Effect: TaintEffectNoExecute}}},
		{"key- removes every effect", []string{"foo-"}, nil, []Taint{{Key: "foo"}}},
		{"same key, different effects are distinct", []string{"foo=a:NoSchedule", "foo=b:NoExecute"},
			[]Taint{{Key: "foo", Value: "a", Effect: TaintEffectNoSchedule}, {Key: "foo", Value: "b", Effect: TaintEffectNoExecute}}, nil},
		{"adding and removing the same taint is not checked", []string{"foo:NoSchedule", "foo:NoSchedule-"},
			[]Taint{{Key: "foo", Effect: TaintEffectNoSchedule}}, []Taint{{Key: "foo", Effect: TaintEffectNoSchedule}}},
		{"duplicate removals are allowed", []string{"foo-", "foo-"}, nil, []Taint{{Key: "foo"}, {Key: "foo"}}},
		{"order is kept in each list", []string{"b:NoSchedule", "x-", "a:NoExecute", "y:PreferNoSchedule-"},
			[]Taint{{Key: "b", Effect: TaintEffectNoSchedule}, {Key: "a", Effect: TaintEffectNoExecute}},
			[]Taint{{Key: "x"}, {Key: "y", Effect: TaintEffectPreferNoSchedule}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			add, remove, err := ParseTaints(tc.specs)
			if err != nil {
				t.Fatalf("ParseTaints(%q): %v", tc.specs, err)
			}
			if d := cmp.Diff(tc.add, add); d != "" {
				t.Errorf("add (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.rmove, remove); d != "" {
				t.Errorf("remove (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseTaintsRejects(t *testing.T) {
	tests := []struct {
		name  string
		specs []string
		want  error
	}{
		{"an addition needs an effect", []string{"foo"}, ErrMissingEffect},
		{"key=value without effect: the whole string is the key", []string{"foo=bar"}, ErrInvalidKey},
		{"empty effect after ':'", []string{"foo=bar:"}, ErrInvalidEffect},
		{"unknown effect", []string{"foo:NoScheduleX"}, ErrInvalidEffect},
		{"effects are case sensitive", []string{"foo:noschedule"}, ErrInvalidEffect},
		{"more than one ':'", []string{"foo:NoSchedule:extra"}, ErrMalformedSpec},
		{"more than one '='", []string{"foo=bar=baz:NoSchedule"}, ErrMalformedSpec},
		{"empty key", []string{":NoSchedule"}, ErrInvalidKey},
		{"empty key with a value", []string{"=bar:NoSchedule"}, ErrInvalidKey},
		{"space in key", []string{"foo bar:NoSchedule"}, ErrInvalidKey},
		{"key name over 63 characters", []string{strings.Repeat("a", 64) + ":NoSchedule"}, ErrInvalidKey},
		{"key with two slashes", []string{"a/b/c:NoSchedule"}, ErrInvalidKey},
		{"key prefix not a DNS subdomain", []string{"Example.com/foo:NoSchedule"}, ErrInvalidKey},
		{"key ending in a dash", []string{"foo-:NoSchedule"}, ErrInvalidKey},
		{"space in value", []string{"foo=bar baz:NoSchedule"}, ErrInvalidValue},
		{"value starting with a dash", []string{"foo=-bar:NoSchedule"}, ErrInvalidValue},
		{"value over 63 characters", []string{"foo=" + strings.Repeat("v", 64) + ":NoSchedule"}, ErrInvalidValue},
		{"a lone dash removes an empty key", []string{"-"}, ErrInvalidKey},
		{"double dash leaves a key ending in a dash", []string{"foo--"}, ErrInvalidKey},
		{"dash after the effect of a removal", []string{"foo:NoSchedule--"}, ErrInvalidEffect},
		{"removal with a malformed body", []string{"a:b:c-"}, ErrMalformedSpec},
		{"duplicate key and effect among additions", []string{"foo=a:NoSchedule", "foo=b:NoSchedule"}, ErrDuplicateTaint},
		{"the effect is checked before the key (upstream order)", []string{"bad key=x:Bogus"}, ErrInvalidEffect},
		{"the value is checked before the key (upstream order)", []string{"bad key=bad value:NoSchedule"}, ErrInvalidValue},
		{"a bad spec after good ones", []string{"ok:NoSchedule", "gone-", "bad"}, ErrMissingEffect},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			add, remove, err := ParseTaints(tc.specs)
			if !errors.Is(err, tc.want) {
				t.Fatalf("ParseTaints(%q) error = %v, want %v", tc.specs, err, tc.want)
			}
			if add != nil || remove != nil {
				t.Errorf("on error got add=%v remove=%v, want nil lists", add, remove)
			}
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *SpecError", err)
			}
			bad := tc.specs[len(tc.specs)-1]
			if se.Spec != bad || !strings.Contains(err.Error(), strconv.Quote(bad)) {
				t.Errorf("error %q does not name the bad spec %q", err, bad)
			}
			if !strings.HasPrefix(err.Error(), "taints: ") || strings.Count(err.Error(), "taints: ") != 1 {
				t.Errorf("error %q should carry the package prefix once", err)
			}
		})
	}
}

func TestParseTaintsDuplicateNamesBothSpecs(t *testing.T) {
	_, _, err := ParseTaints([]string{"other:NoSchedule", "foo=a:NoExecute", "foo=b:NoExecute"})
	if err == nil || !strings.Contains(err.Error(), `"foo=a:NoExecute"`) || !strings.Contains(err.Error(), `"foo=b:NoExecute"`) {
		t.Errorf("error %v should name both the first and the duplicate spec", err)
	}
}

func TestParseFieldErrorNamesValue(t *testing.T) {
	_, _, err := ParseTaints([]string{"foo=bar baz:NoSchedule"})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "value" || fe.Value != "bar baz" {
		t.Fatalf("want a *FieldError for value \"bar baz\", got %#v (%v)", fe, err)
	}
}

// The kubelet's --register-with-taints flag (taintsVar.Set).
func TestParseRegisterWithTaints(t *testing.T) {
	tests := []struct {
		name string
		spec string
		want []Taint
		err  error
	}{
		{"empty flag means no taints", "", nil, nil},
		{"one taint", "foo=bar:NoSchedule", []Taint{{Key: "foo", Value: "bar", Effect: TaintEffectNoSchedule}}, nil},
		{"comma-separated, in order", "b:NoExecute,a=1:PreferNoSchedule",
			[]Taint{{Key: "b", Effect: TaintEffectNoExecute}, {Key: "a", Value: "1", Effect: TaintEffectPreferNoSchedule}}, nil},
		{"a key without effect is accepted, as upstream", "foo", []Taint{{Key: "foo"}}, nil},
		{"duplicates are accepted, as upstream", "foo:NoSchedule,foo:NoSchedule",
			[]Taint{{Key: "foo", Effect: TaintEffectNoSchedule}, {Key: "foo", Effect: TaintEffectNoSchedule}}, nil},
		{"trailing comma leaves an empty item", "foo:NoSchedule,", nil, ErrInvalidKey},
		{"space after a comma is part of the key", "a:NoSchedule, b:NoSchedule", nil, ErrInvalidKey},
		{"whitespace-only flag is an invalid key", " ", nil, ErrInvalidKey},
		{"removal form is not an addition: key", "foo-", nil, ErrInvalidKey},
		{"removal form is not an addition: effect", "foo:NoSchedule-", nil, ErrInvalidEffect},
		{"bad effect", "foo=bar:Never", nil, ErrInvalidEffect},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.spec)
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Fatalf("Parse(%q) error = %v, want %v", tc.spec, err, tc.err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tc.spec, d)
			}
		})
	}
}

func TestTaintString(t *testing.T) {
	tests := []struct {
		t    Taint
		want string
	}{
		{Taint{Key: "k", Value: "v", Effect: TaintEffectNoSchedule}, "k=v:NoSchedule"},
		{Taint{Key: "k", Effect: TaintEffectNoExecute}, "k:NoExecute"},
		{Taint{Key: "k", Value: "v"}, "k=v:"},
		{Taint{Key: "k"}, "k"},
	}
	for _, tc := range tests {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.t, got, tc.want)
		}
	}
}
