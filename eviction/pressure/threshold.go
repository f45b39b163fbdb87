package pressure

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Operator relates a signal to a threshold value. The kubelet has one,
// LessThan, implied by every signal.
type Operator string

// OpLessThan: the threshold is met when the available amount is less than
// the threshold quantity. A Threshold with an empty Operator is never met;
// upstream appends such zero-valued containerfs thresholds when the nodefs
// or imagefs threshold they copy is missing.
const OpLessThan Operator = "LessThan"

// ThresholdValue is an absolute quantity or a fraction of capacity
// (k8s.io/kubernetes/pkg/kubelet/eviction/api.ThresholdValue). Quantity
// wins when both are set.
type ThresholdValue struct {
	// Quantity is an absolute amount: bytes, inodes or PIDs.
	Quantity *resource.Quantity
	// Percentage is a fraction of capacity, 0.1 for "10%". It is a
	// float32, as upstream: "10%" is float32(10)/100, and the threshold
	// quantity is int64(float64(capacity) * float64(Percentage)).
	Percentage float32
}

// quantity returns the threshold quantity against capacity (upstream's
// GetThresholdQuantity): the Quantity itself, or the percentage of
// capacity truncated to an integer. Out-of-range products saturate; for
// them upstream's float-to-int conversion is machine dependent.
func (v ThresholdValue) quantity(capacity int64) resource.Quantity {
	if v.Quantity != nil {
		return v.Quantity.DeepCopy()
	}
	return *resource.NewQuantity(percentOf(capacity, v.Percentage), resource.BinarySI)
}

func percentOf(capacity int64, p float32) int64 {
	f := float64(capacity) * float64(p)
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// String returns the value as the flags write it: "100Mi" or "10%".
func (v ThresholdValue) String() string {
	if v.Quantity != nil {
		return quantityString(*v.Quantity)
	}
	return formatPercent(v.Percentage)
}

// quantityString is q's canonical form or, where that does not read back
// as q, its exact value in exponent form ("1e21", "100e27"): apimachinery prints
// a quantity beyond int64, such as "1000000000000000000000" (bytes), as
// "1", and expanding one with a huge exponent would never end.
func quantityString(q resource.Quantity) string {
	s := q.String()
	if back, err := resource.ParseQuantity(s); err == nil && back.Cmp(q) == 0 {
		return s
	}
	d := q.AsDec()
	digits, exp := new(big.Int).Set(d.UnscaledBig()), -int(d.Scale())
	ten, rem := big.NewInt(10), new(big.Int)
	for digits.Sign() != 0 {
		q, r := new(big.Int).QuoRem(digits, ten, rem)
		if r.Sign() != 0 {
			break
		}
		digits, exp = q, exp+1
	}
	// apimachinery's canonical exponent form uses multiples of 3, so the
	// value printed again after a parse reads the same
	for exp%3 != 0 {
		digits, exp = digits.Mul(digits, ten), exp-1
	}
	return digits.String() + "e" + strconv.Itoa(exp)
}

// equal reports whether two values are the same amount (upstream's
// compareThresholdValue).
func (v ThresholdValue) equal(o ThresholdValue) bool {
	if v.Quantity != nil || o.Quantity != nil {
		return v.Quantity != nil && o.Quantity != nil && v.Quantity.Cmp(*o.Quantity) == 0
	}
	return v.Percentage == o.Percentage || (v.Percentage != v.Percentage && o.Percentage != o.Percentage)
}

// formatPercent prints a parsed percentage so that parsing the text gives
// the same float32 back: the parser computes float32(x)/100, so this looks
// for the shortest x near p*100 that maps to p. 0 and 1 print as "0.0%"
// and "100.0%".
func formatPercent(p float32) string {
	c := float32(float64(p) * 100)
	best, found := strconv.FormatFloat(float64(c), 'g', -1, 32), c/100 == p
	for i := -8; i <= 8; i++ {
		y := nextFloat(c, i)
		if y/100 != p {
			continue
		}
		if s := strconv.FormatFloat(float64(y), 'g', -1, 32); !found || len(s) < len(best) {
			best, found = s, true
		}
	}
	// "0%" and "100%" written exactly disable a threshold; a kept 0 or 1
	// must not print as them.
	if best == "0" || best == "100" {
		best += ".0"
	}
	return best + "%"
}

// nextFloat steps n ulps from x (down for negative n).
func nextFloat(x float32, n int) float32 {
	dir := float32(math.Inf(1))
	if n < 0 {
		dir, n = float32(math.Inf(-1)), -n
	}
	for ; n > 0; n-- {
		x = math.Nextafter32(x, dir)
	}
	return x
}

// Threshold is one eviction threshold
// (k8s.io/kubernetes/pkg/kubelet/eviction/api.Threshold): the signal, the
// value it is compared with, how long it must be met before it acts, and
// how much more than the value must be free before it counts as resolved.
type Threshold struct {
	// Signal is what is measured.
	Signal Signal
	// Operator is OpLessThan for every threshold the parser makes.
	Operator Operator
	// Value is the threshold.
	Value ThresholdValue
	// GracePeriod is how long the threshold must be met before the
	// kubelet acts. Zero makes the threshold hard, whichever flag it came
	// from.
	GracePeriod time.Duration
	// MinReclaim, when set, is added to Value while the threshold is being
	// resolved: once met, it stays met until available >= Value +
	// MinReclaim (--eviction-minimum-reclaim).
	MinReclaim *ThresholdValue
}

// IsHard reports whether the threshold acts at once (upstream's
// isHardEvictionThreshold: GracePeriod == 0).
func (t Threshold) IsHard() bool { return t.GracePeriod == 0 }

// String returns the threshold as "signal<value", followed by the grace
// period and minimum reclaim when set, e.g.
// "memory.available<1Gi grace=1m30s minReclaim=500Mi".
func (t Threshold) String() string {
	var b strings.Builder
	b.WriteString(string(t.Signal))
	b.WriteByte('<')
	b.WriteString(t.Value.String())
	if t.Operator != OpLessThan {
		b.WriteString(" operator=")
		b.WriteString(strconv.Quote(string(t.Operator)))
	}
	if t.GracePeriod != 0 {
		b.WriteString(" grace=")
		b.WriteString(t.GracePeriod.String())
	}
	if t.MinReclaim != nil {
		b.WriteString(" minReclaim=")
		b.WriteString(t.MinReclaim.String())
	}
	return b.String()
}

// met reports whether the threshold is met by obs (upstream's
// thresholdsMet for one threshold): quantity (+ min-reclaim when enforced)
// strictly greater than available. A threshold whose operator is not
// LessThan is never met.
func (t *Threshold) met(obs Observation, enforceMinReclaim bool) bool {
	if t.Operator != OpLessThan {
		return false
	}
	q := t.Value.quantity(obs.Capacity)
	if enforceMinReclaim && t.MinReclaim != nil {
		q.Add(t.MinReclaim.quantity(obs.Capacity))
	}
	return q.CmpInt64(obs.Available) > 0
}
