package cri_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/cri/fake"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/nodelifetest"
	"pgregory.net/rapid"
)

// TestPropertyExecuteRemovesExactlyThePlan: a container GC plan executed
// against the fake runtime, with random calls failing, removes exactly the
// planned containers and sandboxes whose calls all succeeded; everything
// else is still there, and each planned item is reported once.
func TestPropertyExecuteRemovesExactlyThePlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := nodelifetest.ContainerGCs(nodelifetest.Options{Now: t0}).Draw(t, "input")
		containers, sandboxes := in.Input.Containers, in.Input.Sandboxes
		in.Input.PodsSynced, in.Input.AllSourcesReady = true, true
		plan, err := gc.PlanContainers(t0.Add(fmtSeconds(100)), in.Policy, in.Input)
		if err != nil {
			t.Fatal(err)
		}
		rt, err := fake.New(containers, sandboxes, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		failing := map[string]bool{}
		for _, id := range rapid.SliceOfDistinct(rapid.SampledFrom(allIDs(containers, sandboxes)), func(s string) string { return s }).Draw(t, "failing") {
			failing[id] = true
		}
		failOp := rapid.SampledFrom([]cri.Op{cri.OpStopContainer, cri.OpRemoveContainer, cri.OpStopPodSandbox, cri.OpRemovePodSandbox}).Draw(t, "failOp")
		rt.FailWith(func(op cri.Op, id string) error {
			if failing[id] && (op == failOp || rapid.Bool().Draw(t, "alsoFail")) {
				return errors.New("injected")
			}
			return nil
		})
		res := cri.ExecuteContainerPlan(context.Background(), rt, plan, cri.ExecOptions{})

		planned := map[string]bool{}
		for _, r := range plan.Containers {
			planned[r.Container.ID] = true
		}
		for _, r := range plan.Sandboxes {
			planned[r.Sandbox.ID] = true
		}
		reported := map[string]int{}
		removed := map[string]bool{}
		for _, r := range res.Removed {
			reported[r.ID]++
			removed[r.ID] = true
		}
		for _, f := range res.Failed {
			reported[f.ID]++
		}
		for id := range planned {
			if reported[id] != 1 {
				t.Fatalf("%s reported %d times", id, reported[id])
			}
		}
		if len(reported) != len(planned) {
			t.Fatalf("reported items outside the plan: %v", reported)
		}
		left, _ := rt.ListContainers(context.Background())
		leftSB, _ := rt.ListPodSandboxes(context.Background())
		for _, c := range containers {
			gone := !slices.ContainsFunc(left, func(x gc.Container) bool { return x.ID == c.ID })
			if gone != removed[c.ID] {
				t.Fatalf("container %s gone=%v removed=%v planned=%v", c.ID, gone, removed[c.ID], planned[c.ID])
			}
		}
		for _, s := range sandboxes {
			gone := !slices.ContainsFunc(leftSB, func(x gc.Sandbox) bool { return x.ID == s.ID })
			if gone != removed[s.ID] {
				t.Fatalf("sandbox %s gone=%v removed=%v", s.ID, gone, removed[s.ID])
			}
		}
	})
}

// TestPropertyExecuteImagesOnlyFromThePlan: an image plan with random
// failures removes only planned images (deletions, then spares in order
// while the space pass is short of AmountToFree after a failure).
func TestPropertyExecuteImagesOnlyFromThePlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ip := nodelifetest.ImagePlans().Draw(t, "plan")
		images, plan := ip.Images, ip.Plan
		failing := map[string]bool{}
		for _, im := range images {
			failing[im.ID] = rapid.Float64().Draw(t, "fail") < 0.3
		}
		if rapid.Bool().Draw(t, "exactAmount") {
			// The boundary: the successful space deletions free exactly the
			// amount, so no spare may be taken.
			plan.AmountToFree = 0
			for _, d := range plan.Deletions {
				if d.Reason == gc.ImageReasonSpace && !failing[d.Image.ID] {
					plan.AmountToFree += d.Image.Size
				}
			}
		}
		rt, _ := fake.New(nil, nil, images, 1000)
		rt.FailWith(func(op cri.Op, id string) error {
			if failing[id] {
				return errors.New("in use")
			}
			return nil
		})
		res := cri.ExecuteImagePlan(context.Background(), rt, plan, cri.ExecOptions{})
		left, _ := rt.ListImages(context.Background())
		var freed int64
		spaceFailed := false
		for _, d := range plan.Deletions {
			if d.Reason == gc.ImageReasonSpace {
				if failing[d.Image.ID] {
					spaceFailed = true
				} else {
					freed += d.Image.Size
				}
			}
		}
		want := map[string]bool{}
		for _, d := range plan.Deletions {
			want[d.Image.ID] = !failing[d.Image.ID]
		}
		for _, d := range plan.Spare {
			if !spaceFailed || freed >= plan.AmountToFree {
				break
			}
			if !failing[d.Image.ID] {
				want[d.Image.ID] = true
				freed += d.Image.Size
			}
		}
		for _, im := range images {
			gone := !slices.ContainsFunc(left, func(x gc.Image) bool { return x.ID == im.ID })
			if gone != want[im.ID] {
				t.Fatalf("image %s gone=%v want %v (res %+v)", im.ID, gone, want[im.ID], res)
			}
		}
		if res.Freed != freed {
			t.Fatalf("freed %d, want %d", res.Freed, freed)
		}
	})
}

func allIDs(cs []gc.Container, ss []gc.Sandbox) []string {
	ids := []string{"none"}
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	return ids
}
