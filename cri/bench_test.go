package cri

import (
	"github.com/nodelife/nodelife/core"
	"strconv"
	"testing"
)

// benchPod is a pod of n containers, all running in a ready sandbox; with
// restarts, every third container has exited with code 1 and every fifth
// failed its liveness probe.
func benchPod(n int, restarts bool) (core.Pod, PodStatus) {
	p := core.Pod{Name: "web", Namespace: "default", UID: "uid", RestartPolicy: core.RestartPolicyAlways}
	st := PodStatus{Sandboxes: []SandboxStatus{readySandbox("sb", 0, 0)}}
	for i := 0; i < n; i++ {
		c := core.Container{Name: "container-" + strconv.Itoa(i), Image: "registry.example.com/team/app-" + strconv.Itoa(i) + ":v1.2.3"}
		p.Containers = append(p.Containers, c)
		s := running(c, 1)
		if restarts && i%3 == 0 {
			s = exited(c, 1, 1)
		}
		if restarts && i%5 == 0 {
			s.Liveness = ProbeFailure
		}
		st.Containers = append(st.Containers, s)
	}
	return p, st
}

func BenchmarkComputePodActions(b *testing.B) {
	for _, restarts := range []bool{false, true} {
		p, st := benchPod(10, restarts)
		name := "containers=10/steady"
		if restarts {
			name = "containers=10/restarts"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := ComputePodActions(p, st, SyncOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkHashContainer(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		HashContainer("container-1", "registry.example.com/team/app-1:v1.2.3")
	}
}
