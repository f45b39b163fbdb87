package conditions

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	t1 = t0.Add(10 * time.Second)
	t2 = t0.Add(20 * time.Second)
)

var fullCapacity = []string{"cpu", "memory", "pods", "ephemeral-storage"}

// nodestatus.ReadyCondition: status, reason and message forms, from
// reference/shutdown-lease-status.md §1.3.
func TestReadyConditionMessages(t *testing.T) {
	runtimeDown := errors.New("container runtime is down")
	netNotReady := errors.New("container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:cni plugin not initialized")
	tests := []struct {
		name   string
		in     ReadyInput
		status Status
		reason string
		msg    string
	}{
		{"healthy", ReadyInput{Capacity: fullCapacity, LocalStorageCapacityIsolation: true},
			True, "KubeletReady", "kubelet is posting ready status"},
		{"one runtime error: its text", ReadyInput{RuntimeErrors: []error{runtimeDown}, Capacity: fullCapacity},
			False, "KubeletNotReady", "container runtime is down"},
		{"runtime and network errors: [a, b] in order", ReadyInput{RuntimeErrors: []error{runtimeDown}, NetworkErrors: []error{netNotReady}, Capacity: fullCapacity},
			False, "KubeletNotReady", "[container runtime is down, " + netNotReady.Error() + "]"},
		{"storage error", ReadyInput{StorageErrors: []error{errors.New("CSINode is not yet initialized")}, Capacity: fullCapacity},
			False, "KubeletNotReady", "CSINode is not yet initialized"},
		{"node is shutting down", ReadyInput{ShutdownErrors: []error{errors.New("node is shutting down")}, Capacity: fullCapacity},
			False, "KubeletNotReady", "node is shutting down"},
		{"order is runtime, network, storage, shutdown", ReadyInput{
			ShutdownErrors: []error{errors.New("d")}, StorageErrors: []error{errors.New("c")},
			NetworkErrors: []error{errors.New("b")}, RuntimeErrors: []error{errors.New("a")}, Capacity: fullCapacity},
			False, "KubeletNotReady", "[a, b, c, d]"},
		{"nil errors are ignored", ReadyInput{RuntimeErrors: []error{nil}, NetworkErrors: []error{nil, nil}, Capacity: fullCapacity},
			True, "KubeletReady", "kubelet is posting ready status"},
		{"duplicate messages collapse", ReadyInput{RuntimeErrors: []error{runtimeDown}, NetworkErrors: []error{errors.New("container runtime is down")}, Capacity: fullCapacity},
			False, "KubeletNotReady", "container runtime is down"},
		{"joined errors are flattened like an aggregate", ReadyInput{RuntimeErrors: []error{errors.Join(errors.New("a"), errors.New("b"))}, Capacity: fullCapacity},
			False, "KubeletNotReady", "[a, b]"},
		{"missing capacities, in cpu, memory, pods order", ReadyInput{Capacity: []string{"pods"}},
			False, "KubeletNotReady", "missing node capacity for resources: cpu, memory"},
		{"ephemeral-storage required only with local storage isolation", ReadyInput{Capacity: []string{"cpu", "memory", "pods"}},
			True, "KubeletReady", "kubelet is posting ready status"},
		{"ephemeral-storage missing with isolation", ReadyInput{Capacity: []string{"cpu", "memory", "pods"}, LocalStorageCapacityIsolation: true},
			False, "KubeletNotReady", "missing node capacity for resources: ephemeral-storage"},
		{"missing capacity comes after the errors", ReadyInput{RuntimeErrors: []error{runtimeDown}, Capacity: []string{"cpu", "memory"}},
			False, "KubeletNotReady", "[container runtime is down, missing node capacity for resources: pods]"},
		{"soft requirement warning on a ready node", ReadyInput{Capacity: fullCapacity, SoftRequirements: errors.New("missing cgroup controllers: hugetlb")},
			True, "KubeletReady", "kubelet is posting ready status. WARNING: missing cgroup controllers: hugetlb"},
		{"soft requirement warning on a not-ready node", ReadyInput{RuntimeErrors: []error{runtimeDown}, Capacity: fullCapacity, SoftRequirements: errors.New("w")},
			False, "KubeletNotReady", "container runtime is down. WARNING: w"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ReadyCondition(tc.in)
			want := Condition{Type: Ready, Status: tc.status, Reason: tc.reason, Message: tc.msg}
			if d := cmp.Diff(want, c); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestSetReadyTimesAndEvents(t *testing.T) {
	ready := ReadyInput{Capacity: fullCapacity}
	down := ReadyInput{RuntimeErrors: []error{errors.New("container runtime is down")}, Capacity: fullCapacity}

	// Creation: transition = heartbeat = now, no event.
	conds, ev := SetReady(t0, nil, ready)
	want := []Condition{{Type: Ready, Status: True, Reason: "KubeletReady", Message: "kubelet is posting ready status", LastHeartbeatTime: t0, LastTransitionTime: t0}}
	if d := cmp.Diff(want, conds); d != "" || ev != nil {
		t.Fatalf("create: event %v (-want +got):\n%s", ev, d)
	}
	// Same status: heartbeat refreshed, transition kept, no event.
	conds, ev = SetReady(t1, conds, ready)
	want[0].LastHeartbeatTime = t1
	if d := cmp.Diff(want, conds); d != "" || ev != nil {
		t.Fatalf("refresh: event %v (-want +got):\n%s", ev, d)
	}
	// Flip to False: transition = now, NodeNotReady.
	conds, ev = SetReady(t2, conds, down)
	want[0] = Condition{Type: Ready, Status: False, Reason: "KubeletNotReady", Message: "container runtime is down", LastHeartbeatTime: t2, LastTransitionTime: t2}
	if d := cmp.Diff(want, conds); d != "" || ev == nil || ev.Reason != "NodeNotReady" {
		t.Fatalf("flip: event %v (-want +got):\n%s", ev, d)
	}
	// Back to True: NodeReady.
	_, ev = SetReady(t2.Add(time.Second), conds, ready)
	if ev == nil || ev.Reason != "NodeReady" || ev.Message("n1") != "Node n1 status is now: NodeReady" {
		t.Fatalf("recover: event %v", ev)
	}
}

// nodestatus.MemoryPressureCondition / DiskPressureCondition /
// PIDPressureCondition reasons, messages and events.
func TestSetPressure(t *testing.T) {
	tests := []struct {
		t                                      Type
		reasonT, msgT, evT, reasonF, msgF, evF string
	}{
		{MemoryPressure, "KubeletHasInsufficientMemory", "kubelet has insufficient memory available", "NodeHasInsufficientMemory",
			"KubeletHasSufficientMemory", "kubelet has sufficient memory available", "NodeHasSufficientMemory"},
		{DiskPressure, "KubeletHasDiskPressure", "kubelet has disk pressure", "NodeHasDiskPressure",
			"KubeletHasNoDiskPressure", "kubelet has no disk pressure", "NodeHasNoDiskPressure"},
		{PIDPressure, "KubeletHasInsufficientPID", "kubelet has insufficient PID available", "NodeHasInsufficientPID",
			"KubeletHasSufficientPID", "kubelet has sufficient PID available", "NodeHasSufficientPID"},
	}
	for _, tc := range tests {
		t.Run(string(tc.t), func(t *testing.T) {
			// Created from nothing: Unknown flips to False, with an event.
			conds, ev, err := SetPressure(t0, nil, tc.t, false)
			want := []Condition{{Type: tc.t, Status: False, Reason: tc.reasonF, Message: tc.msgF, LastHeartbeatTime: t0, LastTransitionTime: t0}}
			if err != nil || ev == nil || ev.Reason != tc.evF {
				t.Fatalf("create: %v, %v", ev, err)
			}
			if d := cmp.Diff(want, conds); d != "" {
				t.Fatalf("create (-want +got):\n%s", d)
			}
			// Unchanged: only the heartbeat moves, no event.
			conds, ev, _ = SetPressure(t1, conds, tc.t, false)
			want[0].LastHeartbeatTime = t1
			if d := cmp.Diff(want, conds); d != "" || ev != nil {
				t.Fatalf("steady: %v (-want +got):\n%s", ev, d)
			}
			// Pressure: True, new reason, transition now, event.
			conds, ev, _ = SetPressure(t2, conds, tc.t, true)
			want[0] = Condition{Type: tc.t, Status: True, Reason: tc.reasonT, Message: tc.msgT, LastHeartbeatTime: t2, LastTransitionTime: t2}
			if d := cmp.Diff(want, conds); d != "" || ev == nil || ev.Reason != tc.evT {
				t.Fatalf("pressure: %v (-want +got):\n%s", ev, d)
			}
		})
	}
}

func TestSetPressureKeepsForeignReasonWhileStatusHolds(t *testing.T) {
	in := []Condition{{Type: MemoryPressure, Status: False, Reason: "SetByController", Message: "m", LastTransitionTime: t0}}
	out, ev, _ := SetPressure(t1, in, MemoryPressure, false)
	if ev != nil || out[0].Reason != "SetByController" || out[0].LastHeartbeatTime != t1 || out[0].LastTransitionTime != t0 {
		t.Errorf("got %+v, %v", out[0], ev)
	}
	if in[0].LastHeartbeatTime != (time.Time{}) {
		t.Error("input modified")
	}
	// An Unknown left by the node controller flips back with an event.
	in[0].Status = Unknown
	if _, ev, _ := SetPressure(t1, in, MemoryPressure, false); ev == nil || ev.Reason != "NodeHasSufficientMemory" {
		t.Errorf("Unknown -> False gave event %v", ev)
	}
}

func TestSetPressureUnknownType(t *testing.T) {
	in := []Condition{{Type: Ready, Status: True}}
	out, ev, err := SetPressure(t0, in, NetworkUnavailable, true)
	if !errors.Is(err, ErrUnknownType) || ev != nil || !cmp.Equal(out, in) {
		t.Errorf("got %v, %v, %v", out, ev, err)
	}
}

func TestSetKubeletConditionsOrder(t *testing.T) {
	in := KubeletInput{DiskPressure: true, Ready: ReadyInput{Capacity: fullCapacity}}
	conds, events := SetKubeletConditions(t0, nil, in)
	var types []Type
	for _, c := range conds {
		types = append(types, c.Type)
	}
	if d := cmp.Diff([]Type{MemoryPressure, DiskPressure, PIDPressure, Ready}, types); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	// Creation: each pressure condition flips from Unknown; Ready's creation is silent.
	if d := cmp.Diff([]Event{{"NodeHasSufficientMemory"}, {"NodeHasDiskPressure"}, {"NodeHasSufficientPID"}}, events); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	// An existing NetworkUnavailable is left alone and keeps its place.
	nu := Condition{Type: NetworkUnavailable, Status: False, Reason: "RouteCreated", LastHeartbeatTime: t0}
	conds, events = SetKubeletConditions(t1, []Condition{nu}, in)
	if conds[0] != nu || len(conds) != 5 || len(events) != 3 {
		t.Errorf("got %v, %v", conds, events)
	}
}

func TestSetKeepsTransitionForSameStatus(t *testing.T) {
	in := []Condition{{Type: Ready, Status: True, LastTransitionTime: t0, LastHeartbeatTime: t0, Reason: "a"}}
	out, tr := Set(t1, in, Condition{Type: Ready, Status: True, Reason: "b"})
	if tr || out[0].LastTransitionTime != t0 || out[0].LastHeartbeatTime != t1 || out[0].Reason != "b" {
		t.Errorf("got %+v, %v", out[0], tr)
	}
	if in[0].Reason != "a" {
		t.Error("input modified")
	}
	if _, ok := Find(out, DiskPressure); ok {
		t.Error("found a missing condition")
	}
}
