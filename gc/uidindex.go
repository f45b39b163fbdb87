package gc

import (
	"hash/maphash"

	"k8s.io/apimachinery/pkg/types"
)

// hashUID is the UID hash of the index; tests replace it to force
// collisions.
var hashUID = func(seed maphash.Seed, u types.UID) uint64 { return maphash.String(seed, string(u)) }

// uidIndex maps UIDs to object indices: open addressing with linear
// probing over a power-of-two table of uint64 slots, each the low half of
// the UID's hash (a tag compared before any string) over index + 1 (0 is
// empty); the slot is the hash's top bits. Unlike a map[types.UID]int32
// it holds no pointers, so the runtime's collector never scans it.
type uidIndex struct {
	seed  maphash.Seed
	slots []uint64
	shift uint
}

// newUIDIndex indexes objs (whose UIDs are non-empty and hashed with
// seed in hashes) and returns the UIDs held by more than one object.
// Objects are inserted in hashOrder, so that at a million objects the
// inserts walk the table region by region instead of missing the cache on
// each one.
func newUIDIndex(objs []Object, seed maphash.Seed, hashes []uint64) (uidIndex, []types.UID) {
	n := len(objs)
	bits := uint(3)
	for 1<<bits < 2*n {
		bits++
	}
	x := uidIndex{seed: seed, slots: make([]uint64, 1<<bits), shift: 64 - bits}
	var dups []types.UID
	insert := func(h uint64, i int32) {
		tag := h << 32
		for s := h >> x.shift; ; s = (s + 1) & (uint64(len(x.slots)) - 1) {
			switch v := x.slots[s]; {
			case v == 0:
				x.slots[s] = tag | uint64(i+1)
				return
			case v&^0xffffffff == tag && objs[int32(v)-1].UID == objs[i].UID:
				dups = append(dups, objs[i].UID)
				return
			}
		}
	}
	sorted, order := partitionHashes(hashes, nil)
	for k, h := range sorted {
		insert(h, order[k])
	}
	return x, dups
}

// partitionHashes returns hashes and their tags (the index of each
// hash, or tags[index] when tags is given) ordered by the hashes' top 8
// bits: a counting sort into fresh arrays, so that walking the result is
// sequential and probing a table in its order touches the table region by
// region. Short inputs, which fit the cache anyway, keep their order.
func partitionHashes(hashes []uint64, tags []int32) ([]uint64, []int32) {
	tagOf := func(i int) int32 {
		if tags != nil {
			return tags[i]
		}
		return int32(i)
	}
	outH := make([]uint64, len(hashes))
	outT := make([]int32, len(hashes))
	const partBits = 8
	if len(hashes) < 1<<12 {
		copy(outH, hashes)
		for i := range outT {
			outT[i] = tagOf(i)
		}
		return outH, outT
	}
	var start [1<<partBits + 1]int32
	for _, h := range hashes {
		start[h>>(64-partBits)+1]++
	}
	for p := 1; p < len(start); p++ {
		start[p] += start[p-1]
	}
	for i, h := range hashes {
		p := h >> (64 - partBits)
		outH[start[p]], outT[start[p]] = h, tagOf(i)
		start[p]++
	}
	return outH, outT
}

// probe returns the first object whose slot tag matches hash h, or -1
// (the caller compares the UID).
func (x *uidIndex) probe(h uint64) int32 {
	tag := h << 32
	for s := h >> x.shift; ; s = (s + 1) & (uint64(len(x.slots)) - 1) {
		switch v := x.slots[s]; {
		case v == 0:
			return -1
		case v&^0xffffffff == tag:
			return int32(v) - 1
		}
	}
}

// find returns the index of the object with UID u.
func (x *uidIndex) find(objs []Object, u types.UID) (int32, bool) {
	if u == "" {
		return -1, false
	}
	h := hashUID(x.seed, u)
	tag := h << 32
	for s := h >> x.shift; ; s = (s + 1) & (uint64(len(x.slots)) - 1) {
		switch v := x.slots[s]; {
		case v == 0:
			return -1, false
		case v&^0xffffffff == tag && objs[int32(v)-1].UID == u:
			return int32(v) - 1, true
		}
	}
}
