package taints

import "slices"

// Test helpers of the package's internal tests that its external tests
// (the property tests, which draw from nodelifetest) use too.
var (
	StrconvOracle = strconvOracle
	KeyEffects    = keyEffects
)

var effects = []Effect{TaintEffectNoSchedule, TaintEffectPreferNoSchedule, TaintEffectNoExecute}

// keyEffects returns the distinct "key:effect" of ts, sorted.
func keyEffects(ts []Taint) []string {
	var out []string
	for _, t := range ts {
		s := t.Key + ":" + string(t.Effect)
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}
