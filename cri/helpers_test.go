package cri

import (
	"github.com/nodelife/nodelife/core"
	"strconv"
	"time"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// at returns t0 plus s seconds.
func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// spec returns a container spec with image "<name>:v1".
func spec(name string) core.Container { return core.Container{Name: name, Image: name + ":v1"} }

// sidecar returns a restartable init container.
func sidecar(name string) core.Container {
	c := spec(name)
	c.RestartPolicy = core.ContainerRestartPolicyAlways
	return c
}

// testPod is web in default with containers foo, bar, baz.
func testPod(policy core.RestartPolicy) core.Pod {
	return core.Pod{Name: "web", Namespace: "default", UID: "uid-1", RestartPolicy: policy,
		Containers: []core.Container{spec("foo"), spec("bar"), spec("baz")}}
}

// readySandbox is a ready pod-network sandbox with an IP.
func readySandbox(id string, attempt uint32, created int) SandboxStatus {
	return SandboxStatus{ID: id, State: SandboxReady, Attempt: attempt, CreatedAt: at(created), Network: &SandboxNetwork{IP: "10.0.0.5"}}
}

// running returns a running instance of c with the matching hash.
func running(c core.Container, created int) ContainerStatus {
	return ContainerStatus{ID: c.Name + "-" + itoa(created), Name: c.Name, State: ContainerRunning, CreatedAt: at(created),
		Hash: HashContainer(c.Name, c.Image)}
}

// exited returns an exited instance of c.
func exited(c core.Container, created int, code int32) ContainerStatus {
	s := running(c, created)
	s.State, s.ExitCode, s.FinishedAt = ContainerExited, code, at(created+5)
	return s
}

// withState returns s in another state.
func withState(s ContainerStatus, st ContainerState) ContainerStatus {
	s.State = st
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }

// allRunning is the status of testPod with every container running in a
// ready sandbox.
func allRunning(p core.Pod) PodStatus {
	st := PodStatus{Sandboxes: []SandboxStatus{readySandbox("sb1", 0, 0)}}
	for _, c := range p.Containers {
		st.Containers = append(st.Containers, running(c, 1))
	}
	return st
}
