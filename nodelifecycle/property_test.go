package nodelifecycle

import (
	"errors"
	"fmt"
	"hash/fnv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/taints"
)

var (
	propNodes = []string{"n0", "n1", "n2", "n3", "n4", "n5"}
	propPods  = []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"}
	propZones = []string{"a", "b", "c"}
	propTaint = []taints.Taint{
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute},
		{Key: taints.TaintNodeNotReady, Effect: taints.TaintEffectNoExecute},
		{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoSchedule},
		{Key: taints.TaintNodeNotReady, Effect: taints.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "db", Effect: taints.TaintEffectNoExecute},
	}
	propSteps = []time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond, time.Second, 5 * time.Second, 10 * time.Second, 37 * time.Second, time.Minute}
)

func secondsPtr(s int64) *int64 { return &s }

var propTolerations = [][]taints.Toleration{
	nil,
	taints.WithDefaultTolerationSeconds(nil, 30, 30),
	{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: secondsPtr(60)}},
	{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute}},
	{{Key: taints.TaintNodeNotReady, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: secondsPtr(0)}},
	{{Operator: taints.TolerationOpExists}},
	{{Key: "dedicated", Operator: taints.TolerationOpEqual, Value: "db", Effect: taints.TaintEffectNoExecute, TolerationSeconds: secondsPtr(20)},
		{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: secondsPtr(45)}},
}

// machine is what both the Controller and the naive reference implement.
type machine interface {
	UpsertNode(Node)
	DeleteNode(string)
	UpsertLease(Lease)
	DeleteLease(string)
	UpsertPod(Pod)
	DeletePod(string, string)
	Step(time.Time, Apply) Ready
}

func drawNode(t *rapid.T, now time.Time) Node {
	name := rapid.SampledFrom(propNodes).Draw(t, "node")
	n := Node{Name: name, UID: "uid-" + name, CreationTimestamp: now.Add(-time.Duration(rapid.IntRange(0, 120).Draw(t, "age")) * time.Second)}
	switch rapid.IntRange(0, 5).Draw(t, "labels") {
	case 0: // unlabeled: zone ""
	case 1:
		n.Labels = map[string]string{eviction.LabelTopologyZone: rapid.SampledFrom(propZones).Draw(t, "zone"), eviction.LabelNodeExcludeDisruption: ""}
	default:
		n.Labels = map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: rapid.SampledFrom(propZones).Draw(t, "zone")}
	}
	if st := rapid.SampledFrom([]conditions.Status{conditions.True, conditions.False, conditions.Unknown, ""}).Draw(t, "ready"); st != "" {
		hb := now.Add(-time.Duration(rapid.IntRange(0, 90).Draw(t, "heartbeatAge")) * time.Second)
		n.Conditions = []conditions.Condition{{Type: conditions.Ready, Status: st, LastHeartbeatTime: hb, LastTransitionTime: hb.Add(-time.Minute)}}
		if rapid.Bool().Draw(t, "memoryPressure") {
			n.Conditions = append(n.Conditions, conditions.Condition{Type: conditions.MemoryPressure, Status: conditions.True, LastHeartbeatTime: hb})
		}
	}
	for i, tt := range propTaint {
		if rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("taint%d", i)) == 0 {
			tt.TimeAdded = now.Add(-time.Duration(rapid.IntRange(0, 60).Draw(t, "taintAge")) * time.Second)
			n.Taints = append(n.Taints, tt)
		}
	}
	n.Unschedulable = rapid.IntRange(0, 5).Draw(t, "unschedulable") == 0
	return n
}

func drawPod(t *rapid.T) Pod {
	name := rapid.SampledFrom(propPods).Draw(t, "pod")
	p := Pod{Namespace: "ns", Name: name, UID: name + "-" + rapid.SampledFrom([]string{"a", "b"}).Draw(t, "uid"),
		Tolerations: rapid.SampledFrom(propTolerations).Draw(t, "tolerations"),
		Ready:       rapid.Bool().Draw(t, "podReady"), Terminating: rapid.IntRange(0, 7).Draw(t, "terminating") == 0}
	if rapid.IntRange(0, 9).Draw(t, "unbound") > 0 {
		p.NodeName = rapid.SampledFrom(propNodes).Draw(t, "bound")
	}
	return p
}

// failing returns an Apply that fails the actions whose hash modulo
// every is 0 (never for every 0): the same actions fail for both machines.
func failing(every uint32) Apply {
	if every == 0 {
		return nil
	}
	return func(a Action) error {
		h := fnv.New32a()
		fmt.Fprintf(h, "%s|%s|%s|%s|%v|%v", a.At.Format(time.RFC3339Nano), a.Kind, a.Node, a.Pod.Key(), a.Add, a.Remove)
		if h.Sum32()%every == 0 {
			return errors.New("injected failure")
		}
		return nil
	}
}

// After any sequence of upserts, deletes and clock steps, the incremental
// Controller takes exactly the naive reference's actions and asks for the
// same next time, under every option that changes the decisions and with
// writes that fail at random.
func TestPropertyIncrementalMatchesNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultConfig()
		cfg.NodeMonitorGracePeriod = time.Duration(rapid.IntRange(10, 60).Draw(t, "grace")) * time.Second
		cfg.NodeStartupGracePeriod = time.Duration(rapid.IntRange(10, 90).Draw(t, "startupGrace")) * time.Second
		cfg.NodeEvictionRate = rapid.SampledFrom([]float64{0, 0.1, 1, 10}).Draw(t, "rate")
		cfg.SecondaryNodeEvictionRate = rapid.SampledFrom([]float64{0, 0.01, 0.5}).Draw(t, "secondaryRate")
		cfg.LargeClusterSizeThreshold = rapid.IntRange(0, 4).Draw(t, "largeCluster")
		cfg.UnhealthyZoneThreshold = rapid.SampledFrom([]float32{0, 0.55, 1}).Draw(t, "unhealthy")
		cfg.TaintOnObservedReady = rapid.Bool().Draw(t, "observedReady")
		cfg.KeepProbesOnExit = rapid.Bool().Draw(t, "keepProbes")
		cfg.MarkPodsOnKubeletNotReady = rapid.Bool().Draw(t, "markOnKubelet")
		cfg.NoExecute.Replan = rapid.Bool().Draw(t, "replan")
		if rapid.Bool().Draw(t, "anchorTaintAdded") {
			cfg.NoExecute.Anchor = eviction.AnchorTaintAdded
		}
		if rapid.Bool().Draw(t, "upstreamQueue") {
			cfg.Queue = eviction.UpstreamQueueOptions()
		}
		apply := failing(rapid.SampledFrom([]uint32{0, 0, 3, 7}).Draw(t, "failEvery"))

		inc, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		machines := []machine{inc, newNaive(cfg)}
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		var next time.Time
		for i, steps := 0, rapid.IntRange(1, 60).Draw(t, "ops"); i < steps; i++ {
			var op func(machine)
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0, 1:
				n := drawNode(t, now)
				op = func(m machine) { m.UpsertNode(n) }
			case 2:
				name := rapid.SampledFrom(propNodes).Draw(t, "deleteNode")
				op = func(m machine) { m.DeleteNode(name) }
			case 3, 4:
				l := Lease{Node: rapid.SampledFrom(propNodes).Draw(t, "lease"), RenewTime: now.Add(-time.Duration(rapid.IntRange(0, 30).Draw(t, "renewAge")) * time.Second)}
				op = func(m machine) { m.UpsertLease(l) }
			case 5:
				name := rapid.SampledFrom(propNodes).Draw(t, "deleteLease")
				op = func(m machine) { m.DeleteLease(name) }
			case 6, 7:
				p := drawPod(t)
				op = func(m machine) { m.UpsertPod(p) }
			case 8:
				name := rapid.SampledFrom(propPods).Draw(t, "deletePod")
				op = func(m machine) { m.DeletePod("ns", name) }
			case 9:
				if !next.IsZero() && rapid.Bool().Draw(t, "atNext") {
					now = next
				} else {
					now = now.Add(rapid.SampledFrom(propSteps).Draw(t, "advance"))
				}
				var got [2]Ready
				for k, m := range machines {
					got[k] = m.Step(now, apply)
				}
				if diff := cmp.Diff(got[1], got[0], cmp.Comparer(func(a, b error) bool { return fmt.Sprint(a) == fmt.Sprint(b) })); diff != "" {
					t.Fatalf("step at %v: incremental (+) differs from naive (-):\n%s", now, diff)
				}
				next = got[0].Next
				continue
			}
			for _, m := range machines {
				op(m)
			}
		}
	})
}
