package cri

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// drawPod draws a pod of 1-4 regular containers and 0-2 init containers
// (some sidecars), and a runtime status of 0-2 sandboxes and 0-3
// instances per container in random states.
func drawPod(t *rapid.T) (Pod, PodStatus) {
	policy := rapid.SampledFrom([]RestartPolicy{"", RestartPolicyAlways, RestartPolicyOnFailure, RestartPolicyNever}).Draw(t, "policy")
	p := Pod{Name: "p", Namespace: "ns", UID: "u", RestartPolicy: policy, Deleting: rapid.Float64().Draw(t, "del") < 0.1,
		HostNetwork: rapid.Float64().Draw(t, "hostnet") < 0.2}
	names := []string{"a", "b", "c", "d", "i0", "i1"}
	nc := rapid.IntRange(1, 4).Draw(t, "containers")
	for i := 0; i < nc; i++ {
		p.Containers = append(p.Containers, Container{Name: names[i], Image: names[i] + ":v1"})
	}
	ni := rapid.IntRange(0, 2).Draw(t, "inits")
	for i := 0; i < ni; i++ {
		c := Container{Name: names[4+i], Image: "init:v1"}
		if rapid.Bool().Draw(t, "sidecar") {
			c.RestartPolicy = RestartPolicyAlways
			c.HasStartupProbe = rapid.Bool().Draw(t, "startupProbe")
			c.HasLivenessProbe = rapid.Bool().Draw(t, "livenessProbe")
		}
		p.InitContainers = append(p.InitContainers, c)
	}
	var st PodStatus
	for i, n := 0, rapid.IntRange(0, 2).Draw(t, "sandboxes"); i < n; i++ {
		sb := SandboxStatus{ID: "sb" + itoa(i), State: SandboxState(rapid.IntRange(0, 1).Draw(t, "sbstate")),
			Attempt: uint32(rapid.IntRange(0, 3).Draw(t, "attempt")), CreatedAt: at(rapid.IntRange(0, 5).Draw(t, "sbcreated")),
			NetworkMode: NamespaceMode(rapid.SampledFrom([]int{0, 0, 2}).Draw(t, "netmode"))}
		if rapid.Bool().Draw(t, "network") {
			sb.Network = &SandboxNetwork{IP: rapid.SampledFrom([]string{"", "10.0.0.1"}).Draw(t, "ip")}
		}
		st.Sandboxes = append(st.Sandboxes, sb)
	}
	all := append(append([]Container{}, p.InitContainers...), p.Containers...)
	id := 0
	for _, c := range all {
		for j, n := 0, rapid.IntRange(0, 3).Draw(t, "instances"); j < n; j++ {
			s := ContainerStatus{ID: "id" + itoa(id), Name: c.Name, State: ContainerState(rapid.IntRange(0, 3).Draw(t, "state")),
				CreatedAt: at(rapid.IntRange(0, 20).Draw(t, "created")), ExitCode: int32(rapid.SampledFrom([]int{0, 0, 1, 137}).Draw(t, "code")),
				Hash: HashContainer(c.Name, c.Image), Liveness: ProbeResult(rapid.IntRange(0, 3).Draw(t, "live")),
				Startup: ProbeResult(rapid.IntRange(0, 3).Draw(t, "startup"))}
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
	return p, st
}

// TestPropertySyncNeverStartsWhatThePolicyForbids: a regular container
// whose newest instance exited is started again only when the policy
// allows (Always; OnFailure with a non-zero exit) or a new sandbox starts
// everything afresh (where OnFailure still skips the succeeded ones), and
// a deleted pod restarts no exited container; every kill names an instance
// of the status; starts and kills name each container at most once.
func TestPropertySyncNeverStartsWhatThePolicyForbids(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, st := drawPod(t)
		for _, legacy := range []bool{false, true} {
			a, err := ComputePodActions(p, st, SyncOptions{LegacySidecarContainers: legacy})
			if err != nil {
				t.Fatal(err)
			}
			v := newView(&p, &st, SyncOptions{})
			for _, s := range a.ContainersToStart {
				if s.Index < 0 || s.Index >= len(p.Containers) || p.Containers[s.Index].Name != s.Name {
					t.Fatalf("bad start %+v", s)
				}
				last := v.find(s.Name)
				if last == nil || last.State != ContainerExited {
					continue
				}
				switch {
				case s.Reason == StartExited && p.Deleting:
					t.Fatalf("deleted pod restarts %s", s.Name)
				case s.Reason == StartExited && p.RestartPolicy == RestartPolicyNever:
					t.Fatalf("Never restarts %s", s.Name)
				case p.RestartPolicy == RestartPolicyOnFailure && last.ExitCode == 0 && (s.Reason == StartExited || s.Reason == StartNewSandbox):
					t.Fatalf("OnFailure restarts succeeded %s (%s)", s.Name, s.Reason)
				}
			}
			if a.CreateSandbox && a.Attempt != 0 && p.RestartPolicy == RestartPolicyNever && len(st.Containers) != 0 {
				t.Fatalf("Never re-creates a sandbox: %+v", a)
			}
			seen := map[string]bool{}
			for _, list := range [][]ContainerStart{a.InitContainersToStart, a.ContainersToStart, a.EphemeralContainersToStart} {
				for _, s := range list {
					if seen[s.Name] {
						t.Fatalf("%s started twice: %+v", s.Name, a)
					}
					seen[s.Name] = true
				}
			}
			kills := map[string]bool{}
			for _, k := range a.ContainersToKill {
				if kills[k.ID] {
					t.Fatalf("%s killed twice", k.ID)
				}
				kills[k.ID] = true
				found := false
				for _, s := range st.Containers {
					found = found || (s.ID == k.ID && s.Name == k.Name)
				}
				if !found {
					t.Fatalf("kill of an unknown instance %+v", k)
				}
			}
		}
	})
}

// TestPropertyBackoffMonotone: along any crash history the delay never
// decreases except at a reset, never exceeds Max, never falls below
// Initial, and a reset happens exactly when the container finished more
// than ResetFactor x Max after the last update.
func TestPropertyBackoffMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := BackoffConfig{
			Initial:     time.Duration(rapid.IntRange(1, 20).Draw(t, "initial")) * time.Second,
			ResetFactor: rapid.IntRange(1, 3).Draw(t, "factor"),
		}
		c.Max = c.Initial * time.Duration(rapid.IntRange(1, 40).Draw(t, "maxMult"))
		var e BackoffEntry
		now := t0
		for i, n := 0, rapid.IntRange(1, 30).Draw(t, "events"); i < n; i++ {
			finished := now.Add(time.Duration(rapid.Int64Range(0, int64(3*c.Max)).Draw(t, "ran")))
			now = finished.Add(time.Duration(rapid.Int64Range(0, int64(2*c.Max)).Draw(t, "waited")))
			d, err := c.Decide(e, finished, now)
			if err != nil {
				t.Fatal(err)
			}
			expired := e.Delay > 0 && finished.Sub(e.LastUpdate) > time.Duration(c.ResetFactor)*c.Max
			switch {
			case d.InBackoff:
				if d.Entry != e || d.Remaining <= 0 || d.Remaining > e.Delay {
					t.Fatalf("in back-off changed the entry or bad remaining: %+v from %+v", d, e)
				}
			case d.Reset:
				if e.Delay > 0 && !expired {
					t.Fatalf("reset without expiry: %+v from %+v", d, e)
				}
				if d.Entry.Delay != c.Initial {
					t.Fatalf("reset to %v", d.Entry.Delay)
				}
			default:
				if expired || d.Entry.Delay < e.Delay || d.Entry.Delay > c.Max || d.Entry.Delay != min(2*e.Delay, c.Max) {
					t.Fatalf("advance %v -> %v (max %v, expired %v)", e.Delay, d.Entry.Delay, c.Max, expired)
				}
			}
			if d.Entry.Delay < c.Initial || d.Entry.Delay > c.Max {
				t.Fatalf("delay %v outside [%v, %v]", d.Entry.Delay, c.Initial, c.Max)
			}
			e = d.Entry
		}
	})
}
