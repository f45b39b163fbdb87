package shutdown_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/internal/coretest"
	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/taints"
)

func prio(v int32) *int32 { return &v }

// The seed's priority table: custom-class-a (100000) gets 10 seconds,
// custom-class-b (10000) 180, custom-class-c (1000) 120 and everything else
// 60. Phases run from the lowest priority up.
func ExampleConfig_Plan() {
	cfg := shutdown.Config{ShutdownGracePeriodByPodPriority: []shutdown.PhaseConfig{
		{Priority: 100000, ShutdownGracePeriodSeconds: 10},
		{Priority: 10000, ShutdownGracePeriodSeconds: 180},
		{Priority: 1000, ShutdownGracePeriodSeconds: 120},
		{Priority: 0, ShutdownGracePeriodSeconds: 60},
	}}
	pods := []core.Pod{
		{Namespace: "prod", Name: "class-a", Priority: prio(100000)},
		{Namespace: "prod", Name: "class-b", Priority: prio(10000)},
		{Namespace: "prod", Name: "class-c", Priority: prio(1000)},
		{Namespace: "prod", Name: "unset"},
	}
	plan, err := cfg.Plan(pods)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("priority  period  window      pods")
	for _, ph := range plan.Phases {
		var who []string
		for _, p := range ph.Pods {
			who = append(who, fmt.Sprintf("%s (%ds)", p.Pod.Name, p.GracePeriodSeconds))
		}
		fmt.Printf("%-8d  %-6v  %4v-%-5v  %s\n", ph.Priority, ph.Period(), ph.Start, ph.Deadline, strings.Join(who, ", "))
	}
	fmt.Println("total", plan.Total, "inhibit delay", plan.InhibitDelay)
	// Output:
	// priority  period  window      pods
	// 0         1m0s      0s-1m0s   unset (60s)
	// 1000      2m0s    1m0s-3m0s   class-c (120s)
	// 10000     3m0s    3m0s-6m0s   class-b (180s)
	// 100000    10s     6m0s-6m10s  class-a (10s)
	// total 6m10s inhibit delay 6m10s
}

// The seed's second table leaves custom-class-b out: its pods share
// custom-class-c's bucket.
func ExamplePhaseIndex() {
	phases := shutdown.Config{ShutdownGracePeriodByPodPriority: []shutdown.PhaseConfig{
		{Priority: 100000, ShutdownGracePeriodSeconds: 300},
		{Priority: 1000, ShutdownGracePeriodSeconds: 120},
		{Priority: 0, ShutdownGracePeriodSeconds: 60},
	}}.Phases()
	for _, class := range []struct {
		name  string
		value int32
	}{{"custom-class-a", 100000}, {"custom-class-b", 10000}, {"custom-class-c", 1000}, {"regular/unset", 0}} {
		ph := phases[shutdown.PhaseIndex(phases, class.value)]
		fmt.Printf("%s -> phase %d, %ds\n", class.name, ph.Priority, ph.ShutdownGracePeriodSeconds)
	}
	// Output:
	// custom-class-a -> phase 100000, 300s
	// custom-class-b -> phase 1000, 120s
	// custom-class-c -> phase 1000, 120s
	// regular/unset -> phase 0, 60s
}

// The two-phase form: 30s with 10s for critical pods gives regular pods the
// first 20 seconds.
func ExampleMigrateConfig() {
	fmt.Println(shutdown.MigrateConfig(30*time.Second, 10*time.Second))
	fmt.Println(shutdown.MigrateConfig(0, 0))
	// Output:
	// [{0 20} {2000000000 10}]
	// []
}

func ExampleConfig_Phases() {
	cfg := shutdown.Config{ShutdownGracePeriodByPodPriority: []shutdown.PhaseConfig{{Priority: 1000, ShutdownGracePeriodSeconds: 5}, {Priority: 0, ShutdownGracePeriodSeconds: 20}}}
	fmt.Println(cfg.Phases())
	// Output: [{0 20} {1000 5}]
}

func ExamplePhaseConfig_Period() {
	fmt.Println(shutdown.PhaseConfig{Priority: 0, ShutdownGracePeriodSeconds: 90}.Period())
	// Output: 1m30s
}

func ExampleConfig_Validate() {
	err := shutdown.Config{ShutdownGracePeriod: 10 * time.Second, ShutdownGracePeriodCriticalPods: 30 * time.Second}.Validate()
	fmt.Println(err)
	// Output: shutdown: invalid config: ShutdownGracePeriodCriticalPods 30s must be <= ShutdownGracePeriod 10s
}

func ExampleConfig_Warnings() {
	cfg := shutdown.Config{ShutdownGracePeriodByPodPriority: []shutdown.PhaseConfig{
		{Priority: 0, ShutdownGracePeriodSeconds: 30}, {Priority: 0, ShutdownGracePeriodSeconds: -5},
	}}
	fmt.Println(cfg.Validate()) // upstream accepts it
	for _, w := range cfg.Warnings() {
		fmt.Println(w)
	}
	// Output:
	// <nil>
	// shutdown: suspicious config: ShutdownGracePeriodByPodPriority[1].Priority 0 duplicates entry [0]
	// shutdown: suspicious config: ShutdownGracePeriodByPodPriority[1].ShutdownGracePeriodSeconds -5 is negative
}

// Static pods have no spec.priority (kubernetes#113940); the option reads
// their priority class instead.
func ExampleConfig_PodPriority() {
	static := core.Pod{Namespace: "kube-system", Name: "etcd-node1", PriorityClassName: "system-node-critical"}
	fmt.Println(shutdown.Config{}.PodPriority(static))
	fmt.Println(shutdown.Config{ResolvePriorityClass: true}.PodPriority(static))
	// Output:
	// 0 false
	// 2000001000 true
}

func ExamplePodGracePeriod() {
	own := int64(30)
	fmt.Println(shutdown.PodGracePeriod(core.Pod{TerminationGracePeriodSeconds: &own}, 60))
	fmt.Println(shutdown.PodGracePeriod(core.Pod{TerminationGracePeriodSeconds: &own}, 10))
	fmt.Println(shutdown.PodGracePeriod(core.Pod{}, 10))
	// Output:
	// 30
	// 10
	// 10
}

func ExampleKillTimeout() {
	fmt.Println(shutdown.KillTimeout(5), shutdown.KillTimeout(60))
	// Output: 10s 1m30s
}

func ExampleRequiredInhibitDelay() {
	fmt.Println(shutdown.RequiredInhibitDelay(shutdown.MigrateConfig(30*time.Second, 10*time.Second)))
	// Output: 30s
}

func ExampleConfig_TerminatedStatus() {
	s := shutdown.Config{}.TerminatedStatus(core.Pod{Phase: core.PodRunning})
	fmt.Println(s.Phase, s.Reason, s.Message)
	fmt.Println(s.Condition.Type, s.Condition.Status, s.Condition.Reason)
	// Output:
	// Failed Terminated Pod was terminated in response to imminent node shutdown.
	// DisruptionTarget True TerminationByKubelet
}

// A kubelet's shutdown, driven by hand: the web pod stops early, the
// critical pod runs out its 10 seconds.
func ExampleManager() {
	m, err := shutdown.NewManager(shutdown.Config{ShutdownGracePeriod: 30 * time.Second, ShutdownGracePeriodCriticalPods: 10 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	show := func(s shutdown.Step) {
		for _, e := range s.Events {
			fmt.Println("  event:", e.Message)
		}
		for _, p := range s.Phases {
			fmt.Printf("  phase %d %s at +%v\n", p.Priority, p.Kind, p.At.Sub(t0))
		}
		for _, k := range s.Kills {
			fmt.Printf("  kill %s grace %ds -> %s/%s\n", k.Pod.Key(), k.GracePeriodSeconds, k.Status.Phase, k.Status.Reason)
		}
		if s.ReleaseInhibitor {
			fmt.Println("  release inhibitor lock")
		}
		if !s.Next.IsZero() {
			fmt.Printf("  call Tick at +%v\n", s.Next.Sub(t0))
		}
	}
	fmt.Println("shutdown:")
	show(m.Start(t0, []core.Pod{
		{Namespace: "default", Name: "web"},
		{Namespace: "kube-system", Name: "coredns", Priority: prio(2000000000)},
	}))
	fmt.Println("admit:", m.Admit(core.Pod{}).Message, "| ready:", m.ShutdownStatus())
	fmt.Println("web terminated at +4s:")
	show(m.PodTerminated(t0.Add(4*time.Second), "default/web"))
	fmt.Println("tick at +14s:")
	show(m.Step(t0.Add(14 * time.Second)))
	fmt.Println("state:", m.State())
	// Output:
	// shutdown:
	//   event: Shutdown manager detected shutdown event
	//   phase 0 Started at +0s
	//   kill default/web grace 20s -> Failed/Terminated
	//   call Tick at +20s
	// admit: Pod was rejected as the node is shutting down. | ready: node is shutting down
	// web terminated at +4s:
	//   phase 0 Completed at +4s
	//   phase 2000000000 Started at +4s
	//   kill kube-system/coredns grace 10s -> Failed/Terminated
	//   call Tick at +14s
	// tick at +14s:
	//   phase 2000000000 TimedOut at +14s
	//   release inhibitor lock
	// state: ShutDown
}

func ExampleNewManager() {
	m, err := shutdown.NewManager(shutdown.Config{})
	fmt.Println(m.Enabled(), m.InhibitDelay(), err)
	_, err = shutdown.NewManager(shutdown.Config{ShutdownGracePeriod: 500 * time.Millisecond})
	fmt.Println(err)
	// Output:
	// false 0s <nil>
	// shutdown: invalid config: ShutdownGracePeriod 500ms must be either zero or otherwise >= 1 sec
}

// A cancellation during the phases takes effect when they are over, as
// upstream's event loop sees it only then.
func ExampleManager_Cancel() {
	m, _ := shutdown.NewManager(shutdown.Config{ShutdownGracePeriod: 20 * time.Second})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m.Start(t0, []core.Pod{{Namespace: "default", Name: "web"}})
	s := m.Cancel(t0.Add(5 * time.Second))
	fmt.Println(s.State, "pending:", s.CancelPending)
	s = m.Step(t0.Add(20 * time.Second))
	fmt.Println(s.State, s.Events[0].Message, "acquire:", s.AcquireInhibitor, "admit:", m.Admit(core.Pod{}).Admit)
	// Output:
	// ShuttingDown pending: true
	// Idle Shutdown manager detected shutdown cancellation acquire: true admit: true
}

// Feeding the shutdown status to the kubelet's Ready condition.
func ExampleManager_ShutdownStatus() {
	m, _ := shutdown.NewManager(shutdown.Config{ShutdownGracePeriod: 20 * time.Second})
	m.Start(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), nil)
	ready := conditions.ReadyCondition(conditions.ReadyInput{
		ShutdownErrors: []error{m.ShutdownStatus()},
		Capacity:       []string{"cpu", "memory", "pods"},
	})
	fmt.Println(ready.Status, ready.Reason, ready.Message)
	// Output: False KubeletNotReady node is shutting down
}

func ExampleDecideInhibitDelay() {
	d := shutdown.DecideInhibitDelay(shutdown.DefaultInhibitDelayMax, 30*time.Second)
	fmt.Println(d.Override, d.Path)
	fmt.Print(d.DropIn)
	// Output:
	// true /etc/systemd/logind.conf.d/99-kubelet.conf
	// # Kubelet logind override
	// [Login]
	// InhibitDelayMaxSec=30
}

func ExampleLogindDropIn() {
	fmt.Print(shutdown.LogindDropIn(370 * time.Second))
	// Output:
	// # Kubelet logind override
	// [Login]
	// InhibitDelayMaxSec=370
}

// After writing the drop-in and re-reading logind's value, the kubelet
// gives up with this error when another drop-in still wins
// (kubernetes#102818).
func ExampleCheckInhibitDelay() {
	fmt.Println(shutdown.CheckInhibitDelay(30*time.Second, 60*time.Second))
	// Output: node shutdown manager was timed out after 5 attempts waiting for logind InhibitDelayMaxSec to update to 1m0s (ShutdownGracePeriod), current value is 30s
}

func ExampleAddToPreshutdownOrder() {
	fmt.Println(shutdown.AddToPreshutdownOrder([]string{"a", "b", "c", "d"}, []string{"x", "b", "y", "c", "z"}))
	// Output: [x kubelet b y c z a d]
}

// A node that powered off without a graceful shutdown: once an
// administrator adds the out-of-service taint, terminating pods are force
// deleted and their volumes detached at once.
func ExampleOutOfServiceConfig_Plan() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	deleting := t0.Add(-time.Minute)
	node := core.Node{Name: "node1", Conditions: coretest.Ready(conditions.Unknown), Taints: []taints.Taint{
		{Key: "node.kubernetes.io/out-of-service", Value: "nodeshutdown", Effect: taints.TaintEffectNoExecute},
	}}
	pods := []core.Pod{
		{Namespace: "db", Name: "pg-1", Phase: core.PodRunning, DeletionTimestamp: &deleting, CreationTimestamp: t0.Add(-2 * time.Hour)},
		{Namespace: "db", Name: "pg-0", Phase: core.PodRunning, DeletionTimestamp: &deleting, CreationTimestamp: t0.Add(-3 * time.Hour)},
		{Namespace: "web", Name: "cache", Phase: core.PodRunning},
	}
	vols := []shutdown.AttachedVolume{
		{Name: "pvc-pg-0", MountedByNode: true, Pods: []string{"db/pg-0"}},
		{Name: "pvc-cache", MountedByNode: true, Pods: []string{"web/cache"}},
	}
	plan := shutdown.OutOfServiceConfig{}.Plan(t0, node, pods, vols)
	for _, f := range plan.ForceDelete {
		fmt.Println("force delete", f.Pod.Key(), "set Failed:", f.SetFailed)
	}
	for _, v := range plan.Volumes {
		fmt.Println(v.Volume, v.Action, v.Reason)
	}
	// Output:
	// force delete db/pg-0 set Failed: true
	// force delete db/pg-1 set Failed: true
	// pvc-pg-0 DetachNow OutOfServiceTaint
	// pvc-cache Keep VolumeInUse
}

func ExampleOutOfService() {
	n := core.Node{Taints: []taints.Taint{{Key: "node.kubernetes.io/out-of-service", Effect: taints.TaintEffectNoSchedule}}}
	fmt.Println(shutdown.OutOfService(&n))
	// Output: true
}
