package pressure

import (
	"errors"
	"github.com/nodelife/nodelife/core"
	"math"
	"strings"
	"testing"
	"time"
)

func TestLintSettings(t *testing.T) {
	got := LintSettings(Settings{
		EvictionHard:            map[string]string{"nodefs.available": "0.0%", "imagefs.available": "10%%", "memory.available": "100.0%", "pid.available": "0%", "containerfs.available": "5%"},
		EvictionSoft:            map[string]string{"memory.available": "1Gi"},
		EvictionSoftGracePeriod: map[string]string{"memory.available": "0s", "nodefs.available": "1m"},
		EvictionMinimumReclaim:  map[string]string{"imagefs.inodesFree": "1%", "memory.available": "10Mi"},
	})
	var reasons []string
	for _, w := range got {
		reasons = append(reasons, w.Reason)
		if w.Message == "" {
			t.Error("empty message")
		}
	}
	want := "RepeatedPercent,FullPercentThreshold,ZeroPercentThreshold,ZeroSoftGracePeriod,OrphanGracePeriod,OrphanMinimumReclaim,ContainerFsOverwritten"
	// containerfs.available<5% is a percentage too but neither 0 nor 100.
	if s := strings.Join(reasons, ","); s != want {
		t.Fatalf("got  %s\nwant %s", s, want)
	}
	if w := LintSettings(DefaultSettings("linux")); len(w) != 0 {
		t.Fatalf("defaults: %v", w)
	}
}

func TestConfigValidateAndWarnings(t *testing.T) {
	bad := Config{
		Thresholds: []Threshold{
			{Signal: "swap.available", Operator: OpLessThan, Value: ThresholdValue{Quantity: q("1Gi")}},
			{Signal: SignalMemoryAvailable, Operator: "GreaterThan", Value: ThresholdValue{Percentage: 1.5}, GracePeriod: -time.Second},
			{Signal: SignalNodeFsAvailable, Operator: OpLessThan, Value: ThresholdValue{Percentage: float32(math.NaN())}, MinReclaim: &ThresholdValue{Percentage: 0}},
			{Signal: SignalPIDAvailable, Operator: OpLessThan, Value: ThresholdValue{Quantity: q("0")}},
		},
		Layout:                   Layout(5),
		PressureTransitionPeriod: -time.Minute,
	}
	err := bad.Validate()
	for _, s := range []string{
		`Thresholds[0].Signal "swap.available"`,
		`Thresholds[1].Operator "GreaterThan"`,
		`Thresholds[1].Value 150%: percentage must be between 0% and 100%`,
		`Thresholds[1].GracePeriod -1s must be >= 0`,
		`Thresholds[2].Value NaN%: percentage is NaN`,
		`Thresholds[2].MinReclaim 0.0%: percentage must be positive`,
		`Thresholds[3].Value 0: quantity must be positive`,
		`Layout Layout(5)`,
		`PressureTransitionPeriod -1m0s must be >= 0`,
	} {
		if err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("missing %q in %v", s, err)
		}
	}
	if _, err := NewManager(bad); err == nil {
		t.Fatal("NewManager accepted an invalid config")
	}
	// The parser puts no upper bound on a minimum reclaim percentage, so
	// neither does Validate (found by FuzzThresholdGrammar).
	ths, err := Settings{EvictionHard: map[string]string{"nodefs.available": "10%"}, EvictionMinimumReclaim: map[string]string{"nodefs.available": "150%"}}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if err := (Config{Thresholds: ths}).Validate(); err != nil {
		t.Fatal(err)
	}
	split := Config{Layout: LayoutSplit, DisableSeparateDiskGC: true}
	if _, err := NewManager(split); !errors.Is(err, ErrSplitWithoutSeparateDiskGC) {
		t.Fatal(err)
	}
	m, err := NewManager(Config{MaxPodGracePeriodSeconds: -1})
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, w := range m.Warnings() {
		reasons = append(reasons, w.Reason)
	}
	if s := strings.Join(reasons, ","); s != "ZeroValuedContainerFsCopy,ZeroValuedContainerFsCopy,ZeroValuedContainerFsCopy,ZeroValuedContainerFsCopy,NegativeMaxPodGracePeriod,ZeroPressureTransitionPeriod" {
		t.Fatal(s)
	}
}

// TestZeroTransitionPeriodNeverReports: a period of 0 reports no
// condition even while a threshold is met (now - last < 0 is false).
func TestZeroTransitionPeriodNeverReports(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PressureTransitionPeriod = 0
	m, _ := NewManager(cfg)
	r := m.Step(t0, Observations{SignalMemoryAvailable: {Available: mi, Capacity: gi}}, nil, nil)
	// Only memory.available is observed, so its allocatable copy is not met.
	if len(r.Conditions) != 0 || len(r.Met) != 1 {
		t.Fatalf("%+v", r)
	}
}

// TestPlanEvictions: pods in ranking order until threshold + min-reclaim
// is covered; critical pods skipped.
func TestPlanEvictions(t *testing.T) {
	th := Threshold{Signal: SignalMemoryAvailable, Operator: OpLessThan, Value: ThresholdValue{Quantity: q("1Gi")}, MinReclaim: &ThresholdValue{Quantity: q("512Mi")}}
	crit := memPod("crit", 0, "", 4*gi)
	crit.Annotations = map[string]string{core.ConfigMirrorAnnotation: "x"}
	pods := []tp{memPod("a", 0, "", 512*mi), memPod("b", 0, "", 256*mi), memPod("c", 0, "", 128*mi), crit}
	ranked, _ := rank(SignalMemoryAvailable, LayoutSingle, pods, RankOptions{})
	// 1.5Gi needed - 700Mi free = 836Mi: crit skipped, a (512) + b (256) = 768 < 836, + c = 896.
	p := PlanEvictions(th, Observation{Available: 700 * mi, Capacity: 8 * gi}, ranked)
	if p.Need != 836*mi || p.Freed != 896*mi || !p.Enough || strings.Join(names(p.Pods), ",") != "a,b,c" {
		t.Fatalf("%+v %v", p, names(p.Pods))
	}
	p = PlanEvictions(th, Observation{Available: 4 * gi, Capacity: 8 * gi}, ranked)
	if p.Need > 0 || len(p.Pods) != 0 || !p.Enough {
		t.Fatalf("%+v", p)
	}
	p = PlanEvictions(th, Observation{Available: 0, Capacity: 8 * gi}, ranked)
	if p.Enough || len(p.Pods) != 3 {
		t.Fatalf("%+v", p)
	}
}
