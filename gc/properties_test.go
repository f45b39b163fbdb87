package gc_test

import (
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/internal/coretest"
	"github.com/nodelife/nodelife/nodelifetest"
	"github.com/nodelife/nodelife/taints"
	"pgregory.net/rapid"
)

// ---- images ----

// naiveImages follows upstream's GarbageCollect literally, with a plain
// bubble sort for the eviction order.
func naiveImages(p gc.ImagePolicy, records []gc.ImageRecord, fs gc.FsStats, beganGC, now time.Time) (deleted []string, freed int64, failed bool) {
	var cands []gc.ImageRecord
	for _, r := range records {
		if !r.InUse && !r.Pinned {
			cands = append(cands, r)
		}
	}
	less := func(a, b gc.ImageRecord) bool {
		if !a.LastUsed.Equal(b.LastUsed) {
			return a.LastUsed.Before(b.LastUsed)
		}
		if !a.FirstDetected.Equal(b.FirstDetected) {
			return a.FirstDetected.Before(b.FirstDetected)
		}
		return a.ID < b.ID
	}
	for i := range cands {
		for j := len(cands) - 1; j > i; j-- {
			if less(cands[j], cands[j-1]) {
				cands[j], cands[j-1] = cands[j-1], cands[j]
			}
		}
	}
	if p.MaxAge != 0 && now.Sub(beganGC) > p.MaxAge {
		var rest []gc.ImageRecord
		for _, r := range cands {
			if now.Sub(r.LastUsed) > p.MaxAge {
				deleted = append(deleted, r.ID)
			} else {
				rest = append(rest, r)
			}
		}
		cands = rest
	}
	avail := fs.Available
	if avail > fs.Capacity {
		avail = fs.Capacity
	}
	if fs.Capacity == 0 {
		return deleted, 0, true
	}
	usage := 100 - int(avail*100/fs.Capacity)
	if usage < p.HighThresholdPercent {
		return deleted, 0, false
	}
	amount := fs.Capacity*int64(100-p.LowThresholdPercent)/100 - avail
	for _, r := range cands {
		if !r.LastUsed.Before(now) || now.Sub(r.FirstDetected) < p.MinAge {
			continue
		}
		deleted = append(deleted, r.ID)
		freed += r.Size
		if freed >= amount {
			break
		}
	}
	return deleted, freed, freed < amount
}

// PlanImages agrees with the naive reference, never plans an in-use or
// pinned image, stops as soon as enough is freed, frees nothing below the
// high threshold, and does not depend on the input order.
func TestPropertyImagePlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := nodelifetest.ImagePolicies().Draw(t, "policy")
		records := nodelifetest.ImageRecords(nodelifetest.Options{Now: gc.T0}).Draw(t, "records")
		capacity := rapid.Int64Range(0, 3000).Draw(t, "capacity")
		fs := gc.FsStats{Capacity: capacity, Available: rapid.Int64Range(0, capacity+100).Draw(t, "available")}
		began := gc.Ago(time.Duration(rapid.IntRange(0, 60).Draw(t, "beganMin")) * time.Minute)

		plan, err := gc.PlanImages(gc.T0, p, records, fs, began)
		if err != nil {
			t.Fatal(err)
		}
		wantDel, wantFreed, wantFailed := naiveImages(p, records, fs, began, gc.T0)
		if d := cmp.Diff(wantDel, gc.ImageIDs(plan.Deletions)); d != "" {
			t.Fatalf("deletions differ from the naive reference (-want +got):\n%s", d)
		}
		if plan.Freed != wantFreed || (plan.Err() != nil) != wantFailed {
			t.Fatalf("freed %d err %v, naive %d failed %v", plan.Freed, plan.Err(), wantFreed, wantFailed)
		}
		byID := map[string]gc.ImageRecord{}
		for _, r := range records {
			byID[r.ID] = r
		}
		var space int64
		var lastSpace int64
		for _, d := range append(append([]gc.ImageDeletion{}, plan.Deletions...), plan.Spare...) {
			if r := byID[d.Image.ID]; r.InUse || r.Pinned {
				t.Fatalf("planned in-use or pinned image %+v", r)
			}
		}
		for _, d := range plan.Deletions {
			if d.Reason == gc.ImageReasonSpace {
				space += d.Image.Size
				lastSpace = d.Image.Size
			}
		}
		if !plan.SpacePass && space != 0 {
			t.Fatalf("space pass below the high threshold freed %d", space)
		}
		if plan.SpacePass {
			// Stops as soon as enough is freed: without its last deletion the
			// pass had not reached the amount; and it only leaves spares when
			// it reached it.
			if space > 0 && space-lastSpace >= plan.AmountToFree && plan.AmountToFree > 0 {
				t.Fatalf("kept deleting after reaching %d (freed %d, last %d)", plan.AmountToFree, space, lastSpace)
			}
			if len(plan.Spare) > 0 && space < plan.AmountToFree {
				t.Fatalf("spares left while short: freed %d of %d", space, plan.AmountToFree)
			}
		}
		perm := rapid.Permutation(records).Draw(t, "perm")
		again, err := gc.PlanImages(gc.T0, p, perm, fs, began)
		if err != nil || !cmp.Equal(plan, again) {
			t.Fatalf("plan depends on input order: %v\n%s", err, cmp.Diff(plan, again))
		}
	})
}

// ---- containers ----

// naiveContainers follows upstream's evictContainers with maps and
// sort.Slice, returning the removed IDs with their reasons and the number
// kept.
func naiveContainers(p gc.ContainerPolicy, in gc.ContainerGCInput, now time.Time) (map[string]gc.ContainerReason, int) {
	type key struct{ uid, name string }
	newer := func(a, b gc.Container) bool { // newest first, larger ID first on ties
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.After(b.CreatedAt)
		}
		return a.ID > b.ID
	}
	units := map[key][]gc.Container{}
	for _, c := range in.Containers {
		if c.State == gc.ContainerRunning || now.Sub(c.CreatedAt) < p.MinAge {
			continue
		}
		units[key{c.PodUID, c.Name}] = append(units[key{c.PodUID, c.Name}], c)
	}
	removed := map[string]gc.ContainerReason{}
	removeOldest := func(cs []gc.Container, n int, reason gc.ContainerReason) []gc.Container {
		sort.Slice(cs, func(i, j int) bool { return newer(cs[i], cs[j]) })
		for _, c := range cs[len(cs)-n:] {
			removed[c.ID] = reason
		}
		return cs[:len(cs)-n]
	}
	gone := func(uid string) bool {
		s, ok := in.Pods[uid]
		if !ok {
			return in.PodsSynced
		}
		return s == gc.PodRemoved || (in.EvictNonDeletedPods && s == gc.PodTerminated)
	}
	if in.AllSourcesReady {
		for k, cs := range units {
			if gone(k.uid) {
				removeOldest(cs, len(cs), gc.ReasonPodRemoved)
				delete(units, k)
			}
		}
	}
	perUnit := func(limit int, reason gc.ContainerReason) {
		for k, cs := range units {
			if len(cs) > limit {
				units[k] = removeOldest(cs, len(cs)-limit, reason)
			}
		}
	}
	if p.MaxPerPodContainer >= 0 {
		perUnit(p.MaxPerPodContainer, gc.ReasonMaxPerPodContainer)
	}
	count := func() int {
		n := 0
		for _, cs := range units {
			n += len(cs)
		}
		return n
	}
	if p.MaxContainers >= 0 && count() > p.MaxContainers {
		per := p.MaxContainers / len(units)
		if per < 1 {
			per = 1
		}
		perUnit(per, gc.ReasonMaxContainersPerUnit)
		if n := count(); n > p.MaxContainers {
			var flat []gc.Container
			for _, cs := range units {
				flat = append(flat, cs...)
			}
			removeOldest(flat, n-p.MaxContainers, gc.ReasonMaxContainers)
			return removed, p.MaxContainers
		}
	}
	return removed, count()
}

// PlanContainers agrees with the naive reference; no live unit is above its
// limit; the node total respects MaxContainers; a unit's newest container
// goes only when its pod is gone, MaxPerPodContainer is 0, or MaxContainers
// forces it; sandboxes removed are inactive; the plan does not depend on
// the input order.
func TestPropertyContainerPlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := nodelifetest.ContainerGCs(nodelifetest.Options{Now: gc.T0}).Draw(t, "input")
		p, in := c.Policy, c.Input
		plan, err := gc.PlanContainers(gc.T0, p, in)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]gc.ContainerReason{}
		for _, r := range plan.Containers {
			if _, dup := got[r.Container.ID]; dup {
				t.Fatalf("%s planned twice", r.Container.ID)
			}
			got[r.Container.ID] = r.Reason
			if r.Container.State == gc.ContainerRunning {
				t.Fatalf("running container planned: %+v", r)
			}
			if r.StopFirst != (r.Container.State == gc.ContainerUnknown) {
				t.Fatalf("StopFirst wrong: %+v", r)
			}
		}
		want, wantKept := naiveContainers(p, in, gc.T0)
		if d := cmp.Diff(want, got); d != "" || plan.Kept != wantKept {
			t.Fatalf("differs from the naive reference (kept %d, naive %d) (-want +got):\n%s", plan.Kept, wantKept, d)
		}

		// Per unit: what is left, and whether the newest went.
		type key struct{ uid, name string }
		left := map[key]int{}
		newest := map[key]gc.Container{}
		total := 0
		for _, c := range in.Containers {
			if c.State == gc.ContainerRunning || gc.T0.Sub(c.CreatedAt) < p.MinAge {
				continue
			}
			k := key{c.PodUID, c.Name}
			if n, ok := newest[k]; !ok || c.CreatedAt.After(n.CreatedAt) || (c.CreatedAt.Equal(n.CreatedAt) && c.ID > n.ID) {
				newest[k] = c
			}
			if _, gone := got[c.ID]; !gone {
				left[k]++
				total++
			}
		}
		if total != plan.Kept {
			t.Fatalf("kept %d, counted %d", plan.Kept, total)
		}
		if p.MaxContainers >= 0 && total > p.MaxContainers {
			t.Fatalf("%d dead containers left, MaxContainers %d", total, p.MaxContainers)
		}
		for k, n := range left {
			if p.MaxPerPodContainer >= 0 && n > p.MaxPerPodContainer {
				t.Fatalf("unit %v keeps %d, MaxPerPodContainer %d", k, n, p.MaxPerPodContainer)
			}
		}
		for k, c := range newest {
			reason, gone := got[c.ID]
			if !gone {
				continue
			}
			ok := reason == gc.ReasonPodRemoved || reason == gc.ReasonMaxContainers ||
				(reason == gc.ReasonMaxPerPodContainer && p.MaxPerPodContainer == 0)
			if !ok {
				t.Fatalf("newest container %s of %v removed for %s", c.ID, k, reason)
			}
		}
		referenced := map[string]bool{}
		for _, c := range in.Containers {
			referenced[c.SandboxID] = true
		}
		newestSandbox := map[string]gc.Sandbox{}
		for _, s := range in.Sandboxes {
			if n, ok := newestSandbox[s.PodUID]; !ok || s.CreatedAt.After(n.CreatedAt) || (s.CreatedAt.Equal(n.CreatedAt) && s.ID > n.ID) {
				newestSandbox[s.PodUID] = s
			}
		}
		for _, s := range plan.Sandboxes {
			if s.Sandbox.State == gc.SandboxReady || referenced[s.Sandbox.ID] {
				t.Fatalf("active sandbox removed: %+v", s)
			}
			if s.Reason != gc.ReasonPodRemoved && newestSandbox[s.Sandbox.PodUID].ID == s.Sandbox.ID {
				t.Fatalf("newest sandbox of a live pod removed: %+v", s)
			}
		}

		in2 := in
		in2.Containers = rapid.Permutation(in.Containers).Draw(t, "permC")
		in2.Sandboxes = rapid.Permutation(in.Sandboxes).Draw(t, "permS")
		again, err := gc.PlanContainers(gc.T0, p, in2)
		if err != nil || !cmp.Equal(plan, again) {
			t.Fatalf("plan depends on input order: %v\n%s", err, cmp.Diff(plan, again))
		}
	})
}

// ---- pods ----

// The pod GC keeps exactly threshold terminated pods, deletes each pod at
// most once, and does not depend on the input order.
func TestPropertyPodGC(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		threshold := rapid.IntRange(-1, 10).Draw(t, "threshold")
		nodes := []core.Node{{Name: "ready", Conditions: coretest.Ready("True")}, {Name: "oos", Conditions: coretest.Ready("False"), Taints: []taints.Taint{{Key: taints.TaintNodeOutOfService}}}}
		pods := nodelifetest.GCPods(nodelifetest.Options{Now: gc.T0}, []string{"ready", "oos", "gone"}).Draw(t, "pods")
		terminated := 0
		for i := range pods {
			if gc.Terminated(&pods[i]) {
				terminated++
			}
		}
		run := func(pods []core.Pod) gc.PodGCPlan {
			g, err := gc.NewPodGC(gc.PodGCConfig{TerminatedPodThreshold: threshold})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.Step(gc.T0, gc.PodGCInput{Pods: pods, Nodes: nodes}); err != nil {
				t.Fatal(err)
			}
			plan, err := g.Step(gc.T0.Add(time.Minute), gc.PodGCInput{Pods: pods, Nodes: nodes})
			if err != nil {
				t.Fatal(err)
			}
			return plan
		}
		plan := run(pods)
		seen := map[string]bool{}
		byReason := map[gc.PodGCReason]int{}
		for _, d := range plan.Deletions {
			if seen[d.Pod.Name] {
				t.Fatalf("%s deleted twice", d.Pod.Name)
			}
			seen[d.Pod.Name] = true
			byReason[d.Reason]++
			if d.SetFailed != (d.Pod.Phase != core.PodSucceeded && d.Pod.Phase != core.PodFailed) {
				t.Fatalf("SetFailed wrong: %+v", d)
			}
		}
		if want := terminated - threshold; threshold > 0 && want > 0 && byReason[gc.PodGCTerminated] != want {
			t.Fatalf("%d terminated, threshold %d: deleted %d", terminated, threshold, byReason[gc.PodGCTerminated])
		}
		for _, p := range pods {
			mustGo := p.NodeName == "gone" || (p.DeletionTimestamp != nil && (p.NodeName == "" || p.NodeName == "oos"))
			if mustGo && !seen[p.Name] {
				t.Fatalf("pod %+v not deleted", p)
			}
		}
		if again := run(rapid.Permutation(pods).Draw(t, "perm")); !cmp.Equal(plan, again) {
			t.Fatalf("plan depends on input order:\n%s", cmp.Diff(plan, again))
		}
	})
}
