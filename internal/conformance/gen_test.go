package conformance

import (
	"math/rand"
	"strings"
)

// Generators for the strings a user types or an API object holds: mostly
// well-formed values from small pools, so that matches happen often, mixed
// with fragments that break one rule at a time (separators in the wrong
// place, forbidden characters, over-long names, non-ASCII and invalid UTF-8).

var (
	keyPool = []string{
		"", "a", "key", "example.com/dedicated", "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable",
		"node.cloudprovider.kubernetes.io/shutdown", "dedicated", "gpu", "k8s.io/x", "A_b.c-d", "-bad", "bad-",
		"example.com/", "/name", "a/b/c", "UPPER.example.com/Key", "x" + strings.Repeat("y", 62), strings.Repeat("z", 64),
		strings.Repeat("d", 250) + ".com/k", "ключ", "k\xff", "k k", "k=v", "k:v",
	}
	valuePool = []string{
		"", "v", "gpu", "true", "0", "1", "-1", "42", "950", "999", "007", "-0", "+5", "1e3", " 5", "5 ",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"a.b-c_d", "-v", "v-", "x" + strings.Repeat("y", 62), strings.Repeat("z", 64), "é", "v\xfe", "a=b", "a:b",
	}
	effectPool = []string{"NoSchedule", "PreferNoSchedule", "NoExecute", "", "noschedule", "NoSchedule ", "Other"}
	opPool     = []string{"Equal", "Exists", "", "Lt", "Gt", "equal", "In"}
)

func oneOf(r *rand.Rand, pool []string) string { return pool[r.Intn(len(pool))] }

// noise is a short string of characters that matter to the parsers here.
func noise(r *rand.Rand) string {
	const alphabet = "ab-_./=:09AZ \t%é\xff"
	n := r.Intn(6)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(alphabet[r.Intn(len(alphabet))])
	}
	return b.String()
}

// mangle sometimes breaks s: cuts it, doubles a piece, or adds noise.
func mangle(r *rand.Rand, s string) string {
	switch r.Intn(12) {
	case 0:
		if s != "" {
			return s[:r.Intn(len(s))]
		}
	case 1:
		return s + noise(r)
	case 2:
		return noise(r) + s
	case 3:
		if s != "" {
			i := r.Intn(len(s))
			return s[:i] + noise(r) + s[i:]
		}
	}
	return s
}

// Well-formed parts, for the specs that should parse.
var (
	validKeys    = []string{"a", "key", "example.com/dedicated", "node.kubernetes.io/not-ready", "k8s.io/x", "A_b.c-d", "gpu"}
	validValues  = []string{"", "v", "gpu", "true", "0", "42", "a.b-c_d"}
	validEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}
)

// taintSpec draws a --register-with-taints / kubectl taint argument: two
// times in three from well-formed parts, otherwise from any.
func taintSpec(r *rand.Rand) string {
	if r.Intn(3) > 0 {
		s := oneOf(r, validKeys)
		switch r.Intn(4) {
		case 0:
			s += ":" + oneOf(r, validEffects)
		case 1:
			s += "-"
		default:
			s += "=" + oneOf(r, validValues) + ":" + oneOf(r, validEffects)
		}
		return s
	}
	var s string
	switch r.Intn(6) {
	case 0:
		s = oneOf(r, keyPool)
	case 1:
		s = oneOf(r, keyPool) + ":" + oneOf(r, effectPool)
	case 2, 3:
		s = oneOf(r, keyPool) + "=" + oneOf(r, valuePool) + ":" + oneOf(r, effectPool)
	case 4:
		s = oneOf(r, keyPool) + "=" + oneOf(r, valuePool)
	default:
		s = noise(r) + oneOf(r, keyPool) + noise(r)
	}
	if r.Intn(4) == 0 {
		s += "-"
	}
	return mangle(r, s)
}
