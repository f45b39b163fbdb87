package fake_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/cri/fake"
	"github.com/nodelife/nodelife/gc"
)

func ExampleNew() {
	rt, _ := fake.New(nil, nil, []gc.Image{{ID: "pause", Size: 1, Pinned: true}, {ID: "app", Size: 40}}, 100)
	ctx := context.Background()
	fs, _ := rt.ImageFsInfo(ctx)
	fmt.Println("capacity", fs.Capacity, "available", fs.Available)
	fmt.Println(rt.RemoveImage(ctx, "pause"))
	fmt.Println(rt.RemoveImage(ctx, "app"), rt.RemoveImage(ctx, "app")) // idempotent
	fmt.Println(rt.Calls())
	// Output:
	// capacity 100 available 59
	// fake: image "pause" is pinned
	// <nil> <nil>
	// [{ImageFsInfo } {RemoveImage pause} {RemoveImage app} {RemoveImage app}]
}

func ExampleRuntime_FailWith() {
	rt, _ := fake.New([]gc.Container{{ID: "c1"}}, nil, nil, 0)
	rt.FailWith(func(op cri.Op, id string) error {
		if op == cri.OpRemoveContainer {
			return errors.New("device or resource busy")
		}
		return nil
	})
	fmt.Println(rt.RemoveContainer(context.Background(), "c1"))
	cs, _ := rt.ListContainers(context.Background())
	fmt.Println(len(cs))
	// Output:
	// device or resource busy
	// 1
}

func ExampleRuntime_SetVersions() {
	rt, _ := fake.New(nil, nil, nil, 0)
	rt.SetVersions(cri.V1alpha2)
	_, err := cri.NegotiateWith(context.Background(), rt, cri.NegotiateOptions{Endpoint: "unix:///run/containerd/containerd.sock"})
	fmt.Println(errors.Is(err, cri.ErrNoCommonVersion))
	// Output: true
}
