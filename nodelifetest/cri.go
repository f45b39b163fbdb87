package nodelifetest

import (
	"fmt"
	"strconv"
	"time"

	"pgregory.net/rapid"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/cri"
	"github.com/nodelife/nodelife/gc"
	"github.com/nodelife/nodelife/internal/coretest"
)

// SyncPod is a pod and what the runtime reports of it, as the kubelet's
// pod sync takes them.
type SyncPod struct {
	Pod    core.Pod
	Status cri.PodStatus
}

// SyncPods draws pods for the pod sync planner: 1-4 regular containers and
// 0-2 init containers (some sidecars, with startup and liveness probes),
// any restart policy, deleting about once in ten, host network about once
// in five; and a runtime status of 0-2 sandboxes (ready or not, with or
// without an IP, attempts 0-3) and 0-3 instances per container in any
// state, created up to 20 s after o.Now, with exit codes 0, 1 and 137,
// probe results, a changed spec hash about once in ten and OOMKilled about
// once in twenty.
func SyncPods(o Options) *rapid.Generator[SyncPod] {
	return rapid.Custom(func(t *rapid.T) SyncPod {
		at := func(label string, maxSeconds int) time.Time {
			return o.now().Add(time.Duration(rapid.IntRange(0, maxSeconds).Draw(t, label)) * time.Second)
		}
		policy := rapid.SampledFrom([]core.RestartPolicy{"", core.RestartPolicyAlways, core.RestartPolicyOnFailure, core.RestartPolicyNever}).Draw(t, "policy")
		p := core.Pod{Name: "p", Namespace: "ns", UID: "u", RestartPolicy: policy, DeletionTimestamp: coretest.Deleting(rapid.Float64().Draw(t, "deleting") < 0.1),
			HostNetwork: rapid.Float64().Draw(t, "hostNetwork") < 0.2}
		names := []string{"a", "b", "c", "d", "i0", "i1"}
		for i, n := 0, rapid.IntRange(1, 4).Draw(t, "containers"); i < n; i++ {
			p.Containers = append(p.Containers, core.Container{Name: names[i], Image: names[i] + ":v1"})
		}
		for i, n := 0, rapid.IntRange(0, 2).Draw(t, "inits"); i < n; i++ {
			c := core.Container{Name: names[4+i], Image: "init:v1"}
			if rapid.Bool().Draw(t, "sidecar") {
				c.RestartPolicy = core.ContainerRestartPolicyAlways
				c.HasStartupProbe = rapid.Bool().Draw(t, "startupProbe")
				c.HasLivenessProbe = rapid.Bool().Draw(t, "livenessProbe")
			}
			p.InitContainers = append(p.InitContainers, c)
		}
		var st cri.PodStatus
		for i, n := 0, rapid.IntRange(0, 2).Draw(t, "sandboxes"); i < n; i++ {
			sb := cri.SandboxStatus{ID: "sb" + strconv.Itoa(i), State: cri.SandboxState(rapid.IntRange(0, 1).Draw(t, "sandboxState")),
				Attempt: uint32(rapid.IntRange(0, 3).Draw(t, "attempt")), CreatedAt: at("sandboxCreated", 5),
				NetworkMode: cri.NamespaceMode(rapid.SampledFrom([]int{0, 0, 2}).Draw(t, "networkMode"))}
			if rapid.Bool().Draw(t, "network") {
				sb.Network = &cri.SandboxNetwork{IP: rapid.SampledFrom([]string{"", "10.0.0.1"}).Draw(t, "ip")}
			}
			st.Sandboxes = append(st.Sandboxes, sb)
		}
		id := 0
		for _, c := range append(append([]core.Container{}, p.InitContainers...), p.Containers...) {
			for j, n := 0, rapid.IntRange(0, 3).Draw(t, "instances"); j < n; j++ {
				s := cri.ContainerStatus{ID: "id" + strconv.Itoa(id), Name: c.Name, State: cri.ContainerState(rapid.IntRange(0, 3).Draw(t, "state")),
					CreatedAt: at("created", 20), ExitCode: int32(rapid.SampledFrom([]int{0, 0, 1, 137}).Draw(t, "exitCode")),
					Hash: cri.HashContainer(c.Name, c.Image), Liveness: cri.ProbeResult(rapid.IntRange(0, 3).Draw(t, "liveness")),
					Startup: cri.ProbeResult(rapid.IntRange(0, 3).Draw(t, "startup"))}
				if rapid.Float64().Draw(t, "changed") < 0.1 {
					s.Hash++
				}
				if rapid.Float64().Draw(t, "oom") < 0.05 {
					s.Reason = "OOMKilled"
				}
				id++
				st.Containers = append(st.Containers, s)
			}
		}
		return SyncPod{Pod: p, Status: st}
	})
}

// CrashBackoffs draws crash-loop back-off configs: an initial delay of
// 1-20 s, a maximum of 1-40 times that, a reset factor of 1-3.
func CrashBackoffs() *rapid.Generator[cri.BackoffConfig] {
	return rapid.Custom(func(t *rapid.T) cri.BackoffConfig {
		c := cri.BackoffConfig{Initial: time.Duration(rapid.IntRange(1, 20).Draw(t, "initial")) * time.Second,
			ResetFactor: rapid.IntRange(1, 3).Draw(t, "resetFactor")}
		c.Max = c.Initial * time.Duration(rapid.IntRange(1, 40).Draw(t, "maxMultiple"))
		return c
	})
}

// ImagePlan is an image garbage-collection plan with the images it names,
// as the executors take them.
type ImagePlan struct {
	Images []gc.Image
	Plan   gc.ImagePlan
}

// ImagePlans draws up to 12 images (img0, img1, ...) of 0-50 bytes and a
// plan over them: each image a deletion (for age or space), a spare, or
// neither, and an amount to free of 0-200 bytes. The plans are any the
// executor may be handed, not only those gc.PlanImages makes.
func ImagePlans() *rapid.Generator[ImagePlan] {
	return rapid.Custom(func(t *rapid.T) ImagePlan {
		var out ImagePlan
		for i, n := 0, rapid.IntRange(0, 12).Draw(t, "images"); i < n; i++ {
			im := gc.Image{ID: fmt.Sprintf("img%d", i), Size: int64(rapid.IntRange(0, 50).Draw(t, "size"))}
			out.Images = append(out.Images, im)
			d := gc.ImageDeletion{Image: gc.ImageRecord{ID: im.ID, Size: im.Size}, Reason: rapid.SampledFrom([]gc.ImageReason{gc.ImageReasonAge, gc.ImageReasonSpace}).Draw(t, "reason")}
			switch rapid.IntRange(0, 2).Draw(t, "role") {
			case 0:
				out.Plan.Deletions = append(out.Plan.Deletions, d)
			case 1:
				d.Reason = gc.ImageReasonSpace
				out.Plan.Spare = append(out.Plan.Spare, d)
			}
		}
		out.Plan.AmountToFree = int64(rapid.IntRange(0, 200).Draw(t, "amountToFree"))
		return out
	})
}
