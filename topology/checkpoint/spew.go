package checkpoint

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

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
// printed after it also goes without its type. That only shows when the
// nil pointer is a map's last value: the struct field after the map is
// then printed without its type. skipType carries the flag.
type hashText struct {
	strings.Builder
	skipType bool
}

// field writes " Name:(type)" (without the space for the first field), or
// " Name:" after a nil pointer that ended a map.
func (h *hashText) field(first bool, name, typ string) {
	if !first {
		h.WriteByte(' ')
	}
	h.WriteString(name)
	h.WriteByte(':')
	if h.skipType {
		h.skipType = false
		return
	}
	h.WriteByte('(')
	h.WriteString(typ)
	h.WriteByte(')')
}

// sortedKeys returns m's keys in byte order (go-spew's order for strings).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// stringMap writes a map[string]string.
func (h *hashText) stringMap(m map[string]string) {
	if m == nil {
		h.WriteString("<nil>")
		return
	}
	h.WriteString("map[")
	for i, k := range sortedKeys(m) {
		if i > 0 {
			h.WriteByte(' ')
		}
		h.WriteString(k)
		h.WriteByte(':')
		h.WriteString(m[k])
	}
	h.WriteByte(']')
}

// nestedMap writes a map[string]map[string]string.
func (h *hashText) nestedMap(m map[string]map[string]string) {
	if m == nil {
		h.WriteString("<nil>")
		return
	}
	h.WriteString("map[")
	for i, k := range sortedKeys(m) {
		if i > 0 {
			h.WriteByte(' ')
		}
		h.WriteString(k)
		h.WriteByte(':')
		h.stringMap(m[k])
	}
	h.WriteByte(']')
}

// cpuSetStruct writes a k8s.io/utils/cpuset.CPUSet as go-spew sees it: its
// one field, a map[int]struct{} of the CPUs, in ascending order.
func (h *hashText) cpuSetStruct(s cpuset.CPUSet) {
	h.WriteString("{elems:(map[int]struct {})map[")
	for i, c := range s.List() {
		if i > 0 {
			h.WriteByte(' ')
		}
		fmt.Fprintf(h, "%d:{}", c)
	}
	h.WriteString("]}")
}

// checksum is the FNV-32a hash of text.
func checksum(text string) uint64 {
	f := fnv.New32a()
	f.Write([]byte(text))
	return uint64(f.Sum32())
}
