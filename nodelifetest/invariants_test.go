package nodelifetest_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/nodelifecycle"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/taints"
	"github.com/nodelife/nodelife/topology"
)

// ownOutputCases is how many generated inputs each check is run on against
// the library's own output: 1,000, the same seeds in every run (the README's
// go test ./... and the race detector's alike), or 10,000 with
// NODELIFE_LONG=1.
func ownOutputCases() int {
	if os.Getenv("NODELIFE_LONG") == "1" {
		return 10000
	}
	return 1000
}

var t0 = nodelifetest.Epoch()

func sec(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func secs(s int64) *int64 { return &s }

var unreachableNE = taints.Taint{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute}

func tolerate(key string, seconds *int64) taints.Toleration {
	return taints.Toleration{Key: key, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: seconds}
}

// wantViolation checks that err is a violation whose message names every
// one of names.
func wantViolation(t *testing.T, err error, names ...string) {
	t.Helper()
	if !errors.Is(err, nodelifetest.ErrInvariant) {
		t.Fatalf("got %v, want a violation", err)
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("%q does not name %q", err, n)
		}
	}
}

func TestCheckTolerationsPlanted(t *testing.T) {
	// n1 tainted unreachable:NoExecute at +60 s; the pod tolerates it for
	// 30 s, so +90 s is the earliest allowed eviction.
	h := nodelifetest.History{
		Taints: []nodelifetest.TaintChange{
			{At: t0, Node: "n1"},
			{At: sec(60), Node: "n1", Taints: []taints.Taint{unreachableNE}},
		},
		Evictions: []nodelifetest.Eviction{{At: sec(80), Node: "n1", Pod: "shop/web", Tolerations: []taints.Toleration{tolerate(taints.TaintNodeUnreachable, secs(30))}}},
	}
	wantViolation(t, nodelifetest.CheckTolerations(h), "shop/web", "n1", "20s", "30s", "2026-01-01T00:01:20Z")
	h.Evictions[0].At = sec(90)
	if err := nodelifetest.CheckTolerations(h); err != nil {
		t.Fatalf("eviction at +90s: %v", err)
	}
	// Tolerated forever: never allowed.
	h.Evictions[0].Tolerations = []taints.Toleration{tolerate(taints.TaintNodeUnreachable, nil)}
	wantViolation(t, nodelifetest.CheckTolerations(h), "forever")
	// Not tolerated at all: allowed at once.
	h.Evictions[0].Tolerations, h.Evictions[0].At = nil, sec(60)
	if err := nodelifetest.CheckTolerations(h); err != nil {
		t.Fatalf("untolerated: %v", err)
	}
	// The taint went away at +70 s and came back at +75 s: the clock
	// restarts, so +90 s is 15 s after it came back.
	h.Taints = append(h.Taints, nodelifetest.TaintChange{At: sec(70), Node: "n1"}, nodelifetest.TaintChange{At: sec(75), Node: "n1", Taints: []taints.Taint{unreachableNE}})
	h.Evictions[0].At, h.Evictions[0].Tolerations = sec(90), []taints.Toleration{tolerate(taints.TaintNodeUnreachable, secs(30))}
	wantViolation(t, nodelifetest.CheckTolerations(h), "15s")
	// From a node without NoExecute taints.
	h.Taints = append(h.Taints, nodelifetest.TaintChange{At: sec(80), Node: "n1"})
	wantViolation(t, nodelifetest.CheckTolerations(h), "carries no NoExecute taint")
}

func TestCheckZoneRatePlanted(t *testing.T) {
	// Zone r/a at 0.1/s: the first taint takes the only token, the next
	// is allowed 10 s later, not 5 s later.
	h := nodelifetest.History{
		Zones: []nodelifetest.ZoneChange{{At: t0, Zone: "r/a", State: eviction.StateNormal, Rate: 0.1}},
		Taints: []nodelifetest.TaintChange{
			{At: t0, Node: "n1", Zone: "r/a"}, {At: t0, Node: "n2", Zone: "r/a"},
			{At: sec(60), Node: "n1", Zone: "r/a", Taints: []taints.Taint{unreachableNE}},
			{At: sec(65), Node: "n2", Zone: "r/a", Taints: []taints.Taint{unreachableNE}},
		},
	}
	wantViolation(t, nodelifetest.CheckZoneRate(h), "n2", "r/a", "0.500", "0.1/s")
	h.Taints[3].At = sec(70)
	if err := nodelifetest.CheckZoneRate(h); err != nil {
		t.Fatal(err)
	}
	// A rate of 0 stops the tainting.
	h.Zones = append(h.Zones, nodelifetest.ZoneChange{At: sec(61), Zone: "r/a", State: eviction.StatePartialDisruption, Rate: 0})
	wantViolation(t, nodelifetest.CheckZoneRate(h), "n2", "rate 0/s")
}

func TestCheckFullDisruptionPlanted(t *testing.T) {
	h := nodelifetest.History{
		Zones: []nodelifetest.ZoneChange{
			{At: t0, Zone: "r/a", State: eviction.StateNormal, Rate: 0.1}, {At: t0, Zone: "r/b", State: eviction.StateNormal, Rate: 0.1},
			{At: sec(55), Zone: "r/a", State: eviction.StateFullDisruption, Rate: 0.1},
			{At: sec(55), Zone: "r/b", State: eviction.StateFullDisruption, Rate: 0},
		},
		Taints: []nodelifetest.TaintChange{{At: t0, Node: "n1", Zone: "r/a"}, {At: sec(60), Node: "n1", Zone: "r/a", Taints: []taints.Taint{unreachableNE}}},
	}
	wantViolation(t, nodelifetest.CheckFullDisruption(h), "n1", "node.kubernetes.io/unreachable:NoExecute", "every zone")
	h.Zones[3].State = eviction.StatePartialDisruption
	if err := nodelifetest.CheckFullDisruption(h); err != nil {
		t.Fatal(err)
	}
}

func TestCheckUnknownPlanted(t *testing.T) {
	h := nodelifetest.History{
		Heartbeats: []nodelifetest.Mark{{At: t0, Node: "n1"}, {At: sec(10), Node: "n1"}},
		Unknown:    []nodelifetest.Mark{{At: sec(55), Node: "n1"}},
	}
	wantViolation(t, nodelifetest.CheckUnknown(h, 50*time.Second), "n1", "45s")
	h.Unknown[0].At = sec(60)
	if err := nodelifetest.CheckUnknown(h, 50*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestCheckEvictedOnceAndRecoveredPlanted(t *testing.T) {
	h := nodelifetest.History{Evictions: []nodelifetest.Eviction{{At: sec(1), Pod: "a/p"}, {At: sec(2), Pod: "a/p"}}}
	wantViolation(t, nodelifetest.CheckEvictedOnce(h), "a/p", "twice")
	h.End = sec(600)
	h.Final = []core.Node{{Name: "n1", Taints: []taints.Taint{unreachableNE}}}
	wantViolation(t, nodelifetest.CheckRecovered(h), "n1", "not Ready")
}

// TestPropertyLifecycleChecksHoldOnLibrary runs the node lifecycle
// checks on the controller's own output over generated scenarios, and
// shows that CheckUnknown catches upstream's judging on a stale view
// (RunOptions.JudgeStaleView) at least once in them.
func TestPropertyLifecycleChecksHoldOnLibrary(t *testing.T) {
	gen := nodelifetest.Scenarios(nodelifetest.Options{})
	cfg := nodelifecycle.DefaultConfig()
	stale, faults, evictions := 0, 0, 0
	for seed := 0; seed < ownOutputCases(); seed++ {
		s := gen.Example(seed)
		faults += len(s.Faults)
		h, err := s.Run(cfg, nodelifetest.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		evictions += len(h.Evictions)
		if err := nodelifetest.CheckLifecycle(h, cfg.NodeMonitorGracePeriod); err != nil {
			t.Fatalf("seed %d: %v\nfaults %v", seed, err, s.Faults)
		}
		if err := nodelifetest.CheckRecovered(h); err != nil {
			t.Fatalf("seed %d: %v\nfaults %v", seed, err, s.Faults)
		}
		if seed%10 == 0 {
			hs, err := s.Run(cfg, nodelifetest.RunOptions{JudgeStaleView: true})
			if err != nil {
				t.Fatal(err)
			}
			if nodelifetest.CheckUnknown(hs, cfg.NodeMonitorGracePeriod) != nil {
				stale++
			}
		}
	}
	t.Logf("%d scenarios, %d faults, %d evictions; judging on a stale view marked a heartbeating node Unknown in %d of %d", ownOutputCases(), faults, evictions, stale, ownOutputCases()/10)
	if stale == 0 {
		t.Error("CheckUnknown never caught the stale-view behaviour")
	}
}

func TestCheckPressurePlanted(t *testing.T) {
	prio := func(v int32) *int32 { return &v }
	ws := func(v uint64) *pressure.PodStats { return &pressure.PodStats{WorkingSetBytes: &v} }
	pods := []core.Pod{
		{Namespace: "a", Name: "batch", UID: "1", Priority: prio(0)},
		{Namespace: "a", Name: "prod", UID: "2", Priority: prio(1000)},
	}
	stats := pressure.Stats{"1": ws(1 << 30), "2": ws(1 << 30)}
	ranked, err := pressure.Rank(pressure.SignalMemoryAvailable, pressure.LayoutSingle, pods, stats, pressure.RankOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := nodelifetest.CheckRanking(pressure.SignalMemoryAvailable, ranked); err != nil {
		t.Fatal(err)
	}
	// Both exceed their (zero) requests: lower priority first, so
	// swapping them is caught.
	ranked[0], ranked[1] = ranked[1], ranked[0]
	wantViolation(t, nodelifetest.CheckRanking(pressure.SignalMemoryAvailable, ranked), "a/prod", "a/batch")
	crit := core.Pod{Namespace: "kube-system", Name: "etcd", UID: "3", Annotations: map[string]string{core.ConfigSourceAnnotation: core.SourceFile}}
	r := pressure.Result{Decision: pressure.Decision{Evict: &pressure.Eviction{Pod: &crit}}}
	wantViolation(t, nodelifetest.CheckPressureResult(r), "kube-system/etcd", "critical")
}

// TestPropertyPressureChecksHoldOnLibrary runs CheckPressureResult on the
// node-pressure manager's decisions for generated pods, thresholds and
// readings.
func TestPropertyPressureChecksHoldOnLibrary(t *testing.T) {
	pods, obs, layouts := nodelifetest.Pods(nodelifetest.Options{}), nodelifetest.Observations(), nodelifetest.Layouts()
	decided := 0
	for seed := 0; seed < ownOutputCases(); seed++ {
		cfg := pressure.DefaultConfig()
		cfg.Layout = layouts.Example(seed)
		cfg.LocalStorageCapacityIsolation = seed%2 == 0
		m, err := pressure.NewManager(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ps := pods.Example(seed)
		stats := nodelifetest.PodStats(ps).Example(seed)
		r := m.Step(t0, obs.Example(seed), ps, stats)
		if r.Decision.Threshold != nil {
			decided++
		}
		if err := nodelifetest.CheckPressureResult(r); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, s := range pressure.Signals() {
			ranked, err := pressure.Rank(s, cfg.Layout, ps, stats, pressure.RankOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := nodelifetest.CheckRanking(s, ranked); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
	}
	t.Logf("%d cases, %d with a threshold acted on", ownOutputCases(), decided)
}

func TestCheckShutdownPlanPlanted(t *testing.T) {
	cfg := shutdown.Config{ShutdownGracePeriodByPodPriority: []shutdown.PhaseConfig{{Priority: 0, ShutdownGracePeriodSeconds: 20}, {Priority: 1000, ShutdownGracePeriodSeconds: 30}}}
	prio := int32(1000)
	pods := []core.Pod{{Namespace: "a", Name: "db", Priority: &prio, Phase: core.PodRunning}, {Namespace: "a", Name: "web", Phase: core.PodRunning}}
	p, err := cfg.Plan(pods)
	if err != nil {
		t.Fatal(err)
	}
	if err := nodelifetest.CheckShutdownPlan(cfg, pods, p); err != nil {
		t.Fatal(err)
	}
	// The database in the first phase: caught.
	bad := p
	bad.Phases = []shutdown.Phase{p.Phases[0], p.Phases[1]}
	bad.Phases[0].Pods = append(append([]shutdown.PlannedPod(nil), p.Phases[0].Pods...), p.Phases[1].Pods...)
	bad.Phases[1].Pods = nil
	bad.Phases[1].Start, bad.Phases[1].Deadline = 20*time.Second, 20*time.Second
	bad.Total = 20 * time.Second
	wantViolation(t, nodelifetest.CheckShutdownPlan(cfg, pods, bad), "a/db", "phase 0")
	// A kill longer than its phase: caught.
	bad = p
	bad.Phases = []shutdown.Phase{p.Phases[0], p.Phases[1]}
	bad.Phases[1].Pods = []shutdown.PlannedPod{p.Phases[1].Pods[0]}
	bad.Phases[1].Pods[0].GracePeriodSeconds = 45
	wantViolation(t, nodelifetest.CheckShutdownPlan(cfg, pods, bad), "a/db", "45s")
}

// TestPropertyShutdownChecksHoldOnLibrary runs CheckShutdownPlan on the
// planner's plans for generated configs and pods.
func TestPropertyShutdownChecksHoldOnLibrary(t *testing.T) {
	cfgs, pods := nodelifetest.ShutdownConfigs(nodelifetest.Options{Valid: true}), nodelifetest.Pods(nodelifetest.Options{})
	for seed := 0; seed < ownOutputCases(); seed++ {
		cfg := cfgs.Example(seed)
		ps := pods.Example(seed)
		p, err := cfg.Plan(ps)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := nodelifetest.CheckShutdownPlan(cfg, ps, p); err != nil {
			t.Fatalf("seed %d: %v\nconfig %+v", seed, err, cfg)
		}
	}
}

func TestCheckCascadePlanted(t *testing.T) {
	owner := gc.Object{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "a", Name: "rs", UID: "u-rs"}
	ref := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u-rs", BlockOwnerDeletion: ptrTrue()}
	pod := gc.Object{APIVersion: "v1", Kind: "Pod", Namespace: "a", Name: "p", UID: "u-p", OwnerReferences: []metav1.OwnerReference{ref}}
	objs := []gc.Object{owner, pod}
	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationForeground, metav1.DeletePropagationBackground, metav1.DeletePropagationOrphan} {
		res, err := gc.PlanCascade(objs, "u-rs", policy, gc.OwnerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := nodelifetest.CheckCascade(objs, res); err != nil {
			t.Fatalf("%s: %v", policy, err)
		}
	}
	podRef := gc.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: "a", Name: "p", UID: "u-p"}
	rsRef := gc.ObjectRef{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "a", Name: "rs", UID: "u-rs"}
	// The collector deleting the pod while its ReplicaSet lives.
	res := gc.CascadeResult{Steps: []gc.CascadeStep{{Round: 1, Op: gc.OpDelete, Object: podRef, Policy: metav1.DeletePropagationBackground}}}
	wantViolation(t, nodelifetest.CheckCascade(objs, res), "a/p", "ReplicaSet/rs")
	// The ReplicaSet deleted in the foreground and removed before its pod.
	res = gc.CascadeResult{Steps: []gc.CascadeStep{
		{Op: gc.OpDelete, Object: rsRef, Policy: metav1.DeletePropagationForeground},
		{Op: gc.OpRemoved, Object: rsRef},
	}}
	wantViolation(t, nodelifetest.CheckCascade(objs, res), "rs", "[p] still block")
	// Orphaned: removed while the pod still references it.
	res.Steps[0].Policy = metav1.DeletePropagationOrphan
	wantViolation(t, nodelifetest.CheckCascade(objs, res), "rs", "[p] still reference")
}

func ptrTrue() *bool { b := true; return &b }

// TestPropertyCascadeChecksHoldOnLibrary runs CheckCascade on PlanCascade
// for generated owner graphs (any and valid), targets and policies.
func TestPropertyCascadeChecksHoldOnLibrary(t *testing.T) {
	policies := []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan}
	for _, o := range []nodelifetest.Options{{}, {Valid: true}} {
		gen := nodelifetest.OwnerGraphs(o)
		for seed := 0; seed < ownOutputCases()/2; seed++ {
			objs := gen.Example(seed)
			target := objs[seed%len(objs)].UID
			for _, policy := range policies {
				res, err := gc.PlanCascade(objs, target, policy, gc.OwnerOptions{ForegroundBlockingOnly: seed%3 == 0})
				if err != nil {
					t.Fatal(err)
				}
				if err := nodelifetest.CheckCascade(objs, res); err != nil {
					t.Fatalf("seed %d (valid %v), delete %s %s: %v\n%v", seed, o.Valid, target, policy, err, res.Steps)
				}
			}
		}
	}
}

var _ types.UID

func TestCheckTopologyMergePlanted(t *testing.T) {
	info := topology.NUMAInfo{Nodes: []int{0, 1}}
	both, _ := topology.NewBitMask(0, 1)
	wantViolation(t, nodelifetest.CheckTopologyMerge(topology.PolicySingleNUMANode, info, topology.Hint{Affinity: both, Preferred: true}, true), "single-numa-node admitted", "of 2 nodes")
	wantViolation(t, nodelifetest.CheckTopologyMerge(topology.PolicyRestricted, info, topology.Hint{Affinity: both}, true), "restricted admitted the non-preferred")
	wantViolation(t, nodelifetest.CheckTopologyMerge(topology.PolicyBestEffort, info, topology.Hint{Affinity: 4}, true), "outside the machine's nodes")
	if err := nodelifetest.CheckTopologyMerge(topology.PolicySingleNUMANode, info, topology.Hint{Any: true}, false); err != nil {
		t.Fatal(err)
	}
}

// TestPropertyTopologyChecksHoldOnLibrary runs CheckTopologyMerge on
// topology.Merge for generated machines, hint sets and policies.
func TestPropertyTopologyChecksHoldOnLibrary(t *testing.T) {
	machines := nodelifetest.NUMAMachines()
	policies := []topology.Policy{topology.PolicyNone, topology.PolicyBestEffort, topology.PolicyRestricted, topology.PolicySingleNUMANode}
	admitted := 0
	for seed := 0; seed < ownOutputCases(); seed++ {
		info := machines.Example(seed)
		providers := nodelifetest.ProviderHintSets(len(info.Nodes)).Example(seed)
		policy := policies[seed%len(policies)]
		h, admit, err := topology.Merge(policy, info, topology.PolicyOptions{PreferClosestNUMA: seed%3 == 0}, providers)
		if err != nil {
			t.Fatal(err)
		}
		if admit {
			admitted++
		}
		if err := nodelifetest.CheckTopologyMerge(policy, info, h, admit); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	t.Logf("%d merges, %d admitted", ownOutputCases(), admitted)
}
