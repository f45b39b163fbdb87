package remediation

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
)

// bytesReader draws small values from fuzz input, zero once it runs out.
type bytesReader struct{ b []byte }

func (r *bytesReader) n(k int) int {
	if len(r.b) == 0 || k <= 0 {
		return 0
	}
	v := int(r.b[0]) % k
	r.b = r.b[1:]
	return v
}

var fuzzStatuses = []conditions.Status{conditions.True, conditions.False, conditions.Unknown, "Maybe"}

// FuzzCheck feeds Check arbitrary configs and targets: it never panics,
// is deterministic, and its plans keep their invariants.
func FuzzCheck(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{0, 0, 0, 0, 3, 200, 100, 50, 25, 12, 6, 3, 1, 0, 255, 254, 253})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &bytesReader{b: data}
		base := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
		at := func() time.Time { return base.Add(time.Duration(r.n(64)-32) * 30 * time.Second) }
		cfg := Config{Rounding: Rounding(r.n(3)), HoldWhileRemediating: r.n(2) == 1, HealthyDelay: time.Duration(r.n(5)-2) * time.Minute,
			StormCooldownDuration: time.Duration(r.n(3)) * time.Minute, NodeStartupTimeout: time.Duration(r.n(3)) * 5 * time.Minute}
		for range r.n(3) {
			cfg.UnhealthyNodeConditions = append(cfg.UnhealthyNodeConditions, UnhealthyCondition{Type: conditions.Ready, Status: fuzzStatuses[r.n(4)], Timeout: time.Duration(r.n(10)) * time.Minute})
		}
		if r.n(3) == 0 {
			cfg.UnhealthyMachineConditions = []UnhealthyCondition{{Type: "X", Status: conditions.False, Timeout: time.Minute}}
		}
		switch r.n(5) {
		case 1:
			v := intstr.FromInt32(int32(r.n(8) - 1))
			cfg.MaxUnhealthy = &v
		case 2:
			v := intstr.FromString(fmt.Sprintf("%d%%", r.n(120)))
			cfg.MinHealthy = &v
		case 3:
			cfg.UnhealthyRange = fmt.Sprintf("[%d-%d]", r.n(5), r.n(5))
		case 4:
			v := intstr.FromString(fmt.Sprintf("%d%%", r.n(101)))
			cfg.MaxUnhealthy = &v
		}
		for i := range r.n(4) {
			cfg.EscalatingRemediations = append(cfg.EscalatingRemediations, EscalatingRemediation{Template: fmt.Sprint("t", r.n(3)), Order: r.n(4), Timeout: time.Duration(r.n(4)) * time.Minute})
			_ = i
		}
		if r.n(6) == 0 {
			cfg.PauseRequests = []string{"p"}
		}
		if r.n(2) == 0 {
			cfg.ExcludeLabel = LabelExcludeFromRemediation
		}
		in := Input{State: State{StormActive: r.n(2) == 1}}
		if r.n(2) == 0 {
			in.State.CooldownStarted = at()
		}
		if r.n(3) == 0 {
			in.Cluster = &Cluster{}
			if r.n(2) == 0 {
				in.Cluster.InfrastructureReady = at()
			}
			if r.n(2) == 0 {
				in.Cluster.ControlPlaneInitialized = at()
			}
		}
		for i := range r.n(8) {
			tg := Target{Name: fmt.Sprint("t", i), Created: at(), ControlPlane: r.n(3) == 0, Deleting: r.n(5) == 0, NodeMissing: r.n(6) == 0}
			if r.n(4) != 0 {
				tg.Node = &core.Node{Name: tg.Name, Conditions: []conditions.Condition{{Type: conditions.Ready, Status: fuzzStatuses[r.n(4)], LastTransitionTime: at()}}}
				if r.n(4) == 0 {
					tg.Node.Labels = map[string]string{LabelExcludeFromRemediation: "true"}
				}
			}
			switch r.n(6) {
			case 0:
				tg.Annotations = map[string]string{AnnotationPaused: ""}
			case 1:
				tg.Annotations = map[string]string{AnnotationRemediateMachine: ""}
			}
			if r.n(3) == 0 {
				tg.Conditions = []conditions.Condition{{Type: "X", Status: conditions.False, LastTransitionTime: at()}}
			}
			for range r.n(3) {
				rm := Remediation{Template: fmt.Sprint("t", r.n(3)), Started: at(), Failed: r.n(4) == 0}
				if r.n(2) == 0 {
					rm.TimedOut = at()
				}
				tg.Remediations = append(tg.Remediations, rm)
			}
			if r.n(3) == 0 {
				tg.HealthyDelayStarted = at()
			}
			in.Targets = append(in.Targets, tg)
		}
		now := at()
		p, err := Check(now, cfg, in)
		p2, err2 := Check(now, cfg, in)
		if !reflect.DeepEqual(p, p2) || (err == nil) != (err2 == nil) {
			t.Fatal("not deterministic")
		}
		if err != nil {
			if cfg.Validate() == nil {
				t.Fatalf("Check refused a valid config: %v", err)
			}
			return
		}
		if len(p.Verdicts) != len(in.Targets) || p.Healthy > p.Total || p.Total > len(in.Targets) {
			t.Fatalf("counts: %d verdicts, %d healthy of %d", len(p.Verdicts), p.Healthy, p.Total)
		}
		if p.Now.Before(now) || (!p.Next.IsZero() && p.Next.Before(p.Now)) {
			t.Fatalf("now %v, plan's %v, next %v", now, p.Now, p.Next)
		}
		for _, a := range p.Actions {
			if p.Paused {
				t.Fatalf("paused, yet %v", a)
			}
			if a.Kind == ActionRemediate && !p.Allowed {
				t.Fatalf("gate closed, yet %v", a)
			}
			if a.Kind <= ActionEndRemediation && !slices.ContainsFunc(in.Targets, func(t Target) bool { return t.Name == a.Target }) {
				t.Fatalf("action on no target: %v", a)
			}
		}
		for i, v := range p.Verdicts {
			if (v.Health == Pending) == v.Next.IsZero() {
				t.Fatalf("verdict %d: %v with Next %v", i, v.Health, v.Next)
			}
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
			cfg := NodeHealthCheck()
			min := intstr.FromString("51%")
			cfg.MinHealthy = &min
			cfg.EscalatingRemediations = []EscalatingRemediation{{Template: "reboot", Order: 1, Timeout: 5 * time.Minute}, {Template: "fence", Order: 2, Timeout: 30 * time.Minute}}
			in := Input{Targets: make([]Target, n)}
			for i := range in.Targets {
				s := conditions.True
				if i%100 == 0 {
					s = conditions.Unknown // 1% unhealthy
				}
				in.Targets[i] = Target{Name: fmt.Sprint("n", i), Node: &core.Node{Name: fmt.Sprint("n", i),
					Conditions: []conditions.Condition{{Type: conditions.Ready, Status: s, LastTransitionTime: now.Add(-time.Hour)}}}}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := Check(now, cfg, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
