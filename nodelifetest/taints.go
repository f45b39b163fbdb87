package nodelifetest

import (
	"strconv"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/taints"
)

var effects = []taints.Effect{taints.TaintEffectNoSchedule, taints.TaintEffectPreferNoSchedule, taints.TaintEffectNoExecute}

// wellKnownKeys are the taint keys the library's policies act on.
var wellKnownKeys = []string{
	taints.TaintNodeNotReady, taints.TaintNodeUnreachable, taints.TaintNodeUnschedulable,
	taints.TaintNodeMemoryPressure, taints.TaintNodeDiskPressure, taints.TaintNodePIDPressure,
	taints.TaintNodeNetworkUnavailable, taints.TaintNodeOutOfService, "dedicated",
}

// Strings draws short strings that collide often, including the empty
// string and the separators of the taint grammar (":", "=", "/"), spaces
// and leading zeros: the strings that break parsers and matchers.
func Strings() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom([]string{"", "a", "b", "k", "1", "-1", "0", "07", "x=y", "a:b", " "}),
		rapid.StringMatching(`[a-c0-9:=/ .\-_]{0,8}`),
	)
}

// QualifiedNames draws keys that pass the API server's qualified-name
// check: a name of up to 63 characters with an optional DNS-subdomain
// prefix, the well-known node keys among them.
func QualifiedNames() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom(wellKnownKeys),
		rapid.Custom(func(t *rapid.T) string {
			name := rapid.StringMatching(`[A-Za-z0-9]([A-Za-z0-9_.\-]{0,20}[A-Za-z0-9])?`).Draw(t, "name")
			prefix := rapid.StringMatching(`([a-z0-9]([a-z0-9\-]{0,10}[a-z0-9])?(\.[a-z0-9]([a-z0-9\-]{0,10}[a-z0-9])?){0,2}/)?`).Draw(t, "prefix")
			return prefix + name
		}),
	)
}

// LabelValues draws strings that pass the label-value check, "" included.
func LabelValues() *rapid.Generator[string] {
	return rapid.StringMatching(`([A-Za-z0-9]([A-Za-z0-9_.\-]{0,20}[A-Za-z0-9])?)?`)
}

// Taints draws taints. With o.Valid each passes Taint.Validate (what the
// API server stores); otherwise about a third are drawn from Strings with
// any effect, "" and unknown ones included, and the rest are valid. Each
// has a TimeAdded up to ten minutes before o.Now, or none.
func Taints(o Options) *rapid.Generator[taints.Taint] {
	return rapid.Custom(func(t *rapid.T) taints.Taint {
		var tt taints.Taint
		switch {
		case len(o.Keys) > 0 || len(o.Values) > 0:
			tt = taints.Taint{Key: o.key(t), Value: o.value(t), Effect: rapid.SampledFrom(effects).Draw(t, "effect")}
		case !o.Valid && rare(t, 3, "invalid"):
			tt = taints.Taint{Key: Strings().Draw(t, "key"), Value: Strings().Draw(t, "value"),
				Effect: rapid.SampledFrom(append([]taints.Effect{"", "Bogus"}, effects...)).Draw(t, "effect")}
		default:
			tt = taints.Taint{Key: QualifiedNames().Draw(t, "key"), Value: LabelValues().Draw(t, "value"),
				Effect: rapid.SampledFrom(effects).Draw(t, "effect")}
		}
		if rapid.Bool().Draw(t, "added") {
			tt.TimeAdded = ago(t, o.now(), 600, "addedAgo")
		}
		return tt
	})
}

// Tolerations draws tolerations. With o.Valid each passes
// Toleration.Validate; otherwise about a third use arbitrary strings and
// operators (Lt, Gt and unknown ones included). Keys come mostly from the
// well-known node keys, so that they match drawn taints; about a third of
// those of effect NoExecute (and without o.Valid of no effect, which the
// API server refuses) have tolerationSeconds, negative and zero included.
func Tolerations(o Options) *rapid.Generator[taints.Toleration] {
	return rapid.Custom(func(t *rapid.T) taints.Toleration {
		var tol taints.Toleration
		if len(o.Keys) > 0 || len(o.Values) > 0 {
			tol.Operator = rapid.SampledFrom([]taints.Operator{taints.TolerationOpExists, taints.TolerationOpEqual}).Draw(t, "op")
			if tol.Operator == taints.TolerationOpEqual || rapid.Bool().Draw(t, "keyed") {
				tol.Key = o.key(t)
			}
			if tol.Operator == taints.TolerationOpEqual {
				tol.Value = o.value(t)
			}
			tol.Effect = rapid.SampledFrom(append([]taints.Effect{""}, effects...)).Draw(t, "effect")
		} else if !o.Valid && rare(t, 3, "invalid") {
			tol = taints.Toleration{Key: Strings().Draw(t, "key"),
				Operator: rapid.SampledFrom([]taints.Operator{"", taints.TolerationOpEqual, taints.TolerationOpExists, taints.TolerationOpLt, taints.TolerationOpGt, "In"}).Draw(t, "op"),
				Value:    Strings().Draw(t, "value"),
				Effect:   rapid.SampledFrom(append([]taints.Effect{"", "Bogus"}, effects...)).Draw(t, "effect")}
		} else {
			tol.Operator = rapid.SampledFrom([]taints.Operator{taints.TolerationOpExists, taints.TolerationOpEqual}).Draw(t, "op")
			if tol.Operator == taints.TolerationOpEqual || rapid.Bool().Draw(t, "keyed") {
				tol.Key = QualifiedNames().Draw(t, "key")
			}
			if tol.Operator == taints.TolerationOpEqual {
				tol.Value = LabelValues().Draw(t, "value")
			}
			tol.Effect = rapid.SampledFrom(append([]taints.Effect{""}, effects...)).Draw(t, "effect")
		}
		if (tol.Effect == taints.TaintEffectNoExecute || !o.Valid && tol.Effect == "") && rare(t, 3, "finite") {
			tol.TolerationSeconds = ptr(rapid.SampledFrom([]int64{-10, 0, 1, 30, 60, 300, 3600}).Draw(t, "seconds"))
		}
		return tol
	})
}

// NoExecuteTolerations draws the toleration lists that decide evictions
// from unreachable and not-ready nodes: none, the admission defaults
// (300 s each), short ones, forever, tolerate-everything, and mixes with
// an unrelated key; what a pod's toleration list looks like in practice.
func NoExecuteTolerations() *rapid.Generator[[]taints.Toleration] {
	return rapid.Custom(func(t *rapid.T) []taints.Toleration {
		var out []taints.Toleration
		for _, key := range []string{taints.TaintNodeUnreachable, taints.TaintNodeNotReady} {
			switch rapid.IntRange(0, 5).Draw(t, "kind") {
			case 0: // none
			case 1:
				out = append(out, taints.Toleration{Key: key, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute})
			default:
				s := rapid.SampledFrom([]int64{0, 5, 30, 60, 120, 300}).Draw(t, "seconds")
				out = append(out, taints.Toleration{Key: key, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &s})
			}
		}
		switch rapid.IntRange(0, 9).Draw(t, "extra") { // shrinks to 0: no extra toleration
		case 8:
			out = append(out, taints.Toleration{Operator: taints.TolerationOpExists})
		case 9:
			out = append(out, taints.Toleration{Key: "dedicated", Operator: taints.TolerationOpEqual, Value: "db", Effect: taints.TaintEffectNoExecute, TolerationSeconds: ptr(int64(20))})
		}
		return out
	})
}

// key and value draw from o.Keys and o.Values, or as for valid taints
// when the pool is empty.
func (o Options) key(t *rapid.T) string {
	if len(o.Keys) == 0 {
		return QualifiedNames().Draw(t, "key")
	}
	return rapid.SampledFrom(o.Keys).Draw(t, "key")
}

func (o Options) value(t *rapid.T) string {
	if len(o.Values) == 0 {
		return LabelValues().Draw(t, "value")
	}
	return rapid.SampledFrom(o.Values).Draw(t, "value")
}

// IntegerStrings draws the values the Lt and Gt toleration operators
// compare: canonical decimal int64s of any size, and near misses (a plus
// sign, leading zeros, the empty string, up to 20 digits, which overflow).
func IntegerStrings() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.Map(rapid.Int64(), func(n int64) string { return strconv.FormatInt(n, 10) }),
		rapid.StringMatching(`[+\-]?0*[0-9]{0,20}`),
	)
}
