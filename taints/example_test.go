package taints_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/taints"
)

func ExampleToleration_ToleratesTaint() {
	gpu := taints.Taint{Key: "example.com/gpu", Value: "a100", Effect: taints.TaintEffectNoSchedule}

	exact := taints.Toleration{Key: "example.com/gpu", Operator: taints.TolerationOpEqual, Value: "a100", Effect: taints.TaintEffectNoSchedule}
	anyValue := taints.Toleration{Key: "example.com/gpu", Operator: taints.TolerationOpExists}
	wrongEffect := taints.Toleration{Key: "example.com/gpu", Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute}
	everything := taints.Toleration{Operator: taints.TolerationOpExists}

	fmt.Println(exact.ToleratesTaint(&gpu))
	fmt.Println(anyValue.ToleratesTaint(&gpu))
	fmt.Println(wrongEffect.ToleratesTaint(&gpu))
	fmt.Println(everything.ToleratesTaint(&gpu))
	// Output:
	// true
	// true
	// false
	// true
}

func ExampleMatcher() {
	// KEP-5471: a node advertises its SLA as an integer taint value; a pod
	// tolerates nodes whose SLA is greater than 950.
	sla := taints.Taint{Key: "example.com/sla", Value: "999", Effect: taints.TaintEffectNoSchedule}
	tol := taints.Toleration{Key: "example.com/sla", Operator: taints.TolerationOpGt, Value: "950", Effect: taints.TaintEffectNoSchedule}

	fmt.Println("gate off:", tol.ToleratesTaint(&sla), tol.Validate() != nil)
	m := taints.Matcher{ComparisonOperators: true}
	fmt.Println("gate on: ", m.ToleratesTaint(&tol, &sla), m.ValidateToleration(tol) != nil)
	// Output:
	// gate off: false true
	// gate on:  true false
}

func ExampleFindMatchingUntoleratedTaint() {
	nodeTaints := []taints.Taint{
		{Key: "example.com/maintenance", Effect: taints.TaintEffectPreferNoSchedule},
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute},
		{Key: "example.com/dedicated", Value: "db", Effect: taints.TaintEffectNoSchedule},
	}
	podTolerations := taints.DefaultNoExecuteTolerations()

	// The scheduler only looks at NoSchedule and NoExecute taints.
	hard := func(t taints.Taint) bool { return t.Effect != taints.TaintEffectPreferNoSchedule }
	t, found := taints.FindMatchingUntoleratedTaint(nodeTaints, podTolerations, hard)
	fmt.Println(found, t)

	fmt.Println(taints.TolerationsTolerateTaint(podTolerations, &nodeTaints[1]))
	// Output:
	// true example.com/dedicated=db:NoSchedule
	// true
}

func ExampleParseTaints() {
	add, remove, err := taints.ParseTaints([]string{"dedicated=db:NoSchedule", "example.com/gpu:NoExecute", "maintenance-"})
	fmt.Println(add, remove, err)

	_, _, err = taints.ParseTaints([]string{"dedicated=db"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, taints.ErrInvalidKey))
	// Output:
	// [dedicated=db:NoSchedule example.com/gpu:NoExecute] [maintenance] <nil>
	// taints: invalid taint spec "dedicated=db": key "dedicated=db": invalid key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')
	// true
}

func ExampleParse() {
	// The kubelet's --register-with-taints flag.
	ts, err := taints.Parse("node-role.kubernetes.io/control-plane:NoSchedule,example.com/tier=edge:PreferNoSchedule")
	fmt.Println(ts, err)

	// Like upstream, Parse accepts a bare key; the API server would not.
	ts, _ = taints.Parse("pending")
	fmt.Println(taints.ValidateTaints(ts))
	// Output:
	// [node-role.kubernetes.io/control-plane:NoSchedule example.com/tier=edge:PreferNoSchedule] <nil>
	// taints: [0].effect "": missing effect: a node taint needs one of NoSchedule, PreferNoSchedule, NoExecute
}

func ExampleTaint_String() {
	fmt.Println(taints.Taint{Key: "k", Value: "v", Effect: taints.TaintEffectNoExecute})
	fmt.Println(taints.Taint{Key: taints.TaintNodeUnschedulable, Effect: taints.TaintEffectNoSchedule})
	// Output:
	// k=v:NoExecute
	// node.kubernetes.io/unschedulable:NoSchedule
}

func ExampleTaint_Validate() {
	err := taints.Taint{Key: "bad key", Effect: "Sometimes"}.Validate()
	fmt.Println(err)
	fmt.Println(errors.Is(err, taints.ErrInvalidEffect))
	// Output:
	// taints: key "bad key": invalid key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')
	// taints: effect "Sometimes": invalid effect: supported: NoSchedule, PreferNoSchedule, NoExecute
	// true
}

func ExampleToleration_Validate() {
	seconds := int64(60)
	err := taints.Toleration{Operator: taints.TolerationOpEqual, Value: "x", Effect: taints.TaintEffectNoSchedule, TolerationSeconds: &seconds}.Validate()
	fmt.Println(err)
	// Output:
	// taints: operator "Equal": invalid operator: operator must be Exists when key is empty (which means match all keys and values)
	// taints: tolerationSeconds "60": invalid tolerationSeconds: effect must be NoExecute when tolerationSeconds is set, not "NoSchedule"
}

func ExampleValidateTaints() {
	err := taints.ValidateTaints([]taints.Taint{
		{Key: "a", Value: "1", Effect: taints.TaintEffectNoSchedule},
		{Key: "a", Value: "2", Effect: taints.TaintEffectNoSchedule},
	})
	fmt.Println(err)
	// Output:
	// taints: [1] "a=2:NoSchedule": duplicate taint: same key and effect as [0]; taints must be unique by key and effect
}

func ExampleDiff() {
	old := []taints.Taint{
		{Key: taints.TaintNodeNotReady, Effect: taints.TaintEffectNoSchedule},
		{Key: "example.com/keep", Value: "1", Effect: taints.TaintEffectNoSchedule},
	}
	next := []taints.Taint{
		{Key: "example.com/keep", Value: "2", Effect: taints.TaintEffectNoSchedule}, // same (key, effect): no change
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoSchedule},
	}
	add, remove := taints.Diff(old, next)
	fmt.Println("add:", add)
	fmt.Println("remove:", remove)
	// Output:
	// add: [node.kubernetes.io/unreachable:NoSchedule]
	// remove: [node.kubernetes.io/not-ready:NoSchedule]
}

func ExampleApply() {
	node := []taints.Taint{
		{Key: "maintenance", Effect: taints.TaintEffectNoSchedule},
		{Key: "maintenance", Effect: taints.TaintEffectNoExecute},
		{Key: "dedicated", Value: "db", Effect: taints.TaintEffectNoSchedule},
	}
	// kubectl taint nodes n1 maintenance- dedicated=cache:NoSchedule
	add, remove, _ := taints.ParseTaints([]string{"maintenance-", "dedicated=cache:NoSchedule"})
	fmt.Println(taints.Apply(node, add, remove))
	// Output:
	// [dedicated=cache:NoSchedule]
}

func ExampleAddOrUpdate() {
	ts := []taints.Taint{{Key: "k", Value: "1", Effect: taints.TaintEffectNoSchedule}}
	ts, updated := taints.AddOrUpdate(ts, taints.Taint{Key: "k", Value: "2", Effect: taints.TaintEffectNoSchedule})
	fmt.Println(ts, updated)
	ts, updated = taints.AddOrUpdate(ts, taints.Taint{Key: "k", Value: "2", Effect: taints.TaintEffectNoSchedule})
	fmt.Println(ts, updated)
	// Output:
	// [k=2:NoSchedule] true
	// [k=2:NoSchedule] false
}

func ExampleExists() {
	ts := []taints.Taint{{Key: taints.TaintNodeOutOfService, Value: "nodeshutdown", Effect: taints.TaintEffectNoExecute}}
	fmt.Println(taints.Exists(ts, taints.Taint{Key: taints.TaintNodeOutOfService, Effect: taints.TaintEffectNoExecute}))
	fmt.Println(taints.Exists(ts, taints.Taint{Key: taints.TaintNodeOutOfService, Effect: taints.TaintEffectNoSchedule}))
	// Output:
	// true
	// false
}

func ExampleDelete() {
	ts := []taints.Taint{
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoSchedule},
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute},
	}
	rest, removed := taints.Delete(ts, taints.Taint{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute})
	fmt.Println(rest, removed)
	rest, removed = taints.DeleteByKey(ts, taints.TaintNodeUnreachable)
	fmt.Println(rest, removed)
	// Output:
	// [node.kubernetes.io/unreachable:NoSchedule] true
	// [] true
}

func ExampleFilter() {
	ts := []taints.Taint{
		{Key: "a", Effect: taints.TaintEffectNoSchedule},
		{Key: "b", Effect: taints.TaintEffectNoExecute},
	}
	fmt.Println(taints.Filter(ts, func(t taints.Taint) bool { return t.Effect == taints.TaintEffectNoExecute }))
	// Output:
	// [b:NoExecute]
}

func ExampleDefaultNoExecuteTolerations() {
	for _, tol := range taints.DefaultNoExecuteTolerations() {
		fmt.Printf("%s %s %s %ds\n", tol.Key, tol.Operator, tol.Effect, *tol.TolerationSeconds)
	}
	// Output:
	// node.kubernetes.io/not-ready Exists NoExecute 300s
	// node.kubernetes.io/unreachable Exists NoExecute 300s
}

func ExampleWithDefaultTolerationSeconds() {
	// A pod that already tolerates not-ready for 60s only gets unreachable.
	sixty := int64(60)
	tols := []taints.Toleration{{Key: taints.TaintNodeNotReady, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &sixty}}
	for _, tol := range taints.WithDefaultTolerationSeconds(tols, taints.DefaultTolerationSeconds, taints.DefaultTolerationSeconds) {
		fmt.Printf("%s %ds\n", tol.Key, *tol.TolerationSeconds)
	}
	// Output:
	// node.kubernetes.io/not-ready 60s
	// node.kubernetes.io/unreachable 300s
}

func ExampleDaemonSetTolerations() {
	for _, tol := range taints.DaemonSetTolerations(false) {
		fmt.Println(tol.Key, tol.Effect, tol.TolerationSeconds == nil)
	}
	// Output:
	// node.kubernetes.io/not-ready NoExecute true
	// node.kubernetes.io/unreachable NoExecute true
	// node.kubernetes.io/disk-pressure NoSchedule true
	// node.kubernetes.io/memory-pressure NoSchedule true
	// node.kubernetes.io/pid-pressure NoSchedule true
	// node.kubernetes.io/unschedulable NoSchedule true
}

func ExampleAddOrUpdateToleration() {
	thirty := int64(30)
	tols := taints.DefaultNoExecuteTolerations()
	tols, updated := taints.AddOrUpdateToleration(tols, taints.Toleration{
		Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &thirty,
	})
	fmt.Println(updated, *tols[0].TolerationSeconds, *tols[1].TolerationSeconds)
	// Output:
	// true 300 30
}

func ExampleTaint_MatchTaint() {
	a := taints.Taint{Key: "k", Value: "1", Effect: taints.TaintEffectNoSchedule}
	b := taints.Taint{Key: "k", Value: "2", Effect: taints.TaintEffectNoSchedule}
	fmt.Println(a.MatchTaint(b))
	// Output:
	// true
}

func ExampleEffect_Valid() {
	fmt.Println(taints.TaintEffectNoExecute.Valid(), taints.Effect("").Valid(), taints.Effect("NoScheduleNoAdmit").Valid())
	// Output:
	// true false false
}

func ExampleFromConditions() {
	conds := []conditions.Condition{
		{Type: conditions.Ready, Status: conditions.Unknown},
		{Type: conditions.DiskPressure, Status: conditions.True},
		{Type: conditions.NetworkUnavailable, Status: conditions.False},
	}
	fmt.Println(taints.FromConditions(conds, true))
	// Output:
	// [node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/disk-pressure:NoSchedule node.kubernetes.io/unschedulable:NoSchedule]
}

func ExampleReconcileConditionTaints() {
	node := []taints.Taint{
		{Key: taints.TaintNodeNotReady, Effect: taints.TaintEffectNoSchedule},
		{Key: "example.com/dedicated", Value: "db", Effect: taints.TaintEffectNoSchedule},
	}
	conds := []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}}
	add, remove := taints.ReconcileConditionTaints(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), node, conds, false)
	fmt.Println("add:", add, "remove:", remove)
	// Output:
	// add: [] remove: [node.kubernetes.io/not-ready:NoSchedule]
}

func ExampleIsConditionTaint() {
	fmt.Println(taints.IsConditionTaint(taints.Taint{Key: taints.TaintNodeMemoryPressure, Effect: taints.TaintEffectNoSchedule}))
	fmt.Println(taints.IsConditionTaint(taints.Taint{Key: taints.TaintNodeNotReady, Effect: taints.TaintEffectNoExecute}))
	// Output:
	// true
	// false
}

// The descheduler's RemovePodsViolatingNodeTaints: a node tainted
// dedicated=db:NoSchedule after its pods were placed; the pod without the
// toleration violates it and would be evicted, unless the taint is
// excluded.
func ExampleViolationFilter() {
	nodeTaints := []taints.Taint{{Key: "dedicated", Value: "db", Effect: taints.TaintEffectNoSchedule}}
	var pod []taints.Toleration // no tolerations
	if t, ok := (taints.ViolationFilter{}).Violation(pod, nodeTaints); ok {
		fmt.Println("violates", t)
	}
	_, ok := taints.ViolationFilter{ExcludedTaints: []string{"dedicated=db"}}.Violation(pod, nodeTaints)
	fmt.Println("violates with dedicated=db excluded:", ok)
	// Output:
	// violates dedicated=db:NoSchedule
	// violates with dedicated=db excluded: false
}
