package fake_test

import (
	"context"
	"errors"
	"testing"

	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/cri/fake"
	"github.com/nodelife/nodelife/gc"
)

// A failure hook that calls the runtime it is installed on (issue 28's
// audit of callback-taking APIs) neither deadlocks nor corrupts it: the
// nested calls run, and the outer call goes on with the state they left.
func TestFailWithCallingBack(t *testing.T) {
	ctx := context.Background()
	r, err := fake.New([]gc.Container{
		{ID: "c1", PodUID: "p", Name: "a", State: cri.ContainerExited},
		{ID: "c2", PodUID: "p", Name: "b", State: cri.ContainerRunning},
	}, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	errInjected := errors.New("injected")
	var seen int
	r.FailWith(func(op cri.Op, id string) error {
		if op == cri.OpRemoveContainer && id == "c1" {
			cs, err := r.ListContainers(ctx) // nested: consults the hook too
			if err != nil {
				return err
			}
			seen = len(cs)
			return r.StopContainer(ctx, "c2", 0) // nested write
		}
		if op == cri.OpStopContainer && id == "c2" {
			return nil
		}
		if op == fake.OpListContainers {
			return nil
		}
		return errInjected
	})
	if err := r.RemoveContainer(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	r.FailWith(nil)
	cs, _ := r.ListContainers(ctx)
	if seen != 2 || len(cs) != 1 || cs[0].ID != "c2" || cs[0].State != cri.ContainerExited {
		t.Fatalf("seen %d, containers after %+v", seen, cs)
	}
	if err := r.RemoveContainer(ctx, "c2"); err != nil {
		t.Fatal(err)
	}
}
