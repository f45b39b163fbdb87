package cri_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/cri/fake"
	"github.com/nodelife/nodelife/gc"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func ids(rs []cri.Removed) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = r.ID
	}
	return strings.Join(s, ",")
}

func failedIDs(fs []cri.Failed) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f.Op) + ":" + f.ID
	}
	return strings.Join(s, ",")
}

func imageDeletion(id string, size int64, reason gc.ImageReason) gc.ImageDeletion {
	return gc.ImageDeletion{Image: gc.ImageRecord{ID: id, Size: size}, Reason: reason}
}

func TestExecuteImagePlan(t *testing.T) {
	images := []gc.Image{{ID: "old", Size: 5}, {ID: "a", Size: 10}, {ID: "b", Size: 20}, {ID: "c", Size: 30}, {ID: "d", Size: 40}, {ID: "keep", Size: 1}}
	plan := gc.ImagePlan{
		Deletions:    []gc.ImageDeletion{imageDeletion("old", 5, gc.ImageReasonAge), imageDeletion("a", 10, gc.ImageReasonSpace), imageDeletion("b", 20, gc.ImageReasonSpace)},
		Spare:        []gc.ImageDeletion{imageDeletion("c", 30, gc.ImageReasonSpace), imageDeletion("d", 40, gc.ImageReasonSpace)},
		SpacePass:    true,
		AmountToFree: 25,
	}
	t.Run("all succeed: no spare touched", func(t *testing.T) {
		rt, _ := fake.New(nil, nil, images, 1000)
		res := cri.ExecuteImagePlan(context.Background(), rt, plan, cri.ExecOptions{})
		if ids(res.Removed) != "old,a,b" || res.Freed != 30 || res.Err() != nil {
			t.Errorf("removed %s freed %d err %v", ids(res.Removed), res.Freed, res.Err())
		}
	})
	t.Run("a failed space removal takes spares until the amount is freed", func(t *testing.T) {
		rt, _ := fake.New(nil, nil, images, 1000)
		busy := errors.New("image is in use by a container")
		rt.FailWith(func(op cri.Op, id string) error {
			if id == "b" || id == "c" {
				return busy
			}
			return nil
		})
		res := cri.ExecuteImagePlan(context.Background(), rt, plan, cri.ExecOptions{})
		// a frees 10; b fails; spare c fails; spare d frees 40 -> 50 >= 25.
		if ids(res.Removed) != "old,a,d" || failedIDs(res.Failed) != "RemoveImage:b,RemoveImage:c" || res.Freed != 50 {
			t.Errorf("removed %s failed %s freed %d", ids(res.Removed), failedIDs(res.Failed), res.Freed)
		}
		if err := res.Err(); !errors.Is(err, busy) || !strings.Contains(err.Error(), "cri: RemoveImage image b: image is in use") {
			t.Errorf("err %v", err)
		}
		left, _ := rt.ListImages(context.Background())
		if len(left) != 3 || left[0].ID != "b" || left[1].ID != "c" || left[2].ID != "keep" {
			t.Errorf("left %+v", left)
		}
		res = cri.ExecuteImagePlan(context.Background(), rt, plan, cri.ExecOptions{NoSpares: true})
		if failedIDs(res.Failed) != "RemoveImage:b" {
			t.Errorf("NoSpares: failed %s", failedIDs(res.Failed))
		}
	})
	t.Run("a canceled context skips the rest", func(t *testing.T) {
		rt, _ := fake.New(nil, nil, images, 1000)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res := cri.ExecuteImagePlan(ctx, rt, plan, cri.ExecOptions{})
		if len(res.Removed) != 0 || len(res.Skipped) != 3 || !errors.Is(res.Err(), context.Canceled) {
			t.Errorf("%+v", res)
		}
		if len(rt.Calls()) != 0 {
			t.Errorf("calls after cancel: %v", rt.Calls())
		}
	})
}

func TestExecuteContainerPlan(t *testing.T) {
	containers := []gc.Container{
		{ID: "c1", PodUID: "p1", Name: "app", SandboxID: "s1", State: gc.ContainerExited, CreatedAt: t0},
		{ID: "c2", PodUID: "p1", Name: "app", SandboxID: "s1", State: gc.ContainerUnknown, CreatedAt: t0},
		{ID: "c3", PodUID: "p2", Name: "app", SandboxID: "s2", State: gc.ContainerExited, CreatedAt: t0},
		{ID: "live", PodUID: "p3", Name: "app", SandboxID: "s3", State: gc.ContainerRunning, CreatedAt: t0},
	}
	sandboxes := []gc.Sandbox{{ID: "s1", PodUID: "p1"}, {ID: "s2", PodUID: "p2", State: gc.SandboxNotReady}, {ID: "s9", PodUID: "p9", State: gc.SandboxNotReady}, {ID: "s3", PodUID: "p3"}}
	plan := gc.ContainerPlan{
		Containers: []gc.ContainerRemoval{
			{Container: containers[0], Reason: gc.ReasonPodRemoved},
			{Container: containers[1], StopFirst: true, Reason: gc.ReasonPodRemoved},
			{Container: containers[2], Reason: gc.ReasonMaxPerPodContainer},
		},
		Sandboxes: []gc.SandboxRemoval{{Sandbox: sandboxes[1], Reason: gc.ReasonPodRemoved}, {Sandbox: sandboxes[2], Reason: gc.ReasonPodRemoved}},
	}
	rt, _ := fake.New(containers, sandboxes, nil, 0)
	stopFailed := errors.New("stop timed out")
	rt.FailWith(func(op cri.Op, id string) error {
		if (op == cri.OpStopContainer && id == "c2") || (op == cri.OpStopPodSandbox && id == "s9") {
			return stopFailed
		}
		return nil
	})
	res := cri.ExecuteContainerPlan(context.Background(), rt, plan, cri.ExecOptions{})
	if ids(res.Removed) != "c1,c3,s2" || failedIDs(res.Failed) != "StopContainer:c2,StopPodSandbox:s9" {
		t.Errorf("removed %s failed %s", ids(res.Removed), failedIDs(res.Failed))
	}
	// A failed stop means no removal call, as upstream.
	var calls []string
	for _, c := range rt.Calls() {
		calls = append(calls, string(c.Op)+":"+c.ID)
	}
	want := "RemoveContainer:c1,StopContainer:c2,RemoveContainer:c3,StopPodSandbox:s2,RemovePodSandbox:s2,StopPodSandbox:s9"
	if strings.Join(calls, ",") != want {
		t.Errorf("calls %v\nwant %s", calls, want)
	}
	left, _ := rt.ListContainers(context.Background())
	if len(left) != 2 || left[0].ID != "c2" || left[1].ID != "live" {
		t.Errorf("left %+v", left)
	}
	if res.Removed[0].Reason != string(gc.ReasonPodRemoved) {
		t.Errorf("reason %q", res.Removed[0].Reason)
	}
}

func TestExecuteContainerPlanCanceledMidway(t *testing.T) {
	containers := []gc.Container{{ID: "c1", State: gc.ContainerExited}, {ID: "c2", State: gc.ContainerExited}}
	rt, _ := fake.New(containers, []gc.Sandbox{{ID: "s1", State: gc.SandboxNotReady}}, nil, 0)
	ctx, cancel := context.WithCancel(context.Background())
	rt.FailWith(func(op cri.Op, id string) error {
		if id == "c1" {
			cancel() // the caller gives up while c1 is being removed
		}
		return nil
	})
	plan := gc.ContainerPlan{Containers: []gc.ContainerRemoval{{Container: containers[0]}, {Container: containers[1]}},
		Sandboxes: []gc.SandboxRemoval{{Sandbox: gc.Sandbox{ID: "s1"}}}}
	res := cri.ExecuteContainerPlan(ctx, rt, plan, cri.ExecOptions{})
	if ids(res.Removed) != "c1" || len(res.Skipped) != 2 || res.Skipped[0].ID != "c2" || res.Skipped[1].ID != "s1" ||
		!errors.Is(res.Err(), context.Canceled) || !strings.Contains(res.Err().Error(), "2 planned items not done") {
		t.Errorf("%+v err %v", res, res.Err())
	}
}

func TestFakeRuntime(t *testing.T) {
	if _, err := fake.New([]gc.Container{{ID: "x"}, {ID: "x"}}, nil, nil, 0); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("duplicate: %v", err)
	}
	rt, _ := fake.New([]gc.Container{{ID: "c", SandboxID: "s", State: gc.ContainerRunning}}, []gc.Sandbox{{ID: "s"}},
		[]gc.Image{{ID: "pause", Size: 10, Pinned: true}, {ID: "app", Size: 30}}, 100)
	ctx := context.Background()
	fs, _ := rt.ImageFsInfo(ctx)
	if fs.Capacity != 100 || fs.Available != 60 {
		t.Errorf("fs %+v", fs)
	}
	if err := rt.RemoveImage(ctx, "pause"); err == nil {
		t.Error("removed a pinned image")
	}
	if err := rt.RemoveImage(ctx, "missing"); err != nil {
		t.Errorf("missing image: %v", err)
	}
	_ = rt.StopPodSandbox(ctx, "s")
	cs, _ := rt.ListContainers(ctx)
	sb, _ := rt.ListPodSandboxes(ctx)
	if cs[0].State != gc.ContainerExited || sb[0].State != gc.SandboxNotReady {
		t.Errorf("stop sandbox: %+v %+v", cs, sb)
	}
	_ = rt.RemovePodSandbox(ctx, "s")
	if cs, _ := rt.ListContainers(ctx); len(cs) != 0 {
		t.Errorf("remove sandbox left %+v", cs)
	}
	rt.SetVersions(cri.V1alpha2)
	if _, err := cri.NegotiateWith(ctx, rt, cri.NegotiateOptions{Endpoint: "unix:///run/containerd/containerd.sock"}); !errors.Is(err, cri.ErrNoCommonVersion) {
		t.Errorf("v1alpha2-only fake: %v", err)
	}
}

func fmtSeconds(s int) time.Duration { return time.Duration(s) * time.Second }

func BenchmarkExecuteContainerPlan(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		containers := make([]gc.Container, n)
		plan := gc.ContainerPlan{Containers: make([]gc.ContainerRemoval, n)}
		for i := range containers {
			containers[i] = gc.Container{ID: fmt.Sprintf("c%07d", i), PodUID: fmt.Sprintf("pod%d", i/10), Name: "app", State: gc.ContainerExited, CreatedAt: t0}
			plan.Containers[i] = gc.ContainerRemoval{Container: containers[i], StopFirst: i%10 == 0, Reason: gc.ReasonPodRemoved}
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				rt, _ := fake.New(containers, nil, nil, 0)
				b.StartTimer()
				res := cri.ExecuteContainerPlan(context.Background(), rt, plan, cri.ExecOptions{})
				if len(res.Removed) != n {
					b.Fatalf("removed %d", len(res.Removed))
				}
			}
		})
	}
}

func BenchmarkExecuteImagePlan(b *testing.B) {
	const n = 10000
	images := make([]gc.Image, n)
	plan := gc.ImagePlan{SpacePass: true}
	for i := range images {
		images[i] = gc.Image{ID: fmt.Sprintf("sha256:%064d", i), Size: 1 << 20}
		d := gc.ImageDeletion{Image: gc.ImageRecord{ID: images[i].ID, Size: images[i].Size}, Reason: gc.ImageReasonSpace}
		if i < n/2 {
			plan.Deletions = append(plan.Deletions, d)
		} else {
			plan.Spare = append(plan.Spare, d)
		}
	}
	plan.AmountToFree = int64(n/2) << 20
	b.Run(fmt.Sprintf("n=%d/every-tenth-fails", n), func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			rt, _ := fake.New(nil, nil, images, 1<<40)
			k := 0
			rt.FailWith(func(cri.Op, string) error {
				k++
				if k%10 == 0 {
					return errors.New("busy")
				}
				return nil
			})
			b.StartTimer()
			res := cri.ExecuteImagePlan(context.Background(), rt, plan, cri.ExecOptions{})
			if res.Freed < plan.AmountToFree {
				b.Fatalf("freed %d", res.Freed)
			}
		}
	})
}
