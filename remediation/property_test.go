package remediation

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/conditions"
)

// Over drawn health checks and targets driven through time (conditions
// flipping, the plans' actions recorded as a caller records them, plans at
// their Next or later):
//   - a remediation starts only for an Unhealthy target while the gate is
//     open, the check not paused and the target not excluded;
//   - the plan's actions, recorded, are not asked for again at the same
//     instant (a plan is idempotent once written);
//   - a target's remediation ends only when its checks pass;
//   - Next is never before the plan's instant.
func TestPropertyPlansAreConsistent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		t0 := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
		cfg := NodeHealthCheck()
		cfg.HoldWhileRemediating = rapid.Bool().Draw(t, "hold")
		switch rapid.IntRange(0, 3).Draw(t, "gate") {
		case 1:
			v := intstr.FromString(fmt.Sprint(rapid.IntRange(0, 100).Draw(t, "minHealthy"), "%"))
			cfg.MinHealthy = &v
		case 2:
			v := intstr.FromInt32(int32(rapid.IntRange(0, 5).Draw(t, "maxUnhealthy")))
			cfg.MaxUnhealthy = &v
		case 3:
			cfg.UnhealthyRange = fmt.Sprintf("[%d-%d]", rapid.IntRange(0, 2).Draw(t, "lo"), rapid.IntRange(2, 6).Draw(t, "hi"))
		}
		cfg.StormCooldownDuration = time.Duration(rapid.IntRange(0, 3).Draw(t, "cooldown")) * time.Minute
		cfg.HealthyDelay = time.Duration(rapid.IntRange(-1, 2).Draw(t, "healthyDelay")) * time.Minute
		if rapid.Bool().Draw(t, "escalate") {
			cfg.EscalatingRemediations = []EscalatingRemediation{{Template: "reboot", Order: 1, Timeout: time.Minute}, {Template: "fence", Order: 2, Timeout: 2 * time.Minute}}
		}
		if rapid.IntRange(0, 5).Draw(t, "pause") == 0 {
			cfg.PauseRequests = []string{"upgrade"}
		}
		n := rapid.IntRange(1, 6).Draw(t, "targets")
		in := Input{}
		for i := range n {
			tg := node(fmt.Sprint("n", i), conditions.True, t0.Add(-time.Hour))
			tg.ControlPlane = rapid.IntRange(0, 3).Draw(t, "cp") == 0
			if rapid.IntRange(0, 4).Draw(t, "excluded") == 0 {
				tg.Node.Labels = map[string]string{LabelExcludeFromRemediation: "true"}
			}
			in.Targets = append(in.Targets, tg)
		}
		now := t0
		for range rapid.IntRange(1, 40).Draw(t, "steps") {
			if rapid.IntRange(0, 2).Draw(t, "flip") == 0 {
				i := rapid.IntRange(0, n-1).Draw(t, "who")
				s := rapid.SampledFrom([]conditions.Status{conditions.True, conditions.False, conditions.Unknown}).Draw(t, "status")
				tg := &in.Targets[i]
				nd := *tg.Node
				nd.Conditions = []conditions.Condition{{Type: conditions.Ready, Status: s, LastTransitionTime: now}}
				tg.Node = &nd
			}
			p, err := Check(now, cfg, in)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Next.IsZero() && p.Next.Before(p.Now) {
				t.Fatalf("Next %v before %v", p.Next, p.Now)
			}
			verdict := map[string]Verdict{}
			for _, v := range p.Verdicts {
				verdict[v.Target] = v
			}
			for _, a := range p.Actions {
				v := verdict[a.Target]
				switch a.Kind {
				case ActionRemediate:
					i := targetIndex(in.Targets, a.Target)
					excluded := in.Targets[i].Node.Labels[LabelExcludeFromRemediation] == "true"
					if v.Health != Unhealthy || !p.Allowed || p.Paused || excluded {
						t.Fatalf("remediation of %s: %+v, allowed %v, paused %v, excluded %v", a.Target, v, p.Allowed, p.Paused, excluded)
					}
				case ActionEndRemediation:
					if !passes(&v) {
						t.Fatalf("remediation of %s ended with %+v", a.Target, v)
					}
				}
			}
			apply(p.Now, &in, p)
			again, _ := Check(p.Now, cfg, in)
			for _, a := range again.Actions {
				for _, b := range p.Actions {
					if a.Kind == b.Kind && a.Target == b.Target && a.Template == b.Template {
						t.Fatalf("%v %s %s asked for again at the same instant", a.Kind, a.Target, a.Template)
					}
				}
			}
			in.State = again.State
			apply(p.Now, &in, again)
			next := p.Now.Add(time.Duration(rapid.IntRange(1, 120).Draw(t, "advance")) * time.Second)
			if !p.Next.IsZero() && p.Next.Before(next) && rapid.Bool().Draw(t, "atNext") {
				next = p.Next
			}
			now = next
		}
	})
}

func targetIndex(ts []Target, name string) int {
	for i := range ts {
		if ts[i].Name == name {
			return i
		}
	}
	return -1
}
