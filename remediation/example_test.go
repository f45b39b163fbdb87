package remediation_test

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/remediation"
)

func readyNode(name string, s conditions.Status, since time.Time) *core.Node {
	return &core.Node{Name: name, Conditions: []conditions.Condition{{Type: conditions.Ready, Status: s, Reason: "NodeStatusUnknown", LastTransitionTime: since}}}
}

// Three machines, one of whose nodes has been Unknown for 6 minutes, one
// still without a node 4 minutes after it was created. maxUnhealthy 40%
// of 3 machines rounds down to 1; the machine without a node counts
// against it too, so the gate is closed: 2 not healthy.
func ExampleMachineHealthCheck() {
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	cfg := remediation.MachineHealthCheck()
	forty := intstr.FromString("40%")
	cfg.MaxUnhealthy = &forty
	cfg.UnhealthyNodeConditions = []remediation.UnhealthyCondition{
		{Type: conditions.Ready, Status: conditions.Unknown, Timeout: 5 * time.Minute}}
	in := remediation.Input{Targets: []remediation.Target{
		{Name: "m1", Node: readyNode("n1", conditions.True, now.Add(-time.Hour))},
		{Name: "m2", Node: readyNode("n2", conditions.Unknown, now.Add(-6*time.Minute))},
		{Name: "m3", Created: now.Add(-4 * time.Minute)},
	}}
	p, err := remediation.Check(now, cfg, in)
	if err != nil {
		panic(err)
	}
	for _, v := range p.Verdicts {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s %s %s %s", v.Target, v.Health, v.Reason, v.Hold)))
	}
	fmt.Println(p.Healthy, "of", p.Total, "healthy; allowed:", p.Allowed)
	fmt.Println(p.GateMessage)
	fmt.Println("next:", p.Next.Sub(now))
	// Output:
	// m1 Healthy Succeeded
	// m2 Unhealthy UnhealthyNode TooManyUnhealthy
	// m3 Pending WaitingForNode
	// 1 of 3 healthy; allowed: false
	// remediation is not allowed: 2 of 3 targets are not healthy, more than maxUnhealthy 40% (1)
	// next: 6m1s
}

// A node Ready=False for 10 minutes, of three: reboot first, and
// reprovision if the reboot has not made it healthy within 5 minutes.
// The caller records what each plan asks and runs Check again at Next.
func ExampleCheck() {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	cfg := remediation.NodeHealthCheck()
	min := intstr.FromInt32(2)
	cfg.MinHealthy = &min
	cfg.EscalatingRemediations = []remediation.EscalatingRemediation{
		{Template: "reboot", Order: 1, Timeout: 5 * time.Minute},
		{Template: "reprovision", Order: 2, Timeout: 30 * time.Minute}}
	in := remediation.Input{}
	for _, n := range []string{"a", "b", "c"} {
		s := conditions.True
		if n == "a" {
			s = conditions.False
		}
		in.Targets = append(in.Targets, remediation.Target{Name: n, Node: readyNode(n, s, t0.Add(-10*time.Minute))})
	}
	now := t0
	for range 3 {
		p, err := remediation.Check(now, cfg, in)
		if err != nil {
			panic(err)
		}
		for _, a := range p.Actions {
			fmt.Printf("t0+%v %s %s %s\n", p.Now.Sub(t0), a.Kind, a.Target, a.Template)
			r := &in.Targets[0].Remediations
			switch a.Kind {
			case remediation.ActionRemediate:
				*r = append(*r, remediation.Remediation{Template: a.Template, Started: p.Now})
			case remediation.ActionTimeOut:
				(*r)[len(*r)-1].TimedOut = p.Now
			}
		}
		now = p.Next
	}
	// Output:
	// t0+0s Remediate a reboot
	// t0+5m1s TimeOut a reboot
	// t0+5m2s Remediate a reprovision
}

// Validate names every bad field and its value.
func ExampleConfig_Validate() {
	cfg := remediation.Config{
		NodeStartupTimeout: 10 * time.Second,
		MaxUnhealthy:       &intstr.IntOrString{Type: intstr.String, StrVal: "120%"},
	}
	fmt.Println(cfg.Validate())
	// Output:
	// remediation: invalid config: NodeStartupTimeout: 10s: must be 0 (disabled) or at least 30s
	// remediation: invalid config: MaxUnhealthy: "120%": a percentage must be a whole number from 0% to 100%
}

// medik8s' storm recovery: with 2 of 4 nodes down and minHealthy 3, the
// storm starts; when one comes back, a cooldown of 10 minutes holds
// remediation of the other.
func ExampleNodeHealthCheck() {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	cfg := remediation.NodeHealthCheck()
	three := intstr.FromInt32(3)
	cfg.MinHealthy = &three
	cfg.StormCooldownDuration = 10 * time.Minute
	long := t0.Add(-time.Hour)
	in := remediation.Input{Targets: []remediation.Target{
		{Name: "a", Node: readyNode("a", conditions.Unknown, long)},
		{Name: "b", Node: readyNode("b", conditions.Unknown, long)},
		{Name: "c", Node: readyNode("c", conditions.True, long)},
		{Name: "d", Node: readyNode("d", conditions.True, long)},
	}}
	show := func(p remediation.Plan) {
		for _, a := range p.Actions {
			fmt.Println(strings.TrimSpace(fmt.Sprintf("t0+%v %s %s", p.Now.Sub(t0), a.Kind, a.Target)))
		}
	}
	p, _ := remediation.Check(t0, cfg, in)
	show(p)
	in.State = p.State
	in.Targets[1].Node = readyNode("b", conditions.True, t0.Add(time.Minute))
	p, _ = remediation.Check(t0.Add(time.Minute), cfg, in)
	show(p)
	fmt.Println("a:", p.Verdicts[0].Hold, "until", p.Next.Sub(t0))
	in.State = p.State
	p, _ = remediation.Check(p.Next, cfg, in)
	show(p)
	// Output:
	// t0+0s StormStarted
	// t0+1m0s CooldownStarted
	// a: StormRecovery until 11m1s
	// t0+11m1s StormEnded
	// t0+11m1s Remediate a
}
