package quantity

import (
	"errors"
	"os"
	"testing"
	"time"
)

// Exponents within ±1000 parse as apimachinery parses them; beyond, or
// wrapping to beyond in 32 bits, they are refused at once.
func TestParse(t *testing.T) {
	for _, s := range []string{"1e21", "100Mi", "1E", "1Ei", "5e-9", "1e1000", "1e-1000", "0", "1.5Gi"} {
		if _, err := Parse(s); err != nil {
			t.Errorf("Parse(%q): %v", s, err)
		}
	}
	for _, s := range []string{"1e1001", "1e-1001", "10E0020000000000000", "1e-2000000000"} {
		began := time.Now()
		_, err := Parse(s)
		if !errors.Is(err, ErrExponent) {
			t.Errorf("Parse(%q): %v", s, err)
		}
		// A refused exponent returns at once; the 1s budget is asserted
		// under NODELIFE_LONG only (CI's machine may be busy).
		if d := time.Since(began); os.Getenv("NODELIFE_LONG") == "1" && d > time.Second {
			t.Errorf("Parse(%q) took %v", s, d)
		}
	}
	if q, _ := Parse("1e21"); q.String() != "1e21" {
		t.Errorf("1e21 = %s", q.String())
	}
}
