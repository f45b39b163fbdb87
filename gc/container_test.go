package gc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// deadC is an exited container of pod uid named name, created d before t0.
func deadC(id, uid, name string, d time.Duration) Container {
	return Container{ID: id, PodUID: uid, Name: name, SandboxID: "sb-" + uid, State: ContainerExited, CreatedAt: ago(d)}
}

func TestContainerPolicy(t *testing.T) {
	if d := DefaultContainerPolicy(); d != (ContainerPolicy{MinAge: 0, MaxPerPodContainer: 1, MaxContainers: -1}) {
		t.Errorf("defaults %+v", d)
	}
	err := ContainerPolicy{MinAge: -time.Second}.Validate()
	if !errors.Is(err, ErrInvalidPolicy) || !strings.Contains(err.Error(), "invalid minimum garbage collection age: -1s") {
		t.Errorf("negative MinAge: %v", err)
	}
	if _, err := PlanContainers(t0, ContainerPolicy{MinAge: -1}, ContainerGCInput{}); err == nil {
		t.Error("PlanContainers accepted a negative MinAge")
	}
}

func TestPlanContainers(t *testing.T) {
	type removal struct {
		ID     string
		Reason ContainerReason
	}
	for _, c := range []struct {
		name   string
		policy ContainerPolicy
		in     ContainerGCInput
		want   []removal
		kept   int
	}{
		{
			name:   "MaxPerPodContainer 1 keeps the newest per unit, removing the oldest first",
			policy: DefaultContainerPolicy(),
			in: ContainerGCInput{Containers: []Container{
				deadC("c2", "p", "app", 2*time.Minute), deadC("c1", "p", "app", 3*time.Minute), deadC("c3", "p", "app", time.Minute),
				deadC("s1", "p", "sidecar", time.Minute),
			}, Pods: map[string]PodState{"p": PodActive}, AllSourcesReady: true, PodsSynced: true},
			want: []removal{{"c1", ReasonMaxPerPodContainer}, {"c2", ReasonMaxPerPodContainer}},
			kept: 2,
		},
		{
			name:   "running containers are never evictable; MinAge boundary: exactly MinAge old is eligible",
			policy: ContainerPolicy{MinAge: time.Minute, MaxPerPodContainer: 0, MaxContainers: -1},
			in: ContainerGCInput{Containers: []Container{
				{ID: "running", PodUID: "p", Name: "app", State: ContainerRunning, CreatedAt: ago(time.Hour)},
				deadC("exactly", "p", "app", time.Minute),
				deadC("too-young", "p", "app", time.Minute-time.Second),
			}, Pods: map[string]PodState{"p": PodActive}},
			want: []removal{{"exactly", ReasonMaxPerPodContainer}},
		},
		{
			name:   "a deleted or evicted pod loses every dead container (MinAge still applies)",
			policy: ContainerPolicy{MinAge: time.Minute, MaxPerPodContainer: 5, MaxContainers: -1},
			in: ContainerGCInput{Containers: []Container{
				deadC("b", "gone", "app", 2*time.Minute), deadC("a", "gone", "app", 3*time.Minute),
				deadC("young", "gone", "app", 30*time.Second),
				deadC("x", "live", "app", 2*time.Minute),
			}, Pods: map[string]PodState{"gone": PodRemoved, "live": PodActive}, AllSourcesReady: true},
			want: []removal{{"a", ReasonPodRemoved}, {"b", ReasonPodRemoved}},
			kept: 1,
		},
		{
			name:   "until all sources are ready a removed pod's containers are only trimmed",
			policy: DefaultContainerPolicy(),
			in: ContainerGCInput{Containers: []Container{
				deadC("b", "gone", "app", 2*time.Minute), deadC("a", "gone", "app", 3*time.Minute),
			}, Pods: map[string]PodState{"gone": PodRemoved}},
			want: []removal{{"a", ReasonMaxPerPodContainer}},
			kept: 1,
		},
		{
			name:   "a pod unknown to synced pod workers counts as removed",
			policy: DefaultContainerPolicy(),
			in: ContainerGCInput{Containers: []Container{deadC("a", "unknown", "app", time.Minute)},
				PodsSynced: true, AllSourcesReady: true},
			want: []removal{{"a", ReasonPodRemoved}},
		},
		{
			name:   "a pod unknown before the pod workers synced counts as live",
			policy: DefaultContainerPolicy(),
			in:     ContainerGCInput{Containers: []Container{deadC("a", "unknown", "app", time.Minute)}, AllSourcesReady: true},
			kept:   1,
		},
		{
			name:   "a terminated pod keeps its newest dead container...",
			policy: DefaultContainerPolicy(),
			in: ContainerGCInput{Containers: []Container{deadC("a", "done", "app", time.Minute)},
				Pods: map[string]PodState{"done": PodTerminated}, AllSourcesReady: true},
			kept: 1,
		},
		{
			name:   "...except in the eviction manager's delete-all mode",
			policy: DefaultContainerPolicy(),
			in: ContainerGCInput{Containers: []Container{deadC("a", "done", "app", time.Minute)},
				Pods: map[string]PodState{"done": PodTerminated}, AllSourcesReady: true, EvictNonDeletedPods: true},
			want: []removal{{"a", ReasonPodRemoved}},
		},
		{
			// Two units of 2 and six of 1 = 10 > 6: per unit max(6/8, 1) = 1
			// removes the older of each pair; 8 > 6 still: the two oldest on
			// the node go.
			name:   "MaxContainers conflict: 8 units, 10 dead, Max 6",
			policy: ContainerPolicy{MaxPerPodContainer: -1, MaxContainers: 6},
			in: ContainerGCInput{Containers: []Container{
				deadC("u1-old", "u1", "c", 100*time.Minute), deadC("u1-new", "u1", "c", 10*time.Minute),
				deadC("u2-old", "u2", "c", 90*time.Minute), deadC("u2-new", "u2", "c", 9*time.Minute),
				deadC("u3", "u3", "c", 80*time.Minute), deadC("u4", "u4", "c", 70*time.Minute),
				deadC("u5", "u5", "c", 8*time.Minute), deadC("u6", "u6", "c", 7*time.Minute),
				deadC("u7", "u7", "c", 6*time.Minute), deadC("u8", "u8", "c", 5*time.Minute),
			}, AllSourcesReady: true},
			want: []removal{
				{"u1-old", ReasonMaxContainersPerUnit}, {"u2-old", ReasonMaxContainersPerUnit},
				{"u3", ReasonMaxContainers}, {"u4", ReasonMaxContainers},
			},
			kept: 6,
		},
		{
			// 4 units of 6 = 24 > 20: per unit 20/4 = 5 removes the oldest of each; 20 left.
			name:   "MaxContainers met by the per-unit cut alone",
			policy: ContainerPolicy{MaxPerPodContainer: -1, MaxContainers: 20},
			in: func() ContainerGCInput {
				var cs []Container
				for u := 0; u < 4; u++ {
					for i := 0; i < 6; i++ {
						cs = append(cs, deadC(fmt.Sprintf("u%d-%d", u, i), fmt.Sprintf("u%d", u), "c", time.Duration(10*u+i+1)*time.Minute))
					}
				}
				return ContainerGCInput{Containers: cs}
			}(),
			want: []removal{
				{"u0-5", ReasonMaxContainersPerUnit}, {"u1-5", ReasonMaxContainersPerUnit},
				{"u2-5", ReasonMaxContainersPerUnit}, {"u3-5", ReasonMaxContainersPerUnit},
			},
			kept: 20,
		},
		{
			name:   "MaxContainers 0 removes everything, oldest first at the end",
			policy: ContainerPolicy{MaxPerPodContainer: 2, MaxContainers: 0},
			in: ContainerGCInput{Containers: []Container{
				deadC("a1", "a", "c", 5*time.Minute), deadC("a2", "a", "c", 4*time.Minute), deadC("a3", "a", "c", 3*time.Minute),
				deadC("b1", "b", "c", 6*time.Minute),
			}},
			want: []removal{
				{"a1", ReasonMaxPerPodContainer},
				{"a2", ReasonMaxContainersPerUnit},
				{"b1", ReasonMaxContainers}, {"a3", ReasonMaxContainers},
			},
		},
		{
			name:   "equal creation times: the smaller ID counts as older",
			policy: DefaultContainerPolicy(),
			in:     ContainerGCInput{Containers: []Container{deadC("y", "p", "c", time.Minute), deadC("x", "p", "c", time.Minute)}},
			want:   []removal{{"x", ReasonMaxPerPodContainer}},
			kept:   1,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan, err := PlanContainers(t0, c.policy, c.in)
			mustNil(t, err)
			var got []removal
			for _, r := range plan.Containers {
				got = append(got, removal{r.Container.ID, r.Reason})
				if r.Message == "" {
					t.Errorf("%s: no message", r.Container.ID)
				}
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("removals (-want +got):\n%s", d)
			}
			if plan.Kept != c.kept {
				t.Errorf("kept %d, want %d", plan.Kept, c.kept)
			}
		})
	}
}

func TestPlanContainersUnknownStateStopsFirst(t *testing.T) {
	u := deadC("u", "p", "c", 2*time.Minute)
	u.State = ContainerUnknown
	plan, err := PlanContainers(t0, DefaultContainerPolicy(), ContainerGCInput{Containers: []Container{u, deadC("e", "p", "c", time.Minute)}})
	mustNil(t, err)
	if len(plan.Containers) != 1 || !plan.Containers[0].StopFirst || !strings.Contains(plan.Containers[0].Message, "unknown state") {
		t.Errorf("%+v", plan.Containers)
	}
	// A created (never started) container is evictable and not stopped.
	cr := deadC("cr", "p", "c", 3*time.Minute)
	cr.State = ContainerCreated
	plan, err = PlanContainers(t0, DefaultContainerPolicy(), ContainerGCInput{Containers: []Container{cr, deadC("e", "p", "c", time.Minute)}})
	mustNil(t, err)
	if len(plan.Containers) != 1 || plan.Containers[0].Container.ID != "cr" || plan.Containers[0].StopFirst {
		t.Errorf("created: %+v", plan.Containers)
	}
}

func TestPlanSandboxes(t *testing.T) {
	sb := func(id, uid string, st SandboxState, d time.Duration) Sandbox {
		return Sandbox{ID: id, PodUID: uid, State: st, CreatedAt: ago(d)}
	}
	in := ContainerGCInput{
		Sandboxes: []Sandbox{
			// live pod
			sb("live-newest", "live", SandboxNotReady, time.Minute), // newest: kept whatever its state
			sb("live-mid", "live", SandboxNotReady, 2*time.Minute),  // inactive, older: goes
			sb("live-ref", "live", SandboxNotReady, 3*time.Minute),  // referenced by a container: active
			sb("live-ready", "live", SandboxReady, 4*time.Minute),   // ready: active
			sb("live-old", "live", SandboxNotReady, 5*time.Minute),  // inactive, older: goes
			// removed pod
			sb("gone-newest", "gone", SandboxNotReady, time.Minute), // inactive: goes, newest or not
			sb("gone-ready", "gone", SandboxReady, 2*time.Minute),   // active: stays
			sb("gone-old", "gone", SandboxNotReady, 3*time.Minute),
		},
		Containers: []Container{{ID: "c", PodUID: "live", Name: "app", SandboxID: "live-ref", State: ContainerRunning, CreatedAt: ago(time.Hour)}},
		Pods:       map[string]PodState{"live": PodActive, "gone": PodRemoved},
	}
	plan, err := PlanContainers(t0, DefaultContainerPolicy(), in)
	mustNil(t, err)
	type removal struct {
		ID     string
		Reason ContainerReason
	}
	var got []removal
	for _, s := range plan.Sandboxes {
		got = append(got, removal{s.Sandbox.ID, s.Reason})
	}
	want := []removal{
		{"gone-old", ReasonPodRemoved}, {"gone-newest", ReasonPodRemoved},
		{"live-old", ReasonOlderSandbox}, {"live-mid", ReasonOlderSandbox},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sandboxes (-want +got):\n%s", d)
	}
}

func TestPlanContainersBadInput(t *testing.T) {
	for _, c := range []struct {
		in   ContainerGCInput
		want string
	}{
		{ContainerGCInput{Containers: []Container{{ID: ""}}}, "container 0 has an empty ID"},
		{ContainerGCInput{Containers: []Container{{ID: "a"}, {ID: "a"}}}, `duplicate container ID "a"`},
		{ContainerGCInput{Sandboxes: []Sandbox{{ID: "s"}, {ID: "s"}}}, `duplicate sandbox ID "s"`},
		{ContainerGCInput{Sandboxes: []Sandbox{{}}}, "sandbox 0 has an empty ID"},
	} {
		if _, err := PlanContainers(t0, DefaultContainerPolicy(), c.in); !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
}

func TestContainerDeathPlan(t *testing.T) {
	pod := []Container{
		deadC("app-1", "p", "app", 30*time.Minute),
		deadC("app-3", "p", "app", 10*time.Minute),
		deadC("app-2", "p", "app", 20*time.Minute),
		{ID: "app-run", PodUID: "p", Name: "app", State: ContainerRunning, CreatedAt: ago(time.Minute)},
		{ID: "app-unknown", PodUID: "p", Name: "app", State: ContainerUnknown, CreatedAt: ago(time.Hour)},
		deadC("side-1", "p", "side", 25*time.Minute),
		deadC("side-2", "p", "side", 15*time.Minute),
	}
	for _, c := range []struct {
		name      string
		maxPer    int
		died      string
		removeAll bool
		want      []string
	}{
		{"keeps the newest exited instance of that name", 1, "app-3", false, []string{"app-1", "app-2"}},
		{"MaxPerPodContainer 0 still keeps one", 0, "app-3", false, []string{"app-1", "app-2"}},
		{"negative MaxPerPodContainer keeps one", -1, "app-3", false, []string{"app-1", "app-2"}},
		{"MaxPerPodContainer 2", 2, "app-3", false, []string{"app-1"}},
		{"other name", 1, "side-2", false, []string{"side-1"}},
		{"removed pod: every exited container", 1, "app-3", true, []string{"app-1", "side-1", "app-2", "side-2", "app-3"}},
		{"died ID not in the pod: nothing", 1, "nope", false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ContainerDeathPlan(ContainerPolicy{MaxPerPodContainer: c.maxPer, MaxContainers: -1}, c.died, pod, c.removeAll)
			mustNil(t, err)
			if d := cmp.Diff(c.want, containerIDs(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			for _, r := range got {
				if r.Reason != ReasonContainerDied || r.StopFirst {
					t.Errorf("%+v", r)
				}
			}
		})
	}
	if _, err := ContainerDeathPlan(ContainerPolicy{MinAge: -1}, "x", nil, false); !errors.Is(err, ErrInvalidPolicy) {
		t.Errorf("invalid policy: %v", err)
	}
}

func TestEnumStrings(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{ContainerExited.String(), "CONTAINER_EXITED"},
		{ContainerUnknown.String(), "CONTAINER_UNKNOWN"},
		{ContainerState(9).String(), "ContainerState(9)"},
		{SandboxNotReady.String(), "SANDBOX_NOTREADY"},
		{PodRemoved.String(), "PodRemoved"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}

func TestCheckContainerIDsHashCollisions(t *testing.T) {
	same := func(string) uint64 { return 7 } // every ID collides
	mustNil(t, checkContainerIDsHashed([]Container{{ID: "a"}, {ID: "b"}, {ID: "c"}}, same))
	for _, cs := range [][]Container{
		{{ID: "a"}, {ID: "b"}, {ID: "a"}},
		{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "b"}},
	} {
		if err := checkContainerIDsHashed(cs, same); !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), "duplicate container ID") {
			t.Errorf("%v: %v", cs, err)
		}
	}
	if fnv64("") != 14695981039346656037 || fnv64("a") != 0xaf63dc4c8601ec8c {
		t.Errorf("fnv64 test vectors: %x %x", fnv64(""), fnv64("a"))
	}
}
