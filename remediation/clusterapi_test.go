package remediation

import (
	"errors"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
)

// The tables of this file are Cluster API's, from
// sigs.k8s.io/cluster-api core/reconcilers/machinehealthcheck/
// (kubernetes-sigs/cluster-api at ae7ff047db): TestHealthCheckTargets in
// machinehealthcheck_targets_test.go, TestIsAllowedRemediation and
// TestGetMaxUnhealthy in machinehealthcheck_controller_test.go. The
// targets, timeouts and expected values are theirs; a Machine becomes a
// Target, its Node the Target's Node.

const capiTargets = "cluster-api core/reconcilers/machinehealthcheck/machinehealthcheck_targets_test.go TestHealthCheckTargets"

func TestClusterAPIHealthCheckTargets(t *testing.T) {
	now := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	// The cluster's InfrastructureReady and ControlPlaneInitialized turned
	// True an hour earlier.
	cluster := &Cluster{InfrastructureReady: now.Add(-time.Hour), ControlPlaneInitialized: now.Add(-time.Hour)}
	const startup = 10 * time.Minute
	five := 300 * time.Second
	mhc := Config{
		UnhealthyNodeConditions: []UnhealthyCondition{
			{Type: conditions.Ready, Status: conditions.Unknown, Timeout: five},
			{Type: conditions.Ready, Status: conditions.False, Timeout: five},
		},
		UnhealthyMachineConditions: []UnhealthyCondition{
			{Type: "EtcdPodHealthy", Status: conditions.Unknown, Timeout: five},
			{Type: "EtcdPodHealthy", Status: conditions.False, Timeout: five},
		},
	}
	empty := Config{}
	machine := func() Target { return Target{Name: "machine1", NodeName: "node1"} }
	unhealthyNode := func(status conditions.Status, reason string, d time.Duration) *core.Node {
		return &core.Node{Name: "node1", UID: "12345", Conditions: []conditions.Condition{
			{Type: conditions.Ready, Status: status, Reason: reason, LastTransitionTime: now.Add(-d)}}}
	}
	healthyNode := &core.Node{Name: "node1", UID: "12345"}

	infraReady := machine()
	infraReady.Created = now.Add(-100 * time.Second)
	infraReady.InfrastructureReady = infraReady.Created.Add(50 * time.Second)
	created1200 := machine()
	created1200.Created = now.Add(-1200 * time.Second)
	created400 := machine()
	created400.Created = now.Add(-400 * time.Second)
	goneAway := machine()
	goneAway.Node, goneAway.NodeMissing = &core.Node{}, true
	readyFalse := &core.Node{Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.False}}}
	goneAwayEmpty := machine()
	goneAwayEmpty.Node, goneAwayEmpty.NodeMissing = readyFalse, true
	nodeEmpty := machine()
	nodeEmpty.Node = readyFalse
	unknown := func(d time.Duration) Target {
		m := machine()
		m.Node = unhealthyNode(conditions.Unknown, "NodeStatusUnknown", d)
		return m
	}
	healthy := machine()
	healthy.Node = healthyNode
	machineUnhealthy := func(d time.Duration) Target {
		m := machine()
		m.Node = healthyNode
		m.Conditions = []conditions.Condition{{Type: "EtcdPodHealthy", Status: conditions.False, Reason: "Failed", LastTransitionTime: now.Add(-d)}}
		return m
	}
	annotated := machine()
	annotated.Annotations = map[string]string{AnnotationRemediateMachine: ""}

	type want struct {
		health          Health
		reason, message string
	}
	rows := []struct {
		desc     string
		cfg      Config
		startup  time.Duration
		targets  []Target
		healthy  int
		unhealth []want // the unhealthy targets' reason and message (v1beta2 condition)
		next     []time.Duration
	}{
		{desc: "when the node has not yet started for shorter than the timeout", cfg: mhc, startup: startup,
			targets: []Target{created400}, next: []time.Duration{startup - 400*time.Second + time.Second}},
		{desc: "when the node has not yet started for shorter than the timeout, and infra is ready", cfg: mhc, startup: startup,
			targets: []Target{infraReady}, next: []time.Duration{startup - 50*time.Second + time.Second}},
		{desc: "when the node has not yet started for longer than the timeout", cfg: mhc, startup: startup,
			targets:  []Target{created1200},
			unhealth: []want{{Unhealthy, ReasonNodeStartupTimeout, "Health check failed:\n  * Node failed to report startup in 10m0s"}}},
		{desc: "when the node has gone away", cfg: mhc, startup: startup, targets: []Target{goneAway},
			unhealth: []want{{Unhealthy, ReasonNodeDeleted, "Health check failed:\n  * Node node1 has been deleted"}}},
		{desc: "when the node has been in an unknown state for shorter than the timeout", cfg: mhc, startup: startup,
			targets: []Target{unknown(200 * time.Second)}, next: []time.Duration{101 * time.Second}},
		{desc: "when the node has been in an unknown state for longer than the timeout", cfg: mhc, startup: startup,
			targets:  []Target{unknown(400 * time.Second)},
			unhealth: []want{{Unhealthy, ReasonUnhealthyNode, "Health check failed:\n  * Condition Ready on Node is reporting status Unknown with reason NodeStatusUnknown for more than 5m0s"}}},
		{desc: "when the machine condition has been unhealthy for shorter than the timeout", cfg: mhc, startup: startup,
			targets: []Target{machineUnhealthy(200 * time.Second)}, next: []time.Duration{101 * time.Second}},
		{desc: "when the machine condition has been unhealthy for longer than the timeout", cfg: mhc, startup: startup,
			targets:  []Target{machineUnhealthy(400 * time.Second)},
			unhealth: []want{{Unhealthy, ReasonUnhealthyMachine, "Health check failed:\n  * Condition EtcdPodHealthy on Machine is reporting status False with reason Failed for more than 5m0s"}}},
		{desc: "when the node is healthy", cfg: mhc, startup: startup, targets: []Target{healthy}, healthy: 1},
		{desc: "with a mix of healthy and unhealthy nodes", cfg: mhc, startup: startup,
			targets: []Target{unknown(100 * time.Second), unknown(200 * time.Second), unknown(400 * time.Second), healthy}, healthy: 1,
			unhealth: []want{{Unhealthy, ReasonUnhealthyNode, "Health check failed:\n  * Condition Ready on Node is reporting status Unknown with reason NodeStatusUnknown for more than 5m0s"}},
			next:     []time.Duration{201 * time.Second, 101 * time.Second}},
		{desc: "when the node has not started for a long time but the startup timeout is disabled", cfg: mhc, startup: 0,
			targets: []Target{created400}},
		{desc: "when the machine is manually marked for remediation", cfg: mhc, startup: startup, targets: []Target{annotated},
			unhealth: []want{{Unhealthy, ReasonHasRemediateAnnotation, "Health check failed: marked for remediation via cluster.x-k8s.io/remediate-machine annotation"}}},
		{desc: "health check with empty unhealthy conditions and missing node", cfg: empty, startup: startup, targets: []Target{goneAwayEmpty},
			unhealth: []want{{Unhealthy, ReasonNodeDeleted, "Health check failed:\n  * Node node1 has been deleted"}}},
		{desc: "health check with empty unhealthy conditions and node", cfg: empty, startup: startup, targets: []Target{nodeEmpty}, healthy: 1},
	}
	for _, r := range rows {
		t.Run(r.desc, func(t *testing.T) {
			cfg := r.cfg
			cfg.NodeStartupTimeout = r.startup
			p, err := Check(now, cfg, Input{Targets: r.targets, Cluster: cluster})
			if err != nil {
				t.Fatalf("%s: %v", capiTargets, err)
			}
			var got []want
			var next []time.Duration
			for _, v := range p.Verdicts {
				switch v.Health {
				case Unhealthy:
					got = append(got, want{v.Health, v.Reason, v.Message})
				case Pending:
					next = append(next, v.Next.Sub(now))
				}
			}
			if p.Healthy != r.healthy {
				t.Errorf("%s: healthy %d, want %d", capiTargets, p.Healthy, r.healthy)
			}
			if !slices.Equal(got, r.unhealth) {
				t.Errorf("%s: unhealthy %+v, want %+v", capiTargets, got, r.unhealth)
			}
			// ConsistOf: the same durations in any order.
			slices.Sort(next)
			wantNext := slices.Clone(r.next)
			slices.Sort(wantNext)
			if !slices.Equal(next, wantNext) {
				t.Errorf("%s: next checks %v, want %v", capiTargets, next, wantNext)
			}
		})
	}
}

// pct and num are an IntOrString percentage and count.
func pct(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
func num(i int) *intstr.IntOrString    { v := intstr.FromInt32(int32(i)); return &v }

// checkOrInvalid fails t unless err is nil, or, when invalid, wraps
// ErrInvalidConfig; it reports whether the plan is there to check.
func checkOrInvalid(t *testing.T, src string, err error, invalid bool) bool {
	t.Helper()
	if invalid {
		if !errors.Is(err, ErrInvalidConfig) {
			t.Fatalf("%s: err %v, want ErrInvalidConfig", src, err)
		}
		return false
	}
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return true
}

// targetsOf returns expected targets of which healthy are healthy and the
// rest have lost their node.
func targetsOf(expected, healthy int) []Target {
	ts := make([]Target, expected)
	for i := range ts {
		ts[i] = Target{Name: "m" + itoa(i), Node: &core.Node{Name: "n" + itoa(i)}}
		if i >= healthy {
			ts[i].NodeMissing = true
		}
	}
	return ts
}

func TestClusterAPIIsAllowedRemediation(t *testing.T) {
	const src = "cluster-api core/reconcilers/machinehealthcheck/machinehealthcheck_controller_test.go TestIsAllowedRemediation"
	rows := []struct {
		name              string
		maxUnhealthy      *intstr.IntOrString // nil: Cluster API's default, 100%
		expected, healthy int
		allowed           bool
		invalid           bool // Validate refuses the value (upstream: an error, so not allowed)
	}{
		{name: "when maxUnhealthy is not set", expected: 3, healthy: 0, allowed: true},
		{name: "when maxUnhealthy is not an int or percentage", maxUnhealthy: pct("abcdef"), expected: 5, healthy: 2, invalid: true},
		{name: "when maxUnhealthy is an int less than current unhealthy", maxUnhealthy: num(1), expected: 3, healthy: 1},
		{name: "when maxUnhealthy is an int equal to current unhealthy", maxUnhealthy: num(2), expected: 3, healthy: 1, allowed: true},
		{name: "when maxUnhealthy is an int greater than current unhealthy", maxUnhealthy: num(3), expected: 3, healthy: 1, allowed: true},
		{name: "when maxUnhealthy is a percentage less than current unhealthy", maxUnhealthy: pct("50%"), expected: 5, healthy: 2},
		{name: "when maxUnhealthy is a percentage equal to current unhealthy", maxUnhealthy: pct("60%"), expected: 5, healthy: 2, allowed: true},
		{name: "when maxUnhealthy is a percentage greater than current unhealthy", maxUnhealthy: pct("70%"), expected: 5, healthy: 2, allowed: true},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			cfg := MachineHealthCheck()
			cfg.NodeStartupTimeout = 0
			if r.maxUnhealthy != nil {
				cfg.MaxUnhealthy = r.maxUnhealthy
			}
			p, err := Check(time.Unix(0, 0), cfg, Input{Targets: targetsOf(r.expected, r.healthy)})
			if !checkOrInvalid(t, src, err, r.invalid) {
				return
			}
			if p.Total != r.expected || p.Healthy != r.healthy {
				t.Fatalf("%s: counted %d/%d, want %d/%d", src, p.Healthy, p.Total, r.healthy, r.expected)
			}
			if p.Allowed != r.allowed {
				t.Errorf("%s: allowed %v, want %v (%s)", src, p.Allowed, r.allowed, p.GateMessage)
			}
		})
	}
}

func TestClusterAPIGetMaxUnhealthy(t *testing.T) {
	const src = "cluster-api core/reconcilers/machinehealthcheck/machinehealthcheck_controller_test.go TestGetMaxUnhealthy"
	rows := []struct {
		name         string
		maxUnhealthy *intstr.IntOrString
		machines     int
		want         int
		invalid      bool
	}{
		{name: "when maxUnhealthy is nil", machines: 7, want: 7},
		{name: "when maxUnhealthy is not an int or percentage", maxUnhealthy: pct("abcdef"), machines: 3, invalid: true},
		{name: "when maxUnhealthy is an int", maxUnhealthy: num(3), machines: 2, want: 3},
		{name: "when maxUnhealthy is a 40% (of 5)", maxUnhealthy: pct("40%"), machines: 5, want: 2},
		{name: "when maxUnhealthy is a 60% (of 7)", maxUnhealthy: pct("60%"), machines: 7, want: 4},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			cfg := MachineHealthCheck()
			if r.maxUnhealthy != nil {
				cfg.MaxUnhealthy = r.maxUnhealthy
			}
			// Every machine healthy: RemediationsAllowed is maxUnhealthy.
			p, err := Check(time.Unix(0, 0), cfg, Input{Targets: targetsOf(r.machines, r.machines)})
			if !checkOrInvalid(t, src, err, r.invalid) {
				return
			}
			if p.RemediationsAllowed != r.want {
				t.Errorf("%s: maxUnhealthy %d, want %d", src, p.RemediationsAllowed, r.want)
			}
		})
	}
}
