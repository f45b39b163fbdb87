package taints

import (
	"fmt"
	"testing"
)

var sinkBool bool

func BenchmarkToleratesTaint(b *testing.B) {
	tol := Toleration{Key: "example.com/dedicated", Operator: TolerationOpEqual, Value: "gpu", Effect: TaintEffectNoSchedule}
	tnt := Taint{Key: "example.com/dedicated", Value: "gpu", Effect: TaintEffectNoSchedule}
	b.Run("op=Equal", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkBool = tol.ToleratesTaint(&tnt)
		}
	})
	gt := Toleration{Key: "example.com/sla", Operator: TolerationOpGt, Value: "950", Effect: TaintEffectNoSchedule}
	sla := Taint{Key: "example.com/sla", Value: "999", Effect: TaintEffectNoSchedule}
	m := Matcher{ComparisonOperators: true}
	b.Run("op=Gt", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkBool = m.ToleratesTaint(&gt, &sla)
		}
	})
}

// benchTaintsTolerations builds n taints and n tolerations with keys of one
// length and a shared prefix (the costly case for string comparison). Taint i
// is tolerated by toleration n-1-i, so a match needs on average n/2 probes;
// with allTolerated false the last taint is tolerated by none, so the search
// scans every pair for it.
func benchTaintsTolerations(n int, allTolerated bool) ([]Taint, []Toleration) {
	taints := make([]Taint, n)
	tols := make([]Toleration, n)
	for i := 0; i < n; i++ {
		taints[i] = Taint{Key: fmt.Sprintf("example.com/taint-%03d", i), Value: fmt.Sprintf("v%03d", i), Effect: effects[i%3]}
		j := n - 1 - i
		tols[j] = Toleration{Key: taints[i].Key, Operator: TolerationOpEqual, Value: taints[i].Value, Effect: taints[i].Effect}
	}
	if !allTolerated {
		tols[0].Value = "other"
	}
	return taints, tols
}

func BenchmarkFindMatchingUntoleratedTaint(b *testing.B) {
	for _, n := range []int{8, 32} {
		for _, all := range []bool{true, false} {
			taints, tols := benchTaintsTolerations(n, all)
			// The scheduler's filter: NoSchedule and NoExecute only.
			hard := func(t Taint) bool { return t.Effect != TaintEffectPreferNoSchedule }
			for _, f := range []struct {
				name   string
				filter func(Taint) bool
			}{{"all", nil}, {"hard", hard}} {
				b.Run(fmt.Sprintf("taints=%d/tolerations=%d/allTolerated=%v/filter=%s", n, n, all, f.name), func(b *testing.B) {
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						_, sinkBool = FindMatchingUntoleratedTaint(taints, tols, f.filter)
					}
				})
			}
		}
	}
}

func BenchmarkParseTaints(b *testing.B) {
	specs := []string{"example.com/dedicated=gpu:NoSchedule", "node.kubernetes.io/out-of-service=nodeshutdown:NoExecute", "old-"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := ParseTaints(specs); err != nil {
			b.Fatal(err)
		}
	}
}
