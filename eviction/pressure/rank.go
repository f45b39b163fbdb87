package pressure

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/podorder"
	"github.com/nodelife/nodelife/internal/quantity"
)

// Ranked is one pod's place in an eviction ranking, with what put it there.
type Ranked struct {
	// Pod is the ranked pod (an element of the input slice, not a copy).
	Pod *core.Pod
	// Index is the pod's position in the input slice.
	Index int
	// Stats is the pod's reading, nil when it has none; such pods rank
	// first (for pid.available, first within their priority).
	Stats *PodStats
	// Exceeds: usage is above the request (memory and disk signals; for
	// inodes, which have no request, any use).
	Exceeds bool
	// Priority is the pod's priority (nil counts as 0); lower goes first.
	Priority int32
	// Usage is what the signal counts of the pod: working set, disk bytes
	// or inodes over Parts, or the process count. Memory and disk bytes are
	// in milli-units (bytes x 1000), inodes and processes x 1000 too.
	Usage int64
	// Request is the effective request compared with Usage (milli-units).
	Request int64
	// Excess is Usage minus the request the last comparator subtracts;
	// larger goes first. For inode signals upstream subtracts the
	// ephemeral-storage byte request (see RankOptions.InodeExcessIgnoresByteRequest).
	Excess int64
	// Parts are the filesystem parts counted for a disk signal.
	Parts FsParts
	// Critical pods are ranked but never evicted.
	Critical bool
}

// Explain returns a sentence saying why the pod ranks where it does.
func (r Ranked) Explain(s Signal) string {
	var b strings.Builder
	b.WriteString(r.Pod.Key())
	if r.Critical {
		b.WriteString(" (critical: never evicted)")
	}
	if r.Stats == nil {
		b.WriteString(": no stats, ranked first")
		if s == SignalPIDAvailable {
			b.WriteString(" within priority ")
			b.WriteString(strconv.Itoa(int(r.Priority)))
		}
		return b.String()
	}
	b.WriteString(": priority ")
	b.WriteString(strconv.Itoa(int(r.Priority)))
	if s == SignalPIDAvailable {
		b.WriteString(", ")
		b.WriteString(strconv.FormatInt(r.Usage/1000, 10))
		b.WriteString(" processes")
		return b.String()
	}
	amount := formatMilli
	if res := s.Resource(); res == ResourceMemory || res == ResourceEphemeralStorage {
		amount = formatBytes
	}
	b.WriteString(", usage ")
	b.WriteString(amount(r.Usage))
	if r.Parts != 0 {
		b.WriteString(" (")
		b.WriteString(r.Parts.String())
		b.WriteString(")")
	}
	if r.Exceeds {
		b.WriteString(" exceeds request ")
	} else {
		b.WriteString(" within request ")
	}
	b.WriteString(amount(r.Request))
	b.WriteString(", excess ")
	b.WriteString(amount(r.Excess))
	return b.String()
}

// formatBytes prints a milli-byte amount as kubectl writes a quantity of
// bytes: 1Gi, 512Mi, 10737418400 (no binary suffix divides it).
func formatBytes(m int64) string {
	if m%1000 != 0 {
		return formatMilli(m)
	}
	return quantity.Bytes(m / 1000)
}

// formatMilli prints a milli-unit amount in whole units, with a fraction
// only when there is one.
func formatMilli(m int64) string {
	s := strconv.FormatInt(m/1000, 10)
	if f := m % 1000; f != 0 {
		if f < 0 {
			f = -f
			if m > -1000 {
				s = "-" + s
			}
		}
		s += "." + strings.TrimRight(strconv.FormatInt(1000+f, 10)[1:], "0")
	}
	return s
}

// RankOptions change the ranking from upstream's.
//
// The zero value is upstream's ranking.
type RankOptions struct {
	// InodeExcessIgnoresByteRequest makes the last comparator of the inode
	// signals compare inode use alone. Upstream subtracts the pod's
	// ephemeral-storage byte request from its inode count (a quirk with no
	// upstream issue).
	InodeExcessIgnoresByteRequest bool
}

// Rank orders pods for eviction under pressure on signal, first to evict
// first, as upstream's rank functions do:
//
//   - memory.available and allocatableMemory.available: usage above
//     request first, then lower priority, then larger working set minus
//     memory request;
//   - disk signals (the parts counted depend on the layout, see
//     DiskParts): usage above request first, then lower priority, then
//     larger usage minus ephemeral-storage request;
//   - pid.available: lower priority, then more processes.
//
// A pod without stats goes first in every comparator but priority. QoS
// class plays no part (kubernetes#78561). Pods that tie on all of that are
// ordered by namespace, name and UID, so the result never depends on the
// input order (upstream's sort is unstable there). Critical pods are
// ranked like the others and marked. It returns an ErrUnsupportedSignal
// error for an unknown signal and an ErrInvalidConfig one for an unknown
// layout.
//
// It reads the pods' identity, annotations and priority, their containers'
// memory and ephemeral-storage requests, pod-level resources, overhead and
// volumes (the local ones count toward disk use), and each pod's reading in
// stats, looked up by UID.
func Rank(s Signal, l Layout, pods []core.Pod, stats Stats, opts RankOptions) ([]Ranked, error) {
	if !s.Valid() {
		return nil, wrap(ErrUnsupportedSignal, "unsupported eviction signal "+strconv.Quote(string(s)))
	}
	if !l.valid() {
		return nil, wrap(ErrInvalidConfig, "layout "+l.String()+" is not single, imagefs or split")
	}
	keyed := make([]Ranked, len(pods))
	keys := make([]sortKey, len(pods))
	pid := s == SignalPIDAvailable
	for i := range pods {
		keyed[i] = rankKey(s, l, &pods[i], stats.of(&pods[i]), i, opts)
		keys[i] = packKey(&keyed[i], pid, int32(i))
	}
	slices.SortFunc(keys, keyOrder(pods))
	out := make([]Ranked, len(pods))
	for j, k := range keys {
		out[j] = keyed[k.i]
	}
	return out, nil
}

// sortKey packs a Ranked's comparator chain into two integers, so that the
// sort compares integers and reaches the name tie-break only on full ties.
type sortKey struct {
	k1, k2 uint64
	i      int32
}

// packKey: for memory and disk, k1 = has stats, not exceeding, priority
// (each bit group ordered so smaller goes first) and k2 = excess,
// descending; for pids, k1 = priority then has stats, k2 = usage,
// descending.
func packKey(r *Ranked, pid bool, i int32) sortKey {
	prio := uint64(uint32(r.Priority) ^ 1<<31) // order-preserving
	desc := func(v int64) uint64 { return ^(uint64(v) ^ 1<<63) }
	k := sortKey{i: i}
	if pid {
		k.k1 = prio << 1
		if r.Stats != nil {
			k.k1 |= 1
			k.k2 = desc(r.Usage)
		} else {
			k.k2 = desc(0)
		}
		return k
	}
	k.k1 = prio
	if r.Stats != nil {
		k.k1 |= 1 << 62
	}
	if !r.Exceeds {
		k.k1 |= 1 << 61
	}
	k.k2 = desc(r.Excess)
	return k
}

// rankKey computes what the comparators look at, once per pod.
func rankKey(s Signal, l Layout, p *core.Pod, st *PodStats, i int, opts RankOptions) Ranked {
	r := Ranked{Pod: p, Index: i, Stats: st, Priority: priority(p), Critical: p.IsCritical()}
	if st == nil {
		return r
	}
	res := s.Resource()
	switch res {
	case ResourceMemory:
		r.Usage = milliOf(val(st.WorkingSetBytes))
		r.Request = Request(p, ResourceMemory)
		r.Excess = subSat(r.Usage, r.Request)
	case ResourcePIDs:
		r.Usage = milliOf(val(st.ProcessCount))
	default:
		r.Parts = DiskParts(s, l)
		inodes := res == ResourceInodes
		r.Usage = milliOf(diskUsage(p, st, r.Parts, inodes))
		r.Request = Request(p, res) // 0 for inodes
		sub := r.Request
		if inodes && !opts.InodeExcessIgnoresByteRequest {
			sub = Request(p, ResourceEphemeralStorage)
		}
		r.Excess = subSat(r.Usage, sub)
	}
	r.Exceeds = r.Usage > r.Request && res != ResourcePIDs
	return r
}

// keyOrder is the ranking order over packed keys of pods: the comparator
// chain, then namespace, name and UID.
func keyOrder(pods []core.Pod) func(a, b sortKey) int {
	return func(a, b sortKey) int {
		if a.k1 != b.k1 {
			return cmp.Compare(a.k1, b.k1)
		}
		if a.k2 != b.k2 {
			return cmp.Compare(a.k2, b.k2)
		}
		return tieBreak(&pods[a.i], &pods[b.i])
	}
}

func cmpTrueFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// tieBreak orders pods that tie on every comparator by namespace, name
// and UID.
func tieBreak(a, b *core.Pod) int {
	return podorder.CompareIdentity(a.Namespace, a.Name, a.UID, b.Namespace, b.Name, b.UID)
}
