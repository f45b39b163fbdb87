package cri

import (
	"errors"
	"fmt"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/coretest"
	"strings"
	"testing"

	"github.com/nodelife/nodelife/release"
)

// summary prints the decision compactly: the sandbox part, then the
// containers to start (index:name reason) and to kill (ID reason).
func summary(a PodActions) string {
	var b strings.Builder
	if a.CreateSandbox || a.SandboxReason != "" {
		fmt.Fprintf(&b, "sandbox(create=%v %s attempt=%d id=%q) ", a.CreateSandbox, a.SandboxReason, a.Attempt, a.SandboxID)
	}
	if a.KillPod {
		b.WriteString("killpod ")
	}
	list := func(name string, s []ContainerStart) {
		if len(s) == 0 {
			return
		}
		parts := make([]string, len(s))
		for i, x := range s {
			parts[i] = fmt.Sprintf("%d:%s %s", x.Index, x.Name, x.Reason)
		}
		fmt.Fprintf(&b, "%s[%s] ", name, strings.Join(parts, ", "))
	}
	list("init", a.InitContainersToStart)
	list("start", a.ContainersToStart)
	list("ephemeral", a.EphemeralContainersToStart)
	if len(a.ContainersToKill) > 0 {
		parts := make([]string, len(a.ContainersToKill))
		for i, k := range a.ContainersToKill {
			parts[i] = k.ID + " " + string(k.Reason)
		}
		fmt.Fprintf(&b, "kill[%s] ", strings.Join(parts, ", "))
	}
	return strings.TrimSpace(b.String())
}

func TestComputePodActionsUpstreamCases(t *testing.T) {
	foo, bar, baz := spec("foo"), spec("bar"), spec("baz")
	cases := []struct {
		name string
		pod  func() core.Pod
		st   func(p core.Pod) PodStatus
		opts SyncOptions
		want string
	}{
		{"everything is good: nothing to do", func() core.Pod { return testPod("") }, allRunning, SyncOptions{}, ""},
		{"a new pod: create the sandbox (attempt 0) and start everything",
			func() core.Pod { return testPod("") }, func(core.Pod) PodStatus { return PodStatus{} }, SyncOptions{},
			`sandbox(create=true NoSandbox attempt=0 id="") killpod start[0:foo NewSandbox, 1:bar NewSandbox, 2:baz NewSandbox]`},
		{"Always restarts exited containers whatever their exit code",
			func() core.Pod { return testPod(core.RestartPolicyAlways) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers[0], st.Containers[1] = exited(foo, 1, 0), exited(bar, 1, 1)
				return st
			}, SyncOptions{}, `start[0:foo Exited, 1:bar Exited]`},
		{"OnFailure restarts only the failed container",
			func() core.Pod { return testPod(core.RestartPolicyOnFailure) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers[0], st.Containers[1] = exited(foo, 1, 0), exited(bar, 1, 1)
				return st
			}, SyncOptions{}, `start[1:bar Exited]`},
		{"Never restarts nothing; baz still runs so the pod stays",
			func() core.Pod { return testPod(core.RestartPolicyNever) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers[0], st.Containers[1] = exited(foo, 1, 0), exited(bar, 1, 1)
				return st
			}, SyncOptions{}, ``},
		{"Never with every container exited kills the pod",
			func() core.Pod { return testPod(core.RestartPolicyNever) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers = []ContainerStatus{exited(foo, 1, 0), exited(bar, 1, 1), exited(baz, 1, 2)}
				return st
			}, SyncOptions{}, `killpod`},
		{"the newest instance decides: an old exited foo does not matter",
			func() core.Pod { return testPod(core.RestartPolicyAlways) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers = append(st.Containers, exited(foo, -100, 1))
				return st
			}, SyncOptions{}, ``},
		{"a changed hash kills and restarts the container even under Never",
			func() core.Pod {
				p := testPod(core.RestartPolicyNever)
				p.Containers[1].Image = "bar:v2"
				return p
			}, func(core.Pod) PodStatus { return allRunning(testPod("")) }, SyncOptions{}, `start[1:bar DefinitionChanged] kill[bar-1 DefinitionChanged]`},
		{"a failed liveness probe restarts under Always",
			func() core.Pod { return testPod(core.RestartPolicyAlways) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers[2].Liveness = ProbeFailure
				return st
			}, SyncOptions{}, `start[2:baz LivenessProbe] kill[baz-1 LivenessProbe]`},
		{"a failed liveness probe only kills under Never",
			func() core.Pod { return testPod(core.RestartPolicyNever) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers[2].Liveness = ProbeFailure
				return st
			}, SyncOptions{}, `kill[baz-1 LivenessProbe]`},
		{"a failed startup probe restarts under OnFailure",
			func() core.Pod { return testPod(core.RestartPolicyOnFailure) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers[0].Startup = ProbeFailure
				return st
			}, SyncOptions{}, `start[0:foo StartupProbe] kill[foo-1 StartupProbe]`},
		{"liveness comes before startup when both failed",
			func() core.Pod { return testPod("") },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers[0].Startup, st.Containers[0].Liveness = ProbeFailure, ProbeFailure
				return st
			}, SyncOptions{}, `start[0:foo LivenessProbe] kill[foo-1 LivenessProbe]`},
		{"every container failing liveness under Never: nothing kept, the pod is killed",
			func() core.Pod { return testPod(core.RestartPolicyNever) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				for i := range st.Containers {
					st.Containers[i].Liveness = ProbeFailure
				}
				return st
			}, SyncOptions{}, `killpod kill[foo-1 LivenessProbe, bar-1 LivenessProbe, baz-1 LivenessProbe]`},
		{"an unknown container is killed before its restart",
			func() core.Pod { return testPod(core.RestartPolicyNever) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers[1] = withState(st.Containers[1], ContainerUnknown)
				return st
			}, SyncOptions{}, `start[1:bar Unknown] kill[bar-1 Unknown]`},
		{"a container stuck in created is started again without a kill",
			func() core.Pod { return testPod(core.RestartPolicyNever) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers[1] = withState(st.Containers[1], ContainerCreated)
				return st
			}, SyncOptions{}, `start[1:bar Created]`},
		{"a deleted pod restarts nothing",
			func() core.Pod {
				p := testPod(core.RestartPolicyAlways)
				p.DeletionTimestamp = coretest.Deleting(true)
				return p
			},
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers[0] = exited(foo, 1, 1)
				return st
			}, SyncOptions{}, ``},
		{"a sandbox not ready: new sandbox with attempt+1, everything restarts",
			func() core.Pod { return testPod(core.RestartPolicyAlways) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Sandboxes[0].State, st.Sandboxes[0].Attempt = SandboxNotReady, 3
				return st
			}, SyncOptions{}, `sandbox(create=true SandboxNotReady attempt=4 id="sb1") killpod start[0:foo NewSandbox, 1:bar NewSandbox, 2:baz NewSandbox]`},
		{"a sandbox not ready under Never after containers ran: kill, no new sandbox",
			func() core.Pod { return testPod(core.RestartPolicyNever) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Sandboxes[0].State = SandboxNotReady
				return st
			}, SyncOptions{}, `sandbox(create=false SandboxNotReady attempt=1 id="sb1") killpod`},
		{"a sandbox not ready under Never before any container: retry the sandbox",
			func() core.Pod { return testPod(core.RestartPolicyNever) },
			func(p core.Pod) PodStatus {
				return PodStatus{Sandboxes: []SandboxStatus{{ID: "sb1", State: SandboxNotReady, CreatedAt: at(0)}}}
			}, SyncOptions{}, `sandbox(create=true SandboxNotReady attempt=1 id="sb1") killpod start[0:foo NewSandbox, 1:bar NewSandbox, 2:baz NewSandbox]`},
		{"a sandbox not ready under OnFailure: succeeded containers stay done",
			func() core.Pod { return testPod(core.RestartPolicyOnFailure) },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Sandboxes[0].State = SandboxNotReady
				st.Containers[0] = exited(foo, 1, 0)
				return st
			}, SyncOptions{}, `sandbox(create=true SandboxNotReady attempt=1 id="sb1") killpod start[1:bar NewSandbox, 2:baz NewSandbox]`},
		{"OnFailure, all succeeded, sandbox gone: no new sandbox",
			func() core.Pod { return testPod(core.RestartPolicyOnFailure) },
			func(p core.Pod) PodStatus {
				return PodStatus{Sandboxes: []SandboxStatus{{ID: "sb1", State: SandboxNotReady, CreatedAt: at(0)}},
					Containers: []ContainerStatus{exited(foo, 1, 0), exited(bar, 1, 0), exited(baz, 1, 0)}}
			}, SyncOptions{}, `sandbox(create=false SandboxNotReady attempt=1 id="sb1") killpod`},
		{"two ready sandboxes: reconcile with a new one (the newest's ID and attempt)",
			func() core.Pod { return testPod("") },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Sandboxes = append(st.Sandboxes, readySandbox("sb2", 1, 10))
				return st
			}, SyncOptions{}, `sandbox(create=true MultipleReadySandboxes attempt=2 id="sb2") killpod start[0:foo NewSandbox, 1:bar NewSandbox, 2:baz NewSandbox]`},
		{"the newest sandbox decides: an older not-ready one does not matter",
			func() core.Pod { return testPod("") },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Sandboxes = append(st.Sandboxes, SandboxStatus{ID: "sb0", State: SandboxNotReady, CreatedAt: at(-100)})
				return st
			}, SyncOptions{}, ``},
		{"hostNetwork changed: new sandbox, no sandbox ID (upstream)",
			func() core.Pod {
				p := testPod("")
				p.HostNetwork = true
				return p
			}, allRunning, SyncOptions{}, `sandbox(create=true NetworkNamespaceChanged attempt=1 id="") killpod start[0:foo NewSandbox, 1:bar NewSandbox, 2:baz NewSandbox]`},
		{"a hostNetwork pod with a NODE sandbox needs no IP",
			func() core.Pod {
				p := testPod("")
				p.HostNetwork = true
				return p
			},
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Sandboxes[0].NetworkMode, st.Sandboxes[0].Network = NamespaceNode, &SandboxNetwork{}
				return st
			}, SyncOptions{}, ``},
		{"a pod-network sandbox without an IP: new sandbox",
			func() core.Pod { return testPod("") },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Sandboxes[0].Network.IP = ""
				return st
			}, SyncOptions{}, `sandbox(create=true NoIP attempt=1 id="sb1") killpod start[0:foo NewSandbox, 1:bar NewSandbox, 2:baz NewSandbox]`},
		{"no network status at all is not a missing IP",
			func() core.Pod { return testPod("") },
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Sandboxes[0].Network = nil
				return st
			}, SyncOptions{}, ``},
		{"ephemeral containers start once",
			func() core.Pod {
				p := testPod("")
				p.EphemeralContainers = []core.Container{spec("debug"), spec("debug2")}
				return p
			},
			func(p core.Pod) PodStatus {
				st := allRunning(p)
				st.Containers = append(st.Containers, exited(spec("debug2"), 1, 1))
				return st
			}, SyncOptions{}, `ephemeral[0:debug NotCreated]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.pod()
			a, err := ComputePodActions(p, c.st(p), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(a); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestComputePodActionsInitContainers(t *testing.T) {
	i0, i1 := spec("init0"), spec("init1")
	withInits := func(policy core.RestartPolicy, inits ...core.Container) core.Pod {
		p := testPod(policy)
		p.InitContainers = inits
		return p
	}
	sandboxOnly := func(cs ...ContainerStatus) PodStatus {
		return PodStatus{Sandboxes: []SandboxStatus{readySandbox("sb1", 0, 0)}, Containers: cs}
	}
	cases := []struct {
		name string
		pod  core.Pod
		st   PodStatus
		opts SyncOptions
		want string
	}{
		{"a new pod with init containers starts only the first",
			withInits("", i0, i1), PodStatus{}, SyncOptions{},
			`sandbox(create=true NoSandbox attempt=0 id="") killpod init[0:init0 NewSandbox]`},
		{"a sandbox with nothing started yet: the first init container",
			withInits("", i0, i1), sandboxOnly(), SyncOptions{}, `init[0:init0 NextInitContainer]`},
		{"init0 completed: init1 next",
			withInits("", i0, i1), sandboxOnly(exited(i0, 1, 0)), SyncOptions{}, `init[1:init1 NextInitContainer]`},
		{"init0 running: wait",
			withInits("", i0, i1), sandboxOnly(running(i0, 1)), SyncOptions{}, ``},
		{"init0 failed under Always: retried",
			withInits("", i0, i1), sandboxOnly(exited(i0, 1, 2)), SyncOptions{}, `init[0:init0 InitContainerFailed]`},
		{"init0 OOM-killed with exit 0 counts as failed",
			withInits(core.RestartPolicyOnFailure, i0, i1), func() PodStatus {
				s := exited(i0, 1, 0)
				s.Reason = "OOMKilled"
				return sandboxOnly(s)
			}(), SyncOptions{}, `init[0:init0 InitContainerFailed]`},
		{"init1 failed under Never: the pod is killed",
			withInits(core.RestartPolicyNever, i0, i1), sandboxOnly(exited(i0, 1, 0), exited(i1, 10, 1)), SyncOptions{}, `killpod`},
		{"init0 unknown under Always: killed and started again",
			withInits("", i0, i1), sandboxOnly(withState(running(i0, 1), ContainerUnknown)), SyncOptions{},
			`init[0:init0 Unknown] kill[init0-1 Unknown]`},
		{"init0 unknown under Never: the pod is killed",
			withInits(core.RestartPolicyNever, i0, i1), sandboxOnly(withState(running(i0, 1), ContainerUnknown)), SyncOptions{}, `killpod`},
		{"init containers done: the regular containers start",
			withInits("", i0, i1), sandboxOnly(exited(i0, 1, 0), exited(i1, 10, 0)), SyncOptions{},
			`start[0:foo NotCreated, 1:bar NotCreated, 2:baz NotCreated]`},
		{"init statuses gone but a regular container runs: initialized",
			withInits("", i0, i1), func() PodStatus {
				st := allRunning(testPod(""))
				st.Containers = st.Containers[:2]
				return st
			}(), SyncOptions{}, `start[2:baz NotCreated]`},
		{"a sidecar running: the next init container starts",
			withInits("", sidecar("proxy"), i1), sandboxOnly(running(sidecar("proxy"), 1)), SyncOptions{},
			`init[1:init1 NextInitContainer]`},
		{"a sidecar with a startup probe waits for its first result",
			withInits("", func() core.Container { c := sidecar("proxy"); c.HasStartupProbe = true; return c }(), i1),
			sandboxOnly(running(sidecar("proxy"), 1)), SyncOptions{}, ``},
		{"a sidecar failing its startup probe is restarted",
			withInits(core.RestartPolicyNever, func() core.Container { c := sidecar("proxy"); c.HasStartupProbe = true; return c }(), i1),
			func() PodStatus { s := running(sidecar("proxy"), 1); s.Startup = ProbeFailure; return sandboxOnly(s) }(), SyncOptions{},
			`init[0:proxy StartupProbe] kill[proxy-1 StartupProbe]`},
		{"a sidecar that exited after initialization restarts; regular containers keep running",
			withInits(core.RestartPolicyNever, sidecar("proxy")), func() PodStatus {
				st := allRunning(testPod(""))
				st.Containers = append(st.Containers, exited(sidecar("proxy"), 0, 1))
				return st
			}(), SyncOptions{}, `init[0:proxy Exited]`},
		{"a sidecar missing after initialization is started",
			withInits("", sidecar("proxy"), i1), allRunning(testPod("")), SyncOptions{}, `init[0:proxy NotCreated]`},
		{"a changed sidecar is restarted",
			withInits("", func() core.Container { c := sidecar("proxy"); c.Image = "proxy:v2"; return c }()),
			func() PodStatus {
				st := allRunning(testPod(""))
				st.Containers = append(st.Containers, running(sidecar("proxy"), 0))
				return st
			}(), SyncOptions{}, `init[0:proxy DefinitionChanged] kill[proxy-0 DefinitionChanged]`},
		// v1.36: exited regular containers do not make the pod initialized,
		// so the sidecar restarts first; v1.37: they do (they are in the
		// current sandbox), and a finished pod under Never is killed.
		{"v1.36: everything exited: not initialized, so the sidecar restarts first",
			withInits(core.RestartPolicyNever, sidecar("proxy")), func() PodStatus {
				return sandboxOnly(exited(sidecar("proxy"), 0, 1), exited(spec("foo"), 1, 0), exited(spec("bar"), 1, 0), exited(spec("baz"), 1, 0))
			}(), SyncOptionsFor(release.V1_36), `init[0:proxy Exited]`},
		{"v1.37: everything exited: initialized, and the finished pod is killed",
			withInits(core.RestartPolicyNever, sidecar("proxy")), func() PodStatus {
				return sandboxOnly(exited(sidecar("proxy"), 0, 1), exited(spec("foo"), 1, 0), exited(spec("bar"), 1, 0), exited(spec("baz"), 1, 0))
			}(), SyncOptions{}, `killpod`},
		{"sidecars do not keep a finished pod alive",
			withInits(core.RestartPolicyNever, sidecar("proxyA"), sidecar("proxyB")), func() PodStatus {
				return sandboxOnly(exited(sidecar("proxyA"), 0, 1), running(sidecar("proxyB"), 0),
					exited(spec("foo"), 1, 0), exited(spec("bar"), 1, 0), exited(spec("baz"), 1, 0))
			}(), SyncOptions{}, `killpod`},
		{"new sandbox: exited regular containers do not make the pod initialized",
			withInits(core.RestartPolicyOnFailure, i0), PodStatus{
				Sandboxes:  []SandboxStatus{{ID: "sb1", State: SandboxNotReady, CreatedAt: at(0)}},
				Containers: []ContainerStatus{exited(spec("foo"), 1, 0), exited(spec("bar"), 1, 0), exited(spec("baz"), 1, 0)},
			}, SyncOptions{}, `sandbox(create=false SandboxNotReady attempt=1 id="sb1") killpod`},
		// The legacy path (kubelets before 1.33).
		{"legacy: init0 completed, init1 next",
			withInits("", i0, i1), sandboxOnly(exited(i0, 1, 0)), SyncOptions{LegacySidecarContainers: true}, `init[1:init1 NextInitContainer]`},
		{"legacy: init0 failed under Never kills the pod",
			withInits(core.RestartPolicyNever, i0, i1), sandboxOnly(exited(i0, 1, 1)), SyncOptions{LegacySidecarContainers: true}, `killpod`},
		{"legacy: init0 unknown is killed and retried",
			withInits("", i0, i1), sandboxOnly(withState(running(i0, 1), ContainerUnknown)), SyncOptions{LegacySidecarContainers: true},
			`init[0:init0 InitContainerFailed] kill[init0-1 Unknown]`},
		{"legacy: init1 running, wait",
			withInits("", i0, i1), sandboxOnly(exited(i0, 1, 0), running(i1, 10)), SyncOptions{LegacySidecarContainers: true}, ``},
		{"legacy: a pod with a sidecar takes the current path anyway",
			withInits("", sidecar("proxy"), i1), sandboxOnly(running(sidecar("proxy"), 1)), SyncOptions{LegacySidecarContainers: true},
			`init[1:init1 NextInitContainer]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ComputePodActions(c.pod, c.st, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(a); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// The init containers' view of v1.37 (computeInitContainerActions over
// ActiveContainerStatuses), worked from upstream-1.37.md against v1.36's:
//
//   - the init containers' statuses were garbage-collected and the regular
//     containers of the current sandbox have exited: v1.37 counts the pod
//     initialized (a regular container in the current sandbox, any state)
//     and restarts them; v1.36 (exited ones do not count) runs init0 again;
//   - a new sandbox (sb2, READY) with nothing in it yet, the old one (sb1,
//     NOTREADY) holding init0 completed and the regular containers exited:
//     v1.37 reads only sb2, so init0 runs again in it; v1.36 finds init0's
//     newest instance completed (in sb1) and restarts the regular
//     containers without it.
func TestInitContainersCurrentSandbox(t *testing.T) {
	i0 := spec("init0")
	pod := testPod("")
	pod.InitContainers = []core.Container{i0}
	in := func(sb string, s ContainerStatus) ContainerStatus { s.SandboxID = sb; return s }
	gcInits := PodStatus{Sandboxes: []SandboxStatus{readySandbox("sb1", 0, 0)},
		Containers: []ContainerStatus{exited(spec("foo"), 10, 0), exited(spec("bar"), 10, 0), exited(spec("baz"), 10, 0)}}
	old := readySandbox("sb1", 0, 0)
	old.State = SandboxNotReady
	newSandbox := PodStatus{Sandboxes: []SandboxStatus{old, readySandbox("sb2", 1, 20)},
		Containers: []ContainerStatus{in("sb1", exited(i0, 1, 0)), in("sb1", exited(spec("foo"), 10, 0)),
			in("sb1", exited(spec("bar"), 10, 0)), in("sb1", exited(spec("baz"), 10, 0))}}
	restartAll := `start[0:foo Exited, 1:bar Exited, 2:baz Exited]`
	for _, c := range []struct {
		name string
		st   PodStatus
		opts SyncOptions
		want string
	}{
		{"v1.37: init statuses collected, regular exited", gcInits, SyncOptions{}, restartAll},
		{"v1.36: init statuses collected, regular exited", gcInits, SyncOptionsFor(release.V1_36), `init[0:init0 NextInitContainer]`},
		{"v1.37: new sandbox, old sandbox's statuses", newSandbox, SyncOptions{}, `init[0:init0 NextInitContainer]`},
		{"v1.36: new sandbox, old sandbox's statuses", newSandbox, SyncOptionsFor(release.V1_36), restartAll},
	} {
		a, err := ComputePodActions(pod, c.st, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := summary(a); got != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestSyncOptionsFor(t *testing.T) {
	for _, c := range []struct {
		v    release.Version
		want SyncOptions
	}{
		{release.V1_30, SyncOptions{LegacySidecarContainers: true, LegacyFullSpecHash: true, InitializedByAnySandbox: true}},
		{release.V1_31, SyncOptions{LegacySidecarContainers: true, InitializedByAnySandbox: true}},
		{release.V1_33, SyncOptions{InitializedByAnySandbox: true}},
		{release.V1_36, SyncOptions{InitializedByAnySandbox: true}},
		{release.V1_37, SyncOptions{}},
	} {
		if got := SyncOptionsFor(c.v); got != c.want {
			t.Errorf("SyncOptionsFor(%v) = %+v, want %+v", c.v, got, c.want)
		}
	}
}

func TestComputePodActionsMessages(t *testing.T) {
	p := testPod(core.RestartPolicyNever)
	st := allRunning(p)
	p.Containers[0].Image = "foo:v2"
	st.Containers[1].Liveness = ProbeFailure
	st.Containers[2] = withState(st.Containers[2], ContainerUnknown)
	a, err := ComputePodActions(p, st, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Container foo definition changed, will be restarted",
		"Container bar failed liveness probe",
		`Container is in "unknown" state, try killing it before restart`,
	}
	if len(a.ContainersToKill) != len(want) {
		t.Fatalf("kills %s", summary(a))
	}
	for i, w := range want {
		if a.ContainersToKill[i].Message != w {
			t.Errorf("kill %d: %q, want %q", i, a.ContainersToKill[i].Message, w)
		}
	}
	sb, _ := ComputePodActions(testPod(""), PodStatus{}, SyncOptions{})
	if sb.SandboxMessage != "No sandbox for pod can be found. Need to start a new one" {
		t.Errorf("sandbox message %q", sb.SandboxMessage)
	}
}

func TestComputePodActionsLegacyFullSpecHash(t *testing.T) {
	p := testPod("")
	st := allRunning(p)
	for i := range p.Containers {
		p.Containers[i].SpecJSON = []byte(`{"name":"` + p.Containers[i].Name + `"}`)
		st.Containers[i].Hash = HashContainerJSON(p.Containers[i].SpecJSON)
	}
	// The name-and-image hash no longer matches the labels: all restart.
	a, _ := ComputePodActions(p, st, SyncOptions{})
	if got := summary(a); got != `start[0:foo DefinitionChanged, 1:bar DefinitionChanged, 2:baz DefinitionChanged] kill[foo-1 DefinitionChanged, bar-1 DefinitionChanged, baz-1 DefinitionChanged]` {
		t.Errorf("current hash: %s", got)
	}
	a, _ = ComputePodActions(p, st, SyncOptions{LegacyFullSpecHash: true})
	if got := summary(a); got != `` {
		t.Errorf("legacy hash: %s", got)
	}
}

func TestComputePodActionsBadInput(t *testing.T) {
	p := testPod("")
	p.InitContainers = []core.Container{spec("bar")}
	_, err := ComputePodActions(p, PodStatus{}, SyncOptions{})
	if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), `"bar" is used twice`) {
		t.Errorf("duplicate: %v", err)
	}
	p = testPod("")
	p.Containers[1].Name = ""
	if _, err := ComputePodActions(p, PodStatus{}, SyncOptions{}); !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), "web_default(uid-1)") {
		t.Errorf("empty name: %v", err)
	}
}

func TestComputePodActionsBadRestartPolicies(t *testing.T) {
	for _, c := range []struct {
		edit func(*core.Pod)
		want string
	}{
		{func(p *core.Pod) { p.RestartPolicy = "Sometimes" }, `unsupported restart policy "Sometimes"`},
		{func(p *core.Pod) {
			p.InitContainers = []core.Container{{Name: "i", RestartPolicy: string(core.RestartPolicyNever)}}
		}, `init container "i" has restart policy "Never"`},
		{func(p *core.Pod) { p.Containers[0].RestartPolicy = core.ContainerRestartPolicyAlways }, `container "foo" has restart policy "Always"`},
	} {
		p := testPod("")
		c.edit(&p)
		if _, err := ComputePodActions(p, PodStatus{}, SyncOptions{}); !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

func TestComputePodActionsManyInstances(t *testing.T) {
	// More than 16 instances takes the indexed lookup; the decision must
	// not change.
	p := testPod(core.RestartPolicyAlways)
	st := allRunning(p)
	for i := 0; i < 20; i++ {
		st.Containers = append(st.Containers, exited(spec("bar"), -100-i, 1))
	}
	a, _ := ComputePodActions(p, st, SyncOptions{})
	if got := summary(a); got != `` {
		t.Errorf("indexed: %s", got)
	}
	st.Containers = append(st.Containers, exited(spec("bar"), 50, 1))
	a, _ = ComputePodActions(p, st, SyncOptions{})
	if got := summary(a); got != `start[1:bar Exited]` {
		t.Errorf("indexed, newest exited: %s", got)
	}
}

func TestShouldRestart(t *testing.T) {
	ex := func(code int32) *ContainerStatus { s := exited(spec("foo"), 1, code); return &s }
	st := func(s ContainerState) *ContainerStatus { c := withState(running(spec("foo"), 1), s); return &c }
	cases := []struct {
		policy   core.RestartPolicy
		deleting bool
		s        *ContainerStatus
		want     bool
	}{
		{core.RestartPolicyNever, false, nil, true},
		{core.RestartPolicyAlways, true, nil, false},
		{core.RestartPolicyAlways, false, st(ContainerRunning), false},
		{core.RestartPolicyNever, false, st(ContainerUnknown), true},
		{core.RestartPolicyNever, false, st(ContainerCreated), true},
		{core.RestartPolicyNever, false, ex(1), false},
		{core.RestartPolicyOnFailure, false, ex(0), false},
		{core.RestartPolicyOnFailure, false, ex(137), true},
		{core.RestartPolicyAlways, false, ex(0), true},
		{"", false, ex(0), true}, // empty policy is the API default Always
	}
	for _, c := range cases {
		p := testPod(c.policy)
		p.DeletionTimestamp = coretest.Deleting(c.deleting)
		if got := ShouldRestart(p, c.s); got != c.want {
			t.Errorf("policy %q deleting %v status %+v: %v, want %v", c.policy, c.deleting, c.s, got, c.want)
		}
	}
}
