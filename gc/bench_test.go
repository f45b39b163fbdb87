package gc

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/coretest"
	"github.com/nodelife/nodelife/taints"
)

var sizes = []int{1000, 10000, 100000}

// benchImages returns n image records, a tenth in use and a hundredth
// pinned, with scattered times.
func benchImages(n int) []ImageRecord {
	rng := rand.New(rand.NewSource(1))
	rs := make([]ImageRecord, n)
	for i := range rs {
		rs[i] = ImageRecord{
			ID:            fmt.Sprintf("sha256:%064x", rng.Uint64()),
			Size:          rng.Int63n(1 << 30),
			Pinned:        i%100 == 0,
			InUse:         i%10 == 1,
			FirstDetected: ago(time.Duration(rng.Intn(1e6)) * time.Second),
			LastUsed:      ago(time.Duration(rng.Intn(1e5)) * time.Second),
		}
	}
	return rs
}

// BenchmarkPlanImages: a space pass that must walk every candidate (the
// target exceeds what is eligible), the worst case.
func BenchmarkPlanImages(b *testing.B) {
	p := DefaultImagePolicy()
	for _, n := range sizes {
		records := benchImages(n)
		fs := FsStats{Capacity: 1 << 62, Available: 0}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := PlanImages(t0, p, records, fs, ago(time.Hour)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDetectImages(b *testing.B) {
	p := DefaultImagePolicy()
	for _, n := range sizes {
		records := benchImages(n)
		images := make([]Image, n)
		var used []ImageRef
		for i, r := range records {
			images[i] = Image{ID: r.ID, Size: r.Size, Pinned: r.Pinned}
			if r.InUse {
				used = append(used, ImageRef{ID: r.ID})
			}
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = DetectImages(t0, p, records, images, used)
			}
		})
	}
}

// benchContainers returns n dead containers over n/5 pods with 2 names
// each, and a sandbox per pod; a tenth of the pods are removed.
func benchContainers(n int) ContainerGCInput {
	rng := rand.New(rand.NewSource(2))
	pods := max(n/5, 1)
	in := ContainerGCInput{Pods: make(map[string]PodState, pods), PodsSynced: true, AllSourcesReady: true,
		Containers: make([]Container, n), Sandboxes: make([]Sandbox, 0, pods)}
	for p := 0; p < pods; p++ {
		uid := fmt.Sprintf("%08x-pod", p)
		st := PodActive
		if p%10 == 0 {
			st = PodRemoved
		}
		in.Pods[uid] = st
		in.Sandboxes = append(in.Sandboxes, Sandbox{ID: "sb-" + uid, PodUID: uid, State: SandboxNotReady, CreatedAt: ago(time.Hour)})
	}
	for i := range in.Containers {
		p := rng.Intn(pods)
		uid := fmt.Sprintf("%08x-pod", p)
		in.Containers[i] = Container{ID: fmt.Sprintf("%016x", rng.Uint64()), PodUID: uid, Name: fmt.Sprint("c", rng.Intn(2)),
			SandboxID: "sb-" + uid, State: ContainerExited, CreatedAt: ago(time.Duration(rng.Intn(1e6)) * time.Second)}
	}
	return in
}

// BenchmarkPlanContainers: the default policy plus MaxContainers at half
// the dead containers, so every step runs.
func BenchmarkPlanContainers(b *testing.B) {
	for _, n := range append(sizes, 1000000) {
		in := benchContainers(n)
		p := ContainerPolicy{MaxPerPodContainer: 2, MaxContainers: n / 4}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := PlanContainers(t0, p, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPodGCStep: n pods on n/30 nodes, half terminated (threshold at
// a quarter), some terminating, one node deleted, after its quarantine.
func BenchmarkPodGCStep(b *testing.B) {
	for _, n := range sizes {
		rng := rand.New(rand.NewSource(3))
		nodes := make([]core.Node, max(n/30, 2))
		for i := range nodes {
			nodes[i] = core.Node{Name: fmt.Sprintf("node-%05d", i), Conditions: coretest.Ready("True")}
		}
		nodes[0].Conditions, nodes[0].Taints = coretest.Ready("False"), []taints.Taint{{Key: taints.TaintNodeOutOfService, Effect: "NoExecute"}}
		pods := make([]core.Pod, n)
		for i := range pods {
			p := core.Pod{Namespace: "ns", Name: fmt.Sprintf("pod-%07d", i), UID: fmt.Sprint(i), Phase: core.PodRunning,
				NodeName: nodes[rng.Intn(len(nodes))].Name, CreationTimestamp: ago(time.Duration(rng.Intn(1e6)) * time.Second)}
			if i%2 == 0 {
				p.Phase = core.PodSucceeded
			}
			if i%50 == 0 {
				p.DeletionTimestamp = &t0
			}
			if i%1000 == 0 {
				p.NodeName = "deleted-node"
			}
			pods[i] = p
		}
		in := PodGCInput{Pods: pods, Nodes: nodes}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				g, _ := NewPodGC(PodGCConfig{TerminatedPodThreshold: n / 4})
				if _, err := g.Step(t0, PodGCInput{Pods: pods[:1], Nodes: nodes}); err != nil {
					b.Fatal(err)
				}
				pods[0].NodeName = "deleted-node"
				b.StartTimer()
				if _, err := g.Step(t0.Add(time.Minute), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
