package cri

import (
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/coretest"
	"testing"
	"time"
)

func FuzzHashContainer(f *testing.F) {
	f.Add("test_container", "foo/image:v1")
	f.Add("a<b>&", "\xff\u2028\"\\")
	f.Fuzz(func(t *testing.T, name, image string) {
		if got, want := HashContainer(name, image), slowHash(name, image); got != want {
			t.Fatalf("HashContainer(%q, %q) = %#x, encoding/json path %#x", name, image, got, want)
		}
	})
}

// bytesSource hands out small numbers from fuzz input, then zeros.
type bytesSource struct{ b []byte }

func (s *bytesSource) next(n int) int {
	if len(s.b) == 0 || n <= 0 {
		return 0
	}
	v := int(s.b[0]) % n
	s.b = s.b[1:]
	return v
}

// FuzzComputePodActions feeds arbitrary pods and statuses (including
// duplicate names, unknown enum values and empty IDs): the decision never
// panics, and every start names a container of its list.
func FuzzComputePodActions(f *testing.F) {
	f.Add([]byte{3, 1, 2, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{255, 7, 9, 200, 13, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4})
	names := []string{"a", "b", "c", "", "a"}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &bytesSource{data}
		p := core.Pod{Name: "p", RestartPolicy: []core.RestartPolicy{"", "Always", "OnFailure", "Never", "Bogus"}[s.next(5)],
			DeletionTimestamp: coretest.Deleting(s.next(2) == 1), HostNetwork: s.next(2) == 1}
		for i, n := 0, s.next(4); i < n; i++ {
			p.Containers = append(p.Containers, core.Container{Name: names[s.next(5)], Image: "x"})
		}
		for i, n := 0, s.next(3); i < n; i++ {
			p.InitContainers = append(p.InitContainers, core.Container{Name: "i" + names[s.next(5)], RestartPolicy: []string{"", core.ContainerRestartPolicyAlways}[s.next(2)],
				HasStartupProbe: s.next(2) == 1, HasLivenessProbe: s.next(2) == 1})
		}
		if s.next(3) == 0 {
			p.EphemeralContainers = []core.Container{{Name: "e"}}
		}
		var st PodStatus
		for i, n := 0, s.next(3); i < n; i++ {
			sb := SandboxStatus{ID: names[s.next(5)], State: SandboxState(s.next(4) - 1), Attempt: uint32(s.next(256)) << (8 * s.next(4)),
				CreatedAt: time.Unix(int64(s.next(5)), 0), NetworkMode: NamespaceMode(s.next(5) - 1)}
			if s.next(2) == 1 {
				sb.Network = &SandboxNetwork{IP: names[s.next(5)]}
			}
			st.Sandboxes = append(st.Sandboxes, sb)
		}
		for i, n := 0, s.next(30); i < n; i++ {
			name := names[s.next(5)]
			if s.next(2) == 1 {
				name = "i" + name
			}
			st.Containers = append(st.Containers, ContainerStatus{ID: names[s.next(5)], Name: name, State: ContainerState(s.next(6) - 1),
				CreatedAt: time.Unix(int64(s.next(5)), 0), ExitCode: int32(s.next(3)), Hash: HashContainer(name, "x") + uint64(s.next(2)),
				Liveness: ProbeResult(s.next(5)), Startup: ProbeResult(s.next(5))})
		}
		for _, legacy := range []bool{false, true} {
			a, err := ComputePodActions(p, st, SyncOptions{LegacySidecarContainers: legacy, LegacyFullSpecHash: s.next(2) == 1})
			if err != nil {
				continue
			}
			check := func(list []ContainerStart, spec []core.Container) {
				for _, x := range list {
					if x.Index < 0 || x.Index >= len(spec) || spec[x.Index].Name != x.Name || x.Reason == "" {
						t.Fatalf("bad start %+v of %+v", x, spec)
					}
				}
			}
			check(a.InitContainersToStart, p.InitContainers)
			check(a.ContainersToStart, p.Containers)
			check(a.EphemeralContainersToStart, p.EphemeralContainers)
		}
	})
}

// FuzzBackoffDecide: any config and times either fail validation or give a
// delay within [Initial, Max] and a remaining time within the delay.
func FuzzBackoffDecide(f *testing.F) {
	f.Add(int64(10e9), int64(300e9), 2, int64(40e9), int64(0), int64(100e9), int64(139e9))
	f.Add(int64(1), int64(1<<62), 1, int64(1<<62), int64(-1<<62), int64(1<<62), int64(-5))
	f.Fuzz(func(t *testing.T, initial, maxDelay int64, factor int, delay, last, finished, now int64) {
		c := BackoffConfig{Initial: time.Duration(initial), Max: time.Duration(maxDelay), ResetFactor: factor}
		e := BackoffEntry{Delay: time.Duration(delay), LastUpdate: time.Unix(0, last)}
		d, err := c.Decide(time.Unix(0, now), e, time.Unix(0, finished))
		if err != nil {
			return
		}
		if d.InBackoff {
			if d.Remaining <= 0 || d.Remaining > e.Delay || d.Entry != e {
				t.Fatalf("%+v from %+v", d, e)
			}
			return
		}
		if d.Entry.Delay < c.Initial || d.Entry.Delay > max(c.Max, c.Initial) {
			t.Fatalf("delay %v outside [%v, %v]", d.Entry.Delay, c.Initial, c.Max)
		}
	})
}
