package pressure

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestParseThresholdValues pins parseThresholdStatement's rules
// (pkg/kubelet/eviction/helpers.go): quantities must be positive,
// percentages between 0% and 100%, "0%" and "100%" disable, every
// trailing '%' is stripped.
func TestParseThresholdValues(t *testing.T) {
	for _, tc := range []struct {
		val     string
		want    string // Threshold.String(), "" when dropped
		wantErr error
		errText string
	}{
		{val: "100Mi", want: "memory.available<100Mi"},
		{val: "1.5Gi", want: "memory.available<1536Mi"},
		{val: "10%", want: "memory.available<10%"},
		{val: "0.5%", want: "memory.available<0.5%"},
		{val: "0%", want: ""},
		{val: "100%", want: ""},
		{val: "0.0%", want: "memory.available<0.0%"},     // kept, never met
		{val: "100.0%", want: "memory.available<100.0%"}, // kept
		{val: "10%%", want: "memory.available<10%"},      // all '%' stripped
		{val: "-5%", wantErr: ErrInvalidThreshold, errText: "eviction percentage threshold memory.available must be >= 0%: -5%"},
		{val: "101%", wantErr: ErrInvalidThreshold, errText: "eviction percentage threshold memory.available must be <= 100%: 101%"},
		{val: "abc%", wantErr: ErrInvalidThreshold, errText: `memory.available="abc%"`},
		{val: "NaN%", wantErr: ErrInvalidThreshold, errText: "NaN is not a percentage"},
		{val: "0", wantErr: ErrInvalidThreshold, errText: "eviction threshold memory.available must be positive: 0"},
		{val: "-1Gi", wantErr: ErrInvalidThreshold, errText: "eviction threshold memory.available must be positive: -1Gi"},
		{val: "1Gb", wantErr: ErrInvalidThreshold, errText: `memory.available="1Gb": quantities must match`},
		{val: "", wantErr: ErrInvalidThreshold, errText: `memory.available=""`},
	} {
		ths, err := ParseThresholdConfig(nil, map[string]string{"memory.available": tc.val}, nil, nil, nil)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.errText) || !strings.Contains(err.Error(), "evictionHard") {
				t.Errorf("%q: err = %v, want %v containing %q and the field", tc.val, err, tc.wantErr, tc.errText)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.val, err)
			continue
		}
		got := ""
		if len(ths) == 1 {
			got = ths[0].String()
		} else if len(ths) > 1 {
			t.Errorf("%q: %d thresholds", tc.val, len(ths))
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.val, got, tc.want)
		}
	}
}

// TestParsePercentageIsFloat32 pins upstream's float32 arithmetic:
// "10%" is float32(10)/100.
func TestParsePercentageIsFloat32(t *testing.T) {
	ths, err := ParseThresholdConfig(nil, map[string]string{"nodefs.available": "10%"}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := ths[0].Value.Percentage; p != float32(10)/100 {
		t.Fatalf("percentage %v", p)
	}
	// float64(float32(0.1)) = 0.10000000149011612; 10^9 * that truncates
	// to 100000001.
	q := ths[0].Value.quantity(1_000_000_000)
	if q.Value() != 100000001 {
		t.Fatalf("threshold quantity %d, want 100000001", q.Value())
	}
}

func TestParseUnsupportedSignal(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		hard, soft, grace, reclaim map[string]string
		field                      string
	}{
		{name: "hard", hard: map[string]string{"swap.available": "1Gi"}, field: "evictionHard"},
		{name: "soft", soft: map[string]string{"memory.free": "1Gi"}, field: "evictionSoft"},
		{name: "grace", grace: map[string]string{"disk.available": "1m"}, field: "evictionSoftGracePeriod"},
		{name: "reclaim", reclaim: map[string]string{"foo": "1Gi"}, field: "evictionMinimumReclaim"},
	} {
		_, err := ParseThresholdConfig(nil, tc.hard, tc.soft, tc.grace, tc.reclaim)
		if !errors.Is(err, ErrUnsupportedSignal) || !strings.Contains(err.Error(), "unsupported eviction signal") || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestParseSoftNeedsGracePeriod(t *testing.T) {
	_, err := ParseThresholdConfig(nil, nil, map[string]string{"memory.available": "1Gi"}, map[string]string{"nodefs.available": "1m"}, nil)
	if !errors.Is(err, ErrMissingGracePeriod) || !strings.Contains(err.Error(), "grace period must be specified for the soft eviction threshold memory.available") {
		t.Fatal(err)
	}
}

func TestParseGracePeriods(t *testing.T) {
	soft := map[string]string{"memory.available": "1Gi"}
	for _, tc := range []struct {
		val     string
		want    time.Duration
		errText string
	}{
		{val: "1m30s", want: 90 * time.Second},
		{val: "0s", want: 0},
		{val: "-1s", errText: "invalid eviction grace period specified: -1s, must be a positive value"},
		{val: "90", errText: `memory.available="90": time: missing unit`},
		{val: "soon", errText: `time: invalid duration`},
	} {
		ths, err := ParseThresholdConfig(nil, nil, soft, map[string]string{"memory.available": tc.val}, nil)
		if tc.errText != "" {
			if !errors.Is(err, ErrInvalidGracePeriod) || !strings.Contains(err.Error(), tc.errText) {
				t.Errorf("%q: %v", tc.val, err)
			}
			continue
		}
		if err != nil || len(ths) != 1 || ths[0].GracePeriod != tc.want {
			t.Errorf("%q: %v %v", tc.val, ths, err)
		}
	}
}

// TestParseZeroSoftGraceIsHard: hard means GracePeriod == 0, so a soft
// threshold with "0s" is hard, and a memory one is copied to allocatable.
func TestParseZeroSoftGraceIsHard(t *testing.T) {
	ths, err := ParseThresholdConfig([]string{"pods"}, nil, map[string]string{"memory.available": "1Gi"}, map[string]string{"memory.available": "0s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := thresholdStrings(ths)
	want := "memory.available<1Gi; allocatableMemory.available<1Gi"
	if got != want || !ths[0].IsHard() {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestParseMinimumReclaim(t *testing.T) {
	hard := map[string]string{"memory.available": "100Mi", "nodefs.available": "10%"}
	for _, tc := range []struct {
		val     string
		want    string
		wantErr bool
		errText string
	}{
		{val: "500Mi", want: "500Mi"},
		{val: "0", want: "0"}, // a zero quantity is allowed
		{val: "5%", want: "5%"},
		{val: "150%", want: "150%"}, // no upper bound
		{val: "0%", errText: "eviction percentage minimum reclaim memory.available must be positive: 0%"},
		{val: "-1%", errText: "eviction percentage minimum reclaim memory.available must be positive: -1%"},
		{val: "-1Mi", errText: "negative eviction minimum reclaim specified for memory.available"},
		{val: "x%", errText: `memory.available="x%"`},
		{val: "1MB", errText: `memory.available="1MB"`},
	} {
		ths, err := ParseThresholdConfig(nil, hard, nil, nil, map[string]string{"memory.available": tc.val})
		if tc.errText != "" {
			if !errors.Is(err, ErrInvalidMinReclaim) || !strings.Contains(err.Error(), tc.errText) || !strings.Contains(err.Error(), "evictionMinimumReclaim") {
				t.Errorf("%q: %v", tc.val, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.val, err)
			continue
		}
		// memory.available sorts before nodefs.available; only memory gets it.
		if ths[0].MinReclaim == nil || ths[0].MinReclaim.String() != tc.want || ths[1].MinReclaim != nil {
			t.Errorf("%q: got %v", tc.val, thresholdStrings(ths))
		}
	}
}

// TestParseOrderAndAllocatableCopy pins the assembly: hard, then soft;
// min-reclaim attached to every threshold of its signal; the allocatable
// copy of each hard memory.available appended last, with the min-reclaim
// and no grace.
func TestParseOrderAndAllocatableCopy(t *testing.T) {
	ths, err := ParseThresholdConfig(
		[]string{"system-reserved", "pods"},
		map[string]string{"nodefs.available": "10%", "memory.available": "100Mi"},
		map[string]string{"memory.available": "1Gi"},
		map[string]string{"memory.available": "1m30s", "imagefs.available": "5m"}, // imagefs: ignored
		map[string]string{"memory.available": "200Mi", "pid.available": "10"},     // pid: ignored
	)
	if err != nil {
		t.Fatal(err)
	}
	want := "memory.available<100Mi minReclaim=200Mi; nodefs.available<10%; " +
		"memory.available<1Gi grace=1m30s minReclaim=200Mi; allocatableMemory.available<100Mi minReclaim=200Mi"
	if got := thresholdStrings(ths); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// Without "pods" there is no copy.
	ths, _ = ParseThresholdConfig([]string{"system-reserved"}, map[string]string{"memory.available": "100Mi"}, nil, nil, nil)
	if len(ths) != 1 {
		t.Fatalf("copy without pods: %v", thresholdStrings(ths))
	}
}

// TestParseFirstErrorWins: hard is parsed before soft, grace and reclaim.
func TestParseFirstErrorWins(t *testing.T) {
	_, err := ParseThresholdConfig(nil, map[string]string{"memory.available": "0"}, map[string]string{"bogus": "1"}, nil, map[string]string{"x": "y"})
	if !errors.Is(err, ErrInvalidThreshold) {
		t.Fatal(err)
	}
}

func thresholdStrings(ths []Threshold) string {
	s := make([]string, len(ths))
	for i, t := range ths {
		s[i] = t.String()
	}
	return strings.Join(s, "; ")
}

// TestFlags pins the kubelet's flag types: '<' pairs for thresholds, '='
// pairs otherwise, empty items skipped, trimmed, last key wins.
func TestFlags(t *testing.T) {
	m, err := ParseThresholdFlag("memory.available<500Mi, nodefs.available < 1Gi,,imagefs.available<100Gi,memory.available<1Gi")
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatThresholdFlag(m); got != "imagefs.available<100Gi,memory.available<1Gi,nodefs.available<1Gi" {
		t.Fatal(got)
	}
	m, err = ParseKeyValueFlag("memory.available=0Mi,nodefs.available=500Mi")
	if err != nil || FormatKeyValueFlag(m) != "memory.available=0Mi,nodefs.available=500Mi" {
		t.Fatal(m, err)
	}
	if _, err := ParseThresholdFlag("memory.available=1Gi"); !errors.Is(err, ErrMalformedFlag) || !strings.Contains(err.Error(), `malformed pair "memory.available=1Gi", expect string<string`) {
		t.Fatal(err)
	}
	if _, err := ParseKeyValueFlag("memory.available"); !errors.Is(err, ErrMalformedFlag) || !strings.Contains(err.Error(), "expect string=string") {
		t.Fatal(err)
	}
	if m, err := ParseThresholdFlag(""); err != nil || len(m) != 0 || m == nil {
		t.Fatal(m, err)
	}
}

// TestFormatThresholdsRoundTrip: print then parse gives the thresholds
// back, including a "0s" soft threshold next to a hard one.
func TestFormatThresholdsRoundTrip(t *testing.T) {
	in := Settings{
		EvictionHard:            map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "pid.available": "100"},
		EvictionSoft:            map[string]string{"memory.available": "1Gi", "nodefs.available": "12.5%"},
		EvictionSoftGracePeriod: map[string]string{"memory.available": "0s", "nodefs.available": "2m"},
		EvictionMinimumReclaim:  map[string]string{"nodefs.available": "1%"},
		EnforceNodeAllocatable:  []string{"pods"},
	}
	ths, err := in.Parse()
	if err != nil {
		t.Fatal(err)
	}
	again, err := FormatThresholds(ths).Parse()
	if err != nil {
		t.Fatal(err)
	}
	if a, b := thresholdStrings(ths), thresholdStrings(again); a != b {
		t.Fatalf("\n%s\n%s", a, b)
	}
}

// A quantity beyond int64 prints exactly: apimachinery's String gives
// "1" for 10^21 bytes, which would read back as one byte (found by
// FuzzThresholdGrammar; its input is kept in testdata/fuzz).
func TestFormatThresholdsHugeQuantity(t *testing.T) {
	ths, err := Settings{EvictionHard: map[string]string{"memory.available": "1000000000000000000000"},
		EvictionMinimumReclaim: map[string]string{"memory.available": "2000000000000000000000"}}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	s := FormatThresholds(ths)
	if got := s.EvictionHard["memory.available"]; got != "1e21" {
		t.Errorf("hard = %q", got)
	}
	if got := s.EvictionMinimumReclaim["memory.available"]; got != "2e21" {
		t.Errorf("minReclaim = %q", got)
	}
	if got := s.EvictionHard["memory.available"]; got == "1" {
		t.Error("printed as one byte")
	}
	// ordinary quantities keep their canonical form
	ths, _ = Settings{EvictionHard: map[string]string{"memory.available": "100Mi"}}.Parse()
	if got := FormatThresholds(ths).EvictionHard["memory.available"]; got != "100Mi" {
		t.Errorf("100Mi printed as %q", got)
	}
}
