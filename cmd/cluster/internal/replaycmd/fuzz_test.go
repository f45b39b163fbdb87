package replaycmd

import (
	"strings"
	"testing"
)

// FuzzByPriority feeds -shutdown-grace-by-priority arbitrary strings: no
// panic, and an error names the flag's value part it refuses.
func FuzzByPriority(f *testing.F) {
	for _, s := range []string{"100000=20s,0=10s", "x=1s", "1=", "=1s", "1=1s,,2=2s", "9999999999=1s", "-5=-1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		phases, err := parseByPriority(v)
		if err != nil {
			if !strings.Contains(err.Error(), "shutdown-grace-by-priority") {
				t.Fatalf("%q: error %q does not name the flag", v, err)
			}
			return
		}
		if len(phases) == 0 {
			t.Fatalf("%q: no phase and no error", v)
		}
	})
}
