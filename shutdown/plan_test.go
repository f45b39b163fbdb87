package shutdown

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodelife/nodelife/core"
)

// Upstream's groupByPriority case: config {1:10, 2:20, 3:30, 4:40} and pods
// of priorities 0..5 give {1:[0,1]}, {2:[2]}, {3:[3]}, {4:[4,5]}: below the
// lowest phase goes to the lowest, above the highest to the highest.
func TestPlanGroupByPriorityUpstreamCase(t *testing.T) {
	c := Config{ShutdownGracePeriodByPodPriority: []PhaseConfig{{1, 10}, {2, 20}, {3, 30}, {4, 40}}}
	var pods []core.Pod
	for p := int32(0); p <= 5; p++ {
		pods = append(pods, pod(string(rune('0'+p)), i32(p), nil))
	}
	plan, err := c.Plan(pods)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"0", "1"}, {"2"}, {"3"}, {"4", "5"}}
	for i, ph := range plan.Phases {
		if diff := cmp.Diff(want[i], names(ph.Pods)); diff != "" {
			t.Errorf("phase %d (priority %d) (-want +got):\n%s", i, ph.Priority, diff)
		}
		for _, pp := range ph.Pods {
			if pp.GracePeriodSeconds != ph.ShutdownGracePeriodSeconds {
				t.Errorf("pod %s grace %d, want the phase's %d", pp.Pod.Name, pp.GracePeriodSeconds, ph.ShutdownGracePeriodSeconds)
			}
		}
	}
}

func TestPhaseIndex(t *testing.T) {
	seed := []PhaseConfig{{0, 60}, {1000, 120}, {10000, 180}, {100000, 10}}
	dups := []PhaseConfig{{100, 1}, {100, 2}, {200, 3}}
	tests := []struct {
		name   string
		phases []PhaseConfig
		prio   int32
		want   int
	}{
		{"no phases", nil, 5, -1},
		{"exact lower bound is inclusive", seed, 1000, 1},
		{"between bounds goes down", seed, 9999, 1},
		{"custom-class-a", seed, 100000, 3},
		{"above the highest", seed, 2000000000, 3},
		{"below the lowest goes to the lowest", []PhaseConfig{{10, 1}, {20, 1}}, -5, 0},
		{"negative priorities", []PhaseConfig{{-100, 1}, {0, 1}}, -50, 0},
		{"duplicates: exact match takes the first", dups, 100, 0},
		{"duplicates: value above takes the last", dups, 150, 1},
		{"duplicates at the top: value above takes the last", []PhaseConfig{{100, 1}, {100, 2}}, 150, 1},
		{"duplicates: below all takes the first", dups, 50, 0},
		{"above duplicates' successor", dups, 200, 2},
	}
	for _, tt := range tests {
		if got := PhaseIndex(tt.phases, tt.prio); got != tt.want {
			t.Errorf("%s: PhaseIndex(%v, %d) = %d, want %d", tt.name, tt.phases, tt.prio, got, tt.want)
		}
	}
}

func TestPodGracePeriod(t *testing.T) {
	tests := []struct {
		name  string
		grace *int64
		phase int64
		want  int64
	}{
		{"nil takes the phase", nil, 60, 60},
		{"shorter pod grace wins", i64(30), 60, 30},
		{"equal", i64(60), 60, 60},
		{"longer pod grace is cut to the phase", i64(90), 60, 60},
		{"zero pod grace", i64(0), 60, 0},
		{"zero phase kills at once", i64(30), 0, 0},
		{"negative phase is passed on", i64(30), -5, -5},
	}
	for _, tt := range tests {
		if got := PodGracePeriod(core.Pod{TerminationGracePeriodSeconds: tt.grace}, tt.phase); got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestKillTimeout(t *testing.T) {
	tests := []struct {
		grace int64
		want  time.Duration
	}{
		{-3, 10 * time.Second},
		{0, 10 * time.Second},
		{6, 10 * time.Second}, // 9s < 10s
		{7, 10500 * time.Millisecond},
		{20, 30 * time.Second},
		{1 << 62, time.Duration(1<<63 - 1)},
	}
	for _, tt := range tests {
		if got := KillTimeout(tt.grace); got != tt.want {
			t.Errorf("KillTimeout(%d) = %v, want %v", tt.grace, got, tt.want)
		}
	}
}

// The seed's priority table: classes a (100000), b (10000), c (1000) and
// unset, with 10/180/120/60 seconds. Phases run from the lowest priority,
// back to back: 0-60s, 60-180s, 180-360s, 360-370s.
func TestPlanSeedPriorityTable(t *testing.T) {
	c := Config{ShutdownGracePeriodByPodPriority: []PhaseConfig{
		{Priority: 100000, ShutdownGracePeriodSeconds: 10},
		{Priority: 10000, ShutdownGracePeriodSeconds: 180},
		{Priority: 1000, ShutdownGracePeriodSeconds: 120},
		{Priority: 0, ShutdownGracePeriodSeconds: 60},
	}}
	pods := []core.Pod{
		pod("a", i32(100000), nil),
		pod("a-plus", i32(150000), i64(30)), // >= 100000: 10s, its 30s cut
		pod("b", i32(10000), i64(30)),       // 30s < 180s: keeps 30
		pod("between-b-a", i32(50000), nil), // >= 10000 and < 100000: 180s
		pod("c", i32(1000), nil),
		pod("between-c-b", i32(5000), nil),
		pod("unset", nil, nil),
		pod("zero", i32(0), i64(90)), // 90s cut to 60s
	}
	plan, err := c.Plan(pods)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Priority        int32
		Period          time.Duration
		Start, Deadline time.Duration
		Pods            []string
		Grace           []int64
	}
	var got []row
	for _, ph := range plan.Phases {
		r := row{ph.Priority, ph.Period(), ph.Start, ph.Deadline, names(ph.Pods), nil}
		for _, pp := range ph.Pods {
			r.Grace = append(r.Grace, pp.GracePeriodSeconds)
		}
		got = append(got, r)
	}
	want := []row{
		{0, 60 * time.Second, 0, 60 * time.Second, []string{"unset", "zero"}, []int64{60, 60}},
		{1000, 120 * time.Second, 60 * time.Second, 180 * time.Second, []string{"c", "between-c-b"}, []int64{120, 120}},
		{10000, 180 * time.Second, 180 * time.Second, 360 * time.Second, []string{"b", "between-b-a"}, []int64{30, 180}},
		{100000, 10 * time.Second, 360 * time.Second, 370 * time.Second, []string{"a", "a-plus"}, []int64{10, 10}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if plan.Total != 370*time.Second || plan.InhibitDelay != 370*time.Second {
		t.Errorf("Total %v InhibitDelay %v, want 370s both", plan.Total, plan.InhibitDelay)
	}
}

// The seed's second table, 100000: 300s, 1000: 120s, 0: 60s: custom-class-b
// (10000) shares custom-class-c's bucket. With no regular pods the 0 phase
// is skipped: it takes no time, though the inhibitor delay still counts it.
func TestPlanSeedSharedBucketAndSkippedPhase(t *testing.T) {
	c := Config{ShutdownGracePeriodByPodPriority: []PhaseConfig{{100000, 300}, {1000, 120}, {0, 60}}}
	pods := []core.Pod{pod("a", i32(100000), nil), pod("b", i32(10000), nil), pod("c", i32(1000), nil)}
	plan, err := c.Plan(pods)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Phases) != 3 {
		t.Fatalf("got %d phases", len(plan.Phases))
	}
	p0, p1, p2 := plan.Phases[0], plan.Phases[1], plan.Phases[2]
	if !p0.Skipped() || p0.Start != 0 || p0.Deadline != 0 {
		t.Errorf("phase 0: skipped %v start %v deadline %v, want skipped at 0", p0.Skipped(), p0.Start, p0.Deadline)
	}
	if diff := cmp.Diff([]string{"b", "c"}, names(p1.Pods)); diff != "" || p1.Start != 0 || p1.Deadline != 120*time.Second {
		t.Errorf("phase 1000: pods %v start %v deadline %v, want [b c] 0s..120s", names(p1.Pods), p1.Start, p1.Deadline)
	}
	if diff := cmp.Diff([]string{"a"}, names(p2.Pods)); diff != "" || p2.Start != 120*time.Second || p2.Deadline != 420*time.Second {
		t.Errorf("phase 100000: pods %v start %v deadline %v, want [a] 120s..420s", names(p2.Pods), p2.Start, p2.Deadline)
	}
	if plan.Total != 420*time.Second || plan.InhibitDelay != 480*time.Second {
		t.Errorf("Total %v InhibitDelay %v, want 420s and 480s", plan.Total, plan.InhibitDelay)
	}
}

// kubernetes#113940: static pods have a nil spec.priority, so upstream puts
// a system-node-critical static pod in the first phase. ResolvePriorityClass
// moves it to the critical phase.
func TestPlanStaticPodPriorityClass(t *testing.T) {
	static := pod("kube-apiserver-node1", nil, nil)
	static.PriorityClassName = SystemNodeCritical
	custom := pod("agent", nil, nil)
	custom.PriorityClassName = "node-agent"
	api := pod("api", i32(5), nil)
	api.PriorityClassName = SystemNodeCritical // spec.priority set: wins
	pods := []core.Pod{static, custom, api}
	base := Config{ShutdownGracePeriod: 30 * time.Second, ShutdownGracePeriodCriticalPods: 10 * time.Second}

	plan, err := base.Plan(pods)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"kube-apiserver-node1", "agent", "api"}, names(plan.Phases[0].Pods)); diff != "" {
		t.Errorf("upstream: phase 0 (-want +got):\n%s", diff)
	}

	fixed := base
	fixed.ResolvePriorityClass = true
	fixed.PriorityClasses = map[string]int32{"node-agent": 2000000000}
	plan, err = fixed.Plan(pods)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"api"}, names(plan.Phases[0].Pods)); diff != "" {
		t.Errorf("resolved: phase 0 (-want +got):\n%s", diff)
	}
	crit := plan.Phases[1].Pods
	if diff := cmp.Diff([]string{"kube-apiserver-node1", "agent"}, names(crit)); diff != "" {
		t.Errorf("resolved: critical phase (-want +got):\n%s", diff)
	}
	if crit[0].Priority != SystemNodeCriticalPriority || !crit[0].PriorityFromClass || crit[1].Priority != 2000000000 {
		t.Errorf("resolved priorities %+v", crit)
	}
}

func TestPlanOverruns(t *testing.T) {
	c := Config{ShutdownGracePeriodByPodPriority: []PhaseConfig{{0, 10}, {100, 60}}}
	pods := []core.Pod{
		pod("short", i32(0), i64(5)),    // kill may block 10s: not over a 10s phase
		pod("full", i32(0), nil),        // 10s grace: 15s > 10s
		pod("roomy", i32(100), i64(30)), // 45s <= 60s
		pod("tight", i32(100), nil),     // 60s grace: 90s > 60s
	}
	plan, err := c.Plan(pods)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, ph := range plan.Phases {
		for _, pp := range ph.Pods {
			got[pp.Pod.Name] = pp.Overruns
		}
	}
	want := map[string]bool{"short": false, "full": true, "roomy": false, "tight": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Overruns (-want +got):\n%s", diff)
	}
}

func TestPlanDisabledAndInvalid(t *testing.T) {
	plan, err := Config{}.Plan([]core.Pod{pod("a", nil, nil)})
	if err != nil || plan.Enabled() || plan.Total != 0 || plan.InhibitDelay != 0 {
		t.Errorf("disabled: plan %+v err %v, want empty", plan, err)
	}
	if _, err := (Config{ShutdownGracePeriod: -time.Second}).Plan(nil); err == nil {
		t.Errorf("invalid config planned without error")
	}
}

func TestTerminatedStatus(t *testing.T) {
	cond := &PodCondition{Type: "DisruptionTarget", Status: "True", Reason: "TerminationByKubelet",
		Message: "Pod was terminated in response to imminent node shutdown."}
	tests := []struct {
		name  string
		cfg   Config
		phase core.PodPhase
		want  PodStatus
	}{
		{"running pod fails", Config{}, core.PodRunning,
			PodStatus{"Failed", "Terminated", "Pod was terminated in response to imminent node shutdown.", cond}},
		{"succeeded pod stays succeeded", Config{}, core.PodSucceeded,
			PodStatus{"Succeeded", "Terminated", "Pod was terminated in response to imminent node shutdown.", cond}},
		{"pending pod fails", Config{}, core.PodPending,
			PodStatus{"Failed", "Terminated", "Pod was terminated in response to imminent node shutdown.", cond}},
		{"without DisruptionTarget", Config{OmitDisruptionCondition: true}, core.PodRunning,
			PodStatus{"Failed", "Terminated", "Pod was terminated in response to imminent node shutdown.", nil}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.cfg.TerminatedStatus(core.Pod{Phase: tt.phase})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
