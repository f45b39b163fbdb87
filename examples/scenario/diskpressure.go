package scenario

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/cri/fake"
	"github.com/nodelife/nodelife/eviction/pressure"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/internal/quantity"
)

// DiskPressure follows a node whose root filesystem (images, writable
// layers and logs on one disk, 100Gi) fills up:
//
//  1. +0s, the kubelet's image GC: usage is 88%, at or above the 85% high
//     threshold, so it frees down to 80% (8Gi), least recently used image
//     first; one removal fails because a dead container still uses the
//     image, and the executor moves on to the next candidate, as upstream.
//  2. +0s, the container GC trims dead containers: one per container
//     name is kept, a removed pod loses all of its, and its sandbox goes.
//  3. +600s, a pod's logs have eaten the disk: nodefs.available is 8Gi,
//     under the 10% hard threshold. The eviction manager reports
//     DiskPressure and asks for node-level reclaim first (delete every
//     unused container and image); that frees 6Gi, short of the threshold
//     plus the 5Gi minimum reclaim, so it evicts the first pod of its
//     ranking (pods over their ephemeral-storage request first, then by
//     priority, then by how far over).
//     The threshold quantity in the eviction message is 10737418400, not
//     10Gi: upstream keeps percentages as float32, and float32(0.1) of 100Gi
//     is 160 bytes more than 10Gi.
//  4. New pods are refused while DiskPressure holds, and the condition is
//     kept until five minutes after the last step that met the threshold.
//
// Everything runs against the in-memory CRI runtime of cri/fake, through
// the executors a real kubelet replacement would use. Options.Size is the
// number of pods on the node (default 6; extra pods are small batch jobs).
func DiskPressure(opts Options) (Report, error) {
	r := Report{Name: "disk-pressure", Title: "the root disk fills up: image GC, dead-container trim, then node-pressure eviction"}
	const gi = int64(1) << 30
	at := func(s int) time.Time { return Start.Add(time.Duration(s) * time.Second) }
	ctx := context.Background()

	// The runtime: images, containers (two dead ones of a removed batch
	// pod, three dead restarts of web-0's nginx) and sandboxes.
	images := []gc.Image{
		{ID: "sha256:pause", Size: 1 * gi, Pinned: true},
		{ID: "sha256:web-v3", Size: 4 * gi},
		{ID: "sha256:web-v2", Size: 4 * gi},
		{ID: "sha256:web-v1", Size: 4 * gi},
		{ID: "sha256:trainer", Size: 10 * gi},
		{ID: "sha256:debug", Size: 2 * gi},
	}
	ago := func(d time.Duration) time.Time { return Start.Add(-d) }
	records := []gc.ImageRecord{
		{ID: "sha256:pause", Size: 1 * gi, Pinned: true, FirstDetected: ago(72 * time.Hour), LastUsed: Start, InUse: true},
		{ID: "sha256:web-v3", Size: 4 * gi, FirstDetected: ago(time.Hour), LastUsed: Start, InUse: true},
		{ID: "sha256:web-v2", Size: 4 * gi, FirstDetected: ago(24 * time.Hour), LastUsed: ago(3 * time.Hour)},
		{ID: "sha256:web-v1", Size: 4 * gi, FirstDetected: ago(72 * time.Hour), LastUsed: ago(48 * time.Hour)},
		{ID: "sha256:trainer", Size: 10 * gi, FirstDetected: ago(5 * time.Hour), LastUsed: ago(time.Hour)},
		{ID: "sha256:debug", Size: 2 * gi, FirstDetected: ago(time.Minute)},
	}
	containers := []gc.Container{
		{ID: "c-web0-nginx", PodUID: "uid-web-0", Name: "nginx", SandboxID: "sb-web-0", State: gc.ContainerRunning, CreatedAt: ago(10 * time.Minute)},
		{ID: "c-web0-nginx-r3", PodUID: "uid-web-0", Name: "nginx", SandboxID: "sb-web-0", State: gc.ContainerExited, CreatedAt: ago(20 * time.Minute)},
		{ID: "c-web0-nginx-r2", PodUID: "uid-web-0", Name: "nginx", SandboxID: "sb-web-0", State: gc.ContainerExited, CreatedAt: ago(30 * time.Minute)},
		{ID: "c-web0-nginx-r1", PodUID: "uid-web-0", Name: "nginx", SandboxID: "sb-web-0", State: gc.ContainerExited, CreatedAt: ago(40 * time.Minute)},
		{ID: "c-batch-main", PodUID: "uid-batch", Name: "main", SandboxID: "sb-batch", State: gc.ContainerExited, CreatedAt: ago(2 * time.Hour)},
		{ID: "c-batch-migrate", PodUID: "uid-batch", Name: "migrate", SandboxID: "sb-batch", State: gc.ContainerExited, CreatedAt: ago(3 * time.Hour)},
	}
	sandboxes := []gc.Sandbox{
		{ID: "sb-web-0", PodUID: "uid-web-0", State: gc.SandboxReady, CreatedAt: ago(time.Hour)},
		{ID: "sb-batch", PodUID: "uid-batch", State: gc.SandboxNotReady, CreatedAt: ago(3 * time.Hour)},
	}
	rt, err := fake.New(containers, sandboxes, images, 100*gi)
	if err != nil {
		return r, err
	}
	// The batch pod's dead "migrate" container still references web:v1, so
	// the runtime refuses to remove that image until the container is gone.
	inUse := true // until the container GC removes c-batch-migrate
	rt.FailWith(func(op cri.Op, id string) error {
		if op == cri.OpRemoveImage && id == "sha256:web-v1" && inUse {
			return errors.New("conflict: image is being used by stopped container c-batch-migrate")
		}
		return nil
	})
	available := 12 * gi // of 100Gi: images, writable layers and logs

	// 1. Image GC.
	policy := gc.DefaultImagePolicy()
	plan, err := gc.PlanImages(at(0), policy, records, gc.FsStats{Capacity: 100 * gi, Available: available}, ago(time.Hour))
	if err != nil {
		return r, err
	}
	r.at(0, "imagegc", "nodefs", "", "image GC: usage %d%% >= high threshold %d%%: free %s to reach %d%%",
		plan.UsagePercent, policy.HighThresholdPercent, gib(plan.AmountToFree), policy.LowThresholdPercent)
	for _, d := range plan.Deletions {
		r.at(0, "imagegc", d.Image.ID, string(d.Reason), "  plan: delete %s (%s, last used %s ago)", d.Image.ID, gib(d.Image.Size), Start.Sub(d.Image.LastUsed))
	}
	for _, d := range plan.Spare {
		r.at(0, "imagegc", d.Image.ID, string(d.Reason), "  spare: %s (%s) if a deletion fails", d.Image.ID, gib(d.Image.Size))
	}
	res := cri.ExecuteImagePlan(ctx, rt, plan, cri.ExecOptions{})
	reportExec(&r, 0, res)
	available += res.Freed
	r.at(0, "imagegc", "nodefs", "", "image GC freed %s: nodefs.available %s", gib(res.Freed), gib(available))

	// 2. Container GC.
	listed, err := rt.ListContainers(ctx)
	if err != nil {
		return r, err
	}
	sbs, err := rt.ListPodSandboxes(ctx)
	if err != nil {
		return r, err
	}
	in := gc.ContainerGCInput{Containers: listed, Sandboxes: sbs, Pods: map[string]gc.PodState{"uid-web-0": gc.PodActive},
		PodsSynced: true, AllSourcesReady: true}
	cplan, err := gc.PlanContainers(at(0), gc.DefaultContainerPolicy(), in)
	if err != nil {
		return r, err
	}
	for _, c := range cplan.Containers {
		r.at(0, "containergc", c.Container.ID, string(c.Reason), "container GC: remove %s (%s)", c.Container.ID, c.Message)
	}
	for _, s := range cplan.Sandboxes {
		r.at(0, "containergc", s.Sandbox.ID, string(s.Reason), "container GC: remove sandbox %s (%s)", s.Sandbox.ID, s.Message)
	}
	reportExec(&r, 0, cri.ExecuteContainerPlan(ctx, rt, cplan, cri.ExecOptions{}))
	inUse = hasContainer(rt, "c-batch-migrate")

	// 3. The eviction manager, with the hard nodefs threshold of the
	// defaults and a minimum reclaim.
	ths, err := pressure.Settings{
		EvictionHard:           map[string]string{"nodefs.available": "10%"},
		EvictionMinimumReclaim: map[string]string{"nodefs.available": "5Gi"},
	}.Parse()
	if err != nil {
		return r, err
	}
	cfg := pressure.DefaultConfig()
	cfg.Thresholds, cfg.Layout = ths, pressure.LayoutSingle
	m, err := pressure.NewManager(cfg)
	if err != nil {
		return r, err
	}
	pods, stats := diskPods(opts.Size)
	obs := func(avail int64, s int) pressure.Observations {
		return pressure.Observations{pressure.SignalNodeFsAvailable: {Available: avail, Capacity: 100 * gi, Time: at(s)}}
	}
	step := m.Step(at(590), obs(available, 590), pods, stats)
	r.at(590*time.Second, "pressure", "nodefs", step.Decision.Reason, "eviction manager: nodefs.available %s, conditions %v: %s", gib(available), step.Conditions, step.Decision.Message)

	available = 8 * gi
	step = m.Step(at(600), obs(available, 600), pods, stats)
	d := step.Decision
	r.at(600*time.Second, "pressure", "nodefs", d.Reason, "logger's logs filled the disk: nodefs.available %s < %s, conditions %v", gib(available), d.Threshold.Value, step.Conditions)
	r.at(600*time.Second, "pressure", "nodefs", d.Reason, "  %s: reclaim %v first", d.Kind, d.Reclaim)

	// Node-level reclaim: every unused container, then every unused image.
	for _, k := range d.Reclaim {
		switch k {
		case pressure.ReclaimContainers:
			listed, _ := rt.ListContainers(ctx)
			sbs, _ := rt.ListPodSandboxes(ctx)
			in := gc.ContainerGCInput{Containers: listed, Sandboxes: sbs, Pods: map[string]gc.PodState{"uid-web-0": gc.PodActive},
				PodsSynced: true, AllSourcesReady: true, EvictNonDeletedPods: true}
			// Upstream's DeleteAllUnusedContainers is the usual GC with
			// terminated pods counted as removed, under the same policy.
			cplan, err := gc.PlanContainers(at(600), gc.DefaultContainerPolicy(), in)
			if err != nil {
				return r, err
			}
			res := cri.ExecuteContainerPlan(ctx, rt, cplan, cri.ExecOptions{})
			var ids []string
			for _, x := range res.Removed {
				ids = append(ids, x.ID)
			}
			r.at(600*time.Second, "reclaim", "containers", "", "  %s: removed %s", k, strings.Join(ids, ", "))
		case pressure.ReclaimImages:
			left := records[:0:0]
			listedImages, _ := rt.ListImages(ctx)
			for _, rec := range records {
				for _, im := range listedImages {
					if im.ID == rec.ID {
						left = append(left, rec)
					}
				}
			}
			iplan, err := gc.PlanUnusedImages(at(600), policy, left)
			if err != nil {
				return r, err
			}
			res := cri.ExecuteImagePlan(ctx, rt, iplan, cri.ExecOptions{})
			var freed int64
			var ids []string
			for _, x := range res.Removed {
				freed += x.Size
				ids = append(ids, x.ID)
			}
			available += freed
			r.at(600*time.Second, "reclaim", "images", "", "  %s: removed %s, freed %s", k, strings.Join(ids, ", "), gib(freed))
		}
	}
	fresh := obs(available, 600)
	if m.Reclaimed(fresh) {
		r.at(600*time.Second, "reclaim", "nodefs", "", "  reclaim was enough: nodefs.available %s", gib(available))
		return r, nil
	}
	r.at(600*time.Second, "reclaim", "nodefs", "", "  nodefs.available %s is still short of %s + %s minimum reclaim: evict a pod", gib(available), d.Threshold.Value, d.Threshold.MinReclaim)
	r.at(600*time.Second, "rank", "", "", "ranking for %s:", pressure.SignalNodeFsAvailable)
	for i, rk := range d.Ranked {
		if i == 8 && len(d.Ranked) > 9 {
			r.at(600*time.Second, "rank", "", "", "  ... %d more", len(d.Ranked)-i)
			break
		}
		r.at(600*time.Second, "rank", rk.Pod.Key(), "", "  %d. %s", i+1, rk.Explain(pressure.SignalNodeFsAvailable))
	}
	evicted := 0
	if e := d.Evict; e != nil {
		evicted++
		r.at(600*time.Second, "evict", e.Pod.Key(), e.Status.Reason, "evict %s (grace %ds): %s", e.Pod.Key(), e.GracePeriodSeconds, e.Status.Message)
		available += podDisk(stats[e.Pod.UID])
		pods = removePod(pods, e.Pod.Name)
	}
	r.figure("evicted", int64(evicted))

	// 4. After the eviction: admission and the condition's transition.
	next := step.Next
	step = m.Step(next, obs(available, int(next.Sub(Start)/time.Second)), pods, stats)
	late := &core.Pod{Name: "new", Namespace: "shop", QOSClass: core.PodQOSBestEffort}
	adm := m.Admit(late)
	r.at(next.Sub(Start), "pressure", "nodefs", step.Decision.Reason, "nodefs.available %s, conditions still %v; a new pod: admit %v (%s)", gib(available), step.Conditions, adm.Admit, strings.TrimSpace(adm.Message))
	for now := next.Add(pressure.MonitoringPeriod); now.Before(at(1200)); now = now.Add(pressure.MonitoringPeriod) {
		step = m.Step(now, obs(available, int(now.Sub(Start)/time.Second)), pods, stats)
		if len(step.Conditions) == 0 {
			r.at(now.Sub(Start), "pressure", "nodefs", step.Decision.Reason, "DiskPressure cleared (%v after the last step that met the threshold)", cfg.PressureTransitionPeriod)
			break
		}
	}
	r.bytesFigure("image GC freed", res.Freed)
	return r, nil
}

// hasContainer reports whether the runtime still lists the container.
func hasContainer(rt *fake.Runtime, id string) bool {
	cs, _ := rt.ListContainers(context.Background())
	for _, c := range cs {
		if c.ID == id {
			return true
		}
	}
	return false
}

// reportExec adds what an executor did with a plan: the failures first
// (the executor meets them before the spares that replace them), then the
// removals in the order they were made.
func reportExec(r *Report, s int, res cri.ExecResult) {
	for _, x := range res.Failed {
		r.at(time.Duration(s)*time.Second, "exec", x.ID, string(x.Op), "  runtime: %s %s failed: %v", x.Op, x.ID, x.Err)
	}
	for _, x := range res.Removed {
		r.at(time.Duration(s)*time.Second, "exec", x.ID, x.Reason, "  runtime: removed %s %s", x.Kind, x.ID)
	}
}

// gib prints a byte count as a binary resource.Quantity ("8Gi", "512Mi").
func gib(b int64) string {
	return quantity.Bytes(b)
}

// diskPods are the node's pods: a logger over its ephemeral-storage
// request, a cache and a metrics agent without one, a critical kube-proxy,
// and two web replicas under theirs; then size-6 small batch jobs.
func diskPods(size int) ([]core.Pod, pressure.Stats) {
	if size <= 0 {
		size = 6
	}
	const mi = uint64(1) << 20
	stats := pressure.Stats{}
	p := func(name string, prio int32, request string, rootfs, logs uint64) core.Pod {
		c := core.Container{Name: "main"}
		if request != "" {
			c.Resources.Requests = core.ResourceList{core.ResourceEphemeralStorage: resource.MustParse(request)}
		}
		pr := prio
		stats["uid-"+name] = &pressure.PodStats{Containers: []pressure.ContainerStats{{Name: "main",
			Rootfs: &pressure.FsUsage{UsedBytes: &rootfs}, Logs: &pressure.FsUsage{UsedBytes: &logs}}}}
		return core.Pod{Name: name, Namespace: "shop", UID: "uid-" + name, Priority: &pr, Containers: []core.Container{c}}
	}
	pods := []core.Pod{
		p("logger", 0, "1Gi", 512*mi, 5632*mi),         // 6Gi used, 5Gi over
		p("cache", 0, "", 3072*mi, 0),                  // 3Gi used, no request
		p("metrics", 0, "", 256*mi, 256*mi),            // 0.5Gi used, no request
		p("kube-proxy", 2000001000, "", 128*mi, 77*mi), // system-node-critical
		p("web-0", 1000, "2Gi", 512*mi, 512*mi),        // 1Gi of 2Gi
		p("web-1", 1000, "2Gi", 1024*mi, 512*mi),       // 1.5Gi of 2Gi
	}
	for i := 6; i < size; i++ {
		pods = append(pods, p(fmt.Sprintf("job-%04d", i), 0, "1Gi", uint64(i*37%1024)*mi, 64*mi))
	}
	return pods[:size], stats
}

// podDisk is what a pod's containers hold on the node's disk, by its
// reading.
func podDisk(st *pressure.PodStats) int64 {
	var n uint64
	for _, c := range st.Containers {
		n += *c.Rootfs.UsedBytes + *c.Logs.UsedBytes
	}
	return int64(n)
}

// removePod returns pods without the one called name.
func removePod(pods []core.Pod, name string) []core.Pod {
	out := pods[:0:0]
	for _, p := range pods {
		if p.Name != name {
			out = append(out, p)
		}
	}
	return out
}
