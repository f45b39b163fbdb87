package release

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Version
		err  error
	}{
		{"1.36", V1_36, nil},
		{"v1.37", V1_37, nil},
		{"1.27.0", V1_27, nil},
		{"v1.36.3-gke.100", V1_36, nil},
		{" 1.31.4 ", V1_31, nil},
		{"1.26", 0, ErrUnknown},
		{"1.38", 0, ErrUnknown},
		{"2.0", 0, ErrInvalid},
		{"1", 0, ErrInvalid},
		{"1.036", 0, ErrInvalid},
		{"1.36.x", 0, ErrInvalid},
		{"1.36.3.4", 0, ErrInvalid},
		{"", 0, ErrInvalid},
		{"1.99999999999999999999", 0, ErrInvalid},
	} {
		got, err := Parse(tc.in)
		if tc.err != nil {
			if !errors.Is(err, tc.err) || got != 0 {
				t.Errorf("Parse(%q) = %v, %v; want error %v", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestClampAndOrder(t *testing.T) {
	if V1_20 := Version(20); V1_20.Clamp() != Oldest {
		t.Errorf("Version(20).Clamp() = %v, want %v", V1_20.Clamp(), Oldest)
	}
	if Version(40).Clamp() != Current || V1_33.Clamp() != V1_33 {
		t.Errorf("Clamp: got %v and %v", Version(40).Clamp(), V1_33.Clamp())
	}
	if !V1_37.AtLeast(V1_36) || V1_36.AtLeast(V1_37) || !V1_36.AtLeast(V1_36) {
		t.Error("AtLeast is not the release order")
	}
	if Current.String() != "1.37" {
		t.Errorf("Current = %s, want 1.37", Current)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1.36", "v1.37.2", "1.", "v", "1.0", "-", "1.36+x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err == nil {
			if v < Oldest || v > Current {
				t.Fatalf("Parse(%q) = %v outside the presets", s, v)
			}
			if back, err := Parse(v.String()); err != nil || back != v {
				t.Fatalf("Parse(%q) round trip: %v, %v", v.String(), back, err)
			}
		}
	})
}
