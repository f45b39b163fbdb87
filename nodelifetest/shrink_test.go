package nodelifetest_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/taints"
)

var update = flag.Bool("update", false, "rewrite the golden files of the shrink test")

// highPriority is where the policy below draws its line.
const highPriority = 1000

// priorityPolicy is a user's toleration policy with a flaw: pods of
// priority 1000 and more ride out an unreachable node for ten minutes,
// the rest get a minute on an unreachable or a not-ready node. It forgets
// the not-ready taint for the high ones, so a node that reports NotReady
// (a graceful shutdown posts Ready=False) loses its important pods first.
func priorityPolicy(p core.Pod) []taints.Toleration {
	secs := func(s int64) *int64 { return &s }
	noExecute := func(key string, s int64) taints.Toleration {
		return taints.Toleration{Key: key, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: secs(s)}
	}
	if priorityOf(p) >= highPriority {
		return []taints.Toleration{noExecute(taints.TaintNodeUnreachable, 600)}
	}
	return []taints.Toleration{noExecute(taints.TaintNodeUnreachable, 60), noExecute(taints.TaintNodeNotReady, 60)}
}

func priorityOf(p core.Pod) int32 {
	if p.Priority == nil {
		return 0
	}
	return *p.Priority
}

// withPolicy draws scenarios whose pods carry priorityPolicy's
// tolerations, in one zone, priorities 0-2000.
func withPolicy() *rapid.Generator[nodelifetest.Scenario] {
	return rapid.Map(nodelifetest.Scenarios(nodelifetest.Options{Zones: 1, MinPriority: 0, MaxPriority: 2000}),
		func(s nodelifetest.Scenario) nodelifetest.Scenario {
			s.Pods = slices.Clone(s.Pods)
			for i := range s.Pods {
				s.Pods[i].Tolerations = priorityPolicy(s.Pods[i])
			}
			return s
		})
}

// priorityOrder is the property: no pod of priority highPriority or more
// is evicted while a pod of lower priority on the same node is still
// there. It keeps each drawn scenario in *last: rapid's final run is of
// the shrunk one.
func priorityOrder(t *rapid.T, last *nodelifetest.Scenario) {
	s := withPolicy().Draw(t, "scenario")
	*last = s
	h, err := s.Run(nodelifecycle.DefaultConfig(), nodelifetest.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gone := map[string]int{} // pod key -> index of its eviction
	for i, e := range h.Evictions {
		gone[e.Pod] = i
	}
	for i, e := range h.Evictions {
		var high core.Pod
		for _, p := range s.Pods {
			if p.Key() == e.Pod {
				high = p
			}
		}
		if priorityOf(high) < highPriority {
			continue
		}
		for _, low := range s.Pods {
			if low.NodeName != e.Node || priorityOf(low) >= highPriority {
				continue
			}
			if j, ok := gone[low.Key()]; !ok || j > i {
				t.Fatalf("on %s, %s (priority %d) was evicted at +%v while %s (priority %d) %s",
					e.Node, high.Key(), priorityOf(high), e.At.Sub(s.Start), low.Key(), priorityOf(low), fate(h, low.Key(), s.Start))
			}
		}
	}
}

// fate says when a pod was evicted, or that it never was.
func fate(h nodelifetest.History, key string, start time.Time) string {
	for _, e := range h.Evictions {
		if e.Pod == key {
			return fmt.Sprintf("stayed until +%v", e.At.Sub(start))
		}
	}
	return "was never evicted"
}

// recorder is a rapid.TB that keeps what rapid reports instead of failing
// the test, so that the failure text itself can be checked.
type recorder struct {
	name   string
	out    strings.Builder
	failed bool
}

func (r *recorder) Helper()                         {}
func (r *recorder) Name() string                    { return r.name }
func (r *recorder) Logf(format string, args ...any) { fmt.Fprintf(&r.out, format+"\n", args...) }
func (r *recorder) Log(args ...any)                 { fmt.Fprintln(&r.out, args...) }
func (r *recorder) Skipf(format string, args ...any) {
	r.Logf(format, args...)
}
func (r *recorder) Skip(args ...any) { r.Log(args...) }
func (r *recorder) SkipNow()         {}
func (r *recorder) Errorf(format string, args ...any) {
	r.Logf(format, args...)
	r.failed = true
}
func (r *recorder) Error(args ...any) { r.Log(args...); r.failed = true }
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
}
func (r *recorder) Fatal(args ...any) { r.Error(args...) }
func (r *recorder) FailNow()          { r.failed = true }
func (r *recorder) Fail()             { r.failed = true }
func (r *recorder) Failed() bool      { return r.failed }

// setFlags sets rapid's flags for one check and puts them back after.
func setFlags(t *testing.T, values map[string]string) {
	for name, v := range values {
		f := flag.Lookup(name)
		if f == nil {
			t.Fatalf("no flag %s", name)
		}
		old := f.Value.String()
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = flag.Set(name, old) })
	}
}

// The property over drawn scenarios fails as it should, and rapid
// shrinks it to what the flaw needs: a node that shuts down, a high and a
// low pod on it, and the healthy node without which the controller would
// evict nothing (a cluster whose every node is not Ready is in upstream's
// full disruption, where no taint is placed). The whole failure text,
// as a person sees it, is the golden file testdata/priority-order.golden
// (go test -run TestShrinkPriorityOrder -update rewrites it).
//
// It runs in a child process that TestMain starts before the other tests
// (shrinkchild_test.go): rapid's settings are the process's flags, and this
// is the package's longest test.
func TestShrinkPriorityOrder(t *testing.T) {
	if raceEnabled {
		// 50 s under the detector for a check without goroutines; the
		// plain run (the README's go test ./...) checks the same text.
		t.Skip("checked in the run without -race")
	}
	if os.Getenv(shrinkChildEnv) == "" && reportShrinkChild(t) {
		return
	}
	checkShrinkPriorityOrder(t)
}

// checkShrinkPriorityOrder is TestShrinkPriorityOrder's check, in the
// process that runs it.
func checkShrinkPriorityOrder(t *testing.T) {
	// A fixed seed and room to shrink, so that the text is the same on
	// every machine; no fail file in testdata/rapid.
	setFlags(t, map[string]string{"rapid.seed": "1", "rapid.checks": "300", "rapid.nofailfile": "true", "rapid.shrinktime": "10m"})
	r := &recorder{name: "TestShrinkPriorityOrder"}
	begin := time.Now()
	var shrunk nodelifetest.Scenario
	rapid.Check(r, func(t *rapid.T) { priorityOrder(t, &shrunk) })
	t.Logf("checked and shrunk in %v", time.Since(begin).Round(time.Millisecond))
	if !r.failed {
		t.Fatalf("the property held on 300 scenarios; the flawed policy must fail it\n%s", r.out.String())
	}
	text := r.out.String()
	t.Logf("shrunk to %d nodes, %d pods, %d faults; the failure text:\n%s", len(shrunk.Nodes), len(shrunk.Pods), len(shrunk.Faults), text)
	if len(shrunk.Nodes) > 2 || len(shrunk.Pods) > 2 || len(shrunk.Faults) > 1 {
		t.Errorf("shrunk to %d nodes, %d pods and %d faults; the flaw needs 2, 2 and 1", len(shrunk.Nodes), len(shrunk.Pods), len(shrunk.Faults))
	}

	// What a person must be able to read, checked on the text itself.
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > 60 {
		t.Errorf("the failure text has %d lines, want at most 60:\n%s", len(lines), text)
	}
	if strings.Contains(text, "0x") {
		t.Errorf("the failure text holds a pointer address:\n%s", text)
	}
	golden := filepath.Join("testdata", "priority-order.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if text != string(want) {
		t.Errorf("the failure text differs from %s (-update rewrites it after a deliberate change):\n%s", golden, text)
	}
	// The README shows the same text.
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```\n"+string(want)+"```\n") {
		t.Errorf("README.md does not show %s as it is", golden)
	}
}

// Why the shrunk case keeps a second node: the same pods and shutdown on
// a cluster of one node evict nothing, since a cluster whose every node
// is not Ready is fully disrupted and upstream's controller then taints
// no node NoExecute.
func TestShrinkNeedsTwoNodes(t *testing.T) {
	start := nodelifetest.Epoch()
	low, high := int32(0), int32(highPriority)
	pod := func(name string, prio *int32) core.Pod {
		p := core.Pod{Namespace: "a", Name: name, UID: "uid-" + name, NodeName: "a-0", Priority: prio, Phase: core.PodRunning,
			Conditions: []core.PodCondition{{Type: core.PodReady, Status: conditions.True}}}
		p.Tolerations = priorityPolicy(p)
		return p
	}
	one := nodelifetest.Scenario{Duration: 5 * time.Minute,
		Cluster: nodelifetest.Cluster{Start: start, Pods: []core.Pod{pod("p0", &low), pod("p1", &high)}},
		Faults:  []nodelifetest.Fault{{Kind: nodelifetest.FaultShutdown, Nodes: []string{"a-0"}, From: time.Second, To: 11 * time.Second}}}
	two := one
	for _, name := range []string{"a-0", "a-1"} {
		c := nodelifetest.Clusters(nodelifetest.Options{Zones: 1, MaxNodes: 1}).Example(0) // one healthy node, to copy
		n := c.Nodes[0]
		n.Name, n.UID = name, "uid-"+name
		if name == "a-0" {
			one.Nodes = []core.Node{n}
		}
		two.Nodes = append(two.Nodes, n)
	}
	for _, c := range []struct {
		s    nodelifetest.Scenario
		want []string
	}{{one, nil}, {two, []string{"a/p1"}}} {
		h, err := c.s.Run(nodelifecycle.DefaultConfig(), nodelifetest.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range h.Evictions {
			got = append(got, e.Pod)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%d nodes: evicted %v, want %v", len(c.s.Nodes), got, c.want)
		}
	}
}
