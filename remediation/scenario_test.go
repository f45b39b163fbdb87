package remediation

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
)

// apply writes a plan's actions into in as a caller records them.
func apply(now time.Time, in *Input, p Plan) {
	in.State = p.State
	for _, a := range p.Actions {
		i := slices.IndexFunc(in.Targets, func(t Target) bool { return t.Name == a.Target })
		switch a.Kind {
		case ActionRemediate:
			in.Targets[i].Remediations = append(in.Targets[i].Remediations, Remediation{Template: a.Template, Started: now})
		case ActionTimeOut:
			r := &in.Targets[i].Remediations[slices.IndexFunc(in.Targets[i].Remediations, func(r Remediation) bool { return r.Template == a.Template })]
			r.TimedOut = now
		case ActionStartHealthyDelay:
			in.Targets[i].HealthyDelayStarted = now
		case ActionEndRemediation:
			in.Targets[i].Remediations, in.Targets[i].HealthyDelayStarted = nil, time.Time{}
		}
	}
}

// summary prints a plan's actions and holds, one per line.
func summary(p Plan) string {
	var b strings.Builder
	for _, a := range p.Actions {
		fmt.Fprintf(&b, "%s %s %s\n", a.Kind, a.Target, a.Template)
	}
	for _, v := range p.Verdicts {
		if v.Hold != "" {
			fmt.Fprintf(&b, "hold %s %s\n", v.Target, v.Hold)
		}
	}
	return b.String()
}

func node(name string, ready conditions.Status, since time.Time) Target {
	return Target{Name: name, Node: &core.Node{Name: name, Conditions: []conditions.Condition{
		{Type: conditions.Ready, Status: ready, LastTransitionTime: since}}}}
}

func setReady(in *Input, name string, s conditions.Status, at time.Time) {
	i := slices.IndexFunc(in.Targets, func(t Target) bool { return t.Name == name })
	n := *in.Targets[i].Node
	n.Conditions = []conditions.Condition{{Type: conditions.Ready, Status: s, LastTransitionTime: at}}
	in.Targets[i].Node = &n
}

type step struct {
	at      time.Duration // after t0
	before  func(in *Input, now time.Time)
	want    string        // summary of the plan
	next    time.Duration // the plan's Next after t0; -1 for none
	healthy int
}

func run(t *testing.T, cfg Config, in Input, t0 time.Time, steps []step) {
	t.Helper()
	for _, s := range steps {
		now := t0.Add(s.at)
		if s.before != nil {
			s.before(&in, now)
		}
		p, err := Check(now, cfg, in)
		if err != nil {
			t.Fatalf("t0+%v: %v", s.at, err)
		}
		if got := summary(p); got != s.want {
			t.Errorf("t0+%v: plan\n%s\nwant\n%s", s.at, got, s.want)
		}
		wantNext := time.Time{}
		if s.next >= 0 {
			wantNext = t0.Add(s.next)
		}
		if !p.Next.Equal(wantNext) {
			t.Errorf("t0+%v: Next %v, want %v", s.at, p.Next.Sub(t0), s.next)
		}
		if p.Healthy != s.healthy {
			t.Errorf("t0+%v: healthy %d, want %d", s.at, p.Healthy, s.healthy)
		}
		apply(p.Now, &in, p)
	}
}

var t0 = time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)

// An escalation worked out by hand from medik8s' rules: Ready Unknown for
// more than 300 s makes n1 unhealthy (at 301 s: "more than" is strict, and
// the check asks to be run again a second after the timeout); "reboot"
// times out 300 s after it started (strictly after, at 602 s) and
// "reprovision" starts at the next run, a second later; n1 is Ready again
// at 700 s, its remediation ends at once (no healthy delay), and it counts
// healthy only at the next run, its remediation objects gone.
func TestEscalation(t *testing.T) {
	cfg := NodeHealthCheck()
	min := intstr.FromString("51%") // of 3 nodes, rounded up: 2
	cfg.MinHealthy = &min
	cfg.EscalatingRemediations = []EscalatingRemediation{
		{Template: "reprovision", Order: 2, Timeout: 30 * time.Minute},
		{Template: "reboot", Order: 1, Timeout: 5 * time.Minute},
	}
	in := Input{Targets: []Target{node("n1", conditions.Unknown, t0), node("n2", conditions.True, t0.Add(-time.Hour)), node("n3", conditions.True, t0.Add(-time.Hour))}}
	run(t, cfg, in, t0, []step{
		{at: 0, want: "", next: 301 * time.Second, healthy: 2},
		{at: 300 * time.Second, want: "", next: 301 * time.Second, healthy: 2},
		{at: 301 * time.Second, want: "Remediate n1 reboot\n", next: 602 * time.Second, healthy: 2},
		{at: 601 * time.Second, want: "hold n1 Remediating\n", next: 601 * time.Second, healthy: 2},
		{at: 602 * time.Second, want: "TimeOut n1 reboot\n", next: 603 * time.Second, healthy: 2},
		{at: 603 * time.Second, want: "Remediate n1 reprovision\n", next: (603 + 1800 + 1) * time.Second, healthy: 2},
		{at: 700 * time.Second, before: func(in *Input, now time.Time) { setReady(in, "n1", conditions.True, now) },
			want: "EndRemediation n1 \n", next: -1, healthy: 2},
		{at: 701 * time.Second, want: "", next: -1, healthy: 3},
	})
}

// When every remediation has timed out, none is left: the node is held
// and nothing is asked again.
func TestEscalationExhausted(t *testing.T) {
	cfg := NodeHealthCheck()
	cfg.MinHealthy = &intstr.IntOrString{}
	cfg.EscalatingRemediations = []EscalatingRemediation{{Template: "reboot", Timeout: time.Minute}}
	n1 := node("n1", conditions.False, t0.Add(-time.Hour))
	n1.Remediations = []Remediation{{Template: "reboot", Started: t0.Add(-2 * time.Minute), TimedOut: t0.Add(-time.Minute)}}
	run(t, cfg, Input{Targets: []Target{n1}}, t0, []step{{at: 0, want: "hold n1 NoRemediationLeft\n", next: -1}})
}

// A remediation reporting failure is timed out at once, before its timeout.
func TestFailedRemediationEscalates(t *testing.T) {
	cfg := NodeHealthCheck()
	cfg.MinHealthy = &intstr.IntOrString{}
	cfg.EscalatingRemediations = []EscalatingRemediation{{Template: "reboot", Order: 1, Timeout: 10 * time.Minute}, {Template: "fence", Order: 2, Timeout: 10 * time.Minute}}
	n1 := node("n1", conditions.False, t0.Add(-time.Hour))
	n1.Remediations = []Remediation{{Template: "reboot", Started: t0.Add(-time.Minute), Failed: true}}
	p, err := Check(t0, cfg, Input{Targets: []Target{n1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 1 || p.Actions[0].Kind != ActionTimeOut || p.Actions[0].Reason != "RemediationFailed" || !p.Next.Equal(t0.Add(time.Second)) {
		t.Fatalf("plan %+v", p)
	}
}

// medik8s' storm recovery, by hand: 5 nodes, minHealthy 3. Three nodes
// unhealthy leave 2 healthy: the gate closes and the storm starts. n3
// recovers at 60 s: 3 healthy, the gate opens, and the cooldown of 10 min
// starts; remediation resumes at 60 s + 10 min (not before: "elapsed <
// cooldown" holds it), run a second later as the cooldown asks.
func TestStormCooldown(t *testing.T) {
	cfg := NodeHealthCheck()
	three := intstr.FromInt32(3)
	cfg.MinHealthy = &three
	cfg.StormCooldownDuration = 10 * time.Minute
	cfg.EscalatingRemediations = []EscalatingRemediation{{Template: "fence"}}
	long := t0.Add(-400 * time.Second)
	in := Input{Targets: []Target{node("n1", conditions.Unknown, long), node("n2", conditions.Unknown, long), node("n3", conditions.Unknown, long),
		node("n4", conditions.True, long), node("n5", conditions.True, long)}}
	run(t, cfg, in, t0, []step{
		{at: 0, want: "StormStarted  \nhold n1 TooManyUnhealthy\nhold n2 TooManyUnhealthy\nhold n3 TooManyUnhealthy\n", next: -1, healthy: 2},
		{at: time.Minute, before: func(in *Input, now time.Time) { setReady(in, "n3", conditions.True, now) },
			want: "CooldownStarted  \nhold n1 StormRecovery\nhold n2 StormRecovery\n", next: 11*time.Minute + time.Second, healthy: 3},
		{at: 6 * time.Minute, want: "hold n1 StormRecovery\nhold n2 StormRecovery\n", next: 11*time.Minute + time.Second, healthy: 3},
		{at: 11*time.Minute - time.Second, want: "hold n1 StormRecovery\nhold n2 StormRecovery\n", next: 11*time.Minute + time.Second, healthy: 3},
		{at: 11 * time.Minute, want: "StormEnded  \nRemediate n1 fence\nRemediate n2 fence\n", next: -1, healthy: 3},
	})
}

// medik8s looks at the storm only while some node is unhealthy: a storm
// whose nodes all recover at once stays active, and its cooldown starts
// only when a node is unhealthy again.
func TestStormWaitsForAnUnhealthyNode(t *testing.T) {
	cfg := NodeHealthCheck()
	one := intstr.FromInt32(1)
	cfg.MinHealthy = &one
	cfg.StormCooldownDuration = time.Minute
	in := Input{Targets: []Target{node("n1", conditions.True, t0.Add(-time.Hour))}, State: State{StormActive: true}}
	run(t, cfg, in, t0, []step{
		{at: 0, want: "", next: -1, healthy: 1},
		{at: time.Hour, before: func(in *Input, now time.Time) {
			in.Targets = append(in.Targets, node("n2", conditions.False, now.Add(-time.Hour)), node("n3", conditions.True, now.Add(-time.Hour)))
		}, want: "CooldownStarted  \nhold n2 StormRecovery\n", next: time.Hour + time.Minute + time.Second, healthy: 2},
	})
}

func TestPauseExclusionControlPlane(t *testing.T) {
	long := t0.Add(-time.Hour)
	t.Run("pause", func(t *testing.T) {
		cfg := NodeHealthCheck()
		cfg.MinHealthy = &intstr.IntOrString{}
		cfg.PauseRequests = []string{"upgrade-operator"}
		recovered := node("n2", conditions.True, long)
		recovered.Remediations = []Remediation{{Started: long}}
		in := Input{Targets: []Target{node("n1", conditions.False, long), recovered}}
		run(t, cfg, in, t0, []step{{at: 0, want: "hold n1 PauseRequested\nhold n2 PauseRequested\n", next: -1}})
	})
	t.Run("exclusion label", func(t *testing.T) {
		cfg := NodeHealthCheck()
		cfg.MinHealthy = &intstr.IntOrString{}
		ex, empty := node("n1", conditions.False, long), node("n2", conditions.False, long)
		ex.Node.Labels = map[string]string{LabelExcludeFromRemediation: "true"}
		empty.Node.Labels = map[string]string{LabelExcludeFromRemediation: ""} // ignored: only "true" excludes
		run(t, cfg, Input{Targets: []Target{ex, empty}}, t0, []step{{at: 0, want: "Remediate n2 \nhold n1 ExcludedFromRemediation\n", next: -1}})
	})
	t.Run("one control-plane node at a time", func(t *testing.T) {
		cfg := NodeHealthCheck()
		cfg.MinHealthy = &intstr.IntOrString{}
		a, b, w := node("cp1", conditions.False, long), node("cp2", conditions.False, long), node("w1", conditions.False, long)
		a.ControlPlane, b.ControlPlane = true, true
		run(t, cfg, Input{Targets: []Target{a, b, w}}, t0, []step{
			{at: 0, want: "Remediate cp1 \nRemediate w1 \nhold cp2 ControlPlaneRemediationInProgress\n", next: time.Minute},
			{at: time.Minute, want: "hold cp1 Remediating\nhold cp2 ControlPlaneRemediationInProgress\nhold w1 Remediating\n", next: 2 * time.Minute},
		})
	})
}

func TestHealthyDelay(t *testing.T) {
	long := t0.Add(-time.Hour)
	recovered := func() Target {
		n := node("n1", conditions.True, t0)
		n.Remediations = []Remediation{{Template: "reboot", Started: long}}
		return n
	}
	cfg := NodeHealthCheck()
	cfg.MinHealthy = &intstr.IntOrString{}
	t.Run("delay", func(t *testing.T) {
		cfg := cfg
		cfg.HealthyDelay = 2 * time.Minute
		run(t, cfg, Input{Targets: []Target{recovered()}}, t0, []step{
			{at: 0, want: "StartHealthyDelay n1 \nhold n1 HealthyDelay\n", next: 2*time.Minute + time.Second},
			{at: time.Minute, want: "hold n1 HealthyDelay\n", next: 2*time.Minute + time.Second},
			{at: 2 * time.Minute, want: "EndRemediation n1 \n", next: -1},
			{at: 2*time.Minute + time.Second, want: "", next: -1, healthy: 1},
		})
	})
	t.Run("manual confirmation", func(t *testing.T) {
		cfg := cfg
		cfg.HealthyDelay = -1
		run(t, cfg, Input{Targets: []Target{recovered()}}, t0, []step{
			{at: 0, want: "hold n1 WaitingForManualConfirmation\n", next: -1},
			{at: time.Hour, before: func(in *Input, _ time.Time) {
				n := *in.Targets[0].Node
				n.Annotations = map[string]string{AnnotationManuallyConfirmedHealthy: ""}
				in.Targets[0].Node = &n
			}, want: "EndRemediation n1 \n", next: -1},
		})
	})
	t.Run("cluster api counts a recovered machine healthy at once", func(t *testing.T) {
		cfg := MachineHealthCheck()
		cfg.UnhealthyNodeConditions = NodeHealthCheck().UnhealthyNodeConditions
		run(t, cfg, Input{Targets: []Target{recovered()}}, t0, []step{{at: 0, want: "EndRemediation n1 \n", next: -1, healthy: 1}})
	})
}

// A clock that goes back is clamped to the latest time the plans wrote: a
// remediation started "after" now has not timed out.
func TestClockBackwards(t *testing.T) {
	cfg := NodeHealthCheck()
	cfg.MinHealthy = &intstr.IntOrString{}
	cfg.EscalatingRemediations = []EscalatingRemediation{{Template: "reboot", Order: 1, Timeout: time.Minute}, {Template: "fence", Order: 2, Timeout: time.Minute}}
	n1 := node("n1", conditions.False, t0.Add(-time.Hour))
	n1.Remediations = []Remediation{{Template: "reboot", Started: t0.Add(time.Hour)}}
	p, err := Check(t0, cfg, Input{Targets: []Target{n1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 0 || !p.Next.Equal(t0.Add(time.Hour+time.Minute)) || !p.Now.Equal(t0.Add(time.Hour)) {
		t.Fatalf("actions %v, next %v, now %v; want none, at the reboot's timeout, at its start", p.Actions, p.Next, p.Now)
	}
	// A newly unhealthy node beside it is remediated at the clamped
	// instant: its timeout runs from there.
	n2 := node("n2", conditions.False, t0.Add(-time.Hour))
	p, err = Check(t0, cfg, Input{Targets: []Target{n2, n1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 1 || p.Actions[0].Target != "n2" || !p.Next.Equal(t0.Add(time.Hour+time.Minute)) {
		t.Fatalf("actions %v, next %v", p.Actions, p.Next)
	}
	n2.Remediations = []Remediation{{Template: "reboot", Started: p.Now}}
	p, _ = Check(t0.Add(time.Hour+time.Minute+time.Second), cfg, Input{Targets: []Target{n2, n1}})
	if len(p.Actions) != 2 || p.Actions[0].Kind != ActionTimeOut || p.Actions[1].Kind != ActionTimeOut {
		t.Fatalf("a minute and a second after the clamped instant both reboots time out: %v", p.Actions)
	}
}

func TestGateRoundingAndRange(t *testing.T) {
	rows := []struct {
		name              string
		cfg               Config
		total, healthy    int
		allowed           bool
		remediationsAllow int
	}{
		// 40% of 7 is 2.8: 2 rounded down (Cluster API), 3 up (medik8s).
		{"maxUnhealthy 40% of 7 rounded down, 3 unhealthy", Config{MaxUnhealthy: pct("40%")}, 7, 4, false, 0},
		{"maxUnhealthy 40% of 7 rounded up, 3 unhealthy", Config{MaxUnhealthy: pct("40%"), Rounding: RoundUp}, 7, 4, true, 0},
		// minHealthy 60% of 7 is 4.2, rounded up: 5.
		{"minHealthy 60% of 7, 4 healthy", Config{MinHealthy: pct("60%")}, 7, 4, false, 0},
		{"minHealthy 60% of 7, 5 healthy", Config{MinHealthy: pct("60%")}, 7, 5, true, 0},
		// medik8s refuses a count above the number of nodes.
		{"maxUnhealthy 5 of 3 rounded up", Config{MaxUnhealthy: &intstr.IntOrString{IntVal: 5}, Rounding: RoundUp}, 3, 1, false, 0},
		{"maxUnhealthy 5 of 3 rounded down", Config{MaxUnhealthy: &intstr.IntOrString{IntVal: 5}}, 3, 1, true, 3},
		{"range [1-3], 0 unhealthy", Config{UnhealthyRange: "[1-3]"}, 5, 5, false, 0},
		{"range [1-3], 2 unhealthy", Config{UnhealthyRange: "[1-3]"}, 5, 3, true, 1},
		{"range [1-3], 4 unhealthy", Config{UnhealthyRange: "[1-3]"}, 5, 1, false, 0},
		{"no gate", Config{}, 5, 1, true, 1},
	}
	for _, r := range rows {
		p, err := Check(t0, r.cfg, Input{Targets: targetsOf(r.total, r.healthy)})
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if p.Allowed != r.allowed || p.RemediationsAllowed != r.remediationsAllow {
			t.Errorf("%s: allowed %v (%d), want %v (%d): %s", r.name, p.Allowed, p.RemediationsAllowed, r.allowed, r.remediationsAllow, p.GateMessage)
		}
		if remediated := slices.ContainsFunc(p.Actions, func(a Action) bool { return a.Kind == ActionRemediate }); remediated != (r.allowed && r.healthy < r.total) {
			t.Errorf("%s: remediated %v with the gate allowed %v", r.name, remediated, r.allowed)
		}
	}
}

func TestClusterNotReady(t *testing.T) {
	cfg := MachineHealthCheck()
	m := Target{Name: "m", NodeMissing: true}
	cp := Target{Name: "cp", NodeMissing: true, ControlPlane: true}
	rows := []struct {
		cl   Cluster
		want []Health
	}{
		{Cluster{}, []Health{NotCounted, NotCounted}},
		{Cluster{ControlPlaneInitialized: t0}, []Health{NotCounted, NotCounted}},
		{Cluster{InfrastructureReady: t0}, []Health{NotCounted, Unhealthy}},
		{Cluster{InfrastructureReady: t0, ControlPlaneInitialized: t0}, []Health{Unhealthy, Unhealthy}},
	}
	for _, r := range rows {
		p, err := Check(t0, cfg, Input{Targets: []Target{m, cp}, Cluster: &r.cl})
		if err != nil {
			t.Fatal(err)
		}
		if got := []Health{p.Verdicts[0].Health, p.Verdicts[1].Health}; !slices.Equal(got, r.want) {
			t.Errorf("cluster %+v: %v, want %v", r.cl, got, r.want)
		}
	}
	// Skipped targets are not counted.
	p, _ := Check(t0, cfg, Input{Targets: []Target{{Name: "a", Annotations: map[string]string{AnnotationPaused: ""}}, {Name: "b", Annotations: map[string]string{AnnotationSkipRemediation: "x"}}}})
	if p.Total != 0 || p.Verdicts[0].Health != Skipped || p.Verdicts[1].Health != Skipped {
		t.Errorf("skipped: %+v", p)
	}
}

func TestValidate(t *testing.T) {
	rows := []struct {
		cfg  Config
		want []string
	}{
		{Config{UnhealthyNodeConditions: []UnhealthyCondition{{Status: "Maybe", Timeout: -1}}},
			[]string{"UnhealthyNodeConditions[0].Type", `"Maybe"`, "UnhealthyNodeConditions[0].Timeout: -1ns"}},
		{Config{NodeStartupTimeout: 10 * time.Second}, []string{"NodeStartupTimeout: 10s"}},
		{Config{MaxUnhealthy: pct("101%")}, []string{`MaxUnhealthy: "101%"`}},
		{Config{MaxUnhealthy: pct("1.5%")}, []string{`MaxUnhealthy: "1.5%"`}},
		{Config{MinHealthy: &intstr.IntOrString{IntVal: -2}}, []string{"MinHealthy: -2"}},
		{Config{MinHealthy: pct("5%"), UnhealthyRange: "[1-2]"}, []string{"at most one"}},
		{Config{UnhealthyRange: "[3-1]"}, []string{`UnhealthyRange: "[3-1]": max 1 is less than min 3`}},
		{Config{UnhealthyRange: "1-3"}, []string{`UnhealthyRange: "1-3"`}},
		{Config{Rounding: 7}, []string{"Rounding: Rounding(7)"}},
		{Config{StormCooldownDuration: -time.Second}, []string{"StormCooldownDuration: -1s"}},
		{Config{EscalatingRemediations: []EscalatingRemediation{{Template: "a", Order: 1, Timeout: 30 * time.Second}, {Template: "a", Order: 1}}},
			[]string{"EscalatingRemediations[0].Timeout: 30s", "EscalatingRemediations[1].Order: 1", `EscalatingRemediations[1].Template: "a"`, "EscalatingRemediations[1].Timeout: 0s"}},
	}
	for _, r := range rows {
		err := r.cfg.Validate()
		if err == nil {
			t.Errorf("%+v: valid", r.cfg)
			continue
		}
		for _, w := range r.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %v\nwants %q", r.cfg, err, w)
			}
		}
		if _, perr := Check(t0, r.cfg, Input{}); perr == nil {
			t.Errorf("%+v: Check accepted it", r.cfg)
		}
	}
	for _, ok := range []Config{{}, MachineHealthCheck(), NodeHealthCheck(), {MinHealthy: pct("05%")}, {MaxUnhealthy: pct("100%")},
		{EscalatingRemediations: []EscalatingRemediation{{Template: "only"}}}} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}
