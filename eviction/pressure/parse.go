package pressure

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodelife/nodelife/internal/keys"
	"github.com/nodelife/nodelife/internal/quantity"
)

// NodeAllocatableEnforcementKey is the enforceNodeAllocatable entry
// ("pods") that makes the parser copy each hard memory.available threshold
// to allocatableMemory.available.
const NodeAllocatableEnforcementKey = "pods"

// The KubeletConfiguration fields the settings come from, used in errors.
const (
	fieldHard       = "evictionHard"
	fieldSoft       = "evictionSoft"
	fieldGrace      = "evictionSoftGracePeriod"
	fieldMinReclaim = "evictionMinimumReclaim"
)

// Settings are the kubelet's eviction threshold settings as written in a
// KubeletConfiguration (evictionHard, evictionSoft,
// evictionSoftGracePeriod, evictionMinimumReclaim, enforceNodeAllocatable)
// or on the command line (see ParseThresholdFlag and ParseKeyValueFlag).
type Settings struct {
	// EvictionHard maps a signal to its hard threshold: "100Mi", "10%".
	EvictionHard map[string]string
	// EvictionSoft maps a signal to its soft threshold.
	EvictionSoft map[string]string
	// EvictionSoftGracePeriod maps a signal to a Go duration: "1m30s".
	EvictionSoftGracePeriod map[string]string
	// EvictionMinimumReclaim maps a signal to a quantity or percentage.
	EvictionMinimumReclaim map[string]string
	// EnforceNodeAllocatable lists the node-allocatable enforcement keys;
	// "pods" adds the allocatableMemory.available copies.
	EnforceNodeAllocatable []string
}

// Parse is ParseThresholdConfig over the settings.
func (s Settings) Parse() ([]Threshold, error) {
	return ParseThresholdConfig(s.EnforceNodeAllocatable, s.EvictionHard, s.EvictionSoft, s.EvictionSoftGracePeriod, s.EvictionMinimumReclaim)
}

// ParseThresholdConfig turns the eviction settings into thresholds as the
// kubelet does (pkg/kubelet/eviction.ParseThresholdConfig):
//
//   - hard thresholds, then soft thresholds, each in signal-name order
//     (upstream uses map order, so its order is random);
//   - every soft threshold takes its signal's grace period, and one
//     without a grace period is an error;
//   - each minimum reclaim is attached to every threshold of its signal;
//   - when enforceNodeAllocatable contains "pods", each hard
//     memory.available threshold is copied, with its minimum reclaim, as
//     allocatableMemory.available and appended;
//   - "0%" and "100%" written exactly disable the threshold: it is
//     dropped without error;
//   - grace periods and minimum reclaims for signals without a threshold
//     are ignored.
//
// The first error ends the parse, as upstream; it wraps one of
// ErrUnsupportedSignal, ErrInvalidThreshold, ErrInvalidGracePeriod,
// ErrMissingGracePeriod or ErrInvalidMinReclaim, quotes upstream's text and
// names the setting. Unlike upstream, a "NaN%" percentage is an error
// (upstream accepts it and then compares with a machine-dependent number).
func ParseThresholdConfig(enforceNodeAllocatable []string, hard, soft, softGracePeriod, minimumReclaim map[string]string) ([]Threshold, error) {
	hardTh, err := parseStatements(fieldHard, hard)
	if err != nil {
		return nil, err
	}
	softTh, err := parseStatements(fieldSoft, soft)
	if err != nil {
		return nil, err
	}
	grace, err := parseGracePeriods(softGracePeriod)
	if err != nil {
		return nil, err
	}
	reclaim, err := parseMinimumReclaims(minimumReclaim)
	if err != nil {
		return nil, err
	}
	out := make([]Threshold, 0, len(hardTh)+len(softTh)+1)
	out = append(out, hardTh...)
	for _, t := range softTh {
		g, ok := grace[t.Signal]
		if !ok {
			return nil, wrap(ErrMissingGracePeriod, "grace period must be specified for the soft eviction threshold "+string(t.Signal)+" ("+fieldGrace+")")
		}
		t.GracePeriod = g
		out = append(out, t)
	}
	for i := range out {
		if r, ok := reclaim[out[i].Signal]; ok {
			r := r
			out[i].MinReclaim = &r
		}
	}
	if slices.Contains(enforceNodeAllocatable, NodeAllocatableEnforcementKey) {
		out = addAllocatableThresholds(out)
	}
	return out, nil
}

// addAllocatableThresholds appends an allocatableMemory.available copy of
// each hard memory.available threshold.
func addAllocatableThresholds(ths []Threshold) []Threshold {
	n := len(ths)
	for i := 0; i < n; i++ {
		if t := ths[i]; t.Signal == SignalMemoryAvailable && t.IsHard() {
			ths = append(ths, Threshold{Signal: SignalAllocatableMemoryAvailable, Operator: t.Operator, Value: t.Value, MinReclaim: t.MinReclaim})
		}
	}
	return ths
}

func checkSignal(field, key string) (Signal, error) {
	s := Signal(key)
	if !s.Valid() {
		return "", wrap(ErrUnsupportedSignal, "unsupported eviction signal "+strconv.Quote(key)+" ("+field+")")
	}
	return s, nil
}

func parseStatements(field string, m map[string]string) ([]Threshold, error) {
	var out []Threshold
	for _, k := range keys.Sorted(m) {
		t, ok, err := parseStatement(field, k, m[k])
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// parseStatement parses one threshold; ok is false for a disabled one.
func parseStatement(field, key, val string) (t Threshold, ok bool, err error) {
	sig, err := checkSignal(field, key)
	if err != nil {
		return t, false, err
	}
	bad := func(msg string) error {
		return wrap(ErrInvalidThreshold, msg+" ("+field+")")
	}
	if strings.HasSuffix(val, "%") {
		if val == "0%" || val == "100%" {
			return t, false, nil
		}
		p, perr := parsePercentage(val)
		switch {
		case perr != nil:
			return t, false, bad(key + "=" + strconv.Quote(val) + ": " + perr.Error())
		case p < 0:
			return t, false, bad("eviction percentage threshold " + key + " must be >= 0%: " + val)
		case p > 1:
			return t, false, bad("eviction percentage threshold " + key + " must be <= 100%: " + val)
		}
		return Threshold{Signal: sig, Operator: OpLessThan, Value: ThresholdValue{Percentage: p}}, true, nil
	}
	q, qerr := quantity.Parse(val)
	if qerr != nil {
		return t, false, bad(key + "=" + strconv.Quote(val) + ": " + qerr.Error())
	}
	if q.Sign() <= 0 {
		return t, false, bad("eviction threshold " + key + " must be positive: " + q.String())
	}
	return Threshold{Signal: sig, Operator: OpLessThan, Value: ThresholdValue{Quantity: &q}}, true, nil
}

// parsePercentage is upstream's: trailing '%' signs stripped, the rest
// parsed as a float32 and divided by 100. NaN is refused.
func parsePercentage(val string) (float32, error) {
	f, err := strconv.ParseFloat(strings.TrimRight(val, "%"), 32)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(f) {
		return 0, errNaN
	}
	return float32(f) / 100, nil
}

type nanError struct{}

// Error says what was refused.
func (nanError) Error() string { return "NaN is not a percentage" }

var errNaN error = nanError{}

func parseGracePeriods(m map[string]string) (map[Signal]time.Duration, error) {
	out := make(map[Signal]time.Duration, len(m))
	for _, k := range keys.Sorted(m) {
		sig, err := checkSignal(fieldGrace, k)
		if err != nil {
			return nil, err
		}
		val := m[k]
		d, err := time.ParseDuration(val)
		if err != nil {
			return nil, wrap(ErrInvalidGracePeriod, k+"="+strconv.Quote(val)+": "+err.Error()+" ("+fieldGrace+")")
		}
		if d < 0 {
			return nil, wrap(ErrInvalidGracePeriod, "invalid eviction grace period specified: "+val+", must be a positive value ("+fieldGrace+"["+k+"])")
		}
		out[sig] = d
	}
	return out, nil
}

func parseMinimumReclaims(m map[string]string) (map[Signal]ThresholdValue, error) {
	out := make(map[Signal]ThresholdValue, len(m))
	for _, k := range keys.Sorted(m) {
		sig, err := checkSignal(fieldMinReclaim, k)
		if err != nil {
			return nil, err
		}
		val := m[k]
		bad := func(msg string) error {
			return wrap(ErrInvalidMinReclaim, msg+" ("+fieldMinReclaim+")")
		}
		if strings.HasSuffix(val, "%") {
			p, perr := parsePercentage(val)
			if perr != nil {
				return nil, bad(k + "=" + strconv.Quote(val) + ": " + perr.Error())
			}
			if p <= 0 {
				return nil, bad("eviction percentage minimum reclaim " + k + " must be positive: " + val)
			}
			out[sig] = ThresholdValue{Percentage: p}
			continue
		}
		q, qerr := quantity.Parse(val)
		if qerr != nil {
			return nil, bad(k + "=" + strconv.Quote(val) + ": " + qerr.Error())
		}
		if q.Sign() < 0 {
			return nil, bad("negative eviction minimum reclaim specified for " + k + ": " + val)
		}
		out[sig] = ThresholdValue{Quantity: &q}
	}
	return out, nil
}

// FormatThresholds writes thresholds back as settings, so that
// Parse(FormatThresholds(ths)) gives the same thresholds for any ths that
// came from a parse. Thresholds with a zero grace period go to
// EvictionHard (a second one for the same signal, which a soft "0s"
// threshold makes, goes to EvictionSoft with grace "0s"). When ths ends
// with the allocatableMemory.available copies of its hard memory.available
// thresholds, they are not written and EnforceNodeAllocatable is ["pods"].
// The first minimum reclaim seen for a signal is written.
func FormatThresholds(ths []Threshold) Settings {
	s := Settings{
		EvictionHard:            map[string]string{},
		EvictionSoft:            map[string]string{},
		EvictionSoftGracePeriod: map[string]string{},
		EvictionMinimumReclaim:  map[string]string{},
	}
	if n := allocatableCopies(ths); n > 0 {
		ths = ths[:len(ths)-n]
		s.EnforceNodeAllocatable = []string{NodeAllocatableEnforcementKey}
	}
	for _, t := range ths {
		key := string(t.Signal)
		if _, taken := s.EvictionHard[key]; t.IsHard() && !taken {
			s.EvictionHard[key] = t.Value.String()
		} else {
			s.EvictionSoft[key] = t.Value.String()
			s.EvictionSoftGracePeriod[key] = t.GracePeriod.String()
		}
		if _, seen := s.EvictionMinimumReclaim[key]; t.MinReclaim != nil && !seen {
			s.EvictionMinimumReclaim[key] = t.MinReclaim.String()
		}
	}
	return s
}

// allocatableCopies returns how many thresholds at the end of ths are the
// allocatable copies addAllocatableThresholds appends, or 0 when the tail
// is not exactly those copies.
func allocatableCopies(ths []Threshold) int {
	var mem []Threshold
	for _, t := range ths {
		if t.Signal == SignalMemoryAvailable && t.IsHard() {
			mem = append(mem, t)
		}
	}
	n := len(mem)
	if n == 0 || n > len(ths)-n {
		return 0
	}
	tail := ths[len(ths)-n:]
	for i, c := range tail {
		m := mem[i]
		if c.Signal != SignalAllocatableMemoryAvailable || !c.IsHard() || c.Operator != m.Operator || !c.Value.equal(m.Value) || c.MinReclaim != m.MinReclaim {
			return 0
		}
	}
	return n
}

// ParseThresholdFlag parses an --eviction-hard or --eviction-soft value,
// "signal<value,signal<value", as the kubelet's flag type does
// (cliflag.LangleSeparatedMapStringString): empty items are skipped,
// keys and values are trimmed, a later key overwrites an earlier one, and
// an item without '<' is an error.
func ParseThresholdFlag(value string) (map[string]string, error) {
	return parsePairs(value, "<")
}

// ParseKeyValueFlag parses an --eviction-soft-grace-period or
// --eviction-minimum-reclaim value, "signal=value,signal=value"
// (cliflag.MapStringString).
func ParseKeyValueFlag(value string) (map[string]string, error) {
	return parsePairs(value, "=")
}

func parsePairs(value, sep string) (map[string]string, error) {
	m := map[string]string{}
	for _, item := range strings.Split(value, ",") {
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, sep)
		if !ok {
			return nil, wrap(ErrMalformedFlag, "malformed pair "+strconv.Quote(item)+", expect string"+sep+"string")
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return m, nil
}

// FormatThresholdFlag writes a map as an --eviction-hard value, pairs in
// key order.
func FormatThresholdFlag(m map[string]string) string { return formatPairs(m, "<") }

// FormatKeyValueFlag writes a map as an --eviction-soft-grace-period or
// --eviction-minimum-reclaim value, pairs in key order.
func FormatKeyValueFlag(m map[string]string) string { return formatPairs(m, "=") }

func formatPairs(m map[string]string, sep string) string {
	var b strings.Builder
	for i, k := range keys.Sorted(m) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteString(sep)
		b.WriteString(m[k])
	}
	return b.String()
}
