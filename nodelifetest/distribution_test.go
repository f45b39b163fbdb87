package nodelifetest_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/cgroup"
	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/taints"
)

// share is one measured fraction of a generator's output and the bounds
// it must stay within. The bounds are wide: rapid's draws are biased
// toward small values (for shrinking), so the shares are not the
// generator's nominal odds; what the bounds guard is that every shape the
// generator promises shows up often, and none swamps the rest.
type share struct {
	name   string
	is     func(seed int) bool
	lo, hi float64
}

const distributionSamples = 1000

func checkShares(t *testing.T, generator string, shares ...share) {
	t.Helper()
	for _, s := range shares {
		n := 0
		for seed := 0; seed < distributionSamples; seed++ {
			if s.is(seed) {
				n++
			}
		}
		got := float64(n) / distributionSamples
		t.Logf("%-22s %-40s %5.1f%%  (bounds %.0f%%..%.0f%%)", generator, s.name, 100*got, 100*s.lo, 100*s.hi)
		if got < s.lo || got > s.hi {
			t.Errorf("%s: share %q is %.3f, outside [%.2f, %.2f]", generator, s.name, got, s.lo, s.hi)
		}
	}
}

// draw gives a generator's example for a seed, drawn once per seed: the
// shares of one generator read the same examples, as a table of samples
// would, rather than drawing each again (which made these tests most of the
// README command's time). The predicates only read what they are given.
func draw[V any](g *rapid.Generator[V]) func(int) V {
	drawn := make([]V, distributionSamples)
	done := make([]bool, distributionSamples)
	return func(seed int) V {
		if seed < 0 || seed >= distributionSamples {
			return g.Example(seed)
		}
		if !done[seed] {
			drawn[seed], done[seed] = g.Example(seed), true
		}
		return drawn[seed]
	}
}

var any0 = nodelifetest.Options{}
var valid = nodelifetest.Options{Valid: true}

func TestDistributionStrings(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	s, q, l := draw(nodelifetest.Strings()), draw(nodelifetest.QualifiedNames()), draw(nodelifetest.LabelValues())
	checkShares(t, "Strings",
		share{"empty", func(i int) bool { return s(i) == "" }, 0.02, 0.6},
		share{"with : = or /", func(i int) bool { return strings.ContainsAny(s(i), ":=/") }, 0.05, 0.9})
	checkShares(t, "QualifiedNames",
		share{"valid taint key", func(i int) bool {
			return (&taints.Taint{Key: q(i), Effect: taints.TaintEffectNoSchedule}).Validate() == nil
		}, 1, 1},
		share{"prefixed", func(i int) bool { return strings.Contains(q(i), "/") }, 0.2, 0.95})
	checkShares(t, "LabelValues",
		share{"valid taint value", func(i int) bool {
			return (&taints.Taint{Key: "k", Value: l(i), Effect: taints.TaintEffectNoSchedule}).Validate() == nil
		}, 1, 1},
		share{"empty", func(i int) bool { return l(i) == "" }, 0.01, 0.9})
}

func TestDistributionTaints(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	ta, tv := draw(nodelifetest.Taints(any0)), draw(nodelifetest.Taints(valid))
	checkShares(t, "Taints",
		share{"invalid", func(i int) bool { x := ta(i); return x.Validate() != nil }, 0.05, 0.5},
		share{"NoExecute", func(i int) bool { return ta(i).Effect == taints.TaintEffectNoExecute }, 0.1, 0.8},
		share{"well-known key", func(i int) bool { return strings.HasPrefix(ta(i).Key, "node.kubernetes.io/") }, 0.1, 0.9},
		share{"TimeAdded set", func(i int) bool { return !ta(i).TimeAdded.IsZero() }, 0.2, 0.8})
	checkShares(t, "Taints(Valid)",
		share{"invalid", func(i int) bool { x := tv(i); return x.Validate() != nil }, 0, 0})
	ol, ov, ne := draw(nodelifetest.Tolerations(any0)), draw(nodelifetest.Tolerations(valid)), draw(nodelifetest.NoExecuteTolerations())
	checkShares(t, "Tolerations",
		share{"invalid", func(i int) bool { x := ol(i); return x.Validate() != nil }, 0.05, 0.5},
		share{"tolerationSeconds", func(i int) bool { return ol(i).TolerationSeconds != nil }, 0.05, 0.6},
		share{"Exists with empty key", func(i int) bool { x := ol(i); return x.Key == "" && x.Operator == taints.TolerationOpExists }, 0.02, 0.6})
	checkShares(t, "Tolerations(Valid)",
		share{"invalid", func(i int) bool { x := ov(i); return x.Validate() != nil }, 0, 0})
	unreachable := taints.Taint{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute}
	checkShares(t, "NoExecuteTolerations",
		share{"none", func(i int) bool { return len(ne(i)) == 0 }, 0.01, 0.6},
		share{"unreachable untolerated", func(i int) bool { return !tolerates(ne(i), unreachable) }, 0.05, 0.8},
		share{"unreachable for a while", func(i int) bool { return finiteFor(ne(i), unreachable) }, 0.2, 0.95})
}

func tolerates(tols []taints.Toleration, tt taints.Taint) bool {
	var m taints.Matcher
	return slices.ContainsFunc(tols, func(tol taints.Toleration) bool { return m.ToleratesTaint(&tol, &tt) })
}

func finiteFor(tols []taints.Toleration, tt taints.Taint) bool {
	var m taints.Matcher
	return slices.ContainsFunc(tols, func(tol taints.Toleration) bool { return m.ToleratesTaint(&tol, &tt) && tol.TolerationSeconds != nil })
}

// ready reports whether the pod's Ready condition is True.
func ready(p core.Pod) bool {
	return slices.ContainsFunc(p.Conditions, func(c core.PodCondition) bool {
		return c.Type == core.PodReady && c.Status == conditions.True
	})
}

func TestDistributionPods(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	pods := draw(nodelifetest.Pods(any0))
	one := draw(nodelifetest.OnePod(any0))
	qos := func(c core.PodQOSClass) func(int) bool {
		return func(i int) bool { return cgroup.ComputeQOS(one(i), cgroup.QOSOptions{}) == c }
	}
	checkShares(t, "OnePod",
		share{"Guaranteed", qos(core.PodQOSGuaranteed), 0.05, 0.7},
		share{"Burstable", qos(core.PodQOSBurstable), 0.05, 0.8},
		share{"BestEffort", qos(core.PodQOSBestEffort), 0.05, 0.8},
		share{"critical", func(i int) bool { p := one(i); return p.IsCritical() }, 0.05, 0.6},
		share{"init containers", func(i int) bool { return len(one(i).InitContainers) > 0 }, 0.05, 0.6},
		share{"a sidecar", func(i int) bool {
			return slices.ContainsFunc(one(i).InitContainers, func(c core.Container) bool { return c.RestartPolicy == core.ContainerRestartPolicyAlways })
		}, 0.02, 0.5},
		share{"overhead", func(i int) bool { return one(i).Overhead != nil }, 0.01, 0.4},
		share{"pod-level resources", func(i int) bool { return one(i).Resources != nil }, 0.01, 0.4},
		share{"no priority", func(i int) bool { return one(i).Priority == nil }, 0.05, 0.6},
		share{"owned", func(i int) bool { p := one(i); return p.ControllerRef() != nil }, 0.3, 0.95},
		share{"static", func(i int) bool { p := one(i); return p.IsStatic() && !p.IsMirror() }, 0.02, 0.3},
		share{"mirror", func(i int) bool { p := one(i); return p.IsMirror() }, 0.02, 0.3},
		share{"terminating", func(i int) bool { return one(i).DeletionTimestamp != nil }, 0.02, 0.4},
		share{"running", func(i int) bool { return one(i).Phase == core.PodRunning }, 1, 1})
	type drawnStats struct {
		pods  []core.Pod
		stats pressure.Stats
	}
	ps := draw(rapid.Custom(func(t *rapid.T) drawnStats {
		pods := nodelifetest.Pods(any0).Draw(t, "pods")
		return drawnStats{pods, nodelifetest.PodStats(pods).Draw(t, "stats")}
	}))
	checkShares(t, "PodStats",
		share{"a pod without a reading", func(i int) bool { return len(ps(i).stats) < len(ps(i).pods) }, 0.05, 0.8},
		share{"readings keyed by the pods' UIDs", func(i int) bool {
			for uid := range ps(i).stats {
				if !slices.ContainsFunc(ps(i).pods, func(p core.Pod) bool { return p.UID == uid }) {
					return false
				}
			}
			return true
		}, 1, 1},
		share{"a reading without a working set", func(i int) bool {
			for _, st := range ps(i).stats {
				if st.WorkingSetBytes == nil {
					return true
				}
			}
			return false
		}, 0.02, 0.6})
	checkShares(t, "Pods",
		share{"empty list", func(i int) bool { return len(pods(i)) == 0 }, 0.01, 0.5},
		share{"unique keys and UIDs", func(i int) bool {
			keys, uids := map[string]bool{}, map[string]bool{}
			for _, p := range pods(i) {
				if keys[p.Key()] || uids[p.UID] {
					return false
				}
				keys[p.Key()], uids[p.UID] = true, true
			}
			return true
		}, 1, 1})
	ranged := draw(nodelifetest.OnePod(nodelifetest.Options{MinPriority: -5, MaxPriority: 5}))
	checkShares(t, "OnePod(priority -5..5)",
		share{"priority in range or nil", func(i int) bool { p := ranged(i).Priority; return p == nil || *p >= -5 && *p <= 5 }, 1, 1},
		share{"nil priority", func(i int) bool { return ranged(i).Priority == nil }, 0.05, 0.6})
	onDrawn := map[int][]core.Pod{}
	on := func(i int) []core.Pod {
		if p, ok := onDrawn[i]; ok {
			return p
		}
		onDrawn[i] = nodelifetest.PodsOn(pods(i), []string{"n0", "n1"}).Example(i)
		return onDrawn[i]
	}
	checkShares(t, "PodsOn",
		share{"some pod unbound", func(i int) bool {
			return slices.ContainsFunc(on(i), func(p core.Pod) bool { return p.NodeName == "" })
		}, 0.01, 0.7},
		share{"all on the given nodes or unbound", func(i int) bool {
			return !slices.ContainsFunc(on(i), func(p core.Pod) bool { return p.NodeName != "" && p.NodeName != "n0" && p.NodeName != "n1" })
		}, 1, 1})
}

func TestDistributionNodes(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	c := draw(nodelifetest.Conditions(any0))
	checkShares(t, "Conditions",
		share{"True", func(i int) bool { return c(i).Status == conditions.True }, 0.1, 0.8},
		share{"Unknown", func(i int) bool { return c(i).Status == conditions.Unknown }, 0.05, 0.8},
		share{"odd type or status", func(i int) bool {
			x := c(i)
			return !slices.Contains(nodelifetest.ConditionTypes(), x.Type) || !slices.Contains(nodelifetest.Statuses(), x.Status)
		}, 0.005, 0.3})
	nodes := draw(nodelifetest.Nodes(any0))
	checkShares(t, "Nodes",
		share{"an unlabeled node", func(i int) bool {
			return slices.ContainsFunc(nodes(i), func(n nodeT) bool { return n.Labels[eviction.LabelTopologyZone] == "" })
		}, 0.02, 0.7},
		share{"a node that never posted", func(i int) bool {
			return slices.ContainsFunc(nodes(i), func(n nodeT) bool { return len(n.Conditions) == 0 })
		}, 0.02, 0.7},
		share{"a NoExecute taint", func(i int) bool {
			return slices.ContainsFunc(nodes(i), func(n nodeT) bool {
				return slices.ContainsFunc(n.Taints, func(t taints.Taint) bool { return t.Effect == taints.TaintEffectNoExecute })
			})
		}, 0.05, 0.9})
	l := draw(nodelifetest.Leases(any0))
	now := nodelifetest.Epoch()
	checkShares(t, "Leases",
		share{"no holder", func(i int) bool { return l(i).HolderIdentity == nil }, 0.02, 0.5},
		share{"expired at Now", func(i int) bool {
			x := l(i)
			at, ok := x.ExpiresAt()
			return ok && !at.After(now)
		}, 0.05, 0.9},
		share{"duration <= 0", func(i int) bool { x := l(i); return x.LeaseDurationSeconds != nil && *x.LeaseDurationSeconds <= 0 }, 0.01, 0.6})
}

func TestDistributionConfigs(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	s := draw(nodelifetest.EvictionSettings(any0))
	checkShares(t, "EvictionSettings",
		share{"parses", func(i int) bool { _, err := s(i).Parse(); return err == nil }, 1, 1},
		share{"hard memory.available", func(i int) bool { _, ok := s(i).EvictionHard[string(pressure.SignalMemoryAvailable)]; return ok }, 0.2, 0.8},
		share{"a soft threshold", func(i int) bool { return len(s(i).EvictionSoft) > 0 }, 0.3, 1})
	o := draw(nodelifetest.Observations())
	checkShares(t, "Observations",
		share{"memory observed", func(i int) bool { _, ok := o(i)[pressure.SignalMemoryAvailable]; return ok }, 0.2, 0.8},
		share{"negative available", func(i int) bool {
			for _, v := range o(i) {
				if v.Available < 0 {
					return true
				}
			}
			return false
		}, 0.01, 0.9})
	lay := draw(nodelifetest.Layouts())
	checkShares(t, "Layouts", share{"split", func(i int) bool { return lay(i) == pressure.LayoutSplit }, 0.1, 0.7})
	ph, phv := draw(nodelifetest.ShutdownPhases(any0)), draw(nodelifetest.ShutdownPhases(valid))
	dup := func(ps []shutdownPhase) bool {
		seen := map[int32]bool{}
		for _, p := range ps {
			if seen[p.Priority] {
				return true
			}
			seen[p.Priority] = true
		}
		return false
	}
	checkShares(t, "ShutdownPhases",
		share{"duplicate priorities", func(i int) bool { return dup(ph(i)) }, 0.05, 0.9},
		share{"negative period", func(i int) bool {
			return slices.ContainsFunc(ph(i), func(p shutdownPhase) bool { return p.ShutdownGracePeriodSeconds < 0 })
		}, 0.01, 0.6})
	checkShares(t, "ShutdownPhases(Valid)",
		share{"duplicate priorities", func(i int) bool { return dup(phv(i)) }, 0, 0})
	sc, scv := draw(nodelifetest.ShutdownConfigs(any0)), draw(nodelifetest.ShutdownConfigs(valid))
	checkShares(t, "ShutdownConfigs",
		share{"by pod priority", func(i int) bool { return len(sc(i).ShutdownGracePeriodByPodPriority) > 0 }, 0.2, 0.8},
		share{"invalid", func(i int) bool { return sc(i).Validate() != nil }, 0.01, 0.6})
	checkShares(t, "ShutdownConfigs(Valid)",
		share{"invalid", func(i int) bool { return scv(i).Validate() != nil }, 0, 0})
}

func TestDistributionGC(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	ip, ir := draw(nodelifetest.ImagePolicies()), draw(nodelifetest.ImageRecords(any0))
	checkShares(t, "ImagePolicies",
		share{"max age on", func(i int) bool { return ip(i).MaxAge > 0 }, 0.2, 0.8},
		share{"valid", func(i int) bool { return ip(i).Validate() == nil }, 1, 1})
	checkShares(t, "ImageRecords",
		share{"an image in use", func(i int) bool { return slices.ContainsFunc(ir(i), func(r gc.ImageRecord) bool { return r.InUse }) }, 0.1, 0.95},
		share{"a pinned image", func(i int) bool { return slices.ContainsFunc(ir(i), func(r gc.ImageRecord) bool { return r.Pinned }) }, 0.05, 0.95},
		share{"a far-past detection", func(i int) bool {
			return slices.ContainsFunc(ir(i), func(r gc.ImageRecord) bool { return r.FirstDetected.Year() < 1800 })
		}, 0.02, 0.9})
	cg := draw(nodelifetest.ContainerGCs(any0))
	checkShares(t, "ContainerGCs",
		share{"no total limit (-1)", func(i int) bool { return cg(i).Policy.MaxContainers < 0 }, 0.02, 0.6},
		share{"a container of an unknown pod", func(i int) bool {
			return slices.ContainsFunc(cg(i).Input.Containers, func(c gc.Container) bool { return c.PodUID == "p4" })
		}, 0.05, 0.9})
	og, ogv := draw(nodelifetest.OwnerGraphs(any0)), draw(nodelifetest.OwnerGraphs(valid))
	cycle := func(objs []gc.Object) bool {
		g, err := gc.NewOwnerGraph(objs, gc.OwnerOptions{})
		return err == nil && len(g.Cycles()) > 0
	}
	dangling := func(objs []gc.Object) bool {
		uids := map[string]bool{}
		for _, o := range objs {
			uids[string(o.UID)] = true
		}
		return slices.ContainsFunc(objs, func(o gc.Object) bool {
			return slices.ContainsFunc(o.OwnerReferences, func(r metaRef) bool { return r.UID != "" && !uids[string(r.UID)] })
		})
	}
	checkShares(t, "OwnerGraphs",
		share{"a cycle", func(i int) bool { return cycle(og(i)) }, 0.05, 0.9},
		share{"a dangling owner", func(i int) bool { return dangling(og(i)) }, 0.05, 0.9},
		share{"an object being deleted", func(i int) bool {
			return slices.ContainsFunc(og(i), func(o gc.Object) bool { return o.DeletionTimestamp != nil })
		}, 0.1, 0.95})
	checkShares(t, "OwnerGraphs(Valid)",
		share{"a cycle", func(i int) bool { return cycle(ogv(i)) }, 0.02, 0.9},
		share{"an object being deleted", func(i int) bool {
			return slices.ContainsFunc(ogv(i), func(o gc.Object) bool { return o.DeletionTimestamp != nil || len(o.Finalizers) > 0 })
		}, 0, 0})
}

func TestDistributionCgroup(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	m, q, s, w, n := draw(nodelifetest.MilliCPU()), draw(nodelifetest.QuotaPeriods()), draw(nodelifetest.Shares()), draw(nodelifetest.Weights()), draw(nodelifetest.CgroupNames())
	checkShares(t, "MilliCPU",
		share{"negative", func(i int) bool { return m(i) < 0 }, 0.01, 0.5},
		share{"0..2", func(i int) bool { return m(i) >= 0 && m(i) <= 2 }, 0.02, 0.6})
	checkShares(t, "QuotaPeriods",
		share{"in range", func(i int) bool { return q(i) >= cgroup.MinQuotaPeriod && q(i) <= cgroup.MaxQuotaPeriod }, 1, 1})
	checkShares(t, "Shares",
		share{"in 1..2^20", func(i int) bool { return s(i) >= 1 && s(i) <= 1<<20 }, 1, 1},
		share{"above MaxShares", func(i int) bool { return s(i) > cgroup.MaxShares }, 0.01, 0.9})
	checkShares(t, "Weights",
		share{"in range", func(i int) bool { return w(i) >= cgroup.MinWeight && w(i) <= cgroup.MaxWeight }, 1, 1})
	checkShares(t, "CgroupNames",
		share{"valid", func(i int) bool { return n(i).Validate() == nil }, 1, 1},
		share{"under kubepods", func(i int) bool { x := n(i); return len(x) > 0 && x[0] == cgroup.KubepodsComponent }, 0.2, 0.8})
}

func TestDistributionScenarios(t *testing.T) {
	t.Parallel() // draws by seed (Example), no rapid.Check: runs beside the others
	c := draw(nodelifetest.Clusters(any0))
	checkShares(t, "Clusters",
		share{"three zones", func(i int) bool { return zones(c(i).Nodes) == 3 }, 0.1, 0.8},
		share{"one zone", func(i int) bool { return zones(c(i).Nodes) == 1 }, 0.1, 0.8},
		share{"every pod bound and ready", func(i int) bool {
			return !slices.ContainsFunc(c(i).Pods, func(p core.Pod) bool { return p.NodeName == "" || !ready(p) })
		}, 1, 1})
	s := draw(nodelifetest.Scenarios(any0))
	has := func(kind nodelifetest.FaultKind, all bool) func(int) bool {
		return func(i int) bool {
			x := s(i)
			return slices.ContainsFunc(x.Faults, func(f nodelifetest.Fault) bool {
				return f.Kind == kind && (!all || len(f.Nodes) == len(x.Nodes) && len(x.Nodes) > 1)
			})
		}
	}
	checkShares(t, "Scenarios",
		share{"no fault", func(i int) bool { return len(s(i).Faults) == 0 }, 0.01, 0.5},
		share{"an outage", has(nodelifetest.FaultOutage, false), 0.2, 0.95},
		share{"an outage of every node", has(nodelifetest.FaultOutage, true), 0.02, 0.7},
		share{"a shutdown", has(nodelifetest.FaultShutdown, false), 0.05, 0.9},
		share{"a pressure episode", has(nodelifetest.FaultPressure, false), 0.05, 0.9},
		share{"an API fault", has(nodelifetest.FaultAPI, false), 0.05, 0.9},
		share{"faults end 30s before the end", func(i int) bool {
			x := s(i)
			return !slices.ContainsFunc(x.Faults, func(f nodelifetest.Fault) bool { return f.To > x.Duration-30e9 })
		}, 1, 1})
}

func zones(nodes []nodeT) int {
	seen := map[string]bool{}
	for _, n := range nodes {
		seen[n.Labels[eviction.LabelTopologyZone]] = true
	}
	return len(seen)
}

// The package's own types, shortened for the tables above.
type (
	nodeT         = nodelifecycleNode
	shutdownPhase = shutdownPhaseConfig
)

var _ = fmt.Sprint
