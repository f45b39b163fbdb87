package admission_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/admission"
	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifetest"
)

// drawPod draws one pod from nodelifetest, named after i.
func drawPod(t *rapid.T, i int) *core.Pod {
	p := nodelifetest.OnePod(nodelifetest.Options{}).Draw(t, "pod")
	p.Name, p.UID = fmt.Sprintf("p%d", i), fmt.Sprintf("u%d", i)
	return &p
}

func drawNode(t *rapid.T) core.Node {
	return nodelifetest.AdmissionNodes(nodelifetest.Options{}).Draw(t, "node")
}

// value is what cgroup.PodRequests gives p of name: millicores for cpu.
func value(p *core.Pod, name core.ResourceName) int64 {
	q := cgroup.PodRequests(*p, cgroup.QOSOptions{})[name]
	if name == core.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

func allocValue(n core.Node, name core.ResourceName) int64 {
	q := n.Allocatable[name]
	if name == core.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// Admitting pods one at a time (without preemption) never takes a node past
// its allocatable: for every resource the node lists, the admitted pods'
// requests sum to at most its allocatable, and their number to at most its
// pods.
func TestPropertyAdmitWithinAllocatable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := drawNode(t)
		ni := admission.NewNodeInfo(n, admission.Options{})
		for i := rapid.IntRange(0, 20).Draw(t, "pods"); i > 0; i-- {
			p := drawPod(t, i)
			p.Priority, p.Annotations = nil, nil // not critical: no preemption here
			if d := ni.Admit(p); d.Admit {
				ni.AddPod(p)
			}
		}
		if got, max := int64(len(ni.Pods())), allocValue(n, core.ResourcePods); got > max {
			t.Fatalf("%d pods admitted, allocatable %d", got, max)
		}
		for name := range n.Allocatable {
			if name == core.ResourcePods {
				continue
			}
			var sum int64
			for _, p := range ni.Pods() {
				sum += value(p, name)
			}
			if max := allocValue(n, name); sum > max {
				t.Fatalf("%s: admitted pods request %d, allocatable %d", name, sum, max)
			}
		}
	})
}

// A pod admitted stays admitted when other pods are removed: removal only
// frees resources and ports. And the NodeInfo kept up to date by AddPod and
// RemovePod judges as one built afresh from the remaining pods.
func TestPropertyRemovalKeepsAdmission(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := drawNode(t)
		var pods []*core.Pod
		for i := rapid.IntRange(0, 10).Draw(t, "pods"); i > 0; i-- {
			pods = append(pods, drawPod(t, i))
		}
		ni := admission.NewNodeInfo(n, admission.Options{}, pods...)
		p := drawPod(t, 100)
		before := ni.Admit(p)
		var left []*core.Pod
		for _, q := range pods {
			if rapid.Bool().Draw(t, "remove "+q.Name) {
				if !ni.RemovePod(q.UID) {
					t.Fatalf("RemovePod(%s) found nothing", q.UID)
				}
			} else {
				left = append(left, q)
			}
		}
		after := ni.Admit(p)
		if before.Admit && len(before.Preempt) == 0 && (!after.Admit || len(after.Preempt) > 0) {
			t.Fatalf("admitted before removals, then %+v", after)
		}
		fresh := admission.NewNodeInfo(n, admission.Options{}, left...)
		if got, want := fmt.Sprint(ni.Filter(p, nil)), fmt.Sprint(fresh.Filter(p, nil)); got != want {
			t.Fatalf("after removals: %s, afresh: %s", got, want)
		}
	})
}

// Preemption frees at least each shortfall, as the kubelet counts requests,
// and never evicts a critical pod of a priority at least the preemptor's.
func TestPropertyPreemptFreesShortfall(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var running []*core.Pod
		for i := rapid.IntRange(0, 10).Draw(t, "pods"); i > 0; i-- {
			running = append(running, drawPod(t, i))
		}
		p := drawPod(t, 100)
		prio := core.SystemCriticalPriority
		p.Priority = &prio
		var needs []admission.Need
		for _, name := range []core.ResourceName{core.ResourceCPU, core.ResourceMemory, core.ResourcePods} {
			if rapid.Bool().Draw(t, "need "+string(name)) {
				needs = append(needs, admission.Need{Resource: name, Amount: rapid.Int64Range(1, 3000).Draw(t, "amount")})
			}
		}
		victims, err := admission.Preempt(p, running, needs, admission.Options{})
		if err != nil {
			return
		}
		for _, v := range victims {
			// A critical pod goes only to a higher priority, as upstream's
			// Preemptable allows (a static pod of priority 0 is critical
			// and yet preemptable by a system-critical pod).
			if v.IsCritical() && (v.Priority == nil || *v.Priority >= *p.Priority) {
				t.Fatalf("critical pod %s preempted", v.Name)
			}
		}
		for _, need := range needs {
			var freed int64
			for _, v := range victims {
				freed += admission.PreemptRequest(v, need.Resource, admission.Options{})
			}
			if freed < need.Amount {
				t.Fatalf("%s: freed %d of %d", need.Resource, freed, need.Amount)
			}
		}
	})
}

// The requests of one pod computed once (RequestsOf) judge it on any
// number of nodes as Filter does on each, whatever extended resources the
// nodes list or drop; the shared requests are not changed by the nodes.
func TestPropertyFilterRequestsIsFilter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := drawPod(t, 0)
		opts := admission.Options{}
		r := admission.RequestsOf(p, opts)
		for k := rapid.IntRange(1, 6).Draw(t, "nodes"); k > 0; k-- {
			var pods []*core.Pod
			for i := rapid.IntRange(0, 4).Draw(t, "pods"); i > 0; i-- {
				pods = append(pods, drawPod(t, i))
			}
			ni := admission.NewNodeInfo(drawNode(t), opts, pods...)
			if got, want := fmt.Sprint(ni.FilterRequests(p, &r, nil)), fmt.Sprint(ni.Filter(p, nil)); got != want {
				t.Fatalf("FilterRequests: %s, Filter: %s", got, want)
			}
		}
	})
}
