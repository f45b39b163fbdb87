package checkpoint

import (
	"strconv"
	"strings"

	"github.com/nodelife/nodelife/internal/keys"
	"github.com/nodelife/nodelife/topology/cpuset"
)

// hashText is what the kubelet's checksum hashes for a checkpoint: the text
// k8s.io/utils/dump.ForHash prints for it, go-spew's "%#v" with sorted
// keys, methods disabled and no pointer addresses. Each top-level field
// is printed with its type, "(type)value"; map keys and values without;
// strings raw; a nil map as "<nil>" and an empty one as "map[]".
//
// One go-spew quirk matters: a nil pointer printed where types are not
// shown (a map value) leaves its "no type" flag set, so the next value
// printed after it also goes without its type. The next map key and value
// are printed without types anyway, and a non-nil value clears the flag;
// so it only shows when the nil pointer is a map's last value: the struct
// field after the map is then printed without its type. skipType carries
// the flag: set by a nil pointer value, cleared by any other value and by
// the field it takes the type from.
type hashText struct {
	// sum is the FNV-32a hash of the text written so far.
	sum uint32
	// rec, when set, also keeps the text (for tests).
	rec *strings.Builder
	// skipType is go-spew's sticky "no type" flag (see above).
	skipType bool
	scratch  [24]byte
}

// FNV-32a's offset basis and prime.
const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

// hashable is a checkpoint struct that writes its hashed text; typ is its
// type name where the kubelet hashes it under more than one.
type hashable interface{ write(h *hashText, typ string) }

// checksumOf is the kubelet's checksum of c: the FNV-32a hash of its text.
func checksumOf(c hashable, typ string) uint64 {
	h := hashText{sum: fnvOffset}
	c.write(&h, typ)
	return uint64(h.sum)
}

// textOf is the text checksumOf hashes.
func textOf(c hashable, typ string) string {
	var b strings.Builder
	h := hashText{sum: fnvOffset, rec: &b}
	c.write(&h, typ)
	return b.String()
}

// str hashes s.
func (h *hashText) str(s string) {
	for i := 0; i < len(s); i++ {
		h.sum = (h.sum ^ uint32(s[i])) * fnvPrime
	}
	if h.rec != nil {
		h.rec.WriteString(s)
	}
}

// char hashes c.
func (h *hashText) char(c byte) {
	h.sum = (h.sum ^ uint32(c)) * fnvPrime
	if h.rec != nil {
		h.rec.WriteByte(c)
	}
}

// bytes hashes b.
func (h *hashText) bytes(b []byte) {
	for _, c := range b {
		h.sum = (h.sum ^ uint32(c)) * fnvPrime
	}
	if h.rec != nil {
		h.rec.Write(b)
	}
}

// int and uint write numbers in decimal.
func (h *hashText) int(v int)     { h.bytes(strconv.AppendInt(h.scratch[:0], int64(v), 10)) }
func (h *hashText) uint(v uint64) { h.bytes(strconv.AppendUint(h.scratch[:0], v, 10)) }

// field writes " Name:(type)" (without the space for the first field), or
// " Name:" after a nil pointer that ended a map.
func (h *hashText) field(first bool, name, typ string) {
	if !first {
		h.char(' ')
	}
	h.str(name)
	h.char(':')
	if h.skipType {
		h.skipType = false
		return
	}
	h.char('(')
	h.str(typ)
	h.char(')')
}

// spewMap writes a map with string keys as go-spew does under
// ignoreNextType: "<nil>" for a nil map, else "map[k:v k:v]" in key
// order, each value by value.
func spewMap[V any](h *hashText, m map[string]V, value func(V)) {
	if m == nil {
		h.str("<nil>")
		return
	}
	h.str("map[")
	for i, k := range keys.Sorted(m) {
		if i > 0 {
			h.char(' ')
		}
		h.str(k)
		h.char(':')
		value(m[k])
	}
	h.char(']')
}

// stringMap writes a map[string]string.
func (h *hashText) stringMap(m map[string]string) { spewMap(h, m, h.str) }

// nestedMap writes a map[string]map[string]string.
func (h *hashText) nestedMap(m map[string]map[string]string) { spewMap(h, m, h.stringMap) }

// open writes the start of a checkpoint struct behind a pointer:
// "(*state.<typ>){".
func (h *hashText) open(typ string) {
	h.str("(*state.")
	h.str(typ)
	h.str("){")
}

// close writes the checksum field, zero while hashing, and the end.
func (h *hashText) close() {
	h.field(false, "Checksum", "checksum.Checksum")
	h.str("0}")
}

// cpuSetStruct writes a k8s.io/utils/cpuset.CPUSet as go-spew sees it: its
// one field, a map[int]struct{} of the CPUs, in ascending order.
func (h *hashText) cpuSetStruct(s cpuset.CPUSet) {
	h.str("{elems:(map[int]struct {})map[")
	for i, c := range s.List() {
		if i > 0 {
			h.char(' ')
		}
		h.int(c)
		h.str(":{}")
	}
	h.str("]}")
}
