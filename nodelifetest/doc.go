// Package nodelifetest is for property-based tests of node-lifecycle
// policies: rapid generators of every input the library's packages take,
// a scenario generator and driver for the node lifecycle controller, and
// invariant checks that name the offending object and time. It sits
// beside the library as net/http/httptest sits beside net/http: only
// tests import it, and it is the only package that imports
// pgregory.net/rapid.
//
// # Usage
//
// Draw inputs inside rapid.Check and hand them to the planner under test:
//
//	rapid.Check(t, func(t *rapid.T) {
//		pods := nodelifetest.Pods(nodelifetest.Options{}).Draw(t, "pods")
//		cfg := nodelifetest.ShutdownConfigs(nodelifetest.Options{Valid: true}).Draw(t, "config")
//		plan, err := cfg.Plan(pods)
//		...
//		if err := nodelifetest.CheckShutdownPlan(cfg, pods, plan); err != nil {
//			t.Fatal(err)
//		}
//	})
//
// Drawn pods are the library's one pod type, core.Pod, which every planner
// reads, so one counterexample feeds every planner; PodStats draws the usage
// readings the kubelet's node-pressure eviction adds, and PodsOn binds pods to
// nodes. Scenarios draws a cluster and a schedule of outages, shutdowns,
// pressure episodes and API faults; Scenario.Run plays it against a
// nodelifecycle.Controller on a virtual clock and returns a History, which
// CheckLifecycle and the other checks read. A controller of your own fills a
// History from its writes and is checked the same way.
//
// # Semantics
//
// Every generator is deterministic for a seed (rapid's Example(seed) and
// Draw) and shrinks toward the smallest counterexample: lists toward
// fewer elements, choices toward the first listed (valid objects, the
// lowest priority, no faults). Options steer them: Valid keeps to objects the
// API server and the kubelet accept, Zones and MaxNodes size clusters,
// MinPriority and MaxPriority bound pod priorities, Now anchors drawn
// times. The shares each generator produces are measured and bounded in
// its distribution tests.
//
// A failing property prints what it drew, and every drawn type prints
// readably under %v and %#v (the forms rapid and go-cmp use): no address,
// no hexadecimal, no quantity spelled out field by field. A pod
// (core.Pod's String) prints on one line, every set field once: quantities as kubectl writes them
// ("req{cpu:500m memory:1Gi}"), pointers as their values
// ("priority=1000", "for 300s"). A Cluster or Scenario prints as a short
// table: nodes by zone, a pod a line, the fault schedule. The library's
// own drawn types (taints.Toleration, core.ResourceList, lease.Lease,
// gc.Object, topology.Hint and the rest) carry String and GoString
// methods to the same end. Only a bare netip.Prefix (PrefixesIn) keeps
// Go's own %#v; its %v is the prefix as written.
//
// Shrinking goes toward the smallest case: counts (nodes, pods per node,
// containers, init containers, faults) are lists rapid shortens element
// by element, rare and optional parts (huge pages, extended resources,
// init containers, overhead, host ports, usage readings) switch off, and
// every optional part is drawn whether it is kept or not, so that
// switching one off leaves the rest of a counterexample where it was.
// TestShrinkPriorityOrder shows the result on a flawed toleration policy:
// 2 nodes, 2 pods and one shutdown, in 12 lines.
//
// The checks state the loosest bound upstream satisfies, so a violation
// is a bug in the planner or controller under test, not a quirk of
// timing; each check's comment gives the rule. For the kubelet's topology
// managers, CheckTopologyMerge covers the topology manager's merge and
// CheckCPUState and CheckCPUAllocation the CPU Manager's static policy
// (CPUTopologies, CPUOptions and CPUPods draw its inputs), and
// CheckMemoryState the Memory Manager's (MemoryMachines and MemoryPods):
// never more memory reserved on a NUMA node than it has. For node
// readiness rules, ReadinessRules and ReadinessNodes draw the rules and a
// node, and CheckReadinessPlan checks a node event's plan: no readiness
// taint left on a node whose conditions a continuous rule finds met, none
// missing where they are not, a completed bootstrap-only node never
// re-tainted.
package nodelifetest
