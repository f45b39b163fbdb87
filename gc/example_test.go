package gc_test

import (
	"fmt"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/gc"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// A node's image filesystem is 90% full: the kubelet frees down to 80%,
// least recently used first, sparing the image in use, the pinned pause
// image and the image pulled a minute ago.
func ExamplePlanImages() {
	const gi = 1 << 30
	records := gc.DetectImages(now.Add(-time.Hour), gc.DefaultImagePolicy(), nil, []gc.Image{
		{ID: "sha256:pause", Size: gi / 2, Pinned: true},
		{ID: "sha256:nginx", Size: 2 * gi},
		{ID: "sha256:redis", Size: 3 * gi},
		{ID: "sha256:busybox", Size: 1 * gi},
		{ID: "sha256:postgres", Size: 4 * gi},
	}, []gc.ImageRef{{ID: "sha256:nginx"}})
	// An hour later redis was used ten minutes ago, busybox never, and
	// postgres has just been pulled.
	for i := range records {
		switch records[i].ID {
		case "sha256:redis":
			records[i].LastUsed = now.Add(-10 * time.Minute)
		case "sha256:postgres":
			records[i].FirstDetected = now.Add(-time.Minute)
		}
	}
	records = gc.DetectImages(now, gc.DefaultImagePolicy(), records, []gc.Image{
		{ID: "sha256:pause", Size: gi / 2, Pinned: true},
		{ID: "sha256:nginx", Size: 2 * gi},
		{ID: "sha256:redis", Size: 3 * gi},
		{ID: "sha256:busybox", Size: 1 * gi},
		{ID: "sha256:postgres", Size: 4 * gi},
	}, []gc.ImageRef{{ID: "sha256:nginx"}})

	plan, err := gc.PlanImages(now, gc.DefaultImagePolicy(), records, gc.FsStats{Capacity: 40 * gi, Available: 4 * gi}, now.Add(-time.Hour))
	if err != nil {
		panic(err)
	}
	fmt.Printf("usage %d%%, free %.1f GiB\n", plan.UsagePercent, float64(plan.AmountToFree)/gi)
	for _, d := range plan.Deletions {
		fmt.Printf("delete %s (%d GiB)\n", d.Image.ID, d.Image.Size/gi)
	}
	for _, e := range plan.Events {
		fmt.Println(e.Reason+":", e.Message)
	}
	// Output:
	// usage 90%, free 4.0 GiB
	// delete sha256:busybox (1 GiB)
	// delete sha256:redis (3 GiB)
}

// The eviction manager under disk pressure deletes every image it may.
func ExamplePlanUnusedImages() {
	records := []gc.ImageRecord{
		{ID: "a", Size: 10, FirstDetected: now.Add(-time.Hour)},
		{ID: "b", Size: 20, FirstDetected: now.Add(-time.Hour), InUse: true, LastUsed: now},
		{ID: "c", Size: 30, FirstDetected: now.Add(-time.Minute)},
	}
	plan, _ := gc.PlanUnusedImages(now, gc.DefaultImagePolicy(), records)
	fmt.Println(len(plan.Deletions), plan.Deletions[0].Image.ID, plan.Freed)
	// Output: 1 a 10
}

// With the default policy each (pod, container name) keeps its newest dead
// container; the containers of a deleted pod all go.
func ExamplePlanContainers() {
	exited := func(id, pod, name string, age time.Duration) gc.Container {
		return gc.Container{ID: id, PodUID: pod, Name: name, State: gc.ContainerExited, CreatedAt: now.Add(-age)}
	}
	plan, err := gc.PlanContainers(now, gc.DefaultContainerPolicy(), gc.ContainerGCInput{
		Containers: []gc.Container{
			exited("web-1", "web", "app", 30*time.Minute),
			exited("web-2", "web", "app", 20*time.Minute),
			exited("web-3", "web", "app", 10*time.Minute),
			{ID: "web-4", PodUID: "web", Name: "app", State: gc.ContainerRunning, CreatedAt: now},
			exited("job-1", "job", "task", time.Hour),
		},
		Pods:            map[string]gc.PodState{"web": gc.PodActive, "job": gc.PodRemoved},
		PodsSynced:      true,
		AllSourcesReady: true,
	})
	if err != nil {
		panic(err)
	}
	for _, r := range plan.Containers {
		fmt.Println(r.Container.ID, r.Reason)
	}
	fmt.Println("kept", plan.Kept)
	// Output:
	// job-1 PodRemoved
	// web-1 MaxPerPodContainer
	// web-2 MaxPerPodContainer
	// kept 1
}

// When a container dies the kubelet trims that container's exited
// instances at once, without waiting for the periodic GC.
func ExampleContainerDeathPlan() {
	pod := []gc.Container{
		{ID: "a1", Name: "app", State: gc.ContainerExited, CreatedAt: now.Add(-3 * time.Minute)},
		{ID: "a2", Name: "app", State: gc.ContainerExited, CreatedAt: now.Add(-2 * time.Minute)},
		{ID: "a3", Name: "app", State: gc.ContainerExited, CreatedAt: now.Add(-time.Minute)},
	}
	rs, _ := gc.ContainerDeathPlan(gc.DefaultContainerPolicy(), "a3", pod, false)
	for _, r := range rs {
		fmt.Println(r.Container.ID)
	}
	// Output:
	// a1
	// a2
}

// A node vanished from the API: its pods are orphaned once the 40s
// quarantine has run.
func ExamplePodGC_Step() {
	g, _ := gc.NewPodGC(gc.DefaultPodGCConfig())
	in := gc.PodGCInput{
		Pods:  []core.Pod{{Namespace: "default", Name: "web", NodeName: "node-b", Phase: core.PodRunning}},
		Nodes: []core.Node{{Name: "node-a", Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.True}}}},
	}
	plan, _ := g.Step(now, in)
	fmt.Println("t=0s  quarantined", plan.Quarantined, "until", plan.Next.Sub(now))
	plan, _ = g.Step(now.Add(40*time.Second), in)
	d := plan.Deletions[0]
	fmt.Println("t=40s delete", d.Pod.Name, d.Reason, "set Failed:", d.SetFailed, d.Condition.Reason)
	// Output:
	// t=0s  quarantined [node-b] until 40s
	// t=40s delete web orphaned set Failed: true DeletionByPodGC
}

func ExampleJobTTL() {
	ttl := int32(100)
	job := gc.Job{Namespace: "batch", Name: "report", TTLSecondsAfterFinished: &ttl,
		Conditions: []gc.JobCondition{{Type: gc.JobComplete, Status: "True", LastTransitionTime: now.Add(-60 * time.Second)}}}
	d := gc.JobTTL(now, job)
	fmt.Println(d.Delete, d.Wait, d.Remaining)
	d = gc.JobTTL(now.Add(40*time.Second), job)
	fmt.Println(d.Delete, d.Wait, d.Remaining)
	// Output:
	// false true 40s
	// true false 0s
}

func ExamplePlanJobTTL() {
	ttl := int32(0)
	p := gc.PlanJobTTL(now, []gc.Job{{Namespace: "ns", Name: "done", TTLSecondsAfterFinished: &ttl,
		Conditions: []gc.JobCondition{{Type: gc.JobFailed, Status: "True", LastTransitionTime: now}}}})
	fmt.Println(len(p.Delete), p.Delete[0].Job.Name)
	// Output: 1 done
}

func ExamplePlanCSRCleanup() {
	p := gc.PlanCSRCleanup(now, []gc.CSR{
		{Name: "node-csr-old", CreationTimestamp: now.Add(-25 * time.Hour)},
		{Name: "node-csr-new", CreationTimestamp: now.Add(-time.Hour)},
		{Name: "denied", Conditions: []gc.CSRCondition{{Type: gc.CSRDenied, LastUpdateTime: now.Add(-2 * time.Hour)}}},
	})
	for _, d := range p.Delete {
		fmt.Println(d.CSR.Name, d.Reason)
	}
	fmt.Println("next", p.Next.Sub(now).Round(time.Second))
	// Output:
	// denied DeniedPastDeadline
	// node-csr-old PendingPastDeadline
	// next 23h0m0s
}

func ExampleCertificateNotAfter() {
	_, ok := gc.CertificateNotAfter([]byte("not a certificate"))
	fmt.Println(ok)
	// Output: false
}

func ExamplePlanNodeLeases() {
	leases := []gc.NodeLease{
		{Name: "node-a", OwnerReferences: nodeOwner("node-a", "uid-a")},
		{Name: "node-b", OwnerReferences: nodeOwner("node-b", "uid-b")},
	}
	p := gc.PlanNodeLeases(now, gc.NodeLeaseConfig{}, leases, []gc.NodeRef{{Name: "node-a", UID: "uid-a"}})
	fmt.Println(p.Delete[0].Lease.Name, p.Delete[0].Reason)
	// Output: node-b OwnerGone
}

func ExampleImagePolicy_Validate() {
	p := gc.DefaultImagePolicy()
	p.LowThresholdPercent = 90
	fmt.Println(p.Validate())
	// Output: gc: invalid policy: imageGCLowThresholdPercent (--image-gc-low-threshold) 90 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 85
}

// nodeOwner is the owner reference the kubelet puts on its Lease.
func nodeOwner(name, uid string) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: name, UID: types.UID(uid)}}
}

// Detection remembers when an image was first seen and last used.
func ExampleDetectImages() {
	p := gc.DefaultImagePolicy()
	listing := []gc.Image{{ID: "sha256:app", Size: 100}}
	records := gc.DetectImages(now, p, nil, listing, []gc.ImageRef{{ID: "sha256:app"}})
	records = gc.DetectImages(now.Add(5*time.Minute), p, records, listing, nil)
	r := records[0]
	fmt.Println(r.FirstDetected.Equal(now), r.LastUsed.Equal(now), r.InUse)
	// Output: true true false
}

func ExampleDefaultImagePolicy() {
	p := gc.DefaultImagePolicy()
	fmt.Println(p.HighThresholdPercent, p.LowThresholdPercent, p.MinAge, p.MaxAge, p.Disabled())
	// Output: 85 80 2m0s 0s false
}

func ExampleImagePolicy_Disabled() {
	p := gc.DefaultImagePolicy()
	p.HighThresholdPercent = 100
	fmt.Println(p.Disabled())
	// Output: true
}

// Err is what the kubelet logs for a run, and posts as ImageGCFailed when
// the run before failed too.
func ExampleImagePlan_Err() {
	plan, _ := gc.PlanImages(now, gc.DefaultImagePolicy(), nil, gc.FsStats{}, now)
	fmt.Println(plan.Err())
	// Output: invalid capacity 0 on image filesystem
}

func ExampleDefaultContainerPolicy() {
	fmt.Printf("%+v\n", gc.DefaultContainerPolicy())
	// Output: {MinAge:0s MaxPerPodContainer:1 MaxContainers:-1}
}

func ExampleContainerPolicy_Validate() {
	fmt.Println(gc.ContainerPolicy{MinAge: -time.Minute}.Validate())
	// Output: gc: invalid policy: invalid minimum garbage collection age: -1m0s
}

func ExampleDefaultPodGCConfig() {
	fmt.Printf("%+v\n", gc.DefaultPodGCConfig())
	// Output: {TerminatedPodThreshold:12500 Quarantine:40s}
}

func ExamplePodGCConfig_Validate() {
	fmt.Println(gc.PodGCConfig{Quarantine: -time.Second}.Validate())
	// Output: gc: invalid policy: Quarantine -1s must not be negative
}

// More terminated pods than the threshold: the evicted pod goes first,
// then the oldest.
func ExampleNewPodGC() {
	g, err := gc.NewPodGC(gc.PodGCConfig{TerminatedPodThreshold: 1})
	if err != nil {
		panic(err)
	}
	plan, _ := g.Step(now, gc.PodGCInput{Pods: []core.Pod{
		{Namespace: "ns", Name: "old", Phase: core.PodSucceeded, CreationTimestamp: now.Add(-2 * time.Hour)},
		{Namespace: "ns", Name: "new", Phase: core.PodSucceeded, CreationTimestamp: now.Add(-time.Hour)},
		{Namespace: "ns", Name: "evicted", Phase: core.PodFailed, Reason: "Evicted", CreationTimestamp: now},
	}})
	for _, d := range plan.Deletions {
		fmt.Println(d.Pod.Name, d.Reason)
	}
	// Output:
	// evicted terminated
	// old terminated
}
