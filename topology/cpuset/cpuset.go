package cpuset

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// MaxCPU is the largest CPU ID a CPUSet holds (see the package
// documentation).
const MaxCPU = 1<<16 - 1

// ErrInvalid is wrapped by every error of Parse and New.
var ErrInvalid = errors.New("cpuset: invalid CPU list")

// CPUSet is a set of CPU IDs in [0, MaxCPU]. The zero value is empty.
type CPUSet struct {
	// w holds bit c%64 of word c/64 for each CPU c; its last word is never
	// zero, so equal sets have equal words.
	w []uint64
}

// New returns the set of cpus, or an error naming the first ID outside
// [0, MaxCPU].
func New(cpus ...int) (CPUSet, error) {
	var b builder
	for _, c := range cpus {
		if c < 0 || c > MaxCPU {
			return CPUSet{}, fmt.Errorf("%w: CPU %d is outside 0-%d", ErrInvalid, c, MaxCPU)
		}
		b.add(c, c)
	}
	return b.set(), nil
}

// Range returns the set of CPUs from first to last, both included; empty
// when last < first. IDs are clamped to [0, MaxCPU].
func Range(first, last int) CPUSet {
	first, last = max(first, 0), min(last, MaxCPU)
	if last < first {
		return CPUSet{}
	}
	var b builder
	b.add(first, last)
	return b.set()
}

// builder accumulates CPUs into words.
type builder struct{ w []uint64 }

// add adds the CPUs from lo to hi (0 ≤ lo ≤ hi ≤ MaxCPU).
func (b *builder) add(lo, hi int) {
	if need := hi/64 + 1; need > len(b.w) {
		b.w = append(b.w, make([]uint64, need-len(b.w))...)
	}
	for w := lo / 64; w <= hi/64; w++ {
		m := ^uint64(0)
		if w == lo/64 {
			m &= ^uint64(0) << (lo % 64)
		}
		if w == hi/64 {
			m &= ^uint64(0) >> (63 - hi%64)
		}
		b.w[w] |= m
	}
}

// set returns the built set, trimmed.
func (b *builder) set() CPUSet { return trimmed(b.w) }

// trimmed drops w's zero words at the end.
func trimmed(w []uint64) CPUSet {
	n := len(w)
	for n > 0 && w[n-1] == 0 {
		n--
	}
	if n == 0 {
		return CPUSet{}
	}
	return CPUSet{w: w[:n:n]}
}

// Parse reads a CPU list in the Linux and kubelet syntax ("0-3,8-11"; ""
// is empty). Errors wrap ErrInvalid and name the element at fault.
func Parse(s string) (CPUSet, error) {
	if s == "" {
		return CPUSet{}, nil
	}
	var b builder
	for rest := s; ; {
		elem, tail, more := strings.Cut(rest, ",")
		lo, hi, isRange := strings.Cut(elem, "-")
		start, err := parseID(elem, lo)
		if err != nil {
			return CPUSet{}, err
		}
		end := start
		if isRange {
			if end, err = parseID(elem, hi); err != nil {
				return CPUSet{}, err
			}
			if start > end {
				return CPUSet{}, fmt.Errorf("%w: range %q goes down (%d > %d)", ErrInvalid, elem, start, end)
			}
		}
		b.add(start, end)
		if !more {
			break
		}
		rest = tail
	}
	return b.set(), nil
}

// parseID reads one end of element elem as strconv.Atoi does and checks
// it is a CPU ID.
func parseID(elem, num string) (int, error) {
	v, err := strconv.Atoi(num)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%w: %q in %q is not a CPU number", ErrInvalid, num, elem)
	case v < 0:
		return 0, fmt.Errorf("%w: CPU %d in %q is negative", ErrInvalid, v, elem)
	case v > MaxCPU:
		return 0, fmt.Errorf("%w: CPU %d in %q is above %d", ErrInvalid, v, elem, MaxCPU)
	}
	return v, nil
}

// String returns the canonical CPU list: ascending, consecutive CPUs as
// ranges ("0-3,8-11"), "" for the empty set.
func (s CPUSet) String() string {
	var sb strings.Builder
	for c := s.Next(0); c >= 0; {
		end := c
		for end < MaxCPU && s.Contains(end+1) {
			end++
		}
		if sb.Len() > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(c))
		if end > c {
			sb.WriteByte('-')
			sb.WriteString(strconv.Itoa(end))
		}
		if end == MaxCPU {
			break
		}
		c = s.Next(end + 1)
	}
	return sb.String()
}

// Size returns the number of CPUs in the set.
func (s CPUSet) Size() int {
	n := 0
	for _, w := range s.w {
		n += bits.OnesCount64(w)
	}
	return n
}

// IsEmpty reports whether the set has no CPU.
func (s CPUSet) IsEmpty() bool { return len(s.w) == 0 }

// Contains reports whether cpu is in the set.
func (s CPUSet) Contains(cpu int) bool {
	return cpu >= 0 && cpu/64 < len(s.w) && s.w[cpu/64]&(1<<(cpu%64)) != 0
}

// Equals reports whether the sets hold the same CPUs.
func (s CPUSet) Equals(o CPUSet) bool {
	if len(s.w) != len(o.w) {
		return false
	}
	for i, w := range s.w {
		if w != o.w[i] {
			return false
		}
	}
	return true
}

// IsSubsetOf reports whether every CPU of s is in o.
func (s CPUSet) IsSubsetOf(o CPUSet) bool {
	if len(s.w) > len(o.w) {
		return false
	}
	for i, w := range s.w {
		if w&^o.w[i] != 0 {
			return false
		}
	}
	return true
}

// Union returns the CPUs in s or in any of others.
func (s CPUSet) Union(others ...CPUSet) CPUSet {
	n := len(s.w)
	for _, o := range others {
		n = max(n, len(o.w))
	}
	w := make([]uint64, n)
	copy(w, s.w)
	for _, o := range others {
		for i, x := range o.w {
			w[i] |= x
		}
	}
	return trimmed(w)
}

// Intersection returns the CPUs in both s and o.
func (s CPUSet) Intersection(o CPUSet) CPUSet {
	w := make([]uint64, min(len(s.w), len(o.w)))
	for i := range w {
		w[i] = s.w[i] & o.w[i]
	}
	return trimmed(w)
}

// Difference returns the CPUs in s and not in o.
func (s CPUSet) Difference(o CPUSet) CPUSet {
	w := make([]uint64, len(s.w))
	for i, x := range s.w {
		if i < len(o.w) {
			x &^= o.w[i]
		}
		w[i] = x
	}
	return trimmed(w)
}

// Next returns the smallest CPU of the set not below from, or -1.
func (s CPUSet) Next(from int) int {
	from = max(from, 0)
	for i := from / 64; i < len(s.w); i++ {
		w := s.w[i]
		if i == from/64 {
			w &= ^uint64(0) << (from % 64)
		}
		if w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// List returns the CPUs in ascending order.
func (s CPUSet) List() []int {
	out := make([]int, 0, s.Size())
	for c := s.Next(0); c >= 0; c = s.Next(c + 1) {
		out = append(out, c)
	}
	return out
}
