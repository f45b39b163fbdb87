package pressure

// Plan is a what-if answer beyond upstream: which pods, evicted in ranking
// order, would bring a signal back above its threshold plus minimum
// reclaim. Upstream evicts one pod per cycle (10 s, plus up to 30 s of
// cleanup) and re-observes; a plan shows the whole way at once.
type Plan struct {
	// Threshold is the threshold planned for.
	Threshold Threshold
	// Need is how much must be freed: threshold quantity + minimum reclaim
	// - available, in the signal's unit (bytes, inodes or PIDs); <= 0
	// means nothing needs to go.
	Need int64
	// Pods are the pods to evict, in order.
	Pods []Ranked
	// Freed is what evicting Pods frees by their current usage.
	Freed int64
	// Enough reports Freed >= Need. It is false when the non-critical pods
	// do not use enough, and when the signal's usage is not attributed to
	// pods (an imagefs signal on a split layout counts images only, which
	// no pod reading holds).
	Enough bool
}

// PlanEvictions plans for threshold t against observation o: it walks the
// ranking (from Rank for t's signal), skips critical pods, and takes pods
// until their usage covers the shortfall. Pods without stats are taken
// when they come up (upstream evicts them first) but free nothing known.
// The estimate assumes an evicted pod frees its current usage at once.
func PlanEvictions(t Threshold, o Observation, ranked []Ranked) Plan {
	q := t.Value.quantity(o.Capacity)
	if t.MinReclaim != nil {
		q.Add(t.MinReclaim.quantity(o.Capacity))
	}
	need := subSat(milli(q)/1000, o.Available)
	if q.Sign() > 0 && milli(q)%1000 != 0 {
		need = addSat(need, 1) // a fractional quantity needs one more whole unit
	}
	p := Plan{Threshold: t, Need: need}
	for i := range ranked {
		if p.Freed >= p.Need {
			break
		}
		if ranked[i].Critical {
			continue
		}
		p.Pods = append(p.Pods, ranked[i])
		p.Freed = addSat(p.Freed, ranked[i].Usage/1000)
	}
	p.Enough = p.Freed >= p.Need
	return p
}
