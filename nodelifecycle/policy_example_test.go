package nodelifecycle_test

import (
	"fmt"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/taints"
)

// edgeCluster is an edge node e-1 (autonomy annotations as given) and a
// cloud node c-1 in zones of their own, one pod on e-1 with the default
// 300 s tolerations.
type edgeCluster struct {
	c     *nodelifecycle.Controller
	start time.Time
}

func newEdgeCluster(policy nodelifecycle.NodePolicy, annotations map[string]string) edgeCluster {
	cfg := nodelifecycle.DefaultConfig()
	cfg.NodePolicy = policy
	return newEdgeClusterFor(cfg, annotations)
}

func newEdgeClusterFor(cfg nodelifecycle.Config, annotations map[string]string) edgeCluster {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c, err := nodelifecycle.New(cfg)
	if err != nil {
		panic(err)
	}
	ready := []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, LastHeartbeatTime: start, LastTransitionTime: start}}
	c.UpsertNode(core.Node{Name: "e-1", Annotations: annotations, Conditions: ready,
		Labels: map[string]string{eviction.LabelTopologyZone: "edge", nodelifecycle.LabelOpenYurtEdgeWorker: "true"}})
	c.UpsertNode(core.Node{Name: "c-1", Conditions: ready, Labels: map[string]string{eviction.LabelTopologyZone: "cloud"}})
	c.UpsertPod(core.Pod{Namespace: "ns", Name: "p", UID: "u", NodeName: "e-1",
		Conditions:  []core.PodCondition{{Type: core.PodReady, Status: conditions.True}},
		Tolerations: taints.WithDefaultTolerationSeconds(nil, 300, 300)})
	return edgeCluster{c: c, start: start}
}

// run steps the cluster every 5 s to end, c-1 renewing throughout and e-1
// only at +0s, calling at first at each instant, and prints the pod's
// actions.
func (e edgeCluster) run(end time.Duration, at func(d time.Duration)) {
	for d := time.Duration(0); d <= end; d += 5 * time.Second {
		now := e.start.Add(d)
		if at != nil {
			at(d)
		}
		if d%(10*time.Second) == 0 {
			e.c.UpsertLease(nodelifecycle.Lease{Node: "c-1", RenewTime: now})
			if d == 0 {
				e.c.UpsertLease(nodelifecycle.Lease{Node: "e-1", RenewTime: now})
			}
		}
		for _, a := range e.c.StepAll(now).Actions {
			switch a.Kind {
			case nodelifecycle.KindPodsNotReady:
				fmt.Printf("+%v %s %s\n", d, a.Kind, a.Node)
			case nodelifecycle.KindSchedule:
				fmt.Printf("+%v %s %s due +%v\n", d, a.Kind, a.Pod.Key(), a.Due.Sub(e.start))
			case nodelifecycle.KindCancel, nodelifecycle.KindEvict:
				fmt.Printf("+%v %s %s\n", d, a.Kind, a.Pod.Key())
			}
		}
	}
}

// OpenYurt's policy: e-1, annotated node.beta.openyurt.io/autonomy, loses
// its kubelet after +0s. It turns Unknown at +55s and is tainted, but its
// pod is not marked NotReady, and it tolerates the taint for ever: nothing
// is printed. Without the annotation, upstream's lines appear.
func ExampleOpenYurt() {
	newEdgeCluster(nodelifecycle.OpenYurt{}, map[string]string{nodelifecycle.AnnotationOpenYurtAutonomy: "true"}).run(7*time.Minute, nil)
	fmt.Println("-- without the annotation:")
	newEdgeCluster(nodelifecycle.OpenYurt{}, nil).run(7*time.Minute, nil)
	// Output:
	// -- without the annotation:
	// +55s PodsNotReady e-1
	// +55s Schedule ns/p due +5m55s
	// +5m55s Evict ns/p
}

// OpenYurt's pod binding done by the caller, without the policy: the
// operator annotates e-1 autonomous at +2m0s, after its pod was scheduled
// for eviction at +5m55s; the rewritten pod tolerates the taint for ever,
// which cancels the eviction. The annotation goes at +3m0s: the pod gets
// its 300 s back (kept in its annotation) and is scheduled anew, counted
// from the edit: +8m0s.
func ExampleOpenYurtBindPod() {
	e := newEdgeCluster(nil, nil)
	var podAnnotations map[string]string // the pod's annotations as written
	rebind := func(annotations map[string]string) {
		n, _ := e.c.Node("e-1")
		n.Annotations = annotations
		e.c.UpsertNode(n)
		// The pod as the caller has it (here rebuilt from the view).
		ps, _ := e.c.Pod("ns", "p")
		pod := core.Pod{Namespace: ps.Namespace, Name: ps.Name, UID: ps.UID, NodeName: ps.NodeName, Tolerations: ps.Tolerations, Annotations: podAnnotations}
		if rewritten, ok := nodelifecycle.OpenYurtBindPod(&n, pod); ok {
			podAnnotations = rewritten.Annotations
			e.c.UpsertPod(rewritten) // written to the API server, then seen
		}
	}
	e.run(9*time.Minute, func(d time.Duration) {
		switch d {
		case 2 * time.Minute:
			rebind(map[string]string{nodelifecycle.AnnotationOpenYurtAutonomy: "true"})
		case 3 * time.Minute:
			rebind(nil)
		}
	})
	fmt.Println(podAnnotations)
	// Output:
	// +55s PodsNotReady e-1
	// +55s Schedule ns/p due +5m55s
	// +2m0s Cancel ns/p
	// +3m0s Schedule ns/p due +8m0s
	// +8m0s Evict ns/p
	// map[apps.openyurt.io/original-not-ready-toleration-duration:300 apps.openyurt.io/original-unreachable-toleration-duration:300]
}

// A policy of one's own: nodes labelled example.com/evictions=off are
// never tainted NoExecute for their health (their pods stay where they
// are) and are left out of their zone's disruption. e-1 carries the label:
// its kubelet stops after +0s, its pod is marked NotReady at +55s and
// nothing more happens to it.
func ExampleNodePolicyFunc() {
	policy := nodelifecycle.NodePolicyFunc(func(n *core.Node) nodelifecycle.NodeRules {
		off := n.Labels["example.com/evictions"] == "off"
		return nodelifecycle.NodeRules{NoExecuteExempt: off, ExcludeFromDisruption: off}
	})
	e := newEdgeCluster(policy, nil)
	n, _ := e.c.Node("e-1")
	n.Labels = map[string]string{eviction.LabelTopologyZone: "edge", "example.com/evictions": "off"}
	e.c.UpsertNode(n)
	e.run(7*time.Minute, nil)
	n, _ = e.c.Node("e-1")
	fmt.Println(n.Taints)
	// Output:
	// +55s PodsNotReady e-1
	// [node.kubernetes.io/unreachable:NoSchedule]
}

// A caller with a veto of its own (say, a disruption budget it keeps)
// refuses the eviction at +5m55s: it is not tried again, and the pod stays
// running in the view.
func ExampleController_Refused() {
	e := newEdgeCluster(nil, nil)
	start := e.start
	for d := time.Duration(0); d <= 8*time.Minute; d += 5 * time.Second {
		now := start.Add(d)
		if d%(10*time.Second) == 0 {
			e.c.UpsertLease(nodelifecycle.Lease{Node: "c-1", RenewTime: now})
			if d == 0 {
				e.c.UpsertLease(nodelifecycle.Lease{Node: "e-1", RenewTime: now})
			}
		}
		for r := e.c.Step(now); ; r = e.c.Step(now) {
			for _, a := range r.Actions {
				if a.Kind == nodelifecycle.KindEvict {
					fmt.Printf("+%v %s %s: refused\n", d, a.Kind, a.Pod.Key())
					if err := e.c.Refused(a); err != nil {
						panic(err)
					}
				}
			}
			if r.Next.After(now) {
				break
			}
		}
	}
	p, _ := e.c.Pod("ns", "p")
	fmt.Println("terminating:", p.Terminating)
	// Output:
	// +5m55s Evict ns/p: refused
	// terminating: false
}

// The autonomy OpenYurt's pod binding reads from a node's annotations.
func ExampleOpenYurtAutonomy() {
	for _, a := range []map[string]string{
		{nodelifecycle.AnnotationOpenYurtAutonomy: "true"},
		{nodelifecycle.AnnotationOpenYurtAutonomyDuration: "90s"},
		{nodelifecycle.AnnotationOpenYurtAutonomyDuration: "later"},
		nil,
	} {
		bound, secs := nodelifecycle.OpenYurtAutonomy(&core.Node{Annotations: a})
		switch {
		case !bound:
			fmt.Println("not bound")
		case secs == nil:
			fmt.Println("bound for ever")
		default:
			fmt.Println("bound for", *secs, "s")
		}
	}
	// Output:
	// bound for ever
	// bound for 90 s
	// not bound
	// not bound
}

// The modes, on the same outage of e-1: without the taint eviction half,
// e-1 is tainted NoExecute and its pod marked, but nothing is scheduled or
// evicted; NoScheduleOnly (Karmada's default) taints e-1 NoSchedule only.
func ExampleConfig_modes() {
	for _, mode := range []string{"NoTaintEviction", "NoScheduleOnly"} {
		cfg := nodelifecycle.DefaultConfig()
		cfg.NoTaintEviction = mode == "NoTaintEviction"
		cfg.NoScheduleOnly = mode == "NoScheduleOnly"
		e := newEdgeClusterFor(cfg, nil)
		fmt.Println(mode + ":")
		e.run(7*time.Minute, nil)
		n, _ := e.c.Node("e-1")
		fmt.Println(n.Taints)
	}
	// Output:
	// NoTaintEviction:
	// +55s PodsNotReady e-1
	// [node.kubernetes.io/unreachable:NoSchedule node.kubernetes.io/unreachable:NoExecute]
	// NoScheduleOnly:
	// +55s PodsNotReady e-1
	// [node.kubernetes.io/unreachable:NoSchedule]
}
