package eviction

import (
	"math"
	"testing"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// FuzzZoneKey: any labels give a key that ZoneName can print, and unlabeled
// nodes share "".
func FuzzZoneKey(f *testing.F) {
	f.Add("r", "z", "", "", true)
	f.Add("", "", "a:", "b", false)
	f.Fuzz(func(t *testing.T, br, bz, gr, gz string, beta bool) {
		labels := map[string]string{LabelTopologyRegion: gr, LabelTopologyZone: gz}
		if beta {
			labels[LabelFailureDomainBetaRegion], labels[LabelFailureDomainBetaZone] = br, bz
		}
		k := ZoneKey(labels)
		region, zone := gr, gz
		if beta {
			region, zone = br, bz
		}
		if (region == "" && zone == "") != (k == "") {
			t.Fatalf("key %q for region %q zone %q", k, region, zone)
		}
		_ = ZoneName(k)
	})
}

// FuzzPlanDisruption: arbitrary configs and node lists never panic, and a
// valid config gives one zone plan per zone with counted nodes.
func FuzzPlanDisruption(f *testing.F) {
	f.Add(0.1, 0.01, 50, float32(0.55), []byte{0, 1, 2, 3, 4, 5}, []byte{1, 2})
	f.Add(math.NaN(), -1.0, -3, float32(2), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, rate, secondary float64, large int, th float32, nodeBytes, prevBytes []byte) {
		c := Config{NodeEvictionRate: rate, SecondaryNodeEvictionRate: secondary, LargeClusterSizeThreshold: large, UnhealthyZoneThreshold: th, LargeClusterSizeBy: SizeBasis(large & 1)}
		statuses := []conditions.Status{conditions.True, conditions.False, conditions.Unknown, ""}
		states := []ZoneState{StateInitial, StateNormal, StatePartialDisruption, StateFullDisruption, "junk"}
		var nodes []ZoneNode
		zones := map[string]bool{}
		for i, b := range nodeBytes {
			n := ZoneNode{Name: string(rune('a' + i%26)), Zone: string(rune('a' + int(b>>4)%4)), Ready: statuses[b&3], Excluded: b&4 != 0}
			nodes = append(nodes, n)
			if !n.Excluded {
				zones[n.Zone] = true
			}
		}
		prev := map[string]ZoneStatus{}
		for _, b := range prevBytes {
			prev[string(rune('a'+int(b)%6))] = ZoneStatus{State: states[int(b>>3)%len(states)], Rate: float64(b) / 100}
		}
		p, err := c.PlanDisruption(prev, nodes)
		if err != nil {
			if c.Validate() == nil {
				t.Fatalf("error for a valid config: %v", err)
			}
			return
		}
		if len(p.Zones) != len(zones) || len(p.Next) != len(zones) {
			t.Fatalf("%d zone plans for %d zones", len(p.Zones), len(zones))
		}
		for _, z := range p.Zones {
			if z.Rate < 0 || math.IsNaN(z.Rate) {
				t.Fatalf("rate %v", z.Rate)
			}
		}
	})
}

// FuzzQueue drives a queue and a token bucket with arbitrary operations and
// times: no panic, times going backwards are clamped, and Len matches the
// queued names.
func FuzzQueue(f *testing.F) {
	f.Add(0.1, []byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add(-1.0, []byte{7, 7, 6, 0, 0})
	f.Fuzz(func(t *testing.T, rate float64, ops []byte) {
		q, err := NewRateLimitedQueue(rate, QueueOptions{TokenOnlyForDue: len(ops)%2 != 0, RestartStopped: len(ops)%3 != 0})
		if err != nil {
			return
		}
		now := t0
		queued := map[string]bool{}
		for i, op := range ops {
			name := string(rune('a' + op%5))
			now = now.Add(time.Duration(int8(op)) * 137 * time.Millisecond) // may go back
			switch op >> 5 {
			case 0:
				if q.Add(now, name, "") {
					queued[name] = true
				}
			case 1:
				q.Remove(name)
				delete(queued, name)
			case 2:
				if q.RemoveFromQueue(name) {
					delete(queued, name)
				}
			case 3:
				q.Try(now, func(it Item) (bool, time.Duration) {
					if i%2 == 0 {
						delete(queued, it.Name)
						return true, 0
					}
					return false, time.Duration(op) * time.Millisecond
				})
			case 4:
				_ = q.SetRate(now, float64(op%4)/2)
			case 5:
				if q.Retry(name, "", now) {
					queued[name] = true
				}
			case 6:
				q.Next(now)
			case 7:
				q.Clear()
				clear(queued)
			}
			if q.Len() != len(queued) {
				t.Fatalf("Len %d, tracked %d", q.Len(), len(queued))
			}
		}
	})
}

// FuzzNoExecutePlan: arbitrary taints, tolerations, schedules and times
// never panic; evictions carry the condition; schedules are in the future.
func FuzzNoExecutePlan(f *testing.F) {
	f.Add("node.kubernetes.io/unreachable", "", "NoExecute", "", "Exists", "NoExecute", int64(300), true, int64(0), int64(100), int64(10), uint8(0))
	f.Add("k", "v", "NoExecute", "k", "Equal", "", int64(-1), false, int64(5), int64(0), int64(math.MaxInt64), uint8(3))
	f.Fuzz(func(t *testing.T, key, value, effect, tolKey, op, tolEffect string, seconds int64, finite bool, created, delay, now int64, flags uint8) {
		tt := taints.Taint{Key: key, Value: value, Effect: taints.Effect(effect), TimeAdded: t0.Add(time.Duration(created) * time.Second)}
		tol := taints.Toleration{Key: tolKey, Operator: taints.Operator(op), Value: value, Effect: taints.Effect(tolEffect)}
		if finite {
			tol.TolerationSeconds = &seconds
		}
		var existing *Scheduled
		if flags&1 != 0 {
			c := t0.Add(time.Duration(created) * time.Second)
			existing = &Scheduled{CreatedAt: c, At: c.Add(time.Duration(delay))}
		}
		cfg := NoExecuteConfig{Anchor: Anchor(flags >> 1 & 1), Replan: flags&4 != 0, Matcher: taints.Matcher{ComparisonOperators: flags&8 != 0}}
		n := t0.Add(time.Duration(now))
		d := cfg.Plan(n, []taints.Taint{tt}, core.Pod{Namespace: "ns", Name: "p", Tolerations: []taints.Toleration{tol}}, existing)
		switch d.Action {
		case NoExecuteEvictNow:
			if d.Condition == nil || *d.Condition != TaintEvictionCondition() {
				t.Fatal("eviction without condition")
			}
		case NoExecuteSchedule:
			if existing == nil && !d.At.After(n) {
				t.Fatalf("scheduled at %v, not after now %v", d.At, n)
			}
		case NoExecuteNone, NoExecuteCancel, NoExecuteKeep:
		default:
			t.Fatalf("unknown action %q", d.Action)
		}
	})
}

// FuzzQueueReentrant drives a queue whose Try action itself adds, removes,
// clears, retries, swaps the rate and calls Try, as the bytes say: never a
// panic, and the heap, its indexes, the queued map and the dedupe set stay
// consistent after every operation.
func FuzzQueueReentrant(f *testing.F) {
	f.Add([]byte{0x00, 0x01, 0x02, 0xa1, 0x31, 0x60})       // add a, b, c; Try whose action removes b
	f.Add([]byte{0x00, 0x01, 0xa7, 0xe0, 0x20, 0x40, 0x80}) // Try whose action clears
	f.Add([]byte{0x00, 0xa5, 0xa0, 0xa0, 0x00, 0xc0})       // nested Trys
	f.Fuzz(func(t *testing.T, ops []byte) {
		q, err := NewRateLimitedQueue(1e10, QueueOptions{RestartStopped: true, TokenOnlyForDue: len(ops)%2 != 1})
		if err != nil {
			t.Fatal(err)
		}
		pos := 0
		next := func() (byte, bool) {
			if pos >= len(ops) {
				return 0, false
			}
			pos++
			return ops[pos-1], true
		}
		var do func(op byte, depth int)
		do = func(op byte, depth int) {
			name := string(rune('a' + op%5))
			now := t0.Add(time.Duration(op&0x0f) * time.Second)
			switch op >> 5 {
			case 0:
				q.Add(now, name, name)
			case 1:
				q.Remove(name)
			case 2:
				q.RemoveFromQueue(name)
			case 3:
				q.Retry(name, name, now)
			case 4:
				_ = q.SetRate(now, []float64{0, 0.1, 1, 1e10}[op%4])
			case 5, 6:
				q.Try(now, func(it Item) (bool, time.Duration) {
					// the next byte, if any, is what the action does first
					if b, ok := next(); ok && depth < 3 {
						do(b, depth+1)
					}
					checkHeap(t, q)
					return op&1 == 0, time.Duration(op&0x07) * time.Second
				})
			case 7:
				q.Clear()
			}
			checkHeap(t, q)
		}
		for {
			b, ok := next()
			if !ok {
				break
			}
			do(b, 0)
		}
	})
}
