package gc

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/coretest"
	"github.com/nodelife/nodelife/taints"
)

// byteReader hands out fuzz bytes as small values; zeros once exhausted.
type byteReader struct{ b []byte }

func (r *byteReader) next() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *byteReader) int64() int64 {
	var v int64
	for i := 0; i < 8; i++ {
		v = v<<8 | int64(r.next())
	}
	return v
}

// FuzzPlanImages feeds arbitrary policies, records and stats to the image
// planner: it never panics, and when it accepts the input it never plans an
// in-use or pinned image or the same image twice.
func FuzzPlanImages(f *testing.F) {
	f.Add(int64(85), int64(80), int64(120), int64(0), int64(1000), int64(151), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add(int64(100), int64(0), int64(-1), int64(math.MaxInt64), int64(math.MaxInt64), int64(-1), []byte{0xff, 0xfe, 0, 1})
	f.Fuzz(func(t *testing.T, high, low, minAgeSec, maxAgeSec, capacity, available int64, data []byte) {
		p := ImagePolicy{HighThresholdPercent: int(high), LowThresholdPercent: int(low),
			MinAge: time.Duration(minAgeSec) * time.Second, MaxAge: time.Duration(maxAgeSec) * time.Second}
		r := &byteReader{data}
		var records []ImageRecord
		for len(r.b) > 0 && len(records) < 64 {
			flags := r.next()
			records = append(records, ImageRecord{
				ID:            fmt.Sprintf("i%d", r.next()%32),
				Size:          r.int64(),
				Pinned:        flags&1 != 0,
				InUse:         flags&2 != 0,
				FirstDetected: t0.Add(time.Duration(int8(r.next())) * time.Minute),
				LastUsed:      t0.Add(time.Duration(int8(r.next())) * time.Minute),
			})
		}
		plan, err := PlanImages(t0, p, records, FsStats{Capacity: capacity, Available: available}, t0.Add(-time.Hour))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, d := range append(plan.Deletions, plan.Spare...) {
			if d.Image.InUse || d.Image.Pinned || seen[d.Image.ID] {
				t.Fatalf("bad deletion %+v", d)
			}
			seen[d.Image.ID] = true
		}
		if plan.Freed < 0 {
			t.Fatalf("freed %d", plan.Freed)
		}
		if _, err := PlanUnusedImages(t0, p, records); err != nil {
			t.Fatalf("PlanUnusedImages rejected what PlanImages accepted: %v", err)
		}
		_ = DetectImages(t0, p, records, nil, nil)
	})
}

// FuzzPlanContainers feeds arbitrary containers and sandboxes to the
// container planner: no panic; each accepted plan removes no running
// container, nothing twice, and respects MaxContainers.
func FuzzPlanContainers(f *testing.F) {
	f.Add(int64(0), 1, -1, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add(int64(-5), -7, 0, []byte{0xff, 0, 0xff, 0})
	f.Fuzz(func(t *testing.T, minAgeSec int64, maxPer, maxAll int, data []byte) {
		p := ContainerPolicy{MinAge: time.Duration(minAgeSec) * time.Second, MaxPerPodContainer: maxPer % 64, MaxContainers: maxAll % 256}
		r := &byteReader{data}
		in := ContainerGCInput{Pods: map[string]PodState{}}
		flags := r.next()
		in.PodsSynced, in.AllSourcesReady, in.EvictNonDeletedPods = flags&1 != 0, flags&2 != 0, flags&4 != 0
		for i := 0; len(r.b) > 0 && i < 128; i++ {
			b := r.next()
			uid := fmt.Sprintf("p%d", b%5)
			in.Pods[uid] = PodState(b % 4) // 3 is no state: treated like PodActive
			if b&0x80 != 0 {
				in.Sandboxes = append(in.Sandboxes, Sandbox{ID: fmt.Sprintf("s%d", r.next()), PodUID: uid,
					State: SandboxState(r.next() % 3), CreatedAt: t0.Add(time.Duration(int8(r.next())) * time.Minute)})
				continue
			}
			in.Containers = append(in.Containers, Container{ID: fmt.Sprintf("c%d", r.next()), PodUID: uid, Name: fmt.Sprint(b % 3),
				SandboxID: fmt.Sprintf("s%d", r.next()), State: ContainerState(r.next() % 5), CreatedAt: t0.Add(time.Duration(int8(r.next())) * time.Minute)})
		}
		plan, err := PlanContainers(t0, p, in)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, c := range plan.Containers {
			if c.Container.State == ContainerRunning || seen[c.Container.ID] {
				t.Fatalf("bad removal %+v", c)
			}
			seen[c.Container.ID] = true
		}
		if p.MaxContainers >= 0 && plan.Kept > p.MaxContainers {
			t.Fatalf("kept %d > %d", plan.Kept, p.MaxContainers)
		}
		if len(in.Containers) > 0 {
			if _, err := ContainerDeathPlan(p, in.Containers[0].ID, in.Containers, flags&8 != 0); err != nil {
				t.Fatalf("ContainerDeathPlan rejected what PlanContainers accepted: %v", err)
			}
		}
	})
}

// FuzzPodGC runs the pod GC over arbitrary pods and nodes at arbitrary
// times: no panic, no pod deleted twice in one run.
func FuzzPodGC(f *testing.F) {
	f.Add(12500, int64(40), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(-3, int64(-1), []byte{0xff, 0x80, 0x7f})
	f.Fuzz(func(t *testing.T, threshold int, quarantineSec int64, data []byte) {
		g, err := NewPodGC(PodGCConfig{TerminatedPodThreshold: threshold, Quarantine: time.Duration(quarantineSec) * time.Second})
		if err != nil {
			return
		}
		r := &byteReader{data}
		phases := []core.PodPhase{"", core.PodPending, core.PodRunning, core.PodSucceeded, core.PodFailed, core.PodUnknown, "Bogus"}
		var in PodGCInput
		for i := 0; len(r.b) > 0 && i < 64; i++ {
			b := r.next()
			if b%7 == 0 {
				in.Nodes = append(in.Nodes, core.Node{Name: fmt.Sprintf("n%d", r.next()%4), Conditions: coretest.Ready([]conditions.Status{"", "True", "False"}[r.next()%3]),
					Taints: []taints.Taint{{Key: []string{taints.TaintNodeOutOfService, "other"}[r.next()%2]}}})
				continue
			}
			p := core.Pod{Namespace: "ns", Name: fmt.Sprintf("p%d", r.next()), NodeName: []string{"", "n0", "n1", "n2", "n3"}[r.next()%5],
				Phase: phases[r.next()%7], Reason: []string{"", "Evicted"}[r.next()%2], CreationTimestamp: t0.Add(time.Duration(int8(r.next())) * time.Second)}
			if b&1 != 0 {
				p.DeletionTimestamp = &t0
			}
			in.Pods = append(in.Pods, p)
		}
		for step := 0; step < 3; step++ {
			plan, err := g.Step(t0.Add(time.Duration(int8(r.next()))*time.Second*10), in)
			if err != nil {
				return
			}
			seen := map[string]bool{}
			for _, d := range plan.Deletions {
				if seen[d.Pod.Name] {
					t.Fatalf("%s twice", d.Pod.Name)
				}
				seen[d.Pod.Name] = true
			}
		}
	})
}

// FuzzCertificateNotAfter never panics on arbitrary PEM input.
func FuzzCertificateNotAfter(f *testing.F) {
	f.Add([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = CertificateNotAfter(data)
		p := PlanCSRCleanup(t0, []CSR{{Name: "c", Certificate: data, Conditions: []CSRCondition{{Type: CSRApproved, LastUpdateTime: t0}}}})
		if len(p.Delete) > 1 {
			t.Fatalf("%+v", p)
		}
	})
}
