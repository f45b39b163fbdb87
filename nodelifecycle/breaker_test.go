package nodelifecycle

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nodelife/nodelife/conditions"
	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/release"
	"github.com/nodelife/nodelife/taints"
)

// laggingLeases is the test's API server and lease cache: every kubelet
// renews its lease every 10s from +0s, each write taking the next resource
// version (a-1, a-2, b-1 at renewal k get 100+3k, 101+3k, 102+3k); the
// cache holds what the controller was last given (cacheRV).
type laggingLeases struct {
	names   []string
	now     time.Duration
	cacheRV string
	fail    error
}

func (l *laggingLeases) rv(k, i int) string { return strconv.Itoa(100 + 3*k + i) }

func (l *laggingLeases) LiveLease(node string) (string, bool, error) {
	if l.fail != nil {
		return "", false, l.fail
	}
	for i, n := range l.names {
		if n == node {
			return l.rv(int(l.now/(10*time.Second)), i), true, nil
		}
	}
	return "", false, nil
}

func (l *laggingLeases) CacheResourceVersion() string { return l.cacheRV }

// runRestartWithLaggingCache drives the scripted scenario of
// TestLeaseCircuitBreakerRestart and returns the restarted controller's
// actions as lines (KindHold with its reason).
func runRestartWithLaggingCache(t *testing.T, cfg Config, answer bool) []string {
	t.Helper()
	names := []string{"a-1", "a-2", "b-1"}
	live := &laggingLeases{names: names}
	tol := int64(300)
	nodeAt := func(name string, hb time.Time) core.Node {
		return core.Node{Name: name, Labels: zoneLabels(name[:1]), Conditions: readyAt(hb), CreationTimestamp: scenarioStart.Add(-time.Hour)}
	}
	start := func(c *Controller, leasesAt time.Duration) {
		k := int(leasesAt / (10 * time.Second))
		for i, n := range names {
			c.UpsertNode(nodeAt(n, scenarioStart))
			c.UpsertLease(Lease{Node: n, RenewTime: scenarioStart.Add(leasesAt), ResourceVersion: live.rv(k, i)})
			c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p-" + n, UID: "u-" + n, NodeName: n, Ready: true, Tolerations: []taints.Toleration{
				{Key: taints.TaintNodeUnreachable, Operator: taints.TolerationOpExists, Effect: taints.TaintEffectNoExecute, TolerationSeconds: &tol}}}))
		}
		live.cacheRV = live.rv(k, len(names)-1)
	}

	// Controller A, with a live cache, from +0s to +55s.
	a := newScenario(t, cfg)
	start(a, 0)
	for d := time.Duration(0); d < 60*time.Second; d += 5 * time.Second {
		live.now = d
		if d%(10*time.Second) == 0 {
			for i, n := range names {
				a.UpsertLease(Lease{Node: n, RenewTime: scenarioStart.Add(d), ResourceVersion: live.rv(int(d/(10*time.Second)), i)})
			}
		}
		a.StepAll(scenarioStart.Add(d))
	}

	// Controller B from +60s: its lease cache starts 30s behind (the
	// leases renewed at +30s) and gets nothing more until +150s.
	b := newScenario(t, cfg)
	if answer {
		b.SetLiveLeases(live)
	}
	live.now = 60 * time.Second
	start(b, 30*time.Second)
	var out []string
	for d := 60 * time.Second; d <= 200*time.Second; d += 5 * time.Second {
		live.now = d
		now := scenarioStart.Add(d)
		if d%(10*time.Second) == 0 {
			k := int(d / (10 * time.Second))
			for i, n := range names {
				if d >= 150*time.Second {
					b.UpsertLease(Lease{Node: n, RenewTime: now, ResourceVersion: live.rv(k, i)})
					live.cacheRV = live.rv(k, i)
				}
				// A kubelet that finds its node's Ready not True posts
				// Ready=True at its next 10s status sync.
				if node, _ := b.Node(n); readyStatus(node.Conditions) != conditions.True {
					node.Conditions = readyAt(now) // status only: the taints stay
					b.UpsertNode(node)
				}
			}
		}
		for _, a := range b.StepAll(now).Actions {
			l := line(a)
			if a.Kind == KindHold {
				l = strings.Join(strings.Fields(l+" "+a.Reason), " ")
			}
			out = append(out, l)
		}
	}
	return out
}

// A controller restart with a lagging lease cache (gate
// NodeControllerLeaseCircuitBreaker, v1.37). Zones a (a-1, a-2) and b
// (b-1); every kubelet renews its lease every 10s and posted Ready=True at
// +0s only (nothing changed since). The controller restarts at +60s; the
// new one's lease cache lists the leases as renewed at +30s (resource
// versions 109, 110, 111) and stays there until +150s. Its first pass, at
// +60s, times every node from then (probe +60s, deadline +110s), so the
// first pass strictly after the deadline is +115s:
//
//   - v1.36 (no breaker): the pass rewrites all three Ready conditions to
//     Unknown and marks their pods NotReady; with no Ready node in any zone
//     the cluster enters full disruption (both rates 0, nothing to
//     untaint) and the nodes get unreachable:NoSchedule. At +120s each
//     kubelet finds its Ready not True and posts Ready=True: the pass
//     counts them Ready, the zones leave full disruption (back to
//     Normal at 0.1/s) and the NoSchedule taints come off.
//   - v1.37: at +115s a-1 is checked first (name order); its live lease,
//     renewed at +110s, is 133, not the cached 109: a-1 is held and the
//     breaker waits for the cache to reach 133. a-2 and b-1 are held by the
//     stale cache (at 111). No node is counted, so both zones leave the
//     controller's zone states (upstream deletes the states of zones with
//     no counted node) without an action. Every pass to +145s holds all
//     three. At +150s the cache catches up (the renewals of +150s, up to
//     147): the breaker clears, the leases are newer than the saved ones,
//     every node is Ready and counted, and both zones come back as new
//     (Initial -> Normal). No node was marked Unknown, no pod NotReady.
//
// A v1.37 controller whose caller does not answer for the live leases
// (SetLiveLeases not called) trusts its cache as v1.36 does.
func TestLeaseCircuitBreakerRestart(t *testing.T) {
	start := []string{
		"+1m0s Zone r/a Initial -> Normal, rate 0.1/s",
		"+1m0s Zone r/b Initial -> Normal, rate 0.1/s",
	}
	blamed := append(start[:2:2],
		"+1m55s NodeStatus a-1",
		"+1m55s NodeStatus a-2",
		"+1m55s NodeStatus b-1",
		"+1m55s PodsNotReady a-1",
		"+1m55s PodsNotReady a-2",
		"+1m55s PodsNotReady b-1",
		"+1m55s Zone r/a Normal -> FullDisruption, rate 0/s",
		"+1m55s Zone r/b Normal -> FullDisruption, rate 0/s",
		"+1m55s Taints a-1 +node.kubernetes.io/unreachable:NoSchedule",
		"+1m55s Taints a-2 +node.kubernetes.io/unreachable:NoSchedule",
		"+1m55s Taints b-1 +node.kubernetes.io/unreachable:NoSchedule",
		"+2m0s Zone r/a FullDisruption -> Normal, rate 0.1/s",
		"+2m0s Zone r/b FullDisruption -> Normal, rate 0.1/s",
		"+2m0s Taints a-1 -node.kubernetes.io/unreachable:NoSchedule",
		"+2m0s Taints a-2 -node.kubernetes.io/unreachable:NoSchedule",
		"+2m0s Taints b-1 -node.kubernetes.io/unreachable:NoSchedule",
	)
	held := append(start[:2:2],
		"+1m55s Hold a-1 "+ReasonLeaseNotExpired,
		"+1m55s Hold "+ReasonLeaseCacheStale,
	)
	for d := 120; d <= 145; d += 5 {
		held = append(held, "+"+(time.Duration(d)*time.Second).String()+" Hold "+ReasonLeaseCacheStale)
	}
	held = append(held,
		"+2m30s Zone r/a Initial -> Normal, rate 0.1/s",
		"+2m30s Zone r/b Initial -> Normal, rate 0.1/s",
	)
	for _, tc := range []struct {
		name   string
		cfg    Config
		answer bool
		want   []string
	}{
		{"v1.36", ConfigFor(release.V1_36), true, blamed},
		{"v1.37", DefaultConfig(), true, held},
		{"v1.37 without live leases", DefaultConfig(), false, blamed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, runRestartWithLaggingCache(t, tc.cfg, tc.answer)); diff != "" {
				t.Errorf("actions of the restarted controller (-want +got):\n%s", diff)
			}
		})
	}
}

// fixedLeases answers every LiveLease alike.
type fixedLeases struct {
	rv      string
	found   bool
	err     error
	cacheRV string
	asked   []string
}

func (f *fixedLeases) LiveLease(node string) (string, bool, error) {
	f.asked = append(f.asked, node)
	return f.rv, f.found, f.err
}
func (f *fixedLeases) CacheResourceVersion() string { return f.cacheRV }

// The breaker's answers, one pass each: zone a holds a-1 and a-2, both
// posted Ready=True at +0s and renewed their leases (resource version 5)
// at +0s only; the first pass (+0s) times them from then, so the pass at
// +55s finds both expired and asks for a-1's live lease, then a-2's unless
// a-2 is held by the stale cache. Upstream's rules (v1.37): a read error
// holds the node without tripping (the next node is checked on its own);
// NotFound, or the cached version, lets the expiry stand; another version
// holds the node and trips the breaker, which holds every later node while
// the cache's version is older, and clears when the cache's version is
// unknown or either version is not a well-formed one.
func TestLeaseCircuitBreakerAnswers(t *testing.T) {
	unknown := []string{"NodeStatus a-1", "NodeStatus a-2", "PodsNotReady a-1", "PodsNotReady a-2", "Zone"}
	for _, tc := range []struct {
		name  string
		live  fixedLeases
		asked []string
		want  []string
	}{
		{"read error", fixedLeases{err: errors.New("etcdserver: request timed out")}, []string{"a-1", "a-2"},
			[]string{"Hold a-1 LeaseNotExpired", "Hold a-2 LeaseNotExpired"}},
		{"not found", fixedLeases{}, []string{"a-1", "a-2"}, unknown},
		{"same version", fixedLeases{rv: "5", found: true, cacheRV: "5"}, []string{"a-1", "a-2"}, unknown},
		{"newer, cache behind", fixedLeases{rv: "9", found: true, cacheRV: "7"}, []string{"a-1"},
			[]string{"Hold a-1 LeaseNotExpired", "Hold LeaseCacheStale"}},
		{"newer, cache caught up", fixedLeases{rv: "9", found: true, cacheRV: "10"}, []string{"a-1", "a-2"},
			[]string{"Hold a-1 LeaseNotExpired", "Hold a-2 LeaseNotExpired"}},
		{"newer, cache version unknown", fixedLeases{rv: "9", found: true}, []string{"a-1", "a-2"},
			[]string{"Hold a-1 LeaseNotExpired", "Hold a-2 LeaseNotExpired"}},
		{"malformed live version", fixedLeases{rv: "09", found: true, cacheRV: "7"}, []string{"a-1", "a-2"},
			[]string{"Hold a-1 LeaseNotExpired", "Hold a-2 LeaseNotExpired"}},
		{"shorter is older", fixedLeases{rv: "10", found: true, cacheRV: "9"}, []string{"a-1"},
			[]string{"Hold a-1 LeaseNotExpired", "Hold LeaseCacheStale"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newScenario(t, DefaultConfig())
			live := tc.live
			c.SetLiveLeases(&live)
			for _, n := range []string{"a-1", "a-2"} {
				c.UpsertNode(core.Node{Name: n, Labels: zoneLabels("a"), Conditions: readyAt(scenarioStart)})
				c.UpsertLease(Lease{Node: n, RenewTime: scenarioStart, ResourceVersion: "5"})
			}
			var got []string
			for d := time.Duration(0); d <= 55*time.Second; d += 5 * time.Second {
				for _, a := range c.StepAll(scenarioStart.Add(d)).Actions {
					if d == 55*time.Second && a.Kind != KindTaints {
						l := string(a.Kind) + " " + a.Node
						if a.Kind == KindHold {
							l += " " + a.Reason
						}
						got = append(got, strings.Join(strings.Fields(l), " "))
					}
				}
			}
			for i := range got {
				if strings.HasPrefix(got[i], "Zone") {
					got[i] = "Zone"
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("actions at +55s (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.asked, live.asked); diff != "" {
				t.Errorf("live leases read (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareResourceVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		order int
		ok    bool
	}{
		{"5", "5", 0, true}, {"9", "10", -1, true}, {"10", "9", 1, true}, {"123", "124", -1, true},
		{"", "1", 0, false}, {"1", "", 0, false}, {"01", "1", 0, false}, {"0", "1", 0, false}, {"1a", "2", 0, false},
	} {
		order, ok := compareResourceVersions(tc.a, tc.b)
		if order != tc.order || ok != tc.ok {
			t.Errorf("compareResourceVersions(%q, %q) = %d, %v; want %d, %v", tc.a, tc.b, order, ok, tc.order, tc.ok)
		}
	}
}

// A node that never posted a status (created at +0s, its lease renewed at
// +0s with resource version 5) times out at +65s, the first pass after its
// 60s of startup grace, and the live lease (9, the cache at 7) holds it.
// Upstream's breaker returns before the rewrite to Unknown, so the node's
// saved status still has no Ready condition, and a pod bound to it then is
// left alone (processPod needs a saved Ready); had the hold kept the
// rewrite, the pod would be marked NotReady. With the breaker off (v1.36)
// the rewrite happens and the pod is marked.
func TestLeaseHoldKeepsNoReady(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"v1.37", DefaultConfig(), []string{"+1m5s Hold a-1 LeaseNotExpired"}},
		{"v1.36", ConfigFor(release.V1_36), []string{"+1m5s NodeStatus a-1", "+1m6s PodsNotReady a-1 BoundToNotReadyNode"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newScenario(t, tc.cfg)
			c.SetLiveLeases(&fixedLeases{rv: "9", found: true, cacheRV: "7"})
			c.UpsertNode(core.Node{Name: "a-1", Labels: zoneLabels("a"), CreationTimestamp: scenarioStart})
			c.UpsertLease(Lease{Node: "a-1", RenewTime: scenarioStart, ResourceVersion: "5"})
			var got []string
			for d := time.Duration(0); d <= 66*time.Second; d += time.Second {
				if d == 66*time.Second {
					c.UpsertPod(corePod(PodState{Namespace: "ns", Name: "p", UID: "u", NodeName: "a-1", Ready: true}))
				}
				for _, a := range c.StepAll(scenarioStart.Add(d)).Actions {
					if a.Kind == KindTaints || a.Kind == KindZone {
						continue
					}
					l := "+" + d.String() + " " + string(a.Kind) + " " + a.Node
					if a.Kind == KindHold || a.Kind == KindPodsNotReady {
						l += " " + a.Reason
					}
					got = append(got, strings.Join(strings.Fields(l), " "))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
		})
	}
}
