package taints

// The helpers below treat a []Taint as a set keyed by (Key, Effect), as
// upstream's pkg/util/taints does: two taints with the same key and effect are
// the same taint, whatever their values. They never modify their arguments;
// results are new slices (nil when empty).

// Exists reports whether ts holds a taint with t's key and effect.
func Exists(ts []Taint, t Taint) bool {
	return indexOf(ts, t) >= 0
}

func indexOf(ts []Taint, t Taint) int {
	for i := range ts {
		if ts[i].Key == t.Key && ts[i].Effect == t.Effect {
			return i
		}
	}
	return -1
}

// Delete returns ts without the taints that have t's key and effect, and
// whether any was removed.
func Delete(ts []Taint, t Taint) ([]Taint, bool) {
	return deleteIf(ts, func(x *Taint) bool { return x.MatchTaint(t) })
}

// DeleteByKey returns ts without the taints whose key is key, whatever their
// effect, and whether any was removed.
func DeleteByKey(ts []Taint, key string) ([]Taint, bool) {
	return deleteIf(ts, func(x *Taint) bool { return x.Key == key })
}

func deleteIf(ts []Taint, drop func(*Taint) bool) ([]Taint, bool) {
	var out []Taint
	removed := false
	for i := range ts {
		if drop(&ts[i]) {
			removed = true
			continue
		}
		out = append(out, ts[i])
	}
	return out, removed
}

// AddOrUpdate returns ts with t added, or with the taint of the same key and
// effect replaced by t, as upstream's AddOrUpdateTaint. updated is false, and
// the result holds the same taints as ts, when ts already holds a taint equal
// to t in every field (TimeAdded compared with time.Time.Equal).
func AddOrUpdate(ts []Taint, t Taint) (out []Taint, updated bool) {
	return addOrUpdate(ts, t, Taint.MatchTaint, func(a, b Taint) bool {
		return a.Value == b.Value && a.TimeAdded.Equal(b.TimeAdded)
	})
}

// addOrUpdate is the add-or-replace rule shared by taints and tolerations:
// every element that matches x is replaced by x, or x is appended if none
// matches; when a matching element already equals x the result holds xs
// unchanged and updated is false.
func addOrUpdate[T any](xs []T, x T, match, equal func(a, b T) bool) (out []T, updated bool) {
	out = make([]T, 0, len(xs)+1)
	replaced := false
	for i := range xs {
		if !match(xs[i], x) {
			out = append(out, xs[i])
			continue
		}
		if equal(xs[i], x) {
			return append(out[:0], xs...), false
		}
		out = append(out, x)
		replaced = true
	}
	if !replaced {
		out = append(out, x)
	}
	return out, true
}

// Diff returns what turns old into new, compared by key and effect, as
// upstream's TaintSetDiff(new, old): add holds the taints of new that old
// lacks, remove the taints of old that new lacks, each in its list's order.
// A taint present in both with different values is in neither list.
func Diff(old, new []Taint) (add, remove []Taint) {
	for _, t := range new {
		if !Exists(old, t) {
			add = append(add, t)
		}
	}
	for _, t := range old {
		if !Exists(new, t) {
			remove = append(remove, t)
		}
	}
	return add, remove
}

// Apply returns ts with the removals and then the additions applied: each
// taint in remove deletes the taints with its key and effect (every effect of
// its key when its Effect is empty, as a "key-" spec from ParseTaints), and
// each taint in add is then added or updated with AddOrUpdate. Surviving
// taints keep their order; new ones follow in the order of add.
func Apply(ts, add, remove []Taint) []Taint {
	out := append([]Taint(nil), ts...)
	for _, r := range remove {
		if r.Effect == "" {
			out, _ = DeleteByKey(out, r.Key)
		} else {
			out, _ = Delete(out, r)
		}
	}
	for _, a := range add {
		out, _ = AddOrUpdate(out, a)
	}
	return out
}

// Filter returns the taints of ts for which keep returns true, in order.
func Filter(ts []Taint, keep func(Taint) bool) []Taint {
	out, _ := deleteIf(ts, func(x *Taint) bool { return !keep(*x) })
	return out
}
