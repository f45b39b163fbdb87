package conditions_test

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/nodelife/nodelife/conditions"
)

var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ExampleReadyCondition() {
	healthy := conditions.ReadyInput{Capacity: []string{"cpu", "memory", "pods", "ephemeral-storage"}, LocalStorageCapacityIsolation: true}
	fmt.Printf("%+v\n", conditions.ReadyCondition(healthy))

	broken := conditions.ReadyInput{
		RuntimeErrors:  []error{errors.New("container runtime is down")},
		ShutdownErrors: []error{errors.New("node is shutting down")},
		Capacity:       []string{"cpu", "pods"},
	}
	c := conditions.ReadyCondition(broken)
	fmt.Println(c.Status, c.Reason)
	fmt.Println(c.Message)
	// Output:
	// {Type:Ready Status:True LastHeartbeatTime:0001-01-01 00:00:00 +0000 UTC LastTransitionTime:0001-01-01 00:00:00 +0000 UTC Reason:KubeletReady Message:kubelet is posting ready status}
	// False KubeletNotReady
	// [container runtime is down, node is shutting down, missing node capacity for resources: memory]
}

func ExampleSetKubeletConditions() {
	in := conditions.KubeletInput{Ready: conditions.ReadyInput{Capacity: []string{"cpu", "memory", "pods"}}}
	conds, events := conditions.SetKubeletConditions(start, nil, in)
	for _, c := range conds {
		fmt.Println(c.Type, c.Status, c.Reason)
	}
	fmt.Println(events)

	in.MemoryPressure = true
	_, events = conditions.SetKubeletConditions(start.Add(10*time.Second), conds, in)
	fmt.Println(events[0].Message("node-1"))
	// Output:
	// MemoryPressure False KubeletHasSufficientMemory
	// DiskPressure False KubeletHasNoDiskPressure
	// PIDPressure False KubeletHasSufficientPID
	// Ready True KubeletReady
	// [{NodeHasSufficientMemory} {NodeHasNoDiskPressure} {NodeHasSufficientPID}]
	// Node node-1 status is now: NodeHasInsufficientMemory
}

func ExampleSetReady() {
	in := conditions.ReadyInput{Capacity: []string{"cpu", "memory", "pods"}}
	conds, ev := conditions.SetReady(start, nil, in)
	fmt.Println(conds[0].Status, ev)
	in.NetworkErrors = []error{errors.New("container runtime network not ready")}
	conds, ev = conditions.SetReady(start.Add(10*time.Second), conds, in)
	fmt.Println(conds[0].Status, ev.Reason, conds[0].LastTransitionTime.Sub(start))
	// Output:
	// True <nil>
	// False NodeNotReady 10s
}

func ExampleSetPressure() {
	conds, ev, _ := conditions.SetPressure(start, nil, conditions.DiskPressure, true)
	fmt.Println(conds[0].Status, conds[0].Reason, ev.Reason)
	// Output:
	// True KubeletHasDiskPressure NodeHasDiskPressure
}

func ExampleSet() {
	conds, _ := conditions.Set(start, nil, conditions.Condition{Type: conditions.Ready, Status: conditions.True})
	conds, transitioned := conditions.Set(start.Add(time.Minute), conds, conditions.Condition{Type: conditions.Ready, Status: conditions.True})
	c, _ := conditions.Find(conds, conditions.Ready)
	fmt.Println(transitioned, c.LastTransitionTime.Sub(start), c.LastHeartbeatTime.Sub(start))
	// Output:
	// false 0s 1m0s
}

func ExampleStatusChanged() {
	old := []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, LastHeartbeatTime: start}}
	beat := []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, LastHeartbeatTime: start.Add(10 * time.Second)}}
	flip := []conditions.Condition{{Type: conditions.Ready, Status: conditions.False, LastHeartbeatTime: start}}
	fmt.Println(conditions.StatusChanged(old, beat), conditions.StatusChanged(old, flip))
	// Output:
	// false true
}

func ExampleReporter() {
	cfg := conditions.DefaultReportConfig()
	cfg.ReportDelay = false // pre-1.33 behaviour, for a predictable example
	r, _ := conditions.NewReporter(cfg)
	for _, step := range []struct {
		after   time.Duration
		changed bool
	}{{0, false}, {10 * time.Second, false}, {20 * time.Second, true}, {5 * time.Minute, false}, {5*time.Minute + 20*time.Second, false}} {
		now := start.Add(step.after)
		d := r.Step(now, step.changed)
		if d.Post {
			r.Reported(now)
		}
		fmt.Printf("%-7v post=%-5v %-22s next report at +%v\n", step.after, d.Post, d.Reason, d.NextReport.Sub(start))
	}
	// Output:
	// 0s      post=true  FirstReport            next report at +5m0s
	// 10s     post=false NotDue                 next report at +5m0s
	// 20s     post=true  StatusChanged          next report at +5m20s
	// 5m0s    post=false NotDue                 next report at +5m20s
	// 5m20s   post=true  ReportFrequencyElapsed next report at +10m20s
}

func ExampleEffectiveReportFrequency() {
	// --node-status-update-frequency=4s alone also makes reports every 4s.
	fmt.Println(conditions.EffectiveReportFrequency(4*time.Second, true, 0, false))
	// Output:
	// 4s
}

// A node stops posting status and renewing its lease at +0s; with the 50s
// grace period the controller marks it Unknown at the first pass after +50s.
func ExampleMonitorConfig_Observe() {
	cfg := conditions.DefaultMonitorConfig()
	node := conditions.NodeObservation{
		Name:              "node-1",
		CreationTimestamp: start.Add(-time.Hour),
		Conditions:        []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, Reason: "KubeletReady", LastHeartbeatTime: start, LastTransitionTime: start}},
		HasLease:          true,
		LeaseRenewTime:    start,
	}
	var rec conditions.HealthRecord
	for s := 0; s <= 60; s += 5 {
		now := start.Add(time.Duration(s) * time.Second)
		h := cfg.Observe(now, rec, node)
		if h.Write {
			ready, _ := conditions.Find(h.Conditions, conditions.Ready)
			fmt.Printf("+%ds: Ready %s (%s) -> write; mark pods NotReady: %v; event %s\n", s, ready.Status, ready.Reason, h.MarkPodsNotReady, h.Event.Reason)
			node.Conditions, rec = h.Conditions, h.RecordAfterWrite
			continue
		}
		if s%25 == 0 {
			fmt.Printf("+%ds: Ready %s, deadline +%v\n", s, h.CurrentReady.Status, h.Deadline.Sub(start))
		}
		rec = h.Record
	}
	// Output:
	// +0s: Ready True, deadline +50s
	// +25s: Ready True, deadline +50s
	// +50s: Ready True, deadline +50s
	// +55s: Ready Unknown (NodeStatusUnknown) -> write; mark pods NotReady: true; event NodeNotReady
}

func ExampleMonitor() {
	m, _ := conditions.NewMonitor(conditions.DefaultMonitorConfig())
	ready := []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, LastHeartbeatTime: start, LastTransitionTime: start}}
	nodes := []conditions.NodeObservation{
		{Name: "leased", Conditions: ready, HasLease: true, LeaseRenewTime: start},
		{Name: "silent", Conditions: ready},
	}
	m.Step(start, nodes)
	nodes[0].LeaseRenewTime = start.Add(50 * time.Second) // only the first node renews
	for _, u := range m.Step(start.Add(55*time.Second), nodes) {
		fmt.Println(u.Name, u.Health.Write, u.Health.MarkPodsNotReady)
	}
	// Output:
	// silent true true
}

func ExampleParseNodeIPs() {
	ips, err := conditions.ParseNodeIPs("10.0.0.7,fd00::7")
	fmt.Println(ips, err)
	_, err = conditions.ParseNodeIPs("10.0.0.7,10.0.0.8")
	fmt.Println(err)
	// Output:
	// [10.0.0.7 fd00::7] <nil>
	// conditions: invalid node IP: --node-ip "10.0.0.7,10.0.0.8" must contain either a single IP or a dual-stack pair of IPs
}

func ExampleNodeHostIPs() {
	ips, _ := conditions.NodeHostIPs([]conditions.NodeAddress{
		{Type: conditions.NodeExternalIP, Address: "203.0.113.9"},
		{Type: conditions.NodeInternalIP, Address: "10.0.0.7"},
		{Type: conditions.NodeInternalIP, Address: "10.0.0.8"},
		{Type: conditions.NodeInternalIP, Address: "fd00::7"},
	})
	fmt.Println(ips)
	// Output:
	// [10.0.0.7 fd00::7]
}

func ExampleValidateNodeName() {
	fmt.Println(conditions.ValidateNodeName("ip-10-0-0-7.ec2.internal"))
	fmt.Println(errors.Is(conditions.ValidateNodeName("Node_7"), conditions.ErrInvalidNodeName))
	// Output:
	// <nil>
	// true
}

func ExampleIsKubeletLabel() {
	for _, k := range []string{"node.kubernetes.io/pool", "topology.kubernetes.io/zone", "node-role.kubernetes.io/worker"} {
		fmt.Println(k, conditions.IsKubeletLabel(k))
	}
	// Output:
	// node.kubernetes.io/pool true
	// topology.kubernetes.io/zone true
	// node-role.kubernetes.io/worker false
}

func ExampleValidateNodeLabels() {
	err := conditions.ValidateNodeLabels(map[string]string{"node-role.kubernetes.io/worker": "", "example.com/tier": "edge"})
	fmt.Println(errors.Is(err, conditions.ErrInvalidNodeLabel))
	// Output:
	// true
}

func ExampleKubeletLabelNamespaces() {
	fmt.Println(conditions.KubeletLabelNamespaces(), len(conditions.KubeletLabels()))
	// Output:
	// [kubelet.kubernetes.io node.kubernetes.io] 11
}

func ExampleChooseNodeIP() {
	resolved := []netip.Addr{netip.MustParseAddr("127.0.1.1"), netip.MustParseAddr("fd00::7"), netip.MustParseAddr("10.0.0.7")}
	v4, _ := conditions.ChooseNodeIP(resolved, netip.Addr{})
	v6, _ := conditions.ChooseNodeIP(resolved, netip.IPv6Unspecified())
	fmt.Println(v4, v6)
	// Output:
	// 10.0.0.7 fd00::7
}

func ExampleValidateNodeIP() {
	fmt.Println(conditions.ValidateNodeIP(netip.MustParseAddr("169.254.0.9")))
	// Output:
	// conditions: invalid node IP: "169.254.0.9": nodeIP can't be a link-local unicast address
}
