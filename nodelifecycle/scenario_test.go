package nodelifecycle

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/eviction"
	"github.com/nodelife/nodelife/taints"
)

// Scripted scenarios with an explicit clock; every expected line is worked
// out by hand from upstream's rules in the test's comment.

var scenarioStart = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)

func readyAt(at time.Time) []conditions.Condition {
	return []conditions.Condition{{Type: conditions.Ready, Status: conditions.True, Reason: conditions.ReasonKubeletReady,
		LastHeartbeatTime: at, LastTransitionTime: at}}
}

func zoneLabels(z string) map[string]string {
	return map[string]string{eviction.LabelTopologyRegion: "r", eviction.LabelTopologyZone: z}
}

// line prints an action compactly: "+55s NodeStatus a-1", "+0s Taints a-1
// +node.kubernetes.io/unreachable:NoExecute", "+0s Schedule ns/p due
// +1m0s", "+55s Zone r/a Normal -> FullDisruption ...".
func line(a Action) string {
	var b strings.Builder
	fmt.Fprintf(&b, "+%v %s", a.At.Sub(scenarioStart), a.Kind)
	switch a.Kind {
	case KindZone:
		b.WriteString(" " + a.Zone + " " + strings.SplitN(a.Message, ",", 2)[0] + ", rate" + a.Message[strings.LastIndex(a.Message, " "):])
	case KindTaints:
		b.WriteString(" " + a.Node)
		for _, t := range a.Remove {
			b.WriteString(" -" + t.Key + ":" + string(t.Effect))
		}
		for _, t := range a.Add {
			b.WriteString(" +" + t.Key + ":" + string(t.Effect))
		}
	case KindSchedule:
		fmt.Fprintf(&b, " %s due +%v", a.Pod.Key(), a.Due.Sub(scenarioStart))
	case KindEvict, KindCancel:
		b.WriteString(" " + a.Pod.Key() + " " + a.Reason)
	default:
		b.WriteString(" " + a.Node)
	}
	return b.String()
}

// drive steps c from scenarioStart to end at every Next, renewing the lease
// of every node in renewing every 10s from +0s until its cut-off (a
// negative cut-off: never cut), and returns every action as a line.
func drive(t *testing.T, c *Controller, renewing map[string]time.Duration, end time.Duration) []string {
	t.Helper()
	return driveBlind(t, c, renewing, end, blindness{})
}

// blindness is a window [from, to) in which the caller's view of the
// cluster is cut: it neither upserts leases nor steps. At to, resume (when
// set) runs before the first step, and the leases renewed by then arrive
// only after that step, as a relist lags the first pass.
type blindness struct {
	from, to time.Duration
	resume   func(now time.Time)
}

// driveBlind is drive with the caller blind during b.
func driveBlind(t *testing.T, c *Controller, renewing map[string]time.Duration, end time.Duration, b blindness) []string {
	t.Helper()
	var out []string
	renew := func(now time.Time) {
		d := now.Sub(scenarioStart)
		for name, cut := range renewing {
			if cut < 0 || d <= cut {
				c.UpsertLease(Lease{Node: name, RenewTime: now})
			}
		}
	}
	now := scenarioStart
	for !now.After(scenarioStart.Add(end)) {
		d := now.Sub(scenarioStart)
		resuming := b.to > 0 && d == b.to
		if resuming && b.resume != nil {
			b.resume(now)
		}
		if d%(10*time.Second) == 0 && !resuming {
			renew(now)
		}
		r := c.StepAll(now)
		for _, a := range r.Actions {
			out = append(out, line(a))
		}
		if resuming {
			renew(now)
		}
		next := scenarioStart.Add((d/(10*time.Second) + 1) * 10 * time.Second)
		if r.Next.Before(next) {
			next = r.Next
		}
		if off := next.Sub(scenarioStart); off >= b.from && off < b.to {
			next = scenarioStart.Add(b.to)
		}
		now = next
	}
	return out
}

func newScenario(t *testing.T, cfg Config) *Controller {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every zone loses its kubelets (renewals stop after +0s): the pass at +55s
// (the first strictly after 0 + 50s) turns both nodes Unknown and finds no
// Ready node in any zone, so the cluster enters full disruption: every
// zone's rate is 0 and the NoExecute taints come off (there are none yet).
// The nodes get the unreachable NoSchedule taint; they are queued for the
// NoExecute one again at every pass, but a stopped queue never taints, so
// no pod is scheduled for eviction or evicted.
func TestAllZonesDownNoNoExecute(t *testing.T) {
	c := newScenario(t, DefaultConfig())
	for _, z := range []string{"a", "b"} {
		name := z + "-1"
		c.UpsertNode(core.Node{Name: name, Labels: zoneLabels(z), Conditions: readyAt(scenarioStart)})
		c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p-" + z, UID: "u-" + z, NodeName: name, Ready: true,
			Tolerations: taints.WithDefaultTolerationSeconds(nil, 300, 300)}))
	}
	got := drive(t, c, map[string]time.Duration{"a-1": 0, "b-1": 0}, 10*time.Minute)
	want := []string{
		"+0s Zone r/a Initial -> Normal, rate 0.1/s",
		"+0s Zone r/b Initial -> Normal, rate 0.1/s",
		"+55s NodeStatus a-1",
		"+55s NodeStatus b-1",
		"+55s PodsNotReady a-1",
		"+55s PodsNotReady b-1",
		"+55s Zone r/a Normal -> FullDisruption, rate 0/s",
		"+55s Zone r/b Normal -> FullDisruption, rate 0/s",
		"+55s Taints a-1 +node.kubernetes.io/unreachable:NoSchedule",
		"+55s Taints b-1 +node.kubernetes.io/unreachable:NoSchedule",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("actions (-want +got):\n%s", diff)
	}
	for _, z := range []string{"r/a", "r/b"} {
		key := eviction.ZoneKey(zoneLabels(z[2:]))
		if s, _ := c.ZoneState(key); s != eviction.StateFullDisruption {
			t.Errorf("zone %s is %s at the end", z, s)
		}
	}
}

// A controller that starts on a cluster another one has been running: a-1
// is Unknown (written by the previous controller) and carries both
// unreachable taints, the NoExecute one added an hour ago; a-2 is healthy
// in the same zone, so the zone is Normal (one not-ready node of two). The
// first pass sees a-1 for the first time and takes its NoExecute taint off
// (markNodeAsReachable); its record starts fresh (probe = now), its posted
// Ready is Unknown, so it is queued at once and the tainting pass at +0s
// taints it again (the queue's bucket starts full). Its pod tolerates
// unreachable for 60s counted from this controller's observation, not from
// an hour ago: scheduled for +60s and evicted then.
func TestRestartCountsFromFirstSight(t *testing.T) {
	c := newScenario(t, DefaultConfig())
	old := scenarioStart.Add(-time.Hour)
	c.UpsertNode(core.Node{Name: "a-1", Labels: zoneLabels("a"),
		Conditions: []conditions.Condition{{Type: conditions.Ready, Status: conditions.Unknown, Reason: conditions.ReasonNodeStatusUnknown,
			LastHeartbeatTime: old, LastTransitionTime: old}},
		Taints: []taints.Taint{{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoSchedule, TimeAdded: old},
			{Key: taints.TaintNodeUnreachable, Effect: taints.TaintEffectNoExecute, TimeAdded: old}}})
	c.UpsertNode(core.Node{Name: "a-2", Labels: zoneLabels("a"), Conditions: readyAt(scenarioStart)})
	sixty := int64(60)
	c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p", UID: "u", NodeName: "a-1",
		Tolerations: []taints.Toleration{{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists,
			Effect: taints.TaintEffectNoExecute, TolerationSeconds: &sixty}}}))
	got := drive(t, c, map[string]time.Duration{"a-2": -1}, 2*time.Minute)
	want := []string{
		"+0s Taints a-1 -node.kubernetes.io/unreachable:NoExecute",
		"+0s Zone r/a Initial -> Normal, rate 0.1/s",
		"+0s Taints a-1 +node.kubernetes.io/unreachable:NoExecute",
		"+0s Schedule ns/p due +1m0s",
		"+1m0s Evict ns/p " + eviction.TaintManagerEvictionReason,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("actions (-want +got):\n%s", diff)
	}
}

// A pod bound at +100s to a node that has carried dedicated=db:NoExecute
// since +0s, tolerating it for 30s. Upstream counts tolerationSeconds from
// when the taint eviction controller plans the pod: due at +130s. With
// eviction.AnchorTaintAdded (kubernetes#108268) the seconds count from the
// taint's TimeAdded, +0s + 30s, already past: the pod goes at once.
func TestTolerationCountsFromObservation(t *testing.T) {
	for _, tc := range []struct {
		anchor eviction.Anchor
		want   string
	}{
		{eviction.AnchorObserved, "+1m40s Schedule ns/p due +2m10s"},
		{eviction.AnchorTaintAdded, "+1m40s Evict ns/p " + eviction.ReasonTolerationExpired},
	} {
		t.Run(tc.anchor.String(), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.NoExecute.Anchor = tc.anchor
			c := newScenario(t, cfg)
			c.UpsertNode(core.Node{Name: "n1", Labels: zoneLabels("a"), Conditions: readyAt(scenarioStart),
				Taints: []taints.Taint{{Key: "dedicated", Value: "db", Effect: taints.TaintEffectNoExecute, TimeAdded: scenarioStart}}})
			c.UpsertLease(Lease{Node: "n1", RenewTime: scenarioStart})
			c.StepAll(scenarioStart)
			thirty := int64(30)
			c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p", UID: "u", NodeName: "n1",
				Tolerations: []taints.Toleration{{Key: "dedicated", Operator: taints.TolerationOpEqual, Value: "db",
					Effect: taints.TaintEffectNoExecute, TolerationSeconds: &thirty}}}))
			var got []string
			for _, a := range c.StepAll(scenarioStart.Add(100 * time.Second)).Actions {
				if a.Kind != KindNodeStatus && a.Kind != KindPodsNotReady && a.Kind != KindZone && a.Kind != KindTaints {
					got = append(got, line(a))
				}
			}
			if !slices.Equal(got, []string{tc.want}) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A now earlier than one a Step has seen is taken as that one (DESIGN rule
// 1): b-1 renews only at +0s and turns Unknown at +55s; a Step at +10s
// after that acts at +55s, runs no second pass and writes nothing again.
func TestStepClampsEarlierNow(t *testing.T) {
	c := newScenario(t, DefaultConfig())
	c.UpsertNode(core.Node{Name: "b-1", Labels: zoneLabels("b"), Conditions: readyAt(scenarioStart)})
	c.UpsertLease(Lease{Node: "b-1", RenewTime: scenarioStart})
	c.StepAll(scenarioStart)
	r := c.StepAll(scenarioStart.Add(55 * time.Second))
	if len(r.Actions) == 0 || r.Actions[0].Kind != KindNodeStatus {
		t.Fatalf("at +55s: %v", r.Actions)
	}
	passes := c.Passes()
	r = c.StepAll(scenarioStart.Add(10 * time.Second))
	for _, a := range r.Actions {
		if !a.At.Equal(scenarioStart.Add(55*time.Second)) || a.Kind == KindNodeStatus {
			t.Errorf("after the clamp: %s at +%v", a, a.At.Sub(scenarioStart))
		}
	}
	if c.Passes() != passes || r.Next.Before(scenarioStart.Add(55*time.Second)) {
		t.Fatalf("passes %d -> %d, Next +%v", passes, c.Passes(), r.Next.Sub(scenarioStart))
	}
}

// Zone a goes dark first (renewals stop after +0s) and is tainted while zone
// b is healthy; zone b follows (renewals stop after +30s). At +55s a-1 turns
// Unknown, gets both unreachable taints (zone a fully disrupted, b not: the
// rate stays 0.1/s) and its pod is scheduled for +55s + 300s. At +85s (the
// first pass strictly after 30 + 50s) b-1 turns Unknown and every zone is
// fully disrupted: every rate goes to 0, a-1's NoExecute taint comes off and
// its pod's eviction is cancelled; b-1 never gets one.
func TestEnteringFullDisruptionUntaints(t *testing.T) {
	c := newScenario(t, DefaultConfig())
	for _, z := range []string{"a", "b"} {
		name := z + "-1"
		c.UpsertNode(core.Node{Name: name, Labels: zoneLabels(z), Conditions: readyAt(scenarioStart)})
		c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p-" + z, UID: "u-" + z, NodeName: name, Ready: true,
			Tolerations: taints.WithDefaultTolerationSeconds(nil, 300, 300)}))
	}
	got := drive(t, c, map[string]time.Duration{"a-1": 0, "b-1": 30 * time.Second}, 10*time.Minute)
	want := []string{
		"+0s Zone r/a Initial -> Normal, rate 0.1/s",
		"+0s Zone r/b Initial -> Normal, rate 0.1/s",
		"+55s NodeStatus a-1",
		"+55s PodsNotReady a-1",
		"+55s Zone r/a Normal -> FullDisruption, rate 0.1/s",
		"+55s Taints a-1 +node.kubernetes.io/unreachable:NoSchedule",
		"+55s Taints a-1 +node.kubernetes.io/unreachable:NoExecute",
		"+55s Schedule ns/p-a due +5m55s",
		"+1m25s NodeStatus b-1",
		"+1m25s PodsNotReady b-1",
		"+1m25s Zone r/a FullDisruption -> FullDisruption, rate 0/s",
		"+1m25s Zone r/b Normal -> FullDisruption, rate 0/s",
		"+1m25s Taints a-1 -node.kubernetes.io/unreachable:NoExecute",
		"+1m25s Taints b-1 +node.kubernetes.io/unreachable:NoSchedule",
		"+1m25s Cancel ns/p-a " + eviction.ReasonNoNoExecuteTaints,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("actions (-want +got):\n%s", diff)
	}
}

// The controller's own blindness (nodelife issue 34). Two zones, a node
// each, both posting Ready at +0s; a-1 renews its lease every 10s
// throughout, b-1's kubelet stops after +50s. The controller's view is cut
// from +140s to +200s: it sees no lease and does not step. Worked out by
// hand (grace 50s, a pass every 5s):
//
//   - b-1: last heard +50s, Unknown at +105s with the unreachable taints
//     (zone b fully disrupted, zone a healthy: tainting goes on at 0.1/s,
//     the first token at once); its pod tolerates unreachable for 300s:
//     scheduled at +105s, due +405s;
//   - with ViewRestored(+200s): a-1, last seen renewing at +130s, is timed
//     from +200s and sees its lease renewed at +200s, so it never turns
//     Unknown; b-1 stays Unknown and tainted, and its pod goes at +405s as
//     planned;
//   - without (upstream's behaviour): the first pass after the gap, +200s,
//     judges a-1 on its renewal at +130s (70s > 50s) and writes Unknown
//     before the view catches up; a-1 gets the unreachable NoSchedule
//     taint; zone a is now fully disrupted too, so every zone is: the
//     controller presumes itself cut off, removes b-1's NoExecute taint
//     and cancels its pod's eviction, and taints nothing NoExecute.
func TestViewRestored(t *testing.T) {
	run := func(restore bool) []string {
		c := newScenario(t, DefaultConfig())
		c.UpsertNode(core.Node{Name: "a-1", Labels: zoneLabels("a"), Conditions: readyAt(scenarioStart), CreationTimestamp: scenarioStart})
		c.UpsertNode(core.Node{Name: "b-1", Labels: zoneLabels("b"), Conditions: readyAt(scenarioStart), CreationTimestamp: scenarioStart})
		tol := int64(300)
		c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p", UID: "u", NodeName: "b-1", Tolerations: []taints.Toleration{
			{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &tol}}}))
		b := blindness{from: 140 * time.Second, to: 200 * time.Second}
		if restore {
			b.resume = c.ViewRestored
		}
		var out []string
		for _, l := range driveBlind(t, c, map[string]time.Duration{"a-1": -1, "b-1": 50 * time.Second}, 420*time.Second, b) {
			switch strings.Fields(l)[1] {
			case string(KindNodeStatus), string(KindTaints), string(KindEvict), string(KindCancel):
				out = append(out, l)
			}
		}
		return out
	}
	want := []string{
		"+1m45s NodeStatus b-1",
		"+1m45s Taints b-1 +node.kubernetes.io/unreachable:NoSchedule",
		"+1m45s Taints b-1 +node.kubernetes.io/unreachable:NoExecute",
		"+6m45s Evict ns/p TaintManagerEviction",
	}
	if diff := cmp.Diff(want, run(true)); diff != "" {
		t.Errorf("with ViewRestored (-want +got):\n%s", diff)
	}
	wantUpstream := append(want[:3:3],
		"+3m20s NodeStatus a-1",
		"+3m20s Taints b-1 -node.kubernetes.io/unreachable:NoExecute",
		"+3m20s Taints a-1 +node.kubernetes.io/unreachable:NoSchedule",
		"+3m20s Cancel ns/p NoNoExecuteTaints")
	if diff := cmp.Diff(wantUpstream, run(false)); diff != "" {
		t.Errorf("without ViewRestored (-want +got):\n%s", diff)
	}
}

// The first cause of nodelife issue 45 (upstream's processPod): a pod bound to a node
// whose Ready, as the last monitor pass saved it, is not True is marked
// NotReady as soon as the controller sees it, not only at the node's
// transition. One zone, nodes a-1 and a-2 posting Ready=True at +0s, then
// silent (no lease): the passes run every 5s from +0s, so the first one
// strictly after +0s+50s is +55s, which turns both Unknown and marks the
// pods then bound (web, created at +30s while a-1 was Ready: not marked at
// +30s, marked at +55s). A pod created at +60.5s on a-1 (Unknown since
// +55s) is marked at +60.5s with ReasonBoundToNotReadyNode; one created
// without a Ready condition (Ready false in the view) is left alone, as
// MarkPodsNotReady finds nothing to change.
func TestPodBoundToNotReadyNodeIsMarked(t *testing.T) {
	c, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a-1", "a-2"} {
		c.UpsertNode(core.Node{Name: n, UID: n, CreationTimestamp: scenarioStart, Labels: zoneLabels("a"), Conditions: readyAt(scenarioStart)})
	}
	var got []string
	step := func(d time.Duration) {
		for _, a := range c.StepAll(scenarioStart.Add(d)).Actions {
			if a.Kind == KindPodsNotReady {
				var pods []string
				for _, p := range a.Pods {
					pods = append(pods, p.Key())
				}
				got = append(got, fmt.Sprintf("+%v %s %s %v", d, a.Node, a.Reason, pods))
			}
		}
	}
	for d := time.Duration(0); d <= 60*time.Second; d += 5 * time.Second {
		if d == 30*time.Second {
			c.UpsertPod(corePod(PodState{Namespace: "shop", Name: "web", UID: "u1", NodeName: "a-1", Ready: true}))
		}
		step(d)
	}
	c.UpsertPod(corePod(PodState{Namespace: "shop", Name: "late", UID: "u2", NodeName: "a-1", Ready: true}))
	c.UpsertPod(corePod(PodState{Namespace: "shop", Name: "starting", UID: "u3", NodeName: "a-2"}))
	step(60*time.Second + 500*time.Millisecond)
	want := []string{
		"+55s a-1 NodeNotReady [shop/web]",
		"+55s a-2 NodeNotReady []",
		"+1m0.5s a-1 BoundToNotReadyNode [shop/late]",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if p, _ := c.Pod("shop", "late"); p.Ready {
		t.Fatal("shop/late still Ready in the view")
	}
}

// The second cause of nodelife issue 45: entering full disruption, upstream strips only
// the NoExecute taints its pass listed when it began. One zone, a-1 posting
// Ready=False and a-2 Ready=True at +0s, both silent after. +0s: a-1 is
// queued and, the zone's bucket being full, tainted not-ready:NoExecute by
// the tainting pass of the same Step (and not-ready:NoSchedule by the
// condition taints); 1 of 2 not ready keeps the zone Normal. +55s (the
// first pass strictly after +0s+50s): both turn Unknown; a-1 carries
// not-ready:NoExecute, so it is swapped to unreachable:NoExecute at once;
// a-2 is queued; no node is Ready, so the only zone and so every zone is
// fully disrupted: the pass untaints what it listed, a-1's
// not-ready:NoExecute (gone already), and stops the zone. a-1 keeps
// unreachable:NoExecute (with unreachable:NoSchedule); with
// FreshTaintsInPass it keeps unreachable:NoSchedule only.
func TestFullDisruptionKeepsTaintSwappedInThePass(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.FreshTaintsInPass = fresh
		c, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		notReady := []conditions.Condition{{Type: conditions.Ready, Status: conditions.False, Reason: "KubeletNotReady",
			LastHeartbeatTime: scenarioStart, LastTransitionTime: scenarioStart}}
		c.UpsertNode(core.Node{Name: "a-1", UID: "a-1", CreationTimestamp: scenarioStart, Labels: zoneLabels("a"), Conditions: notReady})
		c.UpsertNode(core.Node{Name: "a-2", UID: "a-2", CreationTimestamp: scenarioStart, Labels: zoneLabels("a"), Conditions: readyAt(scenarioStart)})
		var lines []string
		for d := time.Duration(0); d <= 55*time.Second; d += 5 * time.Second {
			for _, a := range c.StepAll(scenarioStart.Add(d)).Actions {
				if a.Kind == KindTaints || a.Kind == KindZone {
					lines = append(lines, line(a))
				}
			}
		}
		want := []string{
			"+0s Zone r/a Initial -> Normal, rate 0.1/s",
			"+0s Taints a-1 +node.kubernetes.io/not-ready:NoSchedule",
			"+0s Taints a-1 +node.kubernetes.io/not-ready:NoExecute",
			"+55s Taints a-1 -node.kubernetes.io/not-ready:NoExecute +node.kubernetes.io/unreachable:NoExecute",
			"+55s Zone r/a Normal -> FullDisruption, rate 0/s",
		}
		if fresh {
			want = append(want, "+55s Taints a-1 -node.kubernetes.io/unreachable:NoExecute")
		}
		want = append(want,
			"+55s Taints a-1 -node.kubernetes.io/not-ready:NoSchedule +node.kubernetes.io/unreachable:NoSchedule",
			"+55s Taints a-2 +node.kubernetes.io/unreachable:NoSchedule")
		if d := cmp.Diff(want, lines); d != "" {
			t.Errorf("FreshTaintsInPass %v (-want +got):\n%s", fresh, d)
		}
		n, _ := c.Node("a-1")
		var keys []string
		for _, tt := range n.Taints {
			keys = append(keys, tt.Key+":"+string(tt.Effect))
		}
		slices.Sort(keys)
		wantKeys := []string{"node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"}
		if fresh {
			wantKeys = wantKeys[1:]
		}
		if !slices.Equal(keys, wantKeys) {
			t.Errorf("FreshTaintsInPass %v: a-1 taints %v, want %v", fresh, keys, wantKeys)
		}
	}
}
