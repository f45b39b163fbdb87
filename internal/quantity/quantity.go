// Package quantity parses resource quantities as apimachinery's
// resource.ParseQuantity does, but refuses those whose decimal exponent
// ("1e-2000000000") would make the parse, or later arithmetic on the
// value, take unbounded time: apimachinery keeps the low 32 bits of the
// exponent and rounds the value to nano units by powers of ten of that
// size (the kubelet hangs on such a flag value). Used by the packages
// that parse quantities from users' strings.
package quantity

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// MaxExponent bounds the magnitude of a decimal exponent: 10^1000 bytes is
// far beyond any machine, and the arithmetic stays fast.
const MaxExponent = 1000

// ErrExponent is wrapped by the error for a quantity beyond MaxExponent.
var ErrExponent = errors.New("quantity: decimal exponent out of range")

// Parse is resource.ParseQuantity for s, or an error naming s when its
// decimal exponent, read as apimachinery reads it, exceeds MaxExponent.
func Parse(s string) (resource.Quantity, error) {
	if i := strings.IndexAny(s, "eE"); i >= 0 && i+1 < len(s) {
		if v, err := strconv.ParseInt(s[i+1:], 10, 64); err == nil {
			if e := int32(v); e > MaxExponent || e < -MaxExponent {
				return resource.Quantity{}, fmt.Errorf("%w: %q (exponent %d, as read: %d; at most ±%d)", ErrExponent, s, v, e, MaxExponent)
			}
		}
	}
	return resource.ParseQuantity(s)
}

// Bytes prints a byte count as kubectl writes a quantity of bytes: 14Gi,
// 512Mi, 10737418400 (no binary suffix divides it).
func Bytes(v int64) string {
	return resource.NewQuantity(v, resource.BinarySI).String()
}
