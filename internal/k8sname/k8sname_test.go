package k8sname

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
	"pgregory.net/rapid"
)

// The regular-expression-free checks accept exactly what apimachinery's
// validation accepts.
func TestPropertyMatchesApimachinery(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := []rune("abzAZ09-_./ é")
		gen := rapid.StringOfN(rapid.SampledFrom(alphabet), 0, 70, -1)
		s := gen.Draw(t, "s")
		if rapid.IntRange(0, 9).Draw(t, "long") == 0 {
			s = strings.Repeat("a", rapid.IntRange(60, 260).Draw(t, "n")) + s
		}
		if got, want := QualifiedName(s), len(validation.IsQualifiedName(s)) == 0; got != want {
			t.Fatalf("QualifiedName(%q) = %v, apimachinery %v", s, got, want)
		}
		if got, want := LabelValue(s), len(validation.IsValidLabelValue(s)) == 0; got != want {
			t.Fatalf("LabelValue(%q) = %v, apimachinery %v", s, got, want)
		}
		if got, want := DNSSubdomain(s), len(validation.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Fatalf("DNSSubdomain(%q) = %v, apimachinery %v", s, got, want)
		}
	})
}
