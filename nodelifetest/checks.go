package nodelifetest

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/shutdown"
)

func checkErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvariant, fmt.Sprintf(format, args...))
}

// CheckPressureResult checks that a node-pressure eviction step never
// selects a critical pod (static, mirror, or priority at least
// core.SystemCriticalPriority), for a threshold or for local storage,
// and that its ranking is in upstream's order (CheckRanking).
func CheckPressureResult(r pressure.Result) error {
	if e := r.Decision.Evict; e != nil && e.Pod != nil && e.Pod.IsCritical() {
		return checkErr("critical pod %s selected for eviction", e.Pod.Key())
	}
	for _, e := range r.Decision.LocalStorage {
		if e.Pod != nil && e.Pod.IsCritical() {
			return checkErr("critical pod %s evicted for local storage", e.Pod.Key())
		}
	}
	if r.Decision.Threshold != nil {
		return CheckRanking(r.Decision.Threshold.Signal, r.Decision.Ranked)
	}
	return nil
}

// CheckRanking checks that ranked is in the kubelet's eviction order for
// signal s: for memory and disk signals, pods without stats first, then
// usage above request, then lower priority, then larger excess; for
// pid.available, lower priority, then pods without stats, then more
// processes; ties by namespace, name and UID. Priority and the presence
// of stats are read from the pods themselves; usage, request and excess
// from the ranking's records.
func CheckRanking(s pressure.Signal, ranked []pressure.Ranked) error {
	for i := 1; i < len(ranked); i++ {
		a, b := &ranked[i-1], &ranked[i]
		if a.Pod == nil || b.Pod == nil {
			return checkErr("ranked entry %d has no pod", i)
		}
		if c := compareRanked(s, a, b); c > 0 {
			return checkErr("%s ranked before %s for %s: %s / %s", a.Pod.Key(), b.Pod.Key(), s, a.Explain(s), b.Explain(s))
		}
	}
	return nil
}

func compareRanked(s pressure.Signal, a, b *pressure.Ranked) int {
	prio := func(p *core.Pod) int32 {
		if p.Priority == nil {
			return 0
		}
		return *p.Priority
	}
	noStats := func(r *pressure.Ranked) bool { return r.Stats == nil }
	bothStats := func(next func() int) int {
		if noStats(a) || noStats(b) {
			return -cmp.Compare(boolInt(noStats(a)), boolInt(noStats(b)))
		}
		return next()
	}
	identity := cmp.Or(cmp.Compare(a.Pod.Namespace, b.Pod.Namespace), cmp.Compare(a.Pod.Name, b.Pod.Name), cmp.Compare(a.Pod.UID, b.Pod.UID))
	if s == pressure.SignalPIDAvailable {
		return cmp.Or(cmp.Compare(prio(a.Pod), prio(b.Pod)), bothStats(func() int { return cmp.Compare(b.Usage, a.Usage) }), identity)
	}
	return cmp.Or(
		bothStats(func() int { return -cmp.Compare(boolInt(a.Usage > a.Request), boolInt(b.Usage > b.Request)) }),
		cmp.Compare(prio(a.Pod), prio(b.Pod)),
		bothStats(func() int { return cmp.Compare(b.Excess, a.Excess) }),
		identity)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CheckShutdownPlan checks a graceful shutdown plan against its config and
// pods: phases run in ascending priority, back to back, each within its
// period; every running pod is in exactly one phase, the one of the
// highest configured priority not above the pod's (the first phase for a
// pod below them all), killed with a grace period no longer than the
// phase's (when the phase has one) or its own; and Total is the sum of
// the periods of the phases with pods.
func CheckShutdownPlan(cfg shutdown.Config, pods []core.Pod, p shutdown.Plan) error {
	phases := cfg.Phases()
	if len(p.Phases) != len(phases) {
		return checkErr("plan has %d phases, config %d", len(p.Phases), len(phases))
	}
	var at, total time.Duration
	where := map[string]int{}
	for i, ph := range p.Phases {
		if i > 0 && ph.Priority < p.Phases[i-1].Priority {
			return checkErr("phase %d (priority %d) runs after phase %d (priority %d)", i, ph.Priority, i-1, p.Phases[i-1].Priority)
		}
		period := max(ph.Period(), 0)
		if ph.Skipped() {
			period = 0
		}
		if ph.Start != at || ph.Deadline-ph.Start != period {
			return checkErr("phase %d (priority %d) runs %v..%v, want %v..%v", i, ph.Priority, ph.Start, ph.Deadline, at, at+period)
		}
		at, total = ph.Deadline, total+period
		for _, pp := range ph.Pods {
			key := pp.Pod.Key()
			if _, dup := where[key]; dup {
				return checkErr("pod %s in two phases", key)
			}
			where[key] = i
			if ph.ShutdownGracePeriodSeconds > 0 && pp.GracePeriodSeconds > ph.ShutdownGracePeriodSeconds {
				return checkErr("pod %s killed with %ds in phase %d of %ds", key, pp.GracePeriodSeconds, i, ph.ShutdownGracePeriodSeconds)
			}
			if g := pp.Pod.TerminationGracePeriodSeconds; g != nil && *g >= 0 && pp.GracePeriodSeconds > *g {
				return checkErr("pod %s killed with %ds, more than its own %ds", key, pp.GracePeriodSeconds, *g)
			}
		}
	}
	if total != p.Total {
		return checkErr("plan total %v, phases with pods take %v", p.Total, total)
	}
	for _, pod := range pods {
		if len(phases) == 0 {
			break // graceful shutdown is off: no pod is planned
		}
		if pod.Phase != core.PodRunning && pod.Phase != "" {
			continue
		}
		i, ok := where[pod.Key()]
		if !ok {
			return checkErr("pod %s in no phase", pod.Key())
		}
		prio, _ := cfg.PodPriority(pod)
		want := 0
		for j, ph := range phases {
			if ph.Priority <= prio {
				want = j
			}
		}
		if phases[want].Priority != phases[i].Priority {
			return checkErr("pod %s of priority %d in phase %d (priority %d), want priority %d", pod.Key(), prio, i, phases[i].Priority, phases[want].Priority)
		}
	}
	return nil
}

// CheckCascade checks that a cascading deletion removed no object before
// its owners' propagation policies allowed, replaying res.Steps over
// objects:
//   - an object deleted in the foreground is not removed while another
//     object still holds a blocking reference to it;
//   - an object deleted with the Orphan policy is not removed while
//     another object still holds a reference to it (its dependents are
//     orphaned first);
//   - the collector (rounds after the caller's delete) deletes an object
//     only when none of its owner references names a live owner: one that
//     exists at the reference's kind, name and namespace with its UID and
//     is not being deleted.
func CheckCascade(objects []gc.Object, res gc.CascadeResult) error {
	type state struct {
		obj     gc.Object
		policy  metav1.DeletionPropagation
		present bool
	}
	st := map[types.UID]*state{}
	for _, o := range objects {
		o.OwnerReferences = slices.Clone(o.OwnerReferences)
		st[o.UID] = &state{obj: o, present: true}
	}
	live := func(dependent *gc.Object, r metav1.OwnerReference) bool {
		s := st[r.UID]
		if s == nil || !s.present || s.obj.DeletionTimestamp != nil {
			return false
		}
		o := &s.obj
		return o.APIVersion == r.APIVersion && o.Kind == r.Kind && o.Name == r.Name && (o.Namespace == "" || o.Namespace == dependent.Namespace)
	}
	holders := func(u types.UID, blockingOnly bool) string {
		var out []string
		for _, s := range st {
			if !s.present {
				continue
			}
			for _, r := range s.obj.OwnerReferences {
				if r.UID == u && (!blockingOnly || r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion) {
					out = append(out, s.obj.Name)
				}
			}
		}
		slices.Sort(out)
		if len(out) == 0 {
			return ""
		}
		return fmt.Sprint(out)
	}
	for _, step := range res.Steps {
		s := st[step.Object.UID]
		if s == nil {
			return checkErr("step %q on an unknown object", step)
		}
		switch step.Op {
		case gc.OpDelete:
			if step.Round > 0 && s.obj.DeletionTimestamp == nil {
				for _, r := range s.obj.OwnerReferences {
					if live(&s.obj, r) {
						return checkErr("%q while its owner %s/%s (%s) is live", step, r.Kind, r.Name, r.UID)
					}
				}
			}
			if s.obj.DeletionTimestamp == nil {
				s.obj.DeletionTimestamp = &metav1.Time{}
				s.policy = step.Policy
			}
		case gc.OpRemoveRefs:
			s.obj.OwnerReferences = slices.DeleteFunc(s.obj.OwnerReferences, func(r metav1.OwnerReference) bool { return slices.Contains(step.Owners, r.UID) })
		case gc.OpUnblockRefs:
			for i := range s.obj.OwnerReferences {
				s.obj.OwnerReferences[i].BlockOwnerDeletion = nil
			}
		case gc.OpRemoved:
			s.present = false
			switch s.policy {
			case metav1.DeletePropagationForeground:
				if h := holders(step.Object.UID, true); h != "" {
					return checkErr("%q while %s still block it", step, h)
				}
			case metav1.DeletePropagationOrphan:
				if h := holders(step.Object.UID, false); h != "" {
					return checkErr("%q while %s still reference it", step, h)
				}
			}
		}
	}
	return nil
}
