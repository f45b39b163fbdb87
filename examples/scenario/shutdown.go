package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/shutdown"
)

// Shutdown runs the shutdown manager through a graceful node shutdown with
// the seeds' pod-priority classes (priority 100000 gets 10s, 10000 gets
// 180s, 1000 gets 120s, the rest 60s): the inhibit delay to ask logind
// for, the node going NotReady, each phase's kills with their grace
// periods, phases ending early when their pods are gone or running out,
// and the inhibitor lock released at the end.
func Shutdown(Options) (Report, error) {
	r := Report{Name: "shutdown", Title: "a node shuts down with the seed's priority classes (a 10s, b 180s, c 120s, rest 60s)"}
	at := func(s int) time.Time { return Start.Add(time.Duration(s) * time.Second) }
	cfg := shutdown.Config{ShutdownGracePeriodByPodPriority: []shutdown.PhaseConfig{
		{Priority: 100000, ShutdownGracePeriodSeconds: 10},
		{Priority: 10000, ShutdownGracePeriodSeconds: 180},
		{Priority: 1000, ShutdownGracePeriodSeconds: 120},
		{Priority: 0, ShutdownGracePeriodSeconds: 60},
	}}
	m, err := shutdown.NewManager(cfg)
	if err != nil {
		return r, err
	}
	d := shutdown.DecideInhibitDelay(shutdown.DefaultInhibitDelayMax, m.InhibitDelay())
	r.fact("inhibit", "logind", "", "inhibit delay %v: logind allows %v, write %s (%s)", d.Required, d.Current, d.Path, strings.TrimSpace(strings.Split(d.DropIn, "\n")[2]))
	prio := func(v int32) *int32 { return &v }
	grace := func(v int64) *int64 { return &v }
	pods := []core.Pod{
		{Namespace: "shop", Name: "web"},
		{Namespace: "shop", Name: "cron", TerminationGracePeriodSeconds: grace(10)},
		{Namespace: "shop", Name: "batch", Priority: prio(1000)},
		{Namespace: "shop", Name: "search", Priority: prio(10000), TerminationGracePeriodSeconds: grace(30)},
		{Namespace: "shop", Name: "payments", Priority: prio(100000), TerminationGracePeriodSeconds: grace(30)},
	}
	verbs := map[shutdown.PhaseEventKind]string{shutdown.PhaseStarted: "started", shutdown.PhaseSkipped: "skipped",
		shutdown.PhaseCompleted: "completed: all its pods are gone", shutdown.PhaseTimedOut: "timed out"}
	kills, off := 0, time.Duration(0)
	show := func(st shutdown.Step) {
		var names []string
		for _, k := range st.Kills {
			names = append(names, fmt.Sprintf("%s (%ds)", k.Pod.Key(), k.GracePeriodSeconds))
			kills++
		}
		var end time.Time
		for _, p := range st.Phases {
			end = p.At
			line := fmt.Sprintf("phase %d %s", p.Priority, verbs[p.Kind])
			if p.Kind == shutdown.PhaseStarted {
				line += ": kill " + strings.Join(names, ", ")
			}
			r.at(p.At.Sub(Start), "phase", fmt.Sprint(p.Priority), "", "%s", line)
		}
		if st.ReleaseInhibitor {
			off = end.Sub(Start)
			r.at(end.Sub(Start), "inhibit", "logind", "", "inhibitor lock released; the node powers off (worst case was +%v)", m.Plan().Total)
		}
	}
	st := m.Start(at(0), pods)
	r.at(0, "node", "", m.Admit(core.Pod{}).Reason, "Ready=False %q; new pods rejected: %s", m.ShutdownStatus(), m.Admit(core.Pod{}).Reason)
	show(st)
	// When each pod is gone; batch ignores SIGTERM and runs out its phase.
	gone := []struct {
		key string
		s   int
	}{{"shop/cron", 8}, {"shop/web", 45}, {"shop/search", 185}, {"shop/payments", 190}}
	for _, g := range gone {
		for !st.Next.IsZero() && !st.Next.After(at(g.s)) {
			st = m.Step(st.Next)
			show(st)
		}
		st = m.PodTerminated(at(g.s), g.key)
		show(st)
	}
	r.figure("pods killed", int64(kills))
	r.figure("powered off at second", int64(off/time.Second))
	r.figure("worst case seconds", int64(m.Plan().Total/time.Second))
	return r, nil
}
