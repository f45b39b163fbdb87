package readiness

import (
	"fmt"
	"testing"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/taints"
)

// benchNodes returns n nodes of pool a, one in ten not ready and one in
// ten tainted.
func benchNodes(n int) []core.Node {
	nodes := make([]core.Node, n)
	for i := range nodes {
		status := conditions.True
		if i%10 == 3 {
			status = conditions.False
		}
		nodes[i] = core.Node{Name: fmt.Sprintf("n%06d", i), Labels: map[string]string{"pool": "a", "kubernetes.io/hostname": fmt.Sprintf("n%06d", i)},
			Conditions: []conditions.Condition{{Type: "Ready", Status: conditions.True}, {Type: "cni.example.com/Ready", Status: status}}}
		if i%10 == 5 {
			nodes[i].Taints = []taints.Taint{cniTaint}
		}
	}
	return nodes
}

// One continuous rule over every node: a rule event.
func BenchmarkPlanRule(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		nodes := benchNodes(n)
		r := cniRule(Continuous)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				PlanRule(r, nodes, nil, Options{})
			}
		})
	}
}

// Many rules over one node: a node event.
func BenchmarkPlanNode(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		rules := make([]Rule, n)
		for i := range rules {
			rules[i] = cniRule(Continuous)
			rules[i].Name = fmt.Sprintf("r%03d", i)
			rules[i].Taint.Key = fmt.Sprintf("readiness.k8s.io/r%03d", i)
		}
		nd := benchNodes(4)[3]
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				PlanNode(rules, nd, nil, Options{})
			}
		})
	}
}
