package cri_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/nodelife/nodelife/core"
	"time"

	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/cri/fake"
	"github.com/nodelife/nodelife/gc"
)

// A runtime that only speaks v1alpha2 (containerd 1.5) fails the kubelet's
// start-up check since 1.26; kubelets 1.23 to 1.25 fell back to it.
func ExampleNegotiate() {
	served := []cri.APIVersion{cri.V1alpha2}
	_, err := cri.Negotiate(served, cri.NegotiateOptions{Endpoint: "unix:///run/containerd/containerd.sock"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, cri.ErrNoCommonVersion))

	n, _ := cri.Negotiate(served, cri.NegotiateOptions{AllowV1alpha2: true})
	fmt.Println(n.Version, "-", n.Warning)
	// Output:
	// validate service connection: validate CRI v1 runtime API for endpoint "unix:///run/containerd/containerd.sock": rpc error: code = Unimplemented desc = unknown service runtime.v1.RuntimeService
	// true
	// v1alpha2 - Falling back to CRI v1alpha2 runtime API (deprecated)
}

func ExampleNegotiateWith() {
	rt, _ := fake.New(nil, nil, nil, 0) // serves v1
	n, err := cri.NegotiateWith(context.Background(), rt, cri.NegotiateOptions{})
	fmt.Println(n.Version, err)
	// Output: v1 <nil>
}

// A pod whose app container's image changed and whose sidecar-less log
// shipper crashed: the app is killed and restarted, the shipper restarted.
func ExampleComputePodActions() {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	pod := core.Pod{Name: "web", Namespace: "default", UID: "uid-1",
		Containers: []core.Container{{Name: "app", Image: "app:v2"}, {Name: "logs", Image: "shipper:v1"}}}
	status := cri.PodStatus{
		Sandboxes: []cri.SandboxStatus{{ID: "sb1", State: cri.SandboxReady, CreatedAt: t0, Network: &cri.SandboxNetwork{IP: "10.0.0.5"}}},
		Containers: []cri.ContainerStatus{
			{ID: "c1", Name: "app", State: cri.ContainerRunning, CreatedAt: t0, Hash: cri.HashContainer("app", "app:v1")},
			{ID: "c2", Name: "logs", State: cri.ContainerExited, ExitCode: 2, CreatedAt: t0, Hash: cri.HashContainer("logs", "shipper:v1")},
		},
	}
	a, err := cri.ComputePodActions(pod, status, cri.SyncOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("create sandbox:", a.CreateSandbox, "kill pod:", a.KillPod)
	for _, k := range a.ContainersToKill {
		fmt.Printf("kill %s (%s): %s\n", k.ID, k.Reason, k.Message)
	}
	for _, s := range a.ContainersToStart {
		fmt.Printf("start %s (%s): %s\n", s.Name, s.Reason, s.Message)
	}
	// Output:
	// create sandbox: false kill pod: false
	// kill c1 (DefinitionChanged): Container app definition changed, will be restarted
	// start app (DefinitionChanged): Container app definition changed, will be restarted
	// start logs (Exited): the container exited with code 2 and the restart policy is Always
}

func ExampleShouldRestart() {
	pod := core.Pod{Name: "job", RestartPolicy: core.RestartPolicyOnFailure}
	fmt.Println(cri.ShouldRestart(pod, &cri.ContainerStatus{State: cri.ContainerExited, ExitCode: 0}))
	fmt.Println(cri.ShouldRestart(pod, &cri.ContainerStatus{State: cri.ContainerExited, ExitCode: 1}))
	fmt.Println(cri.ShouldRestart(pod, nil))
	// Output:
	// false
	// true
	// true
}

// The crash-loop back-off of a container that crashes one second after
// each start: the first restart is immediate, then 10s doubling to 300s.
func ExampleBackoffConfig_Decide() {
	c := cri.DefaultBackoffConfig()
	var e cri.BackoffEntry
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for i := 0; i < 8; i++ {
		finished := start.Add(time.Second)
		d, _ := c.Decide(finished, e, finished)
		wait := time.Duration(0)
		if d.InBackoff {
			wait = d.Remaining
			d, _ = c.Decide(finished.Add(wait), e, finished)
		}
		e = d.Entry
		fmt.Printf("crash %d: restart after %v\n", i+1, wait)
		start = finished.Add(wait)
	}
	// Output:
	// crash 1: restart after 0s
	// crash 2: restart after 10s
	// crash 3: restart after 20s
	// crash 4: restart after 40s
	// crash 5: restart after 1m20s
	// crash 6: restart after 2m40s
	// crash 7: restart after 5m0s
	// crash 8: restart after 5m0s
}

func ExampleBackoffKey() {
	pod := core.Pod{Name: "web", Namespace: "default", UID: "uid-1"}
	c := core.Container{Name: "test_container", Image: "foo/image:v1"}
	fmt.Println(cri.BackoffKey(pod, c))
	fmt.Println(cri.BackoffMessage(pod, c.Name, 40*time.Second))
	// Output:
	// web_default_uid-1_test_container_8e45cbd0
	// back-off 40s restarting failed container=test_container pod=web_default(uid-1)
}

func ExampleHashContainer() {
	fmt.Printf("%#x\n", cri.HashContainer("test_container", "foo/image:v1"))
	// Output: 0x8e45cbd0
}

func ExampleHashContainerJSON() {
	// The legacy full-spec mode hashes the JSON of the whole container.
	fmt.Printf("%#x\n", cri.HashContainerJSON([]byte(`{"image":"foo/image:v1","name":"test_container"}`)))
	// Output: 0x8e45cbd0
}

// A liveness probe with the defaults (period 10s, failure threshold 3)
// against an HTTP endpoint that starts answering 500.
func ExampleProbeWorker() {
	w, _ := cri.NewProbeWorker(cri.Liveness, cri.ProbeSpec{}, core.RestartPolicyAlways)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	obs := cri.ProbeObservation{ContainerID: "c1", Running: true, StartedAt: now, Started: true}
	for _, code := range []int{200, 500, 500, 500, 200} {
		st := w.Step(now, obs)
		if st.Probe {
			st = w.Report(cri.HTTPOutcome(code))
		}
		fmt.Printf("%s HTTP %d -> %s (%s)\n", now.Format("15:04:05"), code, st.Result, st.Why)
		now = st.Next
	}
	fmt.Println(cri.FailureEffect(cri.Liveness, core.RestartPolicyAlways, false).Message)
	// Output:
	// 10:00:00 HTTP 200 -> Success (success 1 in a row)
	// 10:00:10 HTTP 500 -> Success (failure 1 of 3 in a row; the result stays)
	// 10:00:20 HTTP 500 -> Success (failure 2 of 3 in a row; the result stays)
	// 10:00:30 HTTP 500 -> Failure (failure 3 in a row; probing stops until the container is replaced)
	// 10:00:40 HTTP 200 -> Failure (on hold after a failure until the container is replaced)
	// the container failed its liveness probe: it is killed and restarted
}

func ExampleExecOutcome() {
	fmt.Println(cri.ExecOutcome(0, false), cri.ExecOutcome(1, false), cri.TCPOutcome(true), cri.GRPCOutcome(false))
	fmt.Println(cri.HTTPOutcome(199), cri.HTTPOutcome(200), cri.HTTPOutcome(399), cri.HTTPOutcome(400))
	// Output:
	// success failure success failure
	// failure success warning failure
}

// One container GC run: plan with package gc, execute through the runtime.
// The unknown-state container cannot be stopped, so it stays.
func ExampleExecuteContainerPlan() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	containers := []gc.Container{
		{ID: "c1", PodUID: "gone", Name: "app", State: gc.ContainerExited, CreatedAt: now.Add(-time.Hour)},
		{ID: "c2", PodUID: "gone", Name: "app", State: gc.ContainerUnknown, CreatedAt: now.Add(-time.Minute)},
	}
	sandboxes := []gc.Sandbox{{ID: "s1", PodUID: "gone", State: gc.SandboxNotReady, CreatedAt: now.Add(-time.Hour)}}
	rt, _ := fake.New(containers, sandboxes, nil, 0)
	rt.FailWith(func(op cri.Op, id string) error {
		if op == cri.OpStopContainer {
			return errors.New("runtime timed out")
		}
		return nil
	})
	plan, _ := gc.PlanContainers(now, gc.DefaultContainerPolicy(), gc.ContainerGCInput{
		Containers: containers, Sandboxes: sandboxes, PodsSynced: true, AllSourcesReady: true})
	res := cri.ExecuteContainerPlan(context.Background(), rt, plan, cri.ExecOptions{})
	for _, r := range res.Removed {
		fmt.Println("removed", r.Kind, r.ID, r.Reason)
	}
	fmt.Println(res.Err())
	// Output:
	// removed container c1 PodRemoved
	// removed sandbox s1 PodRemoved
	// cri: StopContainer container c2: runtime timed out
}

// An image GC run where one image is still in use: the executor moves on
// to the plan's spare images until the amount is freed.
func ExampleExecuteImagePlan() {
	del := func(id string, size int64) gc.ImageDeletion {
		return gc.ImageDeletion{Image: gc.ImageRecord{ID: id, Size: size}, Reason: gc.ImageReasonSpace}
	}
	plan := gc.ImagePlan{SpacePass: true, AmountToFree: 300,
		Deletions: []gc.ImageDeletion{del("sha256:aaa", 200), del("sha256:bbb", 100)},
		Spare:     []gc.ImageDeletion{del("sha256:ccc", 150), del("sha256:ddd", 50)}}
	rt, _ := fake.New(nil, nil, []gc.Image{{ID: "sha256:aaa", Size: 200}, {ID: "sha256:bbb", Size: 100}, {ID: "sha256:ccc", Size: 150}, {ID: "sha256:ddd", Size: 50}}, 1000)
	rt.FailWith(func(op cri.Op, id string) error {
		if id == "sha256:bbb" {
			return errors.New("image is in use by a container")
		}
		return nil
	})
	res := cri.ExecuteImagePlan(context.Background(), rt, plan, cri.ExecOptions{})
	for _, r := range res.Removed {
		fmt.Println("removed", r.ID, r.Size)
	}
	fmt.Println("freed", res.Freed, "of", plan.AmountToFree)
	// Output:
	// removed sha256:aaa 200
	// removed sha256:ccc 150
	// freed 350 of 300
}
